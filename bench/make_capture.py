#!/usr/bin/env python3
"""Writes a large stream-json capture built from the real captures in tests/data.

Usage: make_capture.py CAPTURES_DIR OUT_FILE [MEGABYTES]   (default 100)
       make_capture.py --transcript CAPTURES_DIR OUT_DIR [MEGABYTES]

The second form writes a session transcript with sub-agents instead: copies of the recorded
sub-agent run (CAPTURES_DIR/transcripts/subagent/transcript) until the main file holds about
MEGABYTES, each copy with its own sub-agent file (and .meta.json) and its own tool_use, message
and agent ids. Prints the main file's path and the bytes of all the files written.

Every stream-*.jsonl line that is a JSON object is copied; each copy of the set gets its own
ids (tool_use ids, message ids, uuids, session ids, ...: the value gets "-<copy>" appended), so
the tool calls of different copies never match each other. Prints the line count written.
"""
import glob
import json
import os
import re
import sys

ID_KEYS = {"id", "tool_use_id", "parent_tool_use_id", "api_message_id", "session_id", "uuid",
           "agent_id", "agentId", "task_id", "request_id", "run_id", "toolUseId", "sessionId"}
MARK = "@@COPY@@"


def mark_ids(value):
    if isinstance(value, dict):
        return {key: (item + MARK if key in ID_KEYS and isinstance(item, str) and item
                      else mark_ids(item))
                for key, item in value.items()}
    if isinstance(value, list):
        return [mark_ids(item) for item in value]
    return value


def write_transcript(captures, out_dir, megabytes):
    source = os.path.join(captures, "transcripts", "subagent", "transcript")
    main_path = sorted(glob.glob(os.path.join(source, "*.jsonl")))[0]
    session = os.path.basename(main_path)[:-len(".jsonl")]
    agent_path = sorted(glob.glob(os.path.join(source, session, "subagents", "agent-*.jsonl")))[0]
    agent_id = os.path.basename(agent_path)[len("agent-"):-len(".jsonl")]
    with open(main_path, encoding="utf-8") as f:
        main_text = f.read()
    with open(agent_path, encoding="utf-8") as f:
        agent_text = f.read()
    with open(agent_path[:-len(".jsonl")] + ".meta.json", encoding="utf-8") as f:
        meta_text = f.read()
    ids = set(re.findall(r"(?:toolu_|msg_)[A-Za-z0-9_]+", main_text + agent_text)) | {agent_id}
    pattern = re.compile("|".join(re.escape(i) for i in sorted(ids, key=len, reverse=True)))
    subagents = os.path.join(out_dir, session, "subagents")
    os.makedirs(subagents, exist_ok=True)
    out_path = os.path.join(out_dir, session + ".jsonl")
    target = int(megabytes * 1000 * 1000)
    written = total = copy = 0
    with open(out_path, "wb") as out:
        while written < target:
            def unique(text):
                return pattern.sub(lambda m: m.group(0) + "_%d" % copy, text).encode()
            chunk = unique(main_text)
            out.write(chunk)
            written += len(chunk)
            name = os.path.join(subagents, "agent-%s_%d" % (agent_id, copy))
            for suffix, text in ((".jsonl", agent_text), (".meta.json", meta_text)):
                with open(name + suffix, "wb") as f:
                    data = unique(text)
                    f.write(data)
                    total += len(data)
            copy += 1
    print(out_path, written + total)


def main():
    if sys.argv[1] == "--transcript":
        write_transcript(sys.argv[2], sys.argv[3], float(sys.argv[4] if len(sys.argv) > 4 else 100))
        return
    captures, out_path = sys.argv[1], sys.argv[2]
    target = int(float(sys.argv[3] if len(sys.argv) > 3 else 100) * 1000 * 1000)
    templates = []
    for path in sorted(glob.glob(os.path.join(captures, "stream-*.jsonl"))):
        with open(path, "rb") as capture:
            for raw in capture:
                try:
                    parsed = json.loads(raw)
                except ValueError:
                    continue  # noise: jq and json.loads would refuse it
                if isinstance(parsed, dict):
                    templates.append(json.dumps(mark_ids(parsed), ensure_ascii=False,
                                                separators=(",", ":")))
    if not templates:
        sys.exit("no capture lines in " + captures)
    template = "\n".join(templates) + "\n"
    written = lines = copy = 0
    with open(out_path, "wb") as out:
        while written < target:
            chunk = template.replace(MARK, "-%d" % copy).encode()
            out.write(chunk)
            written += len(chunk)
            lines += len(templates)
            copy += 1
    print(lines)


if __name__ == "__main__":
    main()
