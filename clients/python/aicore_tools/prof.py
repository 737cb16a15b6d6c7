"""aicore-prof: `msprof op simulator` for aicore-sim (docs/tools.md "aicore-prof").

  aicore-prof --output DIR [--] PROGRAM [ARGS...]   run PROGRAM with every kernel launch traced
                                                     into DIR, then print per launch the figures
                                                     of its OpBasicInfo.csv and PipeUtilization.csv
  aicore-prof --compare DIR_A DIR_B                  pair the launches of two such runs by
                                                     `<kernel>#<n>` and print what changed: task
                                                     duration, per pipe, per source line

The program runs with AICORE_SIM_TRACE=DIR (one OPPROF_<kernel>_<n>/ folder per launch, see
docs/traces.md) and AICORE_SIM_REPORT=DIR/aicore-prof-launches.jsonl (which launches happened,
in which order, with their cycles).

Exit codes: a run exits with the program's exit code (0 when it succeeded; 128+N when signal N
killed it); 2 bad arguments, a program that cannot be started, or a folder that cannot be read
(the message names the folder and what is missing); --compare exits 1 when no launch of one run
pairs with a launch of the other."""

import argparse
import csv
import json
import os
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass, field
from typing import Dict, List, Optional, Tuple

EXIT_OK, EXIT_NOTHING_PAIRED, EXIT_USAGE = 0, 1, 2
LAUNCHES_FILE = "aicore-prof-launches.jsonl"
FOLDER_PREFIX = "OPPROF_"
BASIC_CSV = "OpBasicInfo.csv"
PIPE_CSV = "PipeUtilization.csv"
# The clients/python folder holding asc and aicore_tools: the program gets it on PYTHONPATH.
CLIENTS = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
# PipeUtilization.csv's per-pipe columns: <core kind>_<pipe>_time(us) and <core kind>_<pipe>_ratio.
PIPE_TIME = re.compile(r"^(ai[vc])_(.+)_time\(us\)$")


class ProfError(Exception):
    """A folder or file that cannot be read; the text names it and what is missing."""


def eprint(*parts) -> None:
    print(*parts, file=sys.stderr)


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="aicore-prof",
        usage="aicore-prof --output DIR [--overwrite] [--cores] [--] PROGRAM [ARGS...]\n"
              "       aicore-prof --compare DIR_A DIR_B [--lines N]",
        description="Profile the kernel launches of a program as `msprof op simulator` does: "
                    "run it with every launch traced into DIR (AICORE_SIM_TRACE) and print "
                    "each launch's OpBasicInfo.csv and PipeUtilization.csv figures; or compare "
                    "two such runs launch by launch.",
        epilog="Exit codes: a run exits with the program's exit code (0 when it succeeded, "
               "128+N when killed by signal N); 2 bad arguments, a program that cannot be "
               "started or an unreadable folder; --compare exits 1 when no launch pairs. "
               "Files and tables: docs/tools.md \"aicore-prof\", docs/traces.md.")
    p.add_argument("--output", metavar="DIR",
                   help="run PROGRAM with its launches traced into DIR (created if missing; "
                        "it must not hold an earlier run unless --overwrite is given)")
    p.add_argument("--overwrite", action="store_true",
                   help="with --output: first delete the OPPROF_* folders and the launch list "
                        "an earlier run left in DIR (nothing else in DIR is touched)")
    p.add_argument("--compare", nargs=2, metavar=("DIR_A", "DIR_B"),
                   help="compare two earlier --output folders (A before, B after)")
    p.add_argument("--lines", type=int, metavar="N",
                   help="with --compare: show the N source lines whose cycles changed most "
                        "(default 10; 0 hides the table)")
    p.add_argument("--cores", action="store_true",
                   help="with --output: also print PipeUtilization.csv row by row (one row "
                        "per core, the columns that have figures) under its per-pipe summary")
    p.add_argument("command", nargs=argparse.REMAINDER, metavar="PROGRAM [ARGS...]",
                   help="with --output: the program to run and its arguments, e.g. "
                        "python3 my_kernel.py --size 4096 (put -- first if PROGRAM starts "
                        "with -)")
    return p


