"""The instruction sequences behind asc.adv's normalizations (normalization.py has the facts and
their source): library sub-kernels, traced where the user calls the op, its ops at the user's
line. Rows, lengths and strides are the tiling's fields, traced: the control flow is runtime."""
from asc.language.basic.mask import reset_mask, set_mask_count, set_mask_norm, set_vector_mask
from asc.language.basic.sync import library_sync, pipe_barrier
from asc.language.basic.vec import (add, adds, brcb, cast, exp, ln, mul, muls,
                                    repeat_reduce_sum)
from asc.language.core.constexpr import ConstExpr
from asc.language.core.dtype import KnownTypes as KT
from asc.language.core.enums import HardEvent, PipeID, RoundMode
from asc.language.core.ir_value import to_value
from asc.language.core.types import BinaryRepeatParams, BrcbRepeatParams, UnaryRepeatParams
from asc.runtime.jit import jit

_PLACEHOLDER = 0  # the mask register as loaded: in counter mode it holds the element count
_FLOATS_PER_REPEAT = 64  # also the library's basic-block H unit
_FLOATS_PER_BLOCK = 8
_BASIC_BLOCK_ROWS = 8
_RSQRT_EXPONENT = -0.5


def low_bits(n):
    """(1 << n) - 1 as a uint64: a normal-mode mask of the first n floats."""
    return (to_value(1, KT.uint64) << to_value(n, KT.uint64)) - 1


@jit
def generic_reduce_sum(dst, src, bs, h, original_h):
    """dst[i] = the sum of row i's first original_h floats: vcadd levels in place on the row,
    one partial per 64 floats, the last level (64 or fewer left) into dst[i]."""
    for i in range(bs):
        row = src[i * h:]
        total = original_h
        if total > _FLOATS_PER_REPEAT:
            while total > _FLOATS_PER_REPEAT:
                set_vector_mask(0, total)
                repeat_reduce_sum(row, row, 1, _PLACEHOLDER, 1, 1, 1, 8, False)
                pipe_barrier(PipeID.PIPE_V)
                total = (total + _FLOATS_PER_REPEAT - 1) // _FLOATS_PER_REPEAT
        if total > 1:
            set_vector_mask(0, total)
            repeat_reduce_sum(dst[i:], row, 1, _PLACEHOLDER, 1, 1, 1, 8, False)
            pipe_barrier(PipeID.PIPE_V)


