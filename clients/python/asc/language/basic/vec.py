"""Vector instructions on UB tensors (asc-api.md 4.5-4.7): binary, unary and scalar-vector
element-wise ops, all issued to PIPE_V, each in its count form and its two mask/repeat forms
(a continuous mask `mask: int`, or a bit mask `mask: [low_word, high_word]`).

The op list, the IR kind of each op and the element types it accepts come from the simulator's
instruction table (asc/_isa.py, generated from sim/isa/instructions.def at build time): one API
function per row, so adding an instruction there adds it here. Each function's docstring
is made from the row (its element types and call forms) and vec_docs.py (what the op computes
and how it rounds); its call forms are declared as typing overloads (typing.get_overloads).
"""
from __future__ import annotations

import importlib
import inspect
from typing import Union

from asc import _isa
from asc.codegen.builder import require_builder
from asc.language.core.dispatch import (Overload, Param, declare_overloads, dispatch,
                                        form_signature, forms_text, of_type, set_forms)
from asc.language.core.constexpr import ConstExpr
from asc.language.core.dtype import KnownTypes as KT
from asc.language.core.enums import CMPMODE, PipeID, ReduceOrder, RoundMode, SelMode
from asc.language.core.hints import RuntimeNumber
from asc.language.core.ir_value import PlainValue, is_runtime_int, is_runtime_number, to_value
from asc.language.core.tensor import LocalTensor, tensor_ref
from asc.language.core.types import BinaryRepeatParams, CopyRepeatParams, UnaryRepeatParams
from asc.language.basic.common import (check_same_dtype as _check_dtypes, check_ub,
                                       unsupported_dtype,
                                       is_bool, local_tensor,
                                       require_local_tensors as _require_tensors, runtime_int)
from asc.language.basic import vec_docs


def _number(x) -> bool:
    return is_runtime_number(x)


_number.__name__ = "RuntimeNumber"


def bit_mask(x) -> bool:
    """A two-word bit mask: [bits of elements 0..63, bits of elements 64..127]."""
    return isinstance(x, (list, tuple)) and len(x) == 2 and all(is_runtime_int(w) for w in x)


bit_mask.__name__ = "List[RuntimeInt]"


def _enum_arg(api, name, value, enum, choices):
    """A compile-time enum argument (round_mode, cmp_mode, sel_mode) as its enum member."""
    mode = ConstExpr.unwrap(value)
    if isinstance(mode, bool) or not isinstance(mode, int) or mode not in iter(enum):
        raise TypeError(f"{api}(): {name} must be an asc.{enum.__name__} ({choices}), "
                        f"got {value!r}")
    return enum(mode)


def mask_fields(mask):
    """The VecRepeat fields of the mask an instruction loads, traced now: a continuous length, or
    [low_word, high_word]."""
    if isinstance(mask, (list, tuple)):
        return {"mask_lo": to_value(mask[0], KT.uint64).id,
                "mask_hi": to_value(mask[1], KT.uint64).id}
    return {"mask_len": to_value(mask, KT.int64).id}


def repeat_fields(mask, repeat_times, repeat_params, is_set_mask):
    """The VecRepeat of an op: the mask it loads (none with is_set_mask=False: the mask register
    as set_vector_mask left it), the iterations and the strides of repeat_params. The values are
    traced now, before the op that uses them is emitted; the returned function fills the op."""
    times = to_value(repeat_times, KT.uint8).id if repeat_times is not None else 0
    mask_ids = mask_fields(mask) if is_set_mask else {}
    blk, reps = repeat_params.strides()
    blk_ids = [to_value(v, KT.uint16).id for v in blk]
    rep_ids = [to_value(v, KT.uint16).id for v in reps]

    def fill(ir):
        rep = ir.repeat
        rep.repeat_times = times
        for field, value in mask_ids.items():
            setattr(rep, field, value)
        rep.blk_stride.extend(blk_ids)
        rep.rep_stride.extend(rep_ids)
    return fill


def count_fields(count):
    """The count of a count-form op, traced before the op is emitted."""
    count_id = to_value(count, KT.int32).id
    return lambda ir: setattr(ir, "count", count_id)


def _form_params(params_type, count_params):
    """The parameters of the count form and of both mask/repeat forms of one op."""
    repeat_params = [Param("repeat_times", runtime_int),
                     Param("repeat_params", of_type(params_type)),
                     Param("is_set_mask", is_bool, True)]
    return [list(count_params), [Param("mask", runtime_int)] + repeat_params,
            [Param("mask", bit_mask)] + repeat_params]


