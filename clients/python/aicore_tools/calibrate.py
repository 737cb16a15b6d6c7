"""aicore-calibrate: fit the simulator's timing figures to kernels profiled on the user's chip
(docs/tools.md "aicore-calibrate").

  aicore-calibrate --measured DIR --output CONFIG_DIR [--] PROGRAM [ARGS...]

DIR holds the `msprof op` output folders (OPPROF_*/OpBasicInfo.csv) of PROGRAM's kernels run on
silicon. PROGRAM is run here again and again (each run one trial of the figures, through
AICORE_SIM_CONFIG_OVERRIDES), its k-th launch of a kernel paired with the k-th profiled launch of
the kernel of that Op Name (folders in name order, which is msprof's time order), and the
figures (--param, default the calibration set's: docs/timing-model.md 7d) are fitted to the
profiled Task Durations and the pipes' busy times of PipeUtilization.csv (--task-only: the Task
Durations alone). CONFIG_DIR/<Platform>.textproto is written: the platform's file with the
fitted figures, for AICORE_SIM_CONFIG_DIR=CONFIG_DIR. Before and after errors are printed; a fit
that leaves any launch worse than the default figures is refused and nothing is written.

Exit codes: 0 written; 1 refused (the message says which launch got worse); 2 bad arguments, an
unreadable or mismatched folder (the message names the file, the row and what is wrong), or a
program that fails here."""

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from typing import Dict, List, Optional, Sequence, Tuple

from aicore_tools import fitting, prof

EXIT_OK, EXIT_REFUSED, EXIT_USAGE = 0, 1, 2
CLIENTS = prof.CLIENTS
NOTE = "fitted by aicore-calibrate"


class CalibrateError(Exception):
    """Input that cannot be used; the text names the file, the row and what is wrong."""


# PipeUtilization.csv's pipe columns (<core kind>_<pipe>) and the launch report's pipe names
# (the msprof layout sim/trace/msprof_csv.cc writes).
PIPES = {"aiv_vec": "V", "aiv_scalar": "S", "aiv_mte2": "MTE2", "aiv_mte3": "MTE3",
         "aic_cube": "M", "aic_scalar": "S", "aic_mte1": "MTE1", "aic_mte2": "MTE2",
         "aic_mte3": "MTE3", "aic_fixpipe": "FIX"}


@dataclass
class Measured:
    kernel: str
    n: int              # the kernel's n-th profiled launch, from 0
    where: str          # "DIR/OPPROF_.../OpBasicInfo.csv, row 2", for messages
    duration_us: float
    # PipeUtilization.csv's busy time per pipe ("aiv_mte2"), the mean over the cores that have
    # it, where it is above zero
    pipes: Dict[str, float] = field(default_factory=dict)

    @property
    def key(self) -> str:
        return f"{self.kernel}#{self.n}"


def read_measured(root: str) -> List[Measured]:
    """The profiled launches of `root` (OPPROF_* folders of `msprof op`), in pairing order."""
    try:
        launches, _ = prof.read_run(root)
    except prof.ProfError as e:
        raise CalibrateError(str(e)) from None
    if not launches:
        raise CalibrateError(f"{root}: no {prof.FOLDER_PREFIX}* folder in it; give the folder "
                             "msprof op wrote its output folders into")
    found = []
    for launch in launches:
        where = f"{os.path.join(launch.folder, prof.BASIC_CSV)}, row 2"
        if "Task Duration(us)" not in launch.basic_header:
            raise CalibrateError(f"{where}: no column Task Duration(us) (columns: "
                                 f"{', '.join(launch.basic_header)}); is it msprof op's "
                                 "OpBasicInfo.csv?")
        if not launch.basic.get("Op Name"):
            raise CalibrateError(f"{where}: column Op Name is empty; it pairs the launch with "
                                 "the program's kernel of that name")
        text = launch.basic.get("Task Duration(us)")
        value = launch.duration_us()
        if value is None or not value > 0 or value != value or value == float("inf"):
            raise CalibrateError(f"{where}, column Task Duration(us): {text!r} is not a "
                                 "positive number of microseconds")
        pipes = {p.name: p.time_mean for p in prof.pipe_summaries(launch)
                 if p.name in PIPES and p.time_mean > 0}
        found.append(Measured(launch.kernel, launch.n, where, value, pipes))
    return found


