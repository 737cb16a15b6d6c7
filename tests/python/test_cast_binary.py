"""mul_cast, add_relu_cast and sub_relu_cast (asc-api.md 4.5): the binary op rounded once in the
source type, then converted into dst's narrower type as cast does (ascendc-semantics.md 5.2):
to int8/uint8 nearest-even with saturation, float -> half nearest-even. Iterations hold 256 bytes
of the source (the wider type); the mask counts its elements."""
import numpy as np
import pytest

import asc
import asc.lib.runtime as rt

N = 512
OPS = {"mul_cast": np.multiply, "add_relu_cast": np.add, "sub_relu_cast": np.subtract}
FNS = {name: getattr(asc, name) for name in OPS}
PAIRS = [("mul_cast", "float16", "int8"), ("mul_cast", "float16", "uint8"),
         ("add_relu_cast", "float16", "int8"), ("add_relu_cast", "float32", "float16"),
         ("add_relu_cast", "int16", "int8"), ("sub_relu_cast", "float16", "int8"),
         ("sub_relu_cast", "float32", "float16"), ("sub_relu_cast", "int16", "int8")]


@asc.jit
def kernel(x: asc.GlobalAddress, y: asc.GlobalAddress, out: asc.GlobalAddress,
           op: asc.ConstExpr[str], form: asc.ConstExpr[str], mask: asc.ConstExpr,
           repeat: asc.ConstExpr[int], strides: asc.ConstExpr):
    gx, gy, go = asc.GlobalTensor(), asc.GlobalTensor(), asc.GlobalTensor()
    gx.set_global_buffer(x)
    gy.set_global_buffer(y)
    go.set_global_buffer(out)
    a = asc.LocalTensor(x.dtype, asc.TPosition.VECIN, 0, N)
    b = asc.LocalTensor(x.dtype, asc.TPosition.VECIN, 4096, N)
    d = asc.LocalTensor(out.dtype, asc.TPosition.VECOUT, 8192, N)
    asc.data_copy(a, gx, N)
    asc.data_copy(b, gy, N)
    asc.data_copy(d, go, N)
    asc.set_flag(asc.HardEvent.MTE2_V, 0)
    asc.wait_flag(asc.HardEvent.MTE2_V, 0)
    fn = FNS[op]
    if form == "count":
        fn(d, a, b, mask)
    elif form == "counter":
        asc.set_mask_count()
        if op == "mul_cast":  # no is_set_mask: it loads its mask, here in counter mode
            fn(d, a, b, mask, 1, asc.BinaryRepeatParams(*strides))
        else:
            asc.set_vector_mask(mask, dtype=x.dtype, mode=asc.MaskMode.COUNTER)
            fn(d, a, b, 0, 1, asc.BinaryRepeatParams(*strides), is_set_mask=False)
        asc.set_mask_norm()
        asc.reset_mask()
    else:
        fn(d, a, b, mask, repeat, asc.BinaryRepeatParams(*strides))
    asc.set_flag(asc.HardEvent.V_MTE3, 0)
    asc.wait_flag(asc.HardEvent.V_MTE3, 0)
    asc.data_copy(go, d, N)


def _inputs(op, src, dst):
    rng = np.random.default_rng(5)
    if src == "int16":
        x = rng.integers(-200, 200, N).astype(np.int16)
        y = rng.integers(-200, 200, N).astype(np.int16)
        x[:4] = [32767, -32768, 100, 0]  # wraps before the relu: 32767 + y ...
    elif src == "float32":
        x = rng.uniform(-80000, 80000, N).astype(np.float32)  # beyond half's range: inf
        y = rng.uniform(-1000, 1000, N).astype(np.float32)
        x[:2] = [np.nan, 65519.0]
    else:
        x = rng.uniform(-30, 30, N).astype(np.float16)
        y = rng.uniform(-30, 30, N).astype(np.float16)
        x[:3] = [np.nan, 2.5, 0.5]  # NaN -> 0; ties round to even
        y[:3] = [1, 1, 1]
    return x, y


