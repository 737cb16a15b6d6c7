"""Rearrangement instructions (asc-api.md 4.11): brcb, gather, gatherb, scatter, gather_mask
(with get_gather_mask_remain_count), transpose and trans_data_to_5hd. Each is one VecMoveOp on
PIPE_V; vec.py defines one API per instruction-table row and takes the makers from here (the
docstrings come from vec_docs.py)."""
from __future__ import annotations

from typing import List, Union

from asc._proto import kernel_pb2
from asc.codegen.builder import require_builder
from asc.language.core.constexpr import ConstExpr
from asc.language.core.dispatch import Overload, Param, dispatch, of_type, set_forms
from asc.language.core.dtype import KnownTypes as KT
from asc.language.core.enums import GatherMaskMode, TransposeType
from asc.language.core.hints import RuntimeInt
from asc.language.core.ir_value import PlainValue, to_value
from asc.language.core.tensor import LocalTensor, tensor_ref
from asc.language.core.types import (BrcbRepeatParams, GatherMaskParams, GatherRepeatParams,
                                     TransDataTo5HDParams, TransposeParamsExt)
from asc.language.basic.common import (check_same_dtype, check_ub, dtypes_text, local_tensor,
                                       require_local_tensors, runtime_int)

__all__ = ["get_gather_mask_remain_count"]

_K = kernel_pb2.VecMoveOp


def _vec():
    from asc.language.basic import vec  # vec imports this module: resolved at call time
    return vec


def _tensors(api, **tensors):
    require_local_tensors(api, **tensors)
    check_ub(api, **tensors)


_same_dtype = check_same_dtype


def _need(api, name, t, dtype):
    if t.dtype != dtype:
        raise TypeError(f"{api}(): '{name}' must be a {dtype.name} tensor, got {t.dtype.name}")


def _ids(values, dtype):
    return [to_value(v, dtype).id for v in values]


def _emit(api, kind, **refs):
    ir = require_builder(api).emit("vec_move")
    ir.kind = kind
    for name, ref in refs.items():
        getattr(ir, name).CopyFrom(ref)
    return ir


def _dst_repeat(api, repeat_times, repeat_params, params_type):
    """brcb's and gatherb's iterations and dst strides (`params_type`: dst_blk_stride,
    dst_rep_stride), traced now; the returned function fills the op's repeat."""
    if not runtime_int(repeat_times):
        raise TypeError(f"{api}(): repeat_times must be an int, got "
                        f"{type(repeat_times).__name__}")
    if not isinstance(repeat_params, params_type):
        raise TypeError(f"{api}(): repeat_params must be an asc.{params_type.__name__}, got "
                        f"{type(repeat_params).__name__}")
    times = to_value(repeat_times, KT.uint8).id
    blk, rep = _ids([repeat_params.dst_blk_stride, repeat_params.dst_rep_stride], KT.uint16)

    def fill(ir):
        ir.repeat.repeat_times = times
        ir.repeat.blk_stride.append(blk)
        ir.repeat.rep_stride.append(rep)
    return fill


def _mask_ids(mask):
    """The mask the instruction loads: a continuous length or [low_word, high_word]."""
    return _vec().mask_fields(mask)


def _mask_param():
    return [Param("mask", runtime_int), Param("mask", _vec().bit_mask)]


def _local(*names):
    return [(name, "LocalTensor") for name in names]


def _brcb(api, kind, allowed):
    def op(dst: LocalTensor, src0: LocalTensor, repeat_times: RuntimeInt,
           repeat_params: BrcbRepeatParams) -> None:
        _tensors(api, dst=dst, src0=src0)
        _same_dtype(api, allowed, dst=dst, src0=src0)
        fill = _dst_repeat(api, repeat_times, repeat_params, BrcbRepeatParams)
        fill(_emit(api, kind, dst=tensor_ref(dst), src=tensor_ref(src0)))
    return op


