"""asc.adv.softmax_flash_v2 with SoftMaxShapeInfo and SoftmaxConfig (asc-api.md 10.5) as CANN
8.1's SoftmaxFlashV2 for the A2 vector core (docs/adv.md, "softmax_flash_v2").

Sources, under `impl/activation/softmax/`: `softmax_flashv2_base_impl.h` (the tiling taken as
given when the config turns its check off or its srcM/srcK match the shape, else recomputed on
the device by SoftMaxFlashV2TilingFuncImpl; the shape from the shape info, or the tensor's
ShapeInfo when that is zero), `membase/common/softmax_flashv2_impl/softmax_flashv2_common_impl.h`
(the pass loop), `softmax_flashv2_no_update_impl.h` (first call) and
`softmax_flashv2_update_impl.h` (is_update). The row reductions and row-state ops are softmax's
(softmax_ops.py); the passes are in softmax_flash_ops.py.
"""
from __future__ import annotations

from typing import Optional

from asc.codegen.builder import require_builder
from asc.codegen.errors import NotSupportedError
from asc.language.adv._common import ONE_BLK_SIZE, documented, static_int, temp_buffer_of
from asc.language.adv.softmax import (SOFTMAX_NUMERICS, basic_block_rows, compile_time_flag,
                                      row_shape, scalar_min)
from asc.language.adv.tiling import SoftmaxTiling
from asc.language.basic.common import check_ub, require_local_tensors
from asc.language.core.constexpr import ConstExpr
from asc.language.core.dtype import KnownTypes as KT
from asc.language.core.enums import SoftmaxMode
from asc.language.core.hints import RuntimeInt
from asc.language.core.ir_value import select, to_value
from asc.language.core.tensor import LocalTensor

__all__ = ["softmax_flash_v2", "SoftMaxShapeInfo", "SoftmaxConfig"]

_FLOAT_REPEAT = 64
_BASIC_TILE = 8


class SoftMaxShapeInfo:
    """The logical tile shape of a softmax_flash_v2 call: its rows and row lengths.

    `asc.adv.SoftMaxShapeInfo(src_m=0, src_k=0, ori_src_m=0, ori_src_k=0)` (asc-api.md 10.5):
    four uint32, traced values allowed. With src_m or src_k 0 the tensor's ShapeInfo decides,
    as in Ascend C."""

    def __init__(self, src_m: RuntimeInt = 0, src_k: RuntimeInt = 0, ori_src_m: RuntimeInt = 0,
                 ori_src_k: RuntimeInt = 0) -> None:
        self.src_m = ConstExpr.unwrap(src_m)
        self.src_k = ConstExpr.unwrap(src_k)
        self.ori_src_m = ConstExpr.unwrap(ori_src_m)
        self.ori_src_k = ConstExpr.unwrap(ori_src_k)

    def __repr__(self):
        return (f"SoftMaxShapeInfo({self.src_m!r}, {self.src_k!r}, {self.ori_src_m!r}, "
                f"{self.ori_src_k!r})")


class SoftmaxConfig:
    """The compile-time configuration of softmax_flash_v2 (Ascend C's SoftmaxConfig).

    `asc.adv.SoftmaxConfig(check_tiling=True, src_m=0, src_k=0,
    mode=asc.SoftmaxMode.SOFTMAX_NORMAL)` (asc-api.md 10.5): check_tiling (isCheckTiling) off
    takes the tiling as given; src_m and src_k (oriSrcM, oriSrcK) are compile-time ints >= 0;
    mode an asc.SoftmaxMode (SOFTMAX_OUTPUT_WITHOUT_BRC is not supported yet)."""

    def __init__(self, check_tiling: bool = True, src_m: int = 0, src_k: int = 0,
                 mode: SoftmaxMode = SoftmaxMode.SOFTMAX_NORMAL) -> None:
        self.check_tiling = ConstExpr.unwrap(check_tiling)
        self.src_m = ConstExpr.unwrap(src_m)
        self.src_k = ConstExpr.unwrap(src_k)
        self.mode = SoftmaxMode(ConstExpr.unwrap(mode))
        if not isinstance(self.check_tiling, bool):
            raise TypeError(f"SoftmaxConfig: check_tiling must be a compile-time bool, got "
                            f"{self.check_tiling!r}")
        for name in ("src_m", "src_k"):
            if static_int(getattr(self, name)) is None or getattr(self, name) < 0:
                raise TypeError(f"SoftmaxConfig: {name} must be a compile-time int >= 0, got "
                                f"{getattr(self, name)!r}")

    def _key(self):
        return (self.check_tiling, self.src_m, self.src_k, int(self.mode))

    def __eq__(self, other):
        return isinstance(other, SoftmaxConfig) and self._key() == other._key()

    def __hash__(self):
        return hash(self._key())

    def __repr__(self):
        return (f"SoftmaxConfig({self.check_tiling}, {self.src_m}, {self.src_k}, "
                f"{self.mode.name})")


