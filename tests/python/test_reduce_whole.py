"""reduce_sum / reduce_max / reduce_min (asc-api.md 4.10): whole-tensor reductions as the
library's instruction sequences (ascendc-semantics.md 5.5), against a numpy model of the same
order of operations: binary trees inside an iteration, the count form of reduce_sum adding the
iterations' sums in order (ACC_VAL), the mask form further trees over the partial sums."""
import numpy as np
import pytest

import asc
import asc.lib.runtime as rt
from asc.codegen.errors import CodegenError

from test_reduce import extreme, src_index, tree_sum

N = 40960     # source elements (fp16: 320 iterations, fp32: 640)
TMP = 2048    # shared_tmp_buffer elements
OUT = 16      # dst elements: one 32-byte block


@asc.jit
def reduce_kernel(x: asc.GlobalAddress, y: asc.GlobalAddress, op: asc.ConstExpr[str],
                  form: asc.ConstExpr[str], count: asc.ConstExpr, mask: asc.ConstExpr,
                  repeat: asc.ConstExpr[int], src_rep: asc.ConstExpr[int],
                  cal_index: asc.ConstExpr[bool]):
    n = 40960
    gx, gy = asc.GlobalTensor(), asc.GlobalTensor()
    gx.set_global_buffer(x)
    gy.set_global_buffer(y)
    size = x.dtype.sizeof()
    src = asc.LocalTensor(x.dtype, asc.TPosition.VECIN, 0, n)
    tmp = asc.LocalTensor(x.dtype, asc.TPosition.VECCALC, n * size, 2048)
    dst = asc.LocalTensor(x.dtype, asc.TPosition.VECOUT, n * size + 2048 * size, 16)
    asc.data_copy(src, gx, n)
    asc.data_copy(dst, gy, 16)
    asc.set_flag(asc.HardEvent.MTE2_V, 0)
    asc.wait_flag(asc.HardEvent.MTE2_V, 0)
    if op == "sum":
        if form == "count":
            asc.reduce_sum(dst, src, tmp, count)
        else:
            asc.reduce_sum(dst, src, tmp, mask, repeat, src_rep)
    elif op == "max":
        if form == "count":
            asc.reduce_max(dst, src, tmp, count, cal_index)
        else:
            asc.reduce_max(dst, src, tmp, mask, repeat, src_rep, cal_index=cal_index)
    else:
        if form == "count":
            asc.reduce_min(dst, src, tmp, count, cal_index=cal_index)
        else:
            asc.reduce_min(dst, src, tmp, mask, repeat, src_rep, cal_index)
    asc.set_flag(asc.HardEvent.V_MTE3, 0)
    asc.wait_flag(asc.HardEvent.V_MTE3, 0)
    asc.data_copy(gy, dst, 16)


@asc.jit
def runtime_count_kernel(x: asc.GlobalAddress, y: asc.GlobalAddress, count: int):
    gx, gy = asc.GlobalTensor(), asc.GlobalTensor()
    gx.set_global_buffer(x)
    gy.set_global_buffer(y)
    src = asc.LocalTensor(x.dtype, asc.TPosition.VECIN, 0, 4096)
    tmp = asc.LocalTensor(x.dtype, asc.TPosition.VECCALC, 16384, 64)
    dst = asc.LocalTensor(x.dtype, asc.TPosition.VECOUT, 20480, 16)
    asc.data_copy(src, gx, 4096)
    asc.data_copy(dst, gy, 16)
    asc.set_flag(asc.HardEvent.MTE2_V, 0)
    asc.wait_flag(asc.HardEvent.MTE2_V, 0)
    asc.reduce_sum(dst, src, tmp, count)
    asc.set_flag(asc.HardEvent.V_MTE3, 0)
    asc.wait_flag(asc.HardEvent.V_MTE3, 0)
    asc.data_copy(gy, dst, 16)


def lanes_of(x):
    return 256 // x.dtype.itemsize


