"""The instruction sequences behind asc.adv.softmax (softmax.py has the facts and their source):
library sub-kernels, traced where the user calls the op, its ops at the user's line.

Rows are float here (a half source is cast first). `m` (the rows of one pass) may be a traced
value, as on the chip, where the library's split is scalar code; the row length `k` and the
per-row state width `dst_k` (8 floats, or 16 when the state is half) are compile-time."""
from asc.language.basic import vec
from asc.language.basic.data_copy import data_copy
from asc.language.basic.mask import reset_mask, set_mask_count, set_mask_norm, set_vector_mask
from asc.language.basic.sync import pipe_barrier
from asc.language.core.constexpr import ConstExpr
from asc.language.core.dtype import KnownTypes as KT
from asc.language.core.enums import MaskMode, PipeID, ReduceOrder, RoundMode
from asc.language.core.types import (BinaryRepeatParams, BrcbRepeatParams, CopyRepeatParams,
                                     DataCopyParams)
from asc.runtime.jit import jit

_PLACEHOLDER = 0  # the mask already loaded (is_set_mask False)
_FLOAT_REPEAT = 64  # floats one repeat covers
_FLOAT_BLOCK = 8  # floats in a 32-byte block
_MAX_REPEAT = 255
_BIG_REDUCE = 512  # rows this long start with block reductions of 8 repeats
_SUB_DIV_ROWS = 192  # rows shorter than this are combined with the state by block strides


def _reduce_loaded(api, dst, src, repeat, dst_rep, src_blk, src_rep, order=None):
    """A reduction under the mask already loaded (the library's `<float, false>` form, which
    pyasc's block and whole reductions do not spell)."""
    _api, ir_op, kind, _layout, dtypes, _forms = vec._row(api)
    allowed = tuple(getattr(KT, d) for d in dtypes if hasattr(KT, d))
    vec.emit_reduce(api, ir_op, kind, allowed, dst, src, _PLACEHOLDER, repeat, dst_rep,
                    src_blk, src_rep, False, order)


def _combine(is_max, dst, src0, src1, mask, repeat, params, is_set_mask=True):
    """vmax for the max reduction, vadd for the sum."""
    (vec.max if is_max else vec.add)(dst, src0, src1, mask, repeat, params, is_set_mask)


def _block_reduce(is_max, dst, src, repeat, dst_rep, src_blk, src_rep):
    _reduce_loaded("block_reduce_max" if is_max else "block_reduce_sum", dst, src, repeat,
                   dst_rep, src_blk, src_rep)


def _whole_reduce_loaded(is_max, dst, src, repeat, dst_rep, src_blk, src_rep):
    if is_max:
        _reduce_loaded("whole_reduce_max", dst, src, repeat, dst_rep, src_blk, src_rep,
                       ReduceOrder.ORDER_ONLY_VALUE)
    else:
        _reduce_loaded("whole_reduce_sum", dst, src, repeat, dst_rep, src_blk, src_rep)


def _whole_reduce(is_max, dst, src, mask, repeat, src_rep):
    """One result per row of `mask` elements, written one element apart."""
    if is_max:
        vec.whole_reduce_max(dst, src, mask, repeat, 1, 1, src_rep, ReduceOrder.ORDER_ONLY_VALUE)
    else:
        vec.whole_reduce_sum(dst, src, mask, repeat, 1, 1, src_rep)


def _uint8(value):
    """The library passes row counts as uint8 repeat counts."""
    return value % 256


