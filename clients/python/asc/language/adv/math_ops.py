"""The instruction sequences behind asc.adv's element-wise math (math.py has the facts and their
source): library sub-kernels, traced where the user calls the op, its ops at the user's line."""
from asc.language.basic.sync import pipe_barrier
from asc.language.basic.vec import adds, cast, div, exp, maxs, mins, muls
from asc.language.core.constexpr import ConstExpr
from asc.language.core.enums import PipeID, RoundMode
from asc.language.core.types import BinaryRepeatParams, UnaryRepeatParams
from asc.runtime.jit import jit

_PLACEHOLDER = 0  # counter mode, mask loaded: one instruction covers the mask's count
_TANH_CLIP = 8.8  # |2x| beyond 17.6 saturates e^(2x)


@jit
def tanh_formula(dst, src, clip):
    """dst = (e^(2x) - 1) / (e^(2x) + 1) of src clipped to [-8.8, 8.8], in float."""
    unary = UnaryRepeatParams()
    mins(clip, src, _TANH_CLIP, _PLACEHOLDER, 1, unary, False)
    pipe_barrier(PipeID.PIPE_V)
    maxs(clip, clip, -_TANH_CLIP, _PLACEHOLDER, 1, unary, False)
    pipe_barrier(PipeID.PIPE_V)
    muls(clip, clip, 2.0, _PLACEHOLDER, 1, unary, False)
    pipe_barrier(PipeID.PIPE_V)
    exp(clip, clip, _PLACEHOLDER, 1, unary, False)
    pipe_barrier(PipeID.PIPE_V)
    adds(dst, clip, -1.0, _PLACEHOLDER, 1, unary, False)
    pipe_barrier(PipeID.PIPE_V)
    adds(clip, clip, 1.0, _PLACEHOLDER, 1, unary, False)
    pipe_barrier(PipeID.PIPE_V)
    div(dst, dst, clip, _PLACEHOLDER, 1, BinaryRepeatParams(), False)
    pipe_barrier(PipeID.PIPE_V)


@jit
def tanh_chunk(offset, room, dst, src, tmp, split, from_half: ConstExpr[bool]):
    """One chunk under the loaded counter mask; a half source goes through float (its copy in
    the temp's first `split` floats, the clipped argument after it) and back."""
    if from_half:
        conv = tmp
        clip = tmp[split:]
        cast(conv, src[offset:], RoundMode.CAST_NONE, _PLACEHOLDER, 1,
             UnaryRepeatParams(1, 1, 8, 4), False)
        pipe_barrier(PipeID.PIPE_V)
        tanh_formula(conv, conv, clip)
        cast(dst[offset:], conv, RoundMode.CAST_NONE, _PLACEHOLDER, 1,
             UnaryRepeatParams(1, 1, 4, 8), False)
        pipe_barrier(PipeID.PIPE_V)
    else:
        tanh_formula(dst[offset:], src[offset:], tmp)