# --- reading a run folder ---------------------------------------------------------------------

@dataclass
class Launch:
    kernel: str
    n: int                        # this kernel's n-th launch of the run, from 0
    folder: str                   # the OPPROF_<kernel>_<n> folder
    basic: Dict[str, str]         # OpBasicInfo.csv's row, by header
    basic_header: List[str]
    pipe_header: List[str]
    pipe_rows: List[Dict[str, str]]  # PipeUtilization.csv, one row per core
    report: Optional[dict] = None    # this launch's AICORE_SIM_REPORT record, if known
    _lines: Optional[Dict[str, List[float]]] = field(default=None, repr=False)

    @property
    def key(self) -> str:
        return f"{self.kernel}#{self.n}"

    def duration_us(self) -> Optional[float]:
        return _number(self.basic.get("Task Duration(us)"))

    def lines(self) -> Dict[str, List[float]]:
        """Per source line, summed over the cores: [call_count, cycles, running_time(us)]."""
        if self._lines is None:
            self._lines = read_code_lines(self.folder)
        return self._lines


def _number(text) -> Optional[float]:
    try:
        return float(text)
    except (TypeError, ValueError):
        return None  # "N/A" (a cell of the other core kind), empty or missing


def _read_csv(path: str, folder: str) -> Tuple[List[str], List[Dict[str, str]]]:
    try:
        with open(path, newline="", encoding="utf-8") as f:
            reader = csv.DictReader(f)
            rows = list(reader)
            header = list(reader.fieldnames or [])
    except FileNotFoundError:
        raise ProfError(f"{folder}: {os.path.basename(path)} is missing; the folder is not a "
                        "complete trace (was the launch interrupted, or the folder copied in "
                        "part?). Trace the program again.") from None
    except (OSError, UnicodeDecodeError, csv.Error) as e:
        raise ProfError(f"{path}: cannot be read ({e})") from None
    if not header:
        raise ProfError(f"{path}: empty, it has no header row; trace the program again")
    return header, rows


def _trace_folders(root: str) -> List[Tuple[int, str]]:
    """The OPPROF_<kernel>_<n> folders below root, as (n, path)."""
    found = []
    for name in sorted(os.listdir(root)):
        path = os.path.join(root, name)
        if not name.startswith(FOLDER_PREFIX) or not os.path.isdir(path):
            continue
        stem, _, index = name.rpartition("_")
        found.append((int(index) if index.isdigit() and stem else 0, path))
    return found


def read_launches_file(root: str) -> Optional[List[dict]]:
    path = os.path.join(root, LAUNCHES_FILE)
    if not os.path.exists(path):
        return None
    records = []
    try:
        with open(path, encoding="utf-8") as f:
            for number, line in enumerate(f, 1):
                if line.strip():
                    records.append(json.loads(line))
    except (OSError, UnicodeDecodeError) as e:
        raise ProfError(f"{path}: cannot be read ({e})") from None
    except json.JSONDecodeError as e:
        raise ProfError(f"{path}:{number}: not a JSON launch record ({e.msg}); the program "
                        "may have been killed while writing it. Trace it again.") from None
    return records


