"""asc.adv.quant and QuantConfig (asc-api.md 6.5): per-tensor quantisation to int8,
dst = int8(round(src * scale + offset)), emitted as Ascend C's library sequence for the A2 vector
core (CANN 8.1's AscendQuant for __CCE_AICORE__ 220; docs/adv.md "quant"):

- counter mode; scale and offset are converted to half by the scalar unit;
- the work is cut into chunks of the temp buffer seen as half (its bytes / 2, down to a multiple
  of 32 elements; QuantConfig's work_local_size instead when it and calc_count are set);
- per chunk: [float source: Cast f32 -> f16 into the temp], Muls by scale into the temp, Adds
  offset, Cast f16 -> int8 into dst (CAST_NONE: nearest, ties to even, saturating), a PIPE_V
  barrier after each; the full chunks under one mask, the tail under its own;
- then normal mask mode and the full mask again.

So the arithmetic is half precision for a float source too, as on the chip. Without a temp
buffer the library's scratch is the UB the TPipe has not handed out (Ascend C's
PopStackBuffer); too little is a kernel fault at the call naming the bytes needed.
"""
from __future__ import annotations

import numbers
from typing import Optional

import numpy as np

from asc.codegen.builder import require_builder
from asc.language.adv._common import (ONE_BLK_SIZE, documented, element_count, static_int,
                                      temp_buffer_of)
from asc.language.basic.common import check_ub, require_local_tensors
from asc.language.core.constexpr import ConstExpr
from asc.language.core.dtype import KnownTypes as KT
from asc.language.core.hints import RuntimeInt, RuntimeNumber
from asc.language.core.ir_value import PlainValue, cast, to_value
from asc.language.core.tensor import LocalTensor

__all__ = ["quant", "QuantConfig"]

_SPLIT_ELEMENTS = ONE_BLK_SIZE  # a chunk is a multiple of 32 half elements
_MIN_SCRATCH = _SPLIT_ELEMENTS * 2  # bytes for the smallest chunk


class QuantConfig:
    """The compile-time configuration of asc.adv.quant (Ascend C's AscendQuantConfig).

    `asc.adv.QuantConfig(calc_count=0, offset_count=0, scale_count=0, work_local_size=0)`
    (asc-api.md 6.5), each a compile-time int >= 0. With calc_count and work_local_size both
    set, the element count and the chunk's bytes are these constants instead of the call's count
    and the temp buffer's size. scale_count and offset_count belong to the per-channel forms
    (not in pyasc's quant)."""

    _FIELDS = ("calc_count", "offset_count", "scale_count", "work_local_size")

    def __init__(self, calc_count: int = 0, offset_count: int = 0, scale_count: int = 0,
                 work_local_size: int = 0) -> None:
        for name, value in zip(self._FIELDS, (calc_count, offset_count, scale_count,
                                              work_local_size)):
            value = ConstExpr.unwrap(value)
            if not isinstance(value, numbers.Integral) or isinstance(value, bool) or value < 0:
                raise TypeError(f"QuantConfig(): {name} must be a compile-time int >= 0, got "
                                f"{value!r}")
            setattr(self, name, int(value))

    def __repr__(self):
        return "QuantConfig(" + ", ".join(f"{n}={getattr(self, n)}" for n in self._FIELDS) + ")"


def _scalar_half(api, name, value):
    """The library's static_cast<half>(float): the float argument, converted by the scalar
    unit."""
    value = ConstExpr.unwrap(value)
    if isinstance(value, numbers.Real) and not isinstance(value, bool):
        value = to_value(float(np.float32(value)), KT.float32, api)
    elif not (isinstance(value, PlainValue) and value.dtype.is_numeric()):
        raise TypeError(f"{api}(): {name} must be a number, got {type(value).__name__}")
    return cast(cast(value, KT.float32), KT.float16)


@documented("Element-wise dst = int8(src * scale + offset), per-tensor quantisation.",
            "dst is an int8 UB tensor, src float16 or float32; scale and offset are numbers or "
            "traced scalars; count elements (all of src when None, config.calc_count when "
            "config sets it with work_local_size); temp_buffer a uint8 UB tensor of at least 64 "
            "bytes (the framework's scratch when None); reuse_source a compile-time bool without "
            "effect; config an asc.adv.QuantConfig (asc-api.md 6.5).",
            numerics="computed in float16, as the library does for both source types: scale "
            "and offset are converted to float16 by the scalar unit (nearest-even), a float32 "
            "source is cast to float16 (CAST_NONE, nearest-even), muls and adds each round to "
            "float16 nearest-even, and the cast to int8 rounds to nearest-even and saturates at "
            "-128 and 127 (CAST_NONE). So a float32 2.5004 becomes half 2.5 and rounds to 2. "
            "Against float64 round(src * scale + offset) the error is at most 1 (docs/adv.md).",
            args="")
def quant(dst: LocalTensor, src: LocalTensor, scale: RuntimeNumber, offset: RuntimeNumber,
          count: Optional[RuntimeInt] = None, temp_buffer: Optional[LocalTensor] = None,
          reuse_source: bool = False, config: Optional[QuantConfig] = None) -> None:
    api = "quant"
    require_builder(api)
    require_local_tensors(api, dst=dst, src=src)
    check_ub(api, dst=dst, src=src)
    if dst.dtype != KT.int8:
        raise TypeError(f"{api}(): dst must be int8, got {dst.dtype}")
    if src.dtype not in (KT.float16, KT.float32):
        raise TypeError(f"{api}(): src must be float16 or float32, got {src.dtype}")
    reuse_source = ConstExpr.unwrap(reuse_source)
    if not isinstance(reuse_source, bool):
        raise TypeError(f"{api}(): reuse_source must be a compile-time bool, got "
                        f"{reuse_source!r}")
    config = ConstExpr.unwrap(config)
    if config is None:
        config = QuantConfig()
    if not isinstance(config, QuantConfig):
        raise TypeError(f"{api}(): config must be an asc.adv.QuantConfig, got "
                        f"{type(config).__name__}")
    count = element_count(api, count, ("src", src))
    fixed = config.work_local_size != 0 and config.calc_count != 0
    if fixed:
        element_count(api, config.calc_count, ("src", src))
    needed = config.work_local_size if fixed else _MIN_SCRATCH
    temp_buffer, tmp_bytes = temp_buffer_of(
        api, temp_buffer, needed,
        "config.work_local_size" if fixed else f"one chunk of {_SPLIT_ELEMENTS} halves")
    if fixed:
        split = config.work_local_size // 2 // _SPLIT_ELEMENTS * _SPLIT_ELEMENTS
        count = config.calc_count
    else:
        split = tmp_bytes // 2 // _SPLIT_ELEMENTS * _SPLIT_ELEMENTS
    if static_int(split) == 0:
        raise ValueError(f"{api}(): config.work_local_size {config.work_local_size} holds no "
                         f"chunk of {_SPLIT_ELEMENTS} halves")
    scale_h = _scalar_half(api, "scale", scale)
    offset_h = _scalar_half(api, "offset", offset)
    from asc.codegen.function_visitor import inline_library
    from asc.language.adv import chunks, quant_ops
    inline_library(chunks.counter_chunks, quant_ops.quant_chunk, count, split, 0,
                   KT.float16, (dst, src, temp_buffer.reinterpret_cast(KT.float16), scale_h,
                                offset_h, src.dtype == KT.float32))
