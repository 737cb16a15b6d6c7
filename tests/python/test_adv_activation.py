"""asc.adv's activations (asc-api.md 10.5): swiglu as the library's sequence, against float64,
for float32 and float16, with tails, the temp buffer's chunking and the framework's scratch
(activation.py)."""
import numpy as np
import pytest

import asc.lib.runtime as rt
from adv_kernels import adv_binary_kernel, assert_clean


def run(x0, x1, count=None, beta=1.0, tmp_bytes=0):
    y = np.zeros_like(x0)
    count = x0.size if count is None else count
    report = adv_binary_kernel[1, rt.current_stream()](x0, x1, y, x0.size, "swiglu", count, beta,
                                                       tmp_bytes)
    assert_clean(report)
    return y, report


def want(x0, x1, beta):
    up, gate = x0.astype(np.float64), x1.astype(np.float64)
    return up * gate / (1 + np.exp(-beta * gate))


@pytest.mark.parametrize("dtype, atol", [(np.float32, 1e-6), (np.float16, 4e-3)])
@pytest.mark.parametrize("n, count, tmp_bytes", [(2048, 2048, 0), (1024, 1000, 1536),
                                                 (1024, 77, 0)])
def test_matches_float64(dtype, atol, n, count, tmp_bytes):
    """The swiglu example's inputs in [-2, 2] (it needs atol 1e-3 in float32)."""
    rng = np.random.default_rng(n + count)
    up = rng.uniform(-2, 2, n).astype(dtype)
    gate = rng.uniform(-2, 2, n).astype(dtype)
    y, _ = run(up, gate, count, 1.0, tmp_bytes)
    np.testing.assert_allclose(y[:count].astype(np.float64), want(up, gate, 1.0)[:count],
                               atol=atol, rtol=atol)
    assert (y[count:] == 0).all()


def test_beta():
    rng = np.random.default_rng(2)
    up = rng.uniform(-2, 2, 256).astype(np.float32)
    gate = rng.uniform(-2, 2, 256).astype(np.float32)
    y, _ = run(up, gate, beta=1.702)
    np.testing.assert_allclose(y, want(up, gate, 1.702), atol=1e-6)


def test_half_chunks_follow_the_temp_buffer():
    """A half chunk: 3 casts, muls, exp, adds, div, mul, each with a PIPE_V barrier; the temp
    holds three float areas of the chunk."""
    x = np.ones(1024, np.float16)
    v = {t: run(x, x, 1024, 1.0, t)[1].cores[0].pipes["V"].instructions for t in (3072, 12288)}
    assert v[3072] - v[12288] == 3 * 16  # 256 halves a chunk: 4 chunks against 1
