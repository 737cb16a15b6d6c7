"""Matmul's compile-time description (asc-api.md 6.1, 10.5): MatmulType (where an operand lives,
its format, type, transposition and batch layout), MatmulConfig (the template switches Ascend
C's MatmulConfig holds) and the helpers that build configs. All are Python objects read while
tracing; none reaches the IR. Which fields each helper sets is Ascend C's (asc-devkit
`include/adv_api/matmul/tiling.h`, docs/matmul.md)."""
from __future__ import annotations

import dataclasses
import numbers
from typing import Any, Optional, Union, overload

from asc.language.core.constexpr import ConstExpr
from asc.language.core.dtype import DataType
from asc.language.core.enums import (BatchMode, BatchOutMode, CubeFormat, IterateMode,
                                     IterateOrder, LayoutMode, MatmulConfigMode, ScheduleType,
                                     TPosition)

__all__ = ["MatmulType", "MatmulConfig", "get_normal_config", "get_mdl_config",
           "get_special_mdl_config", "get_basic_config", "get_special_basic_config",
           "get_ib_share_norm_config", "get_mm_config", "MatmulShapeParams", "MatmulQuantParams",
           "MatmulBatchParams", "MatmulFuncParams", "get_matmul_api_tiling"]


@dataclasses.dataclass(frozen=True)
class MatmulType:
    """One operand of a Matmul: where it lives, its format, element type and layout.

    `MatmulType(position, format, dtype, is_trans=False, layout=LayoutMode.NONE,
    ib_share=False)` (asc-api.md 6.1), all compile-time: position an asc.TPosition (GM, VECOUT,
    ...), format an asc.CubeFormat (ND, NZ, ...), dtype the element DataType, is_trans whether
    the operand is stored transposed, layout its batch LayoutMode. `ib_share` is aicore-sim's
    extension (pyasc's MatmulType stops at layout): Ascend C's MatmulType IBShare parameter, the
    operand the two vector cores of a group share in L1 under the IBShare template
    (docs/matmul.md)."""
    position: TPosition
    format: CubeFormat
    dtype: DataType
    is_trans: bool = False
    layout: LayoutMode = LayoutMode.NONE
    ib_share: bool = False

    def __post_init__(self) -> None:
        for name in ("position", "format", "dtype", "is_trans", "layout", "ib_share"):
            object.__setattr__(self, name, ConstExpr.unwrap(getattr(self, name)))
        if not isinstance(self.dtype, DataType):
            raise TypeError(f"MatmulType(): dtype must be an asc data type, got {self.dtype!r}")
        if not isinstance(self.is_trans, (bool, numbers.Integral)):
            raise TypeError("MatmulType(): is_trans must be a compile-time bool (it selects the "
                            f"template), got {type(self.is_trans).__name__}")
        object.__setattr__(self, "position", TPosition(self.position))
        object.__setattr__(self, "format", CubeFormat(self.format))
        object.__setattr__(self, "layout", LayoutMode(self.layout))
        object.__setattr__(self, "is_trans", bool(self.is_trans))
        if not isinstance(self.ib_share, (bool, numbers.Integral)):
            raise TypeError("MatmulType(): ib_share must be a compile-time bool, got "
                            f"{type(self.ib_share).__name__}")
        object.__setattr__(self, "ib_share", bool(self.ib_share))


# MatmulConfig's fields and defaults, in Ascend C's order (asc-api.md 6.1).
_CONFIG_DEFAULTS = dict(
    do_norm=True, do_basic_block=False, do_multi_data_load=False, basic_m=0, basic_n=0,
    basic_k=0, intrinsics_check=False, is_n_batch=False, en_vec_nd2nz=False,
    do_special_basic_block=False, do_mte2_preload=0, single_core_m=0, single_core_n=0,
    single_core_k=0, step_m=0, step_n=0, base_mn=0, single_core_mn=0, en_unit_flag=True,
    is_per_tensor=False, has_anti_quant_offset=False, do_ib_share_norm=False,
    do_special_mdl=False, enable_init=True, batch_mode=BatchMode.BATCH_LESS_THAN_L1.value,
    enable_end=True, enable_get_tensor_c=True, enable_set_org_shape=True, enable_set_bias=True,
    enable_set_tail=True, enable_quant_vector=True, enable_set_define_data=True,
    iterate_mode=IterateMode.ITERATE_MODE_DEFAULT.value, enable_reuse=True,
    enable_ub_reuse=False, enable_l1_cache_ub=False, intra_block_part_sum=False,
    iterate_order=IterateOrder.UNDEF, schedule_type=ScheduleType.INNER_PRODUCT,
    enable_double_cache=0, is_bias_batch=True, enable_static_pad_zeros=False,
    is_partial_output=False, enable_mix_dual_master=False, is_a2b2_shared=False,
    is_enable_channel_split=False, enable_kdim_reorder_load=False, is_co1_shared=False,
    shared_co1_buffer_size=65536, batch_out_mode=BatchOutMode.SINGLE_BATCH)


