"""The instruction sequences behind asc.adv.Matmul on the core that computes (docs/matmul.md):
GM -> L1 tiles by ND -> NZ copies (MTE2), L1 -> L0A/L0B fractal loads (MTE1), Mmads into L0C
(M), the bias row through the bias table (C1 -> C2), and L0C -> destination by Fixpipe (FIX),
all through TQue buffers of the Matmul's pipe, whose enque/deque give the flags. Each function
is a library sub-kernel: traced where the user calls the Matmul, its ops carry the user's line
(asc.codegen.function_visitor.inline_library)."""
from asc.codegen.builder import require_builder
from asc.language.basic.atomic import set_atomic_add, set_atomic_max, set_atomic_min, \
    set_atomic_none
from asc.language.basic.cube import fixpipe, load_data
from asc.language.basic.cube_loads import init_const_value, load_data_with_transpose
from asc.language.basic.data_copy import data_copy
from asc.language.basic.sync import pipe_barrier, set_flag, wait_flag
from asc.language.core.constexpr import ConstExpr
from asc.language.core.dtype import KnownTypes as KT
from asc.language.core.enums import HardEvent, PipeID, QuantModes
from asc.language.core.ir_value import select, to_value
from asc.language.core.tensor import tensor_ref
from asc.language.core.types import (DataCopyParams, FixpipeConfig, FixpipeParamsV220,
                                     InitConstValueParams,
                                     LoadData2DParams, LoadData2dTransposeParams,
                                     LoadData3DParamsV2, Nd2NzParams)
from asc.runtime.jit import jit

# ---- GM -> L1 --------------------------------------------------------------------------------


