"""copy: the UB -> UB vector copy under the mask/repeat model with CopyRepeatParams (asc-api.md
4.1, 4.2), against a numpy model of lanes, blocks and strides; counter mode counts per
iteration."""
import numpy as np
import pytest

import asc
import asc.lib.runtime as rt

N = 2048


@asc.jit
def copy_kernel(a: asc.GlobalAddress, c: asc.GlobalAddress, out: asc.GlobalAddress,
                mask: asc.ConstExpr, repeat: asc.ConstExpr[int], strides: asc.ConstExpr,
                setup: asc.ConstExpr[str]):
    n = 2048
    ga, gc, go = asc.GlobalTensor(), asc.GlobalTensor(), asc.GlobalTensor()
    ga.set_global_buffer(a)
    gc.set_global_buffer(c)
    go.set_global_buffer(out)
    nbytes = n * a.dtype.sizeof()
    la = asc.LocalTensor(a.dtype, asc.TPosition.VECIN, 0, n)
    lc = asc.LocalTensor(a.dtype, asc.TPosition.VECOUT, nbytes, n)
    asc.data_copy(la, ga, n)
    asc.data_copy(lc, gc, n)
    asc.set_flag(asc.HardEvent.MTE2_V, 0)
    asc.wait_flag(asc.HardEvent.MTE2_V, 0)
    params = asc.CopyRepeatParams(strides[0], strides[1], strides[2], strides[3])
    if setup == "words":
        asc.set_vector_mask(mask[1], mask[0], dtype=a.dtype)
        asc.copy(lc, la, mask, repeat, params, False)
    elif setup == "counter":
        asc.set_mask_count()
        asc.set_vector_mask(mask, dtype=a.dtype, mode=asc.MaskMode.COUNTER)
        asc.copy(lc, la, 0, repeat, params, is_set_mask=False)
        asc.set_mask_norm()
        asc.reset_mask()
    elif setup == "counter_own_mask":
        asc.set_mask_count()
        asc.copy(lc, la, mask, repeat, params)
        asc.set_mask_norm()
        asc.reset_mask()
    else:
        asc.copy(lc, la, mask=mask, repeat_time=repeat, repeat_params=params, is_set_mask=True)
    asc.set_flag(asc.HardEvent.V_MTE3, 0)
    asc.wait_flag(asc.HardEvent.V_MTE3, 0)
    asc.data_copy(go, lc, n)


