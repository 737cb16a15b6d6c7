"""Sort and region-proposal instructions (asc-api.md 4.12), all on PIPE_V and ignoring the mask.

Layouts (Ascend C's public ones; docs/isa.md has the numerics of each row):
- a sort structure: 8 bytes, the score (float16/float32) at byte 0, the uint32 index at byte 4
  (sort32 writes a half score's bytes 2-3 as 0); `sort32` writes 32 per iteration, `mrg_sort`
  merges lists of them;
- a region proposal: 8 elements (x1, y1, x2, y2, score, label, two reserved); `rp_sort16` sorts 16
  per iteration, `mrg_sort4` merges lists of them, `proposal_concat` / `proposal_extract` move
  field `mode_number` of 16 proposals per iteration.

`sort` is the library's sequence of those instructions (sort32, then merge rounds), and
`get_mrg_sort_result` reads the counts the last merge left in VMS4_SR: a scalar read of a PIPE_V
result, so it needs V_S after the merge (auto_sync inserts it). The instructions' docstrings
are vec_docs.py's (vec.py makes them from the instruction table).
"""
from __future__ import annotations

import numbers
from typing import List, Tuple

from asc import _isa
from asc.codegen.builder import require_builder
from asc.language.core.array import array
from asc.language.core.constexpr import ConstExpr
from asc.language.core.dispatch import Overload, Param, dispatch, of_type, set_forms
from asc.language.core.dtype import DataType, KnownTypes as KT
from asc.language.core.enums import HardEvent, PipeID
from asc.language.core.hints import RuntimeInt
from asc.language.core.ir_value import PlainValue, is_runtime_int, to_value
from asc.language.core.tensor import LocalTensor, tensor_ref
from asc.language.core.types import MrgSortSrcList
from asc.language.basic.common import (check_same_dtype, check_ub, is_bool,
                                       require_local_tensors, runtime_int)

__all__ = ["MrgSort4Info", "sort", "get_sort_len", "get_sort_offset", "get_mrg_sort_result"]

_STRUCT_BYTES = 8  # one sort structure
_PROPOSAL_ELEMS = 8
_SORT32_GROUP = 32
_MAX_LISTS = 4


def _rows():
    return {api: (ir_op, kind, tuple(getattr(KT, d) for d in dtypes if hasattr(KT, d)))
            for api, ir_op, kind, _layout, dtypes, _forms in _isa.VECTOR_OPS}


def _require_local(api, **tensors):
    require_local_tensors(api, **tensors)
    check_ub(api, **tensors)


def _int_id(api, name, value, dtype):
    value = ConstExpr.unwrap(value)
    if not is_runtime_int(value):
        raise TypeError(f"{api}(): {name} must be an int or a traced integer, got "
                        f"{type(value).__name__}")
    return to_value(value, dtype).id


def _literal_bool(api, name, value):
    value = ConstExpr.unwrap(value)
    if not isinstance(value, bool):
        raise TypeError(f"{api}(): {name} must be a literal True or False, got {value!r}")
    return value


