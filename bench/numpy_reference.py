"""numpy's time for the add a benchmark simulates, measured in the benchmark's own run, so that
the printed ratio compares like with like on a machine whose speed drifts."""
import statistics
import time

import numpy as np


def median_add_seconds(x, y, repeat):
    """Median wall seconds of `repeat` calls of np.add(x, y) into one preallocated output."""
    out = np.empty_like(x)
    samples = []
    for _ in range(repeat):
        start = time.perf_counter()
        np.add(x, y, out=out)
        samples.append(time.perf_counter() - start)
    return statistics.median(samples)
