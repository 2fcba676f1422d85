#!/usr/bin/env python3
"""Records tests/data/transcripts/interactive/: a real interactive Claude Code session, offline.

Usage: tests/data/transcripts/record-interactive.py [--away-seconds N]

record.sh drives `claude -p`, which writes no `system/turn_duration` and no `agent-name`: the
interactive REPL does. This script runs the real CLI in a pseudo-terminal, as a person would, against
tests/model_server/scripted_model_server.py (same clean environment as record.sh, plus
TERM=xterm-256color and CLAUDE_CODE_ENABLE_AWAY_SUMMARY=1), and types:

  1. "CMD: echo one"          one Bash call                  -> system/turn_duration
  2. "USE_AGENT please"       an Agent call and its sub-agent -> system/turn_duration
  3. "/rename scripted-agent" names the session             -> custom-title, agent-name
  4. shift+tab                the next permission mode       -> permission-mode, mode
  5. "hello"                  a plain answer                 -> system/turn_duration
  6. focus out (ESC [ O) for --away-seconds (default 200; the CLI's recap waits 180 s away), then
     focus in (ESC [ I)                                       -> system/away_summary, if it comes
  7. /exit

Onboarding, the API-key question and the folder trust dialog are answered in advance in the throwaway
~/.claude.json (hasCompletedOnboarding, customApiKeyResponses.approved with the dummy key's last 20
characters, projects.<cwd>.hasTrustDialogAccepted). Each prompt waits for its turn_duration record
(at most 60 s). Writes into tests/data/transcripts/interactive/: transcript/ (the session's files,
byte for byte), requests.jsonl (the model server's request log) and README (what was typed, the
session id, the record types found). The screen output is not kept. Exits non-zero when a step
times out or the CLI fails.
"""

import argparse
import glob
import json
import os
import pty
import select
import shutil
import signal
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", "..", ".."))
SERVER = os.path.join(ROOT, "tests", "model_server", "scripted_model_server.py")
KEY = "sk-ant-scripted-dummy-key"


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--away-seconds", type=float, default=200)
    args = parser.parse_args()

    claude = os.environ.get("CLAUDE", "claude")
    version = subprocess.run([claude, "--version"], capture_output=True, text=True).stdout.strip()
    out = os.path.join(HERE, "interactive")
    work = tempfile.mkdtemp(prefix="sandscope-transcripts.", dir=os.environ.get("TMPDIR", "/tmp"))
    home = os.path.join(work, "home-interactive")
    cwd = os.path.join(home, "chat-interactive")
    os.makedirs(cwd)
    os.makedirs(os.path.join(work, "tmp"))
    shutil.rmtree(out, ignore_errors=True)
    os.makedirs(out)

    server = subprocess.Popen(
        [sys.executable, SERVER, "--request-log", os.path.join(out, "requests.jsonl")],
        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    port = int(server.stdout.readline().split()[1])
    with open(os.path.join(home, ".claude.json"), "w") as f:
        json.dump({"hasCompletedOnboarding": True, "theme": "dark",
                   "customApiKeyResponses": {"approved": [KEY[-20:]], "rejected": []},
                   "projects": {cwd: {"hasTrustDialogAccepted": True}}}, f)
    env = {"PATH": os.environ["PATH"], "HOME": home, "SHELL": "/bin/bash", "LANG": "C.UTF-8",
           "TERM": "xterm-256color", "TMPDIR": os.path.join(work, "tmp"),
           "ANTHROPIC_API_KEY": KEY, "ANTHROPIC_BASE_URL": "http://127.0.0.1:%d" % port,
           "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1", "DISABLE_AUTOUPDATER": "1",
           "CLAUDE_CODE_MAX_RETRIES": "2", "CLAUDE_CODE_ENABLE_AWAY_SUMMARY": "1"}
    flags = ["--permission-mode=default", "--allowedTools=Bash", "--allowedTools=Agent"]
    pid, fd = pty.fork()
    if pid == 0:
        os.chdir(cwd)
        os.execvpe(claude, [claude] + flags, env)

    def pump(seconds):
        end = time.time() + seconds
        while time.time() < end:
            ready, _, _ = select.select([fd], [], [], 0.1)
            if ready:
                try:
                    os.read(fd, 65536)
                except OSError:
                    return

    def records():
        found = []
        for path in glob.glob(os.path.join(home, ".claude", "projects", "*", "*.jsonl")):
            with open(path) as f:
                for line in f:
                    try:
                        found.append(json.loads(line))
                    except ValueError:
                        pass
        return found

    def count(kind):
        return sum(1 for r in records()
                   if r.get("type") == kind or "system/" + str(r.get("subtype")) == kind)

    def wait_for(kind, before, seconds=60):
        end = time.time() + seconds
        while time.time() < end:
            pump(0.5)
            if count(kind) > before:
                return
        sys.exit("record-interactive.py: no new %s record within %d s" % (kind, seconds))

    typed = []

    def type_line(text, waits_for=None):
        before = count(waits_for) if waits_for else 0
        os.write(fd, text.encode())
        pump(0.5)
        os.write(fd, b"\r")
        typed.append(text)
        if waits_for:
            wait_for(waits_for, before)
        pump(1)

    try:
        pump(6)
        type_line("CMD: echo one", "system/turn_duration")
        type_line("USE_AGENT please", "system/turn_duration")
        type_line("/rename scripted-agent", "agent-name")
        before = count("permission-mode")
        os.write(fd, b"\x1b[Z")  # shift+tab: the next permission mode
        typed.append("shift+tab")
        pump(2)
        type_line("hello", "system/turn_duration")
        os.write(fd, b"\x1b[O")  # focus out
        typed.append("focus out for %d s, focus in" % args.away_seconds)
        pump(args.away_seconds)
        os.write(fd, b"\x1b[I")  # focus in
        pump(10)
        type_line("/exit")
        pump(5)
    finally:
        try:
            os.kill(pid, signal.SIGTERM)
        except ProcessLookupError:
            pass
        pump(2)
        os.waitpid(pid, 0)
        server.terminate()
        server.wait()

    files = glob.glob(os.path.join(home, ".claude", "projects", "*", "*.jsonl"))
    if len(files) != 1:
        sys.exit("record-interactive.py: expected one session file, found %d" % len(files))
    session = os.path.basename(files[0])[:-len(".jsonl")]
    os.makedirs(os.path.join(out, "transcript"))
    shutil.copy(files[0], os.path.join(out, "transcript"))
    subagents = os.path.join(files[0][:-len(".jsonl")], "subagents")
    if os.path.isdir(subagents):
        shutil.copytree(subagents, os.path.join(out, "transcript", session, "subagents"))
    kinds = {}
    for r in records():
        kind = r.get("type", "?") + ("/" + r["subtype"] if r.get("subtype") else "")
        kinds[kind] = kinds.get(kind, 0) + 1
    with open(os.path.join(out, "README"), "w") as f:
        f.write("interactive: recorded with %s by record-interactive.py, HOME=%s, cwd=%s, "
                "claude %s in a pseudo-terminal; session %s\n" % (version, home, cwd, " ".join(flags), session))
        f.write("typed, in order: %s\n" % "; ".join(json.dumps(t) for t in typed))
        f.write("record types in the main file: %s\n"
                % ", ".join("%s %d" % (k, n) for k, n in sorted(kinds.items())))
    print("recorded interactive (session %s)" % session, file=sys.stderr)
    shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