@jit
def basic_block_reduce_sum(dst, src, bs, h):
    """dst[i] = the sum of row i: each row's 64-float blocks added into its first, then one
    vcadd per row."""
    set_vector_mask(0, bs * _FLOATS_PER_REPEAT)
    stride = h // _FLOATS_PER_BLOCK
    rows = BinaryRepeatParams(1, 1, 1, stride, stride, stride)
    for i in range(1, h // _FLOATS_PER_REPEAT):
        add(src, src, src[i * _FLOATS_PER_REPEAT:], _PLACEHOLDER, 1, rows, False)
        pipe_barrier(PipeID.PIPE_V)
    repeat_reduce_sum(dst, src, 1, _PLACEHOLDER, 1, 1, 1, stride, False)
    pipe_barrier(PipeID.PIPE_V)


@jit
def rows_times_values(dst, src, values, bsh, bs, h):
    """dst row i = src row i * values[i]: one muls per row with the value the scalar unit
    reads (after V_S), then the counter mask back to the whole group."""
    set_vector_mask(0, h)
    library_sync(HardEvent.V_S)
    for i in range(bs):
        muls(dst[i * h:], src[i * h:], values.get_value(i), _PLACEHOLDER, 1,
             UnaryRepeatParams(), False)
    pipe_barrier(PipeID.PIPE_V)
    set_vector_mask(0, bsh)


@jit
def rows_times_values_blocks(dst, src, values, bsh, bs, h):
    """dst row i = src row i * values[i] in basic blocks: brcb spreads each value over the first
    block of its row, adds 0 copies that block over the row, then one mul."""
    set_mask_norm()
    reset_mask()
    row_blocks = h // _FLOATS_PER_BLOCK
    brcb(dst, values, bs // _BASIC_BLOCK_ROWS,
         BrcbRepeatParams(row_blocks, row_blocks * _BASIC_BLOCK_ROWS))
    pipe_barrier(PipeID.PIPE_V)
    set_mask_count()
    set_vector_mask(0, bs * _FLOATS_PER_REPEAT)
    spread = UnaryRepeatParams(1, 0, row_blocks, row_blocks)
    for i in range(h // _FLOATS_PER_REPEAT):
        adds(dst[i * _FLOATS_PER_REPEAT:], dst, 0.0, _PLACEHOLDER, 1, spread, False)
    pipe_barrier(PipeID.PIPE_V)
    set_vector_mask(0, bsh)
    mul(dst, dst, src, _PLACEHOLDER, 1, BinaryRepeatParams(), False)
    pipe_barrier(PipeID.PIPE_V)


@jit
def rows_times_gamma_blocks(dst, src, gamma, bs, h):
    """dst row i = src row i * gamma: one mul per row when rows are fewer than 64-float blocks
    per row, else one mul per block column over all rows (gamma's repeat stride 0) and a
    normal-mode mul of the columns past the last whole block."""
    blocks = h // _FLOATS_PER_REPEAT
    if blocks >= bs:
        set_vector_mask(0, h)
        for i in range(bs):
            mul(dst[i * h:], src[i * h:], gamma, _PLACEHOLDER, 1, BinaryRepeatParams(), False)
    else:
        set_vector_mask(0, bs * _FLOATS_PER_REPEAT)
        stride = h // _FLOATS_PER_BLOCK
        rows = BinaryRepeatParams(1, 1, 1, stride, stride, 0)
        for i in range(blocks):
            at = i * _FLOATS_PER_REPEAT
            mul(dst[at:], src[at:], gamma[at:], _PLACEHOLDER, 1, rows, False)
        if h % _FLOATS_PER_REPEAT != 0:
            at = blocks * _FLOATS_PER_REPEAT
            set_mask_norm()
            set_vector_mask(0, low_bits(h - at))
            mul(dst[at:], src[at:], gamma[at:], _PLACEHOLDER, bs, rows, False)
            set_mask_count()


@jit
def rows_times_gamma(dst, src, gamma, bs, h, basic: ConstExpr[bool]):
    """dst row i = src row i * gamma (the library's last-axis broadcast multiply)."""
    if basic:
        rows_times_gamma_blocks(dst, src, gamma, bs, h)
    else:
        if h == _FLOATS_PER_REPEAT:
            set_vector_mask(0, bs * h)
            mul(dst, src, gamma, _PLACEHOLDER, 1, BinaryRepeatParams(1, 1, 1, 8, 8, 0), False)
        else:
            if h < _FLOATS_PER_REPEAT:
                set_mask_norm()
                set_vector_mask(0, low_bits(h))
                stride = h // _FLOATS_PER_BLOCK
                mul(dst, src, gamma, _PLACEHOLDER, bs,
                    BinaryRepeatParams(1, 1, 1, stride, stride, 0), False)
                set_mask_count()
            else:
                rows_times_gamma_blocks(dst, src, gamma, bs, h)
    pipe_barrier(PipeID.PIPE_V)


@jit
def rmsnorm_group(dst, src, gamma, epsilon, tiling, bs, bsh, reduced, work, conv,
                  from_half: ConstExpr[bool], basic: ConstExpr[bool]):
    """One group of bs rows (bsh elements): x^2, row sums, rsqrt(sum / H + eps) as
    exp(-0.5 * ln(.)), x times it per row, times gamma. Half goes through float in `conv`."""
    h = tiling.h_length
    unary = UnaryRepeatParams()
    set_vector_mask(0, bsh)
    x = src
    if from_half:
        cast(conv, src, RoundMode.CAST_NONE, _PLACEHOLDER, 1, UnaryRepeatParams(1, 1, 8, 4), False)
        pipe_barrier(PipeID.PIPE_V)
        x = conv
    mul(work, x, x, _PLACEHOLDER, 1, BinaryRepeatParams(), False)
    pipe_barrier(PipeID.PIPE_V)
    if basic:
        basic_block_reduce_sum(reduced, work, bs, h)
    else:
        generic_reduce_sum(reduced, work, bs, h, tiling.original_h_length)
    set_vector_mask(0, bs)
    muls(reduced, reduced, tiling.reciprocal_of_h_length, _PLACEHOLDER, 1, unary, False)
    pipe_barrier(PipeID.PIPE_V)
    adds(reduced, reduced, epsilon, _PLACEHOLDER, 1, unary, False)
    pipe_barrier(PipeID.PIPE_V)
    ln(reduced, reduced, _PLACEHOLDER, 1, unary, False)
    pipe_barrier(PipeID.PIPE_V)
    muls(reduced, reduced, _RSQRT_EXPONENT, _PLACEHOLDER, 1, unary, False)
    pipe_barrier(PipeID.PIPE_V)
    exp(reduced, reduced, _PLACEHOLDER, 1, unary, False)
    pipe_barrier(PipeID.PIPE_V)
    if basic:
        if bs > _BASIC_BLOCK_ROWS and bs > h // _FLOATS_PER_REPEAT:
            rows_times_values_blocks(work, x, reduced, bsh, bs, h)
        else:
            rows_times_values(work, x, reduced, bsh, bs, h)
    else:
        rows_times_values(work, x, reduced, bsh, bs, h)
    pipe_barrier(PipeID.PIPE_V)
    if from_half:
        set_vector_mask(0, h)
        cast(conv, gamma, RoundMode.CAST_NONE, _PLACEHOLDER, 1, UnaryRepeatParams(1, 1, 8, 4),
             False)
        pipe_barrier(PipeID.PIPE_V)
        rows_times_gamma(work, work, conv, bs, h, basic)
        set_vector_mask(0, bsh)
        cast(dst, work, RoundMode.CAST_NONE, _PLACEHOLDER, 1, UnaryRepeatParams(1, 1, 4, 8),
             False)
    else:
        rows_times_gamma(dst, work, gamma, bs, h, basic)
    pipe_barrier(PipeID.PIPE_V)


@jit
def rmsnorm_library(dst, src, gamma, epsilon, tiling, tmp, from_half: ConstExpr[bool],
                    basic: ConstExpr[bool]):
    """The tiling's loop_round groups of main_bs_length rows, then its tail group, in counter
    mode. The float temp: row results (main_bs_length_align), x^2 and products
    (main_bsh_length), for half the float copies of src and gamma (main_bsh_length)."""
    reduced = tmp
    work = tmp[tiling.main_bs_length_align:]
    conv = work
    if from_half:
        conv = tmp[tiling.main_bs_length_align + tiling.main_bsh_length:]
    set_mask_count()
    for i in range(tiling.loop_round):
        at = i * tiling.main_bsh_length
        rmsnorm_group(dst[at:], src[at:], gamma, epsilon, tiling, tiling.main_bs_length,
                      tiling.main_bsh_length, reduced, work, conv, from_half, basic)
    if tiling.tail_bs_length != 0:
        at = tiling.input_tail_pos
        rmsnorm_group(dst[at:], src[at:], gamma, epsilon, tiling, tiling.tail_bs_length,
                      tiling.tail_bsh_length, reduced, work, conv, from_half, basic)
    set_mask_norm()
    reset_mask()