def _forms(api, params_type, count_params, emit):
    """The count form and both mask/repeat forms of one op; `emit(fill)` emits the op after the
    checks, `fill(ir)` setting its count or repeat fields (traced before the op)."""
    def count_form(count, is_set_mask=True):
        emit(count_fields(count))

    def repeat_form(mask, repeat_times, repeat_params, is_set_mask=True):
        emit(repeat_fields(mask, repeat_times, repeat_params, is_set_mask))

    count, mask, bits = _form_params(params_type, count_params)
    return [Overload(count, count_form), Overload(mask, repeat_form),
            Overload(bits, repeat_form)]


def _tensors(*names):
    """The leading (name, hint) parameters of the call forms: LocalTensors."""
    return [(name, "LocalTensor") for name in names]


def _binary(api, ir_op, kind, allowed):
    def op(dst: LocalTensor, src0: LocalTensor, src1: LocalTensor, *args, **kwargs) -> None:
        require_builder(api)

        def emit(setup):
            check_ub(api, dst=dst, src0=src0, src1=src1)
            _check_dtypes(api, allowed, dst=dst, src0=src0, src1=src1)
            refs = [tensor_ref(t) for t in (dst, src0, src1)]
            ir = require_builder(api).emit(ir_op)
            ir.kind = kind
            ir.dst.CopyFrom(refs[0])
            ir.src0.CopyFrom(refs[1])
            ir.src1.CopyFrom(refs[2])
            setup(ir)

        _require_tensors(api, dst=dst, src0=src0, src1=src1)
        dispatch(api, _forms(api, BinaryRepeatParams, count, emit), args, kwargs)
    count = [Param("count", runtime_int), Param("is_set_mask", is_bool, True)]
    op.__name__ = op.__qualname__ = api
    return set_forms(op, _tensors("dst", "src0", "src1"),
                     _form_params(BinaryRepeatParams, count))


# (src, dst) pairs of the binary ops that convert their result (asc-api.md 4.5).
_BINARY_CAST_PAIRS = {
    "mul_cast": ((KT.float16, KT.int8), (KT.float16, KT.uint8)),
    "add_relu_cast": ((KT.float16, KT.int8), (KT.float32, KT.float16), (KT.int16, KT.int8)),
    "sub_relu_cast": ((KT.float16, KT.int8), (KT.float32, KT.float16), (KT.int16, KT.int8)),
    "add_deq_relu": ((KT.int32, KT.float16),),
}


def _binary_cast(api, ir_op, kind, allowed):
    pairs = _BINARY_CAST_PAIRS[api]
    # mul_cast has no is_set_mask parameter (asc-api.md 4.5).
    set_mask = [] if api == "mul_cast" else [Param("is_set_mask", is_bool, True)]

    def op(dst: LocalTensor, src0: LocalTensor, src1: LocalTensor, *args, **kwargs) -> None:
        require_builder(api)

        def emit(setup):
            check_ub(api, dst=dst, src0=src0, src1=src1)
            if src0.dtype != src1.dtype:
                raise TypeError(f"{api}(): src0 and src1 must have the same dtype, got "
                                f"src0={src0.dtype}, src1={src1.dtype}")
            if (src0.dtype, dst.dtype) not in pairs:
                listing = ", ".join(f"{s} -> {d}" for s, d in pairs)
                raise TypeError(f"{api}(): {src0.dtype} -> {dst.dtype} is not supported; "
                                f"allowed: {listing}")
            refs = [tensor_ref(t) for t in (dst, src0, src1)]
            ir = require_builder(api).emit(ir_op)
            ir.kind = kind
            ir.dst.CopyFrom(refs[0])
            ir.src0.CopyFrom(refs[1])
            ir.src1.CopyFrom(refs[2])
            setup(ir)

        def count_form(count, is_set_mask=True):
            emit(count_fields(count))

        def repeat_form(mask, repeat_times, repeat_params, is_set_mask=True):
            emit(repeat_fields(mask, repeat_times, repeat_params, is_set_mask))

        _require_tensors(api, dst=dst, src0=src0, src1=src1)
        dispatch(api, [Overload(params, fn) for params, fn in
                       zip(forms, (count_form, repeat_form, repeat_form))], args, kwargs)
    tail = [Param("repeat_times", runtime_int),
            Param("repeat_params", of_type(BinaryRepeatParams))] + set_mask
    forms = [[Param("count", runtime_int)] + set_mask, [Param("mask", runtime_int)] + tail,
             [Param("mask", bit_mask)] + tail]
    op.__name__ = op.__qualname__ = api
    return set_forms(op, _tensors("dst", "src0", "src1"), forms)


def _emit_dst_src(api, ir_op, dst, src, setup, **fields):
    """One op of a dst and a src tensor: `fields` set on it, then `setup(ir)` (count or repeat
    fields, traced before)."""
    ir = require_builder(api).emit(ir_op)
    for name, value in fields.items():
        setattr(ir, name, value)
    ir.dst.CopyFrom(tensor_ref(dst))
    ir.src.CopyFrom(tensor_ref(src))
    setup(ir)


