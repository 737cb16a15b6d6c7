"""asc.adv's trigonometric ops (asc-api.md 6.7): sin, cos, tan, asin, acos, atan, each emitted as
CANN 8.1's library sequence for the A2 vector core: `impl/math/<op>/<op>_common_impl.h`, the
float -> float casts of `sin/sin_v220_impl.h`, `cos/cos_v220_impl.h`, `tan/tan_v220_impl.h`,
the constants of `math_constant_util.h` (docs/adv.md). float16 and float32, as the library
takes; a half source goes through float. `lib/math/<op>.h` forbids dst, src and the temp to
overlap (dst is src is an error here) and gives the valid input: sin, cos [-65504, 65504], tan
(-65504, 65504), asin, acos [-1, 1].

All six cut the temp buffer into equal areas of `split` elements: its bytes / unit / areas,
rounded down to 32 (unit and areas below); a temp without one such chunk is an error. Counter
mode, chunks of `split` under one mask, the tail under its own, then the mask back.

- sin: k = round(x / pi) (CAST_ROUND: ties away), x - k pi with pi in four parts, the sign
  (-1)^k = 4 floor(k/2) - 2k + 1, x P(x^2) of degree 9. Float areas 3 (2 with
  is_reuse_source: the reduced x then goes into src), half 4; unit 4.
- cos: k = rint(x / pi + 1/2), x - k pi + pi/2 (pi in five parts, pi/2 in two), then sin's
  sign and polynomial, clamped to [-1, 1]. Areas as sin; is_reuse_source with half is an
  error (the library asserts).
- tan: k = rint(x / pi), x - k pi with pi in five parts, x + pi/2 and x - pi/2 alongside, then
  x (R0 x^2 + R1) x^2 + R2) / ((x + pi/2)(x - pi/2)(x^2 + R3)). Float: areas 4, unit 4 (src
  copied by adds 0); half: areas 10, unit 2 (five float areas). The tail's areas are the tail
  rounded up to 32 apart, the other ops' keep `split`.
- asin: the Taylor series to x^15 of |x| where |x| < 2^-0.5, else pi/2 - the series of
  sqrt(1 - x^2), picked by weights -floor(min(|x|, b) - b) (an int32 cast; int8 for half),
  the sign by x 2^62 / (|x 2^62| + 2^-62) (2^15, 2^-15 for half). Float: areas 4 (two used),
  unit 4; half: areas 6, unit 2 (two float areas, two half): the far branch in float, the near
  series, the weights and the sign in half.
- acos: asin, then pi/2 - asin in the source type (half: from asin's float result).
- atan: |x| clipped to 1e4; the least of four series (direct, from tan(pi/8), from 1 by
  (x - 1) / (x + 1), from 1 then tan(pi/8)) plus pi/8, pi/4; the sign as asin's in float.
  Float areas 5, half 6 (the float copy last); unit 4.
A PIPE_V barrier after each instruction except where the library has none (math_trig_ops.py).
is_reuse_source is a compile-time bool and changes only float sin and cos.
"""
from __future__ import annotations

from typing import Optional

from asc.codegen.builder import require_builder
from asc.language.adv._common import (IN_FLOAT, ONE_BLK_SIZE, documented, element_count,
                                      temp_buffer_of)
from asc.language.basic.common import check_ub, require_local_tensors
from asc.language.core.constexpr import ConstExpr
from asc.language.core.dtype import KnownTypes as KT
from asc.language.core.hints import RuntimeInt
from asc.language.core.tensor import LocalTensor

__all__ = ["sin", "cos", "tan", "asin", "acos", "atan"]

_CHUNK_ELEMENTS = ONE_BLK_SIZE  # a chunk is a multiple of 32 elements
_NO_ALIAS = "dst must not be src (Ascend C forbids dst, src and the temp buffer to overlap)."


