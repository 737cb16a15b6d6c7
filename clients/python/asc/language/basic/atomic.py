"""Atomic stores into GM (asc-api.md 4.4, ascendc-semantics.md 5.12): while a mode is set, every
UB -> GM copy (data_copy, data_copy_pad) combines each element with GM (sum, max, min) in the
mode's type instead of overwriting it."""
from asc._proto import kernel_pb2
from asc.codegen.builder import require_builder
from asc.language.core.constexpr import ConstExpr
from asc.language.core.dtype import DataType, KnownTypes as KT
from asc.language.core.enums import AtomicDtype
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


def set_atomic_add(dtype) -> None:
    """Later UB -> GM copies add into GM in `dtype`."""
    _emit("set_atomic_add", _K.SET_ATOMIC, _atomic_type("set_atomic_add", dtype), _SUM)


def set_atomic_max(dtype) -> None:
    """Later UB -> GM copies keep the maximum of GM and the stored value, in `dtype`."""
    _emit("set_atomic_max", _K.SET_ATOMIC, _atomic_type("set_atomic_max", dtype), _MAX)


def set_atomic_min(dtype) -> None:
    """Later UB -> GM copies keep the minimum of GM and the stored value, in `dtype`."""
    _emit("set_atomic_min", _K.SET_ATOMIC, _atomic_type("set_atomic_min", dtype), _MIN)


def set_atomic_type(dtype) -> None:
    """Sets the atomic type and keeps the op (a sum unless set_atomic_max/min chose another)."""
    _emit("set_atomic_type", _K.SET_ATOMIC_TYPE, _atomic_type("set_atomic_type", dtype))


def set_atomic_none() -> None:
    """Stores overwrite GM again."""
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


def set_store_atomic_config(atomic_type, atomic_op) -> None:
    """The atomic state as CTRL holds it: atomic_type an AtomicDtype (ATOMIC_NONE turns atomics
    off), atomic_op 0 sum (AtomicOp.ATOMIC_SUM), 1 max, 2 min."""
    api = "set_store_atomic_config"
    _emit(api, _K.SET_ATOMIC, _config_arg(api, "atomic_type", atomic_type, 6),
          _config_arg(api, "atomic_op", atomic_op, 2))


def get_store_atomic_config():
    """(atomic type, atomic op) of the atomic state, both int16."""
    builder = require_builder("get_store_atomic_config")
    op = builder.emit("store_config")
    op.kind = _K.GET_STORE_ATOMIC_CONFIG
    kind = PlainValue(builder.new_value(), KT.int16)
    which = PlainValue(builder.new_value(), KT.int16)
    op.result, op.result2 = kind.id, which.id
    return kind, which
