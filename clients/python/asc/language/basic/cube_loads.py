"""The cube's fills and transposing loads (asc-api.md 4.14; ascendc-semantics.md 2.2):
`init_const_value(dst, InitConstValueParams)` fills A1/B1 (on MTE2) or A2/B2 (on MTE1) tensors
with a value, and `load_data_with_transpose(dst, src, LoadData2dTransposeParams)` moves L1
squares into L0A/L0B transposed, on MTE1. One IR message each (proto/kernel.proto
InitConstValueOp, LoadDataTransposeOp); operand positions are checked by the simulator's decoder,
at the kernel line, as pyasc's tracing does not check them.
"""
from __future__ import annotations

from typing import Union, overload

from asc.codegen.builder import require_builder
from asc.language.core.dispatch import Overload, Param, dispatch, of_type
from asc.language.core.ir_value import to_value
from asc.language.core.tensor import LocalTensor, tensor_ref
from asc.codegen.errors import NotSupportedError
from asc.language.core.types import (InitConstValueParams, LoadData2dTransposeParams,
                                     LoadData2dTransposeParamsV2)

__all__ = ["init_const_value", "load_data_with_transpose"]

_TRANSPOSE_FIELDS = [name for name, _, _ in LoadData2dTransposeParams._fields]


def _local(api: str, **tensors) -> None:
    for name, t in tensors.items():
        if not isinstance(t, LocalTensor):
            raise TypeError(f"{api}(): '{name}' must be a LocalTensor, got {type(t).__name__}")


@overload
def init_const_value(dst: LocalTensor, init_const_value_params: InitConstValueParams) -> None: ...


def init_const_value(dst: LocalTensor, *args, **kwargs) -> None:
    """Fills blocks of an A1/B1 (on MTE2) or A2/B2 (on MTE1) tensor with one value.

    `init_const_value(dst, init_const_value_params)` (asc-api.md 4.14): repeat_times repeats of
    block_num blocks, dst_gap blocks apart (InitConstValueParams).

    Numerics: the value is converted to dst's element type once (a Python float rounds to
    nearest-even; a traced one is cast as the scalar unit casts), then stored exactly."""
    api = "init_const_value"
    builder = require_builder(api)
    _local(api, dst=dst)

    def emit(init_const_value_params):
        p = init_const_value_params
        ids = {name: to_value(getattr(p, name), dtype, api).id
               for name, dtype in InitConstValueParams._FIELDS}
        value_id = to_value(p.init_value, dst.dtype, api).id
        dst_ref = tensor_ref(dst)
        op = builder.emit("init_const_value")
        op.dst.CopyFrom(dst_ref)
        for name, value in ids.items():
            setattr(op, name, value)
        op.init_value = value_id

    dispatch(api, [Overload([Param("init_const_value_params", of_type(InitConstValueParams))],
                            emit)], args, kwargs)


@overload
def load_data_with_transpose(dst: LocalTensor, src: LocalTensor,
                             params: Union[LoadData2dTransposeParams,
                                           LoadData2dTransposeParamsV2]) -> None: ...


def load_data_with_transpose(dst: LocalTensor, src: LocalTensor, *args, **kwargs) -> None:
    """Moves squares of fractals L1 -> L0A/L0B, each transposed, on MTE1.

    `load_data_with_transpose(dst, src, params)` (asc-api.md 4.14, ascendc-semantics.md 2.2):
    with LoadData2dTransposeParams, b16 squares of one 16 x 16 fractal, b8 and b32 squares of
    two; dst and src have one dtype. LoadData2dTransposeParamsV2 is refused (src_frac_gap's
    meaning on Ascend 910B is not known)."""
    api = "load_data_with_transpose"
    builder = require_builder(api)
    _local(api, dst=dst, src=src)

    def emit(params):
        if dst.dtype != src.dtype:
            raise TypeError(f"{api}(): dst and src must have the same dtype, got {dst.dtype} and "
                            f"{src.dtype}")
        ids = {name: to_value(getattr(params, name), dtype).id
               for name, _, dtype in LoadData2dTransposeParams._fields}
        dst_ref, src_ref = tensor_ref(dst), tensor_ref(src)
        op = builder.emit("load_data_transpose")
        op.dst.CopyFrom(dst_ref)
        op.src.CopyFrom(src_ref)
        for name, value in ids.items():
            setattr(op, name, value)

    def v2(params):
        # The A2 library reports the V2 form unsupported into L0B (ascendc-semantics.md 2.2).
        raise NotSupportedError("asc.load_data_with_transpose with LoadData2dTransposeParamsV2 "
                                "needs what src_frac_gap does on Ascend 910B (its library "
                                "refuses the V2 form into L0B and does not document it into L0A)")

    dispatch(api, [Overload([Param("params", of_type(LoadData2dTransposeParams))], emit),
                   Overload([Param("params", of_type(LoadData2dTransposeParamsV2))], v2)], args,
             kwargs)
