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
from asc.language.adv._common import (ONE_BLK_SIZE, float_op_args, float_op_count,
                                        temp_buffer_of)
from asc.language.core.dtype import KnownTypes as KT

__all__ = ["sinh", "cosh", "asinh", "acosh", "atanh", "log", "erf", "erfc"]

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


def sinh(dst, src, count=None, temp_buffer=None, is_reuse_source=False):
    """dst = e^(x - ln2) - e^(-x - ln2) for the first `count` elements (all of src when None),
    in float. Ascend C does not allow dst, src and the temp to overlap."""
    _run("sinh", dst, src, count, temp_buffer, is_reuse_source)


def cosh(dst, src, count=None, temp_buffer=None, is_reuse_source=False):
    """dst = e^(x - ln2) + 0.25 / e^(x - ln2), in float. Ascend C does not allow dst, src and
    the temp to overlap."""
    _run("cosh", dst, src, count, temp_buffer, is_reuse_source)


def asinh(dst, src, count=None, temp_buffer=None, is_reuse_source=False):
    """dst = sign(x) * ln(|x| + sqrt(x^2 + 1)), in float. dst may be src."""
    _run("asinh", dst, src, count, temp_buffer, is_reuse_source)


def acosh(dst, src, count=None, temp_buffer=None, is_reuse_source=False):
    """dst = ln(x + sqrt(x^2 - 1)), in float; NaN below 1 and at inf. dst may be src."""
    _run("acosh", dst, src, count, temp_buffer, is_reuse_source)


def atanh(dst, src, count=None, temp_buffer=None, is_reuse_source=False):
    """dst = 0.5 * ln((1 + x) / (1 - x)), in float. dst may be src."""
    _run("atanh", dst, src, count, temp_buffer, is_reuse_source)


def erf(dst, src, count=None, temp_buffer=None, is_reuse_source=False):
    """dst = P(x) / Q(x) of x clipped to [-3.92, 3.92] (a rational approximation), in float.
    Ascend C does not allow dst, src and the temp to overlap."""
    _run("erf", dst, src, count, temp_buffer, is_reuse_source)


def erfc(dst, src, count=None, temp_buffer=None, is_reuse_source=False):
    """dst = erfc(x) from e^(-z^2) * R(z) / S(z), z = |x| clipped to 10, reflected for x < 0,
    in float. Ascend C does not allow dst, src and the temp to overlap."""
    _run("erfc", dst, src, count, temp_buffer, is_reuse_source)


def log(dst, src, count=None, temp_buffer=None, is_reuse_source=False):
    """dst = ln(src) by one ln instruction, in the source's type. temp_buffer is accepted and
    unused, as Ascend C's Log takes none. dst may be src."""
    api = "log"
    count = float_op_count(api, dst, src, count, is_reuse_source)
    if temp_buffer is not None:
        temp_buffer_of(api, temp_buffer, 0, "none: log uses no temp")
    from asc.codegen.function_visitor import inline_library
    from asc.language.adv import math_hyperbolic_ops
    inline_library(math_hyperbolic_ops.log_all, dst, src, count, src.dtype)