def model(src, dst, mask, repeats, strides, counter=False):
    esize = dst.dtype.itemsize
    per_repeat, per_block = 256 // esize, 32 // esize
    if counter:  # copy: the count applies to every iteration, past one repeat's lanes too
        active = list(range(mask))
    elif isinstance(mask, int):
        active = list(range(min(mask, per_repeat)))
    else:
        bits = mask[0] | ((mask[1] << 64) if per_repeat > 64 else 0)
        active = [e for e in range(per_repeat) if (bits >> e) & 1]
    blk, rep = strides[:2], strides[2:]
    out = dst.copy()
    for r in range(repeats):
        for e in active:
            d = (r * rep[0] * 32 + (e // per_block) * blk[0] * 32) // esize + e % per_block
            s = (r * rep[1] * 32 + (e // per_block) * blk[1] * 32) // esize + e % per_block
            out[d] = src[s]
    return out


def run(dtype, mask, repeat, strides, setup=""):
    rng = np.random.default_rng(5)
    info = np.iinfo(dtype) if np.dtype(dtype).kind in "iu" else None
    if info is None:
        a, c = (rng.uniform(-50, 50, N).astype(dtype) for _ in range(2))
    else:
        a, c = (rng.integers(info.min, info.max, N, endpoint=True).astype(dtype)
                for _ in range(2))
    out = np.zeros_like(a)
    copy_kernel[1, rt.current_stream()](a, c, out, mask=mask, repeat=repeat, strides=strides,
                                        setup=setup)
    return a, c, out


DTYPES = ["float16", "float32", "int16", "uint16", "int32", "uint32"]


def test_pyasc_generalization_case(device):
    # asc-api.md 4.2: fp32 mask 64 x 4 copies 0..255; fp16 copies [128r, 128r + 64).
    a, c, out = run("float32", 64, 4, (1, 1, 8, 8))
    want = c.copy()
    want[:256] = a[:256]
    np.testing.assert_array_equal(out, want)
    a, c, out = run("float16", 64, 4, (1, 1, 8, 8))
    want = c.copy()
    for r in range(4):
        want[128 * r:128 * r + 64] = a[128 * r:128 * r + 64]
    np.testing.assert_array_equal(out, want)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("mask,repeat,strides", [
    (256, 2, (1, 1, 8, 8)),                      # full iterations (mask saturates), dense
    (37, 3, (2, 1, 20, 9)),                      # partial continuous mask, every stride changed
    ([0xF0F0_0000_0000_FFFF, 0x8000_0000_0000_0001], 2, (1, 3, 16, 24)),  # bit mask
])
def test_repeat_forms(device, dtype, mask, repeat, strides):
    a, c, out = run(dtype, mask, repeat, strides)
    np.testing.assert_array_equal(out, model(a, c, mask, repeat, strides))


def test_is_set_mask_false_uses_set_vector_mask(device):
    mask = [0x0000_0000_0000_00F0, 0x0000_0000_0000_0003]
    a, c, out = run("int16", mask, 2, (1, 1, 8, 8), setup="words")
    np.testing.assert_array_equal(out, model(a, c, mask, 2, (1, 1, 8, 8)))


@pytest.mark.parametrize("setup", ["counter", "counter_own_mask"])
@pytest.mark.parametrize("dtype,count", [("float16", 50), ("float32", 40), ("int32", 64)])
def test_counter_mode_counts_per_iteration(device, setup, dtype, count):
    # Unlike the other vector ops, copy's count covers each of repeat_time iterations.
    a, c, out = run(dtype, count, 3, (1, 1, 8, 8), setup=setup)
    np.testing.assert_array_equal(out, model(a, c, count, 3, (1, 1, 8, 8), counter=True))


@pytest.mark.parametrize("dtype,count,repeat,strides", [
    ("float32", 200, 1, (1, 1, 8, 8)),
    ("float16", 300, 1, (2, 1, 8, 8)),
    ("float32", 128, 2, (2, 1, 1, 0)),   # CANN's BroadCastLastImpl: 16 rows' blocks, twice
    ("int32", 100, 3, (1, 1, 16, 13)),
])
def test_counter_mode_iteration_longer_than_a_repeat(device, dtype, count, repeat, strides):
    """An iteration of more lanes than a repeat holds runs on over its blocks at their stride:
    CANN's softmax broadcasts its row states this way (docs/adv.md)."""
    a, c, out = run(dtype, count, repeat, strides, setup="counter")
    np.testing.assert_array_equal(out, model(a, c, count, repeat, strides, counter=True))


@asc.jit
def bad_copy_kernel(a: asc.GlobalAddress, case: asc.ConstExpr[str]):
    x = asc.LocalTensor(a.dtype, asc.TPosition.VECIN, 0, 256)
    y = asc.LocalTensor(a.dtype, asc.TPosition.VECOUT, 1024, 256)
    if case == "mask_flag":
        asc.copy(y, x, 64, 1, asc.CopyRepeatParams(1, 1, 8, 8), 1)
    elif case == "plain":
        asc.copy(y, x, 64, 1, asc.CopyRepeatParams(1, 1, 8, 8))
    else:
        asc.copy(y, x, 64, 1, asc.UnaryRepeatParams())


@pytest.mark.parametrize("dtype,case,match", [
    ("float16", "mask_flag", "is_set_mask must be True or False"),
    ("int8", "plain", "dtype int8 is not supported"),
    ("float16", "params", "No viable candidates"),
])
def test_frontend_errors(device, dtype, case, match):
    with pytest.raises(Exception, match=match):
        bad_copy_kernel[1, rt.current_stream()](np.zeros(256, dtype), case)
