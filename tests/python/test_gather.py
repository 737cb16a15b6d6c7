"""brcb, gather, gatherb, scatter and gather_mask (asc-api.md 4.11, ascendc-semantics.md 5.8,
5.8b, 5.9) against numpy doing the same moves, bit exact."""
import numpy as np
import pytest

import asc
import asc.lib.runtime as rt
from asc.runtime.errors import KernelWarning

B = 32  # bytes per block
SRC_ELEMS_BYTES = 2048
DST_BYTES = 4096
DTYPES = ["float16", "float32", "int16", "uint16", "int32", "uint32"]


def per_block(dtype):
    return B // np.dtype(dtype).itemsize


def source(dtype, n, seed=1):
    rng = np.random.default_rng(seed)
    if np.dtype(dtype).kind == "f":
        return rng.uniform(-100, 100, n).astype(dtype)
    info = np.iinfo(dtype)
    return rng.integers(info.min, info.max, n, dtype=dtype, endpoint=True)


def copy_in(local, gm, n):
    asc.data_copy(local, gm, n)


# ---- brcb -----------------------------------------------------------------------------------

@asc.jit
def brcb_kernel(x: asc.GlobalAddress, out: asc.GlobalAddress, repeat: asc.ConstExpr,
                blk: asc.ConstExpr, rep: asc.ConstExpr, partial_mask: asc.ConstExpr):
    gx, go = asc.GlobalTensor(), asc.GlobalTensor()
    gx.set_global_buffer(x)
    go.set_global_buffer(out)
    n_src = SRC_ELEMS_BYTES // x.dtype.sizeof()
    n_dst = DST_BYTES // x.dtype.sizeof()
    s = asc.LocalTensor(x.dtype, asc.TPosition.VECIN, 0, n_src)
    d = asc.LocalTensor(x.dtype, asc.TPosition.VECOUT, 8192, n_dst)
    asc.data_copy(s, gx, n_src)
    asc.data_copy(d, go, n_dst)
    asc.set_flag(asc.HardEvent.MTE2_V, 0)
    asc.wait_flag(asc.HardEvent.MTE2_V, 0)
    if partial_mask:
        # brcb ignores the mask on A2 (ascendc-semantics.md 6.3).
        asc.set_vector_mask(0, 3, dtype=x.dtype, mode=asc.MaskMode.NORMAL)
    if blk == 1 and rep == 8:
        asc.brcb(d, s, repeat, asc.BrcbRepeatParams())
    else:
        asc.brcb(d, s, repeat, asc.BrcbRepeatParams(dst_blk_stride=blk, dst_rep_stride=rep))
    asc.set_flag(asc.HardEvent.V_MTE3, 0)
    asc.wait_flag(asc.HardEvent.V_MTE3, 0)
    asc.data_copy(go, d, n_dst)


