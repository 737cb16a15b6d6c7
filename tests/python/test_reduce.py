"""The vector reductions (asc-api.md 4.10, ascendc-semantics.md 5.5): whole_reduce_max/min with
every ReduceOrder, block_reduce_sum/max/min, pair_reduce_sum, repeat_reduce_sum, against a numpy
model of lanes, blocks, strides and the hardware's order of operations."""
import numpy as np
import pytest

import asc
import asc.lib.runtime as rt

N = 2048  # source elements: room for every stride pattern below
M = 256   # destination elements


@asc.jit
def red_kernel(x: asc.GlobalAddress, y: asc.GlobalAddress, op: asc.ConstExpr[str],
               mask: asc.ConstExpr, repeat: asc.ConstExpr[int], dst_rep: asc.ConstExpr[int],
               src_blk: asc.ConstExpr[int], src_rep: asc.ConstExpr[int], order: asc.ConstExpr,
               setup: asc.ConstExpr[str]):
    n = 2048
    m = 256
    gx, gy = asc.GlobalTensor(), asc.GlobalTensor()
    gx.set_global_buffer(x)
    gy.set_global_buffer(y)
    src = asc.LocalTensor(x.dtype, asc.TPosition.VECIN, 0, n)
    dst = asc.LocalTensor(x.dtype, asc.TPosition.VECOUT, 16384, m)
    asc.data_copy(src, gx, n)
    asc.data_copy(dst, gy, m)
    asc.set_flag(asc.HardEvent.MTE2_V, 0)
    asc.wait_flag(asc.HardEvent.MTE2_V, 0)
    if setup == "counter":
        asc.set_mask_count()
    if op == "whole_reduce_max":
        if order is None:
            asc.whole_reduce_max(dst, src, mask, repeat, dst_rep, src_blk, src_rep)
        else:
            asc.whole_reduce_max(dst, src, mask, repeat, dst_rep, src_blk, src_rep, order=order)
    elif op == "whole_reduce_min":
        if order is None:
            asc.whole_reduce_min(dst, src, mask, repeat, dst_rep, src_blk, src_rep)
        else:
            asc.whole_reduce_min(dst, src, mask, repeat, dst_rep, src_blk, src_rep, order)
    elif op == "block_reduce_sum":
        asc.block_reduce_sum(dst, src, repeat, mask, dst_rep, src_blk, src_rep)
    elif op == "block_reduce_max":
        asc.block_reduce_max(dst, src, repeat, mask, dst_rep, src_blk, src_rep)
    elif op == "block_reduce_min":
        asc.block_reduce_min(dst, src, repeat=repeat, mask=mask, dst_rep_stride=dst_rep,
                             src_blk_stride=src_blk, src_rep_stride=src_rep)
    elif op == "pair_reduce_sum":
        asc.pair_reduce_sum(dst, src, repeat, mask, dst_rep, src_blk, src_rep)
    elif op == "repeat_reduce_sum":
        # dst_blk_stride 3: strides nothing, an iteration writes one element
        asc.repeat_reduce_sum(dst, src, repeat, mask, 3, src_blk, dst_rep, src_rep)
    elif op == "whole_reduce_sum":
        asc.whole_reduce_sum(dst, src, mask, repeat, dst_rep, src_blk, src_rep)
    if setup == "counter":
        asc.set_mask_norm()
        asc.reset_mask()
    asc.set_flag(asc.HardEvent.V_MTE3, 0)
    asc.wait_flag(asc.HardEvent.V_MTE3, 0)
    asc.data_copy(gy, dst, m)


def active_lanes(mask, esize, repeat, counter):
    """Per iteration, the lanes the mask register enables."""
    per = 256 // esize
    if counter:
        reps = (mask + per - 1) // per
        return [[e for e in range(per) if r * per + e < mask] for r in range(reps)]
    if isinstance(mask, int):
        act = list(range(min(mask, per)))
    else:
        bits = mask[0] | ((mask[1] << 64) if per > 64 else 0)
        act = [e for e in range(per) if (bits >> e) & 1]
    return [act for _ in range(repeat)]


