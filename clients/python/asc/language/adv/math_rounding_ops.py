"""The instruction sequences behind asc.adv's rounding ops (math_rounding.py has the facts and
their source): library sub-kernels, traced where the user calls the op, its ops at the user's
line."""
from asc.language.adv.float_casts import narrow, to_integral, widen
from asc.language.basic.mask import reset_mask, set_mask_count, set_mask_norm, set_vector_mask
from asc.language.basic.sync import pipe_barrier
from asc.language.basic.vec import add, compare, duplicate, select, set_cmp_mask, sub
from asc.language.core.constexpr import ConstExpr
from asc.language.core.enums import CMPMODE, MaskMode, PipeID, RoundMode
from asc.language.core.types import BinaryRepeatParams
from asc.runtime.jit import jit

_PLACEHOLDER = 0  # counter mode, mask loaded: one instruction covers the mask's count
_REPEAT_BYTES = 256


@jit
def whole_count(chunk: ConstExpr, count, mask_dtype: ConstExpr, args: ConstExpr):
    """chunk(0, count, *args) under one counter mask of `count`: the library's float paths that
    need no temp area run the whole count at once."""
    set_mask_count()
    set_vector_mask(count, dtype=mask_dtype, mode=MaskMode.COUNTER)
    chunk(0, count, *args)
    set_mask_norm()
    reset_mask()








@jit
def integral_chunk(offset, room, dst, src, tmp, mode: ConstExpr, from_half: ConstExpr[bool]):
    """ceil, floor, round, trunc: one cast in float; a half source through the temp's floats."""
    if from_half:
        widen(tmp, src[offset:])
        to_integral(tmp, tmp, mode)
        narrow(dst[offset:], tmp)
    else:
        to_integral(dst[offset:], src[offset:], mode)


@jit
def frac_formula(dst, src):
    """dst = src - trunc(src), dst also holding trunc(src)."""
    to_integral(dst, src, RoundMode.CAST_TRUNC)
    sub(dst, src, dst, _PLACEHOLDER, 1, BinaryRepeatParams(), False)
    pipe_barrier(PipeID.PIPE_V)


@jit
def frac_chunk(offset, room, dst, src, tmp, split, from_half: ConstExpr[bool]):
    """frac; a half source in float: its copy in the temp's first `split` floats, the result
    after it."""
    if from_half:
        conv = tmp
        part = tmp[split:]
        widen(conv, src[offset:])
        frac_formula(part, conv)
        narrow(dst[offset:], part)
    else:
        frac_formula(dst[offset:], src[offset:])


@jit
def sign_chunk(offset, room, dst, src, below, above, fill, neg, esize):
    """sign = [x >= 0] - [x <= 0]: two compares against zero (the bits of x < 0 and x > 0), two
    selects of the bits against 1 and -1 loaded into CMPMASK, one add."""
    binary = BinaryRepeatParams()
    repeat = (room * esize + _REPEAT_BYTES - 1) // _REPEAT_BYTES
    duplicate(dst[offset:], 0, _PLACEHOLDER, 1, 1, 8, False)
    pipe_barrier(PipeID.PIPE_V)
    compare(below, src[offset:], dst[offset:], CMPMODE.LT, _PLACEHOLDER, repeat, binary)
    compare(above, src[offset:], dst[offset:], CMPMODE.GT, _PLACEHOLDER, repeat, binary)
    duplicate(fill, 1, _PLACEHOLDER, 1, 1, 8, False)
    pipe_barrier(PipeID.PIPE_V)
    set_cmp_mask(fill)
    select(neg, below, dst[offset:], 1, binary)
    pipe_barrier(PipeID.PIPE_V)
    duplicate(fill, -1, _PLACEHOLDER, 1, 1, 8, False)
    pipe_barrier(PipeID.PIPE_V)
    set_cmp_mask(fill)
    select(dst[offset:], above, dst[offset:], 1, binary)
    pipe_barrier(PipeID.PIPE_V)
    add(dst[offset:], neg, dst[offset:], _PLACEHOLDER, 1, binary, False)
    pipe_barrier(PipeID.PIPE_V)