def _one_source_op(api, ir_op, dst, src, args, kwargs, check=None, **fields):
    """The count form and both mask/repeat forms (UnaryRepeatParams) of a one-source op (unary,
    cast, cast_deq): `check()` runs after the UB check, `fields` are set on the op."""
    def emit(setup):
        check_ub(api, dst=dst, src=src)
        if check is not None:
            check()
        _emit_dst_src(api, ir_op, dst, src, setup, **fields)

    _require_tensors(api, dst=dst, src=src)
    dispatch(api, _forms(api, UnaryRepeatParams, [Param("count", runtime_int)], emit),
             args, kwargs)


def _one_source_forms():
    return _form_params(UnaryRepeatParams, [Param("count", runtime_int)])


def _unary(api, ir_op, kind, allowed):
    def op(dst: LocalTensor, src: LocalTensor, *args, **kwargs) -> None:
        require_builder(api)

        _one_source_op(api, ir_op, dst, src, args, kwargs,
                       lambda: _check_dtypes(api, allowed, dst=dst, src=src), kind=kind)
    op.__name__ = op.__qualname__ = api
    return set_forms(op, _tensors("dst", "src"), _one_source_forms())


def _scalar(api, ir_op, kind, allowed):
    def op(dst: LocalTensor, src: LocalTensor, scalar: RuntimeNumber, *args, **kwargs) -> None:
        require_builder(api)

        def emit(setup):
            check_ub(api, dst=dst, src=src)
            # axpy's mixed form: half src, float dst and scalar (ascendc-semantics.md 5.8c).
            mixed = api == "axpy" and (src.dtype, dst.dtype) == (KT.float16, KT.float32)
            if not mixed:
                _check_dtypes(api, allowed, dst=dst, src=src)
            if not _number(scalar):
                raise TypeError(f"{api}(): scalar must be a number or a traced scalar, "
                                f"got {type(scalar).__name__}")
            refs = [tensor_ref(t) for t in (dst, src)]
            # asc-api.md 4.7: the scalar is converted to the tensor dtype first.
            scalar_id = to_value(scalar, dst.dtype if mixed else src.dtype).id
            ir = require_builder(api).emit(ir_op)
            ir.kind = kind
            ir.dst.CopyFrom(refs[0])
            ir.src.CopyFrom(refs[1])
            ir.scalar = scalar_id
            setup(ir)

        _require_tensors(api, dst=dst, src=src)
        dispatch(api, _forms(api, UnaryRepeatParams, count, emit), args, kwargs)
    count = [Param("count", runtime_int), Param("is_set_mask", is_bool, True)]
    op.__name__ = op.__qualname__ = api
    return set_forms(op, _tensors("dst", "src") + [("scalar", "RuntimeNumber")],
                     _form_params(UnaryRepeatParams, count))


def _fill(api, ir_op, kind, allowed):
    def op(dst: LocalTensor, scalar: RuntimeNumber, *args, **kwargs) -> None:
        require_builder(api)

        def emit(setup):
            check_ub(api, dst=dst)
            _check_dtypes(api, allowed, dst=dst)
            if not _number(scalar):
                raise TypeError(f"{api}(): scalar must be a number or a traced scalar, "
                                f"got {type(scalar).__name__}")
            scalar_id = to_value(scalar, dst.dtype).id
            ir = require_builder(api).emit(ir_op)
            ir.kind = kind
            ir.dst.CopyFrom(tensor_ref(dst))
            ir.scalar = scalar_id
            setup(ir)

        def count_form(count, is_set_mask=True):
            emit(count_fields(count))

        def repeat_form(mask, repeat_times, dst_block_stride, dst_repeat_stride,
                        is_set_mask=True):
            strides = _Strides((dst_block_stride,), (dst_repeat_stride,))
            emit(repeat_fields(mask, repeat_times, strides, is_set_mask))

        _require_tensors(api, dst=dst)
        dispatch(api, [Overload(params, fn) for params, fn in
                       zip(forms, (count_form, repeat_form, repeat_form))], args, kwargs)
    tail = [Param("repeat_times", runtime_int), Param("dst_block_stride", runtime_int),
            Param("dst_repeat_stride", runtime_int), Param("is_set_mask", is_bool, True)]
    forms = [[Param("count", runtime_int), Param("is_set_mask", is_bool, True)],
             [Param("mask", runtime_int)] + tail, [Param("mask", bit_mask)] + tail]
    op.__name__ = op.__qualname__ = api
    return set_forms(op, _tensors("dst") + [("scalar", "RuntimeNumber")], forms)




def _cast(api, ir_op, kind, allowed):
    def op(dst: LocalTensor, src: LocalTensor, round_mode: RoundMode, *args, **kwargs) -> None:
        require_builder(api)
        mode = _enum_arg(api, "round_mode", round_mode, RoundMode, "CAST_NONE, CAST_RINT, ...")
        # Which (src, dst, mode) triples the chip converts is checked by the simulator, which
        # names the legal modes (pyasc passes dtypes through to the compiler).
        _one_source_op(api, ir_op, dst, src, args, kwargs, round_mode=int(mode))
    op.__name__ = op.__qualname__ = api
    return set_forms(op, _tensors("dst", "src") + [("round_mode", "RoundMode")],
                     _one_source_forms())


