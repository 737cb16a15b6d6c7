"""Calibration points for asc.adv.Matmul: the tuning cases of hardware-910b.md section 7.1,
simulated, against the times the sources measured on A2 silicon. A benchmark, not a test: it
prints per point the simulated and measured time, the MTE2 time where the source gives it, the
error, and ('search') the simulated time of the same Matmul with asc.lib.host's own tiling for
the shape over the time with the source's. It does not fit the model to them (issue 19 prints;
the accuracy targets come later).

- Rows 13, 14, 16 and 17 (small and medium shapes) run in full; their time is msprof's
  aic_time, the per-core busy time (the largest, or the average where the source gives that).
- Rows 4-7 (fp16 8192^3, B transposed, C fp16) run timing-only (docs/timing_only.md): the full
  run's cycles without the 5.5 x 10^11 multiply-adds. Row 7 is the hand-pipelined basic-API
  kernel of examples/matmul_basic_api.py, the others asc.adv.Matmul. Each first runs in full
  on a reduced shape of the same kernel and tiling structure (rows 4-6: M and N / 8, K / 16;
  row 7: 2048 x 2048 x 512 on the cores it needs), checked against numpy. Their time is
  msprof's Task Duration (the launch); the pipe columns compare the per-pipe times or ratios
  (pipe time over the core's time) the sources give.
- The tiling strategy case of hardware-910b.md 7 (4096 x 5120 x 4096 half -> float on a 20-AIC
  A2) is examples/matmul_tiling_strategy.py's mixed kernel (the Matmul called from the vector
  cores), its reduced twin run in full against numpy, then timing-only. Its first two steps
  compare the Task Duration, the last two the cube cores' MTE2 time (all the source gives).

Each kernel is written with the asc API the way its source describes it: the Matmul high-level
API on the cube cores (matmul_cube_only: examples/matmul_tuning.py), the source's single-core
and base shapes, steps and depths in the TCubeTiling (or as a constant tiling), its template
through get_mm_config; C in float32 where the source does not state it (the model's choice).

The 8192^3 points run in separate processes (--jobs, one per host core by default), each
group of points that share a searched tiling in one; the table prints in the same order, and
each point's wall time is that of its own launch.

    python3 bench/calibrate_matmul.py [--jobs N]
"""
import argparse
import multiprocessing
import os
import sys
import time
from concurrent.futures import ProcessPoolExecutor

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "clients",
                                "python"))

import numpy as np  # noqa: E402

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "examples"))

import asc  # noqa: E402
import asc.lib.runtime as rt  # noqa: E402
import asc.runtime.config as config  # noqa: E402
from matmul_basic_api import basic_matmul  # noqa: E402
from matmul_tuning import constant_matmul, tiling_of, tuned_matmul  # noqa: E402
from matmul_tiling_strategy import (WORKSPACE, strategy_matmul, strategy_tiling,  # noqa: E402
                                    twin_tiling)


def searched_tiling(m, n, k, cores, trans_b=False, c_half=False, norm=False):
    """asc.lib.host's own choice for the point's shape, layouts, core count and template (as
    CANN's SetMatmulConfigParams says it: 0 Norm, 1 MDL)."""
    import asc.lib.host as host
    api = host.MultiCoreMatmulTiling(host.get_ascendc_platform())
    api.set_matmul_config_params(0 if norm else 1)
    api.set_a_type(host.TPosition.GM, host.CubeFormat.ND, host.DataType.DT_FLOAT16, False)
    api.set_b_type(host.TPosition.GM, host.CubeFormat.ND, host.DataType.DT_FLOAT16, trans_b)
    api.set_c_type(host.TPosition.GM, host.CubeFormat.ND,
                   host.DataType.DT_FLOAT16 if c_half else host.DataType.DT_FLOAT)
    api.set_dim(cores)
    api.set_org_shape(m, n, k)
    api.set_shape(m, n, k)
    api.set_buffer_space(-1, -1, -1)
    tiling = asc.adv.TCubeTiling()
    if api.get_tiling(tiling) != 0:
        raise SystemExit(f"asc.lib.host found no tiling for {m}x{n}x{k} on {cores} cores")
    return tiling


