"""Element and scalar data types of the `asc` language (pyasc's `DataType`).

A DataType is identified by its name; the IR dtype enum is derived from that name so the rest of
the compiler never spells out per-type tables twice.
"""
from __future__ import annotations

import enum
import re
from typing import Optional

from asc._proto import kernel_pb2

__all__ = [
    "DataType", "KnownTypes",
    "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
    "float16", "float32", "float64", "half", "float_", "double", "int_", "void",
]

_IR_DTYPES = {
    "int1": kernel_pb2.DT_BOOL,
    "int8": kernel_pb2.DT_INT8,
    "uint8": kernel_pb2.DT_UINT8,
    "int16": kernel_pb2.DT_INT16,
    "uint16": kernel_pb2.DT_UINT16,
    "int32": kernel_pb2.DT_INT32,
    "uint32": kernel_pb2.DT_UINT32,
    "int64": kernel_pb2.DT_INT64,
    "uint64": kernel_pb2.DT_UINT64,
    "float16": kernel_pb2.DT_FLOAT16,
    "float32": kernel_pb2.DT_FLOAT32,
    "float64": kernel_pb2.DT_FLOAT64,
}
_FROM_IR = {v: k for k, v in _IR_DTYPES.items()}

_NAME_RE = re.compile(r"^(u?int|float)(\d+)$")


class DataType:
    """A named element type; `sizeof()` is in bytes, `bitwidth` in bits (None for void)."""

    class Kind(enum.Enum):
        Any = ""
        Int = "int"
        Float = "float"
        UInt = "uint"

    def __init__(self, name: str):
        if isinstance(name, DataType):
            name = name.name
        if not isinstance(name, str):
            raise TypeError(f"DataType name must be a str, got {type(name).__name__}")
        self.name = name
        match = _NAME_RE.match(name)
        if match:
            self.kind = DataType.Kind(match.group(1))
            self.bitwidth: Optional[int] = int(match.group(2))
        else:
            self.kind = DataType.Kind.Any
            self.bitwidth = None

    def __eq__(self, other):
        return isinstance(other, DataType) and other.name == self.name

    def __hash__(self):
        return hash(("DataType", self.name))

    def __str__(self):
        return self.name

    def __repr__(self):
        return f"asc.{self.name}"

    def is_int(self) -> bool:
        return self.kind in (DataType.Kind.Int, DataType.Kind.UInt)

    def is_float(self) -> bool:
        return self.kind == DataType.Kind.Float

    def is_numeric(self) -> bool:
        return self.is_int() or self.is_float()

    def is_signed(self) -> bool:
        return self.kind in (DataType.Kind.Int, DataType.Kind.Float)

    def is_unsigned(self) -> bool:
        return self.kind == DataType.Kind.UInt

    def is_void(self) -> bool:
        return self.name == "void"

    def is_bool(self) -> bool:
        return self.name == "int1"

    def sizeof(self) -> int:
        if self.bitwidth is None:
            raise ValueError(f"DataType {self.name} has no size")
        if self.bitwidth < 8:
            raise ValueError(f"DataType {self.name} is narrower than a byte")
        return self.bitwidth // 8

    def to_ir(self) -> int:
        """The kernel IR DType; raises TypeError for types the IR cannot hold (bool arrays...)."""
        try:
            return _IR_DTYPES[self.name]
        except KeyError:
            raise TypeError(f"data type '{self.name}' is not supported by the kernel IR") from None

    @classmethod
    def from_ir(cls, ir_dtype: int) -> "DataType":
        return cls(_FROM_IR[ir_dtype])

    # Value range, used to wrap integer constants the way C conversions do.
    def wrap(self, value: int) -> int:
        bits = self.bitwidth or 64
        if self.is_bool():
            return 1 if value else 0
        value &= (1 << bits) - 1
        if self.kind == DataType.Kind.Int and value >= 1 << (bits - 1):
            value -= 1 << bits
        return value


class KnownTypes:
    """Every dtype the language names, including the ones not exported from `asc`."""
    int1 = bit = DataType("int1")
    int8 = bool_ = DataType("int8")
    int16 = DataType("int16")
    int32 = int_ = DataType("int32")
    int64 = DataType("int64")
    uint8 = DataType("uint8")
    uint16 = DataType("uint16")
    uint32 = DataType("uint32")
    uint64 = DataType("uint64")
    float16 = half = DataType("float16")
    float32 = float_ = DataType("float32")
    float64 = double = DataType("float64")
    void = DataType("void")


int8 = KnownTypes.int8
int16 = KnownTypes.int16
int32 = KnownTypes.int32
int64 = KnownTypes.int64
uint8 = KnownTypes.uint8
uint16 = KnownTypes.uint16
uint32 = KnownTypes.uint32
uint64 = KnownTypes.uint64
float16 = half = KnownTypes.float16
float32 = float_ = KnownTypes.float32
float64 = double = KnownTypes.float64
int_ = KnownTypes.int32
void = KnownTypes.void
