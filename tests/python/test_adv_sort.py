"""asc.adv.concat and asc.adv.extract (sort.py), CANN 8.1's A2 forms, against numpy: extract of
hand-made 8-byte (value, uint32 index) structures, the concat -> asc.sort -> extract round trip
(full sort and sort32 groups), half's index gather reaching twice as far as its values, concat
binding dst to src, and the argument checks."""
import numpy as np
import pytest

import asc
import asc.lib.runtime as rt
from asc.codegen.errors import CodegenError
from adv_kernels import assert_clean

DTYPES = {"f32": np.float32, "f16": np.float16}
FILL = 7  # uint32 words put after the sorted structures: what half's index gather reads there


def structs(dtype):
    if np.dtype(dtype) == np.float16:
        return np.dtype([("value", "<f2"), ("pad", "<u2"), ("index", "<u4")])
    return np.dtype([("value", "<f4"), ("index", "<u4")])


@asc.jit
def sort_kernel(values: asc.GlobalAddress, index: asc.GlobalAddress, raw: asc.GlobalAddress,
                out_value: asc.GlobalAddress, out_index: asc.GlobalAddress,
                n: asc.ConstExpr[int], mode: asc.ConstExpr[str]):
    """mode "extract": extract(raw structures); "full" / "groups": concat, sort (full or not),
    extract; "concat": concat, then the concat handle copied out ("plain": src itself). The
    structure buffer has room for 2n structures, the second n filled with FILL words;
    out_index has room for 2n."""
    gv, gi, gr = asc.GlobalTensor(), asc.GlobalTensor(), asc.GlobalTensor()
    go, gx = asc.GlobalTensor(), asc.GlobalTensor()
    gv.set_global_buffer(values)
    gi.set_global_buffer(index)
    gr.set_global_buffer(raw)
    go.set_global_buffer(out_value)
    gx.set_global_buffer(out_index)
    per = 8 // values.dtype.sizeof()  # elements of the value type per structure
    vb = n * values.dtype.sizeof()
    s = asc.LocalTensor(values.dtype, asc.TPosition.VECIN, 0, n)
    i = asc.LocalTensor(asc.uint32, asc.TPosition.VECIN, vb, n)
    c = asc.LocalTensor(values.dtype, asc.TPosition.VECCALC, vb + 4 * n, n)
    d = asc.LocalTensor(values.dtype, asc.TPosition.VECOUT, 2 * vb + 4 * n, 2 * n * per)
    t = asc.LocalTensor(values.dtype, asc.TPosition.VECCALC, 2 * vb + 20 * n, n * per)
    ov = asc.LocalTensor(values.dtype, asc.TPosition.VECOUT, 2 * vb + 28 * n, n)
    oi = asc.LocalTensor(asc.uint32, asc.TPosition.VECOUT, 3 * vb + 28 * n, 2 * n)
    asc.data_copy(s, gv, n)
    asc.data_copy(i, gi, n)
    asc.duplicate(d.reinterpret_cast(asc.uint32)[2 * n:], FILL, 2 * n)
    if mode == "extract":
        asc.data_copy(d, gr, n * per)
    asc.set_flag(asc.HardEvent.MTE2_V, 0)
    asc.wait_flag(asc.HardEvent.MTE2_V, 0)
    if mode in ("concat", "plain"):
        if mode == "concat":
            asc.adv.concat(c, s, t, n // 32)
        else:
            c = s
        asc.set_flag(asc.HardEvent.V_MTE3, 0)
        asc.wait_flag(asc.HardEvent.V_MTE3, 0)
        asc.data_copy(go, c, n)
    else:
        if mode != "extract":
            asc.adv.concat(c, s, t, n // 32)
            asc.sort(d, c, i, t, n // 32, mode == "full")
        asc.pipe_barrier(asc.PipeID.PIPE_V)
        asc.adv.extract(ov, oi, d, n // 32)
        asc.set_flag(asc.HardEvent.V_MTE3, 0)
        asc.wait_flag(asc.HardEvent.V_MTE3, 0)
        asc.data_copy(go, ov, n)
        asc.data_copy(gx, oi, 2 * n)


def run(values, mode, raw=None):
    n = values.size
    index = np.arange(n, dtype=np.uint32)
    raw = np.zeros(n * 8 // values.itemsize, values.dtype) if raw is None else raw
    out_value = np.zeros(n, values.dtype)
    out_index = np.zeros(2 * n, np.uint32)
    report = sort_kernel[1, rt.current_stream()](values, index, raw, out_value, out_index, n,
                                                 mode)
    assert_clean(report)
    return out_value, out_index, report


@pytest.mark.parametrize("dtype", ["f32", "f16"])
def test_extract_splits_the_structures(dtype):
    """Values from byte 0 of each 8-byte structure, indices from byte 4; half reads its indices
    over twice the structures: 64 per iteration, the second 32 from the FILL after them."""
    dt = DTYPES[dtype]
    n = 256
    rng = np.random.default_rng(1)
    st = np.zeros(n, structs(dt))
    st["value"] = rng.uniform(-100, 100, n).astype(dt)
    st["index"] = rng.integers(0, 2**32, n, dtype=np.uint32)
    if dtype == "f16":
        st["pad"] = 0xABCD  # not part of the value
    raw = st.view(dt)
    value, index, _ = run(np.zeros(n, dt), "extract", raw)
    np.testing.assert_array_equal(value, st["value"])
    np.testing.assert_array_equal(index[:n], st["index"])
    np.testing.assert_array_equal(index[n:], FILL if dtype == "f16" else 0)


@pytest.mark.parametrize("dtype", ["f32", "f16"])
@pytest.mark.parametrize("n", [32, 2048])
def test_round_trip_full_sort(dtype, n):
    """concat, asc.sort(is_full_sort=True), extract: numpy's descending order, each index
    pointing at its value (distinct values, so the order is unique)."""
    dt = DTYPES[dtype]
    rng = np.random.default_rng(n)
    pool = np.arange(-1024, 1024, dtype=np.float64) / 8 if dtype == "f16" else \
        rng.uniform(-1e6, 1e6, 4 * n)
    values = rng.permutation(np.unique(pool.astype(dt)))[:n].astype(dt)
    value, index, _ = run(values, "full")
    order = np.argsort(-values.astype(np.float64), kind="stable")
    np.testing.assert_array_equal(value, values[order])
    np.testing.assert_array_equal(index[:n], order)


@pytest.mark.parametrize("dtype", ["f32", "f16"])
def test_round_trip_sort32_groups(dtype):
    """Without is_full_sort each group of 32 is sorted on its own; ties keep their input order
    (the model's choice for sort32, docs/isa.md)."""
    dt = DTYPES[dtype]
    n = 256
    values = np.random.default_rng(2).integers(-8, 8, n).astype(dt)
    value, index, _ = run(values, "groups")
    for g in range(0, n, 32):
        order = g + np.argsort(-values[g:g + 32].astype(np.float64), kind="stable")
        np.testing.assert_array_equal(value[g:g + 32], values[order])
        np.testing.assert_array_equal(index[g:g + 32], order)


@pytest.mark.parametrize("dtype", ["f32", "f16"])
def test_concat_makes_dst_src(dtype):
    """On A2 concat emits nothing: the dst handle becomes src, so copying it out gives src."""
    dt = DTYPES[dtype]
    values = np.arange(64).astype(dt)
    value, _, report = run(values, "concat")
    np.testing.assert_array_equal(value, values)
    _, _, plain = run(values, "plain")
    assert report.cores[0].pipes["V"].instructions == plain.cores[0].pipes["V"].instructions


@asc.jit
def bad_kernel(case: asc.ConstExpr[str]):
    f = asc.LocalTensor(asc.float32, asc.TPosition.VECCALC, 0, 256)
    h = asc.LocalTensor(asc.float16, asc.TPosition.VECCALC, 1024, 256)
    n = asc.LocalTensor(asc.int32, asc.TPosition.VECCALC, 2048, 256)
    u = asc.LocalTensor(asc.uint32, asc.TPosition.VECCALC, 3072, 256)
    if case == "concat dtype":
        asc.adv.concat(n, n, n, 1)
    elif case == "concat mixed":
        asc.adv.concat(f, h, f, 1)
    elif case == "concat repeat":
        asc.adv.concat(f, f, f, 256)
    elif case == "extract index":
        asc.adv.extract(f, f, f, 1)
    elif case == "extract mixed":
        asc.adv.extract(h, u, f, 1)
    else:
        asc.adv.extract(f, u, f, -1)


@pytest.mark.parametrize("case, message", [
    ("concat dtype", "concat\\(\\): dst must be float16 or float32, got int32"),
    ("concat mixed", "concat\\(\\): the tensors must have one dtype"),
    ("concat repeat", "concat\\(\\): repeat_time must be 0..255, got 256"),
    ("extract index", "extract\\(\\): dst_index must be uint32, got float32"),
    ("extract mixed", "extract\\(\\): the tensors must have one dtype"),
    ("extract repeat", "extract\\(\\): repeat_time must be 0..255, got -1"),
])
def test_argument_checks(case, message):
    with pytest.raises(CodegenError, match=message):
        bad_kernel[1, rt.current_stream()](case)
