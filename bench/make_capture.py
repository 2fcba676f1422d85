#!/usr/bin/env python3
"""Writes a large stream-json capture built from the real captures in tests/data.

Usage: make_capture.py CAPTURES_DIR OUT_FILE [MEGABYTES]   (default 100)

Every stream-*.jsonl line that is a JSON object is copied; each copy of the set gets its own
ids (tool_use ids, message ids, uuids, session ids, ...: the value gets "-<copy>" appended), so
the tool calls of different copies never match each other. Prints the line count written.
"""
import glob
import json
import os
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


def main():
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
