"""Reads of state a kernel never set (a TensorDesc no get_desc filled, a tensor's ShapeInfo no
set_shape_info set). pyasc compiles them; on the chip they read Ascend C's default-constructed
values. The model reads 0 at run time and warns UNINITIALIZED_READ at the line (docs/checkers.md)."""
from asc._proto import kernel_pb2
from asc.codegen.builder import require_builder
from asc.language.core.dtype import DataType
from asc.language.core.ir_value import PlainValue


def unset_state(api: str, dtype: DataType) -> PlainValue:
    """A traced `dtype` value of 0 whose read is an UNINITIALIZED_READ warning at run time."""
    builder = require_builder(api)
    op = builder.emit("sys_value")
    result = PlainValue(builder.new_value(), dtype)
    op.result, op.kind, op.dtype = result.id, kernel_pb2.SysValueOp.UNSET_STATE, dtype.to_ir()
    return result