def read_run(root: str) -> Tuple[List[Launch], List[str]]:
    """A run folder's launches in launch order, and notes on what did not match up."""
    if not os.path.isdir(root):
        raise ProfError(f"{root}: no such folder; give the --output folder of an earlier "
                        "aicore-prof run (or any AICORE_SIM_TRACE folder)")
    try:
        folders = _trace_folders(root)
    except OSError as e:
        raise ProfError(f"{root}: cannot be listed ({e})") from None
    by_kernel: Dict[str, List[Launch]] = {}
    for n, path in sorted(folders, key=lambda f: (f[0], f[1])):
        basic_header, basic_rows = _read_csv(os.path.join(path, BASIC_CSV), path)
        if not basic_rows:
            raise ProfError(f"{os.path.join(path, BASIC_CSV)}: no launch row under the header; "
                            "trace the program again")
        pipe_header, pipe_rows = _read_csv(os.path.join(path, PIPE_CSV), path)
        kernel = basic_rows[0].get("Op Name") or os.path.basename(path)[len(FOLDER_PREFIX):]
        launches = by_kernel.setdefault(kernel, [])
        launches.append(Launch(kernel, len(launches), path, basic_rows[0], basic_header,
                               pipe_header, pipe_rows))
    notes: List[str] = []
    records = read_launches_file(root)
    if records is None:
        # A bare AICORE_SIM_TRACE folder: the order of launches across kernels is unknown.
        ordered = [launch for kernel in sorted(by_kernel) for launch in by_kernel[kernel]]
        return ordered, notes
    ordered, taken = [], {kernel: 0 for kernel in by_kernel}
    for record in records:
        kernel = record.get("kernel", "")
        index = taken.get(kernel, 0)
        if index >= len(by_kernel.get(kernel, [])):
            notes.append(f"launch {kernel}#{index} ran ({record.get('status', '?')}) but left "
                         "no trace folder")
            taken[kernel] = index + 1
            continue
        launch = by_kernel[kernel][index]
        launch.report = record
        ordered.append(launch)
        taken[kernel] = index + 1
    for kernel in sorted(by_kernel):
        for launch in by_kernel[kernel][taken.get(kernel, 0):]:
            notes.append(f"{launch.folder}: not in {LAUNCHES_FILE} (traced by another program?)")
            ordered.append(launch)
    return ordered, notes


def read_code_lines(folder: str) -> Dict[str, List[float]]:
    """<core>_code_exe.csv of every core, summed per source line."""
    sim = os.path.join(folder, "simulator")
    totals: Dict[str, List[float]] = {}
    if not os.path.isdir(sim):
        return totals
    for core in sorted(os.listdir(sim)):
        path = os.path.join(sim, core, f"{core}_code_exe.csv")
        if not os.path.isfile(path):
            continue
        _, rows = _read_csv(path, os.path.join(sim, core))
        for row in rows:
            figures = totals.setdefault(row.get("code", "?"), [0.0, 0.0, 0.0])
            for i, column in enumerate(("call_count", "cycles", "running_time(us)")):
                figures[i] += _number(row.get(column)) or 0.0
    return totals


# --- pipes --------------------------------------------------------------------------------------

@dataclass
class PipeSummary:
    name: str          # the CSV's column stem, e.g. aiv_mte2
    cores: int         # cores with a figure (the other core kind has N/A)
    time_max: float
    time_mean: float
    ratio_mean: float
    ratio_max: float


def pipe_columns(header: List[str]) -> List[Tuple[str, str, Optional[str]]]:
    """(name, time column, ratio column) for every pipe the header names, in its order; the
    core-level aiv_time(us)/aic_time(us) columns are not pipes."""
    out = []
    for column in header:
        m = PIPE_TIME.match(column)
        if m:
            stem = f"{m.group(1)}_{m.group(2)}"
            ratio = f"{stem}_ratio"
            out.append((stem, column, ratio if ratio in header else None))
    return out


def pipe_summaries(launch: Launch) -> List[PipeSummary]:
    out = []
    for name, time_col, ratio_col in pipe_columns(launch.pipe_header):
        times, ratios = [], []
        for row in launch.pipe_rows:
            t = _number(row.get(time_col))
            if t is None:
                continue
            times.append(t)
            r = _number(row.get(ratio_col)) if ratio_col else None
            ratios.append(r if r is not None else 0.0)
        if times:
            out.append(PipeSummary(name, len(times), max(times), sum(times) / len(times),
                                   sum(ratios) / len(ratios), max(ratios)))
    return out


def core_totals(launch: Launch) -> List[str]:
    """e.g. '8 aiv cores, aiv_total_cycles max 6746, aiv_time(us) max 3.646'."""
    parts = []
    for kind in ("aiv", "aic"):
        cycles = [c for c in (_number(r.get(f"{kind}_total_cycles")) for r in launch.pipe_rows)
                  if c is not None]
        times = [t for t in (_number(r.get(f"{kind}_time(us)")) for r in launch.pipe_rows)
                 if t is not None]
        if cycles or times:
            text = f"{max(len(cycles), len(times))} {kind} cores"
            if cycles:
                text += f", {kind}_total_cycles max {max(cycles):.0f}"
            if times:
                text += f", {kind}_time(us) max {max(times):.3f}"
            parts.append(text)
    return parts


