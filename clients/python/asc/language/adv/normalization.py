"""asc.adv's normalizations (asc-api.md 6.7, 10.5), emitted as Ascend C's library sequence for
the A2 vector core (docs/adv.md). Built: rmsnorm.

rmsnorm (CANN 8.1's `impl/normalization/rmsnorm/rmsnorm_common_impl.h` and `rmsnorm_v220_impl.h`):
the tiling's fields decide rows, lengths and strides, as traced values (the loops and branches run
on the scalar unit). Counter mode; loop_round groups of main_bs_length rows of h_length elements,
then tail_bs_length rows at input_tail_pos. The temp as float: main_bs_length_align row results,
then main_bsh_length for x^2 and the products, and for half main_bsh_length more for the float
copies of src and gamma. Per group: [half: cast], mul x*x, row sums (generic: vcadd levels over
original_h_length per row; basic block: adds of 64-float blocks, one vcadd per row), muls
reciprocal_of_h_length, adds epsilon (converted to the source type first), ln, muls -0.5, exp
(rsqrt), x times it per row (muls by each row's value read by the scalar unit after V_S; basic
block with more than 8 rows and more rows than 64-float blocks: brcb + adds 0 + mul), times gamma
(mul forms by h_length), [half: cast gamma before it, cast back after], a PIPE_V barrier after each
step. The host's rules (H 32-byte aligned, original H not above it; basic block: H a multiple of 64
below 2048, b * s a multiple of 8; a temp of the areas above) are checked at trace time when the
fields are constants (a tiling built in the kernel from numbers); a tiling read from GM is trusted,
as the library trusts it.
"""
from __future__ import annotations

import numbers
from typing import Optional

import numpy as np

from asc.codegen.builder import require_builder
from asc.language.adv._common import IN_FLOAT, documented, temp_buffer_of
from asc.language.adv.tiling import RmsNormTiling
from asc.language.basic.common import check_ub, require_local_tensors
from asc.language.core.constexpr import ConstExpr
from asc.language.core.dtype import KnownTypes as KT
from asc.language.core.hints import RuntimeNumber
from asc.language.core.ir_value import PlainValue, cast
from asc.language.core.tensor import LocalTensor

__all__ = ["rmsnorm"]

_FLOAT_BYTES = 4
_BASIC_BLOCK_H = 64
_BASIC_BLOCK_ROWS = 8
_BASIC_BLOCK_MAX_H = 2048


def _known(value):
    """`value` as a Python number when the trace knows it: a number, or a traced constant (the
    field of a tiling built in the kernel from numbers); else None."""
    if isinstance(value, numbers.Number):
        return value
    builder = require_builder("rmsnorm")
    return next((number for (_, number), value_id in builder._const_cache.items()
                 if value_id == value.id), None)


def _check_tiling(api, tiling, dtype, basic_block):
    """The host tiling's shape rules, for the fields known at trace time."""
    b, s, h, original_h = (_known(getattr(tiling, f)) for f in
                           ("b_length", "s_length", "h_length", "original_h_length"))
    if h is not None and h * dtype.sizeof() % 32:
        raise ValueError(f"{api}(): tiling.h_length is {h}: a row must be whole 32-byte blocks "
                         f"({32 // dtype.sizeof()} {dtype} values); pad H")
    if h is not None and original_h is not None and not 0 < original_h <= h:
        raise ValueError(f"{api}(): tiling.original_h_length is {original_h}: it must be in 1.."
                         f"h_length ({h})")
    if basic_block and h is not None and (h % _BASIC_BLOCK_H or h >= _BASIC_BLOCK_MAX_H):
        raise ValueError(f"{api}(): basic_block needs h_length a multiple of {_BASIC_BLOCK_H} "
                         f"below {_BASIC_BLOCK_MAX_H}, got {h}; pass basic_block=False")
    if basic_block and b is not None and s is not None and b * s % _BASIC_BLOCK_ROWS:
        raise ValueError(f"{api}(): basic_block needs b_length * s_length a multiple of "
                         f"{_BASIC_BLOCK_ROWS}, got {b * s}; pass basic_block=False")


