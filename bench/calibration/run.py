"""Runs the calibration set (bench/calibration/manifest.py) and prints every point simulated
against measured, its error and the per-pipe figures the source gives, then the mean absolute
percentage error (MAPE) per group and over the whole set. Points the manifest keeps out of the
error figures (the Matmul library's scalar tiling code) are printed and marked. Nothing is
fitted here.

A second table prints the tuning steps (manifest.steps(): pairs of points the source measured
as one tuning change) whose two points ran: the measured change (after/before - 1), the
simulated one, and whether the simulated step moves as the chip's: a measured change of 5 % or
more must be simulated with the same sign and between half and twice its size, a smaller one
as less than 5 %. A step with a point kept out of the MAPE is printed, marked, and not counted.

Points run in worker processes (--jobs, one per host core by default), the slowest first, each
on a fresh device: its result is the same whatever ran before it and on any number of jobs. A
point's result is cached by the point, the simulator build, the frontend and benchmark sources
and the platform configs ($AICORE_SIM_CALIBRATION_CACHE, default
~/.cache/aicore-sim/calibration; `off` or --no-cache runs everything), so a second run after a
change re-runs only what the change can move.

    python3 bench/calibration/run.py [--jobs N] [--group NAME] [--point ID] [--no-cache] [--list]
"""
import argparse
import hashlib
import json
import multiprocessing
import os
import sys
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor, as_completed

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import manifest  # noqa: E402

ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
# The slowest families first, so that the pool's last task is a short one.
FAMILY_ORDER = ["matmul_large", "matmul_basic", "matmul_tiling", "ladder", "copy", "matmul_small",
                "nd2nz", "ladder_reduced", "copy_reduced"]

_INPUTS = {}  # per worker process: inputs shared by the points of a family


def simulate(point, overrides=""):
    """Runs one point in this process under `overrides` (config text over the platform's
    figures, docs/timing-model.md "Config overrides"); the family module's result dict. Each
    family's simulate function starts from a fresh device, so that the result does not depend on
    what the process ran before (device addresses, and with them L2 sets, follow earlier
    allocations: docs/timing-model.md 8.3)."""
    import asc.lib.runtime as rt
    rt.set_config_overrides(overrides)
    if point.family == "ladder":
        import calibrate
        if "ladder" not in _INPUTS:
            _INPUTS["ladder"] = calibrate.ladder_inputs(8192 * 8192)
        return calibrate.simulate_ladder(point.spec, inputs=_INPUTS["ladder"])
    if point.family == "ladder_reduced":  # (LADDER row, elements): the fitter's own tests
        import calibrate
        row, size = point.spec
        key = ("ladder", size)
        if key not in _INPUTS:
            _INPUTS[key] = calibrate.ladder_inputs(size)
        return calibrate.simulate_ladder(row, size=size, inputs=_INPUTS[key])
    if point.family == "matmul_small":
        import calibrate_matmul
        return calibrate_matmul.simulate_small(point.spec)
    if point.family == "matmul_large":
        import calibrate_matmul
        return calibrate_matmul.simulate_large(point.spec)
    if point.family == "matmul_basic":
        import calibrate_matmul
        return calibrate_matmul.simulate_basic(point.spec)
    if point.family == "matmul_tiling":
        import calibrate_matmul
        return calibrate_matmul.simulate_tiling(point.spec)
    # copy_reduced's spec adds rows and cores (the fitter's own tests).
    if point.family in ("copy", "copy_reduced"):
        import copies
        return copies.simulate_copy(*point.spec)
    if point.family == "nd2nz":
        import nd2nz_banks
        if "nd2nz" not in _INPUTS:
            _INPUTS["nd2nz"] = nd2nz_banks.nd2nz_inputs()
        return nd2nz_banks.simulate_case(point.spec, _INPUTS["nd2nz"])
    raise ValueError(f"point {point.id}: unknown family {point.family!r}")


