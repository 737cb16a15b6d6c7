"""The instruction sequences behind asc.adv.softmax_flash_v2 (softmax_flash.py has the facts and
their source): library sub-kernels built on softmax_ops' row reductions and row-state ops.

kind: "float" (all float), "half" (half source, state and exp_max), "half_float" (half source
and exp_max, float state, as the attention example). `m` may be traced; `k` and `state_k` (the
state floats a row: 8, or 16 for a half state) are compile-time."""
from asc.language.adv.softmax_ops import reduce_rows, rows_with_state, shifted_exp
from asc.language.basic import vec
from asc.language.basic.data_copy import data_copy
from asc.language.basic.mask import reset_mask, set_mask_count, set_mask_norm, set_vector_mask
from asc.language.basic.sync import pipe_barrier
from asc.language.core.constexpr import ConstExpr
from asc.language.core.dtype import KnownTypes as KT
from asc.language.core.enums import MaskMode, PipeID, RoundMode
from asc.language.core.types import BinaryRepeatParams, CopyRepeatParams, UnaryRepeatParams
from asc.runtime.jit import jit

_PLACEHOLDER = 0
_FLOAT_REPEAT = 64


def _counter(count):
    set_mask_count()
    set_vector_mask(count, dtype=KT.float32, mode=MaskMode.COUNTER)


def _normal():
    set_mask_norm()
    reset_mask()


def _binary(name, dst, src0, src1):
    getattr(vec, name)(dst, src0, src1, _PLACEHOLDER, 1, BinaryRepeatParams(), False)


def _to_half(dst, src):
    vec.cast(dst, src, RoundMode.CAST_ROUND, _PLACEHOLDER, 1, UnaryRepeatParams(1, 1, 4, 8),
             False)


@jit
def first_pass(dst, sum_t, max_t, src, work, m, k: ConstExpr[int], split_size, reduce_size,
               state_k: ConstExpr[int], kind: ConstExpr[str]):
    """is_update=False over m rows (SoftmaxFlashV2NoUpdateImpl): max, exp(src - max), sum; dst
    is not divided by the sum."""
    if kind == "float":
        shifted_exp(dst, src, max_t, work, m, k, state_k)
        reduce_rows(sum_t, dst, work, m, k, state_k, False)
    elif kind == "half":
        rows = work
        state = work[split_size:]
        scratch = work[split_size + reduce_size:]
        vec.cast(rows, src, RoundMode.CAST_NONE, m * k)
        pipe_barrier(PipeID.PIPE_V)
        reduce_rows(state, rows, scratch, m, k, state_k, True)
        pipe_barrier(PipeID.PIPE_V)
        rows_with_state("sub", rows, rows, state, m, k, state_k)
        pipe_barrier(PipeID.PIPE_V)
        vec.cast(max_t, state, RoundMode.CAST_ROUND, m * state_k)
        vec.exp(rows, rows, m * k)
        pipe_barrier(PipeID.PIPE_V)
        vec.cast(dst, rows, RoundMode.CAST_ROUND, m * k)
        pipe_barrier(PipeID.PIPE_V)
        reduce_rows(state, rows, scratch, m, k, state_k, False)
        pipe_barrier(PipeID.PIPE_V)
        vec.cast(sum_t, state, RoundMode.CAST_ROUND, m * state_k)
    else:
        rows = work
        scratch = work[split_size:]
        vec.cast(rows, src, RoundMode.CAST_NONE, m * k)
        pipe_barrier(PipeID.PIPE_V)
        shifted_exp(rows, rows, max_t, scratch, m, k, state_k)
        vec.cast(dst, rows, RoundMode.CAST_ROUND, m * k)
        pipe_barrier(PipeID.PIPE_V)
        reduce_rows(sum_t, rows, scratch, m, k, state_k, False)


