"""Whole-tensor reductions (asc-api.md 4.10): reduce_sum, reduce_max and reduce_min, emitted as
the library's instruction sequences (ascendc-semantics.md 5.5), so that their numerics, syncs and
cycles are those instructions'.

- reduce_sum, count form: one counter-mode vcadd with its accumulate flag (each iteration's sum
  into shared_tmp_buffer, their running total into ACC_VAL), V_S, a scalar read of ACC_VAL, a
  scalar store of dst[0], then S_V and S_MTE3.
- reduce_sum, mask form: one vcadd per iteration into shared_tmp_buffer (255 iterations per
  instruction), then counter-mode vcadds over the partial sums, PIPE_V barriers between them,
  the last one into dst; a single partial is copied by the scalar unit instead.
- reduce_max / reduce_min: vcmax / vcmin per iteration into (value, index) pairs, then levels
  of vcmax / vcmin over the values of the previous level's pairs (the even lanes), until one
  pair is left; V_S; the scalar unit stores the value in dst[0] and, with cal_index, follows the
  levels' indexes down to the element's and stores it in dst[1] as an unsigned integer of the
  element's width; then S_V and S_MTE3. Level k's pairs start after level k-1's, each level
  32-byte aligned: the shared_tmp_buffer this needs is checked when its size is known.

The sequence for max/min is the model's reading of the library's (the references say only
"vcmax chains"); docs/isa.md states the element index it reports. Ties take the first element,
a NaN wins, as whole_reduce_max/min decide them.
"""
from __future__ import annotations

import numbers

from asc.codegen.builder import require_builder
from asc.language.core.constexpr import ConstExpr
from asc.language.core.doc_text import fill
from asc.language.core.dispatch import (Overload, Param, declare_overloads, dispatch,
                                        forms_text, set_forms)
from asc.language.core.dtype import KnownTypes as KT
from asc.language.core.enums import HardEvent, MaskMode, PipeID, ReduceOrder
from asc.language.core.ir_value import cast
from asc.language.core.tensor import LocalTensor
from asc.language.basic.common import (check_same_dtype, check_ub, is_bool,
                                       require_local_tensors, runtime_int)
from asc.language.basic.mask import reset_mask, set_mask_count, set_mask_norm, set_vector_mask
from asc.language.basic.sync import library_sync as _sync, pipe_barrier
from asc.language.basic.vec import _row as vec_row, bit_mask, emit_reduce

__all__ = ["reduce_sum", "reduce_max", "reduce_min"]

_REPEAT_BYTES = 256
_BLOCK_BYTES = 32
_MAX_REPEAT = 255          # repeat_times is 8 bits: longer runs are issued in chunks
_ALLOWED = (KT.float16, KT.float32)
_ROWS = {"sum": "whole_reduce_sum", "max": "whole_reduce_max", "min": "whole_reduce_min"}


def _row(op):
    _api, ir_op, kind, _layout, _dtypes, _forms = vec_row(_ROWS[op])
    return ir_op, kind


def _lanes(dtype):
    return _REPEAT_BYTES // dtype.sizeof()


def _round_up(n, dtype):
    per_block = _BLOCK_BYTES // dtype.sizeof()
    return (n + per_block - 1) // per_block * per_block


def _const_int(api, name, value):
    """A compile-time int argument: the sequence's length depends on it."""
    value = ConstExpr.unwrap(value)
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{api}(): {name} must be a compile-time int here (a Python int or "
                        f"ConstExpr[int]): how many reduction levels the library issues depends "
                        f"on it; got {type(value).__name__}. This is aicore-sim's limit, not "
                        f"pyasc's")
    if value <= 0:
        raise ValueError(f"{api}(): {name} must be > 0, got {value}")
    return int(value)


def _check_tmp(api, tmp, needed):
    size = ConstExpr.unwrap(tmp._size)
    if isinstance(size, numbers.Integral) and size < needed:
        raise ValueError(f"{api}(): shared_tmp_buffer holds {size} elements, but this reduction "
                         f"needs {needed} ({needed * tmp.dtype.sizeof()} bytes). Fix: allocate "
                         f"shared_tmp_buffer with at least {needed} elements of {tmp.dtype}")


