"""`data_copy`: DMA between GM and UB (MTE2 in, MTE3 out), UB->UB copies, and the cube core's
copies between GM and L1 and L1 -> BT (asc-api.md 4.2); the Nd2NzParams and DataCopyCO12DstParams
(L0C -> GM/L1, the fixpipe) forms are cube.py's."""
from __future__ import annotations

from typing import Sequence, Union, overload

from asc._proto import kernel_pb2
from asc.codegen.errors import NotSupportedError
from asc.codegen.builder import require_builder
from asc.language.core.dispatch import Overload, Param, dispatch, of_type
from asc.language.core.dtype import KnownTypes
from asc.language.core.ir_value import to_value
from asc.language.core.tensor import (GlobalTensor, LocalTensor, memory_of, place_name,
                                      tensor_ref)
from asc.language.core.constexpr import ConstExpr
from asc.language.core.enums import TPosition
from asc.language.core.hints import RuntimeInt, RuntimeNumber
from asc.language.core.ir_value import is_runtime_number
from asc.language.core.types import (DataCopyEnhancedParams, DataCopyExtParams,
                                     DataCopyPadExtParams, DataCopyPadParams,
                                     DataCopyCO12DstParams, DataCopyParams, Nd2NzParams,
                                     Nz2NdParamsFull, SliceInfo)
from asc.language.basic.cube import co1_copy, nd2nz_copy
from asc.language.basic.common import any_tensor, runtime_int

__all__ = ["data_copy", "data_copy_pad", "set_pad_value"]

_PATHS = {
    (kernel_pb2.MEM_UB, kernel_pb2.MEM_GM),   # GM -> UB (MTE2)
    (kernel_pb2.MEM_GM, kernel_pb2.MEM_UB),   # UB -> GM (MTE3)
    (kernel_pb2.MEM_UB, kernel_pb2.MEM_UB),   # UB -> UB
    (kernel_pb2.MEM_L1, kernel_pb2.MEM_GM),   # GM -> A1/B1/C1 (MTE2)
    (kernel_pb2.MEM_GM, kernel_pb2.MEM_L1),   # A1/B1 -> GM
    (kernel_pb2.MEM_BT, kernel_pb2.MEM_L1),   # C1 -> C2, the bias table
}


def _no_path(dst, src, dst_space, src_space) -> TypeError:
    """A copy data_copy has no form for, in the user's terms, with the API that does it. None of
    these paths exists for DataCopy on A2 (ascendc-semantics.md 8.1, hardware-910b.md 2.x)."""
    exc = TypeError(f"data_copy(): copying from {place_name(src)} to {place_name(dst)} is "
                    "not supported")
    if dst_space in (kernel_pb2.MEM_L0A, kernel_pb2.MEM_L0B):
        exc.hint = "L0A/L0B (A2/B2) are filled by asc.load_data (from L1 or GM)"
    elif src_space == kernel_pb2.MEM_L0C:
        exc.hint = "L0C (CO1) is drained by asc.fixpipe to GM or L1"
    elif (dst_space, src_space) == (kernel_pb2.MEM_UB, kernel_pb2.MEM_L1):
        exc.hint = ("on A2 the vector and cube cores exchange data through GM: copy L1 -> GM "
                    "on the cube core, then GM -> UB")
    else:
        exc.hint = ("data_copy copies GM -> VECIN/A1/B1, VECOUT/A1/B1 -> GM, UB -> UB and "
                    "C1 -> C2 (the bias table)")
    return exc


def _emit(dst, src):
    """Checks the operands, computes their refs, then emits the op (refs' scalar ops first)."""
    builder = require_builder("data_copy")
    if dst.dtype != src.dtype:
        raise TypeError(f"data_copy(): dst and src must have the same dtype, got "
                        f"{dst.dtype} and {src.dtype}")
    dst_ref, src_ref = tensor_ref(dst), tensor_ref(src)
    if (dst_ref.space, src_ref.space) == (kernel_pb2.MEM_L1, kernel_pb2.MEM_UB):
        # The library carries it out through a GM workspace and the cube core's message server
        # (docs/cross_core_facts.md 7), which the Matmul stack brings.
        raise NotSupportedError("asc.data_copy(dst, src) from UB to L1 (the library's UB -> GM "
                                "-> L1 copy through the cube core's message server)")
    if (dst_ref.space, src_ref.space) not in _PATHS:
        raise _no_path(dst, src, dst_ref.space, src_ref.space)
    op = builder.emit("data_copy")
    op.dst.CopyFrom(dst_ref)
    op.src.CopyFrom(src_ref)
    return op