def _checked(api, dst, src, count, is_reuse_source):
    """(count, from_half, reuse) of an element-wise call, its arguments checked. dst being src
    (the same tensor or static address) is an error: `lib/math/<op>.h` forbids dst, src and the
    temp to overlap; a partial overlap is not checked."""
    require_builder(api)
    require_local_tensors(api, dst=dst, src=src)
    check_ub(api, dst=dst, src=src)
    a, b = dst._addr, src._addr
    if dst is src or (a is not None and a is b) or (
            isinstance(a, int) and isinstance(b, int) and a == b):
        raise ValueError(f"{api}(): dst must not be src: Ascend C's {api} forbids dst, src and "
                         f"the temp buffer to overlap; pass another dst tensor")
    if src.dtype not in (KT.float16, KT.float32) or dst.dtype != src.dtype:
        raise TypeError(f"{api}(): dst and src must both be float16 or both float32, got "
                        f"{dst.dtype} and {src.dtype}")
    reuse = ConstExpr.unwrap(is_reuse_source)
    if not isinstance(reuse, bool):
        raise TypeError(f"{api}(): is_reuse_source must be a compile-time bool, got "
                        f"{type(reuse).__name__}")
    count = element_count(api, count, ("src", src), ("dst", dst))
    return count, src.dtype == KT.float16, reuse


def _split(api, temp_buffer, unit, areas, dtype):
    """(temp, split) of a temp cut into `areas` areas of `unit`-byte elements."""
    needed = areas * _CHUNK_ELEMENTS * unit
    temp, nbytes = temp_buffer_of(api, temp_buffer, needed,
                                  f"{areas} areas of {_CHUNK_ELEMENTS} elements of {unit} bytes "
                                  f"for {dtype}")
    return temp, nbytes // unit // areas // _CHUNK_ELEMENTS * _CHUNK_ELEMENTS


def _run(chunk, count, split, src, args):
    from asc.codegen.function_visitor import inline_library
    from asc.language.adv import chunks
    inline_library(chunks.counter_chunks, chunk, count, split, _CHUNK_ELEMENTS, src.dtype, args)


def _sine(api, dst, src, count, temp_buffer, is_reuse_source, is_cos):
    count, from_half, reuse = _checked(api, dst, src, count, is_reuse_source)
    if is_cos and from_half and reuse:
        raise ValueError(f"{api}(): is_reuse_source is not supported for float16 (Ascend C "
                         f"asserts it); pass is_reuse_source=False")
    reuse = reuse and not from_half
    areas = 4 if from_half else 2 if reuse else 3
    temp, split = _split(api, temp_buffer, 4, areas, src.dtype)
    from asc.language.adv import math_trig_ops
    _run(math_trig_ops.sine_chunk, count, split, src,
         (dst, src, temp.reinterpret_cast(KT.float32), split, is_cos, from_half, reuse))


@documented("Element-wise dst = sin(src), the library's range reduction and odd polynomial.",
            "Valid input: [-65504, 65504]. k = round(x / pi) with ties away from zero, x - k pi "
            "with pi in four parts, (-1)^k, and a polynomial of degree 9. With is_reuse_source "
            "(float32 only) the reduced x is written into src, halving the temp. " + _NO_ALIAS,
            numerics=IN_FLOAT + "(CAST_NONE: nearest-even). Worst error against float64 "
            "(docs/adv.md): float32 1.95 ULP for |x| up to 3, and 1.3e-7 absolute up to 65504 "
            "(many ULP only near the zeros k pi); float16 0.50 ULP.")
def sin(dst: LocalTensor, src: LocalTensor, count: Optional[RuntimeInt] = None,
        temp_buffer: Optional[LocalTensor] = None, is_reuse_source: bool = False) -> None:
    _sine("sin", dst, src, count, temp_buffer, is_reuse_source, False)


@documented("Element-wise dst = cos(src), the library's range reduction and odd polynomial.",
            "Valid input: [-65504, 65504]. k = rint(x / pi + 1/2), x - k pi + pi/2 with pi in "
            "five parts, then sin's sign and polynomial, clamped to [-1, 1]. is_reuse_source "
            "as sin's; True with a float16 source is an error (the library asserts). " + _NO_ALIAS,
            numerics=IN_FLOAT + "(CAST_NONE: nearest-even). Worst error against float64 "
            "(docs/adv.md): float32 5.64 ULP on 0.5 .. pi (k pi is subtracted before pi/2 is "
            "added), 2.38 ULP beyond; float16 0.50 ULP.")
def cos(dst: LocalTensor, src: LocalTensor, count: Optional[RuntimeInt] = None,
        temp_buffer: Optional[LocalTensor] = None, is_reuse_source: bool = False) -> None:
    _sine("cos", dst, src, count, temp_buffer, is_reuse_source, True)


