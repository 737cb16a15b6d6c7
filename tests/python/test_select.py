"""asc.select in its tensor-tensor and tensor-scalar modes (ascendc-semantics.md 5.7): a bit per
lane picks src0 or src1 (or the scalar), iterations consume the bits in order, the vector mask
filters the result, both forms."""
import numpy as np
import pytest

import asc
import asc.lib.runtime as rt

N = 512
S = asc.SelMode


@asc.jit
def select_kernel(bits: asc.GlobalAddress, x: asc.GlobalAddress, y: asc.GlobalAddress,
                  out: asc.GlobalAddress, scalar, mode: asc.ConstExpr, form: asc.ConstExpr[str]):
    gb, gx, gy, go = asc.GlobalTensor(), asc.GlobalTensor(), asc.GlobalTensor(), asc.GlobalTensor()
    gb.set_global_buffer(bits)
    gx.set_global_buffer(x)
    gy.set_global_buffer(y)
    go.set_global_buffer(out)
    sel = asc.LocalTensor(asc.uint8, asc.TPosition.VECIN, 0, 64)
    a = asc.LocalTensor(x.dtype, asc.TPosition.VECIN, 1024, 512)
    b = asc.LocalTensor(x.dtype, asc.TPosition.VECIN, 4096, 512)
    d = asc.LocalTensor(x.dtype, asc.TPosition.VECOUT, 8192, 512)
    asc.data_copy(sel, gb, 64)
    asc.data_copy(a, gx, 512)
    asc.data_copy(b, gy, 512)
    asc.data_copy(d, go, 512)
    asc.set_flag(asc.HardEvent.MTE2_V, 0)
    asc.wait_flag(asc.HardEvent.MTE2_V, 0)
    other = b if mode == S.VSEL_TENSOR_TENSOR_MODE else scalar
    if form == "count":
        asc.select(d, sel, a, other, mode, 300)
    elif form == "repeat":
        # Two iterations, lanes 0..39 of each: iteration r takes bits r * lanes ...
        asc.select(d, sel, a, other, mode, 40, 2, asc.BinaryRepeatParams())
    elif form == "strided":
        # dst blocks 2 apart and iterations 16 blocks apart; src1 iterations 4 blocks apart.
        asc.select(d, sel, a, other, mode, 40, 2, asc.BinaryRepeatParams(2, 1, 1, 16, 8, 4))
    else:
        # Counter mode: 150 elements over as many iterations as they need.
        asc.set_mask_count()
        asc.set_vector_mask(150, dtype=x.dtype, mode=asc.MaskMode.COUNTER)
        asc.select(d, sel, a, other, mode, 150, 1, asc.BinaryRepeatParams(), is_set_mask=False)
        asc.set_mask_norm()
        asc.reset_mask()
    asc.set_flag(asc.HardEvent.V_MTE3, 0)
    asc.wait_flag(asc.HardEvent.V_MTE3, 0)
    asc.data_copy(go, d, 512)


def run(dtype, mode, form):
    rng = np.random.default_rng(4)
    bits = rng.integers(0, 256, 64).astype(np.uint8)
    x = rng.uniform(-9, 9, N).astype(dtype)
    y = rng.uniform(-9, 9, N).astype(dtype)
    out = np.full(N, 42, dtype=dtype)
    select_kernel[1, rt.current_stream()](bits, x, y, out, 0.5, mode, form)
    picks = np.unpackbits(bits, bitorder="little").astype(bool)
    other = y if mode == S.VSEL_TENSOR_TENSOR_MODE else np.full(N, 0.5, dtype=dtype)
    return out, picks, x, other


@pytest.mark.parametrize("dtype", ["float16", "float32"])
@pytest.mark.parametrize("mode", [S.VSEL_TENSOR_TENSOR_MODE, S.VSEL_TENSOR_SCALAR_MODE])
def test_select_count_form(device, dtype, mode):
    out, picks, x, other = run(dtype, mode, "count")
    want = np.full(N, 42, dtype=dtype)
    want[:300] = np.where(picks[:300], x[:300], other[:300])
    np.testing.assert_array_equal(out, want)


@pytest.mark.parametrize("dtype", ["float16", "float32"])
@pytest.mark.parametrize("mode", [S.VSEL_TENSOR_TENSOR_MODE, S.VSEL_TENSOR_SCALAR_MODE])
def test_select_repeat_form_consumes_bits_per_iteration(device, dtype, mode):
    out, picks, x, other = run(dtype, mode, "repeat")
    lanes = 256 // np.dtype(dtype).itemsize
    want = np.full(N, 42, dtype=dtype)
    for r in range(2):
        for e in range(40):
            i = r * lanes + e
            want[i] = x[i] if picks[i] else other[i]
    np.testing.assert_array_equal(out, want)


def _strided(dtype, blk, rep):
    """Index of lane (r, e) in operand k (0 dst, 1 src0, 2 src1), strides in blocks."""
    per_block = 32 // np.dtype(dtype).itemsize
    return lambda k, r, e: (r * rep[k] + (e // per_block) * blk[k]) * per_block + e % per_block


@pytest.mark.parametrize("dtype", ["float16", "float32"])
@pytest.mark.parametrize("mode", [S.VSEL_TENSOR_TENSOR_MODE, S.VSEL_TENSOR_SCALAR_MODE])
def test_select_repeat_form_with_strides(device, dtype, mode):
    out, picks, x, other = run(dtype, mode, "strided")
    lanes = 256 // np.dtype(dtype).itemsize
    index = _strided(dtype, (2, 1, 1), (16, 8, 4))
    want = np.full(N, 42, dtype=dtype)
    for r in range(2):
        for e in range(40):
            # The selection bits do not follow the strides: iteration r takes bits r * lanes.
            bit = r * lanes + e
            o = other[index(2, r, e)] if mode == S.VSEL_TENSOR_TENSOR_MODE else other[0]
            want[index(0, r, e)] = x[index(1, r, e)] if picks[bit] else o
    np.testing.assert_array_equal(out, want)


@pytest.mark.parametrize("dtype", ["float16", "float32"])
def test_select_counter_mode(device, dtype):
    out, picks, x, other = run(dtype, S.VSEL_TENSOR_TENSOR_MODE, "counter")
    want = np.full(N, 42, dtype=dtype)
    want[:150] = np.where(picks[:150], x[:150], other[:150])
    np.testing.assert_array_equal(out, want)

