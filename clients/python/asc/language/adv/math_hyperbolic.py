"""asc.adv's hyperbolic, log and error-function ops (asc-api.md 6.7): sinh, cosh, asinh, acosh,
atanh, log, erf, erfc, each emitted as CANN 8.1's library sequence for the A2 vector core
(`ascendc/include/highlevel_api/impl/math/<op>/<op>_common_impl.h`, with `cosh_v220_impl.h`;
docs/adv.md has one section per op). All take float16 or float32, as the library does.

What they share (the library's facts):
- The temp buffer is seen as float and cut into equal areas of `split` floats: its bytes / 4 /
  areas, rounded down to a multiple of 32. Areas (half source, float source): sinh 2, 1;
  cosh 3, 2; asinh 3, 3; acosh 2, 1; atanh 2, 1; erf 4, 3; erfc 6, 5. The smallest temp is
  one chunk of 32 floats per area.
- Counter mode, the count in chunks of `split` under one mask, the tail under its own; a half
  source is converted to float first and back last. The tail's areas start `split` apart for
  sinh, cosh, erf and erfc, and its count rounded up to 32 apart for asinh, acosh and atanh.
- The casts back to half round to nearest even (CAST_NONE) except cosh, erf and erfc, which
  round ties away from zero (CAST_ROUND, the v220 choice). A PIPE_V barrier follows each
  instruction, except after atanh's last cast and log's ln.
- log is one ln under one counter mask over the whole count; it uses no temp buffer (Ascend C's
  Log takes none: `lib/math/log.h`), so a given one is only checked.
The formulas, one per op, are in math_hyperbolic_ops.py and docs/adv.md.
"""
from __future__ import annotations

from typing import Optional

from asc.language.adv._common import (IN_FLOAT, ONE_BLK_SIZE, documented, float_op_args,
                                      float_op_count, temp_buffer_of)
from asc.language.core.dtype import KnownTypes as KT
from asc.language.core.hints import RuntimeInt
from asc.language.core.tensor import LocalTensor

__all__ = ["sinh", "cosh", "asinh", "acosh", "atanh", "log", "erf", "erfc"]

_NO_OVERLAP = "Ascend C does not allow dst, src and the temp buffer to overlap."
_NEAREST = IN_FLOAT + "(CAST_NONE: nearest-even). "
_TIES_AWAY = IN_FLOAT + "with CAST_ROUND (nearest, ties away from zero). "

# op -> (areas for a half source, areas for a float source, the tail's areas apart: its count
# rounded up to this (0: a full chunk apart), the dtype the library loads the mask with (None:
# the source's)).
_LAYOUT = {
    "sinh": (2, 1, 0, None),
    "cosh": (3, 2, 0, None),
    "asinh": (3, 3, ONE_BLK_SIZE, None),
    "acosh": (2, 1, ONE_BLK_SIZE, None),
    "atanh": (2, 1, ONE_BLK_SIZE, None),
    "erf": (4, 3, 0, KT.float16),
    "erfc": (6, 5, 0, KT.float16),
}


def _run(api, dst, src, count, temp_buffer, is_reuse_source):
    """Checks the call and emits the library's chunk loop with `api`'s chunk sub-kernel."""
    half_areas, float_areas, per_block, mask_dtype = _LAYOUT[api]
    from_half = getattr(src, "dtype", None) == KT.float16
    count, tmp, split = float_op_args(api, dst, src, count, temp_buffer, is_reuse_source,
                              half_areas if from_half else float_areas)
    from asc.codegen.function_visitor import inline_library
    from asc.language.adv import chunks, math_hyperbolic_ops
    inline_library(chunks.counter_chunks, getattr(math_hyperbolic_ops, f"{api}_chunk"), count,
                   split, per_block, mask_dtype or src.dtype, (dst, src, tmp, from_half))


@documented("Element-wise dst = sinh(src), as e^(x - ln2) - e^(-x - ln2).", _NO_OVERLAP,
            numerics=_NEAREST + "Worst error against float64 (docs/adv.md): float32 1.62 ULP "
            "for |x| up to 5 and 24 ULP up to 89 (x - ln2 is rounded before exp), under 7e-8 "
            "absolute near 0 where the terms cancel; float16 0.50 ULP (1 ULP of the subnormal "
            "step below 1e-3).")
def sinh(dst: LocalTensor, src: LocalTensor, count: Optional[RuntimeInt] = None,
         temp_buffer: Optional[LocalTensor] = None, is_reuse_source: bool = False) -> None:
    _run("sinh", dst, src, count, temp_buffer, is_reuse_source)


@documented("Element-wise dst = cosh(src), as e^(x - ln2) + 0.25 / e^(x - ln2).",
            _NO_OVERLAP,
            numerics=_TIES_AWAY + "Worst error against float64 (docs/adv.md): float32 1.37 ULP "
            "for |x| up to 1, 5.11 up to 5 and 38 up to 89; float16 0.50 ULP.")
def cosh(dst: LocalTensor, src: LocalTensor, count: Optional[RuntimeInt] = None,
         temp_buffer: Optional[LocalTensor] = None, is_reuse_source: bool = False) -> None:
    _run("cosh", dst, src, count, temp_buffer, is_reuse_source)