def _code_files():
    """What a point's result depends on besides the point: the native simulator (which embeds
    the built-in configs), the frontend, the benchmarks and the example kernels they use."""
    files = []
    package = os.path.join(ROOT, "clients", "python", "asc")
    for base, dirs, names in os.walk(package):
        dirs[:] = sorted(d for d in dirs if d != "__pycache__")
        files += [os.path.join(base, n) for n in sorted(names) if n.endswith((".py", ".so"))]
    files += [os.path.join(ROOT, "bench", n) for n in ("calibrate.py", "calibrate_matmul.py")]
    # fit.py only chooses the overrides, which are part of the key.
    files += [os.path.join(HERE, n) for n in sorted(os.listdir(HERE))
              if n.endswith(".py") and n != "fit.py"]
    files += [os.path.join(ROOT, "examples", n) for n in
              ("matmul_tuning.py", "matmul_basic_api.py", "matmul_leakyrelu.py",
               "matmul_tiling_strategy.py")]
    config_dir = os.environ.get("AICORE_SIM_CONFIG_DIR", "")
    if config_dir:
        for base, dirs, names in os.walk(config_dir):
            dirs.sort()
            files += [os.path.join(base, n) for n in sorted(names)]
    return files


def code_hash():
    digest = hashlib.sha256()
    for path in _code_files():
        digest.update(os.path.relpath(path, ROOT).encode())
        with open(path, "rb") as f:
            digest.update(hashlib.sha256(f.read()).digest())
    return digest.hexdigest()


def cache_dir(args):
    where = os.environ.get("AICORE_SIM_CALIBRATION_CACHE", "")
    if args.no_cache or where == "off":
        return ""
    return where or os.path.join(os.path.expanduser("~"), ".cache", "aicore-sim", "calibration")


def cache_key(point, code, overrides=""):
    text = json.dumps([code, point.id, point.family, repr(point.spec), overrides])
    return hashlib.sha256(text.encode()).hexdigest()[:32]


def load_cached(directory, key):
    try:
        with open(os.path.join(directory, key + ".json")) as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


def store_cached(directory, key, result):
    """Atomically: a reader sees a whole entry or none."""
    os.makedirs(directory, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=directory, suffix=".tmp")
    with os.fdopen(fd, "w") as f:
        json.dump(result, f)
    os.replace(tmp, os.path.join(directory, key + ".json"))


class Runner:
    """Runs sets of points in `jobs` worker processes kept for the Runner's life (a fit runs
    hundreds of sets), each point on a fresh device, results cached in `directory` ("" for
    none) by point, code and overrides."""

    def __init__(self, jobs, directory="", progress=True):
        self.jobs = max(1, jobs)
        self.directory = directory
        self.progress = progress
        self.code = code_hash() if directory else ""
        self.pool = None
        self.runs = 0  # points simulated (not from the cache)

    def close(self):
        if self.pool is not None:
            self.pool.shutdown()
            self.pool = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def _say(self, text):
        if self.progress:
            print(text, file=sys.stderr, flush=True)

    def run(self, chosen, overrides=""):
        """{point id: result dict} of `chosen` under `overrides`."""
        results, todo = {}, []
        for p in chosen:
            key = cache_key(p, self.code, overrides)
            cached = load_cached(self.directory, key) if self.directory else None
            if cached is not None:
                cached["cached"] = True
                results[p.id] = cached
            else:
                todo.append(p)
        todo.sort(key=lambda p: FAMILY_ORDER.index(p.family))
        self._say(f"calibration: {len(chosen)} points, {len(chosen) - len(todo)} from the "
                  f"cache, {len(todo)} to run in {min(self.jobs, max(len(todo), 1))} processes")
        start = time.perf_counter()
        if not todo:
            return results
        if self.jobs == 1:
            finished = ((p, simulate(p, overrides)) for p in todo)
        else:
            if self.pool is None:
                self.pool = ProcessPoolExecutor(max_workers=self.jobs,
                                                mp_context=multiprocessing.get_context("spawn"))
            futures = {self.pool.submit(simulate, p, overrides): p for p in todo}
            finished = ((futures[f], f.result()) for f in as_completed(futures))
        for done, (p, result) in enumerate(finished, 1):
            results[p.id] = result
            self.runs += 1
            if self.directory and not result["check"]:
                store_cached(self.directory, cache_key(p, self.code, overrides), result)
            self._say(f"[{done}/{len(todo)}] {p.id} {result['sim_us']:.1f} us simulated, "
                      f"{result['wall_s']:.1f} s wall, {time.perf_counter() - start:.0f} s so far")
        return results


