"""The mask/repeat forms of the element-wise vector ops (asc-api.md 4.1, 4.5-4.7) and the mask
register (set_vector_mask, counter mode), against a numpy model of lanes, blocks and strides."""
import numpy as np
import pytest

import asc
import asc.lib.runtime as rt

N = 1024  # elements per operand: room for every stride pattern below
OPS = {name: getattr(asc, name) for name in (
    "add", "sub", "mul", "max", "min", "abs", "relu", "sqrt", "adds", "muls", "maxs", "add_relu",
    "sub_relu", "bitwise_and", "bitwise_or", "mul_add_dst", "fused_mul_add", "fused_mul_add_relu",
    "bitwise_not", "leaky_relu", "shift_left", "shift_right", "axpy", "duplicate")}


@asc.jit
def repeat_kernel(a: asc.GlobalAddress, b: asc.GlobalAddress, c: asc.GlobalAddress,
                  out: asc.GlobalAddress, scalar, op: asc.ConstExpr[str],
                  layout: asc.ConstExpr[str], mask: asc.ConstExpr, repeat: asc.ConstExpr[int],
                  strides: asc.ConstExpr, setup: asc.ConstExpr[str]):
    n = 1024
    ga, gb, gc, go = asc.GlobalTensor(), asc.GlobalTensor(), asc.GlobalTensor(), asc.GlobalTensor()
    ga.set_global_buffer(a)
    gb.set_global_buffer(b)
    gc.set_global_buffer(c)
    go.set_global_buffer(out)
    nbytes = n * a.dtype.sizeof()
    la = asc.LocalTensor(a.dtype, asc.TPosition.VECIN, 0, n)
    lb = asc.LocalTensor(a.dtype, asc.TPosition.VECIN, nbytes, n)
    lc = asc.LocalTensor(a.dtype, asc.TPosition.VECOUT, 2 * nbytes, n)
    asc.data_copy(la, ga, n)
    asc.data_copy(lb, gb, n)
    asc.data_copy(lc, gc, n)
    asc.set_flag(asc.HardEvent.MTE2_V, 0)
    asc.wait_flag(asc.HardEvent.MTE2_V, 0)
    set_mask = True
    if setup == "words":
        asc.set_vector_mask(mask[1], mask[0], dtype=a.dtype)
        set_mask = False
    elif setup == "counter":
        asc.set_mask_count()
        asc.set_vector_mask(mask, dtype=a.dtype, mode=asc.MaskMode.COUNTER)
        set_mask = False
    elif setup == "counter_own_mask":
        asc.set_mask_count()
    if setup == "count":
        if layout == "binary":
            OPS[op](lc, la, lb, mask)
        elif layout == "unary":
            OPS[op](lc, la, count=mask)
        elif layout == "fill":
            OPS[op](lc, scalar, mask)
        else:
            OPS[op](lc, la, scalar, mask)
    elif layout == "binary":
        params = asc.BinaryRepeatParams(strides[0], strides[1], strides[2], strides[3],
                                        strides[4], strides[5])
        OPS[op](lc, la, lb, mask, repeat, params, is_set_mask=set_mask)
    elif layout == "unary":
        params = asc.UnaryRepeatParams(strides[0], strides[1], strides[2], strides[3])
        OPS[op](lc, la, mask=mask, repeat_times=repeat, repeat_params=params,
                         is_set_mask=set_mask)
    elif layout == "fill":
        OPS[op](lc, scalar, mask, repeat, strides[0], strides[2], set_mask)
    else:
        params = asc.UnaryRepeatParams(strides[0], strides[1], strides[2], strides[3])
        OPS[op](lc, la, scalar, mask, repeat, params, set_mask)
    if setup in ("counter", "counter_own_mask"):
        asc.set_mask_norm()
        asc.reset_mask()
    asc.set_flag(asc.HardEvent.V_MTE3, 0)
    asc.wait_flag(asc.HardEvent.V_MTE3, 0)
    asc.data_copy(go, lc, n)


