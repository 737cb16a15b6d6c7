"""asc.adv's element-wise math (asc-api.md 6.7, 10.5): tanh as the library's sequence, against
float64, for float32 and float16, in place and not, with tails, the temp buffer's chunking and
the framework's scratch (math.py)."""
import numpy as np
import pytest

import asc.lib.runtime as rt
from asc.codegen.errors import CodegenError
from adv_kernels import adv_kernel, assert_clean, ulp_error


def run(x, count=None, tmp_bytes=0, in_place=False):
    y = np.zeros_like(x)
    count = x.size if count is None else count
    report = adv_kernel[1, rt.current_stream()](x, y, x.size, "tanh", count, 0.0, 0.0, tmp_bytes,
                                                None, 0, in_place)
    assert_clean(report)
    return y, report


def test_gelu_range_float32_in_place():
    """The gelu example's use: float32, in place, arguments within about +-2.5, atol 1e-3 needed;
    the sequence reaches ~1e-7 absolute."""
    x = np.linspace(-2.5, 2.5, 2048).astype(np.float32)
    y, _ = run(x, 2048, in_place=True)
    err = np.abs(y.astype(np.float64) - np.tanh(x.astype(np.float64)))
    assert err.max() < 1e-6


@pytest.mark.parametrize("dtype, lo, hi, ulps, atol", [
    (np.float32, 0.5, 9, 2.5, 1.5e-7),      # measured 2.24 ULP
    (np.float32, 1e-4, 0.5, None, 1e-7),    # e^2x - 1 cancels: thousands of ULP, 6e-8 absolute
    (np.float16, 1e-4, 9, 1, 5e-4),         # measured 0.5 ULP: float inside, one rounding
])
def test_accuracy(dtype, lo, hi, ulps, atol):
    """What the formula (e^2x - 1) / (e^2x + 1) reaches against float64 (docs/adv.md)."""
    x = np.geomspace(lo, hi, 2048)
    x = np.concatenate([x, -x]).astype(dtype)
    y, _ = run(x)
    want = np.tanh(x.astype(np.float64))
    assert np.abs(y.astype(np.float64) - want).max() <= atol
    if ulps is not None:
        assert ulp_error(y, want, dtype).max() <= ulps


def test_saturates_and_keeps_sign():
    x = np.array([-100, -9, 9, 100, 0, -0.0] + [1] * 58, np.float32)
    y, _ = run(x)
    assert list(y[:5]) == [-1, -1, 1, 1, 0]


@pytest.mark.parametrize("dtype", [np.float16, np.float32])
@pytest.mark.parametrize("n, count, tmp_bytes", [(1024, 1000, 1024), (1024, 77, 256),
                                                 (2048, 2048, 0)])
def test_tails_and_chunks(dtype, n, count, tmp_bytes):
    rng = np.random.default_rng(count)
    x = rng.uniform(-3, 3, n).astype(dtype)
    y, _ = run(x, count, tmp_bytes)
    tol = 2e-3 if dtype == np.float16 else 1e-6
    np.testing.assert_allclose(y[:count], np.tanh(x[:count].astype(np.float64)), atol=tol)
    assert (y[count:] == 0).all()


def test_chunks_follow_the_temp_buffer():
    """A chunk is 7 instructions and 7 barriers (half: 2 casts and 2 barriers more); a float
    chunk is the temp's floats rounded down to 32."""
    x = np.ones(1024, np.float32)
    v = {t: run(x, 1024, t)[1].cores[0].pipes["V"].instructions for t in (1024, 4096)}
    assert v[1024] - v[4096] == 3 * 14  # 256 floats a chunk: 4 chunks against 1


def test_temp_too_small():
    x = np.ones(64, np.float16)
    with pytest.raises(CodegenError, match="needs at least 256"):
        run(x, 64, 128)
