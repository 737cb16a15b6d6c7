"""The DEQSCALE register (asc-api.md 4.4, ascendc-semantics.md 5.2-5.3): set_deq_scale and
VdeqInfo. The dequantising instructions read it: add_deq_relu and cast int32 -> half take its half
scale; cast_deq takes one quant word, or with the VdeqInfo form 16 of them (one per element of a
32-byte block) from the tensor set_deq_scale filled.

A quant word is the fixpipe's (ascendc-semantics.md 4.4): the float scale in bits 31..0 (the
hardware keeps bits 31..13), a 9-bit offset in bits 45..37, the sign bit 46 (1: int8 results,
0: uint8). The arithmetic is in docs/isa.md (cast_deq, add_deq_relu rows).
"""
from __future__ import annotations

import numbers
import struct
from typing import List, Sequence, overload

from asc._proto import kernel_pb2
from asc.codegen.builder import require_builder
from asc.language.core.constexpr import ConstExpr
from asc.language.core.dispatch import Overload, Param, dispatch, of_type
from asc.language.core.dtype import KnownTypes as KT
from asc.language.core.enums import HardEvent
from asc.language.core.hints import RuntimeBool, RuntimeFloat, RuntimeInt
from asc.language.core.ir_value import PlainValue, to_value
from asc.language.core.tensor import LocalTensor
from asc.language.basic.common import check_ub, runtime_int
from asc.language.basic.sync import library_sync

__all__ = ["set_deq_scale", "VdeqInfo"]

_K = kernel_pb2.StoreConfigOp
_WORDS = 16  # VdeqInfo: one word per element of a 32-byte block of int16


def _runtime_float(x) -> bool:
    """A Python float or a traced float scalar (a Python int does not match, as in pyasc)."""
    x = ConstExpr.unwrap(x)
    if isinstance(x, PlainValue):
        return x.dtype.is_float()
    return isinstance(x, float)


_runtime_float.__name__ = "RuntimeFloat"


def quant_word(scale: float, offset: int, sign_mode: bool) -> int:
    """The 64-bit DEQSCALE word of one (scale, offset, sign_mode) triple."""
    scale_bits = struct.unpack("<I", struct.pack("<f", float(scale)))[0]
    return scale_bits | ((int(offset) & 0x1FF) << 37) | (int(bool(sign_mode)) << 46)


class VdeqInfo:
    """Per-element dequantisation parameters of set_deq_scale's vector form (16 of each).

    `VdeqInfo(scale, offset, sign_mode)` (asc-api.md 4.4): 16 scales (floats), 16 offsets (ints)
    and 16 sign modes (bools), compile-time values; word e is quant_word(scale[e], offset[e],
    sign_mode[e]), used by lane e % 16 of cast_deq."""

    def __init__(self, scale: Sequence[float], offset: Sequence[int],
                 sign_mode: Sequence[bool]) -> None:
        fields = {"scale": scale, "offset": offset, "sign_mode": sign_mode}
        for name, values in fields.items():
            values = ConstExpr.unwrap(values)
            if not isinstance(values, (list, tuple)) or len(values) != _WORDS:
                raise TypeError(f"VdeqInfo(): {name} must be a list of {_WORDS} values, got "
                                f"{values!r}")
            for v in values:
                v = ConstExpr.unwrap(v)
                if not isinstance(v, numbers.Real):
                    raise TypeError(f"VdeqInfo(): {name} must hold compile-time numbers in "
                                    f"aicore-sim (the words are written by the scalar unit "
                                    f"from them); got {type(v).__name__}")
        self.scale = [float(ConstExpr.unwrap(v)) for v in ConstExpr.unwrap(scale)]
        self.offset = [int(ConstExpr.unwrap(v)) for v in ConstExpr.unwrap(offset)]
        self.sign_mode = [bool(ConstExpr.unwrap(v)) for v in ConstExpr.unwrap(sign_mode)]

    def words(self) -> List[int]:
        """The 16 64-bit quant words."""
        return [quant_word(s, o, m) for s, o, m in zip(self.scale, self.offset, self.sign_mode)]


def _emit(api, value, offset=None, sign_mode=None, vector=False):
    builder = require_builder(api)
    offset_id = to_value(offset, KT.int32).id if offset is not None else 0
    sign_id = to_value(sign_mode, KT.int32).id if sign_mode is not None else 0
    op = builder.emit("store_config")
    op.kind = _K.SET_DEQ_SCALE
    op.value = value.id
    op.deq_offset = offset_id
    op.deq_sign_mode = sign_id
    op.deq_vector = vector


@overload
def set_deq_scale(scale: RuntimeFloat) -> None: ...


@overload
def set_deq_scale(scale: RuntimeFloat, offset: RuntimeInt, sign_mode: RuntimeBool) -> None: ...


@overload
def set_deq_scale(vdeq: LocalTensor, vdeq_info: VdeqInfo) -> None: ...


def set_deq_scale(*args, **kwargs) -> None:
    """Loads the DEQSCALE register that add_deq_relu, cast int32 -> half and cast_deq read.

    `set_deq_scale(scale)` (a half scale: add_deq_relu and cast int32 -> half);
    `set_deq_scale(scale, offset, sign_mode)` (one quant word: cast_deq);
    `set_deq_scale(vdeq, vdeq_info)`: the scalar unit writes the 16 quant words of a VdeqInfo
    into vdeq (at least 16 uint64 elements), syncs S_V, and DEQSCALE points at them (cast_deq,
    lane e taking word e % 16). scale is a Python float or a traced float (a Python int does
    not match, as in pyasc).

    Numerics: the half scale is the scale rounded to float16 (nearest-even); a quant word keeps
    the float32 scale's bits 31..13 (the hardware ignores bits 12..0), the 9-bit offset and the
    sign bit (the module docstring)."""
    api = "set_deq_scale"
    require_builder(api)

    def half_form(scale):
        _emit(api, to_value(scale, KT.float16))

    def word_form(scale, offset, sign_mode):
        _emit(api, to_value(scale, KT.float32), offset, sign_mode)

    def vector_form(vdeq, vdeq_info):
        check_ub(api, vdeq=vdeq)
        words = vdeq.reinterpret_cast(KT.uint64)
        size = ConstExpr.unwrap(words._size)
        if isinstance(size, numbers.Integral) and size < _WORDS:
            raise ValueError(f"{api}(): vdeq holds {size} uint64 elements; the 16 quant words "
                             f"need 128 bytes. Fix: give vdeq at least 16 uint64 elements")
        for i, word in enumerate(vdeq_info.words()):
            words.set_value(i, to_value(word, KT.uint64))
        library_sync(HardEvent.S_V)  # the words are read by PIPE_V
        _emit(api, to_value(vdeq.get_phy_addr(), KT.uint64), vector=True)

    dispatch(api, [Overload([Param("scale", _runtime_float)], half_form),
                   Overload([Param("scale", _runtime_float), Param("offset", runtime_int),
                             Param("sign_mode", runtime_int)], word_form),
                   Overload([Param("vdeq", of_type(LocalTensor)),
                             Param("vdeq_info", of_type(VdeqInfo))], vector_form)],
             args, kwargs)