def pipe_us(record: dict, stem: str) -> float:
    """A launch record's mean busy time of the pipe `stem` ("aic_mte2") over the cores of its
    kind, in us, as PipeUtilization.csv gives it."""
    kind, pipe = stem.split("_", 1)[0], PIPES[stem]
    busy = [c.get("pipes", {}).get(pipe, {}).get("busy_cycles", 0) for c in record["cores"]
            if c.get("core_type") == kind]
    return sum(busy) / len(busy) / record["clock_mhz"] if busy else 0.0


def observations(measured: List[Measured], records: List[dict], pipes: bool):
    """(simulated, measured) values the fit compares: every Task Duration, and with `pipes`
    every profiled pipe time."""
    sim, seen = [], []
    for m, r in zip(measured, records):
        sim.append(r["duration_us"])
        seen.append(m.duration_us)
        if pipes:
            for stem, value in sorted(m.pipes.items()):
                sim.append(max(pipe_us(r, stem), 1e-9))  # a log error needs a positive time
                seen.append(value)
    return sim, seen


# ---- the platform's figures as text -----------------------------------------------------------

def config_dir() -> str:
    """Where the platform files are: $AICORE_SIM_CONFIG_DIR, else the checkout's or the
    installation's configs/."""
    for where in (os.environ.get("AICORE_SIM_CONFIG_DIR", ""),
                  os.path.join(CLIENTS, "..", "..", "configs"),
                  os.path.join(CLIENTS, "..", "..", "..", "share", "aicore-sim", "configs")):
        if where and os.path.isfile(os.path.join(where, "presets", "dav-c220.textproto")):
            return os.path.abspath(where)
    raise CalibrateError("the platform configs are not found (neither $AICORE_SIM_CONFIG_DIR "
                         "nor configs/ of this installation); set AICORE_SIM_CONFIG_DIR")


def figure_value(texts: Sequence[Tuple[str, str]], path: str) -> float:
    """The value of `path` in the first of (origin, text) that sets it (platform, then preset)."""
    *blocks, name = path.split(".")
    for origin, text in texts:
        for stack, found, i in fitting.field_lines(text):
            if stack == blocks and found == name:
                value = text.splitlines()[i].split("#", 1)[0].split(":", 1)[1].strip()
                try:
                    return float(value)
                except ValueError:
                    raise CalibrateError(f"{origin}, line {i + 1}: {path} is {value!r}, not a "
                                         "number") from None
    raise CalibrateError(f"--param {path}: no such figure in the platform file or its preset "
                         f"({', '.join(o for o, _ in texts)}); give a scalar field path such as "
                         "gm.hbm_read_bytes_per_second")


def platform_texts(platform: str) -> List[Tuple[str, str]]:
    """[(origin, text)] of the platform file and of its preset."""
    where = config_dir()
    path = os.path.join(where, platform + ".textproto")
    if not os.path.isfile(path):
        raise CalibrateError(f"{path}: no platform file for {platform!r} (the platform the "
                             "program's launches ran on)")
    text = open(path, encoding="utf-8").read()
    preset = ""
    for stack, name, i in fitting.field_lines(text):
        if not stack and name == "preset":
            preset = text.splitlines()[i].split("#", 1)[0].split(":", 1)[1].strip().strip('"')
    texts = [(path, text)]
    if preset:
        preset_path = os.path.join(where, "presets", preset + ".textproto")
        texts.append((preset_path, open(preset_path, encoding="utf-8").read()))
    return texts