def brcb_ref(x, out, repeat, blk, rep):
    want = out.copy()
    pb = per_block(x.dtype)
    for r in range(repeat):
        for t in range(8):
            at = (r * rep + t * blk) * pb
            want[at:at + pb] = x[r * 8 + t]
    return want


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("repeat,blk,rep", [(4, 1, 8), (3, 2, 20), (2, 1, 4)])
def test_brcb(device, dtype, repeat, blk, rep):
    x = source(dtype, SRC_ELEMS_BYTES // np.dtype(dtype).itemsize)
    out = source(dtype, DST_BYTES // np.dtype(dtype).itemsize, seed=2)
    want = brcb_ref(x, out, repeat, blk, rep)
    brcb_kernel[1, rt.current_stream()](x, out, repeat, blk, rep, False)
    np.testing.assert_array_equal(out, want)


def test_brcb_ignores_the_mask(device):
    x = source("float16", 1024)
    out = source("float16", 2048, seed=2)
    want = brcb_ref(x, out, 2, 1, 8)
    brcb_kernel[1, rt.current_stream()](x, out, 2, 1, 8, True)
    np.testing.assert_array_equal(out, want)


# ---- gather / scatter -----------------------------------------------------------------------

OFF_AT, DST_AT = 2048, 8192
BASE = 64


def _load(x, offs, out, n_offsets):
    """Source, offsets and destination copied into UB, synchronised for PIPE_V."""
    gx, gf, go = asc.GlobalTensor(), asc.GlobalTensor(), asc.GlobalTensor()
    gx.set_global_buffer(x)
    gf.set_global_buffer(offs)
    go.set_global_buffer(out)
    n_src = SRC_ELEMS_BYTES // x.dtype.sizeof()
    n_dst = DST_BYTES // x.dtype.sizeof()
    s = asc.LocalTensor(x.dtype, asc.TPosition.VECIN, 0, n_src)
    f = asc.LocalTensor(asc.uint32, asc.TPosition.VECIN, OFF_AT, n_offsets)
    d = asc.LocalTensor(x.dtype, asc.TPosition.VECOUT, DST_AT, n_dst)
    asc.data_copy(s, gx, n_src)
    asc.data_copy(f, gf, n_offsets)
    asc.data_copy(d, go, n_dst)
    asc.set_flag(asc.HardEvent.MTE2_V, 0)
    asc.wait_flag(asc.HardEvent.MTE2_V, 0)
    return s, f, d, go, n_dst


@asc.jit
def gather_kernel(x: asc.GlobalAddress, offs: asc.GlobalAddress, out: asc.GlobalAddress,
                  form: asc.ConstExpr[str], scatter: asc.ConstExpr):
    s, f, d, go, n_dst = _load(x, offs, out, 512)
    op = asc.scatter if scatter else asc.gather
    # gather reads s at the offsets into d; scatter writes d at the offsets from s.
    if form == "count" and scatter:
        asc.scatter(d, s, dst_offset=f, dst_base=BASE, count=200)
    elif form == "count":
        asc.gather(d, s, src_offset=f, src_base=BASE, count=200)
    elif form == "mask":
        op(d, s, f, BASE, 40, 2, 16)
    elif form == "bits":
        op(d, s, f, BASE, [0xF0F0F0F0F0F0F0F0, 0x3], 3, 8)
    else:
        asc.set_mask_count()
        op(d, s, f, BASE, 150, 1, 8)
        asc.set_mask_norm()
        asc.reset_mask()
    asc.set_flag(asc.HardEvent.V_MTE3, 0)
    asc.wait_flag(asc.HardEvent.V_MTE3, 0)
    asc.data_copy(go, d, n_dst)


def lanes_of(form, dtype):
    """(iteration, lane) pairs the form activates, and the iteration stride in elements."""
    lanes = 256 // np.dtype(dtype).itemsize
    pb = per_block(dtype)
    if form == "count":
        return [(i // lanes, i % lanes) for i in range(200)], 8 * pb, lanes
    if form == "mask":
        return [(r, e) for r in range(2) for e in range(40)], 16 * pb, lanes
    if form == "bits":
        lo, hi = 0xF0F0F0F0F0F0F0F0, 0x3
        on = [e for e in range(min(lanes, 128))
              if ((lo >> e) & 1 if e < 64 else (hi >> (e - 64)) & 1)]
        return [(r, e) for r in range(3) for e in on], 8 * pb, lanes
    return [(i // lanes, i % lanes) for i in range(150)], 8 * pb, lanes


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("form", ["count", "mask", "bits", "counter"])
def test_gather(device, dtype, form):
    size = np.dtype(dtype).itemsize
    n_src = SRC_ELEMS_BYTES // size
    x = source(dtype, n_src)
    rng = np.random.default_rng(7)
    # Byte offsets of elements, relative to src + BASE.
    idx = rng.integers(0, n_src - BASE // size, 512)
    offs = (idx * size).astype(np.uint32)
    out = source(dtype, DST_BYTES // size, seed=3)
    want = out.copy()
    pairs, rep, lanes = lanes_of(form, dtype)
    for r, e in pairs:
        want[r * rep + e] = x[BASE // size + idx[r * lanes + e]]
    gather_kernel[1, rt.current_stream()](x, offs, out, form, False)
    np.testing.assert_array_equal(out, want)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("form", ["count", "mask", "counter"])
def test_scatter(device, dtype, form):
    size = np.dtype(dtype).itemsize
    n_dst = DST_BYTES // size
    x = source(dtype, SRC_ELEMS_BYTES // size)
    # Distinct destinations, so the order of lanes does not matter.
    idx = np.random.default_rng(8).permutation(n_dst - BASE // size)[:512]
    offs = (idx * size).astype(np.uint32)
    out = source(dtype, n_dst, seed=3)
    want = out.copy()
    pairs, rep, lanes = lanes_of(form, dtype)
    # scatter's repeat stride is the source's; its form passes it in the same place.
    for r, e in pairs:
        want[BASE // size + idx[r * lanes + e]] = x[r * rep + e]
    gather_kernel[1, rt.current_stream()](x, offs, out, form, True)
    np.testing.assert_array_equal(out, want)


def test_gather_offset_past_ub_is_an_error_at_the_line(device):
    x = source("float32", 512)
    offs = np.zeros(512, dtype=np.uint32)
    offs[5] = 0xFFFFFF00
    out = np.zeros(1024, dtype=np.float32)
    with pytest.raises(Exception, match=r"OUT_OF_BOUNDS|outside UB") as err:
        gather_kernel[1, rt.current_stream()](x, offs, out, "count", False)
    assert "test_gather.py" in str(err.value)


# ---- gatherb --------------------------------------------------------------------------------

@asc.jit
def gatherb_kernel(x: asc.GlobalAddress, offs: asc.GlobalAddress, out: asc.GlobalAddress,
                   repeat: asc.ConstExpr, blk: asc.ConstExpr, rep: asc.ConstExpr):
    s, f, d, go, n_dst = _load(x, offs, out, 64)
    asc.set_vector_mask(0, 1, dtype=x.dtype, mode=asc.MaskMode.NORMAL)  # ignored (6.3)
    asc.gatherb(d, s, f, repeat, asc.GatherRepeatParams(blk, rep))
    asc.reset_mask()
    asc.set_flag(asc.HardEvent.V_MTE3, 0)
    asc.wait_flag(asc.HardEvent.V_MTE3, 0)
    asc.data_copy(go, d, n_dst)


@pytest.mark.parametrize("dtype", ["float16", "int32", "uint16", "float32"])
@pytest.mark.parametrize("repeat,blk,rep", [(2, 1, 8), (3, 2, 20), (2, 0, 8)])
def test_gatherb(device, dtype, repeat, blk, rep):
    size = np.dtype(dtype).itemsize
    pb = per_block(dtype)
    x = source(dtype, SRC_ELEMS_BYTES // size)
    blocks = np.random.default_rng(9).integers(0, SRC_ELEMS_BYTES // B, 64)
    offs = (blocks * B).astype(np.uint32)
    out = source(dtype, DST_BYTES // size, seed=3)
    want = out.copy()
    step = blk if blk != 0 else 1  # dst_blk_stride 0 acts as 1 (ascendc-semantics.md 5.8)
    for r in range(repeat):
        for j in range(8):
            at = (r * rep + j * step) * pb
            want[at:at + pb] = x[blocks[8 * r + j] * pb:(blocks[8 * r + j] + 1) * pb]
    gatherb_kernel[1, rt.current_stream()](x, offs, out, repeat, blk, rep)
    np.testing.assert_array_equal(out, want)


# ---- gather_mask ----------------------------------------------------------------------------

PAT_AT, CNT_AT = 4096, 16384


@asc.jit
def gather_mask_kernel(x: asc.GlobalAddress, pat: asc.GlobalAddress, out: asc.GlobalAddress,
                       counts: asc.GlobalAddress, builtin: asc.ConstExpr,
                       reduce: asc.ConstExpr, mask: asc.ConstExpr, repeat: asc.ConstExpr,
                       src_blk: asc.ConstExpr, src_rep: asc.ConstExpr, pat_rep: asc.ConstExpr):
    gx, gp, go, gc = asc.GlobalTensor(), asc.GlobalTensor(), asc.GlobalTensor(), \
        asc.GlobalTensor()
    gx.set_global_buffer(x)
    gp.set_global_buffer(pat)
    go.set_global_buffer(out)
    gc.set_global_buffer(counts)
    n_src = SRC_ELEMS_BYTES // x.dtype.sizeof()
    n_dst = DST_BYTES // x.dtype.sizeof()
    s = asc.LocalTensor(x.dtype, asc.TPosition.VECIN, 0, n_src)
    p = asc.LocalTensor(pat.dtype, asc.TPosition.VECIN, PAT_AT, 1024 // pat.dtype.sizeof())
    d = asc.LocalTensor(x.dtype, asc.TPosition.VECOUT, DST_AT, n_dst)
    c = asc.LocalTensor(asc.int32, asc.TPosition.VECOUT, CNT_AT, 8)
    asc.data_copy(s, gx, n_src)
    asc.data_copy(p, gp, 1024 // pat.dtype.sizeof())
    asc.data_copy(d, go, n_dst)
    asc.set_flag(asc.HardEvent.MTE2_V, 0)
    asc.wait_flag(asc.HardEvent.MTE2_V, 0)
    params = asc.GatherMaskParams(src0_block_stride=src_blk, repeat_times=repeat,
                                  src0_repeat_stride=src_rep, src1_repeat_stride=pat_rep)
    if builtin == 0:
        kept = asc.gather_mask(d, s, p, reduce, mask, params)
    else:
        kept = asc.gather_mask(d, s, builtin, reduce, mask, params,
                               gather_mask_mode=asc.GatherMaskMode.DEFAULT)
    again = asc.get_gather_mask_remain_count()
    c.set_value(0, kept)
    c.set_value(1, again)
    for i in asc.static_range(2, 8):
        c.set_value(i, 0)
    asc.set_flag(asc.HardEvent.V_MTE3, 0)
    asc.wait_flag(asc.HardEvent.V_MTE3, 0)
    asc.set_flag(asc.HardEvent.S_MTE3, 0)
    asc.wait_flag(asc.HardEvent.S_MTE3, 0)
    asc.data_copy(go, d, n_dst)
    asc.data_copy(gc, c, 8)


def gather_mask_ref(x, pat_bytes, builtin, reduce, mask, repeat, src_blk, src_rep, pat_rep):
    size = x.dtype.itemsize
    lanes, pb = 256 // size, B // size
    kept = []
    for r in range(repeat):
        for e in range(mask if reduce else lanes):
            if builtin == 0:
                bit = (pat_bytes[r * pat_rep * B + e // 8] >> (e % 8)) & 1
            elif builtin in (1, 2):
                bit = e % 2 == builtin - 1
            elif builtin == 7:
                bit = True
            else:
                bit = e % 4 == builtin - 3
            if bit:
                kept.append(x[(r * src_rep + e // pb * src_blk) * pb + e % pb])
    return np.array(kept, dtype=x.dtype)


def run_gather_mask(dtype, builtin, reduce, mask, repeat, src_blk, src_rep, pat_rep):
    size = np.dtype(dtype).itemsize
    x = source(dtype, SRC_ELEMS_BYTES // size)
    pat_dtype = np.uint16 if size == 2 else np.uint32
    pat = np.random.default_rng(5).integers(0, 2 ** 16, 1024 // size).astype(pat_dtype)
    out = source(dtype, DST_BYTES // size, seed=3)
    counts = np.full(8, -1, dtype=np.int32)
    want_kept = gather_mask_ref(x, pat.view(np.uint8), builtin, reduce, mask, repeat, src_blk,
                                src_rep, pat_rep)
    want = out.copy()
    want[:len(want_kept)] = want_kept
    gather_mask_kernel[1, rt.current_stream()](x, pat, out, counts, builtin, reduce, mask,
                                               repeat, src_blk, src_rep, pat_rep)
    np.testing.assert_array_equal(out, want)
    assert counts[0] == len(want_kept) and counts[1] == len(want_kept)


@pytest.mark.parametrize("dtype", ["float16", "uint16", "int16", "float32", "uint32", "int32"])
@pytest.mark.parametrize("builtin", [1, 2, 3, 4, 5, 6, 7])
def test_gather_mask_builtin_patterns(device, dtype, builtin):
    # Normal mode: 256 bytes per iteration, the mask (here 5) ignored.
    run_gather_mask(dtype, builtin, False, 5, 2, 1, 8, 0)


@pytest.mark.parametrize("dtype", ["float16", "float32", "int32"])
def test_gather_mask_pattern_tensor_with_strides(device, dtype):
    run_gather_mask(dtype, 0, False, 0, 3, 2, 16, 1)


@pytest.mark.parametrize("dtype", ["float16", "int16", "float32", "uint32"])
def test_gather_mask_reduce_mode_counts_per_iteration(device, dtype):
    # reduce_mode=True: the mask is the element count of each iteration (A2's "way 1").
    run_gather_mask(dtype, 0, True, 50, 2, 1, 8, 1)
    run_gather_mask(dtype, 3, True, 37, 3, 1, 8, 0)


def test_gather_mask_pattern_dtype_is_checked(device):
    with pytest.raises(Exception, match="src1_pattern' must be a uint16 tensor"):
        x = source("float16", 1024)
        gather_mask_kernel[1, rt.current_stream()](
            x, np.zeros(256, np.uint32), np.zeros(2048, np.float16), np.zeros(8, np.int32), 0,
            False, 0, 1, 1, 8, 0)


# ---- what the race checker sees -------------------------------------------------------------

@asc.jit
def gather_then_overwrite_kernel(x: asc.GlobalAddress, offs: asc.GlobalAddress,
                                 y: asc.GlobalAddress, out: asc.GlobalAddress):
    gx, gf, gy, go = asc.GlobalTensor(), asc.GlobalTensor(), asc.GlobalTensor(), \
        asc.GlobalTensor()
    gx.set_global_buffer(x)
    gf.set_global_buffer(offs)
    gy.set_global_buffer(y)
    go.set_global_buffer(out)
    s = asc.LocalTensor(asc.float16, asc.TPosition.VECIN, 0, 256)
    other = asc.LocalTensor(asc.float16, asc.TPosition.VECIN, 1024, 256)
    f = asc.LocalTensor(asc.uint32, asc.TPosition.VECIN, OFF_AT, 128)
    d = asc.LocalTensor(asc.float16, asc.TPosition.VECOUT, DST_AT, 128)
    asc.data_copy(s, gx, 256)
    asc.data_copy(other, gx, 256)
    asc.data_copy(f, gf, 128)
    asc.set_flag(asc.HardEvent.MTE2_V, 0)
    asc.wait_flag(asc.HardEvent.MTE2_V, 0)
    asc.gather(d, s, f, 0, 128)  # the offsets reach past s into `other`
    asc.pipe_barrier(asc.PipeID.PIPE_MTE2)
    asc.data_copy(other, gy, 256)  # no V_MTE2 flag: may land before the gather reads
    asc.set_flag(asc.HardEvent.V_MTE3, 0)
    asc.wait_flag(asc.HardEvent.V_MTE3, 0)
    asc.data_copy(go, d, 128)


def test_gathered_bytes_outside_the_tensor_are_race_checked(device):
    x = source("float16", 256)
    offs = (1024 + 2 * np.arange(128)).astype(np.uint32)  # bytes of `other`, not of s
    out = np.zeros(128, dtype=np.float16)
    with pytest.warns(KernelWarning, match="race \\(WAR\\)"):
        report = gather_then_overwrite_kernel[1, rt.current_stream()](
            x, offs, np.ones(256, np.float16), out, check="warn", auto_sync=False)
    races = [d for d in report.diagnostics if d.kind == "RACE"]
    assert [(r.race, r.pipe, r.other_pipe) for r in races] == [("WAR", "MTE2", "V")], \
        report.diagnostics
    np.testing.assert_array_equal(out, x[:128])  # the model runs the gather first
