#!/usr/bin/env python3
"""Records agent-frames.txt: what app/terminal/follower.py prints in agents mode (the live
wall's) while a process named like the claude CLI runs with --session-id in a chat folder and
its transcript, the bash scenario's capture, is written in three steps (its first line; up to
and including the record of its Bash call; the rest), then the process is killed. Only the
frames of that agent (and R, H, F) are kept: other agents of the machine are left out.

    tests/data/livewall/record.py app/terminal \\
        tests/data/transcripts/bash/transcript/*.jsonl tests/data/livewall/agent-frames.txt
(app/terminal: where followeragents.py and follower.py are; the program is both, in that
order, as followprotocol::agentsProgram() sends it).
"""
import base64
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

terminal_dir, capture, out_path = sys.argv[1:4]
work = tempfile.mkdtemp(prefix="sandscope-livewall-")
follower_py = os.path.join(work, "follower.py")
with open(follower_py, "wb") as program:
    for name in ("followeragents.py", "follower.py"):
        program.write(open(os.path.join(terminal_dir, name), "rb").read() + b"\n")
root = os.path.join(work, "h")
cwd = root + "/chat-rec"
os.makedirs(cwd)
sid = "5e55a0b1-0000-4000-8000-00000000c0de"
slug = "".join(c if (c.isascii() and c.isalnum()) else "-" for c in cwd)
folder = root + "/.claude/projects/" + slug
src = open(capture, "rb").read()
env = dict(os.environ, HOME=root)
env.pop("CLAUDE_CONFIG_DIR", None)
raw_path = os.path.join(work, "raw.txt")
raw = open(raw_path, "wb")  # a file, not a pipe: the follower never waits for a reader
follower = subprocess.Popen([sys.executable, "-u", follower_py, "agents"], stdout=raw)
time.sleep(0.5)
agent = subprocess.Popen([sys.executable, "-c",
                          "import os, sys; os.execv(sys.executable, ['claude', '-c', "
                          "'import time; time.sleep(60)', '--session-id', sys.argv[1]])", sid],
                         cwd=cwd, env=env)
time.sleep(0.6)
os.makedirs(folder)
call = src.index(b'"type":"tool_use"')
cut = src.index(b"\n", call) + 1
first = src.index(b"\n") + 1
for piece in (src[:first], src[first:cut], src[cut:]):
    with open(folder + "/" + sid + ".jsonl", "ab") as f:
        f.write(piece)
    time.sleep(0.6)
agent.kill()
agent.wait()
time.sleep(1.0)
follower.kill()
follower.wait()
raw.close()
keep = []
ident = None
for line in open(raw_path, "rb").read().split(b"\n"):
    parts = line.split(b" ")
    if len(parts) < 3:
        continue
    if parts[1] == b"A" and json.loads(base64.b64decode(parts[3]))["pid"] == agent.pid:
        ident = parts[2]
    if parts[1] in (b"R", b"H", b"F") or parts[2] == ident:
        keep.append(line)
open(out_path, "wb").write(b"\n".join(keep) + b"\n")
shutil.rmtree(work)
print(len(keep), "frames:", b" ".join(line.split(b" ")[1] for line in keep).decode())