def _counter(api, op, dst, src, count, accumulate=False, order=None):
    """One counter-mode instruction over `count` elements of src: results dense in dst."""
    ir_op, kind = _row(op)
    set_mask_count()
    set_vector_mask(count, dtype=src.dtype, mode=MaskMode.COUNTER)
    emit_reduce(api, ir_op, kind, _ALLOWED, dst, src, None, 1, 1, 1, 8, is_set_mask=False,
                order=order, accumulate=accumulate)
    set_mask_norm()
    reset_mask()


def _per_repeat(api, op, dst, src, mask, repeat_time, src_rep_stride, order=None):
    """The user's iterations, 255 per instruction: result r at dst[r] (pairs: dst[2r])."""
    ir_op, kind = _row(op)
    width = 1 if op == "sum" else 2
    step = _REPEAT_BYTES if src_rep_stride is None else src_rep_stride * _BLOCK_BYTES
    for first in range(0, repeat_time, _MAX_REPEAT):
        n = min(_MAX_REPEAT, repeat_time - first)
        offset = first * step // src.dtype.sizeof()
        emit_reduce(api, ir_op, kind, _ALLOWED, dst[first * width] if first else dst,
                    src[offset] if offset else src, mask,
                    n, 1, 1, 8 if src_rep_stride is None else src_rep_stride, order=order)


def _store_scalar(dst, value, index=None):
    """dst[0] = value (and dst[1] = index) by the scalar unit, visible to PIPE_V and MTE3."""
    dst.set_value(0, value)
    if index is not None:
        uint = KT.uint16 if dst.dtype.sizeof() == 2 else KT.uint32
        dst.reinterpret_cast(uint).set_value(1, cast(index, uint))
    _sync(HardEvent.S_V)
    _sync(HardEvent.S_MTE3)


def _check(api, dst, src, tmp):
    require_local_tensors(api, dst=dst, src=src, shared_tmp_buffer=tmp)
    check_ub(api, dst=dst, src=src, shared_tmp_buffer=tmp)
    check_same_dtype(api, _ALLOWED, dst=dst, src=src, shared_tmp_buffer=tmp)


# ---- reduce_sum ----------------------------------------------------------------------------------

def _sum_count(api, dst, src, tmp, count):
    """CANN's A2 ReduceSumImpl: one accumulating vcadd whose iterations' sums land in dst (the
    temp is not used), then dst[0] = ACC_VAL by the scalar unit."""
    from asc.language.basic.vec import acc_val_read
    known = ConstExpr.unwrap(count)
    if isinstance(known, numbers.Integral) and not isinstance(known, bool) and known <= 0:
        raise ValueError(f"{api}(): count must be > 0, got {known}")
    _counter(api, "sum", dst, src, count, accumulate=True)
    _sync(HardEvent.V_S)
    _store_scalar(dst, acc_val_read(api, src.dtype))


def _sum_levels(api, dst, tmp, partials):
    """Counter-mode vcadds over `partials` sums at tmp[0], level by level, the last into dst."""
    lanes = _lanes(tmp.dtype)
    plan, at, n = [], 0, partials
    while True:
        nxt = (n + lanes - 1) // lanes
        out = None if nxt == 1 else _round_up(at + n, tmp.dtype)
        plan.append((at, n, out))
        if out is None:
            break
        at, n = out, nxt
    _check_tmp(api, tmp, max(_round_up(a + k, tmp.dtype) for a, k, _ in plan))
    for at, n, out in plan:
        pipe_barrier(PipeID.PIPE_V)
        _counter(api, "sum", dst if out is None else tmp[out], tmp[at] if at else tmp, n)