class MrgSort4Info:
    """The parameters of a merge of up to four sorted lists (mrg_sort, mrg_sort4).

    `MrgSort4Info(element_lengths, if_exhausted_suspension=False, valid_bit=15, repeat_times=1)`
    (asc-api.md 4.12): element_lengths are the lengths of the lists (1 to 4 ints or traced
    integers, in structures or proposals); with if_exhausted_suspension (a literal bool) the merge
    stops when one list runs out; valid_bit 3, 7 or 15 merges the first 2, 3 or 4 lists;
    repeat_times repeats the merge over consecutive groups of lists. Constructed in a kernel."""

    def __init__(self, element_lengths: List[RuntimeInt], if_exhausted_suspension: bool = False,
                 valid_bit: RuntimeInt = 15, repeat_times: RuntimeInt = 1) -> None:
        require_builder("MrgSort4Info")
        lengths = ConstExpr.unwrap(element_lengths)
        if not isinstance(lengths, (list, tuple)) and not hasattr(lengths, "__iter__"):
            raise TypeError("MrgSort4Info(): element_lengths must be a list of up to 4 lengths, "
                            f"got {type(lengths).__name__}")
        lengths = [ConstExpr.unwrap(v) for v in lengths]
        if not 1 <= len(lengths) <= _MAX_LISTS or not all(is_runtime_int(v) for v in lengths):
            raise TypeError("MrgSort4Info(): element_lengths must be 1 to 4 ints or traced "
                            f"integers, got {lengths!r}")
        self.element_lengths = lengths
        self.if_exhausted_suspension = _literal_bool("MrgSort4Info", "if_exhausted_suspension",
                                                     if_exhausted_suspension)
        for name, value in (("valid_bit", valid_bit), ("repeat_times", repeat_times)):
            if not is_runtime_int(ConstExpr.unwrap(value)):
                raise TypeError(f"MrgSort4Info(): {name} must be an int or a traced integer, "
                                f"got {type(value).__name__}")
        self.valid_bit = ConstExpr.unwrap(valid_bit)
        self.repeat_times = ConstExpr.unwrap(repeat_times)

    def __repr__(self):
        return (f"MrgSort4Info(element_lengths={self.element_lengths!r}, "
                f"if_exhausted_suspension={self.if_exhausted_suspension}, "
                f"valid_bit={self.valid_bit!r}, repeat_times={self.repeat_times!r})")


def _emit_merge(api, ir_op, kind, allowed, dst, sort_list, lengths, valid_bit, repeat_times,
                suspension):
    if not isinstance(sort_list, MrgSortSrcList):
        raise TypeError(f"{api}(): the lists must be an asc.MrgSortSrcList, got "
                        f"{type(sort_list).__name__}")
    lists = sort_list.tensors()
    _require_local(api, dst=dst, **{f"src{i + 1}": t for i, t in enumerate(lists)})
    check_same_dtype(api, allowed, dst=dst, **{f"src{i + 1}": t for i, t in enumerate(lists)})
    if dst.dtype != sort_list.dtype:
        raise TypeError(f"{api}(): MrgSortSrcList's dtype {sort_list.dtype} differs from dst's "
                        f"{dst.dtype}")
    lengths = list(lengths)
    if len(lengths) > _MAX_LISTS:
        raise ValueError(f"{api}(): at most 4 element lengths, got {len(lengths)}")
    lengths += [0] * (len(lists) - len(lengths))  # as Ascend C's zero-filled uint16_t[4]
    valid = ConstExpr.unwrap(valid_bit)
    if isinstance(valid, numbers.Integral):
        wanted = {3: 2, 7: 3, 15: 4}.get(int(valid))
        if wanted is None:
            raise ValueError(f"{api}(): valid_bit must be 3, 7 or 15 (the first 2, 3 or 4 lists), "
                             f"got {valid}")
        if wanted > len(lists):
            raise ValueError(f"{api}(): valid_bit {valid} merges {wanted} lists, but the "
                             f"MrgSortSrcList has {len(lists)}")
    length_ids = [_int_id(api, "element lengths", v, KT.uint16) for v in lengths[:len(lists)]]
    valid_id = _int_id(api, "valid_bit", valid_bit, KT.uint16)
    repeat_id = _int_id(api, "repeat_times", repeat_times, KT.uint16)
    refs = [tensor_ref(t) for t in lists]
    ir = require_builder(api).emit(ir_op)
    ir.kind = kind
    ir.dst.CopyFrom(tensor_ref(dst))
    for ref in refs:
        ir.src.add().CopyFrom(ref)
    ir.element_lengths.extend(length_ids)
    ir.valid_bit = valid_id
    ir.repeat_times = repeat_id
    ir.exhausted_suspension = suspension