def _flash_split(work_floats, m, k, half_source, state_k, basic_block):
    """SoftMaxFlashV2TilingFuncImpl's rows per pass: (split_m, range_m, tail_m)."""
    if basic_block and k % _FLOAT_REPEAT == 0 and static_int(m) is not None and \
            m % _BASIC_TILE == 0:
        per_row = state_k + _FLOAT_REPEAT + (k if half_source else 0)
        split = scalar_min(work_floats // per_row, m)
        split = basic_block_rows(split, m, k)
    else:
        per_row = (2 * state_k + k + _FLOAT_REPEAT) if half_source else state_k + _FLOAT_REPEAT
        split = work_floats // per_row
    rounded = split // _BASIC_TILE * _BASIC_TILE
    if static_int(split) is not None and static_int(m) is not None:
        split = rounded if m > split > _BASIC_TILE else split
        split = min(split, m)
    else:
        split = select((to_value(split, KT.int32) < m) & (split > _BASIC_TILE), rounded, split)
        split = scalar_min(split, m)
    return split, m // split, m % split


def _shape(api, src, info):
    """(rows, row length, original row length): the shape info's when both its counts are set,
    else the tensor's ShapeInfo (softmax_flashv2_base_impl.h)."""
    if info is not None and not isinstance(info, SoftMaxShapeInfo):
        raise TypeError(f"{api}(): softmax_shape_info must be an asc.adv.SoftMaxShapeInfo, got "
                        f"{type(info).__name__}")
    given = info is not None and not (static_int(info.src_m) == 0 or
                                      static_int(info.src_k) == 0)
    if not given:
        m, k, _ori_m, ori_k = row_shape(api, src)
        return m, k, ori_k
    k, ori_k = static_int(info.src_k), static_int(info.ori_src_k)
    if k is None or ori_k is None:
        raise NotSupportedError(f"{api}() with a row length (src_k, ori_src_k) known only at "
                                "run time")
    per_block = ONE_BLK_SIZE // src.dtype.sizeof()
    if k <= 0 or k % per_block:
        raise ValueError(f"{api}(): softmax_shape_info.src_k is {k}; a row must be a non-empty "
                         f"multiple of {per_block} {src.dtype} elements (one 32-byte block)")
    return info.src_m, k, ori_k or k


def _kind(api, dst, sum_t, max_t, src, exp_max, in_sum, in_max):
    if src.dtype not in (KT.float16, KT.float32) or dst.dtype != src.dtype or \
            exp_max.dtype != src.dtype:
        raise TypeError(f"{api}(): dst_tensor, src_tensor and exp_max_tensor must all be float16 "
                        f"or all float32, got {dst.dtype}, {src.dtype} and {exp_max.dtype}")
    states = {t.dtype for t in (sum_t, max_t, in_sum, in_max)}
    if len(states) != 1 or (src.dtype == KT.float32 and states != {KT.float32}) or \
            not states <= {KT.float16, KT.float32}:
        raise TypeError(f"{api}(): the sum and max tensors (out and in) must share one dtype, "
                        f"{src.dtype}{' or float32' if src.dtype == KT.float16 else ''}; got "
                        f"{', '.join(str(t.dtype) for t in (sum_t, max_t, in_sum, in_max))}")
    if src.dtype == KT.float32:
        return "float"
    return "half" if sum_t.dtype == KT.float16 else "half_float"


@documented("FlashAttention-2's softmax step per row: the running max, e^(src - max) and sum.",
            "First call: max = rowmax(src), dst = e^(src - max), sum = rowsum(dst). With "
            "is_update: max = max(in_max, rowmax(src)), dst = e^(src - max), exp_max = "
            "e^(in_max - max), sum = exp_max * in_sum + rowsum(dst). dst is not divided by the "
            "sum; the outputs may be their inputs. Types: float32 throughout, or float16 src, "
            "dst and exp_max with float16 or float32 sum and max; each row's state fills one "
            "32-byte block. tiling is an asc.adv.SoftmaxTiling (checked against the shape "
            "unless config.check_tiling is False); the shape comes from softmax_shape_info when "
            "both its counts are set, else from src's ShapeInfo. shared_tmp_buffer is a uint8 "
            "UB tensor (the framework's scratch when None); the is_* flags are compile-time "
            "bools. Not supported yet: SOFTMAX_OUTPUT_WITHOUT_BRC (out_reduce_max), NZ, and "
            "row lengths known only at run time.",
            numerics=SOFTMAX_NUMERICS + " exp_max * in_sum is a float32 mul, then an add. "
            "Worst absolute error of dst and exp_max against float64 (docs/adv.md): 3.0e-8 for "
            "float32, 2.4e-4 (half an ULP of 1) for float16.", args="")
def softmax_flash_v2(dst_tensor: LocalTensor, exp_sum_tensor: LocalTensor, max_tensor: LocalTensor,
                     src_tensor: LocalTensor, exp_max_tensor: LocalTensor,
                     in_exp_sum_tensor: LocalTensor, in_max_tensor: LocalTensor,
                     tiling: SoftmaxTiling, softmax_shape_info: Optional[SoftMaxShapeInfo] = None,
                     shared_tmp_buffer: Optional[LocalTensor] = None,
                     out_reduce_max: Optional[LocalTensor] = None, is_update: bool = False,
                     is_reuse_source: bool = False, is_basic_block: bool = False,
                     is_data_format_nz: bool = False,
                     config: Optional[SoftmaxConfig] = None) -> None:
    api = "softmax_flash_v2"
    require_builder(api)
    tensors = dict(dst_tensor=dst_tensor, exp_sum_tensor=exp_sum_tensor, max_tensor=max_tensor,
                   src_tensor=src_tensor, exp_max_tensor=exp_max_tensor,
                   in_exp_sum_tensor=in_exp_sum_tensor, in_max_tensor=in_max_tensor)
    require_local_tensors(api, **tensors)
    check_ub(api, **tensors)
    from asc.language.adv.tiling import SoftmaxTiling
    if not isinstance(tiling, SoftmaxTiling):
        raise TypeError(f"{api}(): tiling must be an asc.adv.SoftmaxTiling, got "
                        f"{type(tiling).__name__}")
    is_update = compile_time_flag(api, "is_update", is_update)
    compile_time_flag(api, "is_reuse_source", is_reuse_source)
    basic_block = compile_time_flag(api, "is_basic_block", is_basic_block)
    if compile_time_flag(api, "is_data_format_nz", is_data_format_nz):
        raise NotSupportedError("asc.adv.softmax_flash_v2(is_data_format_nz=True)")
    config = ConstExpr.unwrap(config)
    if config is None:
        config = SoftmaxConfig()
    if not isinstance(config, SoftmaxConfig):
        raise TypeError(f"{api}(): config must be an asc.adv.SoftmaxConfig, got "
                        f"{type(config).__name__}")
    if config.mode != SoftmaxMode.SOFTMAX_NORMAL or out_reduce_max is not None:
        raise NotSupportedError("asc.adv.softmax_flash_v2 in "
                                "SoftmaxMode.SOFTMAX_OUTPUT_WITHOUT_BRC (out_reduce_max)")
    dst, sum_t, max_t, src = dst_tensor, exp_sum_tensor, max_tensor, src_tensor
    kind = _kind(api, dst, sum_t, max_t, src, exp_max_tensor, in_exp_sum_tensor, in_max_tensor)
    m, k, ori_k = _shape(api, src, ConstExpr.unwrap(softmax_shape_info))
    if config.src_k:
        ori_k = config.src_k
    if ori_k != k:
        raise NotSupportedError(f"{api}() with an original row length ({ori_k}) other than the "
                                f"row's ({k})")
    state_k = ONE_BLK_SIZE // sum_t.dtype.sizeof()
    exp_k = ONE_BLK_SIZE // exp_max_tensor.dtype.sizeof()
    half_source = src.dtype == KT.float16
    per_row = (2 * state_k + k + _FLOAT_REPEAT) if half_source else state_k + _FLOAT_REPEAT
    work, work_bytes = temp_buffer_of(api, shared_tmp_buffer, per_row * 4,
                                      f"one row: {per_row} floats", check_user=False)
    if config.check_tiling:
        computed = _flash_split(work_bytes // 4, m, k, half_source, state_k, basic_block)
        mismatch = (tiling.src_k != k) | (tiling.src_m != m)
        given = (tiling.split_m, tiling.range_m, tiling.tail_m)
        split_m, range_m, tail_m = (select(mismatch, c, g) for c, g in zip(computed, given))
    else:
        split_m, range_m, tail_m = tiling.split_m, tiling.range_m, tiling.tail_m
    from asc.codegen.function_visitor import inline_library
    from asc.language.adv import softmax_flash_ops
    inline_library(softmax_flash_ops.flash_nd, dst, sum_t, max_t, src, exp_max_tensor,
                   in_exp_sum_tensor, in_max_tensor, work.reinterpret_cast(KT.float32), k,
                   split_m, range_m, tail_m, state_k, exp_k, kind, is_update)

