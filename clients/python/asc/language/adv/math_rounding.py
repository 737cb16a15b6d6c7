"""asc.adv's rounding ops (asc-api.md 6.7): ceil, floor, round, trunc, frac and sign, each
emitted as CANN 8.1's library sequence for the A2 vector core (docs/adv.md), from
`impl/math/<op>/<op>_common_impl.h` and `<op>_v220_impl.h`. All take float16 or float32.

- ceil, trunc, floor (half): the temp seen as float, a chunk its floats rounded down to 32.
  Counter mode; per chunk one float -> float cast (CAST_CEIL / CAST_TRUNC / CAST_FLOOR) and a
  PIPE_V barrier; a half source is cast to float into the temp first and back after, each with
  a barrier. The float paths of ceil and trunc leave the temp unused but still need one chunk.
- floor (float): the library's non-template float overloads win the call: one count-form
  CAST_FLOOR cast, the temp ignored and no scratch taken.
- round: float is one CAST_RINT cast over the whole count, no temp, no barrier; half as ceil's
  half path with CAST_RINT.
- frac: x - trunc(x). Float over the whole count (trunc into dst, sub), the temp unused; half
  in two float areas of the temp (its float copy, the result), each its floats / 2 rounded down
  to 32.
- sign: the temp as two bit masks of AlignUp(chunk / 8, 32) bytes and two areas of `chunk`
  elements, a chunk its bytes / sizeof(T) / 3 rounded down to 32. Per chunk dst = 0, compares
  x < 0 and x > 0, selects against 1 and -1 loaded into CMPMASK, one add.
"""
from __future__ import annotations

from typing import Optional

from asc.language.adv._common import (ONE_BLK_SIZE, documented, float_chunks, float_op_count,
                                      temp_buffer_of)
from asc.language.core.dtype import KnownTypes as KT
from asc.language.core.enums import RoundMode
from asc.language.core.hints import RuntimeInt
from asc.language.core.tensor import LocalTensor

__all__ = ["ceil", "floor", "round", "trunc", "frac", "sign"]

_SIGN_AREAS = 3  # the library's SIGN_CALC_PROC: temp elements per chunk element

# How the integral-value ops round: one float -> float cast, exact both ways for a half source.
_INTEGRAL = ("exact: one float32 -> float32 cast rounds to an integral value ({mode}); a float16 "
             "source is widened to float32 and narrowed back exactly (CAST_NONE). A zero result "
             "is +0 (the chip's float -> float cast turns -0 into +0); inf and NaN pass through. "
             "Bit-exact against numpy (docs/adv.md).")


def _not_in_place(api, dst, src, why):
    if dst is src:
        raise ValueError(f"{api}(): dst must not be src here: {why}. Pass another dst tensor")


def _integral(api, dst, src, count, temp_buffer, is_reuse_source, mode, mask_dtype):
    """ceil, floor, trunc and round's half path: one chunk of floats per step."""
    count = float_op_count(api, dst, src, count, is_reuse_source)
    from_half = src.dtype == KT.float16
    tmp, split = float_chunks(api, temp_buffer, 1, "one chunk of 32 floats")
    from asc.codegen.function_visitor import inline_library
    from asc.language.adv import chunks, math_rounding_ops
    inline_library(chunks.counter_chunks, math_rounding_ops.integral_chunk, count, split,
                   ONE_BLK_SIZE, mask_dtype or src.dtype, (dst, src, tmp, mode, from_half))


@documented("Element-wise dst = ceil(src), the smallest integral value >= src.",
            "dst may be src.", numerics=_INTEGRAL.format(mode="CAST_CEIL, toward +inf"))
def ceil(dst: LocalTensor, src: LocalTensor, count: Optional[RuntimeInt] = None,
         temp_buffer: Optional[LocalTensor] = None, is_reuse_source: bool = False) -> None:
    _integral("ceil", dst, src, count, temp_buffer, is_reuse_source, RoundMode.CAST_CEIL, None)


@documented("Element-wise dst = floor(src), the largest integral value <= src.",
            "dst may be src. A float32 source is one count-form cast (the library's float "
            "overload): the temp is ignored.",
            numerics=_INTEGRAL.format(mode="CAST_FLOOR, toward -inf"))
def floor(dst: LocalTensor, src: LocalTensor, count: Optional[RuntimeInt] = None,
          temp_buffer: Optional[LocalTensor] = None, is_reuse_source: bool = False) -> None:
    api = "floor"
    if getattr(src, "dtype", None) != KT.float32:
        _integral(api, dst, src, count, temp_buffer, is_reuse_source, RoundMode.CAST_FLOOR, None)
        return
    count = float_op_count(api, dst, src, count, is_reuse_source)
    if temp_buffer is not None:
        temp_buffer_of(api, temp_buffer, 0, "none: the float path ignores it")
    from asc.language.basic.vec import cast
    cast(dst, src, RoundMode.CAST_FLOOR, count)