# A tensor of either memory (data_copy's operands).
Tensor = Union[LocalTensor, GlobalTensor]


@overload
def data_copy(dst: Tensor, src: Tensor, repeat_params: DataCopyParams) -> None: ...


@overload
def data_copy(dst: Tensor, src: Tensor, count: RuntimeInt) -> None: ...


@overload
def data_copy(dst: Tensor, src: Tensor, repeat_params: DataCopyParams,
              enhanced_params: DataCopyEnhancedParams) -> None: ...


@overload
def data_copy(dst: Tensor, src: Tensor,
              intri_params: Union[Nz2NdParamsFull, Nd2NzParams, DataCopyCO12DstParams]) -> None: ...


@overload
def data_copy(dst: Tensor, src: Tensor, slice_list1: Sequence[SliceInfo],
              slice_list2: Sequence[SliceInfo], dim_value: RuntimeInt) -> None: ...


def data_copy(dst: Tensor, src: Tensor, *args, **kwargs) -> None:
    """Copies between GM, UB and the cube's buffers on the path's MTE pipe (asc-api.md 4.2).

    Forms, tried in this order on the arguments after dst and src:
        data_copy(dst, src, repeat_params: DataCopyParams): block_count chunks of block_len
            32-byte blocks, end-to-start gaps src_stride / dst_stride in blocks;
        data_copy(dst, src, count): count elements as whole 32-byte blocks (a trailing partial
            block is not moved, as on the chip);
        data_copy(dst, src, intri_params: Nz2NdParamsFull): UB -> GM, NZ fractals to ND rows;
        data_copy(dst, src, intri_params: Nd2NzParams): GM -> L1, ND rows to NZ fractals
            (cube.py);
        data_copy(dst, src, intri_params: DataCopyCO12DstParams): L0C -> GM/L1 by the fixpipe
            (cube.py);
        the enhanced (DataCopyEnhancedParams) and slice (SliceInfo lists) forms raise
            NotSupportedError: their meaning on Ascend 910B is not known.
    Paths: GM -> UB (MTE2), UB -> GM (MTE3), UB -> UB, GM -> A1/B1/C1 (MTE2), A1/B1 -> GM, C1
    -> C2 (the bias table); dst and src have one dtype. A path the chip has no DataCopy for is
    a TypeError naming the API that does it.

    Numerics: exact (bits move), except the DataCopyCO12DstParams form, which converts as
    fixpipe does per its quant_pre (nearest-even to float16, or the quant word's arithmetic);
    an atomic mode (set_atomic_add/max/min) combines stores into GM with what is there."""
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
    def nz2nd_form(intri_params):
        _copy_nz_to_nd(dst, src, intri_params)

    def nd2nz_form(intri_params):
        nd2nz_copy(dst, src, intri_params)

    def co1_form(intri_params):
        co1_copy(dst, src, intri_params)

    def enhanced_form(repeat_params, enhanced_params):
        raise NotSupportedError("asc.data_copy(dst, src, DataCopyParams, DataCopyEnhancedParams) "
                                "needs what the enhanced fields (block_mode, deq_scale, "
                                "is_relu_in, pad_mode_in) do on Ascend 910B")

    def slice_form(slice_list1, slice_list2, dim_value):
        raise NotSupportedError("asc.data_copy(dst, src, slice_list1, slice_list2, dim_value) "
                                "needs how the SliceInfo lists address each side (the order of "
                                "the dimensions and what stride, burst_len and shape_value "
                                "count on Ascend 910B)")

    dispatch("data_copy", [
        Overload([Param("repeat_params", of_type(DataCopyParams))], params_form),
        Overload([Param("count", runtime_int)], count_form),
        Overload([Param("repeat_params", of_type(DataCopyParams)),
                  Param("enhanced_params", of_type(DataCopyEnhancedParams))], enhanced_form),
        Overload([Param("intri_params", of_type(Nz2NdParamsFull))], nz2nd_form),
        Overload([Param("slice_list1", of_type(list, tuple)),
                  Param("slice_list2", of_type(list, tuple)),
                  Param("dim_value", runtime_int)], slice_form),
        Overload([Param("intri_params", of_type(Nd2NzParams))], nd2nz_form),
        Overload([Param("intri_params", of_type(DataCopyCO12DstParams))], co1_form),
    ], args, kwargs)


