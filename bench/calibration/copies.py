"""Calibration points for GM reads alone: the DataCopy best-practice example of the Ascend C
devkit (hardware-910b.md 7.1 rows 8 and 10; docs/calibration.md has every figure with its
source), simulated against the times its README measured on Atlas A2.

Each kernel only reads: a half matrix in GM is copied tile by tile into one buffer of UB (48
vector cores, data_copy_pad with DataCopyParams) or of L1 (24 cube cores, data_copy with
Nd2NzParams), every copy into the same buffer as the source does. Scenarios vary the tile (the
size of each copy and of its rows), an unaligned row length (N = 12287), reading each core's
rows four times whole or in four N slices (L2 reuse), and every core reading the whole matrix in
the same or in a staggered order with the L2 bypassed (same-address conflicts). Measured is
msprof's Task Duration and the MTE2 time (aiv_mte2_time, aic_mte2_time; aiv_time and
aicore_time for the repeat scenarios, whose README table gives those instead).

The copies overwrite one buffer without synchronisation, as the source's do: nothing reads it,
and on one pipe a copy starts after the one before it. The race checker calls that a write
after write on MTE2 (it cannot know no one reads the buffer), so the timed runs use check
"off"; with `verify` each copy is followed by a synchronised write of the buffer (UB) or a dump
of it (L1), which tests/python/test_calibration_kernels.py checks against numpy on reduced
shapes under strict checking.

    python3 bench/calibration/copies.py [--only ub|l1] [--scenario N ...]
"""
import argparse
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "clients", "python"))

import numpy as np  # noqa: E402

import asc  # noqa: E402
import asc.lib.runtime as rt  # noqa: E402
import asc.runtime.config as config  # noqa: E402

H = asc.HardEvent
FRACTAL = 16  # rows of an NZ fractal (blockCube); a fractal row holds 32 bytes (c0)

# How a core walks the matrix (the source's Process... functions).
TILES = "tiles"                  # its own rows, tile by tile (scenarios UB 1-4, L1 1-3)
REPEAT_WHOLE = "repeat_whole"    # its own rows, all of N, four times over
REPEAT_SPLIT = "repeat_split"    # its own rows, N in four slices, each slice four times
FULL_SAME = "full_same"          # the whole matrix, every core in the same order, L2 bypassed
FULL_STAGGERED = "full_staggered"  # the whole matrix, each core starting at its own block


@asc.jit
def ub_copy(ub: asc.LocalTensor, src_gm: asc.GlobalTensor, out_gm: asc.GlobalTensor,
            n: asc.ConstExpr[int], tile_m: asc.ConstExpr[int], row: int, col: int,
            cols: asc.ConstExpr[int], base: int, verify: asc.ConstExpr[bool]):
    """One copy of the source's KernelDataCopyPadGm2Ub: tile_m rows of `cols` halves, `n`
    apart in GM, into UB at 0 (each row padded to whole 32-byte blocks). With `verify` the tile
    goes back out to out_gm (from `base`) before the next copy may overwrite it."""
    asc.data_copy_pad(ub, src_gm[row * n + col:],
                      asc.DataCopyParams(tile_m, cols * 2, (n - cols) * 2, 0),
                      asc.DataCopyPadParams(False, 0, 0, 0))
    if verify:
        asc.set_flag(H.MTE2_MTE3, 0)
        asc.wait_flag(H.MTE2_MTE3, 0)
        asc.data_copy_pad(out_gm[base + row * n + col:], ub,
                          asc.DataCopyParams(tile_m, cols * 2, 0, (n - cols) * 2))
        asc.set_flag(H.MTE3_MTE2, 0)
        asc.wait_flag(H.MTE3_MTE2, 0)


