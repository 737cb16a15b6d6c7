#!/usr/bin/env python3
"""Checks the include structure of sim/ (a ctest): no include cycles between its folders, the model
folders never include the bridge, the host launch path, the trace writer or generated protobuf
headers, and runtime/include names nothing of the project. Prints each violation with the file."""
import collections
import pathlib
import re
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
MODEL = {"core", "isa", "mem", "sync", "fwk", "check", "pipe", "soc"}
INCLUDE = re.compile(r'#include "([^"]+)"')


def main() -> int:
    problems = []
    edges = collections.defaultdict(set)
    where = {}
    for path in sorted((ROOT / "sim").rglob("*")):
        if path.suffix not in (".h", ".cc"):
            continue
        folder = path.relative_to(ROOT / "sim").parts[0]
        for target in INCLUDE.findall(path.read_text()):
            rel = path.relative_to(ROOT)
            if folder in MODEL and target.endswith(".pb.h"):
                problems.append(f"{rel}: the model includes generated {target}")
            if not target.startswith("sim/"):
                continue
            dep = target.split("/")[1]
            if dep == folder:
                continue
            edges[folder].add(dep)
            where.setdefault((folder, dep), rel)
            if folder in MODEL and dep not in MODEL:
                problems.append(f"{rel}: the model includes {target} (sim/{dep} is above it)")

    def reaches(start, goal):
        seen, todo = set(), [start]
        while todo:
            node = todo.pop()
            for nxt in edges.get(node, ()):
                if nxt == goal:
                    return True
                if nxt not in seen:
                    seen.add(nxt)
                    todo.append(nxt)
        return False

    for a in sorted(edges):
        for b in sorted(edges[a]):
            if a < b and reaches(b, a):
                problems.append(f"include cycle between sim/{a} and sim/{b} "
                                f"(e.g. {where[(a, b)]} includes sim/{b}/)")
    for path in sorted((ROOT / "runtime" / "include").rglob("*.h")):
        for target in INCLUDE.findall(path.read_text()):
            if not target.startswith("aicore/"):
                problems.append(f"{path.relative_to(ROOT)}: a public runtime header includes "
                                f"{target}; it must stand alone")
    for p in problems:
        print(p)
    if problems:
        print(f"{len(problems)} layering problem(s): see docs/architecture.md")
        return 1
    print(f"layering OK: {len(edges)} sim/ folders, no cycles")
    return 0


if __name__ == "__main__":
    sys.exit(main())
