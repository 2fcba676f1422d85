#!/usr/bin/env python3
"""The code's layout as figures, and the rules docs/architecture.md states about it.

Prints, for CI's log: each folder of app/ with its sources and lines, and every source file of
the project over the size limit. Fails (exit 1) when a rule is broken:
  - a file of app/ includes ui/ or cli/ (the core is Qt Core + Network only);
  - two folders of app/ include each other, directly or through others (a loop of rooms);
  - inside one folder of app/, a loop of files (a header and its .cpp count as one unit).
The limits on sizes (sources per folder, lines per file) are printed as figures with the
files over them named; they fail the check only with --strict.
"""
import os
import re
import sys

MAX_FOLDER_SOURCES = 25
MAX_FILE_LINES = 1200
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)
root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
strict = "--strict" in sys.argv[1:]


def sources(top):
    for folder, _, files in os.walk(os.path.join(root, top)):
        for name in sorted(files):
            if name.endswith((".cpp", ".h")):
                yield os.path.relpath(os.path.join(folder, name), root)


def includes(path):
    with open(os.path.join(root, path), encoding="utf-8", errors="replace") as f:
        return INCLUDE.findall(f.read())


def unit(path):
    return os.path.splitext(path)[0]


def find_cycle(graph):
    """One cycle of the directed graph {node: set(nodes)} as a list, or None."""
    state = {}
    for start in sorted(graph):
        if start in state:
            continue
        stack = [(start, iter(sorted(graph.get(start, ()))))]
        path = [start]
        state[start] = 1
        while stack:
            node, children = stack[-1]
            child = next(children, None)
            if child is None:
                stack.pop()
                path.pop()
                state[node] = 2
                continue
            if state.get(child) == 1:
                return path[path.index(child):] + [child]
            if child not in state:
                state[child] = 1
                path.append(child)
                stack.append((child, iter(sorted(graph.get(child, ())))))
    return None


errors = []
app_files = list(sources("app"))
folders = {}
for path in app_files:
    folders.setdefault(path.split(os.sep)[1], []).append(path)

print("layout: app/ folders (sources, lines)")
for folder in sorted(folders):
    files = folders[folder]
    lines = sum(sum(1 for _ in open(os.path.join(root, f), encoding="utf-8", errors="replace"))
                for f in files)
    mark = "  over %d sources" % MAX_FOLDER_SOURCES if len(files) > MAX_FOLDER_SOURCES else ""
    print("  %-14s %3d sources %6d lines%s" % (folder, len(files), lines, mark))
    if mark and strict:
        errors.append("app/%s holds %d sources (limit %d)" % (folder, len(files), MAX_FOLDER_SOURCES))

big = []
for top in ("app", "ui", "cli", "tests", "bench"):
    for path in sources(top):
        with open(os.path.join(root, path), encoding="utf-8", errors="replace") as f:
            count = sum(1 for _ in f)
        big.append((count, path))
big.sort(reverse=True)
print("layout: largest source files (limit %d lines)" % MAX_FILE_LINES)
for count, path in big[:5]:
    print("  %5d %s%s" % (count, path, "  over the limit" if count > MAX_FILE_LINES else ""))
over = [(c, p) for c, p in big if c > MAX_FILE_LINES]
print("layout: %d source files over %d lines" % (len(over), MAX_FILE_LINES))
if strict:
    errors += ["%s has %d lines (limit %d)" % (p, c, MAX_FILE_LINES) for c, p in over]

folder_graph = {f: set() for f in folders}
unit_graph = {}
for path in app_files:
    folder = path.split(os.sep)[1]
    for inc in includes(path):
        parts = inc.split("/")
        if parts[0] in ("ui", "cli") or (len(parts) == 1 and False):
            errors.append("%s includes %s: the core must not use the GUI or the CLI" % (path, inc))
        if len(parts) < 2:
            continue  # "own.h" beside the file
        target = os.path.join("app", inc)
        if not os.path.exists(os.path.join(root, target)):
            continue  # a Qt or system header written with quotes
        if parts[0] != folder:
            folder_graph[folder].add(parts[0])
        elif unit(target) != unit(path):
            unit_graph.setdefault(unit(path), set()).add(unit(target))

cycle = find_cycle(folder_graph)
print("layout: folders of app/ include each other in a loop: %s" % (" -> ".join(cycle) if cycle else "none"))
if cycle:
    errors.append("folders of app/ include each other: " + " -> ".join(cycle))
cycle = find_cycle(unit_graph)
print("layout: files inside a folder of app/ in a loop: %s" % (" -> ".join(cycle) if cycle else "none"))
if cycle:
    errors.append("files inside a folder include each other: " + " -> ".join(cycle))

for error in errors:
    print("layout: FAIL: " + error, file=sys.stderr)
sys.exit(1 if errors else 0)
