"""asc.adv.digamma and asc.adv.lgamma (asc-api.md 6.7), each emitted as CANN 8.1's sequence for
the A2 vector core (`impl/math/digamma/digamma_common_impl.h`, `digamma_common_basic_impl.h`,
`digamma_v220_impl.h`; `impl/math/lgamma/lgamma_common_impl.h`, `lgamma_common_basic_impl.h`,
`lgamma_common_utils.h`, `lgamma_v220_impl.h`; docs/adv.md). float16 and float32, as the library.

Both see the temp buffer as float, split into areas of `split` floats (its floats / steps,
rounded down to 32): digamma 7 steps for float (6 with is_reuse_source, its fifth area then being
the source's first `split` floats), 8 for half; lgamma 8 for float (7 with is_reuse_source, its
zero scalar then the source's first `split` floats), 13 for half; the steps include the bit
masks, three (digamma) or four (lgamma) of `split` bytes. Counter mode; every case of the
function is computed on every element and added into the result under its compare mask (Select
with a zero scalar). The float paths and half digamma round the tail up to 8 elements (the
mask and the compares cover it); half lgamma keeps the tail's mask only until its first bit
operation, which puts the mask back to the whole chunk.
"""
import numbers

from asc.codegen.builder import require_builder
from asc.language.adv._common import float_op_args
from asc.language.core.constexpr import ConstExpr
from asc.language.core.dtype import KnownTypes as KT

__all__ = ["digamma", "lgamma"]

_TAIL_ROUND = 8  # ONE_BYTE_BIT_SIZE: the float tails are rounded up to whole mask bytes


def _same_start(a, b) -> bool:
    """True when two tensors start at the same UB address as far as tracing knows it."""
    x, y = a._addr, b._addr
    return a is b or x is y or (isinstance(x, numbers.Integral) and
                                isinstance(y, numbers.Integral) and x == y)


def _rounded(count):
    return (count + _TAIL_ROUND - 1) // _TAIL_ROUND * _TAIL_ROUND


def digamma(dst, src, count=None, temp_buffer=None, is_reuse_source=False):
    """dst = digamma(src) for the first `count` elements (all of src when None), rounded up to
    8, in float (module docstring). A half dst may be src; a float one may not (the library
    zeroes dst before it reads src)."""
    api = "digamma"
    require_builder(api)
    from_half = getattr(src, "dtype", None) == KT.float16
    reuse = ConstExpr.unwrap(is_reuse_source) is True and not from_half
    steps = 8 if from_half else 6 if reuse else 7
    count, tmp, split = float_op_args(api, dst, src, count, temp_buffer, is_reuse_source, steps)
    if not from_half and _same_start(dst, src):
        raise ValueError(f"{api}(): for float32 dst must not be src: the library's sequence "
                         "zeroes dst before it reads src; pass another dst tensor")
    from asc.codegen.function_visitor import inline_library
    from asc.language.adv import chunks, math_gamma_ops
    areas = math_gamma_ops.DigammaAreas(tmp, split, from_half, src if reuse else None)
    chunk = math_gamma_ops.digamma_half_chunk if from_half else math_gamma_ops.digamma_chunk
    inline_library(chunks.counter_chunks, chunk, _rounded(count), split, _TAIL_ROUND, src.dtype,
                   (dst, src, areas))


def lgamma(dst, src, count=None, temp_buffer=None, is_reuse_source=False):
    """dst = ln|gamma(src)| for the first `count` elements (all of src when None), in float
    (module docstring). dst may be src, except for float with is_reuse_source (the library then
    keeps its zero scalar in the source's first elements). float rounds the count up to 8; half
    writes dst up to the end of the last chunk."""
    api = "lgamma"
    require_builder(api)
    from_half = getattr(src, "dtype", None) == KT.float16
    reuse = ConstExpr.unwrap(is_reuse_source) is True and not from_half
    steps = 13 if from_half else 7 if reuse else 8
    count, tmp, split = float_op_args(api, dst, src, count, temp_buffer, is_reuse_source, steps)
    if reuse and _same_start(dst, src):
        raise ValueError(f"{api}(): with is_reuse_source=True dst must not be src: the library "
                         "keeps its zero scalar in the source's first elements; pass another "
                         "dst tensor or is_reuse_source=False")
    from asc.codegen.function_visitor import inline_library
    from asc.language.adv import chunks, math_gamma_ops
    if from_half:
        inline_library(chunks.counter_chunks, math_gamma_ops.lgamma_half_chunk, count, split, 0,
                       src.dtype, (dst, src, math_gamma_ops.LgammaHalfAreas(tmp, split)))
    else:
        areas = math_gamma_ops.LgammaAreas(tmp, split, src if reuse else None)
        inline_library(chunks.counter_chunks, math_gamma_ops.lgamma_chunk, _rounded(count),
                       split, _TAIL_ROUND, src.dtype, (dst, src, areas))
