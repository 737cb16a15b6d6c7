"""Matmul's compile-time description (asc-api.md 6.1, 10.5): MatmulType (where an operand lives,
its format, type, transposition and batch layout), MatmulConfig (the template switches Ascend
C's MatmulConfig holds) and the helpers that build configs. All are Python objects read while
tracing; none reaches the IR. Which fields each helper sets is Ascend C's (asc-devkit
`include/adv_api/matmul/tiling.h`, docs/matmul.md)."""
import dataclasses
import numbers

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
    """One operand of a Matmul: `MatmulType(position, format, dtype, is_trans=False,
    layout=LayoutMode.NONE, ib_share=False)`. `ib_share` is aicore-sim's extension (pyasc's
    MatmulType stops at layout): Ascend C's MatmulType IBShare parameter, the operand the two
    vector cores of a group share in L1 under the IBShare template (docs/matmul.md)."""
    position: TPosition
    format: CubeFormat
    dtype: DataType
    is_trans: bool = False
    layout: LayoutMode = LayoutMode.NONE
    ib_share: bool = False

    def __post_init__(self):
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
    """The template switches of a Matmul (compile-time). Every keyword of asc-api.md 6.1, each
    kept as the attribute of the same name; enum-valued ones accept the member or its int."""

    def __init__(self, **kwargs):
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

    def replace(self, **changes) -> "MatmulConfig":
        values = {name: getattr(self, name) for name in _CONFIG_DEFAULTS}
        values.update(changes)
        return MatmulConfig(**values)

    @property
    def is_mdl(self) -> bool:
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


def get_normal_config(intrinsics_limit=False, batch_loop=False, is_vec_nd2_nz=False,
                      bmm_mode=BatchMode.BATCH_LESS_THAN_L1, is_msg_reuse=True,
                      iterate_order=IterateOrder.ORDER_M,
                      schedule_type=ScheduleType.INNER_PRODUCT, en_unit_flag=True):
    """The Norm template."""
    return _NORM.replace(intrinsics_check=intrinsics_limit, is_n_batch=batch_loop,
                         en_vec_nd2nz=is_vec_nd2_nz, batch_mode=bmm_mode,
                         enable_reuse=is_msg_reuse, enable_ub_reuse=True,
                         iterate_order=iterate_order, schedule_type=schedule_type,
                         en_unit_flag=en_unit_flag)


def get_mdl_config(intrinsics_limit=False, batch_loop=False, do_mte2_preload=0,
                   is_vec_nd2_nz=False, is_per_tensor=False, has_anti_quant_offset=False,
                   en_unit_flag=False, is_msg_reuse=True, enable_ub_reuse=True,
                   enable_l1_cache_ub=False, enable_mix_dual_master=False,
                   enable_kdim_reorder_load=False):
    """The MDL (multi-data-load) template. Ascend C's GetMDLConfig clears doNorm and sets
    doMultiDataLoad; pyasc 6.1's copy forgets the latter (asc-api.md 6.1), the chip's library
    is followed here (docs/matmul.md)."""
    return _NORM.replace(do_norm=False, do_multi_data_load=True,
                         intrinsics_check=intrinsics_limit, is_n_batch=batch_loop,
                         do_mte2_preload=do_mte2_preload, en_vec_nd2nz=is_vec_nd2_nz,
                         is_per_tensor=is_per_tensor, has_anti_quant_offset=has_anti_quant_offset,
                         en_unit_flag=en_unit_flag, batch_mode=BatchMode.NONE,
                         enable_reuse=is_msg_reuse, enable_ub_reuse=enable_ub_reuse,
                         enable_l1_cache_ub=enable_l1_cache_ub,
                         enable_mix_dual_master=enable_mix_dual_master,
                         enable_kdim_reorder_load=enable_kdim_reorder_load)


def get_special_mdl_config(intrinsics_limit=False, batch_loop=False, do_mte2_pre_load=0,
                           is_vec_nd2_nz=False, is_per_tensor=False, has_anti_quant_offset=False):
    """The special MDL template."""
    return _NORM.replace(do_norm=False, do_special_mdl=True, intrinsics_check=intrinsics_limit,
                         is_n_batch=batch_loop, do_mte2_preload=do_mte2_pre_load,
                         en_vec_nd2nz=is_vec_nd2_nz, is_per_tensor=is_per_tensor,
                         has_anti_quant_offset=has_anti_quant_offset, en_unit_flag=False,
                         batch_mode=BatchMode.NONE, enable_ub_reuse=True)