@documented("Element-wise dst = asinh(src), as sign(x) * ln(|x| + sqrt(x^2 + 1)).",
            "The sign is x * 2^62 / (|x * 2^62| + 2^-62), in float32. dst may be src.",
            numerics=_NEAREST + "Worst error against float64 (docs/adv.md): float32 2.67 ULP "
            "on 0.5 .. 2 and 0.90 ULP above, under 1.4e-7 absolute below 0.5; float16 0.50 ULP "
            "(1 ULP below 1e-3).")
def asinh(dst: LocalTensor, src: LocalTensor, count: Optional[RuntimeInt] = None,
          temp_buffer: Optional[LocalTensor] = None, is_reuse_source: bool = False) -> None:
    _run("asinh", dst, src, count, temp_buffer, is_reuse_source)


@documented("Element-wise dst = acosh(src), as ln(t * (t / t)), t = x + sqrt(x^2 - 1).",
            "x below 1, inf and NaN give NaN. dst may be src.",
            numerics=_NEAREST + "Worst error against float64 (docs/adv.md): float32 3.20 ULP "
            "on 1.1 .. 2 and 1.06 ULP above, up to 780 ULP (1.4e-6 absolute) near 1 where "
            "x^2 - 1 cancels; float16 0.50 ULP.")
def acosh(dst: LocalTensor, src: LocalTensor, count: Optional[RuntimeInt] = None,
          temp_buffer: Optional[LocalTensor] = None, is_reuse_source: bool = False) -> None:
    _run("acosh", dst, src, count, temp_buffer, is_reuse_source)


@documented("Element-wise dst = atanh(src), as 0.5 * ln((1 + x) / (1 - x)).",
            "dst may be src.",
            numerics=_NEAREST + "Worst error against float64 (docs/adv.md): float32 1.18 ULP "
            "on 0.5 .. 0.9999, under 7.3e-8 absolute below 0.5; float16 0.50 ULP (1 ULP below "
            "1e-3).")
def atanh(dst: LocalTensor, src: LocalTensor, count: Optional[RuntimeInt] = None,
          temp_buffer: Optional[LocalTensor] = None, is_reuse_source: bool = False) -> None:
    _run("atanh", dst, src, count, temp_buffer, is_reuse_source)


@documented("Element-wise dst = erf(src), a rational function of src clipped to +-3.92.",
            "P(c) / Q(c), c = x clipped to [-3.92, 3.92]. " + _NO_OVERLAP,
            numerics=_TIES_AWAY + "Worst error against float64 (docs/adv.md): float32 4.97 ULP "
            "(3e-7 absolute: the rational fit); float16 0.50 ULP.")
def erf(dst: LocalTensor, src: LocalTensor, count: Optional[RuntimeInt] = None,
        temp_buffer: Optional[LocalTensor] = None, is_reuse_source: bool = False) -> None:
    _run("erf", dst, src, count, temp_buffer, is_reuse_source)


@documented("Element-wise dst = erfc(src), from e^(-z^2) * R(z) / S(z) with z = |x|.",
            "c = x clipped to [-10, 10], z = |c| + 2^-62, reflected for x < 0: 1 - s + s * "
            "e^(-z^2) * R(z) / S(z), s = c / z. " + _NO_OVERLAP,
            numerics=_TIES_AWAY + "Worst error against float64 (docs/adv.md): float32 2.29 ULP "
            "on -4 .. 0.5, 4.66 on 0.5 .. 2, 9.89 on 2 .. 4 and 65 ULP on 4 .. 9 (z^2 is rounded "
            "before exp); float16 0.50 ULP. Results below float32's normal range stay "
            "subnormal.")
def erfc(dst: LocalTensor, src: LocalTensor, count: Optional[RuntimeInt] = None,
         temp_buffer: Optional[LocalTensor] = None, is_reuse_source: bool = False) -> None:
    _run("erfc", dst, src, count, temp_buffer, is_reuse_source)


@documented("Element-wise dst = ln(src): one ln instruction over the whole count.",
            "temp_buffer is checked (a uint8 UB tensor) and unused: Ascend C's Log takes none. "
            "No chunks, no barrier. dst may be src.",
            numerics="one ln instruction in the source's type: the host libm's logf in "
            "float32, a float16 source widened exactly and the result rounded once to float16 "
            "(nearest-even), as the basic ln (docs/isa.md). Worst error against float64 "
            "(docs/adv.md): float32 0.79 ULP, float16 0.50 ULP. +-0 gives -inf, negative "
            "numbers NaN.")
def log(dst: LocalTensor, src: LocalTensor, count: Optional[RuntimeInt] = None,
        temp_buffer: Optional[LocalTensor] = None, is_reuse_source: bool = False) -> None:
    api = "log"
    count = float_op_count(api, dst, src, count, is_reuse_source)
    if temp_buffer is not None:
        temp_buffer_of(api, temp_buffer, 0, "none: log uses no temp")
    from asc.codegen.function_visitor import inline_library
    from asc.language.adv import math_hyperbolic_ops
    inline_library(math_hyperbolic_ops.log_all, dst, src, count, src.dtype)