def _epsilon(api, value, dtype):
    """epsilon as the library receives it (a value of the source type), as a float: a Python
    number rounded at compile time, a traced one converted by the scalar unit."""
    value = ConstExpr.unwrap(value)
    if isinstance(value, numbers.Real) and not isinstance(value, bool):
        return float(np.float16(value)) if dtype == KT.float16 else float(np.float32(value))
    if isinstance(value, PlainValue) and value.dtype.is_numeric():
        return cast(cast(value, dtype), KT.float32)
    raise TypeError(f"{api}(): epsilon must be a number, got {type(value).__name__}")


@documented("Per row dst = src / sqrt(mean(src^2) + epsilon) * gamma, RMS normalisation.",
            "dst, src and gamma are UB LocalTensors, all float16 or all float32; dst may be src "
            "but not gamma. epsilon is a number or traced scalar (of the source type: rounded "
            "to float16 first for float16). tiling is an asc.adv.RmsNormTiling of the kernel: "
            "its rows and lengths are traced values, so the loops run on the scalar unit. "
            "temp_buffer is a uint8 UB tensor of (main_bs_length_align + main_bsh_length) * 4 "
            "bytes for float32, (main_bs_length_align + 2 * main_bsh_length) * 4 for float16 "
            "(the framework's scratch when None); basic_block is a compile-time bool.",
            numerics=IN_FLOAT + "(CAST_NONE: nearest-even); the row sums are vcadd trees, the "
            "rsqrt is exp(-0.5 ln m). Worst error against float64 (docs/adv.md): float32 2.8 "
            "ULP near mean square 1, up to 9 ULP as it moves away; float16 0.50 ULP (0.82 near "
            "0.01, where epsilon's rounding to half shows).",
            args="")
def rmsnorm(dst: LocalTensor, src: LocalTensor, gamma: LocalTensor, epsilon: RuntimeNumber,
            tiling: RmsNormTiling, temp_buffer: Optional[LocalTensor] = None,
            basic_block: bool = False) -> None:
    api = "rmsnorm"
    require_builder(api)
    require_local_tensors(api, dst=dst, src=src, gamma=gamma)
    check_ub(api, dst=dst, src=src, gamma=gamma)
    if src.dtype not in (KT.float16, KT.float32) or {dst.dtype, gamma.dtype} != {src.dtype}:
        raise TypeError(f"{api}(): dst, src and gamma must all be float16 or all float32, got "
                        f"{dst.dtype}, {src.dtype} and {gamma.dtype}")
    if dst is gamma:
        raise ValueError(f"{api}(): dst must not be gamma (the library reads gamma after "
                         "writing dst); give dst its own tensor")
    if not isinstance(tiling, RmsNormTiling) or not tiling._device:
        raise TypeError(f"{api}(): tiling must be an asc.adv.RmsNormTiling built in the kernel "
                        f"or passed to it, got {type(tiling).__name__}")
    basic_block = ConstExpr.unwrap(basic_block)
    if not isinstance(basic_block, bool):
        raise TypeError(f"{api}(): basic_block must be a compile-time bool, got "
                        f"{type(basic_block).__name__}")
    from_half = src.dtype == KT.float16
    eps = _epsilon(api, epsilon, src.dtype)
    areas = 2 if from_half else 1
    _check_tiling(api, tiling, src.dtype, basic_block)
    align, bsh = _known(tiling.main_bs_length_align), _known(tiling.main_bsh_length)
    if align is not None and bsh is not None:
        tmp, _ = temp_buffer_of(api, temp_buffer, (align + areas * bsh) * _FLOAT_BYTES,
                                f"{align} row results and {areas} x {bsh} floats")
    else:
        needed = (tiling.main_bs_length_align + areas * tiling.main_bsh_length) * _FLOAT_BYTES
        tmp, _ = temp_buffer_of(api, temp_buffer, needed, "", check_user=False)
    from asc.codegen.function_visitor import inline_library
    from asc.language.adv import normalization_ops
    inline_library(normalization_ops.rmsnorm_library, dst, src, gamma, eps, tiling,
                   tmp.reinterpret_cast(KT.float32), from_half, basic_block)
