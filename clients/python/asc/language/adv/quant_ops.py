"""The instruction sequence behind asc.adv.quant (quant.py has the facts and their source): a
library sub-kernel, traced where the user calls quant, its ops at the user's line."""
from asc.language.basic.mask import reset_mask, set_mask_count, set_mask_norm, set_vector_mask
from asc.language.basic.sync import pipe_barrier
from asc.language.basic.vec import adds, cast, muls
from asc.language.core.constexpr import ConstExpr
from asc.language.core.dtype import KnownTypes as KT
from asc.language.core.enums import MaskMode, PipeID, RoundMode
from asc.language.core.types import UnaryRepeatParams
from asc.runtime.jit import jit

# Counter mode, mask already loaded: one "repeat" covers the mask's element count.
_PLACEHOLDER = 0


@jit
def quant_chunk(dst, src, tmp, scale, offset, from_float: ConstExpr[bool]):
    """One chunk under the loaded counter mask: [f32 -> f16], * scale, + offset, f16 -> int8."""
    dense = UnaryRepeatParams()
    narrow = UnaryRepeatParams(1, 1, 4, 8)  # the narrower destination: 4 blocks a repeat
    if from_float:
        cast(tmp, src, RoundMode.CAST_NONE, _PLACEHOLDER, 1, narrow, False)
        pipe_barrier(PipeID.PIPE_V)
        muls(tmp, tmp, scale, _PLACEHOLDER, 1, dense, False)
    else:
        muls(tmp, src, scale, _PLACEHOLDER, 1, dense, False)
    pipe_barrier(PipeID.PIPE_V)
    adds(tmp, tmp, offset, _PLACEHOLDER, 1, dense, False)
    pipe_barrier(PipeID.PIPE_V)
    cast(dst, tmp, RoundMode.CAST_NONE, _PLACEHOLDER, 1, narrow, False)
    pipe_barrier(PipeID.PIPE_V)


@jit
def quant_chunks(dst, src, tmp, scale, offset, count, split, from_float: ConstExpr[bool]):
    """count elements in chunks of split: the full ones under one mask, then the tail."""
    set_mask_count()
    loops = count // split
    set_vector_mask(split, dtype=KT.float16, mode=MaskMode.COUNTER)
    for i in range(loops):
        quant_chunk(dst[i * split:], src[i * split:], tmp, scale, offset, from_float)
    tail = count % split
    if tail > 0:
        set_vector_mask(tail, dtype=KT.float16, mode=MaskMode.COUNTER)
        quant_chunk(dst[loops * split:], src[loops * split:], tmp, scale, offset, from_float)
    set_mask_norm()
    reset_mask()