def with_figures(text: str, values: Dict[str, Tuple[float, bool]], note: str) -> str:
    """The platform file's text with each figure set: its line replaced where the file has one,
    else added to its block (made at the end when the file has none)."""
    lines = text.rstrip("\n").splitlines()
    for path, (value, integer) in sorted(values.items()):
        *blocks, name = path.split(".")
        line = f"{name}: {fitting.number_text(value, integer)}  # {note}"
        entries = fitting.field_lines("\n".join(lines))
        same = [i for stack, found, i in entries if stack == blocks and found == name]
        if same:
            indent = lines[same[0]][:len(lines[same[0]]) - len(lines[same[0]].lstrip())]
            lines[same[0]] = indent + line
            continue
        # The closing line of the block, when the file has it (top-level blocks only).
        close = None
        if len(blocks) == 1:
            depth, inside = 0, False
            for i, raw in enumerate(lines):
                body = raw.split("#", 1)[0].strip()
                if body.endswith("{"):
                    inside = inside or (depth == 0 and body[:-1].strip() == blocks[0])
                    depth += 1
                elif body == "}":
                    depth -= 1
                    if depth == 0 and inside:
                        close = i
                        break
        if close is not None:
            lines.insert(close, "  " + line)
        elif blocks:
            lines += ["  " * d + b + " {" for d, b in enumerate(blocks)]
            lines.append("  " * len(blocks) + line)
            lines += ["  " * d + "}" for d in reversed(range(len(blocks)))]
        else:
            lines.append(line)
    return "\n".join(lines) + "\n"


# ---- running the program ----------------------------------------------------------------------

def run_program(command: List[str], overrides: str, config: Optional[str] = None) -> List[dict]:
    """The launch records of one run of `command` under `overrides` (or with
    AICORE_SIM_CONFIG_DIR=`config`)."""
    with tempfile.TemporaryDirectory(prefix="aicore-calibrate-") as tmp:
        report = os.path.join(tmp, "launches.jsonl")
        env = dict(os.environ, AICORE_SIM_REPORT=report, AICORE_SIM_CONFIG_OVERRIDES=overrides)
        env.pop("AICORE_SIM_TRACE", None)
        env["PYTHONPATH"] = os.pathsep.join(
            p for p in (env.get("PYTHONPATH", ""), CLIENTS) if p)
        if config is not None:
            env["AICORE_SIM_CONFIG_DIR"] = config
        try:
            done = subprocess.run(command, env=env, stdin=subprocess.DEVNULL,
                                  capture_output=True, text=True)
        except OSError as e:
            raise CalibrateError(f"cannot start {command[0]}: {e.strerror}") from None
        if done.returncode != 0:
            tail = "\n".join((done.stderr or done.stdout).strip().splitlines()[-8:])
            raise CalibrateError(f"the program `{' '.join(command)}` exited with "
                                 f"{done.returncode} under the trial figures {overrides!r}:\n"
                                 f"{tail}")
        if not os.path.exists(report):
            return []
        with open(report, encoding="utf-8") as f:
            return [json.loads(line) for line in f if line.strip()]


def pair(measured: List[Measured], records: List[dict], command: List[str]) -> List[dict]:
    """The record of each measured launch, by kernel name and its n-th launch."""
    by_kernel: Dict[str, List[dict]] = {}
    for record in records:
        by_kernel.setdefault(record.get("kernel", ""), []).append(record)
    paired = []
    for m in measured:
        mine = by_kernel.get(m.kernel, [])
        if m.n >= len(mine):
            ran = ", ".join(f"{k} x{len(v)}" for k, v in sorted(by_kernel.items())) or "nothing"
            raise CalibrateError(f"{m.where}: Op Name {m.kernel!r} (its launch {m.n}) was not "
                                 f"launched by `{' '.join(command)}` here (it launched {ran}); "
                                 "run the program that was profiled on the chip, with the same "
                                 "arguments")
        record = mine[m.n]
        if record.get("status") != "OK":
            raise CalibrateError(f"launch {m.key} of `{' '.join(command)}` ended "
                                 f"{record.get('status')} here; fix the kernel first")
        paired.append(record)
    return paired


# ---- the command ------------------------------------------------------------------------------

