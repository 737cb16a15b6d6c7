"""Runs a fixed set of kernels and prints, as JSON, a digest of every output, its cycle count and
the hash of the resolved config it ran on.
Used by test_daemon.py in a subprocess (remote transport) and in-process (embedded)."""
import hashlib
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "clients", "python"))
sys.path.insert(0, os.path.join(HERE, "..", "..", "examples"))
sys.path.insert(0, HERE)

import numpy as np  # noqa: E402

import asc.lib.runtime as rt  # noqa: E402
from kernels import elementwise_kernel, run_vadd  # noqa: E402


def run_all():
    results = {}
    rng = np.random.default_rng(11)
    for dtype, cores in (("float16", 8), ("float32", 48), ("int32", 2)):
        n = cores * 1024
        x = rng.uniform(-100, 100, n).astype(dtype)
        y = rng.uniform(-100, 100, n).astype(dtype)
        z, report = run_vadd(x, y, cores)
        results[f"vadd-{dtype}-{cores}"] = {"sha": hashlib.sha256(z.tobytes()).hexdigest(),
                                           "cycles": report.cycles,
                                           "config_hash": report.config_hash}
    for op in ("mul", "exp", "adds"):
        x = rng.uniform(0.5, 2, 4 * 512).astype(np.float16)
        y = rng.uniform(0.5, 2, 4 * 512).astype(np.float16)
        z = np.zeros_like(x)
        report = elementwise_kernel[4, rt.current_stream()](x, y, z, 512, 1.5, tile=256, op=op)
        results[f"{op}-float16-4"] = {"sha": hashlib.sha256(z.tobytes()).hexdigest(),
                                      "cycles": report.cycles,
                                      "config_hash": report.config_hash}
    return results


if __name__ == "__main__":
    import asc.runtime.config as config
    config.set_platform(config.Backend.Model)
    out = run_all()
    out["_transport"] = rt.transport()
    print(json.dumps(out))
