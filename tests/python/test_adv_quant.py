"""asc.adv.quant (asc-api.md 6.5): pyasc's own test case, half arithmetic for both source types,
saturation, chunking by the temp buffer and by QuantConfig, the framework's scratch, and the
errors, against a numpy model of the library's sequence (quant.py)."""
import numpy as np
import pytest

import asc
import asc.lib.runtime as rt
from asc.codegen.errors import CodegenError
from adv_kernels import adv_kernel, assert_clean


def model(x, scale, offset, count):
    """The library's arithmetic: source to half, * half(scale), + half(offset), each rounded to
    half, then to int8 nearest-even with saturation."""
    h = x[:count].astype(np.float16)
    t = (h * np.float16(np.float32(scale))).astype(np.float16)
    t = (t + np.float16(np.float32(offset))).astype(np.float16)
    return np.clip(np.rint(t.astype(np.float32)), -128, 127).astype(np.int8)


def run(x, scale, offset, count=None, tmp_bytes=512, config=None, reserve=0, **options):
    n = x.size
    y = np.full(n, 99, np.int8)
    report = adv_kernel[1, rt.current_stream()](x, y, n, "quant", count, scale, offset, tmp_bytes,
                                                config, reserve, False, **options)
    return y, report


@pytest.mark.parametrize("dtype", [np.float16, np.float32])
def test_pyasc_case(dtype):
    """pyasc's test: 32 elements in [-4, 4), scale 2.0, offset 0.9, exact against
    round(src * 2 + 0.9)."""
    rng = np.random.default_rng(3)
    x = rng.uniform(-4, 4, 32).astype(dtype)
    y, report = run(x, 2.0, 0.9, 32, tmp_bytes=512)
    want = np.rint(x.astype(np.float64) * 2 + 0.9).astype(np.int8)
    np.testing.assert_array_equal(y, want)
    assert_clean(report)


@pytest.mark.parametrize("dtype", [np.float16, np.float32])
@pytest.mark.parametrize("n, count, tmp_bytes", [
    (1024, 1024, 512),    # 4 chunks of 256 halves
    (1024, 1000, 512),    # a tail of 232
    (2048, 2048, 0),      # the framework's scratch: one chunk
    (1024, 77, 96),       # chunks of 32 (96 bytes hold 48 halves): 2 full and a tail of 13
])
def test_matches_model(dtype, n, count, tmp_bytes):
    rng = np.random.default_rng(n + count)
    x = rng.uniform(-70, 70, n).astype(dtype)
    y, report = run(x, 1.7, -0.3, count, tmp_bytes)
    np.testing.assert_array_equal(y[:count], model(x, 1.7, -0.3, count))
    assert (y[count:] == 0).all() or count == n  # beyond count: untouched UB (zeros)
    assert_clean(report)


def test_saturates_and_rounds_half_even():
    x = np.array([1000, -1000, 127.4, -128.6, 0.5, 1.5, 2.5, -0.5] + [0] * 24, np.float16)
    y, _ = run(x, 1.0, 0.0, 32)
    assert list(y[:8]) == [127, -128, 127, -128, 0, 2, 2, 0]


def test_float_source_goes_through_half():
    """A float input the half conversion moves across a rounding boundary: the chip's result,
    not float arithmetic's."""
    x = np.zeros(32, np.float32)
    x[0] = 2.5004  # half(2.5004) = 2.5 -> rint 2; float arithmetic would give 3
    y, _ = run(x, 1.0, 0.0, 32)
    assert y[0] == 2


def test_chunks_follow_the_temp_buffer():
    """Each chunk is Muls, Adds and Cast, each followed by a PIPE_V barrier (plus a Cast and its
    barrier for a float source): the temp buffer's size sets how many."""
    x = np.ones(1024, np.float16)
    counts = {}
    for tmp in (512, 2048):
        _, report = run(x, 1.0, 0.0, 1024, tmp)
        counts[tmp] = report.cores[0].pipes["V"].instructions
    # 512 bytes: 4 chunks of 256 halves; 2048 bytes: one chunk
    assert counts[512] - counts[2048] == 3 * 6


def test_config_fixes_count_and_chunk():
    """QuantConfig(calc_count, 0, 0, work_local_size): the constants replace the call's count and
    the temp buffer's size."""
    rng = np.random.default_rng(5)
    x = rng.uniform(-50, 50, 256).astype(np.float16)
    config = asc.adv.QuantConfig(128, 0, 0, 128)  # 128 elements, chunks of 64
    y, report = run(x, 0.5, 1.0, 256, 512, config)
    np.testing.assert_array_equal(y[:128], model(x, 0.5, 1.0, 128))
    assert (y[128:] == 0).all()
    _, plain = run(x, 0.5, 1.0, 128, 512)
    assert report.cores[0].pipes["V"].instructions == plain.cores[0].pipes["V"].instructions + 6


def test_scratch_too_small_names_the_bytes():
    """No temp buffer and the UB all handed out: a fault at the call saying what is needed."""
    x = np.ones(1024, np.float16)
    ub = 192 * 1024
    with pytest.raises(Exception) as err:
        run(x, 1.0, 0.0, 1024, 0, None, ub - 1024 * 2 - 1024 - 32)
    text = str(err.value)
    assert "scratch needs 64 bytes of UB" in text and "temp buffer" in text


@pytest.mark.parametrize("bad, message", [
    (dict(tmp_bytes=32), "needs at least 64"),
])
def test_trace_time_errors(bad, message):
    x = np.ones(64, np.float16)
    with pytest.raises(CodegenError, match=message):
        run(x, 1.0, 0.0, 64, **bad)


def test_config_type_checked():
    with pytest.raises(TypeError, match="work_local_size must be a compile-time int"):
        asc.adv.QuantConfig(0, 0, 0, -1)