@asc.jit
def l1_copy(l1: asc.LocalTensor, src_gm: asc.GlobalTensor, n: asc.ConstExpr[int],
            tile_m: asc.ConstExpr[int], row: int, col: int, cols: asc.ConstExpr[int],
            verify: asc.ConstExpr[bool]):
    """One copy of the source's KernelDataCopyGm2L1: tile_m rows of `cols` halves, `n` apart
    in GM, into L1 at 0 as NZ fractals (16 rows of 16 halves; dstNzC0Stride tile_m rounded up
    to 16). With `verify` the buffer is dumped once MTE2 has written it, its desc the copy's
    first element (row * n + col)."""
    rows16 = (tile_m + FRACTAL - 1) // FRACTAL * FRACTAL
    asc.data_copy(l1, src_gm[row * n + col:], asc.Nd2NzParams(1, tile_m, cols, 0, n, rows16, 1, 0))
    if verify:
        asc.pipe_barrier(asc.PipeID.PIPE_ALL)
        asc.dump_tensor(l1, row * n + col, rows16 * ((cols + FRACTAL - 1) // FRACTAL * FRACTAL))


@asc.jit
def copy_tile(dst: asc.LocalTensor, src_gm: asc.GlobalTensor, out_gm: asc.GlobalTensor,
              n: asc.ConstExpr[int], tile_m: asc.ConstExpr[int], row: int, col: int,
              cols: asc.ConstExpr[int], base: int, verify: asc.ConstExpr[bool],
              to_l1: asc.ConstExpr[bool]):
    if to_l1:
        l1_copy(dst, src_gm, n, tile_m, row, col, cols, verify)
    else:
        ub_copy(dst, src_gm, out_gm, n, tile_m, row, col, cols, base, verify)


@asc.jit
def walk(dst: asc.LocalTensor, src_gm: asc.GlobalTensor, out_gm: asc.GlobalTensor,
         m: asc.ConstExpr[int], n: asc.ConstExpr[int], tile_m: asc.ConstExpr[int],
         tile_n: asc.ConstExpr[int], mode: asc.ConstExpr[str], verify: asc.ConstExpr[bool],
         to_l1: asc.ConstExpr[bool]):
    """The copies of this core in the source's order (its Process... functions)."""
    core = asc.get_block_idx()
    cores = asc.get_block_num()
    single_m = m // cores
    if mode == FULL_SAME or mode == FULL_STAGGERED:
        src_gm.set_l2_cache_hint(asc.CacheMode.CACHE_MODE_DISABLE)
        base = core * m * n if verify else 0
        for block in range(m // single_m):
            at = block
            if mode == FULL_STAGGERED:
                at = block // cores * cores + (block + core) % cores
            for r in range(single_m // tile_m):
                for c in range(n // tile_n):
                    copy_tile(dst, src_gm, out_gm, n, tile_m, at * single_m + r * tile_m,
                              c * tile_n, tile_n, base, verify, to_l1)
    elif mode == TILES:
        for r in range(single_m // tile_m):
            row = core * single_m + r * tile_m
            for c in range(n // tile_n):
                copy_tile(dst, src_gm, out_gm, n, tile_m, row, c * tile_n, tile_n, 0, verify,
                          to_l1)
            if n % tile_n:
                copy_tile(dst, src_gm, out_gm, n, tile_m, row, n // tile_n * tile_n, n % tile_n,
                          0, verify, to_l1)
    else:
        slices = 1 if mode == REPEAT_WHOLE else 4
        width = n // slices
        for s in asc.static_range(slices):
            for _ in range(4):
                for r in range(single_m // tile_m):
                    for c in range(width // tile_n):
                        copy_tile(dst, src_gm, out_gm, n, tile_m, core * single_m + r * tile_m,
                                  s * width + c * tile_n, tile_n, 0, verify, to_l1)


@asc.jit
def copy_gm_to_ub(src: asc.GlobalAddress, out: asc.GlobalAddress, m: asc.ConstExpr[int],
                  n: asc.ConstExpr[int], tile_m: asc.ConstExpr[int], tile_n: asc.ConstExpr[int],
                  mode: asc.ConstExpr[str], verify: asc.ConstExpr[bool]):
    """The UB scenarios on the vector cores: `out` receives the tiles with `verify` (the
    matrix, or one matrix per core for the full-matrix modes)."""
    src_gm = asc.GlobalTensor()
    src_gm.set_global_buffer(src, m * n)
    out_gm = asc.GlobalTensor()
    out_gm.set_global_buffer(out)
    ub = asc.LocalTensor(asc.float16, asc.TPosition.VECIN, 0, tile_m * tile_n)
    walk(ub, src_gm, out_gm, m, n, tile_m, tile_n, mode, verify, False)
    asc.pipe_barrier(asc.PipeID.PIPE_ALL)


@asc.jit(matmul_cube_only=True, kernel_type=config.KernelType.AIC_ONLY)
def copy_gm_to_l1(src: asc.GlobalAddress, m: asc.ConstExpr[int], n: asc.ConstExpr[int],
                  tile_m: asc.ConstExpr[int], tile_n: asc.ConstExpr[int],
                  mode: asc.ConstExpr[str], verify: asc.ConstExpr[bool]):
    """The L1 scenarios on the cube cores; with `verify` every copy's buffer is dumped."""
    if asc.ascend_is_aic():
        src_gm = asc.GlobalTensor()
        src_gm.set_global_buffer(src, m * n)
        rows16 = (tile_m + FRACTAL - 1) // FRACTAL * FRACTAL
        l1 = asc.LocalTensor(asc.float16, asc.TPosition.A1, 0,
                             rows16 * ((tile_n + FRACTAL - 1) // FRACTAL * FRACTAL))
        walk(l1, src_gm, src_gm, m, n, tile_m, tile_n, mode, verify, True)
        asc.pipe_barrier(asc.PipeID.PIPE_ALL)


# The source's scenarios on Atlas A2 (README tables; docs/calibration.md): (id, what, M, N,
# tile M, tile N, walk, measured Task Duration us, measured MTE2 us). The UB kernels run on the
# 48 vector cores, the L1 kernels on the 24 cube cores, each core owning M / cores rows (the
# full-matrix walks read them all). The repeat scenarios' second figure is aiv_time/aicore_time.
UB_SCENARIOS = [
    ("UB1", "tile [1,64], 128 B copies", 12288, 12288, 1, 64, TILES, 564.84, 548.161),
    ("UB2", "tile [64,64], 64 rows of 128 B", 12288, 12288, 64, 64, TILES, 233.54, 220.772),
    ("UB3", "tile [64,1024], 64 rows of 2 KB", 12288, 12288, 64, 1024, TILES, 215.82, 202.657),
    ("UB4", "UB3 with N = 12287 (unaligned rows)", 12288, 12287, 64, 1024, TILES, 275.3,
     259.047),
    ("UB5", "UB3's rows four times whole", 12288, 12288, 64, 1024, REPEAT_WHOLE, 828.06, 816.05),
    ("UB6", "UB3's rows in four N slices, each four times", 12288, 12288, 64, 1024,
     REPEAT_SPLIT, 365.74, 354.56),
    ("UB7", "[6144,512] whole on every core, same order, L2 off", 6144, 512, 128, 64, FULL_SAME,
     539.42, 474.717),
    ("UB8", "UB7 in a staggered order", 6144, 512, 128, 64, FULL_STAGGERED, 328.88, 307.38),
]
L1_SCENARIOS = [
    ("L1-1", "ND2NZ tile [64,64]", 12288, 12288, 64, 64, TILES, 300.7, 283.508),
    ("L1-2", "ND2NZ tile [64,256]", 12288, 12288, 64, 256, TILES, 230.24, 214.519),
    ("L1-3", "L1-2 with N = 12287 (unaligned rows)", 12288, 12287, 64, 256, TILES, 438.76,
     422.515),
    ("L1-4", "tile [64,1024], the rows four times whole", 12288, 12288, 64, 1024, REPEAT_WHOLE,
     899.34, 872.19),
    ("L1-5", "L1-4 in four N slices, each four times", 12288, 12288, 64, 1024, REPEAT_SPLIT,
     414.96, 397.8),
    ("L1-6", "whole [6144,512] per core, tile [256,64], same order", 6144, 512, 256,
     64, FULL_SAME, 278.56, 240.198),
    ("L1-7", "L1-6 in a staggered order", 6144, 512, 256, 64, FULL_STAGGERED, 221.34, 209.8),
]
VECTOR_CORES, CUBE_CORES = 48, 24


def pipe_us(report, pipe):
    """The busiest core's time in `pipe` (msprof's *_mte2_time is per core; the source's
    kernels give every core the same work)."""
    busy = [core.pipes[pipe].busy_cycles for core in report.cores if pipe in core.pipes]
    return max(busy, default=0) / report.clock_mhz


def simulate_copy(scenario, to_l1, rows=None, cores=None):
    """One scenario at full size (check off: see the module doc): a dict with sim_us (Task
    Duration), pipes (busy us of the busiest core per pipe), wall_s and check (always "": the
    timed kernel has no output; the test checks the copies). `rows` and `cores` shrink it (M
    and the core count: the fitter's own tests)."""
    rt.reset_device()  # a fresh device: the figure does not depend on earlier points
    _, _, m, n, tile_m, tile_n, mode, _, _ = scenario
    m = rows or m
    config.set_platform(config.Backend.Model, config.Platform.Ascend910B1)
    stream = rt.current_stream()
    x = np.zeros(m * n, np.float16)
    start = time.perf_counter()
    if to_l1:
        report = copy_gm_to_l1[cores or CUBE_CORES, stream](x, m, n, tile_m, tile_n, mode, False,
                                                            check="off")
    else:
        report = copy_gm_to_ub[cores or VECTOR_CORES, stream](x, x, m, n, tile_m, tile_n, mode,
                                                              False, check="off")
    wall = time.perf_counter() - start
    names = sorted({name for core in report.cores for name in core.pipes})
    return dict(sim_us=report.duration_us, pipes={name: pipe_us(report, name) for name in names},
                bound=report.bound_pipe, wall_s=wall, check="")


def run(scenarios, to_l1):
    """Runs each scenario and prints its row; returns the absolute errors of Task Duration in
    percent."""
    errors = []
    for scenario in scenarios:
        sid, what, task_us, mte2_us = scenario[0], scenario[1], scenario[-2], scenario[-1]
        r = simulate_copy(scenario, to_l1)
        err = (r["sim_us"] - task_us) / task_us * 100
        errors.append(abs(err))
        print(f"{sid:5s} {what:54s} {r['sim_us']:8.1f} {task_us:8.1f} {err:+7.1f}% "
              f"{r['pipes'].get('MTE2', 0):8.1f} {mte2_us:8.1f} {r['wall_s']:6.1f}")
    return errors


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", choices=("ub", "l1"), help="one group of scenarios")
    parser.add_argument("--scenario", action="append", default=[],
                        help="a scenario id to run (UB1 ... UB8, L1-1 ... L1-7); repeatable")
    args = parser.parse_args()
    known = {s[0] for s in UB_SCENARIOS + L1_SCENARIOS}
    unknown = sorted(set(args.scenario) - known)
    if unknown:
        parser.error(f"unknown scenario {', '.join(unknown)}; known: {', '.join(sorted(known))}")

    def chosen(scenarios):
        return [s for s in scenarios if not args.scenario or s[0] in args.scenario]

    config.set_platform(config.Backend.Model, config.Platform.Ascend910B1)
    print("GM reads alone (hardware-910b.md 7.1 rows 8 and 10; the DataCopy best practice), "
          f"Ascend910B1, {rt.transport()} simulator, check off")
    print(f"{'id':5s} {'scenario':54s} {'sim us':>8s} {'meas us':>8s} {'error':>8s} "
          f"{'sim mte2':>8s} {'meas':>8s} {'wall s':>6s}")
    groups = []
    if args.only != "l1" and chosen(UB_SCENARIOS):
        groups.append(("vector copies (GM -> UB, 48 AIV)", run(chosen(UB_SCENARIOS), False)))
    if args.only != "ub" and chosen(L1_SCENARIOS):
        groups.append(("cube copies (GM -> L1 ND2NZ, 24 AIC)", run(chosen(L1_SCENARIOS), True)))
    for name, errors in groups:
        print(f"{name}: MAPE {sum(errors) / len(errors):.1f}% over {len(errors)} points "
              "(printed, not fitted)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