# --- printing -----------------------------------------------------------------------------------

def table(headers: List[str], rows: List[List[str]], indent: str = "  ",
          left: int = 1) -> List[str]:
    """Columns padded to their widest cell; the first `left` left-aligned (names), the others
    right-aligned (figures)."""
    widths = [max(len(str(r[i])) for r in [headers] + rows) for i in range(len(headers))]

    def line(cells):
        out = [str(c).ljust(w) if i < left else str(c).rjust(w)
               for i, (c, w) in enumerate(zip(cells, widths))]
        return (indent + "  ".join(out)).rstrip()
    return [line(headers)] + [line(r) for r in rows]


def _fmt(value: Optional[float], digits: int = 3) -> str:
    if value is None:
        return "-"
    return f"{value:.0f}" if digits == 0 else f"{value:.{digits}f}"


def _change(before: Optional[float], after: Optional[float]) -> str:
    if before is None or after is None:
        return "-"
    if before == 0:
        return "0.0%" if after == 0 else "new"
    return f"{(after - before) / before * 100:+.1f}%"


def _delta(before: Optional[float], after: Optional[float], digits: int = 3) -> str:
    if before is None or after is None:
        return "-"
    d = after - before
    return f"{d:+.0f}" if digits == 0 else f"{d:+.{digits}f}"


def describe_launch(launch: Launch, per_core: bool) -> List[str]:
    out = [f"{launch.key}  ({launch.folder})"]
    rows = [[column, launch.basic.get(column, "")] for column in launch.basic_header]
    report = launch.report
    if report is not None:
        rows.append(["cycles", str(report.get("cycles", "-"))])
        rows.append(["status", str(report.get("status", "-"))])
        rows.append(["bound pipe", str(report.get("bound_pipe") or "-")])
    out.append(f"  {BASIC_CSV}" + ("" if report is None else " (cycles, status and bound pipe "
                                    "from the launch report)"))
    out += table(["field", "value"], rows, indent="    ", left=2)[1:]
    out.append(f"  {PIPE_CSV}: " + ("; ".join(core_totals(launch)) or "no core rows"))
    summaries = pipe_summaries(launch)
    if summaries:
        out += table(["pipe", "time(us) max", "time(us) mean", "ratio mean", "ratio max"],
                     [[s.name, _fmt(s.time_max), _fmt(s.time_mean), f"{s.ratio_mean:.6f}",
                       f"{s.ratio_max:.6f}"] for s in summaries], indent="    ")
    if per_core and launch.pipe_rows:
        # Only the columns with a figure in some row: a vector launch's aic_ cells are all N/A.
        shown = [c for c in launch.pipe_header
                 if any(_number(r.get(c)) is not None for r in launch.pipe_rows)
                 or c in ("block id", "sub core type")]
        out.append("  per core:")
        out += table(shown, [[r.get(c, "") for c in shown] for r in launch.pipe_rows],
                     indent="    ")
    trace = os.path.join(launch.folder, "simulator", "trace.json")
    if os.path.isfile(trace):
        out.append(f"  timeline: {trace} (open in https://ui.perfetto.dev or chrome://tracing)")
    return out


def overview(launches: List[Launch]) -> List[str]:
    """One row per launch, in launch order."""
    rows = []
    for launch in launches:
        report = launch.report or {}
        rows.append([launch.key, launch.basic.get("Task Type", "-"),
                     launch.basic.get("Block Dim", "-"), _fmt(launch.duration_us()),
                     str(report.get("cycles", "-")), report.get("status", "-"),
                     report.get("bound_pipe") or "-", os.path.basename(launch.folder)])
    return table(["launch", "task type", "block dim", "task duration(us)", "cycles", "status",
                  "bound pipe", "folder"], rows, left=2)


def print_run(root: str, launches: List[Launch], notes: List[str], per_core: bool) -> None:
    print(f"aicore-prof: {len(launches)} kernel launch(es) traced in {root}")
    print("\n".join(overview(launches)))
    for launch in launches:
        print()
        print("\n".join(describe_launch(launch, per_core)))
    for note in notes:
        print(f"note: {note}")