def src_index(r, e, esize, src_blk, src_rep):
    per_block = 32 // esize
    return (r * src_rep * 32 + (e // per_block) * src_blk * 32) // esize + e % per_block


def extreme(vals, lanes_, want_max):
    """(value, lane): a NaN wins (the first), else the first lane of the extreme; -0 < +0."""
    best = None
    for e in lanes_:
        v = vals[e]
        if best is None:
            best = e
            continue
        b = vals[best]
        if np.isnan(b):
            continue
        if np.isnan(v):
            best = e
            continue
        key = (v, not np.signbit(v)) if want_max else (-v, bool(np.signbit(v)))
        bkey = (b, not np.signbit(b)) if want_max else (-b, bool(np.signbit(b)))
        if key > bkey:
            best = e
    return vals[best], best


def tree_sum(values):
    """Adjacent pairs, level by level, each addition in the element type."""
    v = list(values)
    while len(v) > 1:
        nxt = [v[i] + v[i + 1] for i in range(0, len(v) - 1, 2)]
        if len(v) % 2:
            nxt.append(v[-1])
        v = nxt
    return v[0]


def model(op, x, y, mask, repeat, dst_rep, src_blk, src_rep, order=0, counter=False):
    """dst after the reduction: per iteration, the results of each group with an active lane,
    dense, iterations dst_rep result-units apart."""
    esize = x.dtype.itemsize
    per = 256 // esize
    uint = np.uint16 if esize == 2 else np.uint32
    out = y.copy().view(uint)
    for r, act in enumerate(active_lanes(mask, esize, repeat, counter)):
        act = set(act)
        if not act:
            continue
        vals = [x[src_index(r, e, esize, src_blk, src_rep)] for e in range(per)]
        if op in ("whole_reduce_max", "whole_reduce_min"):
            v, i = extreme(vals, sorted(act), op == "whole_reduce_max")
            vbits = np.array([v], dtype=x.dtype).view(uint)[0]
            parts = [[vbits, i], [i, vbits], [vbits], [i]][order]
            base = r * dst_rep * len(parts)
            for k, p in enumerate(parts):
                out[base + k] = p
        elif op in ("whole_reduce_sum", "repeat_reduce_sum"):
            v = tree_sum([vals[e] if e in act else x.dtype.type(0) for e in range(per)])
            out[r * dst_rep] = np.array([v], dtype=x.dtype).view(uint)[0]
        else:
            group = 2 if op == "pair_reduce_sum" else 32 // esize
            results = per // group
            for j in range(results):
                lanes_ = [e for e in range(j * group, (j + 1) * group) if e in act]
                if not lanes_:
                    continue
                if op.endswith("_sum"):
                    v = tree_sum([vals[e] if e in lanes_ else x.dtype.type(0)
                                  for e in range(j * group, (j + 1) * group)])
                else:
                    v, _ = extreme(vals, lanes_, op == "block_reduce_max")
                out[r * dst_rep * results + j] = np.array([v], dtype=x.dtype).view(uint)[0]
    return out


def run(op, x, mask, repeat, dst_rep, src_blk, src_rep, order=None, setup="norm"):
    y = np.full(M, 77, dtype=x.dtype)
    out = y.copy()
    red_kernel[1, rt.current_stream()](x, out, op, mask, repeat, dst_rep, src_blk, src_rep,
                                       order, setup)
    want = model(op, x, y, mask, repeat, dst_rep, src_blk, src_rep,
                 0 if order is None else int(order), setup == "counter")
    uint = np.uint16 if x.dtype.itemsize == 2 else np.uint32
    return out.view(uint), want


def data(dtype, seed=3):
    rng = np.random.default_rng(seed)
    # Few distinct values: ties are frequent, so the first lane's win is tested.
    return (rng.integers(-40, 40, N) / 4).astype(dtype)


# ---- whole_reduce_max / whole_reduce_min ---------------------------------------------------

ORDERS = [asc.ReduceOrder.ORDER_VALUE_INDEX, asc.ReduceOrder.ORDER_INDEX_VALUE,
          asc.ReduceOrder.ORDER_ONLY_VALUE, asc.ReduceOrder.ORDER_ONLY_INDEX]


@pytest.mark.parametrize("op", ["whole_reduce_max", "whole_reduce_min"])
@pytest.mark.parametrize("dtype", ["float16", "float32"])
@pytest.mark.parametrize("order", ORDERS + [None])
def test_whole_reduce_extreme_every_order(device, op, dtype, order):
    x = data(dtype)
    out, want = run(op, x, 128, 4, 1, 1, 8, order)
    np.testing.assert_array_equal(out, want)


@pytest.mark.parametrize("op", ["whole_reduce_max", "whole_reduce_min"])
@pytest.mark.parametrize("dtype", ["float16", "float32"])
@pytest.mark.parametrize("mask,repeat,dst_rep,src_blk,src_rep,order", [
    (37, 3, 3, 1, 8, asc.ReduceOrder.ORDER_VALUE_INDEX),       # partial mask, spaced results
    ([0x8000_0000_F0F0_0001, 0xFFFF_0000_0000_0001], 2, 2, 2, 16,
     asc.ReduceOrder.ORDER_INDEX_VALUE),                      # bit mask, strides
    (100, 2, 5, 1, 12, asc.ReduceOrder.ORDER_ONLY_INDEX),     # ONLY orders: 1-element units
])
def test_whole_reduce_extreme_masks_and_strides(device, op, dtype, mask, repeat, dst_rep,
                                                src_blk, src_rep, order):
    x = data(dtype, 5)
    out, want = run(op, x, mask, repeat, dst_rep, src_blk, src_rep, order)
    np.testing.assert_array_equal(out, want)


@pytest.mark.parametrize("op", ["whole_reduce_max", "whole_reduce_min"])
@pytest.mark.parametrize("dtype", ["float16", "float32"])
def test_whole_reduce_extreme_counter_mode(device, op, dtype):
    # Counter mode: the mask is the total lane count; the last iteration is partial.
    x = data(dtype, 7)
    count = 300 if dtype == "float16" else 150
    out, want = run(op, x, count, 1, 1, 1, 8, asc.ReduceOrder.ORDER_VALUE_INDEX, "counter")
    np.testing.assert_array_equal(out, want)


@pytest.mark.parametrize("dtype", ["float16", "float32"])
def test_whole_reduce_extreme_ties_nan_and_signed_zero(device, dtype):
    x = np.zeros(N, dtype=dtype)
    per = 256 // x.dtype.itemsize
    x[0], x[1] = -0.0, 0.0          # iteration 0: -0 < +0, so max is lane 1, min lane 0
    x[per + 3], x[per + 9] = np.nan, 5.0   # iteration 1: the NaN lane wins either way
    x[2 * per + 4] = x[2 * per + 7] = 2.0  # iteration 2: a tie goes to the first lane
    x[2 * per:3 * per][x[2 * per:3 * per] == 0] = -1.0
    for op in ("whole_reduce_max", "whole_reduce_min"):
        out, want = run(op, x, per, 3, 1, 1, 8, asc.ReduceOrder.ORDER_ONLY_INDEX)
        np.testing.assert_array_equal(out, want)
        got = list(out[:3])
        assert got == ([1, 3, 4] if op == "whole_reduce_max" else [0, 3, 0])


def test_whole_reduce_max_masked_lanes_do_not_compete(device):
    x = np.full(N, -3.0, dtype=np.float32)
    x[10] = 100.0   # outside the mask
    x[2] = -1.0
    out, _ = run("whole_reduce_max", x, 8, 1, 1, 1, 8, asc.ReduceOrder.ORDER_VALUE_INDEX)
    assert out.view(np.float32)[0] == -1.0 and out[1] == 2


def test_whole_reduce_max_rejects_a_bad_order_and_is_set_mask(device):
    x = data("float16")
    with pytest.raises(Exception, match="ReduceOrder"):
        run("whole_reduce_max", x, 128, 1, 1, 1, 8, 7)


# ---- block_reduce_sum/max/min, pair_reduce_sum, repeat_reduce_sum ---------------------------

BLOCK_PAIR = ["block_reduce_sum", "block_reduce_max", "block_reduce_min", "pair_reduce_sum"]


@pytest.mark.parametrize("op", BLOCK_PAIR + ["repeat_reduce_sum"])
@pytest.mark.parametrize("dtype", ["float16", "float32"])
@pytest.mark.parametrize("mask,repeat,dst_rep,src_blk,src_rep", [
    (128, 3, 1, 1, 8),        # full iterations, results dense across iterations
    (37, 2, 3, 1, 8),         # partial mask (a partial block, empty blocks), spaced results
    (100, 2, 2, 2, 20),       # block and repeat strides on the source
])
def test_group_reductions(device, op, dtype, mask, repeat, dst_rep, src_blk, src_rep):
    x = (np.random.default_rng(11).uniform(-8, 8, N)).astype(dtype)
    out, want = run(op, x, mask, repeat, dst_rep, src_blk, src_rep)
    np.testing.assert_array_equal(out, want)


@pytest.mark.parametrize("op", BLOCK_PAIR)
@pytest.mark.parametrize("dtype", ["float16", "float32"])
def test_group_reductions_bit_mask(device, op, dtype):
    x = data(dtype, 13)
    mask = [0x0000_0F00_8001_0003, 0xF000_0000_0000_0001]
    out, want = run(op, x, mask, 2, 1, 1, 8)
    np.testing.assert_array_equal(out, want)


@pytest.mark.parametrize("op", BLOCK_PAIR + ["repeat_reduce_sum"])
@pytest.mark.parametrize("dtype", ["float16", "float32"])
def test_group_reductions_counter_mode(device, op, dtype):
    x = (np.random.default_rng(17).uniform(-8, 8, N)).astype(dtype)
    count = 300 if dtype == "float16" else 150
    out, want = run(op, x, count, 1, 1, 1, 8, setup="counter")
    np.testing.assert_array_equal(out, want)


def test_block_reduce_sum_is_a_tree_per_block(device):
    # 2048 + eight 1s in one fp16 block: sequentially every 1 rounds away, the tree keeps them.
    x = np.zeros(N, dtype=np.float16)
    x[0] = 2048
    x[1:16] = 1
    out, _ = run("block_reduce_sum", x, 128, 1, 1, 1, 8)
    got = out.view(np.float16)[0]
    assert got == tree_sum(list(x[:16]))
    sequential = np.float16(0)
    for v in x[:16]:
        sequential = np.float16(sequential + v)
    assert got != sequential


def test_pair_reduce_sum_writes_half_an_iteration(device):
    x = np.arange(N, dtype=np.float32)
    out, _ = run("pair_reduce_sum", x, 64, 2, 1, 1, 8)
    got = out.view(np.float32)
    np.testing.assert_array_equal(got[:64], x[0:128:2] + x[1:128:2])
    assert got[64] == 77


def test_block_reduce_has_no_is_set_mask_and_needs_repeat_first(device):
    x = data("float16")
    with pytest.raises(Exception, match="block_reduce_sum"):
        run("block_reduce_sum", x, [1, 2, 3], 1, 1, 1, 8)
