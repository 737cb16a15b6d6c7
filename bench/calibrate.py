"""Calibration: the Ascend C "Add" best-practice ladder, simulated, against the measured times.

Each point is an 8192 x 8192 fp16 add (64 Mi elements, 3 x 128 MiB of GM traffic) on 48 vector
cores of Ascend910B1, written with the asc Python API in the tutorial style (static UB tensors,
set_flag/wait_flag between MTE2, V and MTE3). Measured times are hardware-910b.md section 7
[DK-addex][DK-addhi]. A benchmark, not a test: it prints per point the simulated and measured
microseconds, the error and the wall time, and as its last line `MAPE: X%`. tests/sim/
ladder_kernel.h is the same kernel in C++ (build-*/bin/aicore_sim_ladder runs it without Python).

    python3 bench/calibrate.py [--soc-version Ascend910B1] [--size 67108864]
"""
import argparse
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "clients",
                                "python"))

import numpy as np  # noqa: E402

import asc  # noqa: E402
import asc.lib.runtime as rt  # noqa: E402
import asc.runtime.config as config  # noqa: E402

CORES = 48
MAX_ERROR_PCT = 10.0


@asc.jit
def add_ladder(x: asc.GlobalAddress, y: asc.GlobalAddress, z: asc.GlobalAddress, total: int,
               tile: asc.ConstExpr[int], buffers: asc.ConstExpr[int],
               bypass_l2: asc.ConstExpr[bool], shift: asc.ConstExpr[int]):
    # Core c adds tiles [c * n / cores, (c + 1) * n / cores): every tile is whole, cores differ
    # by at most one tile (64 Mi elements do not split evenly over 48 cores).
    tiles = total // tile
    core = asc.get_block_idx()
    cores = asc.get_block_num()
    first = core * tiles // cores
    last = (core + 1) * tiles // cores
    x_gm = asc.GlobalTensor()
    y_gm = asc.GlobalTensor()
    z_gm = asc.GlobalTensor()
    x_gm.set_global_buffer(x, total)
    y_gm.set_global_buffer(y, total)
    z_gm.set_global_buffer(z, total)
    if bypass_l2:
        x_gm.set_l2_cache_hint(asc.CacheMode.CACHE_MODE_DISABLE)
        y_gm.set_l2_cache_hint(asc.CacheMode.CACHE_MODE_DISABLE)
        z_gm.set_l2_cache_hint(asc.CacheMode.CACHE_MODE_DISABLE)

    # Tutorial layout: x, y, z back to back, so x and y start in the same UB bank group and every
    # repeat of the add reads each group twice. `shift` = 256 moves y (and z) by half of the
    # 16-group window: the conflict-free layout.
    tile_bytes = tile * 2
    x_local = asc.LocalTensor(asc.float16, asc.TPosition.VECIN, 0, tile * buffers)
    y_local = asc.LocalTensor(asc.float16, asc.TPosition.VECIN, buffers * tile_bytes + shift,
                              tile * buffers)
    z_local = asc.LocalTensor(asc.float16, asc.TPosition.VECOUT,
                              2 * buffers * tile_bytes + 2 * shift, tile * buffers)

    # Every buffer starts free: MTE2 may fill x/y, V may write z.
    for b in asc.static_range(buffers):
        asc.set_flag(asc.HardEvent.V_MTE2, b)
        asc.set_flag(asc.HardEvent.MTE3_V, b)
    for i in range(first, last):
        b = i % buffers
        asc.wait_flag(asc.HardEvent.V_MTE2, b)
        asc.data_copy(x_local[b * tile:], x_gm[i * tile:], tile)
        asc.data_copy(y_local[b * tile:], y_gm[i * tile:], tile)
        asc.set_flag(asc.HardEvent.MTE2_V, b)
        asc.wait_flag(asc.HardEvent.MTE2_V, b)
        asc.wait_flag(asc.HardEvent.MTE3_V, b)
        asc.add(z_local[b * tile:], x_local[b * tile:], y_local[b * tile:], tile)
        asc.set_flag(asc.HardEvent.V_MTE2, b)
        asc.set_flag(asc.HardEvent.V_MTE3, b)
        asc.wait_flag(asc.HardEvent.V_MTE3, b)
        asc.data_copy(z_gm[i * tile:], z_local[b * tile:], tile)
        asc.set_flag(asc.HardEvent.MTE3_V, b)
    for b in asc.static_range(buffers):
        asc.wait_flag(asc.HardEvent.V_MTE2, b)
        asc.wait_flag(asc.HardEvent.MTE3_V, b)