def _sort32(api, ir_op, kind, allowed):
    def op(dst: LocalTensor, src0: LocalTensor, src1: LocalTensor,
           repeat_time: RuntimeInt) -> None:
        require_builder(api)
        _require_local(api, dst=dst, src0=src0, src1=src1)
        check_same_dtype(api, allowed, dst=dst, src0=src0)
        if src1.dtype != KT.uint32:
            raise TypeError(f"{api}(): src1 holds the indices and must be uint32, got "
                            f"{src1.dtype}")
        repeat_id = _int_id(api, "repeat_time", repeat_time, KT.int32)
        ir = require_builder(api).emit(ir_op)
        ir.dst.CopyFrom(tensor_ref(dst))
        ir.src0.CopyFrom(tensor_ref(src0))
        ir.src1.CopyFrom(tensor_ref(src1))
        ir.repeat_time = repeat_id
    op.__name__ = op.__qualname__ = api
    return op


def _mrg_sort(api, ir_op, kind, allowed):
    if api == "mrg_sort4":
        def op4(dst: LocalTensor, src: MrgSortSrcList, params: MrgSort4Info) -> None:
            require_builder(api)
            if not isinstance(params, MrgSort4Info):
                raise TypeError(f"{api}(): params must be an asc.MrgSort4Info, got "
                                f"{type(params).__name__}")
            _emit_merge(api, ir_op, kind, allowed, dst, src, params.element_lengths,
                        params.valid_bit, params.repeat_times, params.if_exhausted_suspension)
        op4.__name__ = op4.__qualname__ = api
        return op4

    def op(dst: LocalTensor, sort_list: MrgSortSrcList, *args, **kwargs) -> None:
        require_builder(api)

        def info_form(params):
            _emit_merge(api, ir_op, kind, allowed, dst, sort_list, params.element_lengths,
                        params.valid_bit, params.repeat_times, params.if_exhausted_suspension)

        def list_form(element_count_list, sorted_num, valid_bit, repeat_time,
                      is_exhausted_suspension=False):
            _mrg_sort_lists(api, ir_op, kind, allowed, dst, sort_list, element_count_list,
                            sorted_num, valid_bit, repeat_time, is_exhausted_suspension)

        dispatch(api, [Overload(forms[0], info_form), Overload(forms[1], list_form)],
                 args, kwargs)
    forms = [[Param("params", of_type(MrgSort4Info))],
             [Param("element_count_list", _sequence, hint="List[RuntimeInt]"),
              Param("sorted_num", _settable, hint="Union[List[RuntimeInt], array]"),
              Param("valid_bit", runtime_int), Param("repeat_time", runtime_int),
              Param("is_exhausted_suspension", is_bool, False)]]
    op.__name__ = op.__qualname__ = api
    return set_forms(op, [("dst", "LocalTensor"), ("sort_list", "MrgSortSrcList")], forms)


def _sequence(x) -> bool:
    return isinstance(ConstExpr.unwrap(x), (list, tuple, array))


_sequence.__name__ = "list"


def _settable(x) -> bool:
    return isinstance(x, (list, array))


_settable.__name__ = "list | asc.array"


def _mrg_sort_lists(api, ir_op, kind, allowed, dst, sort_list, element_count_list, sorted_num,
                    valid_bit, repeat_time, is_exhausted_suspension):
    counts = ConstExpr.unwrap(element_count_list)
    suspension = _literal_bool(api, "is_exhausted_suspension", is_exhausted_suspension)
    _emit_merge(api, ir_op, kind, allowed, dst, sort_list, [ConstExpr.unwrap(c) for c in counts],
                valid_bit, repeat_time, suspension)
    if suspension:
        # The library waits for the merge (V_S) and reads what each list gave (VMS4_SR).
        results = _read_mrg_sort_result(api, sync=True)
        if len(sorted_num) < len(results):
            raise ValueError(f"{api}(): sorted_num needs 4 entries, got {len(sorted_num)}")
        for i, value in enumerate(results):
            sorted_num[i] = value


