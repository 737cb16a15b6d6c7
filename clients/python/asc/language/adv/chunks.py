"""The loop every element-wise adv op runs (Ascend C's library splits its work the same way):
counter mode, the count in chunks of `split` elements under one loaded mask, then the tail
under its own, then the mask back to normal mode. The op's chunk sub-kernel does the rest."""
from asc.language.basic.mask import reset_mask, set_mask_count, set_mask_norm, set_vector_mask
from asc.language.core.constexpr import ConstExpr
from asc.language.core.enums import MaskMode
from asc.runtime.jit import jit


@jit
def counter_chunks(chunk: ConstExpr, count, split, per_block: ConstExpr[int],
                   mask_dtype: ConstExpr, args: ConstExpr):
    """chunk(offset, room, *args) for each chunk: `offset` its first element, `room` the
    elements its temp areas hold: split, and for the tail its count rounded up to `per_block`
    (per_block 0: split, sparing the scalar unit the rounding)."""
    set_mask_count()
    loops = count // split
    set_vector_mask(split, dtype=mask_dtype, mode=MaskMode.COUNTER)
    for i in range(loops):
        chunk(i * split, split, *args)
    tail = count % split
    if tail > 0:
        set_vector_mask(tail, dtype=mask_dtype, mode=MaskMode.COUNTER)
        if per_block == 0:
            chunk(loops * split, split, *args)
        else:
            chunk(loops * split, (tail + per_block - 1) // per_block * per_block, *args)
    set_mask_norm()
    reset_mask()