_FRACTAL = 16     # elements per NZ fractal row and column (BLOCK_CUBE)
_MAX_ROWS = 4095  # data_copy_pad's largest block_count


def _copy_nz_to_nd(dst, src, params: Nz2NdParamsFull) -> None:
    """data_copy(GM, UB, Nz2NdParamsFull) as the A2 library runs it (no single instruction
    exists): per matrix and per 16-column fractal column, one UB -> GM data_copy_pad of the
    column's n_value rows (split at 4095 rows), each row one chunk of up to 16 elements."""
    api = "data_copy"
    if not (isinstance(dst, GlobalTensor) and isinstance(src, LocalTensor) and
            memory_of(src.pos) == kernel_pb2.MEM_UB):
        raise TypeError(f"{api}(): Nz2NdParamsFull copies UB -> GM (a LocalTensor of VECOUT "
                        "into a GlobalTensor)")
    if src.dtype.sizeof() not in (2, 4):
        raise TypeError(f"{api}(): DataCopy NZ2ND only supports dtype B16 and B32, got "
                        f"{src.dtype}")
    sizes = {}
    for name in ("nd_num", "n_value", "d_value"):
        value = getattr(params, name)
        if not isinstance(value, int):
            raise TypeError(f"{api}(): Nz2NdParamsFull.{name} must be a compile-time int in "
                            "aicore-sim (the library's loops run over it)")
        sizes[name] = value
    elem = src.dtype.sizeof()
    for matrix in range(sizes["nd_num"]):
        for column in range((sizes["d_value"] + _FRACTAL - 1) // _FRACTAL):
            width = min(_FRACTAL, sizes["d_value"] - column * _FRACTAL)
            for first in range(0, sizes["n_value"], _MAX_ROWS):
                rows = min(_MAX_ROWS, sizes["n_value"] - first)
                dst_at = (matrix * params.dst_nd_matrix_stride + column * _FRACTAL +
                          first * params.dst_d_stride)
                src_at = (matrix * params.src_nd_matrix_stride * _FRACTAL * _FRACTAL +
                          column * params.src_n_stride * _FRACTAL + first * _FRACTAL)
                copy = DataCopyExtParams(rows, width * elem, 0,
                                         (params.dst_d_stride - width) * elem, 0)
                data_copy_pad(dst[dst_at], src[src_at], copy)


@overload
def data_copy_pad(dst: LocalTensor, src: GlobalTensor,
                  data_copy_params: Union[DataCopyExtParams, DataCopyParams],
                  pad_params: Union[DataCopyPadExtParams, DataCopyPadParams]) -> None: ...


@overload
def data_copy_pad(dst: GlobalTensor, src: LocalTensor,
                  data_copy_params: Union[DataCopyExtParams, DataCopyParams]) -> None: ...


def data_copy_pad(dst: Tensor, src: Tensor, *args, **kwargs) -> None:
    """Copies unaligned chunks of bytes between GM and UB, padding each to 32 bytes in UB.

    `data_copy_pad(dst, src, data_copy_params, pad_params)` GM -> UB, or
    `data_copy_pad(dst, src, data_copy_params)` UB -> GM (asc-api.md 4.2): block_count chunks
    of block_len BYTES (ascendc-semantics.md 5.11), DataCopyExtParams with DataCopyPadExtParams
    or DataCopyParams with DataCopyPadParams. In UB each block is laid out as [left padding]
    [data] [right padding] [dummy up to 32 bytes]; with is_pad the paddings hold padding_value,
    which also persists in the pad value register (set_pad_value). Out, exactly block_len bytes
    a chunk reach GM.

    Numerics: exact (bits move); padding_value is converted to the element type (nearest-even
    for a float)."""
    api = "data_copy_pad"
    require_builder(api)
    if not (any_tensor(dst) and any_tensor(src)):
        raise TypeError(f"{api}(): dst and src must be tensors, got "
                        f"{type(dst).__name__} and {type(src).__name__}")

    def emit(data_copy_params, pad_params=None):
        fields = [to_value(getattr(data_copy_params, name), KnownTypes.uint32).id
                  for name in ("block_count", "block_len", "src_stride", "dst_stride")]
        if dst.dtype != src.dtype:
            raise TypeError(f"{api}(): dst and src must have the same dtype, got "
                            f"{dst.dtype} and {src.dtype}")
        dst_ref, src_ref = tensor_ref(dst), tensor_ref(src)
        gm_in = (src_ref.space, dst_ref.space) == (kernel_pb2.MEM_GM, kernel_pb2.MEM_UB)
        gm_out = (src_ref.space, dst_ref.space) == (kernel_pb2.MEM_UB, kernel_pb2.MEM_GM)
        if (src_ref.space, dst_ref.space) == (kernel_pb2.MEM_UB, kernel_pb2.MEM_L1):
            raise NotSupportedError("asc.data_copy_pad(dst, src, ...) from UB to L1 (the "
                                    "library's UB -> GM -> L1 copy through the cube core's "
                                    "message server)")
        if not (gm_in or gm_out):
            # DataCopyPad's paths are GM <-> UB (and the UB -> L1 form above), on the chip too.
            exc = TypeError(f"{api}(): copying from {place_name(src)} to {place_name(dst)} "
                            "is not supported")
            exc.hint = (f"{api} copies GM -> UB (VECIN/VECOUT/VECCALC) with pad params and "
                        "UB -> GM without; use data_copy for GM -> L1 (A1/B1)")
            raise exc
        if gm_in and pad_params is None:
            raise TypeError(f"{api}(): a GM -> UB copy needs pad_params "
                            "(DataCopyPadExtParams or DataCopyPadParams)")
        if gm_out and pad_params is not None:
            raise TypeError(f"{api}(): a UB -> GM copy takes no pad_params")
        if isinstance(pad_params, DataCopyPadExtParams) and pad_params.dtype != dst.dtype:
            raise TypeError(f"{api}(): pad_params.dtype {pad_params.dtype} differs from the "
                            f"tensors' dtype {dst.dtype}")
        op = require_builder(api).emit("data_copy")
        op.dst.CopyFrom(dst_ref)
        op.src.CopyFrom(src_ref)
        op.params_form = True
        op.pad_form = True
        op.block_count, op.block_len, op.src_stride, op.dst_stride = fields
        if pad_params is not None:
            op.is_pad = pad_params.is_pad.id
            op.left_padding = pad_params.left_padding.id
            op.right_padding = pad_params.right_padding.id
            op.padding_value = pad_params.padding_value.id

    def ext_in(data_copy_params, pad_params):
        emit(data_copy_params, pad_params)

    def ext_out(data_copy_params):
        emit(data_copy_params)

    dispatch(api, [
        Overload([Param("data_copy_params", of_type(DataCopyExtParams)),
                  Param("pad_params", of_type(DataCopyPadExtParams))], ext_in),
        Overload([Param("data_copy_params", of_type(DataCopyExtParams))], ext_out),
        Overload([Param("data_copy_params", of_type(DataCopyParams)),
                  Param("pad_params", of_type(DataCopyPadParams))], ext_in),
        Overload([Param("data_copy_params", of_type(DataCopyParams))], ext_out),
    ], args, kwargs)


_PAD_POSITIONS = (TPosition.MAX, TPosition.VECIN, TPosition.VECOUT)


def set_pad_value(padding_value: RuntimeNumber, pos: TPosition = TPosition.MAX) -> None:
    """Loads the pad value register that data_copy_pad fills paddings with.

    It holds until the next set_pad_value or copy with is_pad; pos is TPosition.MAX, VECIN or
    VECOUT. The value (a Python int as int32, a float as float32, or a traced scalar) is
    converted to each copy's element type."""
    api = "set_pad_value"
    builder = require_builder(api)
    where = ConstExpr.unwrap(pos)
    if isinstance(where, bool) or where not in _PAD_POSITIONS:
        raise TypeError(f"{api}(): pos must be TPosition.MAX, VECIN or VECOUT, got {pos!r}")
    value = ConstExpr.unwrap(padding_value)
    if not is_runtime_number(value):
        raise TypeError(f"{api}(): padding_value must be a number or a traced scalar, got "
                        f"{type(value).__name__}")
    value_id = to_value(value).id
    op = builder.emit("store_config")
    op.kind = kernel_pb2.StoreConfigOp.SET_PAD_VALUE
    op.value = value_id