def active(x, form, count, mask, repeat):
    """Per iteration, the lanes that take part."""
    per = lanes_of(x)
    if form == "count":
        return [[e for e in range(per) if r * per + e < count]
                for r in range((count + per - 1) // per)]
    if isinstance(mask, int):
        act = list(range(min(mask, per)))
    else:
        bits = mask[0] | ((mask[1] << 64) if per > 64 else 0)
        act = [e for e in range(per) if (bits >> e) & 1]
    return [act] * repeat


def element(x, form, r, e, src_rep):
    return src_index(r, e, x.dtype.itemsize, 1, 8 if form == "count" else src_rep)


def iteration_sums(x, form, count, mask, repeat, src_rep):
    """Each iteration's tree sum (vcadd's per-iteration results)."""
    per = lanes_of(x)
    zero = x.dtype.type(0)
    partials = []
    for r, act in enumerate(active(x, form, count, mask, repeat)):
        lanes = set(act)
        partials.append(tree_sum([x[element(x, form, r, e, src_rep)] if e in lanes else zero
                                  for e in range(per)]))
    return partials


def model_sum(x, form, count, mask, repeat, src_rep):
    per = lanes_of(x)
    zero = x.dtype.type(0)
    partials = iteration_sums(x, form, count, mask, repeat, src_rep)
    if form == "count":
        total = partials[0]
        for p in partials[1:]:
            total = x.dtype.type(total + p)  # ACC_VAL: in iteration order
        return total
    while len(partials) > 1:  # counter-mode vcadd levels over the partial sums
        partials = [tree_sum(partials[i:i + per] + [zero] * (per - len(partials[i:i + per])))
                    for i in range(0, len(partials), per)]
    return partials[0]


def model_extreme(x, op, form, count, mask, repeat, src_rep):
    """(value, index): the first extreme element in iteration-then-lane order, its index
    iteration * lanes + lane."""
    per = lanes_of(x)
    flat, where = [], []
    for r, act in enumerate(active(x, form, count, mask, repeat)):
        for e in act:
            flat.append(x[element(x, form, r, e, src_rep)])
            where.append(r * per + e)
    v, k = extreme(flat, range(len(flat)), op == "max")
    return v, where[k]


def run(x, op, form, count=0, mask=0, repeat=1, src_rep=8, cal_index=False):
    y = np.full(OUT, 7, dtype=x.dtype)
    reduce_kernel[1, rt.current_stream()](x, y, op, form, count, mask, repeat, src_rep,
                                          cal_index)
    return y


def values(dtype, seed, n=N, spread=None):
    rng = np.random.default_rng(seed)
    if spread is None:
        return (rng.standard_normal(n) * 3).astype(dtype)
    return (rng.integers(-spread, spread, n) / 4).astype(dtype)  # ties are frequent


def bits(v, dtype):
    return np.array([v], dtype=dtype).view(np.uint16 if np.dtype(dtype).itemsize == 2
                                           else np.uint32)[0]


DTYPES = ["float16", "float32"]


# ---- reduce_sum ------------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("count", [1, 64, 256, 1000, 4099, 12800])
def test_reduce_sum_count_form_adds_iterations_in_order(device, dtype, count):
    """dst[0] is the ACC_VAL total; as CANN's A2 ReduceSumImpl has vcadd write its iterations'
    sums into dst, the elements after dst[0] hold them (those past the 16 checked run on into
    the UB after dst, as on the chip)."""
    x = values(dtype, count)
    y = run(x, "sum", "count", count=count)
    assert bits(y[0], dtype) == bits(model_sum(x, "count", count, 0, 0, 8), dtype)
    partials = iteration_sums(x, "count", count, 0, 0, 8)[1:OUT]
    rest = np.full(OUT - 1 - len(partials), 7, dtype=dtype)
    np.testing.assert_array_equal(y[1:], np.concatenate([np.array(partials, dtype), rest]))


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("mask,repeat,src_rep", [
    (64, 1, 8),                                                  # one partial: scalar copy
    (37, 5, 8),                                                  # partial mask
    ([0x8000_0000_F0F0_0001, 0xFFFF_0000_0000_0001], 3, 16),    # bit mask, sparse iterations
    (64, 100, 8),                                                # two levels of partials
    (64, 300, 8),                                                # > 255: chunks, three levels
])
def test_reduce_sum_mask_form_trees_over_partials(device, dtype, mask, repeat, src_rep):
    x = values(dtype, repeat)
    y = run(x, "sum", "mask", mask=mask, repeat=repeat, src_rep=src_rep)
    want = model_sum(x, "mask", 0, mask, repeat, src_rep)
    assert bits(y[0], dtype) == bits(want, dtype)


def test_reduce_sum_order_is_observable(device):
    """The count form adds the iterations' sums in order (ACC_VAL), the mask form in a tree over
    them: with fp16 partials 1024, 0.25, -1024, 0.25 the first gives 0.25, the second 0."""
    x = np.zeros(N, dtype=np.float16)
    x[0], x[128], x[256], x[384] = 1024, 0.25, -1024, 0.25
    seq = model_sum(x, "count", 512, 0, 0, 8)
    tree = model_sum(x, "mask", 0, 128, 4, 8)
    assert (float(seq), float(tree)) == (0.25, 0.0)
    assert run(x, "sum", "count", count=512)[0] == seq
    assert run(x, "sum", "mask", mask=128, repeat=4)[0] == tree


def test_reduce_sum_runtime_count(device):
    x = values("float32", 11, 4096)
    for count in (100, 4096):
        y = np.full(OUT, 7, dtype=np.float32)
        runtime_count_kernel[1, rt.current_stream()](x, y, count)
        assert bits(y[0], "float32") == bits(model_sum(x, "count", count, 0, 0, 8), "float32")


# ---- reduce_max / reduce_min -----------------------------------------------------------------

@pytest.mark.parametrize("op", ["max", "min"])
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("count", [1, 100, 256, 1000, 12800, 40960])
def test_reduce_extreme_count_form_with_index(device, op, dtype, count):
    x = values(dtype, count, spread=400)
    y = run(x, op, "count", count=count, cal_index=True)
    v, k = model_extreme(x, op, "count", count, 0, 0, 8)
    assert bits(y[0], dtype) == bits(v, dtype)
    assert int(bits(y[1], dtype)) == k % (1 << (8 * np.dtype(dtype).itemsize))
    np.testing.assert_array_equal(y[2:], np.full(OUT - 2, 7, dtype=dtype))


@pytest.mark.parametrize("op", ["max", "min"])
@pytest.mark.parametrize("dtype", DTYPES)
def test_reduce_extreme_without_index_keeps_dst1(device, op, dtype):
    x = values(dtype, 3, spread=40)
    y = run(x, op, "count", count=3000)
    assert bits(y[0], dtype) == bits(model_extreme(x, op, "count", 3000, 0, 0, 8)[0], dtype)
    assert y[1] == 7


@pytest.mark.parametrize("op", ["max", "min"])
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("mask,repeat,src_rep", [
    (37, 5, 8),
    ([0x8000_0000_F0F0_0001, 0xFFFF_0000_0000_0001], 3, 16),
    (64, 300, 8),
])
def test_reduce_extreme_mask_form(device, op, dtype, mask, repeat, src_rep):
    x = values(dtype, repeat + 1, spread=300)
    y = run(x, op, "mask", mask=mask, repeat=repeat, src_rep=src_rep, cal_index=True)
    v, k = model_extreme(x, op, "mask", 0, mask, repeat, src_rep)
    assert bits(y[0], dtype) == bits(v, dtype)
    assert int(bits(y[1], dtype)) == k


@pytest.mark.parametrize("dtype", DTYPES)
def test_reduce_max_nan_and_signed_zero(device, dtype):
    x = np.full(N, -5, dtype=dtype)
    x[300] = -0.0
    x[301] = 0.0
    y = run(x, "max", "count", count=1000, cal_index=True)
    assert bits(y[0], dtype) == bits(0.0, dtype) and int(bits(y[1], dtype)) == 301
    x[700] = np.nan
    x[900] = np.nan
    y = run(x, "max", "count", count=1000, cal_index=True)
    assert np.isnan(y[0]) and int(bits(y[1], dtype)) == 700


# ---- errors ------------------------------------------------------------------------------------

@asc.jit
def small_tmp_kernel(x: asc.GlobalAddress):
    src = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 0, 4096)
    tmp = asc.LocalTensor(asc.float32, asc.TPosition.VECCALC, 16384, 8)
    dst = asc.LocalTensor(asc.float32, asc.TPosition.VECOUT, 20480, 8)
    asc.reduce_max(dst, src, tmp, 4096, True)


@asc.jit
def runtime_max_kernel(x: asc.GlobalAddress, n: int):
    src = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 0, 4096)
    tmp = asc.LocalTensor(asc.float32, asc.TPosition.VECCALC, 16384, 256)
    dst = asc.LocalTensor(asc.float32, asc.TPosition.VECOUT, 20480, 8)
    asc.reduce_max(dst, src, tmp, n)


def test_reduce_too_small_tmp_names_the_size(device):
    x = np.zeros(4096, dtype=np.float32)
    with pytest.raises(CodegenError) as e:
        small_tmp_kernel[1, rt.current_stream()](x)
    text = str(e.value)
    assert "asc.reduce_max(dst, src, tmp, 4096, True)" in text
    assert "shared_tmp_buffer holds 8 elements" in text and "needs 144" in text


def test_reduce_max_runtime_count_is_refused_at_the_line(device):
    x = np.zeros(4096, dtype=np.float32)
    with pytest.raises(CodegenError) as e:
        runtime_max_kernel[1, rt.current_stream()](x, 100)
    text = str(e.value)
    assert "asc.reduce_max(dst, src, tmp, n)" in text and "compile-time int" in text