def _proposal(api, ir_op, kind, allowed):
    with_field = api != "rp_sort16"

    def emit(dst, src, repeat_time, mode_number=None):
        require_builder(api)
        _require_local(api, dst=dst, src=src)
        check_same_dtype(api, allowed, dst=dst, src=src)
        repeat_id = _int_id(api, "repeat_time", repeat_time, KT.int32)
        mode_id = 0
        if with_field:
            mode = ConstExpr.unwrap(mode_number)
            if isinstance(mode, numbers.Integral) and not 0 <= int(mode) <= 5:
                raise ValueError(f"{api}(): mode_number must be 0..5 (x1, y1, x2, y2, score, "
                                 f"label), got {mode}")
            mode_id = _int_id(api, "mode_number", mode_number, KT.int32)
        ir = require_builder(api).emit(ir_op)
        ir.kind = kind
        ir.dst.CopyFrom(tensor_ref(dst))
        ir.src.CopyFrom(tensor_ref(src))
        ir.repeat_time = repeat_id
        ir.mode_number = mode_id

    if with_field:
        def op(dst: LocalTensor, src: LocalTensor, repeat_time: RuntimeInt,
               mode_number: RuntimeInt) -> None:
            emit(dst, src, repeat_time, mode_number)
    else:
        def op(dst: LocalTensor, src: LocalTensor, repeat_time: RuntimeInt) -> None:
            emit(dst, src, repeat_time)
    op.__name__ = op.__qualname__ = api
    return op


SORT_MAKERS = {"sort32": _sort32, "mrg_sort": _mrg_sort, "proposal": _proposal}


def _read_mrg_sort_result(api, sync):
    builder = require_builder(api)
    if sync:
        from asc.language.basic.sync import library_sync
        library_sync(HardEvent.V_S)
    results = []
    for i in range(_MAX_LISTS):
        op = builder.emit("mrg_sort_result")
        value = PlainValue(builder.new_value(), KT.uint16)
        op.result = value.id
        op.index = i
        results.append(value)
    return tuple(results)


def get_mrg_sort_result() -> Tuple[PlainValue, PlainValue, PlainValue, PlainValue]:
    """The four uint16 counts the last mrg_sort / mrg_sort4 took from its lists (VMS4_SR).

    Ascend C's GetMrgSortResult: a tuple of four traced uint16, read by the scalar unit from
    the VMS4_SR register. The merge runs on PIPE_V, so synchronise with set_flag / wait_flag
    (V_S) between the merge and this call (auto_sync inserts it)."""
    return _read_mrg_sort_result("get_mrg_sort_result", sync=False)


def _dtype_arg(api, dtype):
    dtype = ConstExpr.unwrap(dtype)
    if not isinstance(dtype, DataType) or dtype not in (KT.float16, KT.float32):
        raise TypeError(f"{api}(): dtype must be asc.float16 or asc.float32, got {dtype!r}")
    return dtype


def _scaled(api, name, n, dtype):
    n = ConstExpr.unwrap(n)
    if not is_runtime_int(n):
        raise TypeError(f"{api}(): {name} must be an int or a traced integer, got "
                        f"{type(n).__name__}")
    per = _STRUCT_BYTES // _dtype_arg(api, dtype).sizeof()
    if isinstance(n, PlainValue):
        return n * per
    return int(n) * per


def get_sort_len(elem_count: RuntimeInt, dtype: DataType = KT.float32) -> RuntimeInt:
    """Elements of `dtype` that `elem_count` sort structures (8 bytes each) occupy.

    Ascend C's GetSortLen<T>: elem_count * 8 / sizeof(dtype), a Python int for a Python int,
    else a traced integer. The `dtype` keyword (float16 or float32) is aicore-sim's spelling of
    pyasc's template type."""
    return _scaled("get_sort_len", "elem_count", elem_count, dtype)


