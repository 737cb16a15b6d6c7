"""The scalar unit's helpers (asc-api.md 4.13): bit scans and counts of 64-bit values and
ScalarCast with a round mode, each one scalar-unit instruction, against Python's integers and
numpy's rounding."""
import numpy as np
import pytest

import asc
import asc.lib.runtime as rt

VALUES = [0, 1, 0x8000_0000_0000_0000, 0xFFFF_FFFF_FFFF_FFFF, 0x0000_00F0_0000_0000,
          0x7FFF_FFFF_FFFF_FFFE, 0x0123_4567_89AB_CDEF]


@asc.jit
def bits_kernel(x: asc.GlobalAddress, out: asc.GlobalAddress, n: asc.ConstExpr[int]):
    gx, go = asc.GlobalTensor(), asc.GlobalTensor()
    gx.set_global_buffer(x)
    go.set_global_buffer(out)
    for i in range(n):
        v = gx.get_value(i)
        go.set_value(i * 6 + 0, asc.scalar_get_sff_value(v, 0))
        go.set_value(i * 6 + 1, asc.scalar_get_sff_value(v, 1))
        go.set_value(i * 6 + 2, asc.scalar_get_count_of_value(v, 0))
        go.set_value(i * 6 + 3, asc.scalar_get_count_of_value(v, 1))
        go.set_value(i * 6 + 4, asc.scalar_count_leading_zero(v))
        go.set_value(i * 6 + 5, asc.count_bits_cnt_same_as_sign_bit(v.cast(asc.int64)))


def expected(v):
    def first(bit):
        for k in range(64):
            if (v >> k) & 1 == bit:
                return k
        return -1
    ones = bin(v).count("1")
    clz = 64 - v.bit_length()
    signed = v - (1 << 64) if v >> 63 else v
    sign = (v >> 63) & 1
    cls = 0
    for k in range(62, -1, -1):
        if (v >> k) & 1 != sign:
            break
        cls += 1
    assert signed < 0 or cls == clz - 1
    return [first(0), first(1), 64 - ones, ones, clz, cls]


def test_bit_scans_and_counts(device):
    x = np.array(VALUES, dtype=np.uint64)
    out = np.zeros(6 * len(VALUES), dtype=np.int64)
    bits_kernel[1, rt.current_stream()](x, out, len(VALUES))
    want = [e for v in VALUES for e in expected(v)]
    np.testing.assert_array_equal(out, want)


@asc.jit
def cast_kernel(x: asc.GlobalAddress, out_i: asc.GlobalAddress, out_h: asc.GlobalAddress,
                n: asc.ConstExpr[int], mode: asc.ConstExpr):
    gx, gi, gh = asc.GlobalTensor(), asc.GlobalTensor(), asc.GlobalTensor()
    gx.set_global_buffer(x)
    gi.set_global_buffer(out_i)
    gh.set_global_buffer(out_h)
    for i in range(n):
        v = gx.get_value(i)
        gi.set_value(i, asc.scalar_cast(v, asc.int32, mode))
        gh.set_value(i, asc.scalar_cast(v, asc.float16, asc.RoundMode.CAST_ODD))


M = asc.RoundMode
ROUND = {M.CAST_RINT: np.rint, M.CAST_FLOOR: np.floor, M.CAST_CEIL: np.ceil,
         M.CAST_TRUNC: np.trunc, M.CAST_ROUND: lambda v: np.sign(v) * np.floor(np.abs(v) + 0.5)}


def odd_half(x):
    """float32 -> float16 rounding to odd: truncate, then set the last bit if anything dropped."""
    with np.errstate(over="ignore"):
        h = x.astype(np.float16)
    back = h.astype(np.float32)
    toward_zero = np.where(np.abs(back) > np.abs(x),
                           np.nextafter(h, np.float16(0)), h)
    exact = toward_zero.astype(np.float32) == x
    bits = toward_zero.view(np.uint16) | np.where(exact, 0, 1).astype(np.uint16)
    return bits.view(np.float16)


@pytest.mark.parametrize("mode", list(ROUND))
def test_scalar_cast_rounds_by_the_mode(device, mode):
    x = np.array([0.5, 1.5, 2.5, -0.5, -1.5, -2.5, 3.7, -3.7, 1e10, -1e10, 1.0009765625],
                 dtype=np.float32)
    out_i = np.zeros(len(x), dtype=np.int32)
    out_h = np.zeros(len(x), dtype=np.float16)
    cast_kernel[1, rt.current_stream()](x, out_i, out_h, len(x), mode)
    want = np.clip(ROUND[mode](x.astype(np.float64)), -2 ** 31, 2 ** 31 - 1).astype(np.int32)
    np.testing.assert_array_equal(out_i, want)
    np.testing.assert_array_equal(out_h.view(np.uint16), odd_half(x).view(np.uint16))


def test_count_value_must_be_zero_or_one():
    from asc.runtime.jit import MockTensor

    @asc.jit
    def bad(x: asc.GlobalAddress):
        gx = asc.GlobalTensor()
        gx.set_global_buffer(x)
        asc.scalar_get_sff_value(gx.get_value(0), 2)

    with pytest.raises(Exception, match="count_value must be a Python 0 or 1, got 2"):
        bad.compile(MockTensor(asc.uint64))


def test_scalar_cast_names_its_dtypes():
    from asc.runtime.jit import MockTensor

    @asc.jit
    def bad(x: asc.GlobalAddress):
        gx = asc.GlobalTensor()
        gx.set_global_buffer(x)
        asc.scalar_cast(gx.get_value(0), asc.int16, asc.RoundMode.CAST_RINT)

    with pytest.raises(Exception, match="dtype must be asc.int32 or asc.float16"):
        bad.compile(MockTensor(asc.float32))