class MatmulConfig:
    """The template switches of a Matmul, compile-time (Ascend C's MatmulConfig).

    `MatmulConfig(**switches)`: every keyword of asc-api.md 6.1 (do_norm, do_multi_data_load,
    basic_m, ..., batch_out_mode), each kept as the attribute of the same name with Ascend C's
    default when not given; enum-valued ones accept the member or its int. The get_*_config
    helpers and get_mm_config build the templates' configs."""

    def __init__(self, **kwargs: Any) -> None:
        unknown = sorted(set(kwargs) - set(_CONFIG_DEFAULTS))
        if unknown:
            raise TypeError(f"MatmulConfig() got unexpected keyword argument(s) "
                            f"{', '.join(unknown)}")
        for name, default in _CONFIG_DEFAULTS.items():
            value = ConstExpr.unwrap(kwargs.get(name, default))
            if not isinstance(value, numbers.Integral):
                raise TypeError(f"MatmulConfig(): {name} is a compile-time setting and must be "
                                f"an int, bool or enum, got {type(value).__name__}")
            setattr(self, name, value)

    def replace(self, **changes: Any) -> MatmulConfig:
        """A copy with `changes` applied."""
        values = {name: getattr(self, name) for name in _CONFIG_DEFAULTS}
        values.update(changes)
        return MatmulConfig(**values)

    @property
    def is_mdl(self) -> bool:
        """Whether this is the MDL template (multi-data-load without norm)."""
        return bool(self.do_multi_data_load) and not self.do_norm

    def _key(self):
        return tuple(int(getattr(self, name)) for name in _CONFIG_DEFAULTS)

    def __eq__(self, other):
        return isinstance(other, MatmulConfig) and self._key() == other._key()

    def __hash__(self):
        return hash(self._key())

    def __repr__(self):
        changed = [f"{n}={getattr(self, n)!r}" for n, d in _CONFIG_DEFAULTS.items()
                   if int(getattr(self, n)) != int(d)]
        return f"MatmulConfig({', '.join(changed)})"


_NORM = MatmulConfig()


def get_normal_config(intrinsics_limit: bool = False, batch_loop: bool = False,
                      is_vec_nd2_nz: bool = False,
                      bmm_mode: BatchMode = BatchMode.BATCH_LESS_THAN_L1,
                      is_msg_reuse: bool = True,
                      iterate_order: IterateOrder = IterateOrder.ORDER_M,
                      schedule_type: ScheduleType = ScheduleType.INNER_PRODUCT,
                      en_unit_flag: bool = True) -> MatmulConfig:
    """The Norm template's config (Ascend C's GetNormalConfig).

    intrinsics_limit sets intrinsics_check, batch_loop is_n_batch, is_vec_nd2_nz en_vec_nd2nz,
    bmm_mode batch_mode, is_msg_reuse enable_reuse; iterate_order, schedule_type and en_unit_flag
    keep their names; enable_ub_reuse is True (asc-api.md 6.1, docs/matmul.md)."""
    return _NORM.replace(intrinsics_check=intrinsics_limit, is_n_batch=batch_loop,
                         en_vec_nd2nz=is_vec_nd2_nz, batch_mode=bmm_mode,
                         enable_reuse=is_msg_reuse, enable_ub_reuse=True,
                         iterate_order=iterate_order, schedule_type=schedule_type,
                         en_unit_flag=en_unit_flag)


