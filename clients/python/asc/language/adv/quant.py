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
import numbers

import numpy as np

from asc.codegen.builder import require_builder
from asc.language.basic.common import check_ub, require_local_tensors
from asc.language.core.constexpr import ConstExpr
from asc.language.core.dtype import KnownTypes as KT
from asc.language.core.enums import TPosition
from asc.language.core.ir_value import PlainValue, cast, is_runtime_int, to_value
from asc.language.core.tensor import LocalTensor

__all__ = ["quant", "QuantConfig"]

_SPLIT_ELEMENTS = 32      # a chunk is a multiple of 32 half elements (the library's ONE_BLK_SIZE)
_MIN_SCRATCH = _SPLIT_ELEMENTS * 2  # bytes for the smallest chunk


class QuantConfig:
    """`asc.adv.QuantConfig(calc_count=0, offset_count=0, scale_count=0, work_local_size=0)`:
    compile-time. With calc_count and work_local_size both set, the element count and the
    chunk's bytes are these constants instead of the call's count and the temp buffer's size.
    scale_count and offset_count belong to the per-channel forms (not in pyasc's quant)."""

    _FIELDS = ("calc_count", "offset_count", "scale_count", "work_local_size")

    def __init__(self, calc_count=0, offset_count=0, scale_count=0, work_local_size=0):
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


def _static(value):
    value = ConstExpr.unwrap(value)
    return value if isinstance(value, numbers.Integral) and not isinstance(value, bool) else None


def _scratch(api, needed):
    """The UB above the TPipe's buffers as a uint8 tensor (Ascend C's PopStackBuffer)."""
    from asc._proto import kernel_pb2
    from asc.language.fwk.state import emit_framework
    addr, nbytes = emit_framework(api, kernel_pb2.FrameworkOp.STACK_BUFFER,
                                  operands=[(needed, KT.uint32)], results=(KT.uint32, KT.uint32))
    return LocalTensor._from_buffer(KT.uint8, TPosition.VECCALC, addr, nbytes), nbytes


def quant(dst, src, scale, offset, count=None, temp_buffer=None, reuse_source=False,
          config=None):
    """dst[i] = int8(round_half_even(src[i] * scale + offset)) for the first `count` elements
    (all of src when None), computed in half precision (module docstring)."""
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
    count = ConstExpr.unwrap(count)
    if count is None:
        count = src._size if isinstance(src._size, numbers.Integral) else src.get_size()
    elif not is_runtime_int(count):
        raise TypeError(f"{api}(): count must be an int, got {type(count).__name__}")
    fixed = config.work_local_size != 0 and config.calc_count != 0
    for name, value in (("count", count), ("config.calc_count", config.calc_count)):
        if _static(value) is not None and _static(src._size) is not None and value > src._size:
            raise ValueError(f"{api}(): {name} is {value}, more than src's {src._size} elements")
    if temp_buffer is None:
        temp_buffer, tmp_bytes = _scratch(api, config.work_local_size if fixed else _MIN_SCRATCH)
    else:
        require_local_tensors(api, temp_buffer=temp_buffer)
        check_ub(api, temp_buffer=temp_buffer)
        if temp_buffer.dtype != KT.uint8:
            raise TypeError(f"{api}(): temp_buffer must be uint8, got {temp_buffer.dtype}")
        tmp_bytes = temp_buffer._size if _static(temp_buffer._size) is not None \
            else temp_buffer.get_size()
    if fixed:
        if _static(tmp_bytes) is not None and config.work_local_size > tmp_bytes:
            raise ValueError(f"{api}(): config.work_local_size is {config.work_local_size} "
                             f"bytes, more than temp_buffer's {tmp_bytes}")
        split = config.work_local_size // 2 // _SPLIT_ELEMENTS * _SPLIT_ELEMENTS
        count = config.calc_count
    else:
        split = tmp_bytes // 2 // _SPLIT_ELEMENTS * _SPLIT_ELEMENTS
    if _static(split) is not None and split == 0:
        raise ValueError(f"{api}(): the temp buffer holds {tmp_bytes} bytes; the library needs "
                         f"at least {_MIN_SCRATCH} (one chunk of {_SPLIT_ELEMENTS} halves)")
    scale_h = _scalar_half(api, "scale", scale)
    offset_h = _scalar_half(api, "offset", offset)
    from asc.codegen.function_visitor import inline_library
    from asc.language.adv import quant_ops
    inline_library(quant_ops.quant_chunks, dst, src, temp_buffer.reinterpret_cast(KT.float16),
                   scale_h, offset_h, count, split, src.dtype == KT.float32)
