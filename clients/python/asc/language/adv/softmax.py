"""asc.adv.softmax (asc-api.md 6.6) as Ascend C's library sequence for the A2 vector core, with
SoftMaxShapeInfo and SoftmaxConfig (10.5) (docs/adv.md, "softmax").

Sources: CANN 8.1's `impl/activation/softmax/` headers: `softmax_base_impl.h` (the shape from
the tensors' ShapeInfo, the tiling recomputed on the device when its srcM/srcK differ from it),
`softmax_common/softmax_tiling_func.h` and `softmax_common_shape_process.h` (that device-side
tiling), `membase/common/softmax_impl/softmax_generic_nd_impl.h` (one pass: [cast], reduce max,
sub, exp, reduce sum, div, [cast]), `membase/v220/softmax_common_impl/softmax_common_nd_reduce.h`
and `softmax_common_broadcast.h` and `softmax_common/softmax_common_arithmetic.h` and
`softmax_common_reduce.h` (the reductions, the broadcast of the row states, the row-wise sub and
div). The instructions are in softmax_ops.py.
"""
from __future__ import annotations

import math
import numbers
from typing import Optional

from asc.codegen.builder import require_builder
from asc.codegen.errors import NotSupportedError
from asc.language.adv._common import ONE_BLK_SIZE, documented, static_int, temp_buffer_of
from asc.language.adv.tiling import SoftmaxTiling
from asc.language.basic.common import check_ub, require_local_tensors
from asc.language.core.constexpr import ConstExpr
from asc.language.core.dtype import KnownTypes as KT
from asc.language.core.ir_value import select, to_value
from asc.language.core.tensor import LocalTensor

__all__ = ["softmax"]

_FLOAT_REPEAT = 64
# How softmax and softmax_flash_v2 round (docs/adv.md).
SOFTMAX_NUMERICS = ("computed in float32: a float16 source is cast to float32 exactly, the row "
                    "max is exact, sub, exp, the row sums (vcadd trees and block sums) and div "
                    "each round to float32 nearest-even as their instructions do (exp: the host "
                    "libm's), and a float16 dst or state is rounded back once with CAST_ROUND "
                    "(nearest, ties away from zero).")
_BASIC_TILE = 8  # SOFTMAX_BASIC_TILE_NUM: rows a pass is rounded down to a multiple of
_BASIC_MAX_ELEMENTS = 64 * 255  # a basic-block pass stays under 255 repeats of 64 floats


def compile_time_flag(api, name, value):
    value = ConstExpr.unwrap(value)
    if not isinstance(value, bool):
        raise TypeError(f"{api}(): {name} must be a compile-time bool, got {value!r}")
    return value


def _dims(api, shape_info, original):
    """(rows, row length) of a ShapeInfo, the last axis being the row (GetLastAxisShapeND)."""
    count = shape_info.original_shape_dim if original else shape_info.shape_dim
    dims = [shape_info.original_shape(i) if original else shape_info.shape(i)
            for i in range(count)]
    dims = [static_int(d) for d in dims]
    if not dims or None in dims:
        raise NotSupportedError(
            f"{api}() with a shape info whose dimensions are only known at run time")
    k = dims[-1]
    return math.prod(dims) // k if k else 0, k


def row_shape(api, src):
    """(rows, row length, original rows, original row length) from src's ShapeInfo."""
    info = src.get_shape_info()
    if info.shape_dim == 0:
        raise ValueError(f"{api}(): src has no shape info, so the library cannot tell its rows "
                         f"from its columns. Fix: src.set_shape_info(asc.ShapeInfo(asc.array("
                         f"asc.int32, (rows, cols)))) before the call")
    m, k = _dims(api, info, False)
    ori_m, ori_k = _dims(api, info, True)
    per_block = ONE_BLK_SIZE // src.dtype.sizeof()
    if m <= 0 or k <= 0 or k % per_block:
        raise ValueError(f"{api}(): src's shape info gives {m} rows of {k} elements; a row must "
                         f"be a non-empty multiple of {per_block} {src.dtype} elements (one "
                         f"32-byte block)")
    return m, k, ori_m, ori_k


def _pick(cond, a, b):
    """a where cond holds, else b: Python's choice at trace time, the scalar unit's select when
    cond is traced."""
    if isinstance(cond, bool):
        return a if cond else b
    return select(cond, a, b)


def scalar_min(a, b):
    if isinstance(a, numbers.Integral) and isinstance(b, numbers.Integral):
        return min(a, b)
    return select(to_value(a, KT.int32) < b, a, b)