def get_basic_config(basic_m, basic_n, basic_k, intrinsics_limit=False, batch_loop=False,
                     bmm_mode=BatchMode.BATCH_LESS_THAN_L1):
    """The basic-block template with fixed base sizes."""
    return _NORM.replace(do_norm=False, do_basic_block=True, basic_m=basic_m, basic_n=basic_n,
                         basic_k=basic_k, intrinsics_check=intrinsics_limit,
                         is_n_batch=batch_loop, en_unit_flag=False, batch_mode=bmm_mode,
                         enable_ub_reuse=True)


def get_special_basic_config(basic_m, basic_n, basic_k, single_core_m, single_core_n,
                             single_core_k, step_m, step_n, intrinsics_limit=False,
                             batch_loop=False, bmm_mode=BatchMode.BATCH_LESS_THAN_L1):
    """The special basic-block template: base and single-core sizes fixed at compile time."""
    return _NORM.replace(do_norm=False, do_special_basic_block=True, basic_m=basic_m,
                         basic_n=basic_n, basic_k=basic_k, single_core_m=single_core_m,
                         single_core_n=single_core_n, single_core_k=single_core_k,
                         step_m=step_m, step_n=step_n, base_mn=basic_m * basic_n,
                         single_core_mn=single_core_m * single_core_n,
                         intrinsics_check=intrinsics_limit, is_n_batch=batch_loop,
                         en_unit_flag=False, batch_mode=bmm_mode, enable_ub_reuse=True)


def get_ib_share_norm_config(intrinsics_limit=False, batch_loop=False, is_vec_nd2_nz=False,
                             bmm_mode=BatchMode.BATCH_LESS_THAN_L1, is_double_cache=False,
                             en_unit_flag=True):
    """The IBShare template (A or B shared by the two vector cores of a group)."""
    return _NORM.replace(do_norm=False, do_ib_share_norm=True, intrinsics_check=intrinsics_limit,
                         is_n_batch=batch_loop, en_vec_nd2nz=is_vec_nd2_nz, batch_mode=bmm_mode,
                         enable_double_cache=is_double_cache, en_unit_flag=en_unit_flag,
                         enable_ub_reuse=True)


class MatmulShapeParams:
    def __init__(self, single_core_m=0, single_core_n=0, single_core_k=0, basic_m=0, basic_n=0,
                 basic_k=0):
        self.single_core_m, self.single_core_n, self.single_core_k = (
            single_core_m, single_core_n, single_core_k)
        self.basic_m, self.basic_n, self.basic_k = basic_m, basic_n, basic_k


class MatmulQuantParams:
    def __init__(self, is_per_tensor=False, has_anti_quant_offset=False):
        self.is_per_tensor = is_per_tensor
        self.has_anti_quant_offset = has_anti_quant_offset


class MatmulBatchParams:
    def __init__(self, is_b_batch=False, batch_mode=1, is_bias_batch=False):
        self.is_n_batch = is_b_batch
        self.batch_mode = batch_mode
        self.is_bias_batch = is_bias_batch


class MatmulFuncParams:
    def __init__(self, intrinsics_limit=False, en_vec_nd2_nz=False, enable_double_cache=False,
                 enable_l1_cache=False, do_mte2_pre_load=0, iterate_order=0, schedule_type=0,
                 enable_reuse=True, enable_ub_reuse=False, is_partial_output=False,
                 is_a2_b2_shared=False, is_enable_channel_split=False,
                 enable_kdim_reorder_load=False):
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


def get_mm_config(*args, **kwargs):
    """A config from its mode (a MatmulConfigMode among the arguments, CONFIG_NORM when none)
    and the parameter holders, applied in order (the examples' revision, asc-api.md 10.5)."""
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


def get_matmul_api_tiling(mm_cfg, a_type, b_type, c_type, bias_type, l1_size=None):
    """pyasc's constant-tiling helper returns nothing (asc-api.md 6.1); the constant tiling of a
    config is derived where the Matmul is built (docs/matmul.md, "Constant tiling")."""
    if l1_size is None:
        raise TypeError("get_matmul_api_tiling() needs l1_size (the L1 bytes the tiling may "
                        "use), as pyasc's does")
    for name, t in (("a_type", a_type), ("b_type", b_type), ("c_type", c_type)):
        if not isinstance(ConstExpr.unwrap(t), MatmulType):
            raise TypeError(f"get_matmul_api_tiling(): {name} must be a MatmulType")
    if not isinstance(ConstExpr.unwrap(mm_cfg), MatmulConfig):
        raise TypeError("get_matmul_api_tiling(): mm_cfg must be a MatmulConfig")
    return None