def _gather_scatter(api, kind, allowed):
    scatter = kind == _K.SCATTER
    offset_name, base_name = ("dst_offset", "dst_base") if scatter else ("src_offset", "src_base")
    stride_name = "src_rep_stride" if scatter else "dst_rep_stride"

    def op(dst: LocalTensor, src: LocalTensor, *args, **kwargs) -> None:
        require_builder(api)
        # The offset tensor and the base by pyasc's names (src_offset/src_base or dst_*).
        args = list(args)
        try:
            offset = kwargs.pop(offset_name) if offset_name in kwargs else args.pop(0)
            base = kwargs.pop(base_name) if base_name in kwargs else args.pop(0)
        except IndexError:
            raise TypeError(f"{api}() missing required arguments '{offset_name}' and "
                            f"'{base_name}'") from None
        _tensors(api, dst=dst, src=src, **{offset_name: offset})
        _same_dtype(api, allowed, dst=dst, src=src)
        _need(api, offset_name, offset, KT.uint32)
        if not runtime_int(base):
            raise TypeError(f"{api}(): {base_name} must be an int, got {type(base).__name__}")

        def emit(fill):
            refs = dict(dst=tensor_ref(dst), src=tensor_ref(src), offset=tensor_ref(offset))
            base_id = to_value(base, KT.uint32).id
            ir = _emit(api, kind, **refs)
            ir.base = base_id
            fill(ir)

        def count_form(count):
            count_id = to_value(count, KT.int32).id
            emit(lambda ir: setattr(ir, "count", count_id))

        def repeat_form(mask, repeat_times, **stride_kw):
            rep_stride = stride_kw[stride_name]
            masks = _mask_ids(mask)
            times = to_value(repeat_times, KT.uint8).id
            stride = to_value(rep_stride, KT.uint16).id

            def fill(ir):
                ir.repeat.repeat_times = times
                for field, value in masks.items():
                    setattr(ir.repeat, field, value)
                # Strides [dst, src]: gather's is dst's, scatter's src's.
                if scatter:
                    ir.repeat.rep_stride.extend([to_value(8, KT.uint16).id, stride])
                else:
                    ir.repeat.rep_stride.append(stride)
            emit(fill)

        tail = [Param("repeat_times", runtime_int), Param(stride_name, runtime_int)]
        dispatch(api, [Overload([Param("count", runtime_int)], count_form)] +
                 [Overload([m] + tail, repeat_form) for m in _mask_param()], args, kwargs)
    tail = [Param("repeat_times", runtime_int), Param(stride_name, runtime_int)]
    return set_forms(op, _local("dst", "src", offset_name) + [(base_name, "RuntimeInt")],
                     [[Param("count", runtime_int)]] + [[m] + tail for m in _mask_param()])


def _gatherb(api, kind, allowed):
    def op(dst: LocalTensor, src0: LocalTensor, offset: LocalTensor, repeat_times: RuntimeInt,
           repeat_params: GatherRepeatParams) -> None:
        _tensors(api, dst=dst, src0=src0, offset=offset)
        _same_dtype(api, allowed, dst=dst, src0=src0)
        _need(api, "offset", offset, KT.uint32)
        fill = _dst_repeat(api, repeat_times, repeat_params, GatherRepeatParams)
        fill(_emit(api, kind, dst=tensor_ref(dst), src=tensor_ref(src0),
                   offset=tensor_ref(offset)))
    return op


def _count(api):
    builder = require_builder(api)
    op = builder.emit("gather_mask_count")
    result = PlainValue(builder.new_value(), KT.uint64)
    op.result = result.id
    return result


def get_gather_mask_remain_count() -> PlainValue:
    """The count the last gather_mask kept, a uint64 traced scalar.

    Ascend C's GetGatherMaskRemainCount: the scalar unit reads the core's RSVD_CNT register once
    PIPE_V has finished, as the library's V_S sync does."""
    return _count("get_gather_mask_remain_count")


