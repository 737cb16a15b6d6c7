"""Fits figures of the timing model to the calibration set (bench/calibration/manifest.py) and
shows the change of the preset it would write.

Each fitted figure is one hardware parameter of the preset (a path such as
`gm.hbm_read_bytes_per_second`) that every point uses; nothing is fitted per point. The fit is
staged: each stage fits the few parameters a group of points constrains, in order, the later
stages starting from the earlier ones' values. A stage minimises the mean squared log ratio of
simulated to measured time over its points with SciPy's bounded Nelder-Mead (derivative-free:
the simulator's times are step functions of the figures at cycle granularity), in factors of
the preset's value, within the parameter's bounds and a bounded number of evaluations. Every
evaluation is one run of the stage's points under config overrides (docs/timing-model.md
"Config overrides"), so a trial costs launches, not a rebuild.

Then, with --logo, leave-one-group-out: for each fitted group its stage is fitted again without
that group's points (the other stages keep the full fit's values: their points are not the
group's) and the group is predicted with the result; its error there, against its error in the
full fit, says how well the other groups alone determine what it needs. A group alone in its
stage is predicted with the preset's values of that stage.

The preset is rewritten (--write) only when the fit lowers the MAPE over the fitted points; the
values change in place, the comments and sources stay, and each fitted line's comment says it
was fitted and to which groups. Without --write the diff is printed.

    python3 bench/calibration/fit.py [--stage NAME] [--max-evals N] [--logo] [--write]
                                     [--jobs N] [--no-cache]
"""
import argparse
import difflib
import hashlib
import json
import os
import re
import sys
import time
from dataclasses import dataclass
from typing import Dict, List, Sequence, Tuple

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import manifest  # noqa: E402  (puts clients/python on the path)
import run  # noqa: E402
from aicore_tools.fitting import (Param, field_lines, log_error, minimise,  # noqa: E402
                                  number_text, overrides_text)

ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
PRESET = os.path.join(ROOT, "configs", "presets", "dav-c220.textproto")
# The last `make fit --logo`'s leave-one-group-out figures, which `make calibrate` prints.
RECORD = os.path.join(HERE, "last_fit.json")


@dataclass(frozen=True)
class Stage:
    name: str
    groups: Tuple[str, ...]   # the manifest groups whose points constrain the parameters
    params: Tuple[Param, ...]
    # Points of those groups the stage does not fit (they stay in the error figures), and why:
    # a point whose time something outside the stage's parameters dominates would pull them
    # away from what every other point says.
    left_out: Tuple[str, ...] = ()
    why_left_out: str = ""
    # Points of those groups the stage leaves to prediction because each run costs minutes of
    # every evaluation (they stay in the error figures, predicted).
    predicted: Tuple[str, ...] = ()
    why_predicted: str = ""


# What each group of points constrains, in the order the fit goes. Of the large matmuls the cube
# stage fits the four that run in seconds and predicts the rest ("left out of the fit: predicted"
# in the table), the test of whether the copy figures generalise to whole kernels.
STAGES = (
    Stage("hbm", ("vector add ladder",), (
        Param("gm.hbm_read_bytes_per_second", 0.5, 2.0),
        Param("gm.hbm_transfer_overhead_ns", 0.25, 4.0),
        Param("gm.hbm_write_bytes_per_second", 0.5, 2.0),
    )),
    Stage("vector copies", ("vector copies", "bank conflicts"), (
        Param("mte2.core_bytes_per_cycle", 0.5, 4.0),
        Param("mte2.fixed_cycles", 0.25, 4.0),
        Param("mte3.core_bytes_per_cycle", 0.5, 4.0),
    )),
    # The cube core's MTE2: the DataCopy points into L1, the small Matmuls and the large ones
    # that run in seconds (their time is mostly their GM -> L1 copies, of 128 and 512 B rows, from
    # HBM and from L2: hardware-910b.md 7.2). The rate, the read window, the exposed latency, the
    # per-row cost and the L2's hit latency set the engine (docs/timing-model.md 7f).
    Stage("cube", ("cube copies", "small matmul", "large matmul"), (
        Param("cube_mte2.core_bytes_per_cycle", 0.5, 2.0),
        Param("cube_mte2.read_window_bytes", 0.5, 2.0),
        Param("cube_mte2.latency_exposed", 0.25, 1.0),
        Param("cube_mte2.per_burst_cycles", 0.25, 4.0),
        Param("l2.hit_latency_cycles", 0.25, 1.5, integer=True),
    ), left_out=("mm16-mdl", "mm16-unitflag"),
        why_left_out="hardware-910b.md 7.1 row 16 takes 37.39 us for a kernel whose copies "
        "and Mmads take a few: what dominates it is not in the model (docs/timing-model.md 9)",
        predicted=("mm4-case0", "mm4-case1", "mm5-case2", "mm5-case3", "mm6-case4", "mm6-case6",
                   "mm6-case7", "mm6-case8", "mm7-s2", "mm-tiling-4core", "mm-tiling-20core"),
        why_predicted="a run of each takes 7-70 s; the stage fits on mm6-case5, mm7-s1 and the "
        "tiling strategy's base and MDL steps and predicts these"),
)