def _cast_deq(api, ir_op, kind, allowed):
    def op(dst: LocalTensor, src: LocalTensor, *args, **kwargs) -> None:
        require_builder(api)

        def check():
            if src.dtype != KT.int16 or dst.dtype not in (KT.int8, KT.uint8):
                raise TypeError(f"{api}(): converts int16 to int8 or uint8, got {src.dtype} -> "
                                f"{dst.dtype}")

        _one_source_op(api, ir_op, dst, src, args, kwargs, check, deq=True)
    op.__name__ = op.__qualname__ = api
    return set_forms(op, _tensors("dst", "src"), _one_source_forms())


# The reductions' positional tails after (dst, src) (asc-api.md 4.10): their argument orders
# differ; "order" only for whole_reduce_max/min, which have no is_set_mask.
_REDUCE_TAILS = {
    "whole_reduce_sum": ("mask", "repeat_time", "dst_rep_stride", "src_blk_stride",
                         "src_rep_stride", "is_set_mask"),
    "whole_reduce_max": ("mask", "repeat_time", "dst_rep_stride", "src_blk_stride",
                         "src_rep_stride", "order"),
    "whole_reduce_min": ("mask", "repeat_time", "dst_rep_stride", "src_blk_stride",
                         "src_rep_stride", "order"),
    "block_reduce_sum": ("repeat", "mask", "dst_rep_stride", "src_blk_stride", "src_rep_stride"),
    "block_reduce_max": ("repeat", "mask", "dst_rep_stride", "src_blk_stride", "src_rep_stride"),
    "block_reduce_min": ("repeat", "mask", "dst_rep_stride", "src_blk_stride", "src_rep_stride"),
    "pair_reduce_sum": ("repeat_time", "mask", "dst_rep_stride", "src_blk_stride",
                        "src_rep_stride", "is_set_mask"),
}
_REDUCE_UNITS = {"whole_reduce_sum": "elements", "whole_reduce_max": "results",
                 "whole_reduce_min": "results", "block_reduce_sum": "8-element groups",
                 "block_reduce_max": "8-element groups", "block_reduce_min": "8-element groups",
                 "pair_reduce_sum": "half iterations"}


def _reduce_params(names, int_mask_only=False):
    """The overloads' parameters of one reduction tail: mask as an int, then as a bit mask."""
    def params(mask_check):
        out = []
        for name in names:
            if name == "mask":
                out.append(Param("mask", mask_check))
            elif name == "is_set_mask":
                out.append(Param("is_set_mask", is_bool, True))
            elif name == "order":
                out.append(Param("order", lambda _: True, ReduceOrder.ORDER_VALUE_INDEX,
                                 "ReduceOrder"))
            else:
                out.append(Param(name, runtime_int))
        return out
    return [params(runtime_int)] + ([] if int_mask_only else [params(bit_mask)])


def emit_reduce(api, ir_op, kind, allowed, dst, src, mask, repeat, dst_rep_stride,
                src_blk_stride, src_rep_stride, is_set_mask=True, order=None, accumulate=False):
    """One reduction instruction: dst_rep_stride counts one iteration's results. `accumulate`
    (whole_reduce_sum only) is vcadd's flag: the iterations' total also goes to ACC_VAL."""
    check_ub(api, dst=dst, src=src)
    _check_dtypes(api, allowed, dst=dst, src=src)
    fill = repeat_fields(mask, repeat,
                         _Strides((1, src_blk_stride), (dst_rep_stride, src_rep_stride)),
                         is_set_mask)
    ir = require_builder(api).emit(ir_op)
    ir.kind = kind
    ir.dst.CopyFrom(tensor_ref(dst))
    ir.src.CopyFrom(tensor_ref(src))
    if order is not None:
        ir.order = int(order)
    if accumulate:
        ir.accumulate = True
    fill(ir)


def acc_val_read(api, dtype):
    """The ACC_VAL register as a `dtype` value: a scalar-unit read, after V_S."""
    op = require_builder(api).emit("acc_val_read")
    value = PlainValue(require_builder(api).new_value(), dtype)
    op.result = value.id
    op.dtype = dtype.to_ir()
    return value