def _gather_mask(api, kind, allowed):
    def op(dst: LocalTensor, src0: LocalTensor, src1_pattern: Union[LocalTensor, RuntimeInt],
           reduce_mode: bool, mask: RuntimeInt, params: GatherMaskParams, *rest,
           **kwargs) -> PlainValue:
        require_builder(api)
        gather_mask_mode = _gather_mask_mode(api, rest, kwargs)
        _tensors(api, dst=dst, src0=src0)
        _same_dtype(api, allowed, dst=dst, src0=src0)
        pattern_tensor = isinstance(src1_pattern, LocalTensor)
        if pattern_tensor:
            _tensors(api, src1_pattern=src1_pattern)
            _need(api, "src1_pattern", src1_pattern,
                  KT.uint16 if dst.dtype.sizeof() == 2 else KT.uint32)
        elif not runtime_int(src1_pattern):
            raise TypeError(f"{api}(): src1_pattern must be a LocalTensor or a built-in pattern "
                            f"1..7, got {type(src1_pattern).__name__}")
        reduce = ConstExpr.unwrap(reduce_mode)
        if not isinstance(reduce, bool):
            raise TypeError(f"{api}(): reduce_mode must be a bool, got {type(reduce).__name__}")
        if not runtime_int(mask):
            raise TypeError(f"{api}(): mask must be an int, got {type(mask).__name__}")
        if not isinstance(params, GatherMaskParams):
            raise TypeError(f"{api}(): params must be an asc.GatherMaskParams, got "
                            f"{type(params).__name__}")
        mode = ConstExpr.unwrap(gather_mask_mode)
        if isinstance(mode, bool) or mode not in iter(GatherMaskMode):
            raise TypeError(f"{api}(): gather_mask_mode must be an asc.GatherMaskMode, got "
                            f"{gather_mask_mode!r}")
        refs = dict(dst=tensor_ref(dst), src=tensor_ref(src0))
        if pattern_tensor:
            refs["offset"] = tensor_ref(src1_pattern)
        pattern_id = 0 if pattern_tensor else to_value(src1_pattern, KT.uint8).id
        mask_id = to_value(mask, KT.uint32).id
        times = to_value(params.repeat_times, KT.uint16).id
        src0_blk = to_value(params.src0_block_stride, KT.uint8).id
        src0_rep = to_value(params.src0_repeat_stride, KT.uint16).id
        src1_rep = to_value(params.src1_repeat_stride, KT.uint8).id
        zero = to_value(0, KT.uint8).id
        ir = _emit(api, kind, **refs)
        ir.pattern = pattern_id
        ir.reduce_mode = reduce
        ir.repeat.repeat_times = times
        ir.repeat.mask_len = mask_id
        ir.repeat.blk_stride.extend([zero, src0_blk])
        ir.repeat.rep_stride.extend([src1_rep, src0_rep])
        return _count(api)
    lead = _local("dst", "src0") + [("src1_pattern", "Union[LocalTensor, RuntimeInt]"),
                                    ("reduce_mode", "bool"), ("mask", "RuntimeInt"),
                                    ("params", "GatherMaskParams")]
    mode = Param("gather_mask_mode", lambda x: True, GatherMaskMode.DEFAULT, hint="GatherMaskMode")
    return set_forms(op, lead, [[mode], [Param("rsvd_cnt", runtime_int), mode]], "PlainValue")


def _gather_mask_mode(api, rest, kwargs):
    """gather_mask's tail in both of pyasc's spellings: `(..., params, gather_mask_mode)` and
    `(..., params, rsvd_cnt, gather_mask_mode)`. rsvd_cnt is Ascend C's uint64_t& out-parameter,
    which pyasc passes by value: it is checked and left as it was (the count is the result)."""
    if len(rest) > 2:
        raise TypeError(f"{api}() takes at most 8 positional arguments ({len(rest) + 6} given)")
    if len(rest) == 1 and isinstance(ConstExpr.unwrap(rest[0]), GatherMaskMode):
        values = {"gather_mask_mode": rest[0]}
    else:
        values = dict(zip(("rsvd_cnt", "gather_mask_mode"), rest))
    for name, value in kwargs.items():
        if name not in ("rsvd_cnt", "gather_mask_mode") or name in values:
            raise TypeError(f"{api}() got an unexpected or repeated keyword argument '{name}'")
        values[name] = value
    if "rsvd_cnt" in values and not runtime_int(values["rsvd_cnt"]):
        raise TypeError(f"{api}(): rsvd_cnt must be an int, got "
                        f"{type(values['rsvd_cnt']).__name__}")
    return values.get("gather_mask_mode", GatherMaskMode.DEFAULT)


def _transpose(api, kind, allowed):
    def op(dst: LocalTensor, src: LocalTensor, *args, **kwargs) -> None:
        require_builder(api)
        _tensors(api, dst=dst, src=src)

        def plain():
            _same_dtype(api, allowed, dst=dst, src=src)
            _emit(api, kind, dst=tensor_ref(dst), src=tensor_ref(src))

        def ext(shared_tmp_buffer, params):
            _tensors(api, shared_tmp_buffer=shared_tmp_buffer)
            _same_dtype(api, allowed, dst=dst, src=src)
            if shared_tmp_buffer.dtype != KT.uint8:
                raise TypeError(f"{api}(): shared_tmp_buffer must be a uint8 tensor, got "
                                f"{shared_tmp_buffer.dtype.name}")
            ttype = params.transpose_type
            if ttype not in (TransposeType.TRANSPOSE_ND2ND_B16, TransposeType.TRANSPOSE_NCHW2NHWC,
                             TransposeType.TRANSPOSE_NHWC2NCHW):
                raise NotImplementedError(
                    f"not supported by aicore-sim yet: transpose with {ttype.name} (the "
                    f"references define TRANSPOSE_ND2ND_B16, TRANSPOSE_NCHW2NHWC and "
                    f"TRANSPOSE_NHWC2NCHW)")
            refs = dict(dst=tensor_ref(dst), src=tensor_ref(src),
                        offset=tensor_ref(shared_tmp_buffer))
            dims = _ids([params.n_size, params.c_size, params.h_size, params.w_size], KT.uint16)
            ir = _emit(api, kind, **refs)
            ir.transpose_type = int(ttype)
            ir.n_size, ir.c_size, ir.h_size, ir.w_size = dims

        dispatch(api, [Overload([], plain), Overload(ext_params, ext)], args, kwargs)
    ext_params = [Param("shared_tmp_buffer", local_tensor),
                  Param("params", of_type(TransposeParamsExt))]
    return set_forms(op, _local("dst", "src"), [[], ext_params])


