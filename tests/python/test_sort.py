"""Sort and region-proposal instructions (asc-api.md 4.12) against numpy: sort32's 8-byte
(score, index) structures, mrg_sort / mrg_sort4 with their valid bits, lengths, repeats and
exhausted suspension, get_mrg_sort_result and its V_S sync, rp_sort16, proposal_concat /
proposal_extract, get_sort_len / get_sort_offset and sort (the library's sequence).

Ordering chosen by the model (docs/isa.md): descending by score, NaN above +inf, equal scores keep
their input order and a merge takes equal scores from the lower-numbered list first."""
import numpy as np
import pytest

import asc
import asc.lib.runtime as rt
from asc.runtime.errors import KernelCheckError

UB_A, UB_B, UB_C, UB_D = 0, 16384, 32768, 65536  # byte offsets of the UB tiles
TILE = 16384  # bytes per tile


def struct_dtype(dtype):
    if np.dtype(dtype) == np.float16:
        return np.dtype([("score", "<f2"), ("pad", "<u2"), ("index", "<u4")])
    return np.dtype([("score", "<f4"), ("index", "<u4")])


def desc_order(scores):
    """Stable descending order with NaN first (the model's order)."""
    return sorted(range(len(scores)),
                  key=lambda k: (0 if np.isnan(scores[k]) else 1,
                                 0.0 if np.isnan(scores[k]) else -float(scores[k])))


def sort32_ref(scores, index, dtype):
    out = np.zeros(len(scores), struct_dtype(dtype))
    for g in range(0, len(scores), 32):
        order = [g + k for k in desc_order(scores[g:g + 32])]
        out["score"][g:g + 32] = scores[order]
        out["index"][g:g + 32] = index[order]
    return out


def scores_with_specials(n, dtype, seed):
    rng = np.random.default_rng(seed)
    s = rng.integers(-20, 20, n).astype(dtype)  # many ties
    s[3], s[7], s[40 % n] = np.nan, np.inf, -np.inf
    s[5], s[9] = -0.0, 0.0
    return s