def _reduce(api, ir_op, kind, allowed):
    tail = _REDUCE_TAILS[api]

    def op(dst: LocalTensor, src: LocalTensor, *args, **kwargs) -> None:
        require_builder(api)

        def form(mask, dst_rep_stride, src_blk_stride, src_rep_stride, repeat_time=None,
                 repeat=None, is_set_mask=True, order=None):
            if order is not None:
                order = _enum_arg(api, "order", order, ReduceOrder,
                                  "ORDER_VALUE_INDEX, ORDER_INDEX_VALUE, ORDER_ONLY_VALUE, "
                                  "ORDER_ONLY_INDEX")
            emit_reduce(api, ir_op, kind, allowed, dst, src, mask,
                        repeat if repeat is not None else repeat_time, dst_rep_stride,
                        src_blk_stride, src_rep_stride, is_set_mask, order)

        _require_tensors(api, dst=dst, src=src)
        dispatch(api, [Overload(p, form) for p in _reduce_params(tail)], args, kwargs)
    op.__name__ = op.__qualname__ = api
    return set_forms(op, _tensors("dst", "src"), _reduce_params(tail))


def _compare(api, ir_op, kind, allowed):
    scalar_form = api == "compare_scalar"
    params_type = UnaryRepeatParams if scalar_form else BinaryRepeatParams

    def op(dst: LocalTensor, src0: LocalTensor, src1: Union[LocalTensor, RuntimeNumber],
           cmp_mode: CMPMODE, *args, **kwargs) -> None:
        require_builder(api)
        mode = _enum_arg(api, "cmp_mode", cmp_mode, CMPMODE, "LT, GT, EQ, LE, GE, NE")

        def emit(setup):
            tensors = {"dst": dst, "src0": src0} if scalar_form else \
                {"dst": dst, "src0": src0, "src1": src1}
            check_ub(api, **tensors)
            if src0.dtype not in allowed:
                raise unsupported_dtype(api, src0.dtype, allowed)
            scalar_id = 0
            if scalar_form:
                if not _number(src1):
                    raise TypeError(f"{api}(): src1_scalar must be a number or a traced scalar, "
                                    f"got {type(src1).__name__}")
                scalar_id = to_value(src1, src0.dtype).id  # defined before the op uses it
            ir = require_builder(api).emit(ir_op)
            ir.kind = kind
            ir.dst.CopyFrom(tensor_ref(dst))
            ir.src0.CopyFrom(tensor_ref(src0))
            if scalar_form:
                ir.scalar = scalar_id
            else:
                ir.src1.CopyFrom(tensor_ref(src1))
            ir.cmp_mode = int(mode)
            setup(ir)

        def count_form(count):
            emit(count_fields(count))

        def repeat_form(mask, repeat_times, repeat_params):
            # The mask is ignored by compares to UB on the chip; it is still part of the call.
            emit(repeat_fields(mask, repeat_times, repeat_params, False))

        _require_tensors(api, dst=dst, src0=src0)
        if not scalar_form:
            _require_tensors(api, src1=src1)
        dispatch(api, [Overload(params, fn) for params, fn in
                       zip(forms, (count_form, repeat_form, repeat_form))], args, kwargs)

    tail = [Param("repeat_times", runtime_int), Param("repeat_params", of_type(params_type))]
    forms = [[Param("count", runtime_int)], [Param("mask", runtime_int)] + tail,
             [Param("mask", bit_mask)] + tail]
    lead = _tensors("dst", "src0") + [("src1", "RuntimeNumber" if scalar_form else "LocalTensor"),
                                      ("cmp_mode", "CMPMODE")]

    def register_form(src0, src1, cmp_mode, mask, repeat_params):
        # vcmp: one iteration that honours the mask and writes the CMPMASK register (5.6).
        builder = require_builder(api)
        mode = _enum_arg(api, "cmp_mode", cmp_mode, CMPMODE, "LT, GT, EQ, LE, GE, NE")
        _require_tensors(api, src0=src0, src1=src1)
        check_ub(api, src0=src0, src1=src1)
        _check_dtypes(api, allowed, src0=src0, src1=src1)
        if not (runtime_int(mask) or bit_mask(mask)):
            raise TypeError(f"{api}(): mask must be an int or [low_word, high_word], got "
                            f"{type(mask).__name__}")
        if not isinstance(repeat_params, params_type):
            raise TypeError(f"{api}(): repeat_params must be a {params_type.__name__}, got "
                            f"{type(repeat_params).__name__}")
        fill = repeat_fields(mask, None, repeat_params, True)
        ir = builder.emit(ir_op)
        ir.kind = kind
        ir.src0.CopyFrom(tensor_ref(src0))
        ir.src1.CopyFrom(tensor_ref(src1))
        ir.cmp_mode = int(mode)
        ir.to_cmp_mask = True
        fill(ir)

    def entry(*args, **kwargs) -> None:
        # compare(src0, src1, cmp_mode, mask, repeat_params): no dst, so the third argument is
        # the compare mode rather than a tensor.
        register = not scalar_form and "dst" not in kwargs and (
            (len(args) >= 3 and not local_tensor(args[2])) or
            (len(args) == 2 and "src1" not in kwargs and "cmp_mode" in kwargs))
        if register:
            require_builder(api)
            return dispatch(api, [Overload([Param("src0", local_tensor),
                                            Param("src1", local_tensor),
                                            Param("cmp_mode", lambda x: True),
                                            Param("mask", lambda x: True),
                                            Param("repeat_params", lambda x: True)],
                                           register_form)], args, kwargs)
        return op(*args, **kwargs)
    if not scalar_form:
        entry.__name__ = entry.__qualname__ = api
        set_forms(entry, lead, forms)
        register = [Param("src0", local_tensor), Param("src1", local_tensor),
                    Param("cmp_mode", lambda x: True, hint="CMPMODE"),
                    Param("mask", lambda x: True, hint="VectorMask"),
                    Param("repeat_params", lambda x: True, hint="BinaryRepeatParams")]
        entry._forms.append(form_signature(register))
        return entry
    op.__name__ = op.__qualname__ = api
    return set_forms(op, lead, forms)