def busy_us(report, clock_mhz, how):
    """(aic time, MTE2 time) in us: the largest or the average over the cube cores."""
    cores = [c for c in report.cores if c.core_type == "aic"]
    spans = [c.cycles for c in cores]
    mte2 = [c.pipes["MTE2"].busy_cycles for c in cores]
    pick = max if how == "max" else (lambda v: sum(v) / len(v))
    return pick(spans) / clock_mhz, pick(mte2) / clock_mhz


NORM, MDL = asc.MatmulConfigMode.CONFIG_NORM, asc.MatmulConfigMode.CONFIG_MDL
# (row, label, platform, (m, n, k), cores, single (m, n), base, steps, depths, template,
#  unit flag, MTE2 preload, constant, how, measured aic us, measured mte2 us or None)
POINTS = [
    (13, "Norm", "Ascend910B1", (128, 30720, 1024), 24, (128, 1280), (128, 256, 64), (1, 1),
     (2, 2), NORM, False, 0, False, "max", 83.68, 75.64),
    (13, "MDL step 4/4 depth 8/8", "Ascend910B1", (128, 30720, 1024), 24, (128, 1280),
     (128, 256, 64), (4, 4), (8, 8), MDL, False, 0, False, "max", 53.4, 46.24),
    (14, "MDL, tiling argument", "Ascend910B1", (128, 30720, 64), 24, (128, 1280),
     (128, 256, 64), (4, 4), (8, 8), MDL, False, 0, False, "max", 10.62, None),
    (14, "MDL, constant tiling", "Ascend910B1", (128, 30720, 64), 24, (128, 1280),
     (128, 256, 64), (4, 4), (8, 8), MDL, False, 0, True, "max", 7.87, None),
    (16, "MDL", "Ascend910B3", (128, 30720, 64), 20, (128, 1536), (128, 256, 64), (4, 4),
     (8, 8), MDL, False, 0, False, "max", 37.39, None),
    (16, "MDL + UnitFlag", "Ascend910B3", (128, 30720, 64), 20, (128, 1536), (128, 256, 64),
     (4, 4), (8, 8), MDL, True, 0, False, "max", 34.66, None),
    (17, "MDL step 8/8 (no preload)", "Ascend910B1", (128, 24576, 512), 24, (128, 1024),
     (128, 128, 64), (8, 8), (8, 16), MDL, False, 0, False, "avg", 30.88, None),
    (17, "MDL + MTE2 preload along N", "Ascend910B1", (128, 24576, 512), 24, (128, 1024),
     (128, 128, 64), (8, 8), (8, 16), MDL, False, 2, False, "avg", 28.50, None),
]

SIDE = 8192
# The 8192^3 rows, timing-only: (row, label, cores, single (m, n), base, steps, depths, template,
#  unit flag, L2 rounds, measured Task Duration us, {pipe: ("us" | "ratio", measured)}). The sources state
# no depths for rows 4 and 5 (Norm's double buffer: 2, 2) nor Case4's steps (depth 4 = step 2,
# double-buffered: the model's reading).
LARGE = [
    (4, "Case0 base 64x64x64", 1, (SIDE, SIDE), (64, 64, 64), (1, 1), (2, 2), NORM, False, 1,
     759363.98, {"M": ("ratio", .187), "MTE2": ("ratio", .767), "S": ("ratio", .67)}),
    (4, "Case1 base 128x256x64", 1, (SIDE, SIDE), (128, 256, 64), (1, 1), (2, 2), NORM, False, 1,
     249467.08, {"M": ("ratio", .327), "MTE2": ("us", 195613)}),
    (5, "Case2 Norm 2x12 cores", 24, (4096, 683), (128, 256, 64), (1, 1), (2, 2), NORM, False, 1,
     12541.22, {"M": ("ratio", .276), "MTE2": ("us", 10177.8)}),
    (5, "Case3 Norm 4x6 cores", 24, (2048, 1536), (128, 256, 64), (1, 1), (2, 2), NORM, False, 1,
     12283.84, {"MTE2": ("us", 8616.7)}),
    (6, "Case4 MDL depth 4/4", 24, (2048, 1536), (128, 256, 64), (2, 2), (4, 4), MDL, False, 1,
     5039.86, {}),
    (6, "Case5 MDL step 8/4 depth 16/8", 24, (2048, 1536), (128, 256, 64), (8, 4), (16, 8), MDL,
     False, 1, 4156.76, {}),
    (6, "Case6 Case5 + L2 split, 2 rounds", 24, (1024, 1536), (128, 256, 64), (8, 4), (16, 8),
     MDL, False, 2, 4088.36, {}),
    (6, "Case7 Case5, constant tiling", 24, (2048, 1536), (128, 256, 64), None, None, MDL,
     False, 1, 4053.44, {}),
    (6, "Case8 Case5 + UnitFlag", 24, (2048, 1536), (128, 256, 64), (8, 4), (16, 8), MDL, True,
     1, 4012.44, {}),
]