def run_points(chosen, jobs, directory="", overrides=""):
    """One set of points (see Runner)."""
    with Runner(min(jobs, max(len(chosen), 1)), directory) as runner:
        return runner.run(chosen, overrides)


def relative_error(point, result):
    """(simulated - measured) / measured, in percent."""
    return (result["sim_us"] - point.measured) / point.measured * 100


def pipe_errors(point, result):
    """'PIPE sim/measured (error)' for each pipe figure the source gives."""
    parts = []
    for pipe, (unit, value) in point.pipes.items():
        table = result.get("ratios", {}) if unit == "ratio" else result.get("pipes", {})
        sim = table.get(pipe, 0.0)
        err = (sim - value) / value * 100 if value else 0.0
        shown = f"{sim:.3f}/{value:.3f}" if unit == "ratio" else f"{sim:.1f}/{value:.1f}us"
        parts.append(f"{pipe} {shown} ({err:+.0f}%)")
    return ", ".join(parts)


def mape(errors):
    return sum(abs(e) for e in errors) / len(errors) if errors else float("nan")


STEP_THRESHOLD = 5.0  # percent: a measured change below it is "no change"


def moves_as_the_chip(measured, simulated):
    """Whether a simulated change (percent) moves as the measured one: a change of
    STEP_THRESHOLD or more in the same direction and between half and twice its size, a smaller
    one as less than STEP_THRESHOLD."""
    if abs(measured) >= STEP_THRESHOLD:
        return 0.5 <= simulated / measured <= 2.0
    return abs(simulated) < STEP_THRESHOLD


def step_rows(steps, points, results):
    """(step, measured change %, simulated change %, moves as the chip's) for each step whose
    two points have a result without a failed check; `results` is {point id: {"sim_us": ...}}."""
    by_id = {p.id: p for p in points}
    rows = []
    for step in steps:
        before, after = results.get(step.before), results.get(step.after)
        if before is None or after is None or before.get("check") or after.get("check"):
            continue
        measured = (by_id[step.after].measured / by_id[step.before].measured - 1) * 100
        simulated = (after["sim_us"] / before["sim_us"] - 1) * 100
        rows.append((step, measured, simulated, moves_as_the_chip(measured, simulated)))
    return rows


def step_counted(step, by_id):
    """A step counts when both its points are in the MAPE."""
    return by_id[step.before].in_mape and by_id[step.after].in_mape


