"""asc.adv.softmax (asc-api.md 6.6) as CANN's A2 sequence: every reduction branch of the row
length, float32 / float16 / float16 with float state, in place, tails of rows, the tiling
recomputed from the shape info or taken from a matching host tiling, and the errors."""
import numpy as np
import pytest

import asc
import asc.lib.runtime as rt
from asc.codegen.errors import CodegenError
from adv_kernels import assert_clean
from softmax_kernels import softmax_kernel


def reference(x):
    x = x.astype(np.float64)
    mx = x.max(axis=1, keepdims=True)
    e = np.exp(x - mx)
    s = e.sum(axis=1, keepdims=True)
    return e / s, s, mx


def run(x, state_dtype=None, tmp_bytes=0, in_place=False, tiling=None, basic_block=False):
    rows, cols = x.shape
    state_dtype = state_dtype or x.dtype
    per_row = 32 // np.dtype(state_dtype).itemsize
    y = np.zeros_like(x)
    s = np.zeros((rows, per_row), state_dtype)
    m = np.zeros((rows, per_row), state_dtype)
    report = softmax_kernel[1, rt.current_stream()](
        x, y, s, m, rows, cols, tmp_bytes, in_place, tiling is not None,
        tiling if tiling is not None else asc.adv.SoftmaxTiling(), basic_block)
    assert_clean(report)
    return y, s, m, report


def check(x, y, s, m, atol, state_rtol):
    want, want_s, want_m = reference(x)
    np.testing.assert_allclose(y.astype(np.float64), want, atol=atol, rtol=0)
    # Every value of a row's state block is the row's value.
    np.testing.assert_allclose(s.astype(np.float64), np.repeat(want_s, s.shape[1], 1),
                               rtol=state_rtol)
    np.testing.assert_array_equal(m.astype(np.float64),
                                  np.repeat(want_m.astype(m.dtype), m.shape[1], 1))


def rows(shape, dtype, seed=0):
    return np.random.default_rng(seed).uniform(-5, 5, shape).astype(dtype)


# Row lengths through every branch of the library's reductions: under one repeat, one repeat
# (and a tail), two, three (the per-row fold), [192, 512) (block-stride sub/div end), from 512
# (block reductions), past 2040 (the tail one row at a time).
LENGTHS = [24, 64, 72, 128, 136, 200, 256, 512, 1024, 2056]


@pytest.mark.parametrize("nrows, cols", [(r, c) for c in LENGTHS for r in (1, 3, 12)
                                         if r * c <= 12 * 1024])
def test_float32_against_float64(nrows, cols):
    """pyasc's test tolerance is atol 1/(1024*1024); the sequence is far inside it."""
    x = rows((nrows, cols), np.float32, cols)
    y, s, m, _ = run(x)
    check(x, y, s, m, atol=1 / (1024 * 1024), state_rtol=1e-6)


def test_pyasc_test_in_place():
    """pyasc's own test: dst is src, an all-zero SoftmaxTiling built in the kernel."""
    x = rows((16, 64), np.float32, 7)
    y, s, m, _ = run(x, in_place=True)
    check(x, y, s, m, atol=1 / (1024 * 1024), state_rtol=1e-6)


@pytest.mark.parametrize("cols", [32, 64, 144, 512])
@pytest.mark.parametrize("state", [np.float16, np.float32])
def test_float16(cols, state):
    """Half in, float inside, one rounding out (CAST_ROUND); a half state is 16 a row."""
    x = rows((8, cols), np.float16, cols)
    y, s, m, _ = run(x, state_dtype=state)
    check(x, y, s, m, atol=1e-3, state_rtol=1e-3)


def test_small_temp_splits_rows_into_passes():
    """A temp of 3 rows' worth (3 * (8 + 64) floats): 17 rows run as 5 passes of 3 and a tail
    of 2, with the same results as one pass."""
    x = rows((17, 256), np.float32, 3)
    one = run(x)
    split = run(x, tmp_bytes=3 * 72 * 4)
    for a, b in zip(one[:3], split[:3]):
        np.testing.assert_array_equal(a, b)
    v = [r[3].cores[0].pipes["V"].instructions for r in (one, split)]
    assert v[1] > v[0]


def test_matching_host_tiling_is_used():
    """A tiling whose src_m/src_k match the shape decides the split: 2 rows a pass here,
    against 16 from the device's own computation."""
    x = rows((16, 128), np.float32, 5)
    tiling = asc.adv.SoftmaxTiling(src_m=16, src_k=128, src_size=2048, out_max_m=16,
                                   out_max_k=8, out_max_size=128, split_m=2, split_k=128,
                                   split_size=256, reduce_m=2, reduce_k=8, reduce_size=16,
                                   range_m=8, tail_m=0, tail_split_size=0, tail_reduce_size=0)
    zero = run(x)
    host = run(x, tiling=tiling)
    np.testing.assert_array_equal(zero[0], host[0])
    v = [r[3].cores[0].pipes["V"].instructions for r in (zero, host)]
    assert v[1] > v[0]
    stale = asc.adv.SoftmaxTiling(src_m=8, src_k=128, split_m=1, range_m=8)
    again = run(x, tiling=stale)  # made for another shape: recomputed, one pass
    assert again[3].cores[0].pipes["V"].instructions == v[0]


def test_basic_block_same_results():
    x = rows((16, 128), np.float32, 9)
    a = run(x)
    b = run(x, basic_block=True)
    np.testing.assert_array_equal(a[0], b[0])


def test_user_temp_same_as_scratch():
    x = rows((8, 512), np.float16, 11)
    a = run(x, state_dtype=np.float32)
    b = run(x, state_dtype=np.float32, tmp_bytes=8 * (8 + 64 + 512) * 4)
    np.testing.assert_array_equal(a[0], b[0])


def test_large_inputs_do_not_overflow():
    x = np.full((8, 64), 80.0, np.float32)
    x[:, 0] = 88.0
    y, s, m, _ = run(x)
    check(x, y, s, m, atol=1e-6, state_rtol=1e-6)


@pytest.mark.parametrize("kwargs, match", [
    (dict(tmp_bytes=128), "needs at least 288"),
])
def test_temp_too_small(kwargs, match):
    with pytest.raises(CodegenError, match=match):
        run(rows((8, 64), np.float32), **kwargs)


@asc.jit
def bad_kernel(x: asc.GlobalAddress, what: asc.ConstExpr[str]):
    pipe = asc.TPipe()
    buf = asc.TBuf(asc.TPosition.VECCALC)
    pipe.init_buffer(buf, 8192)
    src = buf.get(asc.float32, 1024)
    state = buf.get_with_offset(64, 4096, asc.float32)
    cols = 64
    if what == "cols":
        cols = 12
    if what != "no_shape":
        src.set_shape_info(asc.ShapeInfo(asc.array(asc.int32, (16, cols))))
    if what == "state":
        state = buf.get_with_offset(128, 4096, asc.float16)
    asc.adv.softmax(src, state, state, src, asc.adv.SoftmaxTiling(),
                    data_format_nz=(what == "nz"))


@pytest.mark.parametrize("what, match", [
    ("no_shape", "src has no shape info"),
    ("cols", "multiple of 8 float32"),
    ("state", "sum and max must both be float32"),
    ("nz", "not supported by aicore-sim yet"),
])
def test_errors_at_the_call(what, match):
    with pytest.raises(CodegenError, match=match):
        bad_kernel[1, rt.current_stream()](np.zeros(1024, np.float32), what)