# ---- the preset as text: read and write figures by path, keeping every comment ---------------

_VALUE = re.compile(r"^(\s*)([a-z_0-9]+):\s*([-+0-9.eE]+)(.*)$")


def _locate(lines: Sequence[str], path: str) -> int:
    """The index of the line that sets `path` in the preset's lines (blocks `name {` ... `}`)."""
    *blocks, name = path.split(".")
    for stack, found, i in field_lines("\n".join(lines)):
        if stack == blocks and found == name and _VALUE.match(lines[i]):
            return i
    raise KeyError(f"{path}: no such figure in {os.path.relpath(PRESET, ROOT)}; a Param path "
                   "names a scalar field of the preset, blocks joined by dots")


def preset_value(text: str, path: str) -> float:
    return float(_VALUE.match(text.splitlines()[_locate(text.splitlines(), path)]).group(3))


def write_values(text: str, values: Dict[str, Tuple[float, bool]], note) -> str:
    """The preset with each path's value replaced in place; its comment keeps its sources and
    starts with `note` (once): a string, or a {path: note} dict."""
    lines = text.splitlines()
    for path, (value, integer) in values.items():
        i = _locate(lines, path)
        m = _VALUE.match(lines[i])
        rest = m.group(4)
        comment = rest.split("#", 1)[1].strip() if "#" in rest else ""
        comment = re.sub(r"^fitted by make fit to [^;]*; ", "", comment)
        said = note[path] if isinstance(note, dict) else note
        lines[i] = f"{m.group(1)}{m.group(2)}: {number_text(value, integer)}  # {said}; {comment}"
    return "\n".join(lines) + "\n"


# ---- the fit ------------------------------------------------------------------------------------

def objective(points, results) -> float:
    return log_error([results[p.id]["sim_us"] for p in points], [p.measured for p in points])


def errors(points, results) -> Dict[str, float]:
    return {p.id: run.relative_error(p, results[p.id]) for p in points}


