"""Benchmark: the Add ladder's 48-core point (8192 x 8192 fp16, double buffer, hardware-910b.md
7), simulated, against numpy adding the same arrays, in the same run. Prints both wall times
(medians) and the ratio simulator/numpy, at the default check level and with checking off.
The launch's wall time includes copying the host arrays to device memory and back.

    python3 bench/add_48core.py [--size 67108864] [--repeat 3]
"""
import argparse
import os
import statistics
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "clients", "python"))
sys.path.insert(0, HERE)

import numpy as np  # noqa: E402

import asc.lib.runtime as rt  # noqa: E402
import asc.runtime.config as config  # noqa: E402
from calibrate import CORES, LADDER, add_ladder  # noqa: E402
from numpy_reference import median_add_seconds  # noqa: E402


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=8192 * 8192, help="fp16 elements per tensor")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    name, tile, buffers, bypass, shift, _ = LADDER[2]  # "+ double buffer (2 x 16 KB)"
    if args.size % tile:
        parser.error(f"--size must be a multiple of {tile}")

    config.set_platform(config.Backend.Model)
    rng = np.random.default_rng(7)
    x = rng.uniform(-100, 100, args.size).astype(np.float16)
    y = rng.uniform(-100, 100, args.size).astype(np.float16)
    z = np.zeros_like(x)
    stream = rt.current_stream()
    options = dict(tile=tile, buffers=buffers, bypass_l2=bypass, shift=shift)
    add_ladder.compile(x, y, z, args.size, **options)

    times = {"warn": [], "off": []}
    report = None
    for _ in range(args.repeat):
        for level in times:  # alternating, so drift of the machine's speed hits both alike
            start = time.perf_counter()
            report = add_ladder[CORES, stream](x, y, z, args.size, check=level, **options)
            times[level].append(time.perf_counter() - start)
    want = x + y
    if not np.array_equal(z, want):
        raise SystemExit("FAIL: the simulated sum differs from numpy's")
    numpy_repeat = max(5, args.repeat)
    numpy_s = median_add_seconds(x, y, numpy_repeat)
    print(f"Add ladder point '{name}': {args.size} fp16 elements on {CORES} vector cores "
          f"({rt.transport()} simulator), {report.cycles} cycles = {report.duration_us:.1f} us")
    print(f"  numpy add (median of {numpy_repeat}): {numpy_s * 1e3:9.1f} ms wall")
    for level, samples in times.items():
        sim_s = statistics.median(samples)
        print(f"  simulator, check={level} (median of {args.repeat}): {sim_s * 1e3:9.1f} ms wall, "
              f"ratio simulator/numpy {sim_s / numpy_s:.2f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