def format_steps(rows, points):
    """The tuning-step table of `rows` (step_rows) and its count line."""
    by_id = {p.id: p for p in points}
    lines = ["Tuning steps (hardware-910b.md 7 and 7.1): the change after/before - 1, simulated "
             "against measured",
             f"(a step moves as the chip's when a measured change of {STEP_THRESHOLD:.0f}% or "
             "more is simulated with its sign at half to twice its size, a smaller one as under "
             f"{STEP_THRESHOLD:.0f}%)",
             f"{'step':14s} {'before -> after':36s} {'measured':>9s} {'simulated':>9s}  "
             "moves  change"]
    counted = ok = 0
    for step, measured, simulated, moves in rows:
        mark = ""
        if step_counted(step, by_id):
            counted += 1
            ok += 1 if moves else 0
        else:
            mark = "  [not counted]"
        pair = f"{step.before} -> {step.after}"
        lines.append(f"{step.id:14s} {pair:36s} {measured:+8.1f}% {simulated:+8.1f}%  "
                     f"{'yes' if moves else 'no':5s}  {step.label}{mark}")
    lines.append(f"tuning steps: {ok} of {counted} move as the chip's")
    return "\n".join(lines)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1,
                        help="worker processes (default: one per host core)")
    parser.add_argument("--group", action="append", default=[],
                        help="run only this group (repeatable; --list names them)")
    parser.add_argument("--point", action="append", default=[],
                        help="run only this point id (repeatable; --list names them)")
    parser.add_argument("--no-cache", action="store_true",
                        help="run every point, neither reading nor writing cached results")
    parser.add_argument("--list", action="store_true", help="list the points and exit")
    args = parser.parse_args()
    if args.jobs < 1:
        parser.error(f"--jobs must be at least 1, not {args.jobs}")
    every = manifest.points()
    groups = list(dict.fromkeys(p.group for p in every))
    for name in args.group:
        if name not in groups:
            parser.error(f"unknown group {name!r}; groups: {', '.join(groups)}")
    ids = {p.id for p in every}
    for pid in args.point:
        if pid not in ids:
            parser.error(f"unknown point {pid!r}; see --list for the ids")
    chosen = [p for p in every if (not args.group or p.group in args.group) and
              (not args.point or p.id in args.point)]
    if args.list:
        for p in every:
            mark = "" if p.in_mape else "  (not in the MAPE)"
            print(f"{p.id:16s} {p.group:18s} {p.platform:12s} {p.measured:11.2f} us  "
                  f"{p.label}{mark}")
        return 0

    directory = cache_dir(args)
    results = run_points(chosen, jobs=args.jobs, directory=directory)
    print("Calibration set (hardware-910b.md 7 and 7.1): simulated against measured on A2")
    print(f"{'point':16s} {'sim us':>11s} {'meas us':>11s} {'error':>8s}  {'wall s':>6s}  "
          "pipes simulated/measured")
    failed = False
    by_group = {}
    for p in chosen:
        r = results[p.id]
        if r["check"]:
            failed = True
            print(f"{p.id:16s} FAILED: {r['check']}")
            continue
        err = relative_error(p, r)
        if p.in_mape:
            by_group.setdefault(p.group, []).append(err)
        wall = "cached" if r.get("cached") else f"{r['wall_s']:6.1f}"
        mark = "" if p.in_mape else "  [not in the MAPE]"
        print(f"{p.id:16s} {r['sim_us']:11.2f} {p.measured:11.2f} {err:+7.1f}%  {wall:>6s}  "
              f"{pipe_errors(p, r)}{mark}")
    print()
    for group in groups:
        if group in by_group:
            print(f"{group:20s} MAPE {mape(by_group[group]):6.1f}% over "
                  f"{len(by_group[group])} points")
    every_error = [e for errors in by_group.values() for e in errors]
    print(f"{'overall':20s} MAPE {mape(every_error):6.1f}% over {len(every_error)} points "
          "(printed, not fitted)")
    import fit
    record = fit.load_record()
    if record is None:
        print("leave-one-group-out: no record of `make fit` on this preset (run make fit)")
    else:
        shown = ", ".join(f"{g} {v:.1f}%" for g, v in record["leave_one_group_out"].items())
        print(f"leave-one-group-out (make fit of {record['date']} on this preset: each group's "
              f"MAPE when the fit did not see it): {shown}")
    kept_out = [p for p in chosen if not p.in_mape]
    if kept_out:
        print(f"kept out: {', '.join(p.id for p in kept_out)}: {kept_out[0].why_not}")
    rows = step_rows(manifest.steps(every), every, results)
    if rows:
        print()
        print(format_steps(rows, every))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
