#!/usr/bin/env python3
"""A scripted stand-in for the Anthropic Messages API, for running the real claude CLI offline.

Standard library only. Point the CLI at it with ANTHROPIC_BASE_URL=http://127.0.0.1:<port> and any
ANTHROPIC_API_KEY (see docs/stream-json.md). Once bound it prints
"LISTENING <port>" on stdout and nothing else there.

The answer is chosen from the newest prompt (the last user text that is not a tool result or a
<system-reminder>) and from whether tool results arrived after it:

  CMD: <shell command>   Bash tool_use running the command; after its result, a text quoting the output
  WRITE: <path> <text>   Write tool_use creating <path> with <text>; then a text confirming it
  THINK                  prepends a thinking block to the first answer (combines with the others)
  USE_AGENT              Agent tool_use whose sub-agent prompt is "SUBTASK: run echo sub"; the
                         sub-agent then runs Bash "echo sub" and reports its output
  PARALLEL_AGENTS        two Agent tool_use blocks in one message; their sub-agents run
                         "sleep 1; echo sub-a" and "sleep 1; echo sub-b" at the same time
  PARALLEL               two Bash tool_use blocks in one message ("echo one", "echo two")
  SLOW_FIRST             with PARALLEL: the first call sleeps 2 s before printing, so the second
                         call's result comes back first (results out of call order)
  anything else          a plain text answer

Requests without tools (tool-less runs) always get text, and so do compaction requests ("/compact"):
in 2.1.332 these still offer the tools and append the summarisation instruction ("CRITICAL: Respond
with TEXT ONLY ... create a detailed summary of the conversation so far ...") as a text block of the
last user message; they are answered with a fixed "Summary: ..." text whatever the prompt was.

Options:
  --fail-status N   answer every /v1/messages request with HTTP N and an Anthropic error body
  --break-stream    drop the connection in the middle of every streamed answer; the CLI retries and
                    then falls back to stream:false, which is answered normally
  --error-event     send an SSE "error" event after message_start instead (same fallback)
  --request-log F   append one JSON object per request to F (the API key only as a SHA-256 prefix)
  --log-prompt-blocks  also log "prompt_blocks": the unmodified text blocks of the prompt message
                    (the "prompt" field is stripped and joined), to check prompts byte for byte
  --log-history     also log "history": each message's role and its text and tool-result texts, to
                    check what a resumed session sent of its earlier turns
"""

import argparse
import hashlib
import json
import re
import socket
import sys
import threading
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import urlsplit

INPUT_TOKENS = 12
OUTPUT_TOKENS = 7
SUBTASK_PROMPT = "SUBTASK: run echo sub"
COMPACT_MARKER = "Respond with TEXT ONLY"
SUMMARY_TEXT = "Summary: the conversation so far was handled by the scripted model server."

ERROR_TYPES = {
    400: "invalid_request_error",
    401: "authentication_error",
    403: "permission_error",
    404: "not_found_error",
    413: "request_too_large",
    429: "rate_limit_error",
    500: "api_error",
    503: "api_error",
    529: "overloaded_error",
}

ERROR_MESSAGES = {
    401: "invalid x-api-key",
    429: "Number of requests has exceeded your rate limit",
    529: "Overloaded",
}


def new_id(prefix, length=16):
    return prefix + uuid.uuid4().hex[:length]


# ---------------------------------------------------------------------------------------------
# Reading the conversation


def text_blocks(content):
    """The text of a message's content (a string or a list of blocks)."""
    if isinstance(content, str):
        return [content]
    texts = []
    for block in content or []:
        if isinstance(block, dict) and block.get("type") == "text":
            texts.append(block.get("text", ""))
    return texts


def tool_results(content):
    if not isinstance(content, list):
        return []
    return [b for b in content if isinstance(b, dict) and b.get("type") == "tool_result"]


def tool_result_text(result):
    content = result.get("content")
    if isinstance(content, str):
        return content
    return "\n".join(text_blocks(content))