def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="aicore-calibrate",
        description="Fit the simulator's timing figures to msprof op profiles of PROGRAM's "
                    "kernels on the chip, and write a platform config folder for "
                    "AICORE_SIM_CONFIG_DIR.")
    p.add_argument("--measured", required=True, metavar="DIR",
                   help="the folder holding msprof op's OPPROF_* output folders")
    p.add_argument("--output", required=True, metavar="CONFIG_DIR",
                   help="where to write <Platform>.textproto (created if missing)")
    p.add_argument("--param", action="append", default=[], metavar="PATH",
                   help="a figure to fit, by its field path (repeatable; default: " +
                   ", ".join(q.path for q in fitting.DEFAULT_PARAMS) + ")")
    p.add_argument("--max-evals", type=int, default=60,
                   help="program runs the fit may use (default 60)")
    p.add_argument("--task-only", action="store_true",
                   help="fit to the Task Durations alone (default: also every pipe time of "
                   "PipeUtilization.csv)")
    p.add_argument("--overwrite", action="store_true",
                   help="replace a <Platform>.textproto already in CONFIG_DIR")
    p.add_argument("command", nargs=argparse.REMAINDER, metavar="PROGRAM [ARGS...]",
                   help="the program that launches the profiled kernels (`--` before it when "
                   "it starts with -)")
    return p


def _params(paths: List[str]) -> List[fitting.Param]:
    if not paths:
        return list(fitting.DEFAULT_PARAMS)
    known = {q.path: q for q in fitting.DEFAULT_PARAMS}
    return [known.get(path, fitting.Param(path, 0.25, 4.0)) for path in paths]


def _errors(measured: List[Measured], records: List[dict]) -> List[float]:
    return [(r["duration_us"] - m.duration_us) / m.duration_us * 100
            for m, r in zip(measured, records)]


def main(argv=None) -> int:
    p = parser()
    args = p.parse_args(argv)
    command = list(args.command)
    if command and command[0] == "--":
        command = command[1:]
    if not command:
        p.error("give the program that launches the profiled kernels after the options, e.g. "
                "aicore-calibrate --measured prof --output mycfg python3 my_kernels.py")
    if args.max_evals < 1:
        p.error(f"--max-evals {args.max_evals}: must be at least 1")
    try:
        return calibrate(args, command)
    except CalibrateError as e:
        print(f"aicore-calibrate: {e}", file=sys.stderr)
        return EXIT_USAGE