# (name, tile elements, buffers, bypass L2, UB shift, measured us). "Tiles" are per operand
# buffer; double buffering halves them as the Ascend C tutorial does (BUFFER_NUM = 2 splits the
# same UB space), which also leaves room for the 256 B shift of the last step.
LADDER = [
    ("8 KB tiles, single buffer", 4096, 1, False, 0, 306.6),
    ("32 KB tiles", 16384, 1, False, 0, 268.5),
    ("+ double buffer (2 x 16 KB)", 8192, 2, False, 0, 264.0),
    ("+ L2 bypass", 8192, 2, True, 0, 187.7),
    ("+ no bank conflict", 8192, 2, True, 256, 184.5),
]


def ladder_inputs(size):
    """x, y and z of the ladder and a sample of x + y to check (the same on every call)."""
    rng = np.random.default_rng(2024)
    x = rng.uniform(-100, 100, size).astype(np.float16)
    y = rng.uniform(-100, 100, size).astype(np.float16)
    sample = rng.integers(0, size, 1 << 16)
    expected = (x[sample].astype(np.float32) + y[sample].astype(np.float32)).astype(np.float16)
    return x, y, np.zeros_like(x), sample, expected


def simulate_ladder(point, size=8192 * 8192, inputs=None, platform="Ascend910B1"):
    """One LADDER point on CORES vector cores, its sampled sums checked: a dict with sim_us
    (Task Duration), pipes (busy us of the busiest core per pipe), wall_s (the launch with its
    host copies) and check ("" or why it failed). `inputs` (ladder_inputs) saves making them."""
    rt.reset_device()  # a fresh device: the figure does not depend on earlier points
    name, tile, buffers, bypass, shift, _ = point
    if size % tile:
        raise ValueError(f"size {size} is not a multiple of the tile {tile}")
    config.set_platform(config.Backend.Model, config.Platform(platform))
    x, y, z, sample, expected = inputs if inputs is not None else ladder_inputs(size)
    z[:] = 0
    options = dict(tile=tile, buffers=buffers, bypass_l2=bypass, shift=shift)
    add_ladder.compile(x, y, z, size, **options)
    start = time.perf_counter()
    report = add_ladder[CORES, rt.current_stream()](x, y, z, size, **options)
    wall = time.perf_counter() - start
    check = ""
    if not np.array_equal(z[sample], expected):
        bad = np.flatnonzero(z[sample] != expected)
        check = (f"{bad.size} of {sample.size} sampled sums differ (z[{sample[bad[0]]}] = "
                 f"{z[sample[bad[0]]]}, want {expected[bad[0]]})")
    names = sorted({n for c in report.cores for n in c.pipes})
    pipes = {n: max(c.pipes[n].busy_cycles for c in report.cores if n in c.pipes) /
             report.clock_mhz for n in names}
    return dict(sim_us=report.duration_us, pipes=pipes, bound=report.bound_pipe, wall_s=wall,
                check=check)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-v", "--soc-version", default=config.Platform.Ascend910B1.value,
                        choices=[p.value for p in config.Platform])
    parser.add_argument("--size", type=int, default=8192 * 8192, help="fp16 elements per tensor")
    args = parser.parse_args()

    if not hasattr(asc.GlobalTensor, "set_l2_cache_hint") or not hasattr(asc, "CacheMode"):
        print("asc.GlobalTensor.set_l2_cache_hint / asc.CacheMode are missing from the frontend: "
              "the L2-bypass points cannot be expressed; see tests/sim/ladder_kernel.h and "
              "aicore_sim_ladder for the C++ ladder.")
        return 2
    for point in LADDER:
        if args.size % point[1]:
            parser.error(f"--size must be a multiple of {point[1]}")

    # Inputs made once and reused by every point. The frontend copies host arrays to device
    # memory and back around each launch; the wall time per point includes those copies.
    inputs = ladder_inputs(args.size)
    config.set_platform(config.Backend.Model, config.Platform(args.soc_version))
    print(f"Add ladder: {args.size} fp16 elements on {CORES} vector cores of {args.soc_version} "
          f"({rt.transport()} simulator)")
    print(f"{'point':30s} {'sim us':>9s} {'measured':>9s} {'error':>8s} {'wall s':>7s}")
    errors, failed = [], False
    for point in LADDER:
        name, measured = point[0], point[-1]
        r = simulate_ladder(point, args.size, inputs, args.soc_version)
        if r["check"]:
            print(f"{name}: FAIL, {r['check']}")
            return 1
        err = (r["sim_us"] - measured) / measured * 100
        errors.append(abs(err))
        failed |= abs(err) > MAX_ERROR_PCT
        print(f"{name:30s} {r['sim_us']:9.1f} {measured:9.1f} {err:+7.1f}% {r['wall_s']:7.2f}")
    if failed:
        print(f"some points are off by more than {MAX_ERROR_PCT:.0f}%")
    print(f"MAPE: {sum(errors) / len(errors):.1f}%")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