def lanes(mask, esize, repeats, counter):
    """Active (iteration, lane) pairs: what the chip's mask register enables."""
    per_repeat = 256 // esize
    if counter:
        return [(r, e) for r in range((mask + per_repeat - 1) // per_repeat)
                for e in range(per_repeat) if r * per_repeat + e < mask]
    if isinstance(mask, int):
        active = list(range(min(mask, per_repeat)))
    else:
        bits = mask[0] | ((mask[1] << 64) if per_repeat > 64 else 0)
        active = [e for e in range(per_repeat) if (bits >> e) & 1]
    return [(r, e) for r in range(repeats) for e in active]


def model(fn, dst, srcs, mask, repeats, blk, rep, counter=False):
    """dst after an op computing fn(*src_lanes) on the active lanes."""
    return model_with_dst(lambda d, *xs: fn(*xs), dst, srcs, mask, repeats, blk, rep, counter)


def model_with_dst(fn, dst, srcs, mask, repeats, blk, rep, counter=False):
    """The same for ops that also read dst: fn(old_dst_lanes, *src_lanes)."""
    esize = dst.dtype.itemsize
    per_block = 32 // esize
    out = dst.copy()
    pairs = lanes(mask, esize, repeats, counter)

    def index(k, r, e):
        return (r * rep[k] * 32 + (e // per_block) * blk[k] * 32) // esize + e % per_block

    d = np.array([index(0, r, e) for r, e in pairs], dtype=np.int64)
    args = [s[np.array([index(k + 1, r, e) for r, e in pairs], dtype=np.int64)]
            for k, s in enumerate(srcs)]
    with np.errstate(all="ignore"):
        out[d] = fn(dst[d], *args)
    return out


def run(op, layout, dtype, mask, repeat, strides, setup="", scalar=0):
    rng = np.random.default_rng(7)
    if np.dtype(dtype).kind == "f":
        a, b, c = (rng.uniform(-40, 40, N).astype(dtype) for _ in range(3))
    else:
        a, b, c = (rng.integers(-3000, 3000, N).astype(dtype) for _ in range(3))
    out = np.zeros_like(a)
    repeat_kernel[1, rt.current_stream()](a, b, c, out, scalar, op=op, layout=layout, mask=mask,
                                          repeat=repeat, strides=strides, setup=setup)
    return a, b, c, out


BINARY = {"add": np.add, "sub": np.subtract, "mul": np.multiply, "max": np.maximum,
          "min": np.minimum}
DENSE2 = (1, 1, 8, 8)
DENSE3 = (1, 1, 1, 8, 8, 8)


@pytest.mark.parametrize("dtype", ["float16", "float32", "int16", "int32"])
@pytest.mark.parametrize("op", sorted(BINARY))
@pytest.mark.parametrize("mask,repeat,strides", [
    (128, 2, DENSE3),                           # full iterations, dense
    (37, 3, (2, 1, 3, 16, 8, 20)),              # partial continuous mask, every stride changed
    ([0xF0F0_0000_0000_FFFF, 0x8000_0000_0000_0001], 2, (1, 2, 1, 8, 16, 0)),  # bit mask
])
def test_binary_repeat_forms(device, op, dtype, mask, repeat, strides):
    a, b, c, out = run(op, "binary", dtype, mask, repeat, strides)
    want = model(BINARY[op], c, [a, b], mask, repeat, strides[:3], strides[3:])
    np.testing.assert_array_equal(out, want)


def test_b32_ignores_the_high_mask_word(device):
    a, b, c, out = run("add", "binary", "float32", [0xFF, 0xFFFF_FFFF_FFFF_FFFF], 1, DENSE3)
    want = c.copy()
    want[:8] = a[:8] + b[:8]
    np.testing.assert_array_equal(out, want)


@pytest.mark.parametrize("dtype", ["float16", "float32"])
@pytest.mark.parametrize("op,fn", [("abs", np.abs), ("relu", lambda x: np.maximum(x, 0)),
                                   ("sqrt", None)])
def test_unary_repeat_forms(device, op, fn, dtype):
    strides = (2, 1, 20, 8)
    a, b, c, out = run(op, "unary", dtype, 50, 2, strides)
    if fn is None:
        def fn(x):
            return np.sqrt(x.astype(np.float64)).astype(dtype)
    want = model(fn, c, [a], 50, 2, strides[:2], strides[2:])
    if op == "sqrt":
        np.testing.assert_array_equal(np.isnan(out), np.isnan(want))
        np.testing.assert_allclose(np.nan_to_num(out), np.nan_to_num(want), rtol=1e-3)
    else:
        np.testing.assert_array_equal(out, want)


@pytest.mark.parametrize("dtype,scalar", [("int32", 7), ("float16", 2.5), ("int16", -3)])
@pytest.mark.parametrize("op,fn", [("adds", np.add), ("muls", np.multiply),
                                   ("maxs", np.maximum)])
def test_scalar_repeat_forms(device, op, fn, dtype, scalar):
    strides = (1, 3, 8, 24)
    a, b, c, out = run(op, "scalar", dtype, [0x5555_5555_5555_5555, 0x1], 2, strides,
                       scalar=scalar)
    s = np.array(scalar).astype(dtype)
    want = model(lambda x: fn(x, s).astype(dtype), c, [a], [0x5555_5555_5555_5555, 0x1], 2,
                 strides[:2], strides[2:])
    np.testing.assert_array_equal(out, want)


def test_is_set_mask_false_uses_set_vector_mask(device):
    mask = [0x0000_0000_0000_00F0, 0x0000_0000_0000_0003]
    a, b, c, out = run("sub", "binary", "float16", mask, 2, DENSE3, setup="words")
    want = model(np.subtract, c, [a, b], mask, 2, DENSE3[:3], DENSE3[3:])
    np.testing.assert_array_equal(out, want)


@pytest.mark.parametrize("setup", ["counter", "counter_own_mask"])
@pytest.mark.parametrize("dtype,count", [("float16", 300), ("float32", 150), ("int32", 64)])
def test_counter_mode_counts_elements_over_iterations(device, setup, dtype, count):
    # In counter mode repeat_times is ignored: the count decides how many iterations run.
    a, b, c, out = run("add", "binary", dtype, count, 1, (1, 1, 1, 8, 8, 8), setup=setup)
    want = c.copy()
    want[:count] = a[:count] + b[:count]
    np.testing.assert_array_equal(out, want)


def test_a_zero_mask_or_zero_repeats_writes_nothing(device):
    for mask, repeat in ((0, 2), (128, 0), ([0, 0], 3)):
        a, b, c, out = run("add", "binary", "float16", mask, repeat, DENSE3)
        np.testing.assert_array_equal(out, c)


def test_full_iterations_cover_exactly_repeat_times_256_bytes(device):
    a, b, c, out = run("add", "binary", "float16", 128, 4, DENSE3)
    np.testing.assert_array_equal(out[:512], (a + b)[:512])
    np.testing.assert_array_equal(out[512:], c[512:])


# ---- the families beyond add/sub/mul: one table, both forms --------------------------------

def _relu(x):
    return np.maximum(x, np.zeros_like(x))


FAMILY = [
    # op, layout, dtypes, fn(dst, srcs..., scalar) -> new dst values
    ("add_relu", "binary", ["float16", "float32", "int16"], lambda d, a, b, s: _relu(a + b)),
    ("sub_relu", "binary", ["float16", "float32", "int16"], lambda d, a, b, s: _relu(a - b)),
    ("bitwise_and", "binary", ["int16", "uint16"], lambda d, a, b, s: a & b),
    ("bitwise_or", "binary", ["int16", "uint16"], lambda d, a, b, s: a | b),
    ("mul_add_dst", "binary", ["float16", "float32"], lambda d, a, b, s: (a * b) + d),
    ("fused_mul_add", "binary", ["float16", "float32"], lambda d, a, b, s: (a * d) + b),
    ("fused_mul_add_relu", "binary", ["float16", "float32"],
     lambda d, a, b, s: _relu((a * d) + b)),
    ("bitwise_not", "unary", ["int16", "uint16"], lambda d, a, s: ~a),
    ("leaky_relu", "scalar", ["float16", "float32"],
     lambda d, a, s: np.where(a >= 0, a, a * s)),
    ("shift_left", "scalar", ["int16", "uint16", "int32", "uint32"], lambda d, a, s: a << s),
    ("shift_right", "scalar", ["int16", "uint16", "int32", "uint32"], lambda d, a, s: a >> s),
    ("axpy", "scalar", ["float16", "float32"], lambda d, a, s: (a * s) + d),
    ("duplicate", "fill", ["float16", "float32", "int16", "uint16", "int32", "uint32"],
     lambda d, s: np.full_like(d, s)),
]
SCALARS = {"leaky_relu": 0.25, "shift_left": 3, "shift_right": 2, "axpy": -1.5, "duplicate": 7}
CASES = [(op, layout, dtype, fn) for op, layout, dtypes, fn in FAMILY for dtype in dtypes]


def _inputs(dtype):
    rng = np.random.default_rng(11)
    kind = np.dtype(dtype).kind
    if kind == "f":
        return [rng.uniform(-8, 8, N).astype(dtype) for _ in range(3)]
    info = np.iinfo(dtype)
    lo, hi = max(info.min, -30000), min(info.max, 30000)
    return [rng.integers(lo, hi, N).astype(dtype) for _ in range(3)]


def _run_family(op, layout, dtype, mask, repeat, strides, setup):
    a, b, c = _inputs(dtype)
    out = np.zeros_like(a)
    scalar = SCALARS.get(op, 0)
    repeat_kernel[1, rt.current_stream()](a, b, c, out, scalar, op=op, layout=layout, mask=mask,
                                          repeat=repeat, strides=strides, setup=setup)
    s = np.array(scalar).astype(dtype)
    return a, b, c, out, s


def _apply(fn, layout, c, a, b, s):
    if layout == "binary":
        return lambda d, x, y: fn(d, x, y, s)
    if layout == "fill":
        return lambda d: fn(d, s)
    return lambda d, x: fn(d, x, s)


@pytest.mark.parametrize("op,layout,dtype,fn", CASES, ids=[f"{c[0]}-{c[2]}" for c in CASES])
def test_family_count_form(device, op, layout, dtype, fn):
    count = 300
    a, b, c, out, s = _run_family(op, layout, dtype, count, 1, DENSE3, "count")
    args = {"binary": [a, b], "unary": [a], "scalar": [a], "fill": []}[layout]
    want = c.copy()
    with np.errstate(all="ignore"):
        new = _apply(fn, layout, c, a, b, s)(c[:count], *[x[:count] for x in args])
    want[:count] = np.asarray(new).astype(dtype)
    np.testing.assert_array_equal(out, want)


@pytest.mark.parametrize("op,layout,dtype,fn", CASES, ids=[f"{c[0]}-{c[2]}" for c in CASES])
def test_family_repeat_form_with_strides_and_partial_mask(device, op, layout, dtype, fn):
    strides = (2, 1, 1, 20, 8, 9) if layout == "binary" else (2, 1, 20, 9)
    mask = [0xF0F0_F0F0_0000_FFFF, 0x0000_0000_0000_00FF]
    a, b, c, out, s = _run_family(op, layout, dtype, mask, 2, strides, "")
    half = len(strides) // 2
    args = {"binary": [a, b], "unary": [a], "scalar": [a], "fill": []}[layout]
    apply = _apply(fn, layout, c, a, b, s)
    per_dst = lambda d, *xs: np.asarray(apply(d, *xs)).astype(dtype)  # noqa: E731
    blk, rep = strides[:half], strides[half:]
    if layout == "fill":
        blk, rep = (strides[0],), (strides[2],)
    want = model_with_dst(per_dst, c, args, mask, 2, blk, rep)
    np.testing.assert_array_equal(out, want)



# ---- whole_reduce_sum: one sum per iteration, in the hardware's tree order -----------------

@asc.jit
def reduce_kernel(x: asc.GlobalAddress, y: asc.GlobalAddress, mask: asc.ConstExpr,
                  repeat: asc.ConstExpr[int], dst_rep: asc.ConstExpr[int],
                  src_blk: asc.ConstExpr[int], src_rep: asc.ConstExpr[int]):
    n = 1024
    gx, gy = asc.GlobalTensor(), asc.GlobalTensor()
    gx.set_global_buffer(x)
    gy.set_global_buffer(y)
    src = asc.LocalTensor(x.dtype, asc.TPosition.VECIN, 0, n)
    dst = asc.LocalTensor(x.dtype, asc.TPosition.VECOUT, 8192, 64)
    asc.data_copy(src, gx, n)
    asc.data_copy(dst, gy, 64)
    asc.set_flag(asc.HardEvent.MTE2_V, 0)
    asc.wait_flag(asc.HardEvent.MTE2_V, 0)
    asc.whole_reduce_sum(dst, src, mask, repeat, dst_rep, src_blk, src_rep)
    asc.set_flag(asc.HardEvent.V_MTE3, 0)
    asc.wait_flag(asc.HardEvent.V_MTE3, 0)
    asc.data_copy(gy, dst, 64)


def tree_sum(values):
    """Adjacent pairs, level by level, each addition in the element type."""
    v = list(values)
    while len(v) > 1:
        nxt = [v[i] + v[i + 1] for i in range(0, len(v) - 1, 2)]
        if len(v) % 2:
            nxt.append(v[-1])
        v = nxt
    return v[0]


@pytest.mark.parametrize("dtype", ["float16", "float32"])
@pytest.mark.parametrize("mask,repeat,dst_rep,src_blk,src_rep", [
    (128, 3, 1, 1, 8),                         # full iterations, dense results
    (37, 2, 4, 1, 8),                          # partial mask, results 4 elements apart
    ([0xFFFF_0000_FFFF_0001, 0x8000_0000_0000_0001], 2, 2, 2, 16),  # bit mask and strides
])
def test_whole_reduce_sum_adds_each_iteration_in_tree_order(device, dtype, mask, repeat,
                                                            dst_rep, src_blk, src_rep):
    rng = np.random.default_rng(2)
    x = rng.uniform(-4, 4, N).astype(dtype)
    y = np.full(64, 99, dtype=dtype)
    out = y.copy()
    reduce_kernel[1, rt.current_stream()](x, out, mask, repeat, dst_rep, src_blk, src_rep)
    esize = x.dtype.itemsize
    per_repeat, per_block = 256 // esize, 32 // esize
    active = {e for r, e in lanes(mask, esize, 1, False)}
    want = y.copy()
    for r in range(repeat):
        vals = []
        for e in range(per_repeat):
            idx = (r * src_rep * 32 + (e // per_block) * src_blk * 32) // esize + e % per_block
            vals.append(x[idx] if e in active else x.dtype.type(0))
        want[r * dst_rep] = tree_sum(vals)
    np.testing.assert_array_equal(out, want)


def test_half_tree_sum_differs_from_a_sequential_sum(device):
    # The tree is observable: 2048 + 1 + 1 + ... rounds away the ones one at a time
    # sequentially, but the tree adds the ones to each other first.
    x = np.zeros(N, dtype=np.float16)
    x[0] = 2048
    x[1:128] = 1
    out = np.zeros(64, dtype=np.float16)
    reduce_kernel[1, rt.current_stream()](x, out, 128, 1, 1, 1, 8)
    assert out[0] == tree_sum(list(x[:128]))
    sequential = np.float16(0)
    for v in x[:128]:
        sequential = np.float16(sequential + v)
    assert out[0] != sequential


@asc.jit
def traced_repeat_kernel(a: asc.GlobalAddress, out: asc.GlobalAddress, repeat: int, mask: int,
                         stride: int):
    ga, go = asc.GlobalTensor(), asc.GlobalTensor()
    ga.set_global_buffer(a)
    go.set_global_buffer(out)
    la = asc.LocalTensor(a.dtype, asc.TPosition.VECIN, 0, 1024)
    lc = asc.LocalTensor(a.dtype, asc.TPosition.VECOUT, 4096, 1024)
    asc.data_copy(la, ga, 1024)
    asc.data_copy(lc, go, 1024)
    asc.set_flag(asc.HardEvent.MTE2_V, 0)
    asc.wait_flag(asc.HardEvent.MTE2_V, 0)
    # Runtime mask, iterations and strides: converted (uint8, int64, uint16) before the op.
    asc.adds(lc, la, 1.0, mask, repeat, asc.UnaryRepeatParams(1, 1, stride, stride))
    asc.set_flag(asc.HardEvent.V_MTE3, 0)
    asc.wait_flag(asc.HardEvent.V_MTE3, 0)
    asc.data_copy(go, lc, 1024)


def test_runtime_mask_repeat_and_strides(device):
    a = np.arange(1024, dtype=np.float32)
    out = np.zeros(1024, dtype=np.float32)
    traced_repeat_kernel[1, rt.current_stream()](a, out, 3, 10, 16)
    want = np.zeros(1024, dtype=np.float32)
    for r in range(3):
        want[r * 128:r * 128 + 10] = a[r * 128:r * 128 + 10] + 1
    np.testing.assert_array_equal(out, want)


@pytest.mark.parametrize("op,layout,dtype,fn", CASES, ids=[f"{c[0]}-{c[2]}" for c in CASES])
def test_family_counter_mode_with_strides(device, op, layout, dtype, fn):
    # Counter mode: set_vector_mask(count, mode=COUNTER) enables `count` elements over as many
    # iterations as they need (repeat_times is ignored); the strides still place each iteration.
    count = 200
    strides = (1, 2, 1, 10, 16, 8) if layout == "binary" else (1, 2, 10, 16)
    a, b, c, out, s = _run_family(op, layout, dtype, count, 1, strides, "counter")
    half = len(strides) // 2
    args = {"binary": [a, b], "unary": [a], "scalar": [a], "fill": []}[layout]
    apply = _apply(fn, layout, c, a, b, s)
    per_dst = lambda d, *xs: np.asarray(apply(d, *xs)).astype(dtype)  # noqa: E731
    blk, rep = strides[:half], strides[half:]
    if layout == "fill":
        blk, rep = (strides[0],), (strides[2],)
    want = model_with_dst(per_dst, c, args, count, 1, blk, rep, counter=True)
    np.testing.assert_array_equal(out, want)


@asc.jit
def accumulate_kernel(a: asc.GlobalAddress, out: asc.GlobalAddress, op: asc.ConstExpr[str]):
    ga, go = asc.GlobalTensor(), asc.GlobalTensor()
    ga.set_global_buffer(a)
    go.set_global_buffer(out)
    src = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 0, 512)
    acc = asc.LocalTensor(asc.float32, asc.TPosition.VECOUT, 2048, 64)
    asc.data_copy(src, ga, 512)
    asc.set_flag(asc.HardEvent.MTE2_V, 0)
    asc.wait_flag(asc.HardEvent.MTE2_V, 0)
    asc.data_copy(acc, src, 64)
    asc.pipe_barrier(asc.PipeID.PIPE_V)
    OPS[op](acc, src[64:], acc, 64, 7, asc.BinaryRepeatParams(1, 1, 1, 0, 8, 0))
    asc.set_flag(asc.HardEvent.V_MTE3, 0)
    asc.wait_flag(asc.HardEvent.V_MTE3, 0)
    asc.data_copy(go, acc, 64)


@pytest.mark.parametrize("op, fold", [("add", np.add), ("max", np.maximum)])
def test_iterations_see_earlier_iterations_writes(device, op, fold):
    """dst and src1 with repeat stride 0 fold 7 more repeats into one: each iteration reads what
    the one before wrote (CANN's softmax reductions rely on it, docs/adv.md)."""
    a = np.random.default_rng(2).uniform(-10, 10, 512).astype(np.float32)
    out = np.zeros(64, np.float32)
    accumulate_kernel[1, rt.current_stream()](a, out, op)
    want = a[:64].copy()
    for r in range(1, 8):
        want = fold(a[64 * r:64 * r + 64], want).astype(np.float32)
    np.testing.assert_array_equal(out, want)
