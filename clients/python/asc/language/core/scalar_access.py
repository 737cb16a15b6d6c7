"""Element reads and writes by the scalar unit: `get_value` / `set_value` of LocalTensor and
GlobalTensor (asc-api.md 3.4, 3.5), one `ScalarLoadOp` / `ScalarStoreOp` each.

The simulator runs them on PIPE_S at the scalar unit's time, so they need the chip's flags
against the pipes (a read of what PIPE_V wrote needs V_S; auto_sync inserts them) and go
through the same bounds, initialisation and race checks as any access.
"""
import numbers

from asc._proto import kernel_pb2
from asc.codegen.builder import require_builder
from asc.language.core.constexpr import ConstExpr
from asc.language.core.dtype import KnownTypes
from asc.language.core.ir_value import PlainValue, is_runtime_int, to_value

_INDEX = KnownTypes.int32


def _index_id(index, api: str) -> int:
    index = ConstExpr.unwrap(index)
    if not is_runtime_int(index) or (isinstance(index, PlainValue) and index.dtype.is_float()):
        raise TypeError(f"{api}: index must be an int or a traced integer, got {index!r}")
    if isinstance(index, numbers.Integral) and index < 0:
        raise ValueError(f"{api}: index must be >= 0, got {index}")
    # A traced index keeps its own integer type: the simulator reads any of them.
    return to_value(index, None if isinstance(index, PlainValue) else _INDEX, api).id


def load(tensor, index, api: str) -> PlainValue:
    """tensor[index] as a traced scalar of the tensor's dtype."""
    builder = require_builder(api)
    ref = kernel_pb2.TensorRef()
    tensor._fill_ref(ref)
    index_id = _index_id(index, api)
    op = builder.emit("scalar_load")
    result = PlainValue(builder.new_value(), tensor.dtype)
    op.result = result.id
    op.src.CopyFrom(ref)
    op.index = index_id
    return result


def store(tensor, index, value, api: str) -> None:
    """tensor[index] = value, converted to the tensor's dtype."""
    builder = require_builder(api)
    value = ConstExpr.unwrap(value)
    if isinstance(value, bool):
        value = int(value)
    from asc.language.core.tensor import GlobalAddress  # tensor.py imports this module
    if isinstance(value, GlobalAddress):
        # A GlobalAddress stores its device address, as (uint64_t)ptr does in Ascend C: how a
        # kernel fills a ListTensorDesc's pointer table.
        value = value._addr
    if not isinstance(value, (numbers.Number, PlainValue)):
        raise TypeError(f"{api}: value must be a number or a traced scalar, got "
                        f"{type(value).__name__}")
    ref = kernel_pb2.TensorRef()
    tensor._fill_ref(ref)
    index_id = _index_id(index, api)
    # Python numbers become constants of the element type; traced values are converted by the
    # simulator (as a cast would), which saves the cast instruction.
    value_id = to_value(value, None if isinstance(value, PlainValue) else tensor.dtype, api).id
    op = builder.emit("scalar_store")
    op.dst.CopyFrom(ref)
    op.index = index_id
    op.value = value_id
