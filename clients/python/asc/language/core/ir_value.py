"""Traced scalars (pyasc's `PlainValue`) and the conversions every API uses for its arguments.

Arithmetic follows asc-api.md 1.4: the result takes the dtype of the traced operand (the left one
when both are traced), the other operand is converted to it, integer division and remainder
truncate toward zero, comparisons give a 1-bit value.
"""
from __future__ import annotations

import numbers
from typing import Optional, Union

from asc._proto import kernel_pb2
from asc.codegen.builder import require_builder
from asc.language.core.dtype import DataType, KnownTypes

_SB = kernel_pb2.ScalarBinaryOp
_SU = kernel_pb2.ScalarUnaryOp

_INT_ONLY = {_SB.MOD, _SB.AND, _SB.OR, _SB.XOR, _SB.SHL, _SB.SHR}
_COMPARISONS = {_SB.EQ, _SB.NE, _SB.LT, _SB.LE, _SB.GT, _SB.GE}
_OP_SYMBOL = {_SB.ADD: "+", _SB.SUB: "-", _SB.MUL: "*", _SB.DIV: "/", _SB.MOD: "%",
              _SB.AND: "&", _SB.OR: "|", _SB.XOR: "^", _SB.SHL: "<<", _SB.SHR: ">>"}


class PlainValue:
    """A scalar computed at run time on the core's scalar unit: an SSA id plus its dtype."""

    __slots__ = ("id", "dtype")

    def __init__(self, value_id: int, dtype: DataType):
        self.id = value_id
        self.dtype = dtype

    def __repr__(self):
        return f"PlainValue(%{self.id}: {self.dtype.name})"

    __hash__ = object.__hash__

    def __bool__(self):
        # pyasc: truthiness of a traced value in Python code is always true; only an `if`
        # statement of the traced body turns it into a runtime branch.
        return True

    # ---- arithmetic ---------------------------------------------------------------------------
    def __add__(self, o): return _binary(self, o, _SB.ADD)
    def __radd__(self, o): return _binary(o, self, _SB.ADD)
    def __sub__(self, o): return _binary(self, o, _SB.SUB)
    def __rsub__(self, o): return _binary(o, self, _SB.SUB)
    def __mul__(self, o): return _binary(self, o, _SB.MUL)
    def __rmul__(self, o): return _binary(o, self, _SB.MUL)
    def __truediv__(self, o): return _binary(self, o, _SB.DIV)
    def __rtruediv__(self, o): return _binary(o, self, _SB.DIV)
    def __floordiv__(self, o): return _binary(self, o, _SB.DIV)
    def __rfloordiv__(self, o): return _binary(o, self, _SB.DIV)
    def __mod__(self, o): return _binary(self, o, _SB.MOD)
    def __rmod__(self, o): return _binary(o, self, _SB.MOD)
    def __and__(self, o): return _binary(self, o, _SB.AND)
    def __rand__(self, o): return _binary(o, self, _SB.AND)
    def __or__(self, o): return _binary(self, o, _SB.OR)
    def __ror__(self, o): return _binary(o, self, _SB.OR)
    def __xor__(self, o): return _binary(self, o, _SB.XOR)
    def __rxor__(self, o): return _binary(o, self, _SB.XOR)
    def __lshift__(self, o): return _binary(self, o, _SB.SHL)
    def __rlshift__(self, o): return _binary(o, self, _SB.SHL)
    def __rshift__(self, o): return _binary(self, o, _SB.SHR)
    def __rrshift__(self, o): return _binary(o, self, _SB.SHR)

    def __pow__(self, o):
        raise NotImplementedError("'**' is not supported on traced values")

    __rpow__ = __pow__

    def __invert__(self):
        raise NotImplementedError("'~' is not supported on traced values")

    def __neg__(self):
        return _unary(self, _SU.NEG, self.dtype)

    def __pos__(self):
        return self

    # ---- comparisons (1-bit results) ----------------------------------------------------------
    def __eq__(self, o): return _binary(self, o, _SB.EQ)
    def __ne__(self, o): return _binary(self, o, _SB.NE)
    def __lt__(self, o): return _binary(self, o, _SB.LT)
    def __le__(self, o): return _binary(self, o, _SB.LE)
    def __gt__(self, o): return _binary(self, o, _SB.GT)
    def __ge__(self, o): return _binary(self, o, _SB.GE)

    # ---- helpers of the pyasc API -------------------------------------------------------------
    def ceildiv(self, divisor):
        if self.dtype.is_float():
            raise TypeError("ceildiv() requires an integer value")
        return (self + divisor - 1) // divisor

    def cast(self, dtype: DataType) -> "PlainValue":
        return cast(self, dtype)

    def logical_not(self) -> "PlainValue":
        return _binary(self, 0, _SB.EQ)


def is_traced_scalar(x) -> bool:
    return isinstance(x, PlainValue)


def is_runtime_int(x) -> bool:
    """Python int/bool or a traced scalar (of any dtype), as pyasc's RuntimeInt."""
    return isinstance(x, (bool, numbers.Integral, PlainValue))


def is_runtime_number(x) -> bool:
    return isinstance(x, (bool, numbers.Number, PlainValue))


def python_dtype(x) -> DataType:
    """Dtype a Python scalar takes when it becomes a traced value (1.3 sub-kernel rule)."""
    if isinstance(x, bool):
        return KnownTypes.int1
    if isinstance(x, numbers.Integral):
        return KnownTypes.int32
    if isinstance(x, numbers.Real):
        return KnownTypes.float32
    raise TypeError(f"cannot convert {type(x).__name__} to a traced scalar")