def _select(api, ir_op, kind, allowed):
    def op(dst, sel_mask, src0, src1, sel_mode, *args, **kwargs):
        require_builder(api)
        mode = _enum_arg(api, "sel_mode", sel_mode, SelMode,
                         "VSEL_CMPMASK_SPR, VSEL_TENSOR_TENSOR_MODE, VSEL_TENSOR_SCALAR_MODE")
        register_mode = mode == SelMode.VSEL_CMPMASK_SPR
        tensor_mode = mode != SelMode.VSEL_TENSOR_SCALAR_MODE
        count_form = [False]

        def emit(fill):
            tensors = {"dst": dst, "sel_mask": sel_mask, "src0": src0}
            if tensor_mode:
                tensors["src1"] = src1
            check_ub(api, **tensors)
            _check_dtypes(api, allowed, **{k: v for k, v in tensors.items() if k != "sel_mask"})
            scalar_id = 0
            if not tensor_mode:
                if not _number(src1):
                    raise TypeError(f"{api}(): with VSEL_TENSOR_SCALAR_MODE src1 must be a "
                                    f"number or a traced scalar, got {type(src1).__name__}")
                scalar_id = to_value(src1, src0.dtype).id
            builder = require_builder(api)
            if register_mode:
                # The library loads CMPMASK from sel_mask and waits for it (5.7); every
                # iteration then reuses the same bits.
                _emit_cmp_mask("set_cmp_mask", _CMP_MASK_KINDS["set_cmp_mask"], sel_mask)
                builder.emit("pipe_barrier").pipe = int(PipeID.PIPE_V)
            ir = builder.emit(ir_op)
            ir.dst.CopyFrom(tensor_ref(dst))
            if not register_mode:
                ir.sel_mask.CopyFrom(tensor_ref(sel_mask))
            ir.src0.CopyFrom(tensor_ref(src0))
            if tensor_mode:
                ir.src1.CopyFrom(tensor_ref(src1))
            else:
                ir.scalar = scalar_id
            ir.sel_mode = int(mode)
            fill(ir)
            if register_mode and count_form[0]:
                builder.emit("pipe_barrier").pipe = int(PipeID.PIPE_V)

        _require_tensors(api, dst=dst, sel_mask=sel_mask, src0=src0)
        if tensor_mode:
            _require_tensors(api, src1=src1)
        count_form[0] = _is_count_call(args, kwargs)
        dispatch(api, _forms(api, BinaryRepeatParams, [Param("count", runtime_int)], emit),
                 args, kwargs)

    def scalar_register_form(dst, sel_mask, src0, repeat_times, repeat_params):
        # VSEL_TENSOR_SCALAR_MODE as the instruction has it: the scalar is what CMPMASK holds
        # (its first element), sel_mask's bits are streamed; the mask register as it is.
        _require_tensors(api, dst=dst, sel_mask=sel_mask, src0=src0)
        check_ub(api, dst=dst, sel_mask=sel_mask, src0=src0)
        _check_dtypes(api, allowed, dst=dst, src0=src0)
        if not isinstance(repeat_params, BinaryRepeatParams):
            raise TypeError(f"{api}(): repeat_params must be a BinaryRepeatParams, got "
                            f"{type(repeat_params).__name__}")
        fill = repeat_fields(None, repeat_times, repeat_params, False)
        ir = require_builder(api).emit(ir_op)
        ir.dst.CopyFrom(tensor_ref(dst))
        ir.sel_mask.CopyFrom(tensor_ref(sel_mask))
        ir.src0.CopyFrom(tensor_ref(src0))
        ir.sel_mode = int(SelMode.VSEL_TENSOR_SCALAR_MODE)
        ir.from_cmp_mask = True
        fill(ir)

    def register_form(dst, src0, src1, repeat_times, repeat_params, sel_mode):
        # Bits from CMPMASK as set_cmp_mask or compare's register form left it; the mask
        # register as it is (the call loads none). In VSEL_TENSOR_SCALAR_MODE CMPMASK holds the
        # scalar and src1 is the selection mask the instruction streams (5.7).
        builder = require_builder(api)
        mode = _enum_arg(api, "sel_mode", sel_mode, SelMode,
                         "VSEL_CMPMASK_SPR, VSEL_TENSOR_SCALAR_MODE, VSEL_TENSOR_TENSOR_MODE")
        if mode == SelMode.VSEL_TENSOR_SCALAR_MODE:
            return scalar_register_form(dst, src1, src0, repeat_times, repeat_params)
        # VSEL_TENSOR_TENSOR_MODE: CMPMASK holds the UB address of the selection bits.
        _require_tensors(api, dst=dst, src0=src0, src1=src1)
        check_ub(api, dst=dst, src0=src0, src1=src1)
        _check_dtypes(api, allowed, dst=dst, src0=src0, src1=src1)
        if not isinstance(repeat_params, BinaryRepeatParams):
            raise TypeError(f"{api}(): repeat_params must be a BinaryRepeatParams, got "
                            f"{type(repeat_params).__name__}")
        fill = repeat_fields(None, repeat_times, repeat_params, False)
        ir = builder.emit(ir_op)
        ir.dst.CopyFrom(tensor_ref(dst))
        ir.src0.CopyFrom(tensor_ref(src0))
        ir.src1.CopyFrom(tensor_ref(src1))
        ir.sel_mode = int(mode)
        ir.from_cmp_mask = mode == SelMode.VSEL_TENSOR_TENSOR_MODE
        fill(ir)

    # The register forms, by pyasc's parameter names so any keyword spelling binds; a call that
    # binds neither is one of the sel_mask forms.
    register_forms = [
        Overload([Param("dst", local_tensor), Param("src0", local_tensor),
                  Param("src1", local_tensor), Param("repeat_times", runtime_int),
                  Param("repeat_params", of_type(BinaryRepeatParams)),
                  Param("sel_mode", lambda x: True, hint="SelMode")], register_form),
        Overload([Param("dst", local_tensor), Param("sel_mask", local_tensor),
                  Param("src0", local_tensor), Param("repeat_times", runtime_int),
                  Param("repeat_params", of_type(BinaryRepeatParams))], scalar_register_form)]

    def entry(*args, **kwargs) -> None:
        for form in register_forms:
            bound = form.bind(args, kwargs)
            if bound is not None:
                require_builder(api)
                return form.fn(**bound)
        return op(*args, **kwargs)
    entry.__name__ = entry.__qualname__ = api
    lead = _tensors("dst", "sel_mask", "src0") + [("src1", "Union[LocalTensor, RuntimeNumber]"),
                                                  ("sel_mode", "SelMode")]
    set_forms(entry, lead, _form_params(BinaryRepeatParams, [Param("count", runtime_int)]))
    entry._forms += [form_signature(f.params) for f in reversed(register_forms)]
    return entry


