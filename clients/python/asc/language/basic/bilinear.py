"""bilinear_interpolation (asc-api.md 4.5): the API of the kVecBilinear layout row
(sim/isa/layouts.def). One VecBilinearOp on PIPE_V: per vertical step, the sum over horizontal
steps of 8 blocks of src0 (at byte offsets from src0_offset) times src1's scalars. vec.py defines
the API function from the instruction table with make_bilinear (and its docstring from
vec_docs.py)."""
from __future__ import annotations

from asc.codegen.builder import require_builder
from asc.language.core.constexpr import ConstExpr
from asc.language.core.dispatch import Overload, Param, dispatch, set_forms
from asc.language.core.dtype import KnownTypes as KT
from asc.language.core.ir_value import to_value
from asc.language.core.tensor import LocalTensor, tensor_ref
from asc.language.basic.common import (check_same_dtype as _check_dtypes, check_ub, local_tensor,
                                       require_local_tensors as _require_tensors, runtime_int)


def _literal_bool(x) -> bool:
    return isinstance(ConstExpr.unwrap(x), bool)


_literal_bool.__name__ = "bool"


def make_bilinear(api, ir_op, kind, allowed):
    """The API function of a bilinear_interpolation row (the layout table names it)."""
    from asc.language.basic import vec  # vec calls this while it is imported: its helpers exist
    bit_mask, mask_fields = vec.bit_mask, vec.mask_fields

    def op(dst: LocalTensor, src0: LocalTensor, src0_offset: LocalTensor, src1: LocalTensor,
           *args, **kwargs) -> None:
        require_builder(api)
        _require_tensors(api, dst=dst, src0=src0, src0_offset=src0_offset, src1=src1)

        def emit(mask, h_repeat, repeat_mode, dst_blk_stride, v_r_offset, v_repeat,
                 shared_tmp_buffer):
            check_ub(api, dst=dst, src0=src0, src0_offset=src0_offset, src1=src1,
                     shared_tmp_buffer=shared_tmp_buffer)
            _check_dtypes(api, allowed, dst=dst, src0=src0, src1=src1)
            if src0_offset.dtype != KT.uint32:
                raise TypeError(f"{api}(): src0_offset must be a uint32 tensor of byte offsets, "
                                f"got {src0_offset.dtype}")
            ids = {"h_repeat": to_value(h_repeat, KT.uint8).id,
                   "repeat_mode": to_value(int(ConstExpr.unwrap(repeat_mode)), KT.int32).id,
                   "dst_blk_stride": to_value(dst_blk_stride, KT.uint16).id,
                   "v_r_offset": to_value(v_r_offset, KT.uint16).id,
                   "v_repeat": to_value(v_repeat, KT.uint8).id}
            masks = mask_fields(mask)
            refs = {name: tensor_ref(t) for name, t in (
                ("dst", dst), ("src0", src0), ("src0_offset", src0_offset), ("src1", src1),
                ("shared_tmp", shared_tmp_buffer))}
            # The offsets may select any block of src0: the simulator checks them against its
            # extent (to the end of its buffer when no size was set).
            if refs["src0"].count == 0:
                refs["src0"].count = to_value(src0.get_size(), KT.int32).id
            ir = require_builder(api).emit(ir_op)
            for name, ref in refs.items():
                getattr(ir, name).CopyFrom(ref)
            for field, value in ids.items():
                setattr(ir, field, value)
            for field, value in masks.items():
                setattr(ir.mask, field, value)

        dispatch(api, [Overload(params, emit) for params in forms], args, kwargs)
    tail = [Param("h_repeat", runtime_int), Param("repeat_mode", _literal_bool),
            Param("dst_blk_stride", runtime_int), Param("v_r_offset", runtime_int),
            Param("v_repeat", runtime_int), Param("shared_tmp_buffer", local_tensor)]
    forms = [[Param("mask", runtime_int)] + tail, [Param("mask", bit_mask)] + tail]
    op.__name__ = op.__qualname__ = api
    return set_forms(op, [(name, "LocalTensor") for name in ("dst", "src0", "src0_offset", "src1")],
                     forms)