def const(value, dtype: DataType, api: str = "constant") -> PlainValue:
    """A traced constant of `dtype`; Python floats are truncated for integer dtypes."""
    builder = require_builder(api)
    if dtype.is_float():
        return PlainValue(builder.const_id(float(value), dtype.to_ir(), True), dtype)
    if isinstance(value, float):
        if value != value or value in (float("inf"), float("-inf")):
            raise ValueError(f"cannot convert {value} to {dtype.name}")
        value = int(value)
    return PlainValue(builder.const_id(dtype.wrap(int(value)), dtype.to_ir(), False), dtype)


def cast(value: PlainValue, dtype: DataType) -> PlainValue:
    if value.dtype == dtype:
        return value
    return _unary(value, _SU.CAST, dtype)


def _unary(value: PlainValue, kind: int, dtype: DataType) -> PlainValue:
    builder = require_builder("scalar arithmetic")
    key = ("u", kind, dtype.name, value.id)
    found = builder.cse_lookup(key)
    if found is not None:
        return PlainValue(found, dtype)
    op = builder.emit("scalar_unary")
    result = PlainValue(builder.new_value(), dtype)
    op.result, op.kind, op.dtype, op.operand, op.src_dtype = (
        result.id, kind, dtype.to_ir(), value.id, value.dtype.to_ir())
    builder.cse_insert(key, result.id)
    return result


def to_value(x, dtype: Optional[DataType] = None, api: str = "value") -> PlainValue:
    """Materialize a Python number or traced scalar as a traced value of `dtype`."""
    from asc.language.core.constexpr import ConstExpr
    x = ConstExpr.unwrap(x)
    if isinstance(x, PlainValue):
        return x if dtype is None else cast(x, dtype)
    if isinstance(x, numbers.Number):
        return const(x, dtype or python_dtype(x), api)
    raise TypeError(f"'{api}' expects a number or a traced scalar, got {type(x).__name__}")


def to_bool(x) -> PlainValue:
    """A 1-bit value: comparisons pass through, other values become `x != 0`."""
    if isinstance(x, PlainValue) and x.dtype.is_bool():
        return x
    if not isinstance(x, PlainValue):
        return const(1 if x else 0, KnownTypes.int1)
    return _binary(x, 0, _SB.NE)


def logical(lhs, rhs, is_and: bool) -> PlainValue:
    """`and`/`or` with at least one traced operand: both sides become 1-bit and are combined."""
    a, b = to_bool(lhs), to_bool(rhs)
    builder = require_builder("and" if is_and else "or")
    op = builder.emit("scalar_binary")
    result = PlainValue(builder.new_value(), KnownTypes.int1)
    op.result, op.kind, op.dtype, op.lhs, op.rhs = (
        result.id, _SB.LOGICAL_AND if is_and else _SB.LOGICAL_OR, KnownTypes.int1.to_ir(),
        a.id, b.id)
    return result


def select(cond, true_value, false_value) -> PlainValue:
    """`a if c else b` with a traced condition."""
    ref = true_value if isinstance(true_value, PlainValue) else false_value
    dtype = ref.dtype if isinstance(ref, PlainValue) else python_dtype(true_value)
    t, f, c = to_value(true_value, dtype), to_value(false_value, dtype), to_bool(cond)
    builder = require_builder("select")
    op = builder.emit("select")
    result = PlainValue(builder.new_value(), dtype)
    op.result, op.dtype, op.cond, op.true_value, op.false_value = (
        result.id, dtype.to_ir(), c.id, t.id, f.id)
    return result


def scalar_min_max(a, b, is_max: bool) -> PlainValue:
    return _binary(a, b, _SB.MAX if is_max else _SB.MIN)


def _binary(lhs, rhs, kind: int) -> PlainValue:
    if isinstance(lhs, PlainValue):
        dtype = lhs.dtype
    elif isinstance(rhs, PlainValue):
        dtype = rhs.dtype
    else:  # never reached from the dunders; kept for scalar_min_max on Python numbers
        dtype = python_dtype(lhs)
    for operand in (lhs, rhs):
        if not isinstance(operand, (PlainValue, numbers.Number)):
            return NotImplemented
    if dtype.is_float() and kind in _INT_ONLY:
        raise TypeError(f"operator '{_OP_SYMBOL[kind]}' is not supported on {dtype.name} values")
    if dtype.is_bool() and kind not in _COMPARISONS and kind not in (_SB.AND, _SB.OR, _SB.XOR):
        # Arithmetic on 1-bit values happens in int32 (C promotes bool to int).
        dtype = KnownTypes.int32
    a, b = to_value(lhs, dtype), to_value(rhs, dtype)
    builder = require_builder("scalar arithmetic")
    result_dtype = KnownTypes.int1 if kind in _COMPARISONS else dtype
    key = ("b", kind, dtype.name, a.id, b.id)
    found = builder.cse_lookup(key)
    if found is not None:
        return PlainValue(found, result_dtype)
    op = builder.emit("scalar_binary")
    result = PlainValue(builder.new_value(), result_dtype)
    op.result, op.kind, op.dtype, op.lhs, op.rhs = result.id, kind, dtype.to_ir(), a.id, b.id
    builder.cse_insert(key, result.id)
    return result


def number(value: Union[int, float, bool], dtype: DataType) -> PlainValue:
    """`asc.number(value, dtype)`: a traced constant of `dtype`.

    A float dtype takes the value rounded once to nearest-even (from the Python float's
    double); an integer dtype takes a Python float truncated toward zero and an int wrapped to
    the type's width (asc-api.md 1.4)."""
    from asc.language.core.constexpr import ConstExpr
    return const(ConstExpr.unwrap(value), dtype, "number")