def get_mdl_config(intrinsics_limit: bool = False, batch_loop: bool = False,
                   do_mte2_preload: int = 0, is_vec_nd2_nz: bool = False,
                   is_per_tensor: bool = False, has_anti_quant_offset: bool = False,
                   en_unit_flag: bool = False, is_msg_reuse: bool = True,
                   enable_ub_reuse: bool = True, enable_l1_cache_ub: bool = False,
                   enable_mix_dual_master: bool = False,
                   enable_kdim_reorder_load: bool = False) -> MatmulConfig:
    """The MDL (multi-data-load) template's config (Ascend C's GetMDLConfig).

    Clears do_norm and sets do_multi_data_load, as Ascend C's GetMDLConfig does (pyasc 6.1's copy
    forgets the latter, asc-api.md 6.1; the chip's library is followed here, docs/matmul.md);
    batch_mode NONE; the arguments map as get_normal_config's, the others by name."""
    return _NORM.replace(do_norm=False, do_multi_data_load=True,
                         intrinsics_check=intrinsics_limit, is_n_batch=batch_loop,
                         do_mte2_preload=do_mte2_preload, en_vec_nd2nz=is_vec_nd2_nz,
                         is_per_tensor=is_per_tensor, has_anti_quant_offset=has_anti_quant_offset,
                         en_unit_flag=en_unit_flag, batch_mode=BatchMode.NONE,
                         enable_reuse=is_msg_reuse, enable_ub_reuse=enable_ub_reuse,
                         enable_l1_cache_ub=enable_l1_cache_ub,
                         enable_mix_dual_master=enable_mix_dual_master,
                         enable_kdim_reorder_load=enable_kdim_reorder_load)


def get_special_mdl_config(intrinsics_limit: bool = False, batch_loop: bool = False,
                           do_mte2_pre_load: int = 0, is_vec_nd2_nz: bool = False,
                           is_per_tensor: bool = False,
                           has_anti_quant_offset: bool = False) -> MatmulConfig:
    """The special MDL template's config (Ascend C's GetSpecialMDLConfig).

    Clears do_norm and sets do_special_mdl; en_unit_flag False, batch_mode NONE,
    enable_ub_reuse True; the arguments map as get_mdl_config's."""
    return _NORM.replace(do_norm=False, do_special_mdl=True, intrinsics_check=intrinsics_limit,
                         is_n_batch=batch_loop, do_mte2_preload=do_mte2_pre_load,
                         en_vec_nd2nz=is_vec_nd2_nz, is_per_tensor=is_per_tensor,
                         has_anti_quant_offset=has_anti_quant_offset, en_unit_flag=False,
                         batch_mode=BatchMode.NONE, enable_ub_reuse=True)


def get_basic_config(basic_m: int, basic_n: int, basic_k: int, intrinsics_limit: bool = False,
                     batch_loop: bool = False,
                     bmm_mode: BatchMode = BatchMode.BATCH_LESS_THAN_L1) -> MatmulConfig:
    """The basic-block template's config with fixed base sizes (Ascend C's GetBasicConfig).

    Clears do_norm and sets do_basic_block with basic_m x basic_n x basic_k (compile-time ints);
    en_unit_flag False, enable_ub_reuse True."""
    return _NORM.replace(do_norm=False, do_basic_block=True, basic_m=basic_m, basic_n=basic_n,
                         basic_k=basic_k, intrinsics_check=intrinsics_limit,
                         is_n_batch=batch_loop, en_unit_flag=False, batch_mode=bmm_mode,
                         enable_ub_reuse=True)


def get_special_basic_config(basic_m: int, basic_n: int, basic_k: int, single_core_m: int,
                             single_core_n: int, single_core_k: int, step_m: int, step_n: int,
                             intrinsics_limit: bool = False, batch_loop: bool = False,
                             bmm_mode: BatchMode = BatchMode.BATCH_LESS_THAN_L1) -> MatmulConfig:
    """The special basic-block template's config (Ascend C's GetSpecialBasicConfig).

    The base and single-core sizes and the steps are fixed at compile time (base_mn and
    single_core_mn their products); en_unit_flag False, enable_ub_reuse True."""
    return _NORM.replace(do_norm=False, do_special_basic_block=True, basic_m=basic_m,
                         basic_n=basic_n, basic_k=basic_k, single_core_m=single_core_m,
                         single_core_n=single_core_n, single_core_k=single_core_k,
                         step_m=step_m, step_n=step_n, base_mn=basic_m * basic_n,
                         single_core_mn=single_core_m * single_core_n,
                         intrinsics_check=intrinsics_limit, is_n_batch=batch_loop,
                         en_unit_flag=False, batch_mode=bmm_mode, enable_ub_reuse=True)