def _is_count_call(args, kwargs):
    """True when an op's arguments after its operands are the count form's (one int)."""
    return "count" in kwargs or ("mask" not in kwargs and len(args) == 1)


_CMP_MASK_KINDS = {"set_cmp_mask": 1, "get_cmp_mask": 2}


def _emit_cmp_mask(api, kind, tensor):
    ir = require_builder(api).emit("vec_cmp_mask")
    ir.kind = kind
    ir.tensor.CopyFrom(tensor_ref(tensor))


def _cmp_mask(api, ir_op, kind, allowed):
    name = "src" if api == "set_cmp_mask" else "dst"

    def op(*args, **kwargs) -> None:
        require_builder(api)

        def move(**bound):
            tensor = bound[name]
            _require_tensors(api, **{name: tensor})
            check_ub(api, **{name: tensor})
            if tensor.dtype not in allowed:
                raise unsupported_dtype(api, tensor.dtype, allowed)
            _emit_cmp_mask(api, kind, tensor)

        dispatch(api, [Overload(params, move)], args, kwargs)
    params = [Param(name, lambda x: True, hint="LocalTensor")]
    op.__name__ = op.__qualname__ = api
    return set_forms(op, [], [params])


def _any(x) -> bool:
    return True


_any.__name__ = "bool"


