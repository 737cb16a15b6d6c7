"""The vector mask register and its mode (asc-api.md 4.4, ascendc-semantics.md 6.1): scalar-unit
writes that every later vector instruction of the core sees."""
from __future__ import annotations

from typing import overload

from asc.codegen.builder import require_builder
from asc.language.core.dispatch import Overload, Param, dispatch
from asc.language.core.dtype import DataType, KnownTypes as KT
from asc.language.core.enums import MaskMode
from asc.language.core.hints import RuntimeInt
from asc.language.core.ir_value import to_value
from asc._proto import kernel_pb2
from asc.language.basic.common import runtime_int

__all__ = ["set_vector_mask", "reset_mask", "set_mask_count", "set_mask_norm"]

_K = kernel_pb2.VecMaskOp


def _emit(api, kind):
    ir = require_builder(api).emit("vec_mask")
    ir.kind = kind
    return ir


@overload
def set_vector_mask(length: RuntimeInt, *, dtype: DataType = ...,
                    mode: MaskMode = ...) -> None: ...


@overload
def set_vector_mask(mask_high: RuntimeInt, mask_low: RuntimeInt, *, dtype: DataType = ...,
                    mode: MaskMode = ...) -> None: ...


def set_vector_mask(*args, dtype: DataType = KT.float16,
                    mode: MaskMode = MaskMode.NORMAL) -> None:
    """Loads the vector mask register: a length of `dtype` elements, or two 64-bit words.

    `set_vector_mask(length, *, dtype, mode)` loads the first `length` elements of `dtype` (in
    counter mode: the element count; ascendc-semantics.md 6.1); `set_vector_mask(mask_high,
    mask_low, *, dtype, mode)` loads the two 64-bit words. `mode` says how the value is meant;
    the register's mode is changed only by set_mask_count / set_mask_norm, as on the chip. The
    mask/repeat forms of the vector instructions use it with is_set_mask=False."""
    api = "set_vector_mask"
    require_builder(api)
    if not isinstance(dtype, DataType):
        raise TypeError(f"{api}(): dtype must be an asc dtype (asc.float16 ...), got "
                        f"{type(dtype).__name__}")
    if not isinstance(mode, MaskMode) and mode not in (0, 1):
        raise TypeError(f"{api}(): mode must be an asc.MaskMode, got {mode!r}")

    # Operands are traced (and their conversions emitted) before the op that uses them.
    def length_form(length):
        length_id = to_value(length, KT.int64).id
        ir = _emit(api, _K.SET_MASK_LENGTH)
        ir.length = length_id
        ir.dtype = dtype.to_ir()

    def words_form(mask_high, mask_low):
        hi_id, lo_id = to_value(mask_high, KT.uint64).id, to_value(mask_low, KT.uint64).id
        ir = _emit(api, _K.SET_MASK)
        ir.mask_hi, ir.mask_lo = hi_id, lo_id

    dispatch(api, [Overload([Param("length", runtime_int)], length_form),
                   Overload([Param("mask_high", runtime_int), Param("mask_low", runtime_int)],
                            words_form)], args, {})


def reset_mask() -> None:
    """Turns every bit of the mask register on."""
    _emit("reset_mask", _K.RESET_MASK)


def set_mask_count() -> None:
    """Selects counter mode: the mask's low word is the element count of each instruction.

    The instruction then runs ceil(count / lanes) iterations, the last one partial, and its
    repeat_times is ignored (except copy's, where the count applies per iteration)."""
    _emit("set_mask_count", _K.SET_MASK_COUNT)


def set_mask_norm() -> None:
    """Selects normal mode (the default): the mask's bits enable lanes of every iteration."""
    _emit("set_mask_norm", _K.SET_MASK_NORM)
