"""`data_copy`: DMA between GM and UB (MTE2 in, MTE3 out) and UB->UB copies (asc-api.md 4.2)."""
from asc._proto import kernel_pb2
from asc.codegen.builder import require_builder
from asc.language.core.dispatch import Overload, Param, dispatch, of_type
from asc.language.core.dtype import KnownTypes
from asc.language.core.ir_value import to_value
from asc.language.core.tensor import tensor_ref
from asc.language.core.types import DataCopyParams
from asc.language.basic.common import any_tensor, runtime_int

__all__ = ["data_copy"]

_PATHS = {
    (kernel_pb2.MEM_UB, kernel_pb2.MEM_GM),   # GM -> UB (MTE2)
    (kernel_pb2.MEM_GM, kernel_pb2.MEM_UB),   # UB -> GM (MTE3)
    (kernel_pb2.MEM_UB, kernel_pb2.MEM_UB),   # UB -> UB
}


def _emit(dst, src):
    """Checks the operands, computes their refs, then emits the op (refs' scalar ops first)."""
    builder = require_builder("data_copy")
    if dst.dtype != src.dtype:
        raise TypeError(f"data_copy(): dst and src must have the same dtype, got "
                        f"{dst.dtype} and {src.dtype}")
    dst_ref, src_ref = tensor_ref(dst), tensor_ref(src)
    if (dst_ref.space, src_ref.space) not in _PATHS:
        raise TypeError("data_copy(): copying from "
                        f"{kernel_pb2.MemSpace.Name(src_ref.space)} to "
                        f"{kernel_pb2.MemSpace.Name(dst_ref.space)} is not supported")
    op = builder.emit("data_copy")
    op.dst.CopyFrom(dst_ref)
    op.src.CopyFrom(src_ref)
    return op


def data_copy(dst, src, *args, **kwargs) -> None:
    require_builder("data_copy")

    def params_form(repeat_params):
        fields = [to_value(getattr(repeat_params, name), KnownTypes.uint16).id
                  for name in ("block_count", "block_len", "src_stride", "dst_stride")]
        op = _emit(dst, src)
        op.params_form = True
        op.block_count, op.block_len, op.src_stride, op.dst_stride = fields

    def count_form(count):
        count_id = to_value(count, KnownTypes.int32).id
        op = _emit(dst, src)
        op.count = count_id

    if not (any_tensor(dst) and any_tensor(src)):
        raise TypeError("data_copy(): dst and src must be tensors, got "
                        f"{type(dst).__name__} and {type(src).__name__}")
    dispatch("data_copy", [
        Overload([Param("repeat_params", of_type(DataCopyParams))], params_form),
        Overload([Param("count", runtime_int)], count_form),
    ], args, kwargs)