class Fitter:
    """Stages over a Runner; `defaults` are the preset's values of every stage's parameters."""

    def __init__(self, runner, every_point, stages=STAGES, max_evals=40, preset_text=None,
                 base_overrides="", say=print):
        self.runner = runner
        self.stages = stages
        self.max_evals = max_evals
        self.say = say
        self.base_overrides = base_overrides
        text = preset_text if preset_text is not None else open(PRESET).read()
        self.params = {p.path: p for s in stages for p in s.params}
        self.defaults = {path: preset_value(text, path) for path in self.params}
        zero = [path for path, value in self.defaults.items() if value == 0]
        if zero:
            raise ValueError(f"{', '.join(zero)}: 0 in the preset; a fit moves a figure by factors "
                             "of its preset value, so give it a nonzero start there first")
        self.points = [p for p in every_point if p.in_mape]
        self.evaluations = 0

    def groups(self) -> List[str]:
        return list(dict.fromkeys(g for s in self.stages for g in s.groups))

    def points_of(self, groups) -> list:
        return [p for p in self.points if p.group in groups]

    def left_out(self) -> Dict[str, str]:
        """{point id: why} for the points of fitted groups that their stage does not fit."""
        out = {pid: s.why_left_out for s in self.stages for pid in s.left_out}
        out.update({pid: s.why_predicted for s in self.stages for pid in s.predicted})
        return out

    def fitted_points(self) -> list:
        skipped = self.left_out()
        return [p for p in self.points_of(self.groups()) if p.id not in skipped]

    def overrides(self, values: Dict[str, float]) -> str:
        chosen = {path: (v, self.params[path].integer) for path, v in values.items()}
        return "\n".join(t for t in (self.base_overrides, overrides_text(chosen)) if t)

    def simulate(self, points, values):
        results = self.runner.run(points, self.overrides(values))
        failed = [f"{pid}: {r['check']}" for pid, r in results.items() if r["check"]]
        if failed:
            raise RuntimeError("a calibration kernel computed wrong results under the trial "
                               "figures " + repr(values) + ": " + "; ".join(failed))
        return results

    def fit_stage(self, stage, points, values) -> Dict[str, float]:
        """`values` with the stage's parameters fitted to `points`."""
        def cost(trial):
            self.evaluations += 1
            return objective(points, self.simulate(points, trial))
        return minimise(cost, stage.params, self.defaults, values, self.max_evals)

    def fit(self, without=(), start=None, passes=1) -> Dict[str, float]:
        """Every stage in order from the preset's values, or with `start` (a full fit's values)
        only the stages holding a group of `without`, leaving out those groups' points; a stage
        left with no points keeps the preset's values. A stage's points also depend on later
        stages' figures (the Add ladder on MTE2's), which the first pass holds at the preset's
        values: each further pass fits every stage again from the last pass's values."""
        values = dict(self.defaults if start is None else start)
        for number in range(1, passes + 1):
            for stage in self.stages:
                if start is not None and not set(stage.groups) & set(without):
                    continue
                points = [p for p in self.points_of([g for g in stage.groups
                                                     if g not in without])
                          if p.id not in stage.left_out and p.id not in stage.predicted]
                if not points:
                    values.update({p.path: self.defaults[p.path] for p in stage.params})
                    continue
                began = time.perf_counter()
                values = self.fit_stage(stage, points, values)
                shown = ", ".join(f"{p.path} {number_text(values[p.path], p.integer)}"
                                  for p in stage.params)
                left = f" without {', '.join(without)}" if without else ""
                self.say(f"pass {number} stage {stage.name}{left}: {shown} "
                         f"({time.perf_counter() - began:.0f} s)")
        return values


