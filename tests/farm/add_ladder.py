"""The Add ladder of make calibrate (bench/calibrate.py, hardware-910b.md section 7) at a reduced
size, for make farm: its five points as launches whose cycles the farm's baseline holds. 48 cores
x 16384 x 2 fp16 elements instead of 8192 x 8192, so the suite takes seconds; each point's sums
are checked on a sample. Exits non-zero on a wrong sum."""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "clients", "python"))
sys.path.insert(0, os.path.join(HERE, "..", "..", "bench"))

import numpy as np  # noqa: E402

import asc.lib.runtime as rt  # noqa: E402
import asc.runtime.config as config  # noqa: E402
from calibrate import CORES, LADDER, add_ladder  # noqa: E402

SIZE = CORES * 16384 * 2


def main() -> int:
    config.set_platform(config.Backend.Model, config.Platform.Ascend910B1)
    rng = np.random.default_rng(2024)
    x = rng.uniform(-100, 100, SIZE).astype(np.float16)
    y = rng.uniform(-100, 100, SIZE).astype(np.float16)
    sample = rng.integers(0, SIZE, 4096)
    expected = (x[sample].astype(np.float32) + y[sample].astype(np.float32)).astype(np.float16)
    for name, tile, buffers, bypass, shift, _ in LADDER:
        z = np.zeros_like(x)
        report = add_ladder[CORES, rt.current_stream()](x, y, z, SIZE, tile=tile,
                                                        buffers=buffers, bypass_l2=bypass,
                                                        shift=shift)
        if not np.array_equal(z[sample], expected):
            print(f"{name}: FAIL, sampled sums differ")
            return 1
        print(f"{name}: {report.cycles} cycles")
    return 0


if __name__ == "__main__":
    sys.exit(main())
