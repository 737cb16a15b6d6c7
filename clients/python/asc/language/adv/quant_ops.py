"""The instruction sequence behind asc.adv.quant (quant.py has the facts and their source): a
library sub-kernel, traced where the user calls quant, its ops at the user's line."""
from asc.language.basic.sync import pipe_barrier
from asc.language.basic.vec import adds, cast, muls
from asc.language.core.constexpr import ConstExpr
from asc.language.core.enums import PipeID, RoundMode
from asc.language.core.types import UnaryRepeatParams
from asc.runtime.jit import jit

# Counter mode, mask already loaded: one "repeat" covers the mask's element count.
_PLACEHOLDER = 0


@jit
def quant_chunk(offset, room, dst, src, tmp, scale, offset_h, from_float: ConstExpr[bool]):
    """One chunk under the loaded counter mask: [f32 -> f16], * scale, + offset, f16 -> int8."""
    dense = UnaryRepeatParams()
    narrow = UnaryRepeatParams(1, 1, 4, 8)  # the narrower destination: 4 blocks a repeat
    if from_float:
        cast(tmp, src[offset:], RoundMode.CAST_NONE, _PLACEHOLDER, 1, narrow, False)
        pipe_barrier(PipeID.PIPE_V)
        muls(tmp, tmp, scale, _PLACEHOLDER, 1, dense, False)
    else:
        muls(tmp, src[offset:], scale, _PLACEHOLDER, 1, dense, False)
    pipe_barrier(PipeID.PIPE_V)
    adds(tmp, tmp, offset_h, _PLACEHOLDER, 1, dense, False)
    pipe_barrier(PipeID.PIPE_V)
    cast(dst[offset:], tmp, RoundMode.CAST_NONE, _PLACEHOLDER, 1, narrow, False)
    pipe_barrier(PipeID.PIPE_V)