@documented("Element-wise dst = trunc(src), src rounded toward zero.", "dst may be src.",
            numerics=_INTEGRAL.format(mode="CAST_TRUNC, toward zero"))
def trunc(dst: LocalTensor, src: LocalTensor, count: Optional[RuntimeInt] = None,
          temp_buffer: Optional[LocalTensor] = None, is_reuse_source: bool = False) -> None:
    _integral("trunc", dst, src, count, temp_buffer, is_reuse_source, RoundMode.CAST_TRUNC,
              KT.float16)


@documented("Element-wise dst = src rounded to the nearest integral value, ties to even.",
            "dst may be src. A float32 source is one cast over the whole count, no temp.",
            numerics=_INTEGRAL.format(mode="CAST_RINT, nearest with ties to even"))
def round(dst: LocalTensor, src: LocalTensor, count: Optional[RuntimeInt] = None,
          temp_buffer: Optional[LocalTensor] = None, is_reuse_source: bool = False) -> None:
    api = "round"
    if getattr(src, "dtype", None) == KT.float16:
        _integral(api, dst, src, count, temp_buffer, is_reuse_source, RoundMode.CAST_RINT, None)
        return
    count = float_op_count(api, dst, src, count, is_reuse_source)
    temp_buffer_of(api, temp_buffer, 0, "none: the float path uses no temp")
    from asc.codegen.function_visitor import inline_library
    from asc.language.adv import math_rounding_ops
    inline_library(math_rounding_ops.whole_count, math_rounding_ops.integral_chunk, count,
                   KT.float32, (dst, src, None, RoundMode.CAST_RINT, False))


@documented("Element-wise dst = src - trunc(src), the fractional part.",
            "dst may be src for float16 only (the float32 sequence writes trunc(src) into dst, "
            "then reads src).",
            numerics="exact: trunc is a CAST_TRUNC float -> float cast and the subtraction "
            "x - trunc(x) is exact in the source type; a float16 source goes through float32 "
            "exactly. Zeros follow IEEE (frac(-0) = -0, frac(-3) = +0); +-inf gives NaN.")
def frac(dst: LocalTensor, src: LocalTensor, count: Optional[RuntimeInt] = None,
         temp_buffer: Optional[LocalTensor] = None, is_reuse_source: bool = False) -> None:
    api = "frac"
    count = float_op_count(api, dst, src, count, is_reuse_source)
    from asc.codegen.function_visitor import inline_library
    from asc.language.adv import chunks, math_rounding_ops
    if src.dtype == KT.float16:
        tmp, split = float_chunks(api, temp_buffer, 2, "two chunks of 32 floats for float16")
        inline_library(chunks.counter_chunks, math_rounding_ops.frac_chunk, count, split,
                       ONE_BLK_SIZE, KT.float16, (dst, src, tmp, split, True))
        return
    _not_in_place(api, dst, src, "the float sequence writes trunc(src) into dst, then reads src")
    temp_buffer_of(api, temp_buffer, 4, "at least one float, though the float path uses none")
    inline_library(math_rounding_ops.whole_count, math_rounding_ops.frac_chunk, count,
                   KT.float16, (dst, src, None, 0, False))


@documented("Element-wise dst = 1, 0 or -1 by the sign of src (0 for +-0 and NaN).",
            "Computed as [x >= 0] - [x <= 0] by two compares and two selects in the source "
            "type. dst must not be src (the sequence zeroes dst before it compares src).",
            numerics="exact: the results are 1, -1 and +0; NaN compares false both ways and "
            "gives 0, +-0 gives +0.")
def sign(dst: LocalTensor, src: LocalTensor, count: Optional[RuntimeInt] = None,
         temp_buffer: Optional[LocalTensor] = None, is_reuse_source: bool = False) -> None:
    api = "sign"
    count = float_op_count(api, dst, src, count, is_reuse_source)
    _not_in_place(api, dst, src, "the sequence zeroes dst before it compares src with it")
    esize = src.dtype.sizeof()
    tmp, nbytes = temp_buffer_of(api, temp_buffer, _SIGN_AREAS * ONE_BLK_SIZE * esize,
                                 f"{_SIGN_AREAS} chunks of 32 {src.dtype} elements")
    split = nbytes // esize // _SIGN_AREAS // ONE_BLK_SIZE * ONE_BLK_SIZE
    mask_bytes = (split // 8 + ONE_BLK_SIZE - 1) // ONE_BLK_SIZE * ONE_BLK_SIZE
    stack = tmp[2 * mask_bytes:].reinterpret_cast(src.dtype)
    from asc.codegen.function_visitor import inline_library
    from asc.language.adv import chunks, math_rounding_ops
    inline_library(chunks.counter_chunks, math_rounding_ops.sign_chunk, count, split, 1,
                   src.dtype, (dst, src, tmp, tmp[mask_bytes:], stack, stack[split:], esize))