def _address_list(x) -> bool:
    return isinstance(x, (list, tuple)) and len(x) == 16 and all(runtime_int(v) for v in x)


_address_list.__name__ = "List[RuntimeInt] (16)"


def _tensor_list(x) -> bool:
    return isinstance(x, (list, tuple)) and len(x) == 16 and all(local_tensor(v) for v in x)


_tensor_list.__name__ = "List[LocalTensor] (16)"


def _trans_5hd(api, kind, allowed):
    def op(dst_list: Union[List[LocalTensor], List[RuntimeInt], LocalTensor],
           src_list: Union[List[LocalTensor], List[RuntimeInt], LocalTensor],
           params: TransDataTo5HDParams) -> None:
        require_builder(api)
        if not isinstance(params, TransDataTo5HDParams):
            raise TypeError(f"{api}(): params must be an asc.TransDataTo5HDParams, got "
                            f"{type(params).__name__}")

        def emit(fill, dtype):
            if dtype not in allowed:
                raise TypeError(f"{api}(): dtype {dtype} is not supported; allowed: "
                                f"{dtypes_text(allowed)}")
            times = to_value(params.repeat_times, KT.uint8).id
            reps = _ids([params.dst_rep_stride, params.src_rep_stride], KT.uint16)
            ir = require_builder(api).emit("vec_move")
            ir.kind = kind
            fill(ir)
            ir.dtype = dtype.to_ir()
            ir.dst_high_half = params.dst_high_half
            ir.src_high_half = params.src_high_half
            ir.repeat.repeat_times = times
            ir.repeat.rep_stride.extend(reps)

        def tensors(dst_list, src_list):
            dst_l, src_l = dst_list, src_list
            for name, lst in (("dst_list", dst_l), ("src_list", src_l)):
                check_ub(api, **{f"{name}[{i}]": t for i, t in enumerate(lst)})
            dtype = dst_l[0].dtype
            if any(t.dtype != dtype for t in list(dst_l) + list(src_l)):
                raise TypeError(f"{api}(): every tensor of dst_list and src_list must have the "
                                f"same dtype")
            dst_ids = [tensor_ref(t).addr for t in dst_l]
            src_ids = [tensor_ref(t).addr for t in src_l]

            def fill(ir):
                ir.dst_list.extend(dst_ids)
                ir.src_list.extend(src_ids)
            emit(fill, dtype)

        # Address forms carry no element type: the model takes 2-byte elements (half), the
        # layout pyasc's tests convert.
        def addresses(dst_list, src_list):
            dst_l, src_l = dst_list, src_list
            dst_ids = _ids(dst_l, KT.uint64)
            src_ids = _ids(src_l, KT.uint64)

            def fill(ir):
                ir.dst_list.extend(dst_ids)
                ir.src_list.extend(src_ids)
            emit(fill, KT.float16)

        def addr_tensors(dst_list, src_list):
            dst_l, src_l = dst_list, src_list
            _tensors(api, dst_list=dst_l, src_list=src_l)
            _need(api, "dst_list", dst_l, KT.uint64)
            _need(api, "src_list", src_l, KT.uint64)
            refs = (tensor_ref(dst_l), tensor_ref(src_l))

            def fill(ir):
                ir.dst_addrs.CopyFrom(refs[0])
                ir.src_addrs.CopyFrom(refs[1])
            emit(fill, KT.float16)

        dispatch(api, [Overload(lists, fn) for lists, fn in
                       zip(forms, (tensors, addresses, addr_tensors))], (dst_list, src_list), {})
    forms = [[Param(name, check, hint=hint) for name in ("dst_list", "src_list")]
             for check, hint in ((_tensor_list, "List[LocalTensor]"),
                                 (_address_list, "List[RuntimeInt]"),
                                 (local_tensor, "LocalTensor"))]
    params = Param("params", of_type(TransDataTo5HDParams))
    return set_forms(op, [], [lists + [params] for lists in forms])


_BY_KIND = {_K.BRCB: _brcb, _K.GATHER: _gather_scatter, _K.SCATTER: _gather_scatter,
            _K.GATHERB: _gatherb, _K.GATHER_MASK: _gather_mask, _K.TRANSPOSE: _transpose,
            _K.TRANS_DATA_TO_5HD: _trans_5hd}


def move_maker(api, ir_op, kind, allowed):
    op = _BY_KIND[kind](api, kind, allowed)
    op.__name__ = op.__qualname__ = api
    return op