@jit
def rows_of_short(dst, src, m, k: ConstExpr[int], mask, first: ConstExpr[int],
                  is_max: ConstExpr[bool]):
    """One result per row from `mask` elements starting at column `first`, rows in groups of
    255 repeats."""
    groups = m // _MAX_REPEAT
    for i in range(groups):
        _whole_reduce(is_max, dst[i * _MAX_REPEAT:], src[first + i * _MAX_REPEAT * k:], mask,
                      _MAX_REPEAT, k // _FLOAT_BLOCK)
    rest = m % _MAX_REPEAT
    if rest != 0:
        _whole_reduce(is_max, dst[groups * _MAX_REPEAT:], src[first + groups * _MAX_REPEAT * k:],
                      mask, rest, k // _FLOAT_BLOCK)


@jit
def first_repeat_copy(tmp, src, m, k: ConstExpr[int]):
    """Each row's first 64 floats to its 64-float slot of tmp (rows of 64 to 127 floats)."""
    groups = m // _MAX_REPEAT
    params = CopyRepeatParams(1, 1, 8, k // _FLOAT_BLOCK)
    for i in range(groups):
        vec.copy(tmp[i * _MAX_REPEAT * _FLOAT_REPEAT:], src[i * _MAX_REPEAT * k:], _PLACEHOLDER,
                 _MAX_REPEAT, params, False)
    rest = m % _MAX_REPEAT
    if rest != 0:
        vec.copy(tmp[groups * _MAX_REPEAT * _FLOAT_REPEAT:], src[groups * _MAX_REPEAT * k:],
                 _PLACEHOLDER, rest, params, False)


@jit
def fold_repeats(tmp, src, m, k: ConstExpr[int], is_max: ConstExpr[bool]):
    """tmp's 64-float slot of each row = the max (sum) of the row's whole repeats, rows of 128
    floats or more."""
    splits = k // _FLOAT_REPEAT
    stride = k // _FLOAT_BLOCK
    if k >= _BIG_REDUCE:
        for i in range(m):
            _block_reduce(is_max, tmp[_FLOAT_REPEAT * i:], src[i * k:], _FLOAT_BLOCK, 1, 1, 8)
        if splits > _FLOAT_BLOCK:
            pipe_barrier(PipeID.PIPE_V)
            for j in range(m):
                _combine(is_max, tmp[j * _FLOAT_REPEAT:], src[_BIG_REDUCE + j * k:],
                         tmp[j * _FLOAT_REPEAT:], _PLACEHOLDER, splits - _FLOAT_BLOCK,
                         BinaryRepeatParams(1, 1, 1, 0, 8, 0), False)
    else:
        _combine(is_max, tmp, src, src[_FLOAT_REPEAT:], _PLACEHOLDER, _uint8(m),
                 BinaryRepeatParams(1, 1, 1, 8, stride, stride), False)
        if _uint8(m) > splits:
            for i in range(2, splits):
                pipe_barrier(PipeID.PIPE_V)
                _combine(is_max, tmp, tmp, src[_FLOAT_REPEAT * i:], _PLACEHOLDER, _uint8(m),
                         BinaryRepeatParams(1, 1, 1, 8, 8, stride), False)
        elif splits > 2:
            # Rows of exactly two repeats have nothing left: the chip's instruction would run 0
            # repeats, so none is emitted (the library's CPU build skips it the same way).
            pipe_barrier(PipeID.PIPE_V)
            for j in range(_uint8(m)):
                _combine(is_max, tmp[j * _FLOAT_REPEAT:], src[2 * _FLOAT_REPEAT + j * k:],
                         tmp[j * _FLOAT_REPEAT:], _PLACEHOLDER, splits - 2,
                         BinaryRepeatParams(1, 1, 1, 0, 8, 0), False)


@jit
def fold_tail(tmp, src, m, k: ConstExpr[int], is_max: ConstExpr[bool]):
    """The last k % 64 floats of each row into its slot, under a mask of that many lanes."""
    tail = k % _FLOAT_REPEAT
    start = _FLOAT_REPEAT * (k // _FLOAT_REPEAT)
    if k > _MAX_REPEAT * 8:  # the repeat stride (in blocks) would pass 255: one row a time
        for i in range(m):
            _combine(is_max, tmp[i * _FLOAT_REPEAT:], tmp[i * _FLOAT_REPEAT:],
                     src[start + i * k:], tail, 1, BinaryRepeatParams(1, 1, 1, 8, 8, 8))
    else:
        groups = m // _MAX_REPEAT
        params = BinaryRepeatParams(1, 1, 1, 8, 8, k // _FLOAT_BLOCK)
        for i in range(groups):
            _combine(is_max, tmp[i * _MAX_REPEAT * _FLOAT_REPEAT:],
                     tmp[i * _MAX_REPEAT * _FLOAT_REPEAT:], src[start + i * _MAX_REPEAT * k:],
                     tail, _MAX_REPEAT, params)
        rest = m % _MAX_REPEAT
        if rest != 0:
            _combine(is_max, tmp[groups * _MAX_REPEAT * _FLOAT_REPEAT:],
                     tmp[groups * _MAX_REPEAT * _FLOAT_REPEAT:],
                     src[start + groups * _MAX_REPEAT * k:], tail, rest, params)


@jit
def reduce_slots(dst, tmp, m, dst_k: ConstExpr[int], is_max: ConstExpr[bool]):
    """Each row's 64-float slot down to one value: one row fills its 8 (or 16) state floats
    directly, more rows leave one value per row in dst."""
    if m == 1:
        _whole_reduce_loaded(is_max, dst, tmp, _FLOAT_BLOCK, 1, 1, 0)
        if dst_k == 2 * _FLOAT_BLOCK:
            pipe_barrier(PipeID.PIPE_V)
            data_copy(dst[_FLOAT_BLOCK:], dst, DataCopyParams(1, 1, 0, 0))
    else:
        set_mask_count()
        set_vector_mask(m * _FLOAT_REPEAT, dtype=KT.float32, mode=MaskMode.COUNTER)
        _block_reduce(is_max, tmp, tmp, 1, 1, 1, 8)
        pipe_barrier(PipeID.PIPE_V)
        set_vector_mask(m * _FLOAT_BLOCK, dtype=KT.float32, mode=MaskMode.COUNTER)
        _block_reduce(is_max, dst, tmp, 1, 1, 1, 8)
        set_mask_norm()
        reset_mask()


@jit
def broadcast_rows(dst, tmp, m, dst_k: ConstExpr[int]):
    """dst's first m values, one per row, each over its row's dst_k state floats (through tmp)."""
    repeat = (m + _FLOAT_BLOCK - 1) // _FLOAT_BLOCK
    if dst_k == 2 * _FLOAT_BLOCK:
        if m != 1:
            vec.brcb(tmp, dst, _uint8(repeat), BrcbRepeatParams(2, 16))
            vec.brcb(tmp[_FLOAT_BLOCK:], dst, _uint8(repeat), BrcbRepeatParams(2, 16))
        else:
            vec.brcb(tmp, dst, _uint8(repeat), BrcbRepeatParams(1, 8))
            pipe_barrier(PipeID.PIPE_V)
            data_copy(tmp[_FLOAT_BLOCK:], tmp, DataCopyParams(1, 1, 0, 0))
    else:
        vec.brcb(tmp, dst, _uint8(repeat), BrcbRepeatParams(1, 8))
    pipe_barrier(PipeID.PIPE_V)
    set_mask_count()
    set_vector_mask(m * dst_k, dtype=KT.float32, mode=MaskMode.COUNTER)
    vec.copy(dst, tmp, _PLACEHOLDER, 1, CopyRepeatParams(1, 1, 8, 8), False)
    set_mask_norm()
    reset_mask()


@jit
def reduce_rows(dst, src, tmp, m, k: ConstExpr[int], dst_k: ConstExpr[int],
                is_max: ConstExpr[bool]):
    """dst = each row's max (sum) of src's m rows of k floats, over dst_k floats per row; tmp
    needs m * 64 floats."""
    if k < _FLOAT_REPEAT:
        rows_of_short(dst, src, m, k, k, 0, is_max)
        reset_mask()
    else:
        if k >= 2 * _FLOAT_REPEAT:
            fold_repeats(tmp, src, m, k, is_max)
        else:
            first_repeat_copy(tmp, src, m, k)
        if k % _FLOAT_REPEAT != 0:
            pipe_barrier(PipeID.PIPE_V)
            fold_tail(tmp, src, m, k, is_max)
            reset_mask()
        pipe_barrier(PipeID.PIPE_V)
        reduce_slots(dst, tmp, m, dst_k, is_max)
    if k <= _FLOAT_REPEAT:
        pipe_barrier(PipeID.PIPE_V)
        broadcast_rows(dst, tmp, m, dst_k)
    elif m != 1:
        pipe_barrier(PipeID.PIPE_V)
        broadcast_rows(dst, tmp, m, dst_k)


def _row_op(name, dst, src0, src1, mask, params):
    getattr(vec, name)(dst, src0, src1, mask, 1, params, False)


@jit
def rows_with_state(name: ConstExpr[str], dst, src0, state, m, k: ConstExpr[int],
                    state_k: ConstExpr[int]):
    """dst = src0 (op) the row's state value, op sub or div: short rows one block column at a
    time, 8 rows a repeat through block strides; long rows one row a time."""
    if k < _SUB_DIV_ROWS:
        stride = k // _FLOAT_BLOCK
        params = BinaryRepeatParams(stride, stride, state_k // _FLOAT_BLOCK, k, k, state_k)
        set_mask_count()
        set_vector_mask(m * _FLOAT_BLOCK, dtype=KT.float32, mode=MaskMode.COUNTER)
        for j in range(stride):
            _row_op(name, dst[j * _FLOAT_BLOCK:], src0[j * _FLOAT_BLOCK:], state, _PLACEHOLDER,
                    params)
    else:
        set_mask_count()
        set_vector_mask(k, dtype=KT.float32, mode=MaskMode.COUNTER)
        for j in range(m):
            _row_op(name, dst[j * k:], src0[j * k:], state[j * state_k:], _PLACEHOLDER,
                    BinaryRepeatParams(1, 1, 0, 8, 8, 0))
    set_mask_norm()
    reset_mask()


@jit
def shifted_exp(dst, src, max_t, scratch, m, k: ConstExpr[int], state_k: ConstExpr[int]):
    """max_t = each row's max over state_k floats, dst = exp(src - max_t), a barrier after each
    step: the start every float pass of softmax and softmax_flash_v2 shares."""
    reduce_rows(max_t, src, scratch, m, k, state_k, True)
    pipe_barrier(PipeID.PIPE_V)
    rows_with_state("sub", dst, src, max_t, m, k, state_k)
    pipe_barrier(PipeID.PIPE_V)
    vec.exp(dst, dst, m * k)
    pipe_barrier(PipeID.PIPE_V)


@jit
def softmax_pass(dst, sum_t, max_t, src, work, m, k: ConstExpr[int], split_size, reduce_size,
                 state_k: ConstExpr[int], kind: ConstExpr[str]):
    """One pass over m rows (Ascend C's SoftMaxGenericNDImpl for the A2 core). kind: "float"
    (all float), "half" (half source and state, float inside), "half_float" (half source,
    float state). The work areas are placed by the full pass's sizes, split_size and
    reduce_size, in the tail pass too."""
    if kind == "float":
        shifted_exp(dst, src, max_t, work, m, k, state_k)
        reduce_rows(sum_t, dst, work, m, k, state_k, False)
        pipe_barrier(PipeID.PIPE_V)
        rows_with_state("div", dst, dst, sum_t, m, k, state_k)
    elif kind == "half":
        rows = work
        state = work[split_size:]
        scratch = work[split_size + reduce_size:]
        vec.cast(rows, src, RoundMode.CAST_NONE, m * k)
        pipe_barrier(PipeID.PIPE_V)
        reduce_rows(state, rows, scratch, m, k, state_k, True)
        pipe_barrier(PipeID.PIPE_V)
        vec.cast(max_t, state, RoundMode.CAST_ROUND, m * state_k)
        pipe_barrier(PipeID.PIPE_V)
        rows_with_state("sub", rows, rows, state, m, k, state_k)
        pipe_barrier(PipeID.PIPE_V)
        vec.exp(rows, rows, m * k)
        pipe_barrier(PipeID.PIPE_V)
        reduce_rows(state, rows, scratch, m, k, state_k, False)
        pipe_barrier(PipeID.PIPE_V)
        vec.cast(sum_t, state, RoundMode.CAST_ROUND, m * state_k)
        pipe_barrier(PipeID.PIPE_V)
        rows_with_state("div", rows, rows, state, m, k, state_k)
        pipe_barrier(PipeID.PIPE_V)
        vec.cast(dst, rows, RoundMode.CAST_ROUND, m * k)
    else:
        rows = work
        scratch = work[split_size:]
        vec.cast(rows, src, RoundMode.CAST_NONE, m * k)
        pipe_barrier(PipeID.PIPE_V)
        shifted_exp(rows, rows, max_t, scratch, m, k, state_k)
        reduce_rows(sum_t, rows, scratch, m, k, state_k, False)
        pipe_barrier(PipeID.PIPE_V)
        rows_with_state("div", rows, rows, sum_t, m, k, state_k)
        pipe_barrier(PipeID.PIPE_V)
        vec.cast(dst, rows, RoundMode.CAST_ROUND, m * k)


@jit
def softmax_nd(dst, sum_t, max_t, src, work, k: ConstExpr[int], split_m, range_m, tail_m,
               state_k: ConstExpr[int], kind: ConstExpr[str]):
    """range_m passes of split_m rows, then the tail_m rows left (SoftMaxImpl's mask reset,
    then SoftMaxNDExtImpl)."""
    set_mask_norm()
    reset_mask()
    pipe_barrier(PipeID.PIPE_V)
    split_size = split_m * k
    reduce_size = split_m * state_k
    for i in range(range_m):
        softmax_pass(dst[i * split_size:], sum_t[i * reduce_size:], max_t[i * reduce_size:],
                     src[i * split_size:], work, split_m, k, split_size, reduce_size, state_k,
                     kind)
    if tail_m != 0:
        pipe_barrier(PipeID.PIPE_V)
        softmax_pass(dst[range_m * split_size:], sum_t[range_m * reduce_size:],
                     max_t[range_m * reduce_size:], src[range_m * split_size:], work, tail_m, k,
                     split_size, reduce_size, state_k, kind)