def basic_block_rows(split, m, k):
    """CalculateNDSplitM's basic-block rounding: the largest multiple of 8 dividing m that is at
    most split, then halved while a pass would pass 255 repeats of 64 floats."""
    rounded = split // _BASIC_TILE * _BASIC_TILE
    rows = _BASIC_TILE
    for candidate in range(2 * _BASIC_TILE, m + 1, _BASIC_TILE):
        if m % candidate == 0:
            rows = _pick(candidate <= rounded, candidate, rows)
    for _ in range(max(m, 1).bit_length()):
        rows = _pick(rows * k >= _BASIC_MAX_ELEMENTS, rows // 2, rows)
    return _pick(split > _BASIC_TILE, rows, split)


def device_split(work_floats, m, k, ori_m, per_row, basic_block):
    """Rows per pass as the library's device-side SoftMaxTilingFunc / CalculateNDSplitM compute
    them from the work buffer's floats, `per_row` floats a row: (split_m, range_m, tail_m).
    work_floats may be traced; so are the results then."""
    split = scalar_min(work_floats // per_row, m)
    if basic_block and m % _BASIC_TILE == 0:
        split = basic_block_rows(split, m, k)
    rounded = split // _BASIC_TILE * _BASIC_TILE
    split = _pick((split < ori_m) & (split > _BASIC_TILE), rounded, split)
    split = scalar_min(split, ori_m)
    return split, ori_m // split, ori_m % split


def _given_or_device(tiling, m, k, computed):
    """The tiling's split when its srcM and srcK match the shape, else the device's (the check
    of softmax_base_impl.h, a scalar compare on the chip)."""
    mismatch = (tiling.src_k != k) | (tiling.src_m != m)
    given = (tiling.split_m, tiling.range_m, tiling.tail_m)
    return tuple(select(mismatch, c, g) for c, g in zip(computed, given))


def _state_dtypes(api, dst, sum_t, max_t, src):
    if src.dtype not in (KT.float16, KT.float32) or dst.dtype != src.dtype:
        raise TypeError(f"{api}(): dst and src must both be float16 or both float32, got "
                        f"{dst.dtype} and {src.dtype}")
    if sum_t.dtype != max_t.dtype or (sum_t.dtype != src.dtype and sum_t.dtype != KT.float32):
        raise TypeError(f"{api}(): sum and max must both be {src.dtype}"
                        f"{' or both float32' if src.dtype == KT.float16 else ''}, got "
                        f"{sum_t.dtype} and {max_t.dtype}")
    if src.dtype == KT.float32:
        return "float"
    return "half" if sum_t.dtype == KT.float16 else "half_float"


@documented("Per row of src: max = rowmax, dst = e^(src - max), sum = rowsum(dst), dst /= sum.",
            "Rows are the last axis of src's ShapeInfo. dst and src are UB LocalTensors, both "
            "float32 or both float16 (dst may be src); sum and max hold each row's value over "
            "one 32-byte block (8 floats or 16 halves a row), float32, or float16 with a "
            "float16 source. tiling is an asc.adv.SoftmaxTiling: used when its src_m and src_k "
            "match the shape, else (an all-zero one too) recomputed on the device from the "
            "shape, as the library does. temp_buffer is a uint8 UB tensor (the framework's "
            "scratch when None); reuse_source, basic_block and data_format_nz are compile-time "
            "bools (reuse_source has no effect; data_format_nz=True is not supported yet).",
            numerics=SOFTMAX_NUMERICS + " Worst absolute error of dst against float64 "
            "(docs/adv.md): 4.9e-8 for float32, 5.8e-5 for float16.", args="")
def softmax(dst: LocalTensor, sum: LocalTensor, max: LocalTensor, src: LocalTensor,
            tiling: SoftmaxTiling, temp_buffer: Optional[LocalTensor] = None,
            reuse_source: bool = False, basic_block: bool = False,
            data_format_nz: bool = False) -> None:  # noqa: A002
    api = "softmax"
    require_builder(api)
    sum_t, max_t = sum, max
    require_local_tensors(api, dst=dst, sum=sum_t, max=max_t, src=src)
    check_ub(api, dst=dst, sum=sum_t, max=max_t, src=src)
    if not isinstance(tiling, SoftmaxTiling):
        raise TypeError(f"{api}(): tiling must be an asc.adv.SoftmaxTiling, got "
                        f"{type(tiling).__name__}")
    compile_time_flag(api, "reuse_source", reuse_source)
    basic_block = compile_time_flag(api, "basic_block", basic_block)
    if compile_time_flag(api, "data_format_nz", data_format_nz):
        raise NotSupportedError("asc.adv.softmax(data_format_nz=True)")
    kind = _state_dtypes(api, dst, sum_t, max_t, src)
    m, k, ori_m, _ori_k = row_shape(api, src)
    # A row's state is one 32-byte block of the state type (a half state is computed as 16
    # floats); a pass needs, per row, the state, one repeat of floats and a half row in float.
    state_k = ONE_BLK_SIZE // sum_t.dtype.sizeof()
    per_row = state_k + _FLOAT_REPEAT + (k if src.dtype == KT.float16 else 0)
    work, work_bytes = temp_buffer_of(api, temp_buffer, per_row * 4,
                                      f"one row: {per_row} floats")
    split = device_split(work_bytes // 4, m, k, ori_m, per_row, basic_block)
    split_m, range_m, tail_m = _given_or_device(tiling, m, k, split)
    from asc.codegen.function_visitor import inline_library
    from asc.language.adv import softmax_ops
    inline_library(softmax_ops.softmax_nd, dst, sum_t, max_t, src,
                   work.reinterpret_cast(KT.float32), k, split_m, range_m, tail_m, state_k, kind)