def get_sort_offset(elem_offset: RuntimeInt, dtype: DataType = KT.float32) -> RuntimeInt:
    """Element offset of sort structure `elem_offset` in a tensor of `dtype`.

    Ascend C's GetSortOffset<T>: elem_offset * 8 / sizeof(dtype), a Python int for a Python
    int, else a traced integer; `dtype` is float16 or float32 (aicore-sim's keyword for pyasc's
    template type)."""
    return _scaled("get_sort_offset", "elem_offset", elem_offset, dtype)


def sort(dst: LocalTensor, concat: LocalTensor, index: LocalTensor, tmp: LocalTensor,
         repeat_time: RuntimeInt, is_full_sort: bool = False) -> None:
    """Sorts repeat_time * 32 (score, index) pairs by score, descending, into sort structures.

    `sort(dst, concat, index, tmp, repeat_time, is_full_sort=False)` (Ascend C's Sort,
    asc-api.md 4.12): sort32 of the scores in concat and the uint32 indices in index, 32 pairs
    an iteration, into dst. With is_full_sort (a literal bool; repeat_time must then be a
    compile-time int) the sorted groups are merged by mrg_sort, four lists at a time,
    ping-ponging between dst and tmp, into one descending list in dst. The library's sequence:
    each step is an instruction of its own, with PIPE_V barriers between them.

    Numerics: exact (values move, nothing is computed); NaN sorts above +inf, and equal scores
    keep their input order within a group and come from the lower-numbered list in a merge
    (the model's choice: the chip's tie rule is not public)."""
    api = "sort"
    require_builder(api)
    full = _literal_bool(api, "is_full_sort", is_full_sort)
    rows = _rows()
    sort32 = _sort32("sort32", *rows["sort32"])
    if not full:
        sort32(dst, concat, index, repeat_time)
        return
    _require_local(api, dst=dst, tmp=tmp)
    repeats = ConstExpr.unwrap(repeat_time)
    if not isinstance(repeats, numbers.Integral) or isinstance(repeats, bool):
        raise TypeError(f"{api}(): with is_full_sort=True repeat_time must be a compile-time int "
                        f"(the merge rounds are laid out at trace time), got {repeat_time!r}")
    repeats = int(repeats)
    if not 0 <= repeats <= 255:
        raise ValueError(f"{api}(): repeat_time must be 0..255, got {repeats}")
    if repeats == 0:
        return
    from asc.language.basic.data_copy import data_copy
    from asc.language.basic.sync import pipe_barrier
    mrg_sort = _mrg_sort("mrg_sort", *rows["mrg_sort"])
    per = _STRUCT_BYTES // dst.dtype.sizeof()  # dtype elements per structure
    n = repeats * _SORT32_GROUP
    rounds, length = 0, _SORT32_GROUP
    while length < n:
        rounds, length = rounds + 1, length * 4
    # Ping-pong so that the last round writes dst.
    bufs = [dst, tmp] if rounds % 2 == 0 else [tmp, dst]
    sort32(bufs[0], concat, index, repeats)
    src, out = bufs
    length = _SORT32_GROUP
    for _ in range(rounds):
        pipe_barrier(PipeID.PIPE_V)
        groups, rest = divmod(n, 4 * length)
        if groups > 0:
            lists = MrgSortSrcList(dst.dtype, *[src[i * length * per:] for i in range(4)])
            mrg_sort(out, lists, MrgSort4Info([length] * 4, False, 15, groups))
        start = groups * 4 * length
        if rest > 0:
            tails = [min(length, rest - k * length) for k in range((rest + length - 1) // length)]
            if len(tails) == 1:
                # One sorted list left: carried over as it is (UB -> UB on PIPE_V).
                data_copy(out[start * per:], src[start * per:], tails[0] * per)
            else:
                views = [src[(start + k * length) * per:] for k in range(len(tails))]
                lists = MrgSortSrcList(dst.dtype, *views)
                mrg_sort(out[start * per:], lists,
                         MrgSort4Info(tails, False, {2: 3, 3: 7, 4: 15}[len(tails)], 1))
        src, out = out, src
        length *= 4
