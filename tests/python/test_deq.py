"""Dequantisation with DEQSCALE (asc-api.md 4.4-4.6, ascendc-semantics.md 5.2-5.3):
set_deq_scale in its three forms, add_deq_relu, cast int32 -> half and cast_deq, against a numpy
model of the arithmetic the model chose (docs/isa.md): one wide product, one rounding, the
fixpipe quant word's fields, and cast_deq's half-block layout."""
import struct

import numpy as np
import pytest

import asc
import asc.lib.runtime as rt
from asc.codegen.errors import CodegenError
from asc.runtime.errors import KernelWarning

N = 1024


@asc.jit
def deq_kernel(x: asc.GlobalAddress, y: asc.GlobalAddress, z: asc.GlobalAddress,
               op: asc.ConstExpr[str], form: asc.ConstExpr[str], scale: asc.ConstExpr,
               offset: asc.ConstExpr, sign: asc.ConstExpr, count: asc.ConstExpr[int],
               mask: asc.ConstExpr, repeat: asc.ConstExpr[int], strides: asc.ConstExpr):
    n = 1024
    gx, gy, gz = asc.GlobalTensor(), asc.GlobalTensor(), asc.GlobalTensor()
    gx.set_global_buffer(x)
    gy.set_global_buffer(y)
    gz.set_global_buffer(z)
    a = asc.LocalTensor(x.dtype, asc.TPosition.VECIN, 0, n)
    b = asc.LocalTensor(x.dtype, asc.TPosition.VECIN, 8192, n)
    out = asc.LocalTensor(z.dtype, asc.TPosition.VECOUT, 16384, 2048 // z.dtype.sizeof())
    vdeq = asc.LocalTensor(asc.uint64, asc.TPosition.VECCALC, 20480, 16)
    asc.data_copy(a, gx, n)
    asc.data_copy(b, gy, n)
    asc.data_copy(out, gz, 2048 // z.dtype.sizeof())
    asc.set_flag(asc.HardEvent.MTE2_V, 0)
    asc.wait_flag(asc.HardEvent.MTE2_V, 0)
    if op == "cast_deq":
        if isinstance(scale, list):
            asc.set_deq_scale(vdeq, asc.VdeqInfo(scale, offset, sign))
        else:
            asc.set_deq_scale(scale, offset, sign)
    else:
        asc.set_deq_scale(scale)
    if form == "counter":
        asc.set_mask_count()
    if op == "add_deq_relu":
        if form == "count":
            asc.add_deq_relu(out, a, b, count)
        else:
            asc.add_deq_relu(out, a, b, mask, repeat, asc.BinaryRepeatParams(*strides))
    elif op == "cast":
        if form == "count":
            asc.cast(out, a, asc.RoundMode.CAST_NONE, count)
        else:
            asc.cast(out, a, asc.RoundMode.CAST_RINT, mask, repeat,
                     asc.UnaryRepeatParams(*strides))
    else:
        if form == "count":
            asc.cast_deq(out, a, count)
        else:
            asc.cast_deq(out, a, mask, repeat, asc.UnaryRepeatParams(*strides))
    if form == "counter":
        asc.set_mask_norm()
        asc.reset_mask()
    asc.set_flag(asc.HardEvent.V_MTE3, 0)
    asc.wait_flag(asc.HardEvent.V_MTE3, 0)
    asc.data_copy(gz, out, 2048 // z.dtype.sizeof())


def f32(v):
    return struct.unpack("<f", struct.pack("<f", v))[0]


def half_deq(x, scale):
    """x * the half scale, one rounding to half, overflow saturating to +-65504."""
    v = float(x) * float(np.float16(scale))
    with np.errstate(over="ignore"):
        h = np.float16(v)
    if np.isinf(h):
        h = np.float16(np.copysign(65504.0, v))
    return h


def word_params(scale, offset, sign):
    bits = struct.unpack("<I", struct.pack("<f", scale))[0] & 0xFFFFE000
    return struct.unpack("<f", struct.pack("<I", bits))[0], offset, sign


def requant(x, params):
    s, offset, sign = params
    r = min(max(np.rint(float(x) * s), -256), 255) + offset
    r = min(max(r, -128), 127) if sign else min(max(r, 0), 255)
    return int(r) & 0xFF


def lanes_of(form, count, mask, repeat, per):
    """(iteration, lane) pairs that run."""
    if form == "count" or form == "counter":
        return [(i // per, i % per) for i in range(count)]
    if isinstance(mask, int):
        act = range(min(mask, per))
    else:
        bits = mask[0] | ((mask[1] << 64) if per > 64 else 0)
        act = [e for e in range(per) if (bits >> e) & 1]
    return [(r, e) for r in range(repeat) for e in act]


def offset(r, e, lanes_per_block, blk, rep, size, half=0):
    """Byte offset of lane e of iteration r: blocks `blk` apart, iterations `rep` blocks."""
    return (r * rep + e // lanes_per_block * blk) * 32 + half + e % lanes_per_block * size


def run(op, x, y, z, scale, offset_=0, sign=True, form="count", count=0, mask=0, repeat=1,
        strides=(1, 1, 1, 8, 8, 8)):
    deq_kernel[1, rt.current_stream()](x, y, z, op, form, scale, offset_, sign, count, mask,
                                       repeat, strides)
    return z


# ---- add_deq_relu and cast int32 -> half ------------------------------------------------------

def int32_data(seed):
    rng = np.random.default_rng(seed)
    return rng.integers(-2**31, 2**31, N, dtype=np.int64).astype(np.int32), \
        rng.integers(-40000, 40000, N).astype(np.int32)


def model_half(op, x, y, z, scale, form, count, mask, repeat, strides):
    out = z.copy()
    if op == "cast":  # UnaryRepeatParams: dst_blk, src_blk, dst_rep, src_rep
        dst_blk, s0_blk, dst_rep, s0_rep = strides
        s1_blk, s1_rep = s0_blk, s0_rep
    else:
        dst_blk, s0_blk, s1_blk, dst_rep, s0_rep, s1_rep = strides
    flat = out.view(np.uint8)
    for r, e in lanes_of(form, count, mask, repeat, 64):
        if form in ("count", "counter"):
            i0 = i1 = d = r * 64 + e
        else:
            i0 = offset(r, e, 8, s0_blk, s0_rep, 4) // 4
            i1 = offset(r, e, 8, s1_blk, s1_rep, 4) // 4
            d = offset(r, e, 16, dst_blk, dst_rep, 2) // 2
        if op == "cast":
            v = half_deq(int(x[i0]), scale)
        else:
            s = (int(x[i0]) + int(y[i1])) & 0xFFFFFFFF  # wraps
            v = half_deq(s - 2**32 if s >= 2**31 else s, scale)
            v = np.float16(0) if (v <= 0) else v
        flat[2 * d:2 * d + 2] = np.array([v], dtype=np.float16).view(np.uint8)
    return out


@pytest.mark.parametrize("op", ["add_deq_relu", "cast"])
@pytest.mark.parametrize("form,count,mask,repeat,strides", [
    ("count", 1000, 0, 1, (1, 1, 1, 8, 8, 8)),
    ("repeat", 0, 37, 3, (1, 1, 1, 8, 8, 8)),                                # partial mask
    ("repeat", 0, [0xF0F0_0000_FFFF_0001, 0], 2, (2, 1, 2, 8, 16, 16)),     # bit mask, strides
    ("counter", 200, 200, 1, (1, 1, 1, 4, 8, 8)),                            # counter mode
])
def test_half_dequantisation(device, op, form, count, mask, repeat, strides):
    x, y = int32_data(len(str(mask)) + repeat)
    scale = 0.0001220703125  # 2^-13: large sums stay finite, small ones lose bits
    if op == "cast":
        strides = (strides[0], strides[1], strides[3] // 2 if form != "counter" else 4,
                   strides[4])
        y = np.zeros(N, dtype=np.int32)
    z = np.full(1024, 7, dtype=np.float16)
    want = model_half(op, x, y, z.copy(), scale, form, count, mask, repeat, strides)
    got = run(op, x, y, z, scale, form=form, count=count, mask=mask, repeat=repeat,
              strides=strides)
    np.testing.assert_array_equal(got.view(np.uint16), want.view(np.uint16))


def test_half_scale_saturates_and_relu_clips(device):
    x = np.array([2**30, -2**30, 100, -100, 0] * 205, dtype=np.int32)[:N]
    y = np.zeros(N, dtype=np.int32)
    z = np.full(1024, 7, dtype=np.float16)
    got = run("add_deq_relu", x, y, z, 1.0, count=8)
    assert list(got[:5]) == [65504.0, 0.0, 100.0, 0.0, 0.0]
    assert not np.signbit(got[1]) and not np.signbit(got[4])


# ---- cast_deq ----------------------------------------------------------------------------------

def model_cast_deq(x, z, params_of, form, count, mask, repeat, strides):
    out = z.copy().view(np.uint8)
    dst_blk, src_blk, dst_rep, src_rep = strides
    for r, e in lanes_of(form, count, mask, repeat, 128):
        i = r * 128 + e if form in ("count", "counter") else \
            offset(r, e, 16, src_blk, src_rep, 2) // 2
        if form in ("count", "counter"):
            d = offset(r, e, 16, 1, 8, 1, half=16)
        else:
            d = offset(r, e, 16, dst_blk, dst_rep, 1, half=16)
        out[d] = requant(x[i], params_of(e % 16))
    return out


VECTOR = ([0.5, 0.25, 1.0, 2.0, 0.1, 0.3, 3.0, 0.01, 0.75, 1.5, 0.2, 5.0, 0.125, 0.9, 0.05, 8.0],
          [0, 1, -1, 5, -5, 100, -100, 255, -256, 7, 3, -3, 0, 2, -2, 1],
          [True, False] * 8)


@pytest.mark.parametrize("dst_dtype", ["int8", "uint8"])
@pytest.mark.parametrize("params", ["word", "vector"])
@pytest.mark.parametrize("form,count,mask,repeat,strides", [
    ("count", 600, 0, 1, (1, 1, 8, 8)),
    ("repeat", 0, 100, 2, (1, 1, 8, 8)),                                     # partial mask
    ("repeat", 0, [0xFFFF_0000_0000_FFFF, 0x0F0F_0F0F_0000_0001], 2, (2, 1, 16, 8)),
    ("counter", 300, 300, 1, (1, 1, 8, 8)),                                  # counter mode
])
def test_cast_deq(device, dst_dtype, params, form, count, mask, repeat, strides):
    rng = np.random.default_rng(repeat + count)
    x = rng.integers(-3000, 3000, N).astype(np.int16)
    x[:8] = [32767, -32768, 0, 1, -1, 255, -255, 100]
    z = np.full(2048, 0x55, dtype=dst_dtype)
    if params == "word":
        scale, off, sign = 0.0731, 3, dst_dtype == "int8"
        p = word_params(f32(scale), off, sign)
        params_of = lambda _e: p  # noqa: E731
    else:
        scale, off, sign = VECTOR
        ps = [word_params(f32(s), o, g) for s, o, g in zip(*VECTOR)]
        params_of = lambda e: ps[e]  # noqa: E731
    want = model_cast_deq(x, z, params_of, form, count, mask, repeat, strides)
    got = run("cast_deq", x, np.zeros(N, np.int16), z, scale, off, sign, form, count, mask,
              repeat, strides)
    np.testing.assert_array_equal(got.view(np.uint8), want)


# ---- errors ------------------------------------------------------------------------------------

@asc.jit
def int_scale_kernel(x: asc.GlobalAddress):
    asc.set_deq_scale(1)


@asc.jit
def half_block_kernel(x: asc.GlobalAddress):
    a = asc.LocalTensor(asc.int16, asc.TPosition.VECIN, 0, 256)
    o = asc.LocalTensor(asc.int8, asc.TPosition.VECOUT, 1024, 512)
    asc.cast_deq(o, a, 256, is_vec_deq=False)


def test_set_deq_scale_refuses_a_python_int(device):
    with pytest.raises(CodegenError) as e:
        int_scale_kernel[1, rt.current_stream()](np.zeros(8, np.float32))
    text = str(e.value)
    assert "asc.set_deq_scale(1)" in text and "No viable candidates" in text
    assert "scale: RuntimeFloat" in text


def test_cast_deq_has_no_is_vec_deq_argument(device):
    with pytest.raises(CodegenError) as e:
        half_block_kernel[1, rt.current_stream()](np.zeros(8, np.float32))
    assert "No viable candidates" in str(e.value) and "is_vec_deq" in str(e.value)


@asc.jit
def unset_kernel(x: asc.GlobalAddress, z: asc.GlobalAddress):
    gx, gz = asc.GlobalTensor(), asc.GlobalTensor()
    gx.set_global_buffer(x)
    gz.set_global_buffer(z)
    a = asc.LocalTensor(asc.int32, asc.TPosition.VECIN, 0, 64)
    o = asc.LocalTensor(asc.float16, asc.TPosition.VECOUT, 1024, 64)
    asc.data_copy(a, gx, 64)
    asc.set_flag(asc.HardEvent.MTE2_V, 0)
    asc.wait_flag(asc.HardEvent.MTE2_V, 0)
    asc.add_deq_relu(o, a, a, 64)
    asc.set_flag(asc.HardEvent.V_MTE3, 0)
    asc.wait_flag(asc.HardEvent.V_MTE3, 0)
    asc.data_copy(gz, o, 64)


def test_deqscale_never_set_reads_zero_and_warns(device):
    z = np.full(64, 7, np.float16)
    with pytest.warns(KernelWarning, match="reads DEQSCALE, which no set_deq_scale wrote"):
        unset_kernel[1, rt.current_stream()](np.arange(64, dtype=np.int32), z)
    np.testing.assert_array_equal(z, np.zeros(64, np.float16))