@jit
def copy_tile(dst, src, row0, col0, rows, cols, pitch, banded: ConstExpr[bool],
              row_align: ConstExpr[int] = 16, panel_rows=None):
    """rows x cols of the row-major matrix `src` (pitch elements a row) from (row0, col0) into
    L1 as NZ. Plain: one Nd2Nz, panels ceil16(rows) high. Banded (float operands that L0 needs
    transposed): one Nz matrix of 16 rows per band of rows, so a 16 x 16 square's two float
    fractals sit side by side as load_data_with_transpose reads them. `row_align`: the panels'
    height step (32 for an int8 B whose 32 x 32-byte squares are transposed). `panel_rows`
    (plain only): the panels' height when the rows are a slice of a taller tile (Norm)."""
    if banded:
        band = (cols + 15) // 16 * 16 * 16
        for b in range((rows + 15) // 16):
            left = rows - b * 16
            r = 16 if left > 16 else left
            data_copy(dst[b * band:], src[(row0 + b * 16) * pitch + col0:],
                      Nd2NzParams(1, r, cols, 0, pitch, 16, 1, 0))
    else:
        if panel_rows is None:
            panel_rows = (rows + row_align - 1) // row_align * row_align
        data_copy(dst, src[row0 * pitch + col0:],
                  Nd2NzParams(1, rows, cols, 0, pitch, panel_rows, 1, 0))


@jit
def issue_a(mm, bufs, a1, id_a, m0, k0, m, chunk_a):
    """A chunk GM -> its L1 slot (MTE2), once the slot's last L0 load is done: one copy under
    MDL (doMultiDataLoad's "big packet"), one per base_k slice under the other templates
    (Ascend C's Norm copies one base block at a time; a banded float tile stays one copy)."""
    plan = mm._plan
    wait_flag(HardEvent.MTE1_MTE2, id_a)
    if plan.constants and mm._get("a_scalar"):
        fill_tile(a1, bufs.a1_elems, mm._get("a_value"))
    elif plan.a_trans and plan.banded:
        copy_tile(a1, mm.a_gm(), k0, m0, chunk_a, m, mm._get("org_m"), True)
    elif plan.multi_load:
        copy_a(mm, a1, m0, k0, m, chunk_a, chunk_a)
    else:
        base_k = mm._get("base_k")
        m16 = (m + 15) // 16 * 16
        for s in range((chunk_a + base_k - 1) // base_k):
            left = chunk_a - s * base_k
            kk = base_k if left > base_k else left
            # The slice's place in the chunk, as compute_block's L0 loads find it.
            off = s * base_k * 16 if plan.a_trans else s * base_k * m16
            copy_a(mm, a1[off:], m0, k0 + s * base_k, m, kk, chunk_a)
    set_flag(HardEvent.MTE2_MTE1, id_a)


@jit
def copy_a(mm, dst, m0, k0, m, kk, chunk_a):
    """kk of A's K from k0 into a chunk of chunk_a (plain layouts)."""
    plan = mm._plan
    if plan.a_trans:
        copy_tile(dst, mm.a_gm(), k0, m0, kk, m, mm._get("org_m"), False, 16,
                  (chunk_a + 15) // 16 * 16)
    else:
        copy_tile(dst, mm.a_gm(), m0, k0, m, kk, mm._get("org_ka"), False)


@jit
def issue_b(mm, bufs, b1, id_b, n0, k0, n, chunk_b):
    """B chunk GM -> its L1 slot (MTE2), once the slot's last L0 load is done."""
    plan = mm._plan
    wait_flag(HardEvent.MTE1_MTE2, id_b)
    if plan.constants and mm._get("b_scalar"):
        fill_tile(b1, bufs.b1_elems, mm._get("b_value"))
    elif plan.banded and not (plan.b_trans or plan.b_nz):
        copy_tile(b1, mm.b_gm(), k0, n0, chunk_b, n, mm._get("org_n"), True, plan.k_align)
    elif plan.multi_load:
        copy_b(mm, b1, n0, k0, n, chunk_b, chunk_b)
    else:
        base_k = mm._get("base_k")
        n16 = (n + 15) // 16 * 16
        for s in range((chunk_b + base_k - 1) // base_k):
            left = chunk_b - s * base_k
            kk = base_k if left > base_k else left
            off = s * base_k * n16 if (plan.b_trans or plan.b_nz) else s * base_k * plan.c0
            copy_b(mm, b1[off:], n0, k0 + s * base_k, n, kk, chunk_b)
    set_flag(HardEvent.MTE2_MTE1, id_b)


@jit
def copy_b(mm, dst, n0, k0, n, kk, chunk_b):
    """kk of B's K from k0 into a chunk of chunk_b (plain layouts)."""
    plan = mm._plan
    if plan.b_nz:
        copy_nz_panels(dst, mm.b_gm(), n0, k0, n, kk, mm._get("org_n"))
    elif plan.b_trans:
        copy_tile(dst, mm.b_gm(), n0, k0, n, kk, mm._get("org_kb"), False)
    else:
        copy_tile(dst, mm.b_gm(), k0, n0, kk, n, mm._get("org_n"), False, plan.k_align,
                  (chunk_b + plan.k_align - 1) // plan.k_align * plan.k_align)


class Residency:
    """For one block of a region whose K fits one L1 chunk of each operand: each operand's slot,
    whether the block uses a new chunk (its block index changed: it waits for the copy), issues
    that copy itself (not when MTE2 preload issued it a block ahead) and frees the slot (the
    next block's index differs, or this is the last)."""

    def __init__(self, a_slot, a_issue, a_fresh, a_free, b_slot, b_issue, b_fresh, b_free,
                 a_take=False, b_take=False):
        self.a_slot, self.a_issue, self.a_fresh, self.a_free = a_slot, a_issue, a_fresh, a_free
        self.b_slot, self.b_issue, self.b_fresh, self.b_free = b_slot, b_issue, b_fresh, b_free
        # IBShare: the block uses the chunk an earlier request left in the slot; it takes the
        # slot (its MTE1_MTE2, set free at the request's start) without a copy.
        self.a_take, self.b_take = a_take, b_take


# IBShare's record of the shared chunk in the server's L1 (docs/matmul.md): per operand five
# uint64 words in GM (A from word 0, B from word 8): valid, GM address, first row or column
# << 32 | its count, single_k << 32 | the row pitch, the K pitch.
SHARE_A, SHARE_B = 0, 8


def share_words(state, which, first, count):
    """The record of operand `which`'s whole-K chunk at `first` (`count` rows or columns)."""
    def u(v):
        return to_value(v, KT.uint64)
    if which == "a":
        addr, pitch, k_pitch, scalar = "a_addr", "org_m", "org_ka", "a_scalar"
    else:
        addr, pitch, k_pitch, scalar = "b_addr", "org_n", "org_kb", "b_scalar"
    valid = select(state._get(scalar), u(0), u(1))  # a constant operand is never shared
    return (valid, u(state._get(addr)), (u(first) << 32) | u(count),
            (u(state._get("single_k")) << 32) | u(state._get(pitch)), u(state._get(k_pitch)))


def share_held(record, offset, words):
    """Whether the record at `offset` names the chunk `words` describe (both valid)."""
    held = None
    for i, word in enumerate(words):
        same = record.get_value(offset + i) == word
        held = same if held is None else held & same
    return held & (words[0] == 1)


def share_store(record, offset, words):
    for i, word in enumerate(words):
        record.set_value(offset + i, word)


def share_forget(record):
    """Neither operand's chunk is known to be in L1 (another kind of request reused it)."""
    record.set_value(SHARE_A, 0)
    record.set_value(SHARE_B, 0)


@jit
def preload_a(state, bufs, ev, slot, m0, m):
    """MTE2 preload along M: A's whole-K chunk for the block rows at m0 into L1 slot `slot`."""
    a1 = bufs.a1[slot * bufs.a1_elems:]
    id_a = ev.l1_0 if slot == 0 else (ev.l1_1 if slot == 1 else ev.l1_2)
    issue_a(state, bufs, a1, id_a, m0, 0, m, state._get("single_k"))


@jit
def preload_b(state, bufs, ev, slot, n0, n):
    """MTE2 preload along N: B's whole-K chunk for the block columns at n0 into L1 slot `slot`."""
    b1 = bufs.b1[slot * bufs.b1_elems:]
    id_b = ev.b1_0 if slot == 0 else ev.b1_1
    issue_b(state, bufs, b1, id_b, n0, 0, n, state._get("single_k"))


def whole_k(state, bufs, m, n):
    """Whether K fits one L1 chunk of A and of B (the steps cover it and the slots hold it)."""
    plan = state._plan
    k_total = to_value(state._get("single_k"), KT.int32)
    base_k = to_value(state._get("base_k"), KT.int32)
    k_iter = (k_total + base_k - 1) // base_k
    kp = (base_k + plan.k_align - 1) // plan.k_align * plan.k_align
    m16 = (to_value(m, KT.int32) + 15) // 16 * 16
    n16 = (to_value(n, KT.int32) + 15) // 16 * 16
    step_a = l1_step(state._get("step_ka"), bufs.a1_elems // (m16 * kp))
    step_b = l1_step(state._get("step_kb"), bufs.b1_elems // (n16 * kp))
    return (k_iter <= step_a) & (k_iter <= step_b)


def l1_step(step, fits):
    """A slice count per L1 copy: the tiling's (0 means 1), at most what the slot holds."""
    step = to_value(step, KT.int32)
    step = select(step > 0, step, 1)
    fits = to_value(fits, KT.int32)
    fits = select(fits > 0, fits, 1)
    return select(step > fits, fits, step)


@jit
def fill_tile(dst, elems, value):
    """A constant operand's L1 slot: every element the value (InitConstValue on MTE2), so any
    load reads it whatever layout it assumes."""
    init_const_value(dst, InitConstValueParams(1, elems * dst.dtype.sizeof() // 32, 0, value))


@jit
def copy_nz_panels(dst, src, n0, k0, n, kk, org_n):
    """A transposed half B stored as NZ in GM (W[n][k] at (k / 16) * org_n * 16 + n * 16 +
    k % 16): rows n0 .. n0 + n of the panels of k0 .. k0 + kk into L1's Nz of an N x K tile
    (panels ceil16(n) rows high), one strided copy: a panel's rows are 32-byte blocks."""
    n16 = (n + 15) // 16 * 16
    data_copy(dst, src[(k0 // 16) * org_n * 16 + n0 * 16:],
              DataCopyParams((kk + 15) // 16, n, org_n - n, n16 - n))


# ---- L1 -> L0A / L0B -------------------------------------------------------------------------


@jit
def load_a(a2, a1, m, k, trans: ConstExpr[bool], c0: ConstExpr[int], k_align: ConstExpr[int],
           panel_rows):
    """A's m x k tile from L1 into L0A's Zz layout (docs/cube.md): row bands of fractals. Not
    transposed (L1 holds m rows, k columns): one LoadData 3Dv2 for half and bfloat16, else one
    load per band of 16 rows. Transposed (L1 holds k rows, m columns, in panels `panel_rows`
    high): half fractals transposed, in one load when the panels hold just this tile, else one
    per panel; float squares per band."""
    m16 = (m + 15) // 16 * 16
    kp = (k + k_align - 1) // k_align * k_align
    k1 = kp // c0
    if trans:
        if c0 == 8:
            for j in range(m16 // 16):
                load_data_with_transpose(a2[j * k1 * 128:], a1[j * 256:],
                                         LoadData2dTransposeParams(0, kp // 16, m16 // 16, 1, 0, 0))
        elif panel_rows == kp:
            load_data(a2, a1, LoadData2DParams(0, (m16 // 16) * (kp // 16), 1, 0, 0, True, 0))
        else:
            for panel in range(m16 // 16):
                load_data(a2[panel * k1 * 256:], a1[panel * panel_rows * 16:],
                          LoadData2DParams(0, kp // 16, 1, 0, 0, True, 0))
    elif c0 == 16:
        # Half and bfloat16: one LoadData 3Dv2 of the slice, as Ascend C's A2 Matmul loads L0A
        # (LoadToL0A with Load3dV2: a 1 x m16 feature map of kp channels, a 1 x 1 filter, so
        # its im2col matrix is the tile itself, Zz in L0A).
        load_data(a2, a1, LoadData3DParamsV2((0, 0, 0, 0), 1, m16, kp, kp, m16, 0, 0))
    else:
        for band in range(m16 // 16):
            load_data(a2[band * k1 * 16 * c0:], a1[band * 16 * c0:],
                      LoadData2DParams(0, k1, m16 // 16, 0, 0, False, 0))


@jit
def load_b(b2, b1, k, n, trans: ConstExpr[bool], c0: ConstExpr[int], k_align: ConstExpr[int],
           panel_rows):
    """B's k x n tile from L1 into L0B's Zn layout. Transposed (L1 holds n rows, k columns): one
    contiguous load. Not transposed (L1 holds k rows, n columns, in panels `panel_rows` high):
    per band of 16 k rows, half fractals transposed, or float squares transposed into their two
    k halves."""
    n16 = (n + 15) // 16 * 16
    kp = (k + k_align - 1) // k_align * k_align
    n1 = n16 // 16
    if trans:
        load_data(b2, b1, LoadData2DParams(0, (kp // c0) * n1, 1, 0, 0, False, 0))
    elif c0 == 32:
        # int8: 32 x 32-byte squares (two 16-row fractals, adjacent in panels 32 rows high)
        # transposed into two Zn fractals of 16 n; n runs to a multiple of 32 (the Mmad's too).
        n32 = (n + 31) // 32
        for kb in range(kp // 32):
            load_data_with_transpose(b2[kb * n32 * 2 * 512:], b1[kb * 1024:],
                                     LoadData2dTransposeParams(0, n32, panel_rows // 32, 1, 0,
                                                               0))
    elif c0 == 8:
        for kb in range(kp // 16):
            load_data_with_transpose(b2[kb * 2 * n1 * 128:], b1[kb * n1 * 256:],
                                     LoadData2dTransposeParams(0, n1, 1, 0, n1 - 1, 0))
    else:
        for kb in range(kp // 16):
            load_data(b2[kb * n1 * 256:], b1[kb * 256:],
                      LoadData2DParams(0, n1, panel_rows // 16, 0, 0, True, 0))


# ---- Mmad ------------------------------------------------------------------------------------


def emit_mmad(dst, a2, b2, bias, m, n, k, init, from_bias, k_direction_align, unit_flag=0):
    """One Mmad (IR mmad): C = [bias | C] + A x B with runtime init / bias flags. Float operands
    keep K in 16-element steps (kDirectionAlign) so L0A and L0B tiles transposed by squares and
    those copied straight agree."""
    builder = require_builder("Matmul")
    refs = {"dst": tensor_ref(dst), "fm": tensor_ref(a2), "filter": tensor_ref(b2)}
    if bias is not None:
        refs["bias"] = tensor_ref(bias)
    ids = {"m": to_value(m, KT.uint16).id, "n": to_value(n, KT.uint16).id,
           "k": to_value(k, KT.uint16).id, "unit_flag": to_value(unit_flag, KT.uint8).id,
           "cmatrix_source": to_value(from_bias, KT.int1).id,
           "cmatrix_init_val": to_value(init, KT.int1).id,
           "k_direction_align": to_value(bool(k_direction_align), KT.int1).id}
    op = builder.emit("mmad")
    for name, ref in refs.items():
        getattr(op, name).CopyFrom(ref)
    for name, value in ids.items():
        setattr(op, name, value)


# ---- one base block ----------------------------------------------------------------------------


@jit
def compute_block(mm, bufs, ev, m0, n0, m, n, count, keep=None):
    """L0C = [bias] + A[m0 : m0+m, :K] x B[:K, n0 : n0+n], K in base_k slices, block `count`
    of the call (the slots' parity goes on from block to block). GM -> L1 copies bring stepKa
    (stepKb) slices of A (B) into one of two L1 slots, each slice goes to one of two L0 slots,
    every slot guarded by its own pair of flags, as Ascend C's Matmul guards its buffers; the
    bias row goes GM -> C1 -> bias table before the first Mmad. The caller's Fixpipe waits
    M_FIX. `keep` (a Residency, K whole in one chunk of each operand): which L1 slot holds each
    operand's chunk, whether this block loads it (fresh) and frees it (free): an operand whose
    block index does not change stays in L1 from block to block."""
    plan = mm._plan
    use_keep = keep is not None
    k_total = mm._get("single_k")
    base_k = mm._get("base_k")
    with_bias = mm._get("bias_on") if plan.has_bias else False
    if with_bias:
        wait_flag(HardEvent.MTE1_MTE2, ev.bias)
        # One ND row of n floats, zero-padded to its 32-byte block: it reads exactly the bias.
        data_copy(bufs.bias1, mm.bias_gm()[n0:], Nd2NzParams(1, 1, n, 0, n, 1, 1, 0))
        set_flag(HardEvent.MTE2_MTE1, ev.bias)
        wait_flag(HardEvent.MTE2_MTE1, ev.bias)
        wait_flag(HardEvent.M_MTE1, ev.bias)
        # Into the bias table blockLen counts 64-byte units (ascendc-semantics.md 2.4).
        data_copy(bufs.bias2, bufs.bias1, DataCopyParams(1, (n * 4 + 63) // 64, 0, 0))
        set_flag(HardEvent.MTE1_MTE2, ev.bias)
        set_flag(HardEvent.MTE1_M, ev.bias)
        wait_flag(HardEvent.MTE1_M, ev.bias)
    if not ev.unit_flag:
        wait_flag(HardEvent.FIX_M, ev.c)
    k_iter = (k_total + base_k - 1) // base_k
    m16 = (m + 15) // 16 * 16
    n16 = (n + 15) // 16 * 16
    kp = (base_k + plan.k_align - 1) // plan.k_align * plan.k_align
    # stepKa / stepKb: base_k slices of A (B) that one GM -> L1 copy brings (MDL's multi-load),
    # as many as the L1 slot holds; a slot is freed after its last slice's L0 load.
    step_a = l1_step(mm._get("step_ka"), bufs.a1_elems // (m16 * kp))
    step_b = l1_step(mm._get("step_kb"), bufs.b1_elems // (n16 * kp))
    chunks_a = (k_iter + step_a - 1) // step_a
    chunks_b = (k_iter + step_b - 1) // step_b
    for ki in range(k_iter):
        k0 = ki * base_k
        left = k_total - k0
        kk = base_k if left > base_k else left
        ca = ki // step_a
        ra = ki - ca * step_a
        cb = ki // step_b
        rb = ki - cb * step_b
        slot_a = (count * chunks_a + ca) % bufs.a1_slots
        slot_b = (count * chunks_b + cb) % bufs.b1_slots
        if use_keep:
            slot_a = keep.a_slot
            slot_b = keep.b_slot
        slot = (count * k_iter + ki) % 2
        id_a = ev.l1_0 if slot_a == 0 else (ev.l1_1 if slot_a == 1 else ev.l1_2)
        id_b = ev.b1_0 if slot_b == 0 else ev.b1_1
        id_l0 = ev.l0_0 if slot == 0 else ev.l0_1
        a1 = bufs.a1[slot_a * bufs.a1_elems:]
        b1 = bufs.b1[slot_b * bufs.b1_elems:]
        a2 = bufs.a2[slot * bufs.a_elems:]
        b2 = bufs.b2[slot * bufs.b_elems:]
        left_a = k_total - ca * step_a * base_k
        chunk_a = step_a * base_k if left_a > step_a * base_k else left_a
        left_b = k_total - cb * step_b * base_k
        chunk_b = step_b * base_k if left_b > step_b * base_k else left_b
        if ra == 0:
            if use_keep:
                if keep.a_take:
                    wait_flag(HardEvent.MTE1_MTE2, id_a)
                if keep.a_fresh:
                    if keep.a_issue:
                        issue_a(mm, bufs, a1, id_a, m0, k0, m, chunk_a)
                    wait_flag(HardEvent.MTE2_MTE1, id_a)
            else:
                issue_a(mm, bufs, a1, id_a, m0, k0, m, chunk_a)
                wait_flag(HardEvent.MTE2_MTE1, id_a)
        if rb == 0:
            if use_keep:
                if keep.b_take:
                    wait_flag(HardEvent.MTE1_MTE2, id_b)
                if keep.b_fresh:
                    if keep.b_issue:
                        issue_b(mm, bufs, b1, id_b, n0, k0, n, chunk_b)
                    wait_flag(HardEvent.MTE2_MTE1, id_b)
            else:
                issue_b(mm, bufs, b1, id_b, n0, k0, n, chunk_b)
                wait_flag(HardEvent.MTE2_MTE1, id_b)
        wait_flag(HardEvent.M_MTE1, id_l0)
        # This slice's place in the chunk: K panels along the row for A as stored and B
        # transposed; rows of panels (16-row fractals, float bands, int8 32-row squares) else.
        off_a = ra * base_k * m16
        if plan.a_trans:
            off_a = ra * base_k * 16 if plan.c0 == 16 else (ra * base_k // 16) * m16 * 16
        off_b = rb * base_k * n16
        if not (plan.b_trans or plan.b_nz):
            off_b = rb * base_k * plan.c0 if plan.c0 != 8 else (rb * base_k // 16) * n16 * 16
        if plan.constants and mm._get("a_scalar"):
            off_a = 0
        if plan.constants and mm._get("b_scalar"):
            off_b = 0
        rows_a = (chunk_a + 15) // 16 * 16
        rows_b = (chunk_b + plan.k_align - 1) // plan.k_align * plan.k_align
        load_a(a2, a1[off_a:], m, kk, plan.a_trans, plan.c0, plan.k_align, rows_a)
        load_b(b2, b1[off_b:], kk, n, plan.b_trans, plan.c0, plan.k_align, rows_b)
        if use_keep:
            if ki == k_iter - 1:
                if keep.a_free:
                    set_flag(HardEvent.MTE1_MTE2, id_a)
                if keep.b_free:
                    set_flag(HardEvent.MTE1_MTE2, id_b)
        else:
            if ra == step_a - 1 or ki == k_iter - 1:
                set_flag(HardEvent.MTE1_MTE2, id_a)
            if rb == step_b - 1 or ki == k_iter - 1:
                set_flag(HardEvent.MTE1_MTE2, id_b)
        set_flag(HardEvent.MTE1_M, id_l0)
        wait_flag(HardEvent.MTE1_M, id_l0)
        # Accumulating Mmads into one L0C block: below 10 fractals of C a PIPE_M barrier orders
        # them, from there on the cube interlocks them (ascendc-semantics.md 3.4), and Ascend C's
        # Matmul issues the barrier only below that size (MmadCompute, docs/matmul.md).
        if (m16 // 16) * (n16 // 16) < 10:
            pipe_barrier(PipeID.PIPE_M)
        first = k0 == 0
        # A bias operand makes the Mmad start from the bias table (the chip's bias form), so
        # only the first slice passes it.
        # An int8 B transposed by squares spans n rounded to 32; its extra columns are zeros.
        n_mmad = (n + 31) // 32 * 32 if plan.wide_n else n
        # UnitFlag: the K loop's Mmads keep L0C's ready bits (2), the last sets them (3) for
        # the Fixpipe, which clears them (ascendc-semantics.md 3.5): no M_FIX / FIX_M pair.
        unit = 0
        if ev.unit_flag:
            unit = 3 if ki == k_iter - 1 else 2
        if first and with_bias:
            emit_mmad(bufs.co1, a2, b2, bufs.bias2, m, n_mmad, kk, False, True, plan.c0 == 8,
                      unit)
        else:
            emit_mmad(bufs.co1, a2, b2, None, m, n_mmad, kk, first, False, plan.c0 == 8, unit)
        set_flag(HardEvent.M_MTE1, id_l0)
    if with_bias:
        set_flag(HardEvent.M_MTE1, ev.bias)
    if not ev.unit_flag:
        set_flag(HardEvent.M_FIX, ev.c)


# ---- the flags of one computing call -------------------------------------------------------------


class Events:
    """The flags a computing call (iterate_all, an iterate loop) uses, with the ids Ascend C's
    Matmul fixes (ascendc-semantics.md 7.5: M_MTE1 0, 1, 2): slot 0 and 1 of L1 and of L0 and
    the bias buffers (2) each guarded by a pair of events, L0C by M_FIX / FIX_M 0. The "free"
    direction is set once at the start, so each buffer's first wait passes, and its last set is
    waited at the end, so the call leaves no flag behind."""

    l1_0 = l0_0 = c = 0
    l1_1 = l0_1 = 1
    bias = 2
    b1_0, b1_1 = 3, 4  # B's L1 slots (MTE2_MTE1 / MTE1_MTE2), apart from A's: steps differ
    l1_2 = 5  # A's third L1 slot (NBuffer33)

    def __init__(self, has_bias, preset=True, dequant=False, unit_flag=False, a_slots=2):
        # UnitFlag hands each block from Mmad to Fixpipe through L0C's ready bits instead of
        # the M_FIX / FIX_M pair (a call that delivers every block it computes).
        self.unit_flag = unit_flag
        bias = (self.bias,) if has_bias else ()
        third = (self.l1_2,) if a_slots == 3 else ()
        self.l1_ids = (self.l1_0, self.l1_1, self.b1_0, self.b1_1) + third + bias
        self.l0_ids = (self.l0_0, self.l0_1) + bias
        self.dequant = dequant  # FIX_MTE2 0 guards the quant words' L1 buffer
        if not preset:  # the flags of a call that started earlier (a server's ITERATE)
            return
        for ident in self.l1_ids:
            set_flag(HardEvent.MTE1_MTE2, ident)
        for ident in self.l0_ids:
            set_flag(HardEvent.M_MTE1, ident)
        set_flag(HardEvent.FIX_M, self.c)
        if dequant:
            set_flag(HardEvent.FIX_MTE2, self.c)

    def finish(self):
        for ident in self.l1_ids:
            wait_flag(HardEvent.MTE1_MTE2, ident)
        for ident in self.l0_ids:
            wait_flag(HardEvent.M_MTE1, ident)
        wait_flag(HardEvent.FIX_M, self.c)
        if self.dequant:
            wait_flag(HardEvent.FIX_MTE2, self.c)


# ---- whole regions and batches -------------------------------------------------------------


class Shifted:
    """A Matmul state seen with other operand addresses (one matrix pair of a batch)."""

    def __init__(self, state, **fields):
        self.state = state
        self.fields = fields
        self._plan = state._plan

    def _get(self, name):
        return self.fields[name] if name in self.fields else self.state._get(name)

    def a_gm(self):
        return _gm(self._get("a_addr"), self._plan.a_dtype)

    def b_gm(self):
        return _gm(self._get("b_addr"), self._plan.b_dtype)

    def bias_gm(self):
        return _gm(self._get("bias_addr"), KT.float32)


def _gm(addr, dtype):
    from asc.language.core.tensor import GlobalTensor
    return GlobalTensor._make(addr, dtype, None)


def _blocks():
    from asc.language.adv.matmul import block_at, blocks_of
    return block_at, blocks_of


@jit
def all_blocks(state, bufs, ev, c_gm, pitch, quant: ConstExpr):
    """Every base block of the single-core region into C (`c_gm` at the region's origin, `pitch`
    elements a row), in the tiling's order. When K fits one L1 chunk of each operand (MDL's
    full-K load), an operand stays in L1 while its block index does not change: with the order
    M first B is loaded once per column of blocks, with N first A once per row. MTE2 preload
    (the config's do_mte2_preload, with two L1 slots of that operand) issues the copy of the
    next block's A (1) or B (2) before this block's work, so MTE2 does not wait for the scalar
    unit to get past this block's instructions (docs/matmul.md)."""
    plan = state._plan
    block_at, blocks_of = _blocks()
    m_iter, n_iter = blocks_of(state)
    blocks = m_iter * n_iter
    first_m0, first_n0, first_m, first_n = block_at(state, 0, m_iter, n_iter)
    # NBuffer33 (three A slots: the cube-only Matmul's) keeps every base row of A, up to 3,
    # when the blocks go M first.
    rows33 = plan.nbuffer33 and bufs.a1_slots == 3
    keep_rows = False
    if rows33:
        keep_rows = (m_iter <= 3) & (to_value(state._get("iterate_order"), KT.int32) == 0)
    if whole_k(state, bufs, first_m, first_n):
        held_m0 = -1
        held_n0 = -1
        loads_a = 0
        loads_b = 0
        # IBShare: a shared operand's first chunk may be in its L1 slot from the other
        # client's request; then it is held from the first block on.
        take_a = False
        take_b = False
        if bufs.shares_a:
            take_a = share_held(bufs.share_record, SHARE_A,
                                share_words(state, "a", first_m0, first_m))
            held_m0 = select(take_a, first_m0, -1)
        if bufs.shares_b:
            take_b = share_held(bufs.share_record, SHARE_B,
                                share_words(state, "b", first_n0, first_n))
            held_n0 = select(take_b, first_n0, -1)
        for count in range(blocks):
            m0, n0, m, n = block_at(state, count, m_iter, n_iter)
            next_m0, next_n0, next_m, next_n = block_at(state, count + 1, m_iter, n_iter)
            last = count + 1 == blocks
            fresh_a = m0 != held_m0
            fresh_b = n0 != held_n0
            loads_a = loads_a + (1 if fresh_a else 0)
            loads_b = loads_b + (1 if fresh_b else 0)
            issue_a_now = fresh_a
            issue_b_now = fresh_b
            if plan.preload == 1:
                if bufs.a1_slots == 2:
                    issue_a_now = False
                    if count == 0:
                        preload_a(state, bufs, ev, 0, m0, m)
                    if not last and next_m0 != m0:
                        preload_a(state, bufs, ev, loads_a % 2, next_m0, next_m)
            if plan.preload == 2:
                if bufs.b1_slots == 2:
                    issue_b_now = False
                    if count == 0:
                        preload_b(state, bufs, ev, 0, n0, n)
                    if not last and next_n0 != n0:
                        preload_b(state, bufs, ev, loads_b % 2, next_n0, next_n)
            slot_a = (loads_a - 1) % bufs.a1_slots
            free_a = last or next_m0 != m0
            if rows33:
                if keep_rows:
                    # NBuffer33: each base row of A has its slot, loaded in the first column
                    # of blocks and kept to the last.
                    slot_a = count % m_iter
                    fresh_a = count < m_iter
                    issue_a_now = fresh_a
                    free_a = count + m_iter >= blocks
            keep = Residency(slot_a, issue_a_now, fresh_a, free_a,
                             (loads_b - 1) % bufs.b1_slots, issue_b_now, fresh_b,
                             last or next_n0 != n0, take_a and count == 0,
                             take_b and count == 0)
            compute_block(state, bufs, ev, m0, n0, m, n, count, keep)
            write_out(state, bufs, ev, c_gm[m0 * pitch + n0:], m, n, pitch, n0, quant)
            held_m0 = m0
            held_n0 = n0
        # The shared operand's single slot now holds the last block's chunk.
        last_m0, last_n0, last_m, last_n = block_at(state, blocks - 1, m_iter, n_iter)
        if bufs.shares_a:
            share_store(bufs.share_record, SHARE_A, share_words(state, "a", last_m0, last_m))
        if bufs.shares_b:
            share_store(bufs.share_record, SHARE_B, share_words(state, "b", last_n0, last_n))
    else:
        for count in range(blocks):
            m0, n0, m, n = block_at(state, count, m_iter, n_iter)
            compute_block(state, bufs, ev, m0, n0, m, n, count)
            write_out(state, bufs, ev, c_gm[m0 * pitch + n0:], m, n, pitch, n0, quant)
        if bufs.shares_a or bufs.shares_b:
            share_forget(bufs.share_record)


@jit
def batch_blocks(state, bufs, ev, c_gm, pitch, quant: ConstExpr, batch_a, batch_b, stride_a,
                 stride_b, stride_c):
    """iterate_batch, NORMAL layout: C matrix i = A[i // (batch / batch_a)] x B[i // (batch /
    batch_b)] for i < batch = max(batch_a, batch_b); matrices `stride_*` elements apart."""
    batch = batch_a if batch_a > batch_b else batch_b
    a_size = state._plan.a_dtype.sizeof()
    b_size = state._plan.b_dtype.sizeof()
    for i in range(batch):
        ia = i // (batch // batch_a)
        ib = i // (batch // batch_b)
        view = Shifted(state, a_addr=state._get("a_addr") + widen(ia * stride_a * a_size),
                       b_addr=state._get("b_addr") + widen(ib * stride_b * b_size))
        all_blocks(view, bufs, ev, c_gm[i * stride_c:], pitch, quant)


@jit
def n_batch_blocks(state, bufs, ev, c_gm, pitch, quant: ConstExpr, batch_loop, batch_a,
                   batch_b, stride_a, stride_b, stride_c):
    """iterate_n_batch: batch_loop batches of iterate_batch, batch group l reading the
    matrices after those of group l - 1 (l * batch_a of A, l * batch_b of B) and writing its
    max(batch_a, batch_b) C matrices after group l - 1's, from `c_gm` (the workspace)."""
    batch = batch_a if batch_a > batch_b else batch_b
    a_size = state._plan.a_dtype.sizeof()
    b_size = state._plan.b_dtype.sizeof()
    for group in range(batch_loop):
        view = Shifted(state,
                       a_addr=state._get("a_addr") + widen(group * batch_a * stride_a * a_size),
                       b_addr=state._get("b_addr") + widen(group * batch_b * stride_b * b_size))
        batch_blocks(view, bufs, ev, c_gm[group * batch * stride_c:], pitch, quant, batch_a,
                     batch_b, stride_a, stride_b, stride_c)


def widen(x):
    """A byte offset as the uint64 of a GM address."""
    return to_value(x, KT.uint64)


def batch_strides(state, batch_a, batch_b, stride_a, stride_b, stride_c):
    """The matrix strides of a NORMAL batch: the given ones, or the matrices back to back
    (A: org M x org Ka, B: org Kb x org N, C: org M x org N)."""
    org = {n: to_value(state._get(n), KT.int32) for n in ("org_m", "org_n", "org_ka",
                                                           "org_kb")}
    dense = (org["org_m"] * org["org_ka"], org["org_kb"] * org["org_n"],
             org["org_m"] * org["org_n"])
    out = []
    for given, default in zip((stride_a, stride_b, stride_c), dense):
        given = to_value(given, KT.int32)
        out.append(select(given != 0, given, default))
    return out


# ---- L0C -> destination ------------------------------------------------------------------------


def _atomic(api_dtype, en_atomic):
    return {1: set_atomic_add, 2: set_atomic_max, 3: set_atomic_min}[en_atomic]


def atomic_on(c_dtype, en_atomic):
    """Fixpipe's stores accumulate into GM while an atomic mode is set (ascendc-semantics.md
    5.12): Matmul's enAtomic 1/2/3 = add/max/min."""
    if en_atomic:
        _atomic(c_dtype, en_atomic)(c_dtype)


def atomic_off(en_atomic):
    if en_atomic:
        set_atomic_none()


@jit
def write_block(c_l0, ev, dst, m, n, pitch, quant: ConstExpr):
    """The block's m x n results, NZ in L0C, to `dst` row-major with `pitch` elements a row,
    converted as `quant` says (F322F16 for a half C); then L0C is free for the next block."""
    if ev.unit_flag:
        fixpipe(dst, c_l0, FixpipeParamsV220(n, m, (m + 15) // 16 * 16, pitch, quant,
                                             unit_flag=3),
                FixpipeConfig.cfg_row_major())
    else:
        wait_flag(HardEvent.M_FIX, ev.c)
        fixpipe(dst, c_l0, FixpipeParamsV220(n, m, (m + 15) // 16 * 16, pitch, quant),
                FixpipeConfig.cfg_row_major())
        set_flag(HardEvent.FIX_M, ev.c)


@jit
def write_out(state, bufs, ev, dst, m, n, pitch, n0, quant: ConstExpr):
    """The block to `dst`: converted as `quant` says, or for an int8 Matmul with a half C
    dequantised by the state's quant setting (write_dequant)."""
    if state._plan.dequant:
        write_dequant(state, bufs, ev, dst, m, n, pitch, n0)
    else:
        write_block(bufs.co1, ev, dst, m, n, pitch, quant)


@jit
def write_dequant(state, bufs, ev, dst, m, n, pitch, n0):
    """int32 L0C -> half by Fixpipe: DEQF16 with the set_quant_scalar word (quant kind 1; also
    when nothing was set, with word 0), or VDEQF16 with set_quant_vector's words for the block's
    columns n0 .. n0 + n, copied GM -> L1 first (MTE2, then MTE2_FIX; quant kind 2). A word's low
    32 bits are a float scale of which Fixpipe keeps sign, exponent and 10 mantissa bits
    (ascendc-semantics.md 4.4, asc-api.md 6.3)."""
    if not ev.unit_flag:
        wait_flag(HardEvent.M_FIX, ev.c)
    unit = 3 if ev.unit_flag else 0
    m16 = (m + 15) // 16 * 16
    if state._get("quant_kind") == 2:
        wait_flag(HardEvent.FIX_MTE2, ev.c)
        data_copy(bufs.quant, _gm(state._get("quant_addr"), KT.uint64)[n0:],
                  DataCopyParams(1, (n * 8 + 31) // 32, 0, 0))
        set_flag(HardEvent.MTE2_FIX, ev.c)
        wait_flag(HardEvent.MTE2_FIX, ev.c)
        fixpipe(dst, bufs.co1, bufs.quant,
                FixpipeParamsV220(n, m, m16, pitch, QuantModes.VDEQF16, unit_flag=unit),
                FixpipeConfig.cfg_row_major())
        set_flag(HardEvent.FIX_MTE2, ev.c)
    else:
        fixpipe(dst, bufs.co1, FixpipeParamsV220(n, m, m16, pitch, QuantModes.DEQF16,
                                                 state._get("quant_scalar"), unit_flag=unit),
                FixpipeConfig.cfg_row_major())
    if not ev.unit_flag:
        set_flag(HardEvent.FIX_M, ev.c)


@jit
def skip_block(ev):
    """A block nobody took still hands L0C back (the FIX pipe passes the flag on)."""
    wait_flag(HardEvent.M_FIX, ev.c)
    set_flag(HardEvent.FIX_M, ev.c)


def quant_of(c_dtype, acc_dtype):
    if c_dtype == acc_dtype:
        return QuantModes.NoQuant
    if acc_dtype == KT.int32 and c_dtype == KT.float16:
        return QuantModes.DEQF16  # or VDEQF16: the quant setting decides (write_dequant)
    if c_dtype == KT.float16:
        return QuantModes.F322F16
    if c_dtype == KT.bfloat16:
        return QuantModes.F322BF16
    raise TypeError(f"Matmul: C of {c_dtype} from a {acc_dtype} accumulator needs a quant scale "
                    "(set_quant_scalar / set_quant_vector)")


__all__ = []
