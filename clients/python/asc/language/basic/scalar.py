"""Scalar unit helpers (asc-api.md 4.13): bit scans and counts of a 64-bit value and ScalarCast,
each one scalar-unit instruction (kernel.proto ScalarUnaryOp). Results are traced int64 values
(scalar_cast: its dtype)."""
from __future__ import annotations

from asc.codegen.builder import require_builder
from asc.language.core.constexpr import ConstExpr
from asc.language.core.dtype import DataType, KnownTypes as KT
from asc.language.core.enums import RoundMode
from asc.language.core.hints import RuntimeInt, RuntimeNumber
from asc.language.core.ir_value import PlainValue, is_runtime_int, is_runtime_number, to_value
from asc._proto import kernel_pb2

__all__ = ["scalar_cast", "scalar_get_sff_value", "scalar_get_count_of_value",
           "scalar_count_leading_zero", "count_bits_cnt_same_as_sign_bit"]

_SU = kernel_pb2.ScalarUnaryOp


def _emit(api, kind, value, operand_dtype, result_dtype, round_mode=0) -> PlainValue:
    builder = require_builder(api)
    operand = to_value(value, operand_dtype, api)
    op = builder.emit("scalar_unary")
    result = PlainValue(builder.new_value(), result_dtype)
    op.result, op.kind, op.dtype = result.id, kind, result_dtype.to_ir()
    op.operand, op.src_dtype, op.round_mode = operand.id, operand.dtype.to_ir(), round_mode
    return result


def _int_arg(api, value):
    value = ConstExpr.unwrap(value)
    if not is_runtime_int(value):
        raise TypeError(f"{api}(): value_in must be an integer or a traced integer, got "
                        f"{type(value).__name__}")
    return value


def _bit(api, count_value):
    bit = ConstExpr.unwrap(count_value)
    if isinstance(bit, bool) or bit not in (0, 1):
        raise ValueError(f"{api}(): count_value must be a Python 0 or 1, got {count_value!r}")
    return bit


def scalar_get_sff_value(value_in: RuntimeInt, count_value: int) -> PlainValue:
    """The position of the lowest bit equal to `count_value` in the uint64 `value_in`; -1 if none.

    Ascend C's ScalarGetSFFValue (asc-api.md 4.13): count_value is a Python 0 or 1; the result
    is a traced int64, computed by the scalar unit.

    Numerics: exact (integer bit counting)."""
    api = "scalar_get_sff_value"
    kind = _SU.FIRST_ONE if _bit(api, count_value) else _SU.FIRST_ZERO
    return _emit(api, kind, _int_arg(api, value_in), KT.uint64, KT.int64)


def scalar_get_count_of_value(value_in: RuntimeInt, count_value: int) -> PlainValue:
    """The number of bits of the uint64 `value_in` equal to `count_value` (0 or 1).

    Ascend C's ScalarGetCountOfValue (asc-api.md 4.13): a traced int64 from the scalar unit.

    Numerics: exact (integer bit counting)."""
    api = "scalar_get_count_of_value"
    kind = _SU.COUNT_ONES if _bit(api, count_value) else _SU.COUNT_ZEROS
    return _emit(api, kind, _int_arg(api, value_in), KT.uint64, KT.int64)


def scalar_count_leading_zero(value_in: RuntimeInt) -> PlainValue:
    """The leading zero bits of the uint64 `value_in` (64 for 0), a traced int64.

    Ascend C's ScalarCountLeadingZero (asc-api.md 4.13).

    Numerics: exact (integer bit counting)."""
    api = "scalar_count_leading_zero"
    return _emit(api, _SU.CLZ, _int_arg(api, value_in), KT.uint64, KT.int64)


def count_bits_cnt_same_as_sign_bit(value_in: RuntimeInt) -> PlainValue:
    """The bits below the sign bit of the int64 `value_in` that equal it, counted from the top.

    Ascend C's CountBitsCntSameAsSignBit (asc-api.md 4.13): 63 for 0 and -1; a traced int64.

    Numerics: exact (integer bit counting)."""
    api = "count_bits_cnt_same_as_sign_bit"
    return _emit(api, _SU.CLS, _int_arg(api, value_in), KT.int64, KT.int64)


def scalar_cast(value_in: RuntimeNumber, dtype: DataType, round_mode: RoundMode) -> PlainValue:
    """The float `value_in` converted to int32 or float16 in `round_mode` (ScalarCast).

    Ascend C's ScalarCast (asc-api.md 4.13), one scalar-unit instruction: dtype is asc.int32 or
    asc.float16, round_mode an asc.RoundMode; the result is a traced value of dtype.

    Numerics: value_in is first a float32 (a Python number rounded to nearest-even, a traced
    value cast), then rounded once in round_mode as the vector cast rounds (CAST_RINT / CAST_NONE
    nearest-even, CAST_FLOOR, CAST_CEIL, CAST_ROUND ties away, CAST_TRUNC, CAST_ODD). To int32:
    NaN gives 0, infinities and out-of-range values saturate. To float16: overflow gives +-inf in
    the nearest modes, the largest finite value toward zero."""
    api = "scalar_cast"
    dtype = ConstExpr.unwrap(dtype)
    if dtype not in (KT.int32, KT.float16):
        raise TypeError(f"{api}(): dtype must be asc.int32 or asc.float16, got {dtype!r}")
    mode = ConstExpr.unwrap(round_mode)
    if isinstance(mode, bool) or not isinstance(mode, int) or mode not in iter(RoundMode):
        raise TypeError(f"{api}(): round_mode must be an asc.RoundMode, got {round_mode!r}")
    value = ConstExpr.unwrap(value_in)
    if not is_runtime_number(value):
        raise TypeError(f"{api}(): value_in must be a number or a traced scalar, got "
                        f"{type(value).__name__}")
    return _emit(api, _SU.ROUND_CAST, value, KT.float32, dtype, int(mode))
