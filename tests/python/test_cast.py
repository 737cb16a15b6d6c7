"""asc.cast in every RoundMode (ascendc-semantics.md 5.2), bit exact against numpy, in the count
form and the mask/repeat form (iterations of 256 bytes of the wider type)."""
import numpy as np
import pytest

import asc
import asc.lib.runtime as rt
from asc.codegen.errors import CodegenError

N = 512
M = asc.RoundMode


@asc.jit
def cast_kernel(x: asc.GlobalAddress, y: asc.GlobalAddress, n: asc.ConstExpr[int],
                mode: asc.ConstExpr, form: asc.ConstExpr[str]):
    gx, gy = asc.GlobalTensor(), asc.GlobalTensor()
    gx.set_global_buffer(x)
    gy.set_global_buffer(y)
    src = asc.LocalTensor(x.dtype, asc.TPosition.VECIN, 0, n)
    dst = asc.LocalTensor(y.dtype, asc.TPosition.VECOUT, 8192, n)
    asc.data_copy(src, gx, n)
    asc.data_copy(dst, gy, n)
    asc.set_flag(asc.HardEvent.MTE2_V, 0)
    asc.wait_flag(asc.HardEvent.MTE2_V, 0)
    if form == "count":
        asc.cast(dst, src, mode, n)
    elif form == "repeat":
        # half -> int32 style: 64 lanes per iteration; the narrow side packs 4 blocks.
        asc.cast(dst, src, mode, [0x0000_FFFF_0000_FFFF, 0], 2,
                 asc.UnaryRepeatParams(1, 1, 8, 4))
    elif form == "strided":
        # A partial continuous mask; dst blocks 2 apart, iterations 16 (dst) and 4 (src) apart.
        asc.cast(dst, src, mode, 37, 2, asc.UnaryRepeatParams(2, 1, 16, 4))
    else:
        # Counter mode: 100 elements over as many 64-lane iterations as they need.
        asc.set_mask_count()
        asc.set_vector_mask(100, dtype=y.dtype, mode=asc.MaskMode.COUNTER)
        asc.cast(dst, src, mode, 100, 1, asc.UnaryRepeatParams(1, 1, 8, 4), is_set_mask=False)
        asc.set_mask_norm()
        asc.reset_mask()
    asc.set_flag(asc.HardEvent.V_MTE3, 0)
    asc.wait_flag(asc.HardEvent.V_MTE3, 0)
    asc.data_copy(gy, dst, n)


def run(x, out_dtype, mode, form="count", init=None):
    y = np.zeros(N, dtype=out_dtype) if init is None else init.copy()
    cast_kernel[1, rt.current_stream()](x, y, N, mode, form)
    return y


def round_int(x, mode):
    x = x.astype(np.float64)
    return {M.CAST_NONE: np.rint, M.CAST_RINT: np.rint, M.CAST_FLOOR: np.floor,
            M.CAST_CEIL: np.ceil, M.CAST_TRUNC: np.trunc,
            M.CAST_ROUND: lambda v: np.sign(v) * np.floor(np.abs(v) + 0.5)}[mode](x)


def to_int(x, dtype, mode):
    info = np.iinfo(dtype)
    r = round_int(np.nan_to_num(x, nan=0.0, posinf=np.inf, neginf=-np.inf), mode)
    return np.clip(r, info.min, info.max).astype(dtype)


def to_half(x, mode):
    """float32 -> float16 in a directed mode, from numpy's nearest-even and nextafter."""
    h = x.astype(np.float16)
    back = h.astype(np.float32)
    if mode in (M.CAST_RINT, M.CAST_NONE):
        return h
    down = np.where(back > x, np.nextafter(h, np.float16(-np.inf)), h)
    up = np.where(back < x, np.nextafter(h, np.float16(np.inf)), h)
    if mode == M.CAST_FLOOR:
        return down
    if mode == M.CAST_CEIL:
        return up
    if mode == M.CAST_TRUNC:
        return np.where(x >= 0, down, up)
    if mode == M.CAST_ROUND:
        tie = (x - down.astype(np.float32)) == (up.astype(np.float32) - x)
        away = np.where(x >= 0, up, down)
        return np.where(tie & (down != up), away, h)
    raise AssertionError(mode)


def floats(seed=3, scale=300.0):
    rng = np.random.default_rng(seed)
    x = (rng.standard_normal(N) * scale).astype(np.float32)
    x[:8] = [0.5, 1.5, 2.5, -0.5, -1.5, -2.5, 1 + 2 ** -11, -(1 + 2 ** -11)]
    return x


DIRECTED = [M.CAST_RINT, M.CAST_FLOOR, M.CAST_CEIL, M.CAST_ROUND, M.CAST_TRUNC]


@pytest.mark.parametrize("mode", DIRECTED + [M.CAST_NONE])
def test_float_to_half(device, mode):
    x = floats(scale=3.0)
    np.testing.assert_array_equal(run(x, np.float16, mode).view(np.uint16),
                                  to_half(x, mode).view(np.uint16))


@pytest.mark.parametrize("dtype", [np.int32, np.int16])
@pytest.mark.parametrize("mode", DIRECTED)
def test_float_to_integers_saturate(device, dtype, mode):
    x = floats(scale=30000.0)
    x[8:12] = [np.nan, np.inf, -np.inf, 1e10]
    np.testing.assert_array_equal(run(x, dtype, mode), to_int(x, dtype, mode))