# Row 7, the basic-API kernel (examples/matmul_basic_api.py): (label, single (m, n), rounds,
# measured Task Duration us, {pipe: measured}). Its B is stored N x K (the source does not say:
# the model's choice, as row 4's).
BASIC = [
    ("S1 basic API, one round", (2048, 1536), 1, 4121.16,
     {"M": ("us", 3081.7), "MTE2": ("us", 3552.2)}),
    ("S2 basic API, L2 split, 2 rounds", (1024, 1536), 2, 4081.64, {}),
]

# The Matmul tiling strategy case (hardware-910b.md 7 [DK-mmtiling]: asc-devkit's
# docs/zh/guide/算子实践参考/优秀实践/Matmul性能调优案例/Matmul算子优化Tiling策略.md): 4096 x 5120 x
# 4096, A and B half, C float, ND, on A2 with 20 cube cores; the Matmul called from the vector
# cores of a mixed kernel (examples/matmul_tiling_strategy.py). (label, launch blocks,
# usedCoreNum (SetDim: the vector cores), SetFixSplit (baseM, baseN), the baseK the source's
# tiling chose, template, what was measured ("task": Task Duration; "mte2": aic_mte2_time),
# measured us, {pipe: ("us", measured)}). Steps 3 and 4 give only an MTE2 time.
TILING_SHAPE = (4096, 5120, 4096)
TILING = [
    ("4 blocks, base 64x64", 4, 8, (64, 64), 256, NORM, "task", 12045, {}),
    ("20 blocks, base 64x64", 20, 40, (64, 64), 256, NORM, "task", 2532,
     {"MTE2": ("us", 2452)}),
    ("20 blocks, base 128x256", 20, 40, (128, 256), 64, NORM, "mte2", 808, {}),
    ("base 128x256 + MDL", 20, 40, (128, 256), 64, MDL, "mte2", 591, {}),
]

_SEARCHED = {}  # (cores, mode, unit flag) -> simulated us with asc.lib.host's tiling


def searched_large_us(cores, mode, unit, a, b, c):
    """The 8192^3 Matmul with asc.lib.host's tiling for the core count, timing-only (run once per
    core count, template and unit flag)."""
    key = (cores, mode, unit)
    if key not in _SEARCHED:
        found = searched_tiling(SIDE, SIDE, SIDE, cores, True, True, mode == NORM)
        report = tuned_matmul[found.used_core_num, rt.current_stream()](
            a, b, c, found, mode, unit, True, True, 1, 0, timing_only=True, check="off")
        _SEARCHED[key] = report.cycles / report.clock_mhz
    return _SEARCHED[key]


def aic_pipes_us(report, how):
    """Each cube-core pipe's busy time in us (largest or average over the cube cores)."""
    cores = [c for c in report.cores if c.core_type == "aic"]
    pick = max if how == "max" else (lambda v: sum(v) / len(v))
    names = sorted({name for c in cores for name in c.pipes})
    return {name: pick([c.pipes[name].busy_cycles if name in c.pipes else 0 for c in cores]) /
            report.clock_mhz for name in names}