def calibrate(args, command: List[str]) -> int:
    measured = read_measured(args.measured)
    start = time.perf_counter()
    base = pair(measured, run_program(command, ""), command)
    platforms = sorted({r.get("platform", "") for r in base})
    if len(platforms) != 1:
        raise CalibrateError(f"the profiled launches ran on several platforms here "
                             f"({', '.join(platforms)}); calibrate one platform at a time")
    platform = platforms[0]
    target = os.path.join(args.output, platform + ".textproto")
    if os.path.exists(target) and not args.overwrite:
        raise CalibrateError(f"{target} exists; give --overwrite to replace it, or another "
                             "--output")
    texts = platform_texts(platform)
    params = _params(args.param)
    defaults = {q.path: figure_value(texts, q.path) for q in params}
    use_pipes = not args.task_only
    _, observed = observations(measured, base, use_pipes)
    runs = [0]

    def values_overrides(values):
        return fitting.overrides_text({q.path: (values[q.path], q.integer) for q in params})

    def cost(values):
        runs[0] += 1
        records = pair(measured, run_program(command, values_overrides(values)), command)
        print(f"  trial {runs[0]}: " + ", ".join(
            f"{q.path} {fitting.number_text(values[q.path], q.integer)}" for q in params),
            file=sys.stderr, flush=True)
        return fitting.log_error(observations(measured, records, use_pipes)[0], observed)

    print(f"aicore-calibrate: {len(measured)} profiled launches ({len(observed)} times with "
          f"their pipes), {len(params)} figures, at most "
          f"{args.max_evals} runs of `{' '.join(command)}`", file=sys.stderr, flush=True)
    fitted = fitting.minimise(cost, params, defaults, defaults, args.max_evals)
    after = pair(measured, run_program(command, values_overrides(fitted)), command)
    before_err, after_err = _errors(measured, base), _errors(measured, after)

    print(f"Fit of {len(params)} figures of {platform} to {len(measured)} launches "
          f"({runs[0]} trials, {time.perf_counter() - start:.0f} s)")
    print(f"{'figure':36s} {'default':>12s} {'fitted':>12s}")
    for q in params:
        print(f"{q.path:36s} {fitting.number_text(defaults[q.path], q.integer):>12s} "
              f"{fitting.number_text(fitted[q.path], q.integer):>12s}")
    print(f"\n{'launch':24s} {'measured us':>12s} {'default us':>12s} {'error':>8s} "
          f"{'fitted us':>12s} {'error':>8s}")
    for m, b, a, eb, ea in zip(measured, base, after, before_err, after_err):
        print(f"{m.key:24s} {m.duration_us:12.3f} {b['duration_us']:12.3f} {eb:+7.1f}% "
              f"{a['duration_us']:12.3f} {ea:+7.1f}%")
    mape = [sum(abs(e) for e in errs) / len(errs) for errs in (before_err, after_err)]
    print(f"MAPE {mape[0]:.2f}% with the default figures, {mape[1]:.2f}% fitted")
    if use_pipes and any(m.pipes for m in measured):
        print(f"\n{'launch':24s} {'pipe':12s} {'measured us':>12s} {'default us':>12s} "
              f"{'error':>8s} {'fitted us':>12s} {'error':>8s}")
        for m, b, a in zip(measured, base, after):
            for stem, value in sorted(m.pipes.items()):
                d, f = pipe_us(b, stem), pipe_us(a, stem)
                print(f"{m.key:24s} {stem:12s} {value:12.3f} {d:12.3f} "
                      f"{(d - value) / value * 100:+7.1f}% {f:12.3f} "
                      f"{(f - value) / value * 100:+7.1f}%")

    worse = [(m, eb, ea) for m, eb, ea in zip(measured, before_err, after_err)
             if abs(ea) > abs(eb) + 0.05]
    if worse:
        m, eb, ea = worse[0]
        print(f"\naicore-calibrate: refused: launch {m.key} is worse with the fitted figures "
              f"({eb:+.1f}% -> {ea:+.1f}%; {len(worse)} launch(es) in all); the figures fitted "
              "cannot serve every kernel at once. Nothing was written. Try fewer --param, or "
              "profile the kernels again.", file=sys.stderr)
        return EXIT_REFUSED

    note = f"{NOTE} to {len(measured)} launches of {os.path.basename(command[-1])}"
    chosen = {q.path: (fitted[q.path], q.integer) for q in params}
    text = with_figures(texts[0][1], chosen, note)
    os.makedirs(args.output, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="aicore-calibrate-check-") as check:
        with open(os.path.join(check, platform + ".textproto"), "w", encoding="utf-8") as f:
            f.write(text)
        if os.path.isdir(os.path.join(config_dir(), "presets")) and \
                os.environ.get("AICORE_SIM_CONFIG_DIR"):
            shutil.copytree(os.path.join(config_dir(), "presets"),
                            os.path.join(check, "presets"))
        # The written file, loaded as a user would load it, gives the fitted times.
        again = pair(measured, run_program(command, "", config=check), command)
        if [r["cycles"] for r in again] != [r["cycles"] for r in after]:
            raise CalibrateError("INTERNAL: the written config does not reproduce the fitted "
                                 "cycles (a bug of aicore-calibrate; please report it)")
        if os.path.isdir(os.path.join(check, "presets")):
            shutil.copytree(os.path.join(check, "presets"),
                            os.path.join(args.output, "presets"), dirs_exist_ok=True)
    with open(target, "w", encoding="utf-8") as f:
        f.write(text)
    print(f"\nwrote {target}; use it with AICORE_SIM_CONFIG_DIR={args.output}")
    return EXIT_OK