def _copy(api, ir_op, kind, allowed):
    def op(dst: LocalTensor, src: LocalTensor, *args, **kwargs) -> None:
        require_builder(api)

        def repeat_form(mask, repeat_time, repeat_params, is_set_mask=True):
            if not isinstance(ConstExpr.unwrap(is_set_mask), bool):
                raise TypeError(f"{api}(): is_set_mask must be True or False, got "
                                f"{is_set_mask!r}")
            check_ub(api, dst=dst, src=src)
            _check_dtypes(api, allowed, dst=dst, src=src)
            fill = repeat_fields(mask, repeat_time, repeat_params,
                                 ConstExpr.unwrap(is_set_mask))
            _emit_dst_src(api, ir_op, dst, src, fill, kind=kind)

        _require_tensors(api, dst=dst, src=src)
        dispatch(api, [Overload(params, repeat_form) for params in forms], args, kwargs)
    tail = [Param("repeat_time", runtime_int),
            Param("repeat_params", of_type(CopyRepeatParams)),
            Param("is_set_mask", _any, True)]
    forms = [[Param("mask", runtime_int)] + tail, [Param("mask", bit_mask)] + tail]
    op.__name__ = op.__qualname__ = api
    return set_forms(op, _tensors("dst", "src"), forms)


class _Strides:
    """Strides given as plain ints rather than a params struct: (block strides, repeat strides)."""

    def __init__(self, blk, rep):
        self._blk, self._rep = tuple(blk), tuple(rep)

    def strides(self):
        return self._blk, self._rep


from asc.language.basic import vec_move as _vec_move  # noqa: E402 (it uses the helpers above)


def _maker(where):
    module, _, name = where.partition(":")
    return getattr(importlib.import_module(module), name)


# Each layout's maker, as the layout table names it (asc/_isa.py LAYOUT_MAKERS); cast_deq is a
# cast row with a signature of its own.
_MAKERS = {layout: _maker(where) for layout, where in _isa.LAYOUT_MAKERS.items()}
_MAKERS["cast_deq"] = _cast_deq

def document(fn, layout: str, dtypes) -> None:
    """Gives a table-made API function its docstring (vec_docs.py and the row's element types
    and call forms) and declares its call forms as typing overloads when it has several."""
    forms = getattr(fn, "_forms", None) or [inspect.signature(fn)]
    if len(forms) > 1 or any(p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD)
                             for p in inspect.signature(fn).parameters.values()):
        declare_overloads(fn, forms)
    fn.__doc__ = vec_docs.docstring(fn.__name__, layout, [d.name for d in dtypes],
                                    forms_text(fn.__name__, forms))


__all__ = list(_vec_move.__all__)
get_gather_mask_remain_count = _vec_move.get_gather_mask_remain_count
for _api, _ir_op, _kind, _layout, _dtypes, _forms_of_row in _isa.VECTOR_OPS:
    # pyasc has no bfloat16: the simulator's bf16 rows are reachable from C++ and the IR only.
    _allowed = tuple(getattr(KT, d) for d in _dtypes if hasattr(KT, d))
    globals()[_api] = _MAKERS[_layout](_api, _ir_op, _kind, _allowed)
    document(globals()[_api], _layout, _allowed)
    __all__.append(_api)


def _row(api):
    return next(row for row in _isa.VECTOR_OPS if row[0] == api)


_REPEAT_REDUCE_TAIL = ("repeat_time", "mask", "dst_blk_stride", "src_blk_stride",
                       "dst_rep_stride", "src_rep_stride", "is_set_mask")


def repeat_reduce_sum(dst: LocalTensor, src: LocalTensor, *args, **kwargs) -> None:
    """One sum per iteration of src: the chip's vcadd as whole_reduce_sum issues it.

    Call form:
        repeat_reduce_sum(dst, src, repeat_time, mask, dst_blk_stride, src_blk_stride,
                          dst_rep_stride, src_rep_stride, is_set_mask=True)
    mask is an int (the first mask lanes of every iteration); dst_rep_stride counts elements of
    dst, and dst_blk_stride strides nothing (an iteration writes one element); the src strides
    count 32-byte blocks. Element types: float16, float32.

    Numerics: as whole_reduce_sum: a binary tree over adjacent lanes, each addition rounded to
    the element type, nearest-even (float16 through float32); inactive lanes add 0."""
    api = "repeat_reduce_sum"
    require_builder(api)
    _api, ir_op, kind, _layout, dtypes, _forms_of_row = _row("whole_reduce_sum")
    allowed = tuple(getattr(KT, d) for d in dtypes if hasattr(KT, d))

    def form(repeat_time, mask, dst_blk_stride, src_blk_stride, dst_rep_stride,
             src_rep_stride, is_set_mask=True):
        emit_reduce(api, ir_op, kind, allowed, dst, src, mask, repeat_time, dst_rep_stride,
                    src_blk_stride, src_rep_stride, is_set_mask)

    _require_tensors(api, dst=dst, src=src)
    dispatch(api, [Overload(p, form) for p in _reduce_params(_REPEAT_REDUCE_TAIL,
                                                             int_mask_only=True)],
             args, kwargs)


declare_overloads(repeat_reduce_sum, set_forms(
    repeat_reduce_sum, _tensors("dst", "src"),
    _reduce_params(_REPEAT_REDUCE_TAIL, int_mask_only=True))._forms)
__all__.append("repeat_reduce_sum")