@jit
def update_float(dst, sum_t, max_t, src, exp_max, in_sum, in_max, work, m, k: ConstExpr[int],
                 reduce_size_full, state_k: ConstExpr[int]):
    """is_update=True, all float (SoftmaxFlashV2UpdateImpl for float)."""
    state = work
    scratch = work[reduce_size_full:]
    count = m * state_k
    reduce_rows(state, src, scratch, m, k, state_k, True)
    pipe_barrier(PipeID.PIPE_V)
    _counter(count)
    _binary("max", state, in_max, state)
    pipe_barrier(PipeID.PIPE_V)
    _binary("sub", scratch, in_max, state)
    pipe_barrier(PipeID.PIPE_V)
    vec.exp(exp_max, scratch, _PLACEHOLDER, 1, UnaryRepeatParams(), False)
    _normal()
    rows_with_state("sub", dst, src, state, m, k, state_k)
    pipe_barrier(PipeID.PIPE_V)
    vec.exp(dst, dst, m * k)
    data_copy(max_t, state, count)
    pipe_barrier(PipeID.PIPE_V)
    reduce_rows(state, dst, scratch, m, k, state_k, False)
    _counter(count)
    _binary("mul", sum_t, exp_max, in_sum)
    pipe_barrier(PipeID.PIPE_V)
    _binary("add", sum_t, sum_t, state)
    _normal()


@jit
def update_half(dst, sum_t, max_t, src, exp_max, in_sum, in_max, work, m, k: ConstExpr[int],
                split_size, reduce_size, split_m, state_k: ConstExpr[int]):
    """is_update=True, half source and state (SoftmaxFlashV2UpdateImpl for half)."""
    rows = work
    old_max = work[split_size:]
    scratch = work[split_size + reduce_size:]
    state = work[split_size + reduce_size + split_m * _FLOAT_REPEAT:]
    count = m * state_k
    vec.cast(old_max, in_max, RoundMode.CAST_NONE, count)
    vec.cast(rows, src, RoundMode.CAST_NONE, m * k)
    pipe_barrier(PipeID.PIPE_V)
    reduce_rows(state, rows, scratch, m, k, state_k, True)
    pipe_barrier(PipeID.PIPE_V)
    _counter(count)
    _binary("max", state, old_max, state)
    pipe_barrier(PipeID.PIPE_V)
    _binary("sub", old_max, old_max, state)
    _to_half(max_t, state)
    _normal()
    rows_with_state("sub", rows, rows, state, m, k, state_k)
    pipe_barrier(PipeID.PIPE_V)
    _counter(m * k)
    vec.exp(rows, rows, _PLACEHOLDER, 1, UnaryRepeatParams(), False)
    pipe_barrier(PipeID.PIPE_V)
    _to_half(dst, rows)
    _normal()
    reduce_rows(state, rows, scratch, m, k, state_k, False)
    _counter(count)
    vec.exp(old_max, old_max, _PLACEHOLDER, 1, UnaryRepeatParams(), False)
    pipe_barrier(PipeID.PIPE_V)
    _to_half(exp_max, old_max)
    vec.cast(scratch, in_sum, RoundMode.CAST_NONE, _PLACEHOLDER, 1,
             UnaryRepeatParams(1, 1, 8, 4), False)
    pipe_barrier(PipeID.PIPE_V)
    _binary("mul", old_max, old_max, scratch)
    pipe_barrier(PipeID.PIPE_V)
    _binary("add", scratch, old_max, state)
    pipe_barrier(PipeID.PIPE_V)
    _to_half(sum_t, scratch)
    _normal()