def get_ib_share_norm_config(intrinsics_limit: bool = False, batch_loop: bool = False,
                             is_vec_nd2_nz: bool = False,
                             bmm_mode: BatchMode = BatchMode.BATCH_LESS_THAN_L1,
                             is_double_cache: bool = False,
                             en_unit_flag: bool = True) -> MatmulConfig:
    """The IBShare template's config (Ascend C's GetIBShareNormConfig).

    A or B is shared in L1 by the two vector cores of a group (MatmulType(..., ib_share=True));
    is_double_cache sets enable_double_cache."""
    return _NORM.replace(do_norm=False, do_ib_share_norm=True, intrinsics_check=intrinsics_limit,
                         is_n_batch=batch_loop, en_vec_nd2nz=is_vec_nd2_nz, batch_mode=bmm_mode,
                         enable_double_cache=is_double_cache, en_unit_flag=en_unit_flag,
                         enable_ub_reuse=True)


class MatmulShapeParams:
    """get_mm_config's holder of the single-core and basic block sizes (compile-time ints).

    Ascend C's MatmulShapeParams: single_core_m/n/k and basic_m/n/k set the config's fields of
    the same names."""

    def __init__(self, single_core_m: int = 0, single_core_n: int = 0, single_core_k: int = 0,
                 basic_m: int = 0, basic_n: int = 0, basic_k: int = 0) -> None:
        self.single_core_m, self.single_core_n, self.single_core_k = (
            single_core_m, single_core_n, single_core_k)
        self.basic_m, self.basic_n, self.basic_k = basic_m, basic_n, basic_k


class MatmulQuantParams:
    """get_mm_config's holder of the quantisation switches (Ascend C's MatmulQuantParams)."""

    def __init__(self, is_per_tensor: bool = False, has_anti_quant_offset: bool = False) -> None:
        self.is_per_tensor = is_per_tensor
        self.has_anti_quant_offset = has_anti_quant_offset


class MatmulBatchParams:
    """get_mm_config's holder of the batch switches (Ascend C's MatmulBatchParams).

    is_b_batch sets the config's is_n_batch; batch_mode is a BatchMode or its int."""

    def __init__(self, is_b_batch: bool = False, batch_mode: Union[BatchMode, int] = 1,
                 is_bias_batch: bool = False) -> None:
        self.is_n_batch = is_b_batch
        self.batch_mode = batch_mode
        self.is_bias_batch = is_bias_batch


class MatmulFuncParams:
    """get_mm_config's holder of the function switches (Ascend C's MatmulFuncParams).

    Caching (enable_double_cache, enable_l1_cache: the config's enable_l1_cache_ub), reuse,
    the iteration order and scheduling (IterateOrder, ScheduleType or their ints), partial
    output, A2/B2 sharing, channel split and K-direction reordering."""

    def __init__(self, intrinsics_limit: bool = False, en_vec_nd2_nz: bool = False,
                 enable_double_cache: bool = False, enable_l1_cache: bool = False,
                 do_mte2_pre_load: int = 0, iterate_order: Union[IterateOrder, int] = 0,
                 schedule_type: Union[ScheduleType, int] = 0, enable_reuse: bool = True,
                 enable_ub_reuse: bool = False, is_partial_output: bool = False,
                 is_a2_b2_shared: bool = False, is_enable_channel_split: bool = False,
                 enable_kdim_reorder_load: bool = False) -> None:
        self.intrinsics_limit = intrinsics_limit
        self.en_vec_nd2_nz = en_vec_nd2_nz
        self.enable_double_cache = enable_double_cache
        self.enable_l1_cache = enable_l1_cache
        self.do_mte2_pre_load = do_mte2_pre_load
        self.iterate_order = iterate_order
        self.schedule_type = schedule_type
        self.enable_reuse = enable_reuse
        self.enable_ub_reuse = enable_ub_reuse
        self.is_partial_output = is_partial_output
        self.is_a2_b2_shared = is_a2_b2_shared
        self.is_enable_channel_split = is_enable_channel_split
        self.enable_kdim_reorder_load = enable_kdim_reorder_load


