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
from __future__ import annotations

import numbers
from typing import Optional

from asc.codegen.builder import require_builder
from asc.language.adv._common import IN_FLOAT, documented, float_op_args
from asc.language.core.constexpr import ConstExpr
from asc.language.core.dtype import KnownTypes as KT
from asc.language.core.hints import RuntimeInt
from asc.language.core.tensor import LocalTensor

__all__ = ["digamma", "lgamma"]

_TAIL_ROUND = 8  # ONE_BYTE_BIT_SIZE: the float tails are rounded up to whole mask bytes


def _same_start(a, b) -> bool:
    """True when two tensors start at the same UB address as far as tracing knows it."""
    x, y = a._addr, b._addr
    return a is b or x is y or (isinstance(x, numbers.Integral) and
                                isinstance(y, numbers.Integral) and x == y)


def _rounded(count):
    return (count + _TAIL_ROUND - 1) // _TAIL_ROUND * _TAIL_ROUND


@documented("Element-wise dst = digamma(src), the logarithmic derivative of gamma.",
            "The asymptotic series at x + 10 (x + 3 for float16) less the recurrence's terms; "
            "x < 0 by the reflection digamma(1 - x) - pi cot(pi x). Every case is computed on "
            "every element and selected under its compare mask; the count is rounded up to 8. "
            "A float16 dst may be src; a float32 one may not (the library zeroes dst before it "
            "reads src). is_reuse_source (float32) keeps one area in src.",
            numerics=IN_FLOAT + "(CAST_NONE: nearest-even). Worst error against float64 "
            "(docs/adv.md): float32 1.30 ULP from 1e4, 2.68 on 10 .. 1e4, up to 8 ULP below 10 "
            "and for negative x, under 2.2e-6 absolute around the zeros; float16 0.59 ULP. +0 "
            "gives -inf, -0 +inf, negative integers NaN.")
def digamma(dst: LocalTensor, src: LocalTensor, count: Optional[RuntimeInt] = None,
            temp_buffer: Optional[LocalTensor] = None, is_reuse_source: bool = False) -> None:
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


@documented("Element-wise dst = ln|gamma(src)|, the log of the gamma function's size.",
            "Polynomials and a rational function by range of |x|, Stirling's series from 5.8 "
            "(float16: a shifted Stirling form), x < 0 by the reflection with sin(pi x). dst "
            "may be src, except for float32 with is_reuse_source (the library then keeps its "
            "zero scalar in the source's first elements). float32 rounds the count up to 8; "
            "float16 writes dst up to the end of the last chunk.",
            numerics=IN_FLOAT + "(CAST_NONE: nearest-even). Worst error against float64 "
            "(docs/adv.md): float32 0.71 ULP on 0 .. 3, 489 ULP on 3 .. 5.8 (the library's "
            "rational fit), 2.93 ULP above, up to 5.1 ULP for negative x (404 on -5.8 .. -3); "
            "float16 0.51 ULP (7.35 for tiny negative x). +-0, +-inf and negative integers "
            "give +inf.")
def lgamma(dst: LocalTensor, src: LocalTensor, count: Optional[RuntimeInt] = None,
           temp_buffer: Optional[LocalTensor] = None, is_reuse_source: bool = False) -> None:
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