@jit
def update_half_float(dst, sum_t, max_t, src, exp_max, in_sum, in_max, work, m,
                      k: ConstExpr[int], split_size, reduce_size, split_m,
                      state_k: ConstExpr[int]):
    """is_update=True, half source and exp_max, float state (SoftmaxFlashV2UpdateImpl for
    half/float): exp_max is widened from 8 to 16 a row by a counter-mode copy of two
    iterations (BroadCastLastImpl)."""
    rows = work
    old_max = work[split_size:]
    scratch = work[split_size + reduce_size:]
    state = work[split_size + reduce_size + split_m * _FLOAT_REPEAT:]
    count = m * state_k
    data_copy(old_max, in_max, count)
    vec.cast(rows, src, RoundMode.CAST_NONE, m * k)
    pipe_barrier(PipeID.PIPE_V)
    reduce_rows(state, rows, scratch, m, k, state_k, True)
    pipe_barrier(PipeID.PIPE_V)
    vec.max(max_t, in_max, state, count)
    pipe_barrier(PipeID.PIPE_V)
    rows_with_state("sub", rows, rows, max_t, m, k, state_k)
    pipe_barrier(PipeID.PIPE_V)
    vec.exp(rows, rows, m * k)
    pipe_barrier(PipeID.PIPE_V)
    vec.cast(dst, rows, RoundMode.CAST_ROUND, m * k)
    reduce_rows(state, rows, scratch, m, k, state_k, False)
    vec.sub(old_max, old_max, max_t, count)
    pipe_barrier(PipeID.PIPE_V)
    vec.exp(old_max, old_max, count)
    pipe_barrier(PipeID.PIPE_V)
    # BroadCastLastImpl: the full pass's rows of 8 floats, each block twice, 16 floats a row.
    set_mask_count()
    vec.copy(rows, old_max, split_m * state_k, 2, CopyRepeatParams(2, 1, 1, 0))
    _normal()
    pipe_barrier(PipeID.PIPE_V)
    vec.cast(exp_max, rows, RoundMode.CAST_ROUND, 2 * count)
    vec.mul(old_max, old_max, in_sum, count)
    pipe_barrier(PipeID.PIPE_V)
    vec.add(sum_t, old_max, state, count)


@jit
def update_pass(dst, sum_t, max_t, src, exp_max, in_sum, in_max, work, m, k: ConstExpr[int],
                split_size, reduce_size, split_m, state_k: ConstExpr[int],
                kind: ConstExpr[str]):
    if kind == "float":
        update_float(dst, sum_t, max_t, src, exp_max, in_sum, in_max, work, m, k, reduce_size,
                     state_k)
    elif kind == "half":
        update_half(dst, sum_t, max_t, src, exp_max, in_sum, in_max, work, m, k, split_size,
                    reduce_size, split_m, state_k)
    else:
        update_half_float(dst, sum_t, max_t, src, exp_max, in_sum, in_max, work, m, k,
                          split_size, reduce_size, split_m, state_k)


@jit
def flash_nd(dst, sum_t, max_t, src, exp_max, in_sum, in_max, work, k: ConstExpr[int], split_m,
             range_m, tail_m, state_k: ConstExpr[int], exp_k: ConstExpr[int],
             kind: ConstExpr[str], is_update: ConstExpr[bool]):
    """range_m passes of split_m rows, then the tail_m rows left (SoftmaxFlashV2Impl's mask
    reset, then the NoUpdate / ND ExtImpl loop). exp_k: exp_max elements a row."""
    set_mask_norm()
    reset_mask()
    pipe_barrier(PipeID.PIPE_V)
    split_size = split_m * k
    reduce_size = split_m * state_k
    exp_size = split_m * exp_k
    for i in range(range_m):
        if is_update:
            update_pass(dst[i * split_size:], sum_t[i * reduce_size:], max_t[i * reduce_size:],
                        src[i * split_size:], exp_max[i * exp_size:], in_sum[i * reduce_size:],
                        in_max[i * reduce_size:], work, split_m, k, split_size, reduce_size,
                        split_m, state_k, kind)
        else:
            first_pass(dst[i * split_size:], sum_t[i * reduce_size:], max_t[i * reduce_size:],
                       src[i * split_size:], work, split_m, k, split_size, reduce_size, state_k,
                       kind)
    if tail_m != 0:
        pipe_barrier(PipeID.PIPE_V)
        at = range_m * split_size
        state_at = range_m * reduce_size
        if is_update:
            update_pass(dst[at:], sum_t[state_at:], max_t[state_at:], src[at:],
                        exp_max[range_m * exp_size:], in_sum[state_at:], in_max[state_at:], work,
                        tail_m, k, split_size, reduce_size, split_m, state_k, kind)
        else:
            first_pass(dst[at:], sum_t[state_at:], max_t[state_at:], src[at:], work, tail_m, k,
                       split_size, reduce_size, state_k, kind)