# --- running a program --------------------------------------------------------------------------

def _earlier_run(root: str) -> List[str]:
    if not os.path.isdir(root):
        return []
    names = [n for n in os.listdir(root)
             if n == LAUNCHES_FILE or (n.startswith(FOLDER_PREFIX)
                                      and os.path.isdir(os.path.join(root, n)))]
    return sorted(names)


def run(args, command: List[str]) -> int:
    root = os.path.abspath(args.output)
    earlier = _earlier_run(root)
    if earlier and not args.overwrite:
        eprint(f"aicore-prof: {root} already holds an earlier run ({', '.join(earlier[:3])}"
               f"{', ...' if len(earlier) > 3 else ''}); give a new --output folder, or "
               "--overwrite to delete that run first")
        return EXIT_USAGE
    try:
        for name in earlier:
            path = os.path.join(root, name)
            if os.path.isdir(path):
                shutil.rmtree(path)
            else:
                os.remove(path)
        os.makedirs(root, exist_ok=True)
    except OSError as e:
        eprint(f"aicore-prof: --output {root}: cannot be prepared ({e}); choose a folder you "
               "can write to")
        return EXIT_USAGE
    env = dict(os.environ, AICORE_SIM_TRACE=root,
               AICORE_SIM_REPORT=os.path.join(root, LAUNCHES_FILE))
    paths = [p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p]
    if CLIENTS not in paths:
        env["PYTHONPATH"] = os.pathsep.join(paths + [CLIENTS])  # so `import asc` works
    sys.stdout.flush()
    try:
        rc = subprocess.run(command, env=env).returncode
    except OSError as e:
        eprint(f"aicore-prof: cannot start {command[0]!r} ({e.strerror or e}); give the "
               "program and its arguments after the options, e.g. python3 my_kernel.py")
        return EXIT_USAGE
    if rc < 0:
        rc = 128 - rc  # killed by a signal, as a shell reports it
    shown = " ".join(command)
    try:
        launches, notes = read_run(root)
    except ProfError as e:
        eprint(f"aicore-prof: {e}")
        return rc or EXIT_USAGE
    if rc != 0:
        eprint(f"aicore-prof: the program `{shown}` exited with {rc}"
               + ("; the launches it made before are shown below" if launches else ""))
    if not launches and not notes:
        print(f"aicore-prof: `{shown}` launched no kernel; nothing was traced in {root}")
        return rc
    print_run(root, launches, notes, args.cores)
    return rc


# --- comparing two runs -------------------------------------------------------------------------

def _short(code: str) -> str:
    cwd = os.getcwd() + os.sep
    return code[len(cwd):] if code.startswith(cwd) else code