@documented("Element-wise dst = tan(src), a rational function of the reduced argument.",
            "Valid input: (-65504, 65504). k = rint(x / pi), x - k pi with pi in five parts, "
            "then x P(x^2) / ((x + pi/2)(x - pi/2) Q(x^2)). " + _NO_ALIAS,
            numerics=IN_FLOAT + "(CAST_NONE: nearest-even). Worst error against float64 "
            "(docs/adv.md): float32 4.94 ULP up to 1.57, 7.60 ULP beyond; float16 0.50 ULP.")
def tan(dst: LocalTensor, src: LocalTensor, count: Optional[RuntimeInt] = None,
        temp_buffer: Optional[LocalTensor] = None, is_reuse_source: bool = False) -> None:
    api = "tan"
    count, from_half, _ = _checked(api, dst, src, count, is_reuse_source)
    unit, areas = (2, 10) if from_half else (4, 4)
    temp, split = _split(api, temp_buffer, unit, areas, src.dtype)
    from asc.language.adv import math_trig_ops
    _run(math_trig_ops.tan_chunk, count, split, src,
         (dst, src, temp.reinterpret_cast(KT.float32), from_half))


def _asin(api, dst, src, count, temp_buffer, is_reuse_source, is_acos):
    count, from_half, _ = _checked(api, dst, src, count, is_reuse_source)
    unit, areas = (2, 6) if from_half else (4, 4)
    temp, split = _split(api, temp_buffer, unit, areas, src.dtype)
    from asc.language.adv import math_trig_ops
    _run(math_trig_ops.asin_chunk, count, split, src,
         (dst, src, temp.reinterpret_cast(src.dtype), split, is_acos, from_half))


@documented("Element-wise dst = asin(src) for src in [-1, 1], by the library's series.",
            "The Taylor series to x^15 of |x| below 2^-0.5, else pi/2 minus the series of "
            "sqrt(1 - x^2), times the sign of x; |x| > 1 gives NaN. " + _NO_ALIAS,
            numerics=IN_FLOAT + "(CAST_NONE: nearest-even), except that for float16 the near "
            "branch, its weights and the sign are computed in float16, each step rounded to "
            "nearest-even. Worst error against float64 (docs/adv.md): float32 2.87 ULP below "
            "0.5 and 935 ULP (5.6e-5 absolute: the series stops at x^15) on 0.5 .. 1; float16 "
            "1.45 ULP.")
def asin(dst: LocalTensor, src: LocalTensor, count: Optional[RuntimeInt] = None,
         temp_buffer: Optional[LocalTensor] = None, is_reuse_source: bool = False) -> None:
    _asin("asin", dst, src, count, temp_buffer, is_reuse_source, False)


@documented("Element-wise dst = acos(src) for src in [-1, 1]: pi/2 - asin(src).",
            "asin's sequence, then pi/2 minus its result in the source type (float16: from "
            "asin's float32 result); |x| > 1 gives NaN. " + _NO_ALIAS,
            numerics=IN_FLOAT + "(CAST_NONE: nearest-even), with asin's float16 steps. Worst "
            "error against float64 (docs/adv.md): float32 1.60 ULP below 0.5 and 934 ULP "
            "(5.6e-5 absolute) on 0.5 .. 1; float16 1.15 ULP.")
def acos(dst: LocalTensor, src: LocalTensor, count: Optional[RuntimeInt] = None,
         temp_buffer: Optional[LocalTensor] = None, is_reuse_source: bool = False) -> None:
    _asin("acos", dst, src, count, temp_buffer, is_reuse_source, True)


@documented("Element-wise dst = atan(src), the least of four of the library's series.",
            "|x| is clipped to 1e4; four Taylor series (direct, around tan(pi/8), around 1, and "
            "both) and the least of them, times the sign of x. " + _NO_ALIAS,
            numerics=IN_FLOAT + "(CAST_NONE: nearest-even). Worst error against float64 "
            "(docs/adv.md): float32 159 ULP (4.9e-6 absolute: the series stop at x^9); float16 "
            "0.51 ULP.")
def atan(dst: LocalTensor, src: LocalTensor, count: Optional[RuntimeInt] = None,
         temp_buffer: Optional[LocalTensor] = None, is_reuse_source: bool = False) -> None:
    api = "atan"
    count, from_half, _ = _checked(api, dst, src, count, is_reuse_source)
    temp, split = _split(api, temp_buffer, 4, 6 if from_half else 5, src.dtype)
    from asc.language.adv import math_trig_ops
    _run(math_trig_ops.atan_chunk, count, split, src,
         (dst, src, temp.reinterpret_cast(KT.float32), split, from_half))
