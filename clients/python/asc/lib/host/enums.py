"""The enums of pyasc's host tiling (asc-api.md 7.2), with the numeric values of CANN's
`matmul_tiling` namespace (include/adv_api/matmul/matmul_tiling_base.h of asc-devkit, the header
pyasc's bindings wrap; docs/host_tiling.md cites the revision).

pyasc exposes them as pybind11 enums; IntEnum has what code uses of those: members by name,
`.name`, `.value`, `int(member)`, comparison with ints, and aliases that answer with the name
of the first member of their value (pybind11 does the same).
"""
from __future__ import annotations

import enum

__all__ = ["TPosition", "CubeFormat", "DataType", "MatrixTraverse", "MatrixMadType",
           "DequantType", "ScheduleType"]


class TPosition(enum.IntEnum):
    """Where an operand lives (`matmul_tiling::TPosition`)."""
    GM = 0
    A1 = 1
    A2 = 2
    B1 = 3
    B2 = 4
    C1 = 5
    C2 = 6
    CO1 = 7
    CO2 = 8
    VECIN = 9
    VECOUT = 10
    VECCALC = 11
    LCM = 11  # alias of VECCALC
    SPM = 12
    SHM = 12  # alias of SPM
    TSCM = 13
    MAX = 14


class CubeFormat(enum.IntEnum):
    """Layout of an operand in memory (`matmul_tiling::CubeFormat`)."""
    ND = 0
    NZ = 1
    ZN = 2
    ZZ = 3
    NN = 4
    ND_ALIGN = 5
    SCALAR = 6
    VECTOR = 7
    ROW_MAJOR = 0  # alias of ND
    COLUMN_MAJOR = 8


class DataType(enum.IntEnum):
    """Element type (`matmul_tiling::DataType`, GE's numbering); the members pyasc binds."""
    DT_FLOAT = 0
    DT_FLOAT16 = 1
    DT_INT8 = 2
    DT_INT32 = 3
    DT_UINT8 = 4
    DT_INT16 = 6
    DT_UINT16 = 7
    DT_UINT32 = 8
    DT_INT64 = 9
    DT_UINT64 = 10
    DT_DOUBLE = 11
    DT_BOOL = 12
    DT_STRING = 13
    DT_COMPLEX64 = 16
    DT_COMPLEX128 = 17
    DT_QINT8 = 18
    DT_QINT16 = 19
    DT_QINT32 = 20
    DT_QUINT8 = 21
    DT_QUINT16 = 22
    DT_STRING_REF = 24
    DT_DUAL = 25
    DT_VARIANT = 26
    DT_BF16 = 27
    DT_UNDEFINED = 28
    DT_INT4 = 29
    DT_UINT1 = 30
    DT_INT2 = 31
    DT_BFLOAT16 = 33
    DT_MAX = 40


class MatrixTraverse(enum.IntEnum):
    """Order of the base blocks inside a core's block (`matmul_tiling::MatrixTraverse`)."""
    NOSET = 0
    FIRSTM = 1
    FIRSTN = 2


class MatrixMadType(enum.IntEnum):
    """Cube multiply mode (`matmul_tiling::MatrixMadType`)."""
    NORMAL = 0
    HF32 = 1
    MXMODE = 2


class DequantType(enum.IntEnum):
    """Quantization scale kind (`matmul_tiling::DequantType`)."""
    SCALAR = 0
    TENSOR = 1


class ScheduleType(enum.IntEnum):
    """Data movement scheme (`matmul_tiling::ScheduleType`; pyasc binds these two)."""
    INNER_PRODUCT = 0
    OUTER_PRODUCT = 1