def simulate_small(point, search=False):
    """One row of POINTS run in full and checked on sampled rows against numpy: a dict with
    sim_us (the largest or average aic time, as the source measured it), pipes (busy us per
    pipe), mte2_us, wall_s, check ("" or why it failed) and, with `search`, the time with
    asc.lib.host's tiling over the source's (search_ratio; None for a constant tiling)."""
    rt.reset_device()  # a fresh device: the figure does not depend on earlier points
    (row, label, platform, (m, n, k), cores, single, base, steps, depths, mode, unit, preload,
     constant, how, measured, measured_mte2) = point
    config.set_platform(config.Backend.Model, config.Platform(platform))
    rng = np.random.default_rng(row * 100 + len(label))
    a = rng.uniform(-1, 1, (m, k)).astype(np.float16)
    b = rng.uniform(-1, 1, (k, n)).astype(np.float16)
    c = np.zeros((m, n), np.float32)
    start = time.perf_counter()
    if constant:
        report = constant_matmul[cores, rt.current_stream()](a, b, c, m, n, k, *single, *base,
                                                            False, False, unit)
    else:
        tiling = tiling_of(m, n, k, cores, single, base, steps, depths)
        report = tuned_matmul[cores, rt.current_stream()](a, b, c, tiling, mode, unit, False,
                                                         False, 1, preload)
    wall = time.perf_counter() - start
    sample = rng.integers(0, m, 4)
    want = a[sample].astype(np.float32) @ b.astype(np.float32)
    check = "" if np.allclose(c[sample], want, atol=1e-2, rtol=1e-3) else \
        "the result does not match numpy"
    sim_us, sim_mte2 = busy_us(report, report.clock_mhz, how)
    result = dict(sim_us=sim_us, mte2_us=sim_mte2, pipes=aic_pipes_us(report, how),
                  bound=report.bound_pipe, wall_s=wall, check=check, search_ratio=None)
    if search and not constant:
        # The same Matmul with asc.lib.host's tiling for the shape (its steps and depths).
        found = searched_tiling(m, n, k, cores, norm=mode == NORM)
        searched = tuned_matmul[found.used_core_num, rt.current_stream()](
            a, b, c, found, mode, unit, False, False, 1, preload, check="off")
        result["search_ratio"] = busy_us(searched, report.clock_mhz, how)[0] / sim_us
    return result


def pipe_ratios(report):
    """Each cube-core pipe's busy time over the core's time, averaged over the cube cores."""
    cores = [c for c in report.cores if c.core_type == "aic"]
    names = sorted({name for c in cores for name in c.pipes})
    return {name: sum((c.pipes[name].busy_cycles if name in c.pipes else 0) / c.cycles
                      for c in cores) / len(cores) for name in names}