def _expect(op, x, y, dst):
    """The element result: op in the source type (one rounding, int16 wraps), relu, convert."""
    with np.errstate(over="ignore", invalid="ignore"):
        r = OPS[op](x, y).astype(x.dtype)
    if op != "mul_cast":
        r = np.where(np.isnan(r), r, np.maximum(r, 0)).astype(x.dtype) if r.dtype.kind == "f" \
            else np.maximum(r, 0)
    if dst == "float16":
        with np.errstate(over="ignore"):
            return r.astype(np.float16)
    info = np.iinfo(dst)
    v = np.rint(r.astype(np.float64)) if r.dtype.kind == "f" else r.astype(np.float64)
    v = np.where(np.isnan(v), 0, np.clip(v, info.min, info.max))
    return v.astype(dst)


@pytest.mark.parametrize("op,src,dst", PAIRS)
def test_count_form(device, op, src, dst):
    x, y = _inputs(op, src, dst)
    out = np.full(N, 7, dtype=dst)
    kernel[1, rt.current_stream()](x, y, out, op, "count", 300, 0, (1, 1, 1, 8, 8, 8))
    want = np.full(N, 7, dtype=dst)
    want[:300] = _expect(op, x[:300], y[:300], dst)
    np.testing.assert_array_equal(out, want)


