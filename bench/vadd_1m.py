"""Benchmark: simulate a 1M-element fp32 vector add (tutorial 01 style, 8 cores) and time it
against numpy doing the same add, in the same run. Prints both wall times and the ratio
simulator/numpy; compilation is excluded from the timed runs and reported separately. Then the
cost of the checkers: the same launch at check levels off and warn (the default), and the ratio,
for the given tile and for a small one (--check-tile) where instructions, not bytes, dominate,
and that small tile's simulated instructions per second.

    python3 bench/vadd_1m.py [--size 1048576] [--cores 8] [--repeat 5]
"""
import argparse
import os
import statistics
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "clients",
                                "python"))

import numpy as np  # noqa: E402

import asc  # noqa: E402
import asc.lib.runtime as rt  # noqa: E402
import asc.runtime.config as config  # noqa: E402
from numpy_reference import median_add_seconds  # noqa: E402

BUFFER_NUM = 2


@asc.jit
def vadd_kernel(x: asc.GlobalAddress, y: asc.GlobalAddress, z: asc.GlobalAddress,
                block_length: int, tile_length: asc.ConstExpr[int]):
    offset = asc.get_block_idx() * block_length
    x_gm = asc.GlobalTensor()
    y_gm = asc.GlobalTensor()
    z_gm = asc.GlobalTensor()
    x_gm.set_global_buffer(x + offset, block_length)
    y_gm.set_global_buffer(y + offset, block_length)
    z_gm.set_global_buffer(z + offset, block_length)
    data_type = x.dtype
    buffer_size = tile_length * BUFFER_NUM * data_type.sizeof()
    x_local = asc.LocalTensor(data_type, asc.TPosition.VECIN, 0, tile_length * BUFFER_NUM)
    y_local = asc.LocalTensor(data_type, asc.TPosition.VECIN, buffer_size,
                              tile_length * BUFFER_NUM)
    z_local = asc.LocalTensor(data_type, asc.TPosition.VECOUT, 2 * buffer_size,
                              tile_length * BUFFER_NUM)
    for i in range(block_length // tile_length):
        buf_id = i % BUFFER_NUM
        asc.data_copy(x_local[buf_id * tile_length:], x_gm[i * tile_length:], tile_length)
        asc.data_copy(y_local[buf_id * tile_length:], y_gm[i * tile_length:], tile_length)
        asc.set_flag(asc.HardEvent.MTE2_V, buf_id)
        asc.wait_flag(asc.HardEvent.MTE2_V, buf_id)
        asc.add(z_local[buf_id * tile_length:], x_local[buf_id * tile_length:],
                y_local[buf_id * tile_length:], tile_length)
        asc.set_flag(asc.HardEvent.V_MTE3, buf_id)
        asc.wait_flag(asc.HardEvent.V_MTE3, buf_id)
        asc.data_copy(z_gm[i * tile_length:], z_local[buf_id * tile_length:], tile_length)
        asc.set_flag(asc.HardEvent.MTE3_MTE2, buf_id)
        asc.wait_flag(asc.HardEvent.MTE3_MTE2, buf_id)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=1 << 20)
    parser.add_argument("--cores", type=int, default=8)
    parser.add_argument("--tile", type=int, default=4096, help="elements per tile (fp32)")
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--check-tile", type=int, default=256,
                        help="elements per tile of the instruction-bound checking-cost run")
    args = parser.parse_args()
    block = args.size // args.cores
    if block * args.cores != args.size or block % args.tile or block % args.check_tile:
        parser.error("size must split into cores x whole tiles (of --tile and --check-tile)")

    config.set_platform(config.Backend.Model)
    rng = np.random.default_rng(0)
    x = rng.standard_normal(args.size, dtype=np.float32)
    y = rng.standard_normal(args.size, dtype=np.float32)
    z = np.zeros_like(x)
    stream = rt.current_stream()

    start = time.perf_counter()
    vadd_kernel.compile(x, y, z, block, tile_length=args.tile)
    compile_s = time.perf_counter() - start

    def checked_and_unchecked(tile):
        # Launches alternate between the levels, so drift of the machine's speed hits both
        # alike; the medians are compared.
        times = {"off": [], "warn": []}
        report = None
        for _ in range(2 * args.repeat):
            for level in ("off", "warn"):
                z[:] = 0
                start = time.perf_counter()
                r = vadd_kernel[args.cores, stream](x, y, z, block, tile_length=tile, check=level)
                times[level].append(time.perf_counter() - start)
                if not np.array_equal(z, x + y):
                    raise SystemExit(f"FAIL: simulated result (check={level}) differs from numpy")
                report = r if level == "warn" else report
        return statistics.median(times["warn"]), statistics.median(times["off"]), report

    sim_s, unchecked_s, report = checked_and_unchecked(args.tile)
    small_s, small_unchecked_s, small = checked_and_unchecked(args.check_tile)

    np_repeat = max(args.repeat, 20)
    np_s = median_add_seconds(x, y, np_repeat)
    print(f"vadd {args.size} x float32 on {args.cores} cores, tile {args.tile} "
          f"({rt.transport()} simulator, {report.platform})")
    print(f"  compile (trace to IR, once):   {compile_s * 1e3:9.3f} ms")
    print(f"  simulator launch (median of {args.repeat}): {sim_s * 1e3:9.3f} ms wall, "
          f"{report.cycles} simulated cycles = {report.duration_us:.2f} us on the device, "
          f"{report.simulated_instructions} instructions")
    print(f"  numpy add (median of {np_repeat}):   {np_s * 1e3:9.3f} ms wall")
    print(f"  ratio simulator/numpy: {sim_s / np_s:.1f}x")
    for tile, checked, unchecked, rep in ((args.tile, sim_s, unchecked_s, report),
                                          (args.check_tile, small_s, small_unchecked_s, small)):
        print(f"  checking cost, tile {tile} ({rep.simulated_instructions} instructions): "
              f"check=off {unchecked * 1e3:.3f} ms, warn {checked * 1e3:.3f} ms "
              f"({rep.check.summary})")
        print(f"  ratio checked/unchecked (tile {tile}): {checked / unchecked:.2f}x")
    # The small tile's launch is instruction-bound: its rate is the simulator's per-instruction
    # cost (issue, queues, events), the figure a leaner instruction path raises.
    for label, seconds in (("check=off", small_unchecked_s), ("warn", small_s)):
        rate = small.simulated_instructions / seconds / 1e6
        print(f"  small-instruction rate (tile {args.check_tile}, {label}): {rate:.2f} M instr/s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
