"""asc.adv.softmax_flash_v2 (asc-api.md 10.5) as CANN's A2 sequence: a first call and an update
with the state tensors as inputs and outputs, for float32, float16 and float16 with a float
state (the attention example's types), the shape from a SoftMaxShapeInfo or the tensor's
ShapeInfo, the tiling checked or taken as given, and the errors."""
import numpy as np
import pytest

import asc
import asc.lib.runtime as rt
from asc.codegen.errors import CodegenError
from adv_kernels import assert_clean
from softmax_kernels import flash_kernel

KINDS = [(np.float32, np.float32), (np.float16, np.float16), (np.float16, np.float32)]


def reference(x, x2):
    x, x2 = x.astype(np.float64), x2.astype(np.float64)
    m1 = x.max(axis=1, keepdims=True)
    d1 = np.exp(x - m1)
    s1 = d1.sum(axis=1, keepdims=True)
    m2 = np.maximum(m1, x2.max(axis=1, keepdims=True))
    d2 = np.exp(x2 - m2)
    e = np.exp(m1 - m2)
    return d1, d2, e * s1 + d2.sum(axis=1, keepdims=True), m2, e


def run(rows, cols, dtype, state, tmp_bytes=0, by_shape_info=False, tiling=None, config=None):
    rng = np.random.default_rng(rows * cols)
    x = rng.uniform(-4, 4, (rows, cols)).astype(dtype)
    x2 = rng.uniform(-4, 6, (rows, cols)).astype(dtype)
    y, y2 = np.zeros_like(x), np.zeros_like(x)
    s = np.zeros((rows, 32 // np.dtype(state).itemsize), state)
    m = np.zeros_like(s)
    e = np.zeros((rows, 32 // np.dtype(dtype).itemsize), dtype)
    report = flash_kernel[1, rt.current_stream()](
        x, x2, y, y2, s, m, e, rows, cols, tmp_bytes, by_shape_info,
        tiling if tiling is not None else asc.adv.SoftmaxTiling(), config)
    assert_clean(report)
    return (x, x2), (y, y2, s, m, e), report


def check(inputs, outputs, dtype, state):
    d1, d2, s, m, e = reference(*inputs)
    y, y2, gs, gm, ge = outputs
    atol = 1e-6 if dtype == np.float32 else 5e-4  # half: half an ULP of 1
    np.testing.assert_allclose(y, d1, atol=atol, rtol=0)
    np.testing.assert_allclose(y2, d2, atol=atol, rtol=0)
    np.testing.assert_allclose(ge, np.repeat(e, ge.shape[1], 1), atol=atol, rtol=0)
    np.testing.assert_allclose(gs, np.repeat(s, gs.shape[1], 1),
                               rtol=1e-6 if state == np.float32 else 1e-3)
    np.testing.assert_array_equal(gm, np.repeat(m.astype(state), gm.shape[1], 1))


@pytest.mark.parametrize("dtype, state", KINDS)
@pytest.mark.parametrize("rows, cols, tmp_bytes", [(8, 64, 0), (8, 512, 0), (16, 128, 0),
                                                   (3, 256, 32768)])
def test_two_tiles_against_float64(dtype, state, rows, cols, tmp_bytes):
    inputs, outputs, _ = run(rows, cols, dtype, state, tmp_bytes)
    check(inputs, outputs, dtype, state)


@pytest.mark.parametrize("dtype, state", KINDS)
def test_shape_info_gives_the_shape(dtype, state):
    a = run(8, 128, dtype, state)
    b = run(8, 128, dtype, state, by_shape_info=True)
    for got, want in zip(b[1], a[1]):
        np.testing.assert_array_equal(got, want)


def host_tiling(rows, cols, split, state_k):
    return asc.adv.SoftmaxTiling(
        src_m=rows, src_k=cols, src_size=rows * cols, out_max_m=rows, out_max_k=state_k,
        out_max_size=rows * state_k, split_m=split, split_k=cols, split_size=split * cols,
        reduce_m=split, reduce_k=state_k, reduce_size=split * state_k, range_m=rows // split,
        tail_m=rows % split, tail_split_size=rows % split * cols,
        tail_reduce_size=rows % split * state_k)


def test_unchecked_tiling_is_taken_as_given():
    """SoftmaxConfig(False, ...): the host tiling decides the passes, as for the attention
    example's full tiles; checked, a tiling for another shape is recomputed."""
    cfg = asc.adv.SoftmaxConfig(False, 16, 128)
    given = run(16, 128, np.float16, np.float32, tmp_bytes=32768,
                tiling=host_tiling(16, 128, 4, 8), config=cfg)
    check(*given[:2], np.float16, np.float32)
    own = run(16, 128, np.float16, np.float32)
    np.testing.assert_array_equal(given[1][1], own[1][1])
    v = [r[2].cores[0].pipes["V"].instructions for r in (given, own)]
    assert v[0] > v[1]
    stale = run(16, 128, np.float16, np.float32, tiling=host_tiling(8, 128, 4, 8))
    assert stale[2].cores[0].pipes["V"].instructions == v[1]


def test_config_is_compile_time_and_checked():
    with pytest.raises(TypeError, match="check_tiling must be a compile-time bool"):
        asc.adv.SoftmaxConfig(1)
    assert asc.adv.SoftmaxConfig(False, 8, 512) == asc.adv.SoftmaxConfig(False, 8, 512)
    assert int(asc.SoftmaxMode.SOFTMAX_OUTPUT_WITHOUT_BRC) == 1


@asc.jit
def bad_flash_kernel(x: asc.GlobalAddress, what: asc.ConstExpr[str]):
    pipe = asc.TPipe()
    buf = asc.TBuf(asc.TPosition.VECCALC)
    pipe.init_buffer(buf, 16384)
    src = buf.get(asc.float16, 1024)
    state = buf.get_with_offset(128, 4096, asc.float32)
    other = buf.get_with_offset(128, 8192, asc.float16)
    src.set_shape_info(asc.ShapeInfo(asc.array(asc.int32, (8, 128))))
    config = None
    if what == "mode":
        config = asc.adv.SoftmaxConfig(mode=asc.SoftmaxMode.SOFTMAX_OUTPUT_WITHOUT_BRC)
    if what == "states":
        asc.adv.softmax_flash_v2(src, state, other, src, src, state, state,
                                 asc.adv.SoftmaxTiling())
    else:
        asc.adv.softmax_flash_v2(src, state, state, src, src, state, state,
                                 asc.adv.SoftmaxTiling(), config=config)


@pytest.mark.parametrize("what, match", [
    ("mode", "not supported by aicore-sim yet"),
    ("states", "must share one dtype"),
])
def test_errors_at_the_call(what, match):
    with pytest.raises(CodegenError, match=match):
        bad_flash_kernel[1, rt.current_stream()](np.zeros(16, np.float16), what)