def compare_launch(a: Launch, b: Launch, top_lines: int) -> List[str]:
    out = [f"{a.key}"]
    rows = [["task duration (us)", _fmt(a.duration_us()), _fmt(b.duration_us()),
             _delta(a.duration_us(), b.duration_us()), _change(a.duration_us(), b.duration_us())]]
    ca = _number(a.report.get("cycles")) if a.report else None
    cb = _number(b.report.get("cycles")) if b.report else None
    if ca is not None or cb is not None:
        rows.append(["cycles", _fmt(ca, 0), _fmt(cb, 0), _delta(ca, cb, 0), _change(ca, cb)])
    for column in ("Block Dim", "Mix Block Dim", "Task Type"):
        va, vb = a.basic.get(column), b.basic.get(column)
        if va != vb:
            rows.append([column, va or "-", vb or "-", "", "changed"])
    out += table(["", "A", "B", "change", "change %"], rows)
    pa = {s.name: s for s in pipe_summaries(a)}
    pb = {s.name: s for s in pipe_summaries(b)}
    names = [n for n in pa] + [n for n in pb if n not in pa]
    if names:
        prow = []
        for name in names:
            sa, sb = pa.get(name), pb.get(name)
            ta, tb = (sa.time_max if sa else None), (sb.time_max if sb else None)
            prow.append([name, _fmt(ta), _fmt(tb), _delta(ta, tb), _change(ta, tb),
                         f"{sa.ratio_mean:.6f}" if sa else "-",
                         f"{sb.ratio_mean:.6f}" if sb else "-"])
        out += table(["pipe", "time(us) A", "time(us) B", "change", "change %", "ratio A",
                      "ratio B"], prow)
    if top_lines > 0:
        la, lb = a.lines(), b.lines()
        changed = []
        for code in set(la) | set(lb):
            fa, fb = la.get(code, [0.0] * 3), lb.get(code, [0.0] * 3)
            if fa[:2] != fb[:2]:
                changed.append((abs(fb[1] - fa[1]), code, fa, fb))
        changed.sort(key=lambda c: (-c[0], c[1]))
        if not la and not lb:
            out.append("  source lines: no <core>_code_exe.csv in either trace")
        elif not changed:
            out.append("  source lines: no line's calls or cycles changed")
        else:
            out.append(f"  source lines whose cycles changed most (summed over cores, top "
                       f"{min(top_lines, len(changed))} of {len(changed)} changed):")
            out += table(["line", "calls A", "calls B", "cycles A", "cycles B", "change",
                          "change %"],
                         [[_short(code), _fmt(fa[0], 0), _fmt(fb[0], 0), _fmt(fa[1], 0),
                           _fmt(fb[1], 0), _delta(fa[1], fb[1], 0), _change(fa[1], fb[1])]
                          for _, code, fa, fb in changed[:top_lines]], indent="    ")
    return out


def compare(args) -> int:
    dir_a, dir_b = (os.path.abspath(d) for d in args.compare)
    runs = []
    for root in (dir_a, dir_b):
        try:
            launches, _ = read_run(root)
        except ProfError as e:
            eprint(f"aicore-prof: {e}")
            return EXIT_USAGE
        if not launches:
            eprint(f"aicore-prof: {root} holds no {FOLDER_PREFIX}* trace folder; give the "
                   "--output folder of an aicore-prof run that launched kernels")
            return EXIT_USAGE
        runs.append(launches)
    by_key_b = {launch.key: launch for launch in runs[1]}
    keys_a = {launch.key for launch in runs[0]}
    print(f"aicore-prof: A = {dir_a}")
    print(f"             B = {dir_b}")
    paired = 0
    for a in runs[0]:
        b = by_key_b.get(a.key)
        if b is None:
            continue
        paired += 1
        print()
        print("\n".join(compare_launch(a, b, args.lines)))
    only_a = [launch.key for launch in runs[0] if launch.key not in by_key_b]
    only_b = [launch.key for launch in runs[1] if launch.key not in keys_a]
    if only_a or only_b:
        print()
    if only_a:
        print(f"only in A: {', '.join(only_a)}")
    if only_b:
        print(f"only in B: {', '.join(only_b)}")
    if paired == 0:
        eprint("aicore-prof: no launch of A pairs with one of B (launches pair by "
               "<kernel>#<n>: the same kernel name, its n-th launch); are these runs of the "
               "same program?")
        return EXIT_NOTHING_PAIRED
    return EXIT_OK


def main(argv=None) -> int:
    try:
        return _main(argv)
    except BrokenPipeError:
        # stdout piped into `head`: stop quietly, as a filter does.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return EXIT_OK


def _main(argv=None) -> int:
    p = parser()
    args = p.parse_args(argv)
    command = list(args.command)
    if command and command[0] == "--":
        command = command[1:]
    if args.compare:
        if args.output or command or args.overwrite or args.cores:
            p.error("--compare takes two folders (and --lines) and nothing else: run the "
                    "program with --output first, then compare the two --output folders")
        if args.lines is None:
            args.lines = 10
        elif args.lines < 0:
            p.error(f"--lines {args.lines}: must be 0 or more")
        return compare(args)
    if args.lines is not None:
        p.error("--lines applies to --compare; a run prints every launch in full")
    if not args.output:
        p.error("give --output DIR and the program to run, or --compare DIR_A DIR_B")
    if not command:
        p.error("--output needs the program to run after it, e.g. "
                "aicore-prof --output prof python3 my_kernel.py")
    return run(args, command)


if __name__ == "__main__":
    sys.exit(main())
