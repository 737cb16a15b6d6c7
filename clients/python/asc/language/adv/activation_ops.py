"""The instruction sequences behind asc.adv's activations (activation.py has the facts and their
source): library sub-kernels, traced where the user calls the op, its ops at the user's line."""
from asc.language.basic.sync import pipe_barrier
from asc.language.basic.vec import adds, cast, div, exp, mul, muls
from asc.language.core.constexpr import ConstExpr
from asc.language.core.enums import PipeID, RoundMode
from asc.language.core.types import BinaryRepeatParams, UnaryRepeatParams
from asc.runtime.jit import jit

_PLACEHOLDER = 0  # counter mode, mask loaded: one instruction covers the mask's count


@jit
def swish(dst, src, neg_beta):
    """dst = src / (1 + e^(-beta * src)), in float."""
    unary = UnaryRepeatParams()
    muls(dst, src, neg_beta, _PLACEHOLDER, 1, unary, False)
    pipe_barrier(PipeID.PIPE_V)
    exp(dst, dst, _PLACEHOLDER, 1, unary, False)
    pipe_barrier(PipeID.PIPE_V)
    adds(dst, dst, 1.0, _PLACEHOLDER, 1, unary, False)
    pipe_barrier(PipeID.PIPE_V)
    div(dst, src, dst, _PLACEHOLDER, 1, BinaryRepeatParams(), False)
    pipe_barrier(PipeID.PIPE_V)


@jit
def swiglu_chunk(offset, room, dst, src0, src1, neg_beta, tmp, from_half: ConstExpr[bool]):
    """dst = src0 * swish(src1) under the loaded mask. Half: both sources in float in the temp,
    three areas of `room` floats (src1, its swish, src0)."""
    binary = BinaryRepeatParams()
    if from_half:
        gate = tmp
        act = tmp[room:]
        up = tmp[2 * room:]
        cast(gate, src1[offset:], RoundMode.CAST_NONE, _PLACEHOLDER, 1,
             UnaryRepeatParams(1, 1, 8, 4), False)
        pipe_barrier(PipeID.PIPE_V)
        swish(act, gate, neg_beta)
        cast(up, src0[offset:], RoundMode.CAST_NONE, _PLACEHOLDER, 1,
             UnaryRepeatParams(1, 1, 8, 4), False)
        pipe_barrier(PipeID.PIPE_V)
        mul(act, up, act, _PLACEHOLDER, 1, binary, False)
        pipe_barrier(PipeID.PIPE_V)
        cast(dst[offset:], act, RoundMode.CAST_NONE, _PLACEHOLDER, 1,
             UnaryRepeatParams(1, 1, 4, 8), False)
        pipe_barrier(PipeID.PIPE_V)
    else:
        swish(dst[offset:], src1[offset:], neg_beta)
        mul(dst[offset:], src0[offset:], dst[offset:], _PLACEHOLDER, 1, binary, False)
        pipe_barrier(PipeID.PIPE_V)