def _apply(config, params):
    """What one argument of get_mm_config sets (Ascend C's GetMMConfigImpl overloads)."""
    params = ConstExpr.unwrap(params)
    if isinstance(params, MatmulShapeParams):
        return config.replace(single_core_m=params.single_core_m,
                              single_core_n=params.single_core_n,
                              single_core_k=params.single_core_k, basic_m=params.basic_m,
                              basic_n=params.basic_n, basic_k=params.basic_k)
    if isinstance(params, MatmulQuantParams):
        return config.replace(is_per_tensor=params.is_per_tensor,
                              has_anti_quant_offset=params.has_anti_quant_offset)
    if isinstance(params, MatmulBatchParams):
        return config.replace(is_n_batch=params.is_n_batch, batch_mode=params.batch_mode,
                              is_bias_batch=params.is_bias_batch)
    if isinstance(params, MatmulFuncParams):
        return config.replace(
            intrinsics_check=params.intrinsics_limit, en_vec_nd2nz=params.en_vec_nd2_nz,
            enable_double_cache=params.enable_double_cache,
            enable_l1_cache_ub=params.enable_l1_cache, do_mte2_preload=params.do_mte2_pre_load,
            iterate_order=params.iterate_order, schedule_type=params.schedule_type,
            enable_reuse=params.enable_reuse, enable_ub_reuse=params.enable_ub_reuse,
            is_partial_output=params.is_partial_output, is_a2b2_shared=params.is_a2_b2_shared,
            is_enable_channel_split=params.is_enable_channel_split,
            enable_kdim_reorder_load=params.enable_kdim_reorder_load)
    raise TypeError("get_mm_config() takes MatmulShapeParams, MatmulQuantParams, "
                    f"MatmulBatchParams, MatmulFuncParams and a MatmulConfigMode, got "
                    f"{type(params).__name__}")


# A parameter holder of get_mm_config.
MatmulParams = Union[MatmulShapeParams, MatmulQuantParams, MatmulBatchParams, MatmulFuncParams]


@overload
def get_mm_config(mode: MatmulConfigMode, *params: MatmulParams) -> MatmulConfig: ...


@overload
def get_mm_config(*params: MatmulParams) -> MatmulConfig: ...


def get_mm_config(*args, **kwargs) -> MatmulConfig:
    """A Matmul config from its mode and parameter holders (Ascend C's GetMMConfig).

    `get_mm_config(mode, *params)` or `get_mm_config(*params)` (the examples' revision,
    asc-api.md 10.5): the mode is a MatmulConfigMode among the arguments (CONFIG_NORM when none:
    CONFIG_MDL, CONFIG_SPECIALMDL and CONFIG_IBSHARE pick those templates); the
    MatmulShapeParams, MatmulQuantParams, MatmulBatchParams and MatmulFuncParams holders are
    applied in order, each setting its fields. Keywords are read as positional arguments."""
    items = [ConstExpr.unwrap(a) for a in list(args) + list(kwargs.values())]
    modes = [a for a in items if isinstance(a, MatmulConfigMode)]
    if len(modes) > 1:
        raise TypeError("get_mm_config() takes one MatmulConfigMode")
    mode = modes[0] if modes else MatmulConfigMode.CONFIG_NORM
    base = _NORM.replace(iterate_order=IterateOrder.ORDER_M, enable_reuse=False,
                         is_bias_batch=False)
    if mode is MatmulConfigMode.CONFIG_MDL:
        base = base.replace(do_norm=False, do_multi_data_load=True, en_unit_flag=False,
                            batch_mode=BatchMode.NONE)
    elif mode is MatmulConfigMode.CONFIG_SPECIALMDL:
        base = base.replace(do_norm=False, do_special_mdl=True, en_unit_flag=False,
                            batch_mode=BatchMode.NONE)
    elif mode is MatmulConfigMode.CONFIG_IBSHARE:
        base = base.replace(do_norm=False, do_ib_share_norm=True)
    for item in items:
        if not isinstance(item, MatmulConfigMode):
            base = _apply(base, item)
    return base


def get_matmul_api_tiling(mm_cfg: MatmulConfig, a_type: MatmulType, b_type: MatmulType,
                          c_type: MatmulType, bias_type: Optional[MatmulType],
                          l1_size: Optional[int] = None) -> None:
    """pyasc's constant-tiling helper: checks its arguments and returns nothing (asc-api.md 6.1).

    The constant tiling of a config is derived where the Matmul is built (docs/matmul.md,
    "Constant tiling"); l1_size (the L1 bytes the tiling may use) is required, as pyasc's."""
    if l1_size is None:
        raise TypeError("get_matmul_api_tiling() needs l1_size (the L1 bytes the tiling may "
                        "use), as pyasc's does")
    for name, t in (("a_type", a_type), ("b_type", b_type), ("c_type", c_type)):
        if not isinstance(ConstExpr.unwrap(t), MatmulType):
            raise TypeError(f"get_matmul_api_tiling(): {name} must be a MatmulType")
    if not isinstance(ConstExpr.unwrap(mm_cfg), MatmulConfig):
        raise TypeError("get_matmul_api_tiling(): mm_cfg must be a MatmulConfig")
    return None
