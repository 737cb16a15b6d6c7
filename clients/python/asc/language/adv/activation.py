"""asc.adv's activations (asc-api.md 10.5), each emitted as Ascend C's library sequence for the
A2 vector core (docs/adv.md). Built: swiglu.

swiglu (CANN 8.1's `impl/activation/swiglu/swiglu_common_impl.h`): dst = src0 * swish(src1),
swish(x) = x / (1 + e^(-beta x)), in float. A float source needs no temp and runs as one chunk
of count rounded down to a 32-byte block, then the tail; a half source uses the temp as three
float areas per chunk (its bytes / 4 / 3, rounded down to a 32-byte block of half, at least one
block). Counter mode; per chunk [half: cast src1 to float] muls -beta, exp, adds 1, div, [half:
cast src0 to float] mul, [half: cast back], a PIPE_V barrier after each.
"""
from __future__ import annotations

from typing import Optional

from asc.codegen.builder import require_builder
from asc.language.adv._common import (IN_FLOAT, ONE_BLK_SIZE, documented, element_count,
                                      static_int, temp_buffer_of)
from asc.language.basic.common import check_ub, require_local_tensors
from asc.language.core.constexpr import ConstExpr
from asc.language.core.dtype import KnownTypes as KT
from asc.language.core.hints import RuntimeInt, RuntimeNumber
from asc.language.core.ir_value import PlainValue, cast, select, to_value
from asc.language.core.tensor import LocalTensor

__all__ = ["swiglu"]

_BLOCK_BYTES = ONE_BLK_SIZE  # a chunk is whole 32-byte blocks of the source type
_HALF_AREAS = 3  # a half source's float copies: src1, its swish, src0


def _neg_beta(api, value):
    """-beta as the library forms it: float(-1.0 * float(beta)), by the scalar unit."""
    value = ConstExpr.unwrap(value)
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return -float(value)
    if isinstance(value, PlainValue) and value.dtype.is_numeric():
        return cast(value, KT.float32) * -1.0
    raise TypeError(f"{api}(): scalar_value must be a number, got {type(value).__name__}")


@documented("Element-wise dst = src0 * src1 / (1 + e^(-scalar_value * src1)), SwiGLU.",
            "dst_tensor, src_tensor0 and src_tensor1 are UB LocalTensors, all float16 or all "
            "float32, that must not overlap; scalar_value (beta) is a number or a traced "
            "scalar, negated in float32 by the scalar unit; shared_tmp_buffer is a uint8 UB "
            "tensor (three float32 areas a chunk for float16; none for float32; the "
            "framework's scratch when None; the library checks no size); cal_count elements "
            "(all of src_tensor0 when None).",
            numerics=IN_FLOAT + "(CAST_NONE: nearest-even). Worst error against float64 on the "
            "example's inputs (docs/adv.md): float32 1.96 ULP, float16 0.50 ULP.",
            args="")
def swiglu(dst_tensor: LocalTensor, src_tensor0: LocalTensor, src_tensor1: LocalTensor,
           scalar_value: RuntimeNumber = 1.0, shared_tmp_buffer: Optional[LocalTensor] = None,
           cal_count: Optional[RuntimeInt] = None) -> None:
    api = "swiglu"
    require_builder(api)
    dst, src0, src1 = dst_tensor, src_tensor0, src_tensor1
    require_local_tensors(api, dst_tensor=dst, src_tensor0=src0, src_tensor1=src1)
    check_ub(api, dst_tensor=dst, src_tensor0=src0, src_tensor1=src1)
    if src0.dtype not in (KT.float16, KT.float32) or {dst.dtype, src1.dtype} != {src0.dtype}:
        raise TypeError(f"{api}(): dst_tensor, src_tensor0 and src_tensor1 must all be float16 "
                        f"or all float32, got {dst.dtype}, {src0.dtype} and {src1.dtype}")
    count = element_count(api, cal_count, ("src_tensor0", src0), ("src_tensor1", src1),
                          ("dst_tensor", dst))
    from_half = src0.dtype == KT.float16
    per_block = _BLOCK_BYTES // src0.dtype.sizeof()
    # The library checks no size: a temp too small for its three areas is overrun, as on the chip.
    tmp, tmp_bytes = temp_buffer_of(api, shared_tmp_buffer,
                                    _HALF_AREAS * per_block * 4 if from_half else 0,
                                    "three float areas of one block", check_user=False)
    if from_half:
        split = tmp_bytes // 4 // _HALF_AREAS // per_block * per_block
    else:
        split = count // per_block * per_block
    if static_int(split) is not None:
        split = max(split, per_block)
    else:
        split = select(to_value(split, KT.int32) > 0, split, per_block)
    from asc.codegen.function_visitor import inline_library
    from asc.language.adv import activation_ops, chunks
    inline_library(chunks.counter_chunks, activation_ops.swiglu_chunk, count, split, per_block,
                   src0.dtype, (dst, src0, src1, _neg_beta(api, scalar_value),
                                tmp.reinterpret_cast(KT.float32), from_half))