def _sum_mask(api, dst, src, tmp, mask, repeat_time, src_rep_stride):
    repeat_time = _const_int(api, "repeat_time", repeat_time)
    _check_tmp(api, tmp, _round_up(repeat_time, src.dtype))
    _per_repeat(api, "sum", tmp, src, mask, repeat_time, src_rep_stride)
    if repeat_time == 1:
        _sync(HardEvent.V_S)
        _store_scalar(dst, tmp.get_value(0))
        return
    _sum_levels(api, dst, tmp, repeat_time)


# The call forms after (dst, src, shared_tmp_buffer): the count, or the mask as an int or as two
# words; reduce_max / reduce_min end each with cal_index.
_MASK_TAIL = [Param("repeat_time", runtime_int), Param("src_rep_stride", runtime_int)]
_SUM_FORMS = [[Param("count", runtime_int)], [Param("mask", runtime_int)] + _MASK_TAIL,
              [Param("mask", bit_mask)] + _MASK_TAIL]
_INDEX = Param("cal_index", is_bool, False)
_MAX_MIN_FORMS = [form + [_INDEX] for form in _SUM_FORMS]
_LEAD = [("dst", "LocalTensor"), ("src", "LocalTensor"), ("shared_tmp_buffer", "LocalTensor")]
_ARGS = ("dst and src are UB tensors of one dtype, float16 or float32; shared_tmp_buffer (src's "
         "dtype) holds the per-iteration partials. count is the element count (compile-time "
         "for reduce_max and reduce_min); the mask form runs repeat_time (compile-time) "
         "iterations of 256 bytes, src_rep_stride 32-byte blocks apart, mask an int or "
         "[low_word, high_word].")


def _document(fn, summary, *paragraphs):
    """The docstring and overload declarations of a reduction, from its call forms."""
    declare_overloads(fn, fn._forms)
    fn.__doc__ = "\n\n".join([summary, "Call forms:\n" + forms_text(fn.__name__, fn._forms)] +
                              [fill(p, 92) for p in paragraphs])
    return fn


def reduce_sum(dst: LocalTensor, src: LocalTensor, shared_tmp_buffer: LocalTensor, *args,
               **kwargs) -> None:
    api = "reduce_sum"
    require_builder(api)
    _check(api, dst, src, shared_tmp_buffer)

    def count_form(count):
        _sum_count(api, dst, src, shared_tmp_buffer, count)

    def mask_form(mask, repeat_time, src_rep_stride):
        _sum_mask(api, dst, src, shared_tmp_buffer, mask, repeat_time, src_rep_stride)

    dispatch(api, [Overload(form, fn) for form, fn in
                   zip(_SUM_FORMS, (count_form, mask_form, mask_form))], args, kwargs)


_document(set_forms(reduce_sum, _LEAD, _SUM_FORMS),
          "The sum of src's elements into dst[0]: the library's vcadd sequence (PIPE_V).",
          _ARGS + " The count form is one accumulating counter-mode vcadd read back through "
          "ACC_VAL by the scalar unit (V_S, then S_V and S_MTE3); the mask form is one vcadd "
          "an iteration, then vcadds over the partial sums (ascendc-semantics.md 5.5).",
          "Numerics: each iteration's lanes are summed in a binary tree over adjacent lanes, "
          "each addition rounded to the element type, nearest-even (float16 through float32); "
          "the count form adds the iterations' sums in iteration order into ACC_VAL, each "
          "addition rounded the same way (the chip's order there is unconfirmed); the mask "
          "form sums the partials in further trees. Results may differ from a sequential sum.")


# ---- reduce_max / reduce_min -----------------------------------------------------------------

