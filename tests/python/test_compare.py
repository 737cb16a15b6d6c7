"""asc.compare and asc.compare_scalar into bit masks (ascendc-semantics.md 5.6): every CMPMODE,
LSB-first packing, NaN rules, the mask ignored, both forms."""
import numpy as np
import pytest

import asc
import asc.lib.runtime as rt

N = 512
C = asc.CMPMODE
FNS = {C.LT: np.less, C.GT: np.greater, C.EQ: np.equal, C.LE: np.less_equal,
       C.GE: np.greater_equal, C.NE: lambda a, b: np.not_equal(a, b) & ~np.isnan(a) & ~np.isnan(b)}


@asc.jit
def compare_kernel(x: asc.GlobalAddress, y: asc.GlobalAddress, out: asc.GlobalAddress, scalar,
                   mode: asc.ConstExpr, form: asc.ConstExpr[str], repeat: asc.ConstExpr[int]):
    gx, gy, go = asc.GlobalTensor(), asc.GlobalTensor(), asc.GlobalTensor()
    gx.set_global_buffer(x)
    gy.set_global_buffer(y)
    go.set_global_buffer(out)
    a = asc.LocalTensor(x.dtype, asc.TPosition.VECIN, 0, 512)
    b = asc.LocalTensor(x.dtype, asc.TPosition.VECIN, 4096, 512)
    bits = asc.LocalTensor(asc.uint8, asc.TPosition.VECOUT, 8192, 64)
    asc.data_copy(a, gx, 512)
    asc.data_copy(b, gy, 512)
    asc.data_copy(bits, go, 64)
    asc.set_flag(asc.HardEvent.MTE2_V, 0)
    asc.wait_flag(asc.HardEvent.MTE2_V, 0)
    if form == "count":
        asc.compare(bits, a, b, mode, 512 if x.dtype.sizeof() == 4 else 256)
    elif form == "repeat":
        # The mask is ignored: all lanes of `repeat` iterations are compared.
        asc.compare(bits, a, b, mode, 3, repeat, asc.BinaryRepeatParams())
    elif form == "scalar_count":
        asc.compare_scalar(bits, a, scalar, mode, 256)
    else:
        asc.compare_scalar(bits, a, scalar, mode, [1, 0], repeat, asc.UnaryRepeatParams())
    asc.set_flag(asc.HardEvent.V_MTE3, 0)
    asc.wait_flag(asc.HardEvent.V_MTE3, 0)
    asc.data_copy(go, bits, 64)


def inputs(dtype):
    rng = np.random.default_rng(9)
    if dtype == "int32":
        a = rng.integers(-3, 3, N).astype(dtype)
        return a, rng.integers(-3, 3, N).astype(dtype)
    a = rng.integers(-4, 4, N).astype(dtype)
    b = rng.integers(-4, 4, N).astype(dtype)
    a[:4] = [np.nan, 1, np.nan, 0]
    b[:4] = [1, np.nan, np.nan, -0.0]
    return a, b


def run(a, b, mode, form, repeat=1, scalar=0.0):
    out = np.full(64, 0xA5, dtype=np.uint8)
    compare_kernel[1, rt.current_stream()](a, b, out, scalar, mode, form, repeat)
    return out


def packed(bools, size=64):
    out = np.full(size, 0xA5, dtype=np.uint8)
    p = np.packbits(bools.astype(np.uint8), bitorder="little")
    out[:p.size] = p
    return out


@pytest.mark.parametrize("dtype", ["float16", "float32"])
@pytest.mark.parametrize("mode", list(C))
def test_compare_count_form_every_mode(device, dtype, mode):
    a, b = inputs(dtype)
    n = 512 if dtype == "float32" else 256
    with np.errstate(invalid="ignore"):
        want = packed(FNS[mode](a[:n], b[:n]))
    np.testing.assert_array_equal(run(a, b, mode, "count"), want)


def test_int32_compares_equality(device):
    a, b = inputs("int32")
    np.testing.assert_array_equal(run(a, b, C.EQ, "count"), packed(a == b))


def test_int32_other_modes_are_rejected(device):
    a, b = inputs("int32")
    with pytest.raises(Exception, match="int32 compares only EQ"):
        run(a, b, C.LT, "count")


@pytest.mark.parametrize("dtype,repeat", [("float16", 2), ("float32", 3)])
def test_repeat_form_ignores_the_mask(device, dtype, repeat):
    a, b = inputs(dtype)
    lanes = 256 // np.dtype(dtype).itemsize * repeat
    with np.errstate(invalid="ignore"):
        want = packed(a[:lanes] < b[:lanes])
    np.testing.assert_array_equal(run(a, b, C.LT, "repeat", repeat), want)


@pytest.mark.parametrize("mode", [C.GE, C.NE, C.EQ])
def test_compare_scalar_both_forms(device, mode):
    a, _ = inputs("float16")
    s = np.float16(1.0)
    with np.errstate(invalid="ignore"):
        want = packed(FNS[mode](a[:256], s))
        want2 = packed(FNS[mode](a[:256], s))
    np.testing.assert_array_equal(run(a, a, mode, "scalar_count", scalar=1.0), want)
    np.testing.assert_array_equal(run(a, a, mode, "scalar_repeat", 2, scalar=1.0), want2)
