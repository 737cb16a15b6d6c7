#!/usr/bin/env python3
"""Checks that the timing functions of sim/ hold no cost constant (a ctest): every figure a
timing function uses comes from the config (configs/, with its source), so a numeric literal in
one is a figure that escaped the preset. 0, 1 and 0.5 (rounding) are allowed, and so are named
constants, which the reader can look up. Prints each literal with its file, line and function;
`--list` prints the functions checked."""
import pathlib
import re
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
# (file, function): the functions that turn an instruction into cycles.
TIMING_FUNCTIONS = [
    ("sim/pipe/transfer_cost.cc", "TransferCostModel::Cost"),
    ("sim/pipe/burst_efficiency.cc", "Apply"),
    ("sim/pipe/dma_pipe.cc", "DmaPipe::Execute"),
    ("sim/pipe/dma_pipe.cc", "DmaPipe::GmMoveTiming"),
    ("sim/pipe/dma_pipe.cc", "DmaPipe::LocalMoveTiming"),
    ("sim/pipe/vector_pipe.cc", "VectorPipe::Execute"),
    ("sim/pipe/vector_pipe.cc", "VectorPipe::Timing"),
    ("sim/pipe/vector_pipe.cc", "VectorPipe::CompareCountTiming"),
    ("sim/pipe/cube_pipe.cc", "FractalCycles"),
    ("sim/pipe/cube_pipe.cc", "CubePipe::Execute"),
    ("sim/mem/gm_path.cc", "GmPath::Grant"),
]
ALLOWED = {"0", "1", "0.0", "1.0", "0.5"}
LITERAL = re.compile(r"(?<![\w.])(\d+\.\d*|\d*\.\d+|\d+)([eE][-+]?\d+)?[uUlLfF]*(?![\w.])")


def body(text: str, name: str):
    """(first line number, text) of the body of the function `name` defined in `text`."""
    match = re.search(r"^[\w:<>&* ]*\b" + re.escape(name) + r"\s*\(", text, re.MULTILINE)
    if match is None:
        return None
    start = text.index("{", match.end())
    depth = 0
    for i in range(start, len(text)):
        depth += {"{": 1, "}": -1}.get(text[i], 0)
        if depth == 0:
            return text.count("\n", 0, start) + 1, text[start:i + 1]
    return None


def strip_comments(code: str) -> str:
    code = re.sub(r"/\*.*?\*/", lambda m: "\n" * m.group(0).count("\n"), code, flags=re.DOTALL)
    return re.sub(r"//[^\n]*", "", code)


def literals_in(text: str, name: str):
    """[(line number, literal)] of the literals outside ALLOWED in the function `name` of
    `text`; None when `text` defines no such function."""
    found = body(text, name)
    if found is None:
        return None
    first, code = found
    hits = []
    for offset, line in enumerate(strip_comments(code).split("\n")):
        line = re.sub(r'"[^"]*"', '""', line)
        for m in LITERAL.finditer(line):
            if m.group(0).rstrip("uUlLfF") not in ALLOWED:
                hits.append((first + offset, m.group(0)))
    return hits


def main() -> int:
    if "--list" in sys.argv[1:]:
        for path, name in TIMING_FUNCTIONS:
            print(f"{path}: {name}")
        return 0
    problems = []
    for path, name in TIMING_FUNCTIONS:
        hits = literals_in((ROOT / path).read_text(), name)
        if hits is None:
            problems.append(f"{path}: the timing function {name} is not found; update "
                            "TIMING_FUNCTIONS in scripts/check_timing_literals.py")
            continue
        for line, literal in hits:
            problems.append(f"{path}:{line}: {name} uses the literal {literal}: move the figure "
                            "to the preset (configs/presets/, with its source or `assumed`)")
    for p in problems:
        print(p)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
