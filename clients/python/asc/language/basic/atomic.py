"""Atomic stores into GM (asc-api.md 4.4, ascendc-semantics.md 5.12): while a mode is set, every
UB -> GM copy (data_copy, data_copy_pad) combines each element with GM (sum, max, min) in the
mode's type instead of overwriting it."""
from __future__ import annotations

from typing import Tuple, Union

from asc._proto import kernel_pb2
from asc.codegen.builder import require_builder
from asc.language.core.constexpr import ConstExpr
from asc.language.core.dtype import DataType, KnownTypes as KT
from asc.language.core.enums import AtomicDtype, AtomicOp
from asc.language.core.hints import RuntimeInt
from asc.language.core.ir_value import PlainValue, is_runtime_int, to_value

__all__ = ["set_atomic_add", "set_atomic_max", "set_atomic_min", "set_atomic_type",
           "set_atomic_none", "set_store_atomic_config", "get_store_atomic_config"]

_K = kernel_pb2.StoreConfigOp
_SUM, _MAX, _MIN = 0, 1, 2  # CTRL bits 4..3

# Element types an atomic mode accepts, as their AtomicDtype (pyasc has no bfloat16).
_TYPES = {KT.float32: AtomicDtype.ATOMIC_F32, KT.float16: AtomicDtype.ATOMIC_F16,
          KT.int16: AtomicDtype.ATOMIC_S16, KT.int32: AtomicDtype.ATOMIC_S32,
          KT.int8: AtomicDtype.ATOMIC_S8}


def _atomic_type(api, dtype):
    if not isinstance(dtype, DataType) or dtype not in _TYPES:
        allowed = ", ".join(d.name for d in _TYPES)
        raise TypeError(f"{api}(): dtype must be one of {allowed}, got {dtype!r}")
    return int(_TYPES[dtype])


def _emit(api, kind, atomic_type, atomic_op=None):
    builder = require_builder(api)
    type_id = to_value(atomic_type, KT.int32).id
    op_id = to_value(atomic_op, KT.int32).id if atomic_op is not None else 0
    op = builder.emit("store_config")
    op.kind = kind
    op.atomic_type = type_id
    op.atomic_op = op_id


# How an atomic store combines with GM: the Numerics paragraph of every API that sets a mode.
_NUMERICS = """

    Numerics: a float sum is the exact sum rounded once to the element type, nearest-even (the
    chip's adder); an integer sum wraps; max and min are exact (a NaN gives NaN). Stores within
    one pipe may combine in any order on the chip: float sums are deterministic only with a
    barrier between atomic stores (ascendc-semantics.md 5.12)."""


def set_atomic_add(dtype: DataType) -> None:
    """Makes later stores into GM add into what is there, in `dtype`.

    Every later UB -> GM copy (data_copy, data_copy_pad) and L0C -> GM fixpipe, until
    set_atomic_none; dtype is float32, float16, int16, int32 or int8."""
    _emit("set_atomic_add", _K.SET_ATOMIC, _atomic_type("set_atomic_add", dtype), _SUM)


def set_atomic_max(dtype: DataType) -> None:
    """Makes later stores into GM keep the maximum of GM and the stored value, in `dtype`.

    As set_atomic_add, with max."""
    _emit("set_atomic_max", _K.SET_ATOMIC, _atomic_type("set_atomic_max", dtype), _MAX)


def set_atomic_min(dtype: DataType) -> None:
    """Makes later stores into GM keep the minimum of GM and the stored value, in `dtype`.

    As set_atomic_add, with min."""
    _emit("set_atomic_min", _K.SET_ATOMIC, _atomic_type("set_atomic_min", dtype), _MIN)


def set_atomic_type(dtype: DataType) -> None:
    """Sets the atomic type and keeps the op (a sum unless set_atomic_max/min chose another).

    As set_atomic_add for the type."""
    _emit("set_atomic_type", _K.SET_ATOMIC_TYPE, _atomic_type("set_atomic_type", dtype))


def set_atomic_none() -> None:
    """Makes later stores overwrite GM again (atomics off)."""
    _emit("set_atomic_none", _K.SET_ATOMIC, int(AtomicDtype.ATOMIC_NONE), _SUM)


def _config_arg(api, name, value, limit):
    value = ConstExpr.unwrap(value)
    if isinstance(value, PlainValue):
        if not value.dtype.is_int():
            raise TypeError(f"{api}(): {name} must be an integer, got a {value.dtype.name} value")
        return value
    if isinstance(value, bool) or not is_runtime_int(value) or not 0 <= int(value) <= limit:
        raise TypeError(f"{api}(): {name} must be 0..{limit}, got {value!r}")
    return int(value)


def set_store_atomic_config(atomic_type: Union[AtomicDtype, RuntimeInt],
                            atomic_op: Union[AtomicOp, RuntimeInt]) -> None:
    """Sets the atomic state as CTRL holds it: the atomic type and the combining op.

    atomic_type is an AtomicDtype (ATOMIC_NONE turns atomics off) or an integer 0..6,
    atomic_op 0 sum (AtomicOp.ATOMIC_SUM), 1 max, 2 min (asc-api.md 4.4)."""
    api = "set_store_atomic_config"
    _emit(api, _K.SET_ATOMIC, _config_arg(api, "atomic_type", atomic_type, 6),
          _config_arg(api, "atomic_op", atomic_op, 2))


def get_store_atomic_config() -> Tuple[PlainValue, PlainValue]:
    """The atomic state: (atomic type, atomic op), both traced int16.

    The type is an AtomicDtype value (0: none), the op 0 sum, 1 max, 2 min."""
    builder = require_builder("get_store_atomic_config")
    op = builder.emit("store_config")
    op.kind = _K.GET_STORE_ATOMIC_CONFIG
    kind = PlainValue(builder.new_value(), KT.int16)
    which = PlainValue(builder.new_value(), KT.int16)
    op.result, op.result2 = kind.id, which.id
    return kind, which


for _api in (set_atomic_add, set_atomic_max, set_atomic_min, set_atomic_type,
             set_store_atomic_config):
    if _api.__doc__ is not None:  # python -OO drops docstrings
        _api.__doc__ += _NUMERICS