def simulate_large(point, search=False):
    """One row of LARGE: the reduced twin in full against numpy, then the point timing-only;
    with `search`, also asc.lib.host's tiling for it (once per core count, template and unit
    flag in this process). A dict as simulate_small's, sim_us the Task Duration, pipes averaged
    over the cube cores and ratios their share of each core's time. Steps of None: a full
    constant tiling (constant_matmul, its steps derived from the shapes)."""
    rt.reset_device()  # a fresh device: the figure does not depend on earlier points
    row, label, cores, single, base, steps, depths, mode, unit, rounds, measured, _ = point
    config.set_platform(config.Backend.Model, config.Platform("Ascend910B1"))
    rng = np.random.default_rng(row)
    m, n, k = SIDE // 8, SIDE // 8, SIDE // 16
    a = rng.uniform(-1, 1, (m, k)).astype(np.float16)
    b = rng.uniform(-1, 1, (n, k)).astype(np.float16)  # B transposed: N x K
    c = np.zeros((m, n), np.float16)
    twin_single = (single[0] // 8, -(-single[1] // 8))

    def launch(a, b, c, m, n, k, single, **options):
        if steps is None:
            return constant_matmul[cores, rt.current_stream()](a, b, c, m, n, k, *single, *base,
                                                              True, True, unit, **options)
        tiling = tiling_of(m // rounds, n, k, cores, single, base, steps, depths)
        return tuned_matmul[cores, rt.current_stream()](a, b, c, tiling, mode, unit, True, True,
                                                       rounds, 0, **options)

    launch(a, b, c, m, n, k, twin_single)
    want = a.astype(np.float32) @ b.astype(np.float32).T
    check = "" if np.allclose(c.astype(np.float32), want, atol=2e-2, rtol=2e-3) else \
        "the reduced shape does not match numpy"
    a = np.zeros((SIDE, SIDE), np.float16)  # values unused: timing-only
    b = np.zeros((SIDE, SIDE), np.float16)
    c = np.zeros((SIDE, SIDE), np.float16)
    start = time.perf_counter()
    report = launch(a, b, c, SIDE, SIDE, SIDE, single, timing_only=True)
    wall = time.perf_counter() - start
    sim_us = report.cycles / report.clock_mhz
    result = dict(sim_us=sim_us, pipes=aic_pipes_us(report, "avg"), ratios=pipe_ratios(report),
                  bound=report.bound_pipe, wall_s=wall, check=check, search_ratio=None)
    if search:
        result["search_ratio"] = searched_large_us(cores, mode, unit, a, b, c) / sim_us
    return result


def simulate_basic(point):
    """Row 7: a reduced twin (2048 x 2048 x 512 on the cores it needs) against numpy, then the
    point timing-only on 24 cores; a dict as simulate_large's."""
    rt.reset_device()  # a fresh device: the figure does not depend on earlier points
    label, single, rounds, measured, _ = point
    config.set_platform(config.Backend.Model, config.Platform("Ascend910B1"))
    rng = np.random.default_rng(7)
    m = n = 2048
    k = 512
    a = rng.uniform(-1, 1, (m, k)).astype(np.float16)
    b = rng.uniform(-1, 1, (n, k)).astype(np.float16)
    c = np.zeros((m, n), np.float16)
    twin_cores = (m // rounds // single[0]) * -(-n // single[1])
    basic_matmul[twin_cores, rt.current_stream()](a, b, c, m, n, k, *single, rounds)
    want = a.astype(np.float32) @ b.astype(np.float32).T
    check = "" if np.allclose(c.astype(np.float32), want, atol=2e-2, rtol=2e-3) else \
        "the reduced shape does not match numpy"
    a = np.zeros((SIDE, SIDE), np.float16)
    b = np.zeros((SIDE, SIDE), np.float16)
    c = np.zeros((SIDE, SIDE), np.float16)
    start = time.perf_counter()
    report = basic_matmul[24, rt.current_stream()](a, b, c, SIDE, SIDE, SIDE, *single, rounds,
                                                   timing_only=True)
    wall = time.perf_counter() - start
    return dict(sim_us=report.cycles / report.clock_mhz, pipes=aic_pipes_us(report, "avg"),
                ratios=pipe_ratios(report), bound=report.bound_pipe, wall_s=wall, check=check,
                search_ratio=None)


def tiling_twin(point):
    """The reduced twin of a TILING point run in full on the current device (platform set by
    the caller): the point's tiling in miniature (twin_tiling: the same base block, steps and
    depths, 2 x 2 base blocks per vector core, K in two L1 chunks, two groups), against numpy.
    "" or why it failed, including a tiling that no longer has the source's baseK."""
    label, blocks, used, split, base_k, mode = point[:6]
    tiling = strategy_tiling(*TILING_SHAPE, used, split)
    if tiling.base_k != base_k:
        return f"asc.lib.host chose base_k {tiling.base_k}, the source's tiling {base_k}"
    twin = twin_tiling(tiling)
    rng = np.random.default_rng(blocks + split[0])
    a = rng.uniform(-1, 1, (twin.m, twin.k_a)).astype(np.float16)
    b = rng.uniform(-1, 1, (twin.k_a, twin.n)).astype(np.float16)
    c = np.zeros((twin.m, twin.n), np.float32)
    strategy_matmul[twin.used_core_num // 2, rt.current_stream()](
        a, b, c, twin, np.zeros(WORKSPACE, np.uint8), mode)
    want = a.astype(np.float32) @ b.astype(np.float32)
    return "" if np.allclose(c, want, atol=1e-3, rtol=1e-4) else \
        "the reduced shape does not match numpy"


def simulate_tiling(point):
    """One row of TILING: the reduced twin in full against numpy (tiling_twin), then the point
    timing-only on Ascend910B3 (20 AIC / 40 AIV, the source's A2). A dict as simulate_large's;
    sim_us is what the source measured: the Task Duration (report.cycles over the clock), or for
    the "mte2" rows the cube cores' MTE2 busy time averaged over them (the source's
    aic_mte2_time does not say average or largest: the average is the model's reading)."""
    rt.reset_device()  # a fresh device: the figure does not depend on earlier points
    label, blocks, used, split, base_k, mode, metric, measured, _ = point
    config.set_platform(config.Backend.Model, config.Platform("Ascend910B3"))
    check = tiling_twin(point)
    m, n, k = TILING_SHAPE
    tiling = strategy_tiling(m, n, k, used, split)
    a = np.zeros((m, k), np.float16)  # values unused: timing-only
    b = np.zeros((k, n), np.float16)
    c = np.zeros((m, n), np.float32)
    start = time.perf_counter()
    report = strategy_matmul[blocks, rt.current_stream()](
        a, b, c, tiling, np.zeros(WORKSPACE, np.uint8), mode, timing_only=True)
    wall = time.perf_counter() - start
    pipes = aic_pipes_us(report, "avg")
    sim_us = report.cycles / report.clock_mhz if metric == "task" else pipes["MTE2"]
    return dict(sim_us=sim_us, pipes=pipes, ratios=pipe_ratios(report), bound=report.bound_pipe,
                wall_s=wall, check=check, search_ratio=None)


def measured_pipe_text(result, measured):
    """Each pipe the source gives: simulated / measured, in us or as a ratio of the core's time
    (averages over the cube cores)."""
    parts = []
    for pipe, (unit, value) in measured.items():
        if unit == "us":
            parts.append(f"{pipe} {result['pipes'].get(pipe, 0):.0f}/{value:.0f}us")
        else:
            parts.append(f"{pipe} {result['ratios'].get(pipe, 0):.3f}/{value:.3f}")
    return ", ".join(parts)


def run_large(point):
    """simulate_large's line for the table, and (error, search ratio) or None on a failure."""
    row, label, _, _, _, _, _, _, _, _, measured, pipes = point
    r = simulate_large(point, search=True)
    if r["check"]:
        return f"{row:>3} {label:30} FAILED: {r['check']}", None
    err = (r["sim_us"] - measured) / measured * 100
    return (f"{row:>3} {label:30} {'Ascend910B1':12} {r['sim_us']:10.1f} {measured:10.1f} "
            f"{err:+6.1f}% bound {r['bound']:4} {r['wall_s']:6.1f} {r['search_ratio']:6.3f}  "
            f"{measured_pipe_text(r, pipes)}"), (err, r["search_ratio"])


def run_basic(point):
    """simulate_basic's line for the table, and its error or None on a failure."""
    label, _, _, measured, pipes = point
    r = simulate_basic(point)
    if r["check"]:
        return f"{7:>3} {label:30} FAILED: {r['check']}", None
    err = (r["sim_us"] - measured) / measured * 100
    return (f"{7:>3} {label:30} {'Ascend910B1':12} {r['sim_us']:10.1f} {measured:10.1f} "
            f"{err:+6.1f}% bound {r['bound']:4} {r['wall_s']:6.1f} {'':>6}  "
            f"{measured_pipe_text(r, pipes)}"), err


def run_tiling(point):
    """simulate_tiling's line for the table, and its error or None on a failure."""
    label, blocks, _, _, _, _, metric, measured, pipes = point
    r = simulate_tiling(point)
    if r["check"]:
        return f"{label:30} FAILED: {r['check']}", None
    err = (r["sim_us"] - measured) / measured * 100
    what = "Task" if metric == "task" else "MTE2"
    return (f"{label:30} {blocks:>6} {what:>6} {r['sim_us']:10.1f} {measured:10.1f} {err:+6.1f}% "
            f"bound {r['bound']:4} {r['wall_s']:6.1f}  {measured_pipe_text(r, pipes)}"), err


def run_group(tasks):
    """Runs ("large", point) and ("basic", point) tasks in turn in this process; returns their
    (line, result) pairs. A group keeps the points that share asc.lib.host's searched tiling
    (one core count, template and unit flag) in one process, so the search runs once."""
    return [run_large(point) if kind == "large" else run_basic(point) for kind, point in tasks]


def large_groups():
    """The 8192^3 points as groups for run_group, in print order."""
    groups = []
    for point in LARGE:
        key = (point[2], point[7], point[8])  # cores, template, unit flag
        if groups and groups[-1][0] == key:
            groups[-1][1].append(("large", point))
        else:
            groups.append((key, [("large", point)]))
    groups += [(None, [("basic", point)]) for point in BASIC]
    return [tasks for _, tasks in groups]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1,
                        help="processes for the 8192^3 points (default: one per host core); "
                             "each prints the wall time of its own launches")
    args = parser.parse_args()
    if args.jobs < 1:
        parser.error(f"--jobs must be at least 1, not {args.jobs}")
    print("Matmul tuning points (hardware-910b.md 7.1): simulated against measured on A2")
    print(f"{'row':>3} {'point':30} {'platform':12} {'sim us':>8} {'meas us':>8} {'error':>7} "
          f"{'sim mte2':>9} {'meas mte2':>9} {'wall s':>6} {'search':>6}")
    errors = []
    ratios = []  # simulated time with asc.lib.host's tiling / with the source's
    for point in POINTS:
        row, label, platform = point[:3]
        measured, measured_mte2 = point[-2:]
        r = simulate_small(point, search=True)
        if r["check"]:
            print(f"{row:>3} {label:30} FAILED: {r['check']}")
            return 1
        err = (r["sim_us"] - measured) / measured * 100
        errors.append(abs(err))
        mte2_text = f"{measured_mte2:9.2f}" if measured_mte2 is not None else f"{'-':>9}"
        search_text = ""
        if r["search_ratio"] is not None:
            search_text = f" {r['search_ratio']:6.3f}"
            ratios.append(r["search_ratio"])
        print(f"{row:>3} {label:30} {platform:12} {r['sim_us']:8.2f} {measured:8.2f} "
              f"{err:+6.1f}% {r['mte2_us']:9.2f} {mte2_text} {r['wall_s']:6.2f}{search_text}")
    print("\n8192^3 points, timing-only (Task Duration; reduced twins checked against numpy)")
    print(f"{'row':>3} {'point':30} {'platform':12} {'sim us':>10} {'meas us':>10} {'error':>7} "
          f"{'bound':>10} {'wall s':>6} {'search':>6}  pipes sim/measured")
    groups = large_groups()
    with ProcessPoolExecutor(max_workers=min(args.jobs, len(groups)),
                             mp_context=multiprocessing.get_context("spawn")) as pool:
        # Separate processes (spawned: each imports this file and has its own simulator), or this
        # one with --jobs 1; the lines print in the table's order as the groups finish.
        results = map(run_group, groups) if args.jobs == 1 else pool.map(run_group, groups)
        for group in results:
            for line, result in group:
                print(line, flush=True)
                if result is None:
                    pool.shutdown(cancel_futures=True)
                    return 1
                if isinstance(result, tuple):
                    errors.append(abs(result[0]))
                    ratios.append(result[1])
                else:
                    errors.append(abs(result))
        print("\n4096 x 5120 x 4096 half -> float on Ascend910B3, the tiling strategy case "
              "(hardware-910b.md 7), timing-only; MTE2: the cube cores' average")
        print(f"{'point':30} {'blocks':>6} {'metric':>6} {'sim us':>10} {'meas us':>10} "
              f"{'error':>7} {'bound':>10} {'wall s':>6}  pipes sim/measured")
        results = map(run_tiling, TILING) if args.jobs == 1 else pool.map(run_tiling, TILING)
        for line, err in results:
            print(line, flush=True)
            if err is None:
                pool.shutdown(cancel_futures=True)
                return 1
            errors.append(abs(err))
    print(f"asc.lib.host's tilings: {min(ratios):.3f} .. {max(ratios):.3f} of the sources' "
          "simulated time ('search' column)")
    print(f"matmul points: mean |error| {sum(errors) / len(errors):.1f}% over {len(errors)} "
          "points (printed, not fitted)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