@asc.jit
def sort32_kernel(scores: asc.GlobalAddress, index: asc.GlobalAddress, out: asc.GlobalAddress,
                  n: asc.ConstExpr[int], repeat: asc.ConstExpr[int],
                  mask: asc.ConstExpr[str]):
    gs, gi, go = asc.GlobalTensor(), asc.GlobalTensor(), asc.GlobalTensor()
    gs.set_global_buffer(scores)
    gi.set_global_buffer(index)
    go.set_global_buffer(out)
    per = 8 // scores.dtype.sizeof()
    s = asc.LocalTensor(scores.dtype, asc.TPosition.VECIN, UB_A, TILE // 4)
    i = asc.LocalTensor(asc.uint32, asc.TPosition.VECIN, UB_B, TILE // 4)
    d = asc.LocalTensor(scores.dtype, asc.TPosition.VECOUT, UB_C, TILE // 4)
    asc.data_copy(s, gs, n)
    asc.data_copy(i, gi, n)
    asc.data_copy(d, go, n * per)
    asc.set_flag(asc.HardEvent.MTE2_V, 0)
    asc.wait_flag(asc.HardEvent.MTE2_V, 0)
    if mask == "partial":
        asc.set_vector_mask(0, 5, dtype=scores.dtype)  # five lanes: ignored by sort32
    elif mask == "counter":
        asc.set_mask_count()
        asc.set_vector_mask(7, dtype=scores.dtype, mode=asc.MaskMode.COUNTER)
    asc.sort32(d, s, i, repeat)
    if mask != "none":
        asc.set_mask_norm()
        asc.reset_mask()
    asc.set_flag(asc.HardEvent.V_MTE3, 0)
    asc.wait_flag(asc.HardEvent.V_MTE3, 0)
    asc.data_copy(go, d, n * per)


@pytest.mark.parametrize("dtype", ["float16", "float32"])
def test_sort32_sorts_each_group_of_32_descending(device, dtype):
    n = 96
    scores = scores_with_specials(n, dtype, 1)
    index = np.arange(1000, 1000 + n, dtype=np.uint32)[::-1].copy()
    per = 8 // np.dtype(dtype).itemsize
    out = np.full(n * per, 7, dtype=dtype)
    sort32_kernel[1, rt.current_stream()](scores, index, out, n, 3, "none")
    got = out.view(struct_dtype(dtype))
    want = sort32_ref(scores, index, dtype)
    np.testing.assert_array_equal(got["index"], want["index"])
    np.testing.assert_array_equal(got["score"].copy().view(np.uint8), want["score"].copy().view(np.uint8))
    if dtype == "float16":
        np.testing.assert_array_equal(got["pad"], 0)


@pytest.mark.parametrize("mask", ["partial", "counter"])
def test_sort32_ignores_the_vector_mask(device, mask):
    n = 64
    scores = scores_with_specials(n, "float32", 4)
    index = np.arange(n, dtype=np.uint32)
    out = np.zeros(n * 2, dtype=np.float32)
    sort32_kernel[1, rt.current_stream()](scores, index, out, n, 2, mask)
    want = sort32_ref(scores, index, "float32")
    np.testing.assert_array_equal(out.view(struct_dtype("float32"))["index"], want["index"])


def test_sort32_repeat_time_bounds_the_groups(device):
    n = 96
    scores = scores_with_specials(n, "float32", 2)
    index = np.arange(n, dtype=np.uint32)
    out = np.full(n * 2, 7, dtype=np.float32)
    sort32_kernel[1, rt.current_stream()](scores, index, out, n, 2, "none")
    got = out.view(struct_dtype("float32"))
    want = sort32_ref(scores[:64], index[:64], "float32")
    np.testing.assert_array_equal(got["index"][:64], want["index"])
    np.testing.assert_array_equal(out[128:], 7)  # iteration 3 did not run


def structs(scores, index, dtype):
    s = np.zeros(len(scores), struct_dtype(dtype))
    s["score"] = scores
    s["index"] = index
    return s


def sorted_lists(lengths, dtype, seed):
    rng = np.random.default_rng(seed)
    out, base = [], 0
    for n in lengths:
        sc = np.sort(rng.integers(-30, 30, n).astype(dtype))[::-1].copy()
        out.append(structs(sc, np.arange(base, base + n, dtype=np.uint32), dtype))
        base += 100
    return out


def merge_ref(lists, suspension=False):
    pos = [0] * len(lists)
    out = []
    while True:
        if suspension and any(p >= len(lst) for p, lst in zip(pos, lists)):
            break
        best = None
        for i, lst in enumerate(lists):
            if pos[i] < len(lst):
                v = float(lst["score"][pos[i]])
                if best is None or v > best[1]:
                    best = (i, v)
        if best is None:
            break
        out.append(lists[best[0]][pos[best[0]]])
        pos[best[0]] += 1
    return np.array(out, dtype=lists[0].dtype), pos


@asc.jit
def mrg_kernel(src: asc.GlobalAddress, out: asc.GlobalAddress, counts: asc.GlobalAddress,
               l0: asc.ConstExpr[int], l1: asc.ConstExpr[int], l2: asc.ConstExpr[int],
               l3: asc.ConstExpr[int], valid: asc.ConstExpr[int], repeat: asc.ConstExpr[int],
               form: asc.ConstExpr[str], suspend: asc.ConstExpr[bool]):
    gs, go, gc = asc.GlobalTensor(), asc.GlobalTensor(), asc.GlobalTensor()
    gs.set_global_buffer(src)
    go.set_global_buffer(out)
    gc.set_global_buffer(counts)
    per = 8 // src.dtype.sizeof()
    total = (l0 + l1 + l2 + l3) * per * repeat
    a = asc.LocalTensor(src.dtype, asc.TPosition.VECIN, UB_A, TILE // 2)
    d = asc.LocalTensor(src.dtype, asc.TPosition.VECOUT, UB_C, TILE // 2)
    asc.data_copy(a, gs, total)
    asc.data_copy(d, go, total)
    asc.set_flag(asc.HardEvent.MTE2_V, 0)
    asc.wait_flag(asc.HardEvent.MTE2_V, 0)
    lists = asc.MrgSortSrcList(src.dtype, a, a[l0 * per:], a[(l0 + l1) * per:],
                               a[(l0 + l1 + l2) * per:])
    if form == "info":
        asc.mrg_sort(d, lists, asc.MrgSort4Info([l0, l1, l2, l3], suspend, valid, repeat))
        asc.set_flag(asc.HardEvent.V_S, 0)
        asc.wait_flag(asc.HardEvent.V_S, 0)
        r = asc.get_mrg_sort_result()
        for k in asc.static_range(4):
            gc.set_value(k, r[k])
    else:
        sorted_num = asc.array(asc.uint32, 4, fill_value=9)
        asc.mrg_sort(d, lists, [l0, l1, l2, l3], sorted_num, valid, repeat, suspend)
        for k in asc.static_range(4):
            gc.set_value(k, sorted_num[k])
    asc.set_flag(asc.HardEvent.V_MTE3, 0)
    asc.wait_flag(asc.HardEvent.V_MTE3, 0)
    asc.data_copy(go, d, total)


def run_mrg(dtype, lengths, valid, form="info", suspend=False, repeat=1, seed=3):
    lists = sorted_lists(lengths, dtype, seed)
    per = 8 // np.dtype(dtype).itemsize
    src = np.concatenate(lists).view(dtype).copy()
    out = np.full(len(src), 5, dtype=dtype)
    counts = np.full(4, 77, dtype=np.uint32)
    mrg_kernel[1, rt.current_stream()](src, out, counts, *lengths, valid, repeat, form, suspend)
    return lists, out.view(struct_dtype(dtype)), counts, per


@pytest.mark.parametrize("dtype", ["float16", "float32"])
@pytest.mark.parametrize("valid,used", [(15, 4), (7, 3), (3, 2)])
def test_mrg_sort_merges_the_valid_lists(device, dtype, valid, used):
    lengths = [32, 40, 8, 24]
    lists, got, counts, _ = run_mrg(dtype, lengths, valid)
    want, taken = merge_ref(lists[:used])
    n = len(want)
    np.testing.assert_array_equal(got[:n].view(np.uint8), want.view(np.uint8))
    np.testing.assert_array_equal(counts, taken + [0] * (4 - used))
    per = 8 // np.dtype(dtype).itemsize
    np.testing.assert_array_equal(got.view(dtype)[n * per:], 5)  # past the merge: untouched


@pytest.mark.parametrize("form", ["info", "lists"])
def test_mrg_sort_exhausted_suspension_stops_at_the_first_empty_list(device, form):
    lengths = [16, 4, 24, 8]
    lists, got, counts, _ = run_mrg("float32", lengths, 15, form=form, suspend=True, seed=5)
    want, taken = merge_ref(lists, suspension=True)
    assert sum(taken) < sum(lengths) and min(n - t for t, n in zip(taken, lengths)) == 0
    n = len(want)
    np.testing.assert_array_equal(got[:n].view(np.uint8), want.view(np.uint8))
    np.testing.assert_array_equal(got.view(np.float32)[2 * n:], 5)  # the rest untouched
    np.testing.assert_array_equal(counts, taken)


def test_mrg_sort_list_form_without_suspension_leaves_sorted_num(device):
    lists, got, counts, _ = run_mrg("float16", [8, 8, 8, 8], 15, form="lists")
    want, _ = merge_ref(lists)
    np.testing.assert_array_equal(got.view(np.uint8), want.view(np.uint8))
    np.testing.assert_array_equal(counts, 9)  # the library writes sorted_num only when suspended


def test_mrg_sort_repeats_over_contiguous_equal_lists(device):
    dtype = "float32"
    lists = [sorted_lists([16] * 4, dtype, 10 + r) for r in range(3)]
    src = np.concatenate([np.concatenate(g) for g in lists]).view(dtype).copy()
    out = np.full(len(src), 5, dtype=dtype)
    counts = np.zeros(4, dtype=np.uint32)
    mrg_kernel[1, rt.current_stream()](src, out, counts, 16, 16, 16, 16, 15, 3, "info", False)
    got = out.view(struct_dtype(dtype))
    for r in range(3):
        want, _ = merge_ref(lists[r])
        np.testing.assert_array_equal(got[r * 64:(r + 1) * 64].view(np.uint8),
                                      want.view(np.uint8))
    np.testing.assert_array_equal(counts, [16] * 4)  # the last merge's counts


def test_mrg_sort_repeat_needs_equal_lists(device):
    with pytest.raises(Exception, match="needs four lists of equal length"):
        run_mrg("float32", [16, 8, 16, 16], 15, repeat=2)


def test_mrg_sort_rejects_an_invalid_valid_bit(device):
    with pytest.raises(Exception, match="valid_bit must be 3, 7 or 15"):
        run_mrg("float32", [8, 8, 8, 8], 5)


def result_body(src: asc.GlobalAddress, out: asc.GlobalAddress, counts: asc.GlobalAddress,
                sync: asc.ConstExpr[bool]):
    gs, go, gc = asc.GlobalTensor(), asc.GlobalTensor(), asc.GlobalTensor()
    gs.set_global_buffer(src)
    go.set_global_buffer(out)
    gc.set_global_buffer(counts)
    a = asc.LocalTensor(src.dtype, asc.TPosition.VECIN, UB_A, 256)
    d = asc.LocalTensor(src.dtype, asc.TPosition.VECOUT, UB_C, 256)
    asc.data_copy(a, gs, 128)
    asc.set_flag(asc.HardEvent.MTE2_V, 0)
    asc.wait_flag(asc.HardEvent.MTE2_V, 0)
    asc.mrg_sort4(d, asc.MrgSortSrcList(src.dtype, a, a[64:]),
                  asc.MrgSort4Info([8, 8], False, 3, 1))
    if sync:
        asc.set_flag(asc.HardEvent.V_S, 0)
        asc.wait_flag(asc.HardEvent.V_S, 0)
    r = asc.get_mrg_sort_result()
    for k in asc.static_range(4):
        gc.set_value(k, r[k])
    asc.set_flag(asc.HardEvent.V_MTE3, 0)
    asc.wait_flag(asc.HardEvent.V_MTE3, 0)
    asc.data_copy(go, d, 128)


result_unsynced_kernel = asc.jit(auto_sync=False)(result_body)
result_auto_kernel = asc.jit(result_body)  # auto_sync inserts the V_S pair


def proposals(n, dtype, seed):
    rng = np.random.default_rng(seed)
    p = rng.integers(-50, 50, (n, 8)).astype(dtype)
    p[:, 4] = rng.integers(-6, 6, n)  # scores with ties
    return p


@pytest.mark.parametrize("dtype", ["float16", "float32"])
def test_mrg_sort4_and_get_mrg_sort_result_needs_v_s_after_the_merge(device, dtype):
    p = proposals(16, dtype, 1)
    p[:8] = p[:8][np.argsort(-p[:8, 4], kind="stable")]
    p[8:] = p[8:][np.argsort(-p[8:, 4], kind="stable")]
    src = p.reshape(-1).copy()
    out = np.zeros(128, dtype)
    counts = np.zeros(4, np.uint32)
    result_unsynced_kernel[1, rt.current_stream()](src, out, counts, True)
    np.testing.assert_array_equal(counts, [8, 8, 0, 0])
    merged = out.reshape(16, 8)
    want = np.concatenate([p[:8], p[8:]])
    want = want[sorted(range(16), key=lambda k: (-float(want[k, 4]), k))]
    np.testing.assert_array_equal(merged, want)
    # The four reads of the counts (one per element, all at the line of get_mrg_sort_result)
    # are one finding at one place, over the hull of their bytes.
    with pytest.raises(KernelCheckError, match=r"race \(RAW\) on SPR\[0, 8\)"):
        result_unsynced_kernel[1, rt.current_stream()](src, out, counts, False)
    counts[:] = 0
    result_auto_kernel[1, rt.current_stream()](src, out, counts, False)
    np.testing.assert_array_equal(counts, [8, 8, 0, 0])


@asc.jit
def proposal_kernel(src: asc.GlobalAddress, vals: asc.GlobalAddress, out: asc.GlobalAddress,
                    ext: asc.GlobalAddress, repeat: asc.ConstExpr[int], mode, n: asc.ConstExpr[int]):
    gs, gv, go, ge = (asc.GlobalTensor(), asc.GlobalTensor(), asc.GlobalTensor(),
                      asc.GlobalTensor())
    gs.set_global_buffer(src)
    gv.set_global_buffer(vals)
    go.set_global_buffer(out)
    ge.set_global_buffer(ext)
    p = asc.LocalTensor(src.dtype, asc.TPosition.VECIN, UB_A, TILE // 4)
    v = asc.LocalTensor(src.dtype, asc.TPosition.VECIN, UB_B, TILE // 4)
    s = asc.LocalTensor(src.dtype, asc.TPosition.VECOUT, UB_C, TILE // 4)
    e = asc.LocalTensor(src.dtype, asc.TPosition.VECOUT, UB_D, TILE // 4)
    asc.data_copy(p, gs, n * 8)
    asc.data_copy(s, go, n * 8)
    asc.data_copy(v, gv, n)
    asc.data_copy(e, ge, n)
    asc.set_flag(asc.HardEvent.MTE2_V, 0)
    asc.wait_flag(asc.HardEvent.MTE2_V, 0)
    asc.rp_sort16(s, p, repeat)          # sorted copy of the proposals
    asc.proposal_extract(e, p, repeat, mode)  # field `mode` of the unsorted ones
    asc.pipe_barrier(asc.PipeID.PIPE_V)
    asc.proposal_concat(p, v, repeat, mode)   # then overwrite that field in place
    asc.set_flag(asc.HardEvent.V_MTE3, 0)
    asc.wait_flag(asc.HardEvent.V_MTE3, 0)
    asc.data_copy(go, s, n * 8)
    asc.data_copy(ge, e, n)
    asc.data_copy(gs, p, n * 8)


@pytest.mark.parametrize("dtype", ["float16", "float32"])
@pytest.mark.parametrize("mode", [0, 4, 5])
def test_proposals_sort_extract_and_concat(device, dtype, mode):
    n = 48
    p = proposals(n, dtype, mode)
    p[2, 4] = np.nan
    vals = np.arange(n).astype(dtype) + 0.5
    src = p.reshape(-1).copy()
    out = np.zeros(n * 8, dtype)
    ext = np.full(n, 3, dtype)
    proposal_kernel[1, rt.current_stream()](src, vals, out, ext, 2, mode, n)
    want_sorted = p.copy()
    for g in range(0, 32, 16):
        want_sorted[g:g + 16] = p[g:g + 16][desc_order(p[g:g + 16, 4])]
    got_sorted = out.reshape(n, 8)
    np.testing.assert_array_equal(got_sorted[:32].view(np.uint8), want_sorted[:32].view(np.uint8))
    np.testing.assert_array_equal(got_sorted[32:], 0)  # two iterations only
    np.testing.assert_array_equal(ext[:32], p[:32, mode])
    np.testing.assert_array_equal(ext[32:], 3)
    want_concat = p.copy()
    want_concat[:32, mode] = vals[:32]
    np.testing.assert_array_equal(src.reshape(n, 8).view(np.uint8), want_concat.view(np.uint8))


def test_proposal_mode_number_is_checked(device):
    p = proposals(16, "float16", 0).reshape(-1).copy()
    with pytest.raises(Exception, match="mode_number = 6 is out of range"):
        proposal_kernel[1, rt.current_stream()](p, np.zeros(16, np.float16),
                                                np.zeros(128, np.float16),
                                                np.zeros(16, np.float16), 1, 6, 16)


@asc.jit
def sort_kernel(scores: asc.GlobalAddress, index: asc.GlobalAddress, out: asc.GlobalAddress,
                lens: asc.GlobalAddress, repeat: asc.ConstExpr[int], full: asc.ConstExpr[bool]):
    gs, gi, go, gl = asc.GlobalTensor(), asc.GlobalTensor(), asc.GlobalTensor(), asc.GlobalTensor()
    gs.set_global_buffer(scores)
    gi.set_global_buffer(index)
    go.set_global_buffer(out)
    gl.set_global_buffer(lens)
    n = repeat * 32
    s = asc.LocalTensor(scores.dtype, asc.TPosition.VECIN, 0, 1024)
    i = asc.LocalTensor(asc.uint32, asc.TPosition.VECIN, 8192, 1024)
    d = asc.LocalTensor(scores.dtype, asc.TPosition.VECOUT, 16384, 4096)
    t = asc.LocalTensor(scores.dtype, asc.TPosition.VECCALC, 49152, 4096)
    asc.data_copy(s, gs, n)
    asc.data_copy(i, gi, n)
    asc.set_flag(asc.HardEvent.MTE2_V, 0)
    asc.wait_flag(asc.HardEvent.MTE2_V, 0)
    asc.sort(d, s, i, t, repeat, full)
    asc.set_flag(asc.HardEvent.V_MTE3, 0)
    asc.wait_flag(asc.HardEvent.V_MTE3, 0)
    length = asc.get_sort_len(n, scores.dtype)
    asc.data_copy(go, d, length)
    gl.set_value(0, length)
    gl.set_value(1, asc.get_sort_offset(3, scores.dtype))


@pytest.mark.parametrize("dtype", ["float16", "float32"])
@pytest.mark.parametrize("repeat", [1, 3, 5, 17])
def test_full_sort_is_one_descending_list(device, dtype, repeat):
    n = repeat * 32
    scores = scores_with_specials(n, dtype, repeat)
    index = np.arange(n, dtype=np.uint32)
    per = 8 // np.dtype(dtype).itemsize
    out = np.zeros(n * per, dtype)
    lens = np.zeros(2, np.int32)
    sort_kernel[1, rt.current_stream()](scores, index, out, lens, repeat, True)
    got = out.view(struct_dtype(dtype))
    order = desc_order(scores)
    np.testing.assert_array_equal(got["index"], index[order])
    np.testing.assert_array_equal(lens, [n * per, 3 * per])


def test_sort_without_full_sort_is_sort32(device):
    n = 64
    scores = scores_with_specials(n, "float32", 8)
    index = np.arange(n, dtype=np.uint32)
    out = np.zeros(n * 2, np.float32)
    sort_kernel[1, rt.current_stream()](scores, index, out, np.zeros(2, np.int32), 2, False)
    np.testing.assert_array_equal(out.view(struct_dtype("float32"))["index"],
                                  sort32_ref(scores, index, "float32")["index"])


def test_sort32_rejects_a_non_float_dtype(device):
    with pytest.raises(Exception, match="dtype int32 is not supported"):
        sort32_kernel[1, rt.current_stream()](np.zeros(32, np.int32), np.zeros(32, np.uint32),
                                              np.zeros(64, np.int32), 32, 1, "none")