def latest_prompt(messages):
    """Index and text of the newest user message that carries a prompt.

    Messages holding tool results are never prompts, even when the CLI adds text to them,
    so a tool loop always ends."""
    for index in range(len(messages) - 1, -1, -1):
        message = messages[index]
        if message.get("role") != "user" or tool_results(message.get("content")):
            continue
        texts = [t for t in text_blocks(message.get("content"))
                 if not t.lstrip().startswith("<system-reminder>")]
        if texts:
            return index, "\n".join(texts).strip()
    return -1, ""


def prompt_blocks(messages, index):
    """The prompt message's text blocks exactly as sent, <system-reminder> blocks left out."""
    if index < 0:
        return []
    return [t for t in text_blocks(messages[index].get("content"))
            if not t.lstrip().startswith("<system-reminder>")]


def is_compaction(messages):
    """Whether the last user message carries the CLI's summarisation instruction (/compact)."""
    for message in reversed(messages):
        if message.get("role") != "user":
            continue
        return any(COMPACT_MARKER in t and "summary of the conversation" in t
                   for t in text_blocks(message.get("content")))
    return False


def results_after(messages, index):
    found = []
    for message in messages[index + 1:]:
        if message.get("role") == "user":
            found.extend(tool_results(message.get("content")))
    return found


# ---------------------------------------------------------------------------------------------
# Choosing the answer: a list of content blocks with complete inputs


def text_block(text):
    return {"type": "text", "text": text}


def bash_block(command, description):
    return {"type": "tool_use", "id": new_id("toolu_fake_"), "name": "Bash",
            "input": {"command": command, "description": description}}


def agent_block(description, prompt):
    return {"type": "tool_use", "id": new_id("toolu_agent_"), "name": "Agent",
            "input": {"description": description, "prompt": prompt,
                      "subagent_type": "general-purpose", "run_in_background": False}}


def quote_results(results):
    outputs = [tool_result_text(r).strip() for r in results]
    return "The command printed: " + "\n".join(outputs)


def choose_answer(body):
    messages = body.get("messages") or []
    index, prompt = latest_prompt(messages)
    results = results_after(messages, index) if index >= 0 else []
    tools_offered = bool(body.get("tools"))

    blocks = []
    if "THINK" in prompt and not results:
        blocks.append({"type": "thinking", "thinking": "Let me think about this.",
                       "signature": "fakesig"})

    if not tools_offered or is_compaction(messages):
        blocks.append(text_block(SUMMARY_TEXT))
        return blocks

    command = None
    match = re.search(r"CMD:\s*(.+)", prompt, re.DOTALL)
    if match:
        command = match.group(1).strip()
    elif prompt.startswith("SUBTASK: run "):
        command = prompt[len("SUBTASK: run "):].strip()
    write = re.search(r"WRITE:\s*(\S+)\s+(.*)", prompt, re.DOTALL)

    if "PARALLEL_AGENTS" in prompt:
        if results:
            blocks.append(text_block("Both sub-agents finished."))
        else:
            for name in ("a", "b"):
                blocks.append(agent_block("Sub job " + name,
                                          "SUBTASK: run sleep 1; echo sub-" + name))
    elif "USE_AGENT" in prompt:
        if results:
            blocks.append(text_block("The sub-agent finished."))
        else:
            blocks.append(agent_block("Sub job", SUBTASK_PROMPT))
    elif "PARALLEL" in prompt:
        if results:
            blocks.append(text_block(quote_results(results)))
        else:
            first = "sleep 2; echo one" if "SLOW_FIRST" in prompt else "echo one"
            blocks.append(bash_block(first, "Print one"))
            blocks.append(bash_block("echo two", "Print two"))
    elif command is not None:
        if results:
            if prompt.startswith("SUBTASK:"):
                blocks.append(text_block("Sub-agent finished: it printed "
                                         + tool_result_text(results[-1]).strip()))
            else:
                blocks.append(text_block(quote_results(results)))
        else:
            blocks.append(text_block("I'll run it."))
            blocks.append(bash_block(command, "Run the requested command"))
    elif write:
        if results:
            blocks.append(text_block("Wrote " + write.group(1) + "."))
        else:
            blocks.append(text_block("I'll write the file."))
            blocks.append({"type": "tool_use", "id": new_id("toolu_fake_"), "name": "Write",
                           "input": {"file_path": write.group(1), "content": write.group(2)}})
    else:
        blocks.append(text_block("Scripted answer to: " + prompt[:200]))
    return blocks