def preset_digest(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def save_record(path: str, preset_text: str, logo: Dict[str, float], before: float,
                after: float) -> None:
    """What `make calibrate` prints of the last fit: the leave-one-group-out MAPEs, for the
    preset they were computed on (by its digest)."""
    record = dict(preset=preset_digest(preset_text), date=time.strftime("%Y-%m-%d"),
                  leave_one_group_out=logo, fitted_mape_before=before, fitted_mape_after=after)
    with open(path, "w") as f:
        json.dump(record, f, indent=1, sort_keys=True)
        f.write("\n")


def load_record(path: str = "", preset_text: str = ""):
    """The last fit's record when it was made on this preset, else None."""
    path = path or RECORD
    try:
        with open(path) as f:
            record = json.load(f)
    except (OSError, ValueError):
        return None
    text = preset_text or open(PRESET).read()
    return record if record.get("preset") == preset_digest(text) else None


def mape(values: Sequence[float]) -> float:
    return sum(abs(v) for v in values) / len(values) if values else float("nan")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--stage", action="append", default=[],
                        help="fit only this stage (repeatable): " +
                        ", ".join(s.name for s in STAGES))
    parser.add_argument("--max-evals", type=int, default=40,
                        help="evaluations per stage (each runs the stage's points; default 40)")
    parser.add_argument("--passes", type=int, default=1,
                        help="fit every stage this many times, each pass from the last one's "
                             "values (default 1; a stage's points also depend on later stages' "
                             "figures)")
    parser.add_argument("--logo", action="store_true",
                        help="also refit without each group and predict it (leave-one-group-out)")
    parser.add_argument("--write", action="store_true",
                        help="write the fitted values into the preset when they lower the MAPE")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1,
                        help="worker processes (default: one per host core)")
    parser.add_argument("--no-cache", action="store_true",
                        help="neither read nor write cached point results")
    args = parser.parse_args(argv)
    known = {s.name: s for s in STAGES}
    for name in args.stage:
        if name not in known:
            parser.error(f"unknown stage {name!r}; stages: {', '.join(known)}")
    if args.max_evals < 1 or args.jobs < 1 or args.passes < 1:
        parser.error("--max-evals, --passes and --jobs must be at least 1")
    stages = tuple(s for s in STAGES if not args.stage or s.name in args.stage)
    directory = "" if args.no_cache else run.cache_dir(argparse.Namespace(no_cache=False))

    with run.Runner(args.jobs, directory, progress=False) as runner:
        fitter = Fitter(runner, manifest.points(), stages, args.max_evals,
                        say=lambda text: print(text, file=sys.stderr, flush=True))
        fitted_groups = fitter.groups()
        fitted_points = fitter.fitted_points()
        start = time.perf_counter()
        before = errors(fitter.points, fitter.simulate(fitter.points, fitter.defaults))
        values = fitter.fit(passes=args.passes)
        after = errors(fitter.points, fitter.simulate(fitter.points, values))
        logo = {}
        if args.logo:
            for group in fitted_groups:
                held_out = [p for p in fitter.points_of([group]) if p in fitted_points]
                partial = fitter.fit(without=(group,), start=values, passes=args.passes)
                logo[group] = mape(errors(held_out, fitter.simulate(held_out, partial)).values())

    print(f"Fit of {len(fitter.params)} parameters to {len(fitted_points)} points "
          f"({fitter.evaluations} evaluations, {runner.runs} kernel runs, "
          f"{time.perf_counter() - start:.0f} s)")
    print(f"{'parameter':36s} {'preset':>12s} {'fitted':>12s} {'change':>8s}")
    for path, p in fitter.params.items():
        old, new = fitter.defaults[path], values[path]
        print(f"{path:36s} {number_text(old, p.integer):>12s} {number_text(new, p.integer):>12s} "
              f"{(new - old) / old * 100:+7.1f}%")
    print(f"\n{'point':16s} {'group':20s} {'before':>8s} {'after':>8s}")
    skipped = fitter.left_out()
    for p in fitter.points:
        mark = "" if p.group in fitted_groups else "  (not fitted: predicted)"
        if p.id in skipped:
            mark = "  (left out of the fit: predicted)"
        print(f"{p.id:16s} {p.group:20s} {before[p.id]:+7.1f}% {after[p.id]:+7.1f}%{mark}")
    print()
    for group in list(dict.fromkeys(p.group for p in fitter.points)):
        ids = [p.id for p in fitter.points_of([group])]
        line = (f"{group:20s} MAPE {mape([before[i] for i in ids]):6.1f}% -> "
                f"{mape([after[i] for i in ids]):6.1f}%")
        if group in logo:
            line += f", left out of the fit {logo[group]:6.1f}%"
        elif group not in fitted_groups:
            line += " (not fitted)"
        print(line)
    fitted_ids = [p.id for p in fitted_points]
    old_mape = mape([before[i] for i in fitted_ids])
    new_mape = mape([after[i] for i in fitted_ids])
    print(f"{'fitted points':20s} MAPE {old_mape:6.1f}% -> {new_mape:6.1f}%")
    print(f"{'every point':20s} MAPE {mape(before.values()):6.1f}% -> "
          f"{mape(after.values()):6.1f}%")
    for why in dict.fromkeys(skipped.values()):
        ids = ", ".join(pid for pid, w in skipped.items() if w == why)
        print(f"left out of the fit: {ids}: {why}")

    text = open(PRESET).read()
    if logo:
        save_record(RECORD, text, logo, old_mape, new_mape)
    note = {p.path: "fitted by make fit to " + ", ".join(stage.groups)
            for stage in stages for p in stage.params}
    chosen = {path: (values[path], p.integer) for path, p in fitter.params.items()}
    new_text = write_values(text, chosen, note)
    diff = "".join(difflib.unified_diff(text.splitlines(True), new_text.splitlines(True),
                                        "a/configs/presets/dav-c220.textproto",
                                        "b/configs/presets/dav-c220.textproto"))
    if new_mape >= old_mape:
        print(f"\nThe fit does not lower the MAPE ({old_mape:.2f}% -> {new_mape:.2f}%): the "
              "preset stays as it is.")
        return 0
    print("\n" + diff)
    if args.write:
        with open(PRESET, "w") as f:
            f.write(new_text)
        print(f"wrote {os.path.relpath(PRESET, ROOT)}; rebuild (make build) for the new figures "
              "to be built in")
    else:
        print("(not written: --write writes it)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