def _lanes(src, dst, mask, repeat, strides, counter=None):
    """(src0 element, src1 element, dst element) of every active lane, in the geometry of
    asc-api.md 4.1 with the source's elements per iteration; strides are BinaryRepeatParams'
    (dst_blk, src0_blk, src1_blk, dst_rep, src0_rep, src1_rep)."""
    s, d = np.dtype(src).itemsize, np.dtype(dst).itemsize
    lanes = 256 // s
    out = []
    for r in range(repeat):
        for e in range(lanes):
            if counter is not None:
                on = r * lanes + e < counter
            elif isinstance(mask, list):
                on = (mask[e // 64] >> (e % 64)) & 1
            else:
                on = e < mask
            if not on:
                continue

            def at(blk, rep, size):
                per = 32 // size
                return (r * rep * 32 + e // per * blk * 32) // size + e % per
            out.append((at(strides[1], strides[4], s), at(strides[2], strides[5], s),
                        at(strides[0], strides[3], d)))
    return out


@pytest.mark.parametrize("op,src,dst", PAIRS)
@pytest.mark.parametrize("mask,strides", [
    (100, (1, 1, 1, 4, 8, 8)),                      # dense source, dst packed at half width
    ([0xFFFF_0000_0000_FFFF, 0x0F], (2, 1, 2, 8, 8, 16)),  # bit mask, non-default strides
])
def test_repeat_form(device, op, src, dst, mask, strides):
    x, y = _inputs(op, src, dst)
    out = np.full(N, 7, dtype=dst)
    kernel[1, rt.current_stream()](x, y, out, op, "repeat", mask, 2, strides)
    want = np.full(N, 7, dtype=dst)
    for i0, i1, di in _lanes(src, dst, mask, 2, strides):
        want[di] = _expect(op, x[i0:i0 + 1], y[i1:i1 + 1], dst)[0]
    np.testing.assert_array_equal(out, want)


@pytest.mark.parametrize("op,src,dst", [PAIRS[0], PAIRS[3], PAIRS[7]])
def test_counter_mode(device, op, src, dst):
    x, y = _inputs(op, src, dst)
    out = np.full(N, 7, dtype=dst)
    strides = (1, 1, 1, 8 * np.dtype(dst).itemsize // np.dtype(src).itemsize, 8, 8)
    kernel[1, rt.current_stream()](x, y, out, op, "counter", 200, 1, strides)
    want = np.full(N, 7, dtype=dst)
    want[:200] = _expect(op, x[:200], y[:200], dst)
    np.testing.assert_array_equal(out, want)


def test_a_pair_the_chip_lacks_is_a_type_error(device):
    with pytest.raises(Exception, match=r"mul_cast\(\): float32 -> int8 is not supported"):
        kernel[1, rt.current_stream()](np.zeros(N, np.float32), np.zeros(N, np.float32),
                                       np.zeros(N, np.int8), "mul_cast", "count", 64, 0,
                                       (1, 1, 1, 8, 8, 8))


@asc.jit
def axpy_kernel(x: asc.GlobalAddress, out: asc.GlobalAddress, scalar, form: asc.ConstExpr[str],
                mask: asc.ConstExpr, strides: asc.ConstExpr):
    gx, go = asc.GlobalTensor(), asc.GlobalTensor()
    gx.set_global_buffer(x)
    go.set_global_buffer(out)
    a = asc.LocalTensor(asc.float16, asc.TPosition.VECIN, 0, N)
    d = asc.LocalTensor(asc.float32, asc.TPosition.VECOUT, 4096, N)
    asc.data_copy(a, gx, N)
    asc.data_copy(d, go, N)
    asc.set_flag(asc.HardEvent.MTE2_V, 0)
    asc.wait_flag(asc.HardEvent.MTE2_V, 0)
    if form == "count":
        asc.axpy(d, a, scalar, mask)
    elif form == "counter":
        asc.set_mask_count()
        asc.set_vector_mask(mask, dtype=asc.float32, mode=asc.MaskMode.COUNTER)
        asc.axpy(d, a, scalar, 0, 1, asc.UnaryRepeatParams(*strides), is_set_mask=False)
        asc.set_mask_norm()
        asc.reset_mask()
    else:
        asc.axpy(d, a, scalar, mask, 2, asc.UnaryRepeatParams(*strides))
    asc.set_flag(asc.HardEvent.V_MTE3, 0)
    asc.wait_flag(asc.HardEvent.V_MTE3, 0)
    asc.data_copy(go, d, N)


def _axpy_inputs():
    rng = np.random.default_rng(7)
    x = rng.uniform(-100, 100, N).astype(np.float16)
    d = rng.uniform(-100, 100, N).astype(np.float32)
    return x, d


def _axpy(x, d, scalar):
    """half src widened exactly, the product and the sum each rounded to float."""
    return (x.astype(np.float32) * np.float32(scalar)).astype(np.float32) + d


@pytest.mark.parametrize("form,mask", [("count", 300), ("counter", 200)])
def test_axpy_mixed_half_into_float_dense(device, form, mask):
    x, d = _axpy_inputs()
    out = d.copy()
    axpy_kernel[1, rt.current_stream()](x, out, 0.3, form, mask, (1, 1, 8, 4))
    want = d.copy()
    want[:mask] = _axpy(x[:mask], d[:mask], 0.3)
    np.testing.assert_array_equal(out, want)


@pytest.mark.parametrize("mask,strides", [(50, (1, 1, 8, 4)), ([0xFFFF_0000_0F0F_00FF, 0], (2, 1, 16, 8))])
def test_axpy_mixed_repeat_form_has_64_lanes(device, mask, strides):
    """Iterations hold 64 lanes (the float dst's); src packs its halves, strides per operand:
    UnaryRepeatParams(dst_blk, src_blk, dst_rep, src_rep)."""
    x, d = _axpy_inputs()
    out = d.copy()
    axpy_kernel[1, rt.current_stream()](x, out, -1.7, "repeat", mask, strides)
    want = d.copy()
    for r in range(2):
        for e in range(64):
            on = (mask[e // 64] >> (e % 64)) & 1 if isinstance(mask, list) else e < mask
            if not on:
                continue
            si = (r * strides[3] * 32 + e // 16 * strides[1] * 32) // 2 + e % 16
            di = (r * strides[2] * 32 + e // 8 * strides[0] * 32) // 4 + e % 8
            want[di] = _axpy(x[si:si + 1], d[di:di + 1], -1.7)[0]
    np.testing.assert_array_equal(out, want)