def stop_reason(blocks):
    return "tool_use" if any(b["type"] == "tool_use" for b in blocks) else "end_turn"


def usage(output_tokens):
    return {"input_tokens": INPUT_TOKENS, "output_tokens": output_tokens,
            "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0}


def split_in_two(text):
    middle = max(1, len(text) // 2)
    return [text[:middle], text[middle:]] if len(text) > 1 else [text]


def stream_events(message_id, model, blocks):
    """(event name, payload) pairs of one streamed message, ending with message_stop."""
    yield "message_start", {"type": "message_start", "message": {
        "id": message_id, "type": "message", "role": "assistant", "model": model, "content": [],
        "stop_reason": None, "stop_sequence": None, "usage": usage(1)}}
    yield "ping", {"type": "ping"}
    for index, block in enumerate(blocks):
        kind = block["type"]
        if kind == "text":
            start = {"type": "text", "text": ""}
            deltas = [{"type": "text_delta", "text": part} for part in split_in_two(block["text"])]
        elif kind == "thinking":
            start = {"type": "thinking", "thinking": "", "signature": ""}
            deltas = [{"type": "thinking_delta", "thinking": block["thinking"]},
                      {"type": "signature_delta", "signature": block["signature"]}]
        else:
            start = {"type": "tool_use", "id": block["id"], "name": block["name"], "input": {}}
            deltas = [{"type": "input_json_delta", "partial_json": part}
                      for part in split_in_two(json.dumps(block["input"]))]
        yield "content_block_start", {"type": "content_block_start", "index": index,
                                      "content_block": start}
        for delta in deltas:
            yield "content_block_delta", {"type": "content_block_delta", "index": index,
                                          "delta": delta}
        yield "content_block_stop", {"type": "content_block_stop", "index": index}
    yield "message_delta", {"type": "message_delta",
                            "delta": {"stop_reason": stop_reason(blocks), "stop_sequence": None},
                            "usage": {"output_tokens": OUTPUT_TOKENS}}
    yield "message_stop", {"type": "message_stop"}


# ---------------------------------------------------------------------------------------------
# HTTP


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "ScriptedModelServer/1"
    options = None
    log_lock = threading.Lock()

    def log_message(self, format, *args):  # noqa: A002 - keep stdout for LISTENING only
        sys.stderr.write("%s - %s\n" % (self.address_string(), format % args))

    # --- plumbing

    def read_body(self):
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length > 0 else b""
        try:
            return json.loads(raw) if raw else {}
        except ValueError:
            return None

    def send_json(self, status, payload, extra_headers=None):
        data = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.send_header("request-id", new_id("req_fake_", 12))
        for name, value in (extra_headers or {}).items():
            self.send_header(name, value)
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(data)

    def send_error_body(self, status, message=None):
        error_type = ERROR_TYPES.get(status, "api_error")
        extra = {"retry-after": "1"} if status == 429 else None
        self.send_json(status, {"type": "error", "error": {
            "type": error_type, "message": message or ERROR_MESSAGES.get(status, error_type)}},
            extra)

    def write_chunk(self, data):
        self.wfile.write(b"%x\r\n%s\r\n" % (len(data), data))
        self.wfile.flush()

    def record(self, entry):
        path = self.options.request_log
        if not path:
            return
        with self.log_lock, open(path, "a", encoding="utf-8") as log:
            log.write(json.dumps(entry) + "\n")

    # --- endpoints

    def do_HEAD(self):
        self.record({"method": "HEAD", "path": urlsplit(self.path).path})
        self.send_json(200, {})

    def do_GET(self):
        path = urlsplit(self.path).path
        self.record({"method": "GET", "path": path})
        if path == "/v1/models":
            self.send_json(200, {"data": [{"type": "model", "id": "claude-opus-5-5",
                                           "display_name": "Scripted"}],
                                 "has_more": False, "first_id": "claude-opus-5-5",
                                 "last_id": "claude-opus-5-5"})
        elif path in ("/", "/api/hello", "/health"):
            self.send_json(200, {})
        else:
            self.send_error_body(404, "Not found: " + path)

    def do_POST(self):
        path = urlsplit(self.path).path
        body = self.read_body()
        key = self.headers.get("x-api-key") or self.headers.get("Authorization") or ""
        entry = {"method": "POST", "path": path,
                 "api_key_sha256": hashlib.sha256(key.encode()).hexdigest()[:16] if key else None}
        if isinstance(body, dict):
            index, prompt = latest_prompt(body.get("messages") or [])
            entry.update({"model": body.get("model"), "stream": bool(body.get("stream")),
                          "messages": len(body.get("messages") or []),
                          "tools": len(body.get("tools") or []), "prompt": prompt})
            if self.options.log_prompt_blocks:
                entry["prompt_blocks"] = prompt_blocks(body.get("messages") or [], index)
            if self.options.log_history:
                entry["history"] = [
                    {"role": m.get("role"),
                     "texts": text_blocks(m.get("content"))
                     + [tool_result_text(r) for r in tool_results(m.get("content"))]}
                    for m in body.get("messages") or [] if isinstance(m, dict)]
        self.record(entry)

        if body is None:
            self.send_error_body(400, "The request body is not valid JSON")
        elif path == "/v1/messages/count_tokens":
            self.send_json(200, {"input_tokens": INPUT_TOKENS})
        elif path != "/v1/messages":
            self.send_error_body(404, "Not found: " + path)
        elif self.options.fail_status:
            self.send_error_body(self.options.fail_status)
        elif body.get("stream"):
            self.answer_streaming(body)
        else:
            blocks = choose_answer(body)
            self.send_json(200, {"id": new_id("msg_fake_"), "type": "message",
                                 "role": "assistant", "model": body.get("model", "scripted"),
                                 "content": blocks, "stop_reason": stop_reason(blocks),
                                 "stop_sequence": None, "usage": usage(OUTPUT_TOKENS)})

    def answer_streaming(self, body):
        blocks = choose_answer(body)
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Transfer-Encoding", "chunked")
        self.send_header("request-id", new_id("req_fake_", 12))
        self.end_headers()
        events = stream_events(new_id("msg_fake_"), body.get("model", "scripted"), blocks)
        for number, (name, payload) in enumerate(events):
            if number == 2 and self.options.error_event:
                error = {"type": "error", "error": {"type": "overloaded_error",
                                                    "message": "Overloaded"}}
                self.write_chunk(b"event: error\ndata: %s\n\n" % json.dumps(error).encode())
                break
            if number == 3 and self.options.break_stream:
                # Half an event, then the connection goes away without the final chunk.
                self.wfile.write(b"event: content_block_delta\ndata: {\"type\":")
                self.wfile.flush()
                self.connection.shutdown(socket.SHUT_RDWR)
                self.close_connection = True
                return
            self.write_chunk(b"event: %s\ndata: %s\n\n"
                             % (name.encode(), json.dumps(payload).encode()))
        self.wfile.write(b"0\r\n\r\n")
        self.wfile.flush()


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--fail-status", type=int, default=0)
    parser.add_argument("--break-stream", action="store_true")
    parser.add_argument("--error-event", action="store_true")
    parser.add_argument("--request-log", default="")
    parser.add_argument("--log-prompt-blocks", action="store_true")
    parser.add_argument("--log-history", action="store_true")
    options = parser.parse_args()

    Handler.options = options
    server = ThreadingHTTPServer((options.host, options.port), Handler)
    server.daemon_threads = True
    print("LISTENING %d" % server.server_address[1], flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()


if __name__ == "__main__":
    main()