@pytest.mark.parametrize("mode", DIRECTED)
def test_half_to_int32(device, mode):
    x = floats(scale=500.0).astype(np.float16)
    np.testing.assert_array_equal(run(x, np.int32, mode), to_int(x.astype(np.float32),
                                                                    np.int32, mode))


def test_half_to_float_and_int16_to_float_are_exact(device):
    x = floats().astype(np.float16)
    np.testing.assert_array_equal(run(x, np.float32, M.CAST_NONE), x.astype(np.float32))
    i = np.arange(-256, 256, dtype=np.int16) * 97
    np.testing.assert_array_equal(run(i, np.float32, M.CAST_NONE), i.astype(np.float32))


@pytest.mark.parametrize("mode", [M.CAST_FLOOR, M.CAST_TRUNC, M.CAST_RINT])
def test_float_to_float_rounds_to_integral_and_zero_is_positive(device, mode):
    x = floats(scale=4.0)
    got = run(x, np.float32, mode)
    want = round_int(x, mode).astype(np.float32)
    want[want == 0] = 0.0  # -0 becomes +0 on the chip
    np.testing.assert_array_equal(got.view(np.uint32), want.view(np.uint32))


def test_int32_to_float_rounds_by_the_mode(device):
    i = np.random.default_rng(5).integers(-2 ** 31, 2 ** 31 - 1, N).astype(np.int32)
    np.testing.assert_array_equal(run(i, np.float32, M.CAST_RINT), i.astype(np.float32))


def test_repeat_form_counts_lanes_of_the_wider_type(device):
    # half -> int32: 64 lanes per iteration, src repeat stride 4 blocks, dst 8; lanes 0-15 and
    # 32-47 of two iterations; everything else keeps dst's old value.
    x = floats(scale=100.0).astype(np.float16)
    init = np.full(N, -7, dtype=np.int32)
    got = run(x, np.int32, M.CAST_TRUNC, form="repeat", init=init)
    want = init.copy()
    for r in range(2):
        for e in list(range(16)) + list(range(32, 48)):
            want[64 * r + e] = int(np.trunc(np.float64(x[64 * r + e])))
    np.testing.assert_array_equal(got, want)


def _cast_lanes(x, init, lanes, blk, rep):
    """init with lane (r, e) of each pair cast half -> int32 by truncation; blk/rep are
    (dst, src) strides in blocks."""
    want = init.copy()
    for r, e in lanes:
        d = r * rep[0] * 8 + (e // 8) * blk[0] * 8 + e % 8
        s = r * rep[1] * 16 + (e // 16) * blk[1] * 16 + e % 16
        want[d] = int(np.trunc(np.float64(x[s])))
    return want


def test_repeat_form_partial_mask_and_block_strides(device):
    x = floats(scale=100.0).astype(np.float16)
    init = np.full(N, -7, dtype=np.int32)
    got = run(x, np.int32, M.CAST_TRUNC, form="strided", init=init)
    lanes = [(r, e) for r in range(2) for e in range(37)]
    np.testing.assert_array_equal(got, _cast_lanes(x, init, lanes, (2, 1), (16, 4)))


def test_counter_mode_runs_the_count_over_iterations(device):
    x = floats(scale=100.0).astype(np.float16)
    init = np.full(N, -7, dtype=np.int32)
    got = run(x, np.int32, M.CAST_TRUNC, form="counter", init=init)
    lanes = [(k // 64, k % 64) for k in range(100)]
    np.testing.assert_array_equal(got, _cast_lanes(x, init, lanes, (1, 1), (8, 4)))


def test_an_illegal_mode_names_the_legal_ones(device):
    x = floats()
    with pytest.raises(Exception, match="CAST_ODD is not a mode of the cast float32 -> int32; "
                                        "use one of CAST_RINT, CAST_FLOOR"):
        run(x, np.int32, M.CAST_ODD)


def test_a_pair_the_chip_lacks_is_rejected(device):
    with pytest.raises(Exception, match="the chip has no cast int16 -> int32"):
        run(np.zeros(N, np.int16), np.int32, M.CAST_NONE)


def test_round_mode_must_be_a_round_mode():
    from asc.runtime.jit import MockTensor
    with pytest.raises(CodegenError, match="round_mode must be an asc.RoundMode"):
        cast_kernel.compile(MockTensor(asc.float32), MockTensor(asc.float16), n=N, mode="x",
                            form="count")


@asc.jit
def runtime_size_kernel(x: asc.GlobalAddress, y: asc.GlobalAddress, n: int):
    gx, gy = asc.GlobalTensor(), asc.GlobalTensor()
    gx.set_global_buffer(x)
    gy.set_global_buffer(y)
    a = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 0, 512)
    # A traced element count, first seen by the cast: its TensorRef emits no op after the cast.
    b = asc.LocalTensor(asc.float16, asc.TPosition.VECOUT, 4096, n * 2)
    asc.data_copy(a, gx, 512)
    asc.set_flag(asc.HardEvent.MTE2_V, 0)
    asc.wait_flag(asc.HardEvent.MTE2_V, 0)
    asc.cast(b, a, asc.RoundMode.CAST_RINT, 256)
    asc.set_flag(asc.HardEvent.V_MTE3, 0)
    asc.wait_flag(asc.HardEvent.V_MTE3, 0)
    asc.data_copy(gy, b, 256)


def test_a_tensor_with_a_traced_size_first_used_by_an_op(device):
    x = np.arange(512, dtype=np.float32)
    y = np.zeros(256, np.float16)
    runtime_size_kernel[1, rt.current_stream()](x, y, 128)
    np.testing.assert_array_equal(y, x[:256].astype(np.float16))