def _value_lanes(dtype, lanes):
    """The even lanes of an iteration (the values of (value, index) pairs) as [low, high]."""
    pattern = int("01" * (lanes // 2), 2)
    return [pattern & ((1 << 64) - 1), pattern >> 64]


def _extreme(api, op, dst, src, tmp, first_level, pairs, cal_index):
    """Levels over the pairs of `first_level` (already issued: `pairs` pairs at tmp[0]) down to
    one; then the value, and with cal_index the element index, stored by the scalar unit."""
    dtype = src.dtype
    lanes = _lanes(dtype)
    order = ReduceOrder.ORDER_VALUE_INDEX
    levels, at, n = [(0, pairs)], 0, pairs
    while n > 1:
        out = _round_up(at + 2 * n, dtype)
        n = (2 * n + lanes - 1) // lanes
        levels.append((out, n))
        at = out
    _check_tmp(api, tmp, _round_up(levels[-1][0] + 2, dtype))
    first_level()
    for (at, n), (out, _) in zip(levels, levels[1:]):
        pipe_barrier(PipeID.PIPE_V)
        elements = 2 * n
        full, tail = divmod(elements, lanes)
        values = _value_lanes(dtype, lanes)
        if full:
            _per_repeat(api, op, tmp[out], tmp[at] if at else tmp, values, full, None, order)
        if tail:
            low = (1 << tail) - 1
            tail_mask = [values[0] & low, values[1] & (low >> 64)]
            _per_repeat(api, op, tmp[out + 2 * full], tmp[at + full * lanes], tail_mask, 1,
                        None, order)
    _sync(HardEvent.V_S)
    top = levels[-1][0]
    value = tmp.get_value(top)
    index = None
    if cal_index:
        # Pair j of level k came from iteration j over level k-1's pairs j * lanes / 2 ..: the
        # lane it reports (an even one) names the pair below; level 1's lane the element.
        uint = KT.uint16 if dtype.sizeof() == 2 else KT.uint32
        lane_of = tmp.reinterpret_cast(uint)
        j = None
        for at, _n in reversed(levels):
            slot = at + 1 if j is None else j * 2 + (at + 1)
            lane = cast(lane_of.get_value(slot), KT.int32)
            if at == 0:
                index = lane if j is None else j * lanes + lane
            else:
                half = lane // 2
                j = half if j is None else j * (lanes // 2) + half
    _store_scalar(dst, value, index)


def _max_min(op):
    api = f"reduce_{op}"

    def reduce(dst: LocalTensor, src: LocalTensor, shared_tmp_buffer: LocalTensor, *args,
               **kwargs) -> None:
        require_builder(api)
        _check(api, dst, src, shared_tmp_buffer)
        tmp = shared_tmp_buffer
        order = ReduceOrder.ORDER_VALUE_INDEX

        def count_form(count, cal_index=False):
            count = _const_int(api, "count", count)
            pairs = (count + _lanes(src.dtype) - 1) // _lanes(src.dtype)
            _extreme(api, op, dst, src, tmp,
                     lambda: _counter(api, op, tmp, src, count, order=order), pairs,
                     bool(cal_index))

        def mask_form(mask, repeat_time, src_rep_stride, cal_index=False):
            repeat_time = _const_int(api, "repeat_time", repeat_time)
            _extreme(api, op, dst, src, tmp,
                     lambda: _per_repeat(api, op, tmp, src, mask, repeat_time, src_rep_stride,
                                         order), repeat_time, bool(cal_index))

        dispatch(api, [Overload(form, fn) for form, fn in
                       zip(_MAX_MIN_FORMS, (count_form, mask_form, mask_form))], args, kwargs)

    reduce.__name__ = reduce.__qualname__ = api
    which = "largest" if op == "max" else "smallest"
    return _document(
        set_forms(reduce, _LEAD, _MAX_MIN_FORMS),
        f"The {which} of src's elements into dst[0], with cal_index its index into dst[1].",
        _ARGS + f" With cal_index (a bool) dst[1] holds the {which} element's index "
        f"(iteration * elements per iteration + lane) as an unsigned integer of the element's "
        f"width. The sequence is vcmax / vcmin levels over (value, index) pairs, then the "
        f"scalar unit's stores after V_S (the module docstring).",
        "Numerics: exact (no rounding): the first element wins a tie, a NaN wins, and -0 "
        "counts as less than +0, as whole_reduce_max / whole_reduce_min decide them.")


reduce_max = _max_min("max")
reduce_min = _max_min("min")
