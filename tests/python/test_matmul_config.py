"""asc.adv's compile-time Matmul description and tiling structs, in the style of pyasc's unit
tests (asc-api.md 6.1, 6.4, 10.5): MatmulType, MatmulConfig and each helper, get_mm_config's
arguments, TCubeTiling's layout and field access, the other tiling structs."""
import ctypes

import pytest

import asc
from asc.language.core.enums import (BatchMode, BatchOutMode, IterateMode, IterateOrder,
                                     LayoutMode, MatmulConfigMode, ScheduleType)

adv = asc.adv


def test_matmul_type_keeps_its_five_fields_and_defaults():
    t = adv.MatmulType(asc.TPosition.GM, asc.CubeFormat.ND, asc.float16)
    assert (t.position, t.format, t.dtype, t.is_trans, t.layout) == (
        asc.TPosition.GM, asc.CubeFormat.ND, asc.float16, False, LayoutMode.NONE)
    t2 = adv.MatmulType(asc.TPosition.VECCALC, asc.CubeFormat.NZ, asc.float32, True,
                        LayoutMode.NORMAL)
    assert t2.is_trans and t2.layout == LayoutMode.NORMAL
    with pytest.raises(Exception):
        t.is_trans = True  # frozen
    assert t == adv.MatmulType(asc.TPosition.GM, asc.CubeFormat.ND, asc.float16, False)


def test_matmul_type_refuses_a_non_type():
    with pytest.raises(TypeError, match="data type"):
        adv.MatmulType(asc.TPosition.GM, asc.CubeFormat.ND, "float16")


def test_matmul_config_defaults_are_pyascs():
    cfg = adv.MatmulConfig()
    assert cfg.do_norm is True and cfg.do_multi_data_load is False
    assert cfg.en_unit_flag is True and cfg.enable_init is True
    assert cfg.batch_mode == BatchMode.BATCH_LESS_THAN_L1.value == 1
    assert cfg.iterate_mode == IterateMode.ITERATE_MODE_DEFAULT.value == 255
    assert cfg.iterate_order == IterateOrder.UNDEF
    assert cfg.schedule_type == ScheduleType.INNER_PRODUCT
    assert cfg.shared_co1_buffer_size == 65536
    assert cfg.batch_out_mode == BatchOutMode.SINGLE_BATCH
    assert cfg.enable_mix_dual_master is False


def test_matmul_config_keeps_every_argument_and_accepts_enum_members():
    cfg = adv.MatmulConfig(enable_get_tensor_c=False, enable_set_bias=False,
                           iterate_mode=IterateMode.ITERATE_MODE_ALL, enable_mix_dual_master=True)
    assert cfg.enable_get_tensor_c is False and cfg.enable_set_bias is False
    assert cfg.iterate_mode == IterateMode.ITERATE_MODE_ALL and cfg.enable_mix_dual_master
    with pytest.raises(TypeError, match="unexpected keyword"):
        adv.MatmulConfig(not_a_field=1)
    with pytest.raises(TypeError, match="compile-time"):
        adv.MatmulConfig(basic_m=1.5)


def test_normal_config_is_the_norm_template():
    cfg = adv.get_normal_config(intrinsics_limit=True, batch_loop=True, en_unit_flag=False)
    assert cfg.do_norm and not cfg.do_multi_data_load and not cfg.do_basic_block
    assert cfg.intrinsics_check and cfg.is_n_batch and not cfg.en_unit_flag
    assert cfg.iterate_order == IterateOrder.ORDER_M


def test_mdl_config_selects_multi_data_load():
    cfg = adv.get_mdl_config(do_mte2_preload=2, enable_kdim_reorder_load=True)
    assert not cfg.do_norm and cfg.do_multi_data_load and cfg.is_mdl
    assert cfg.do_mte2_preload == 2 and cfg.enable_kdim_reorder_load
    assert cfg.en_unit_flag is False and cfg.batch_mode == BatchMode.NONE


def test_special_mdl_basic_and_ib_share_configs():
    assert adv.get_special_mdl_config().do_special_mdl
    basic = adv.get_basic_config(128, 64, 32)
    assert basic.do_basic_block and (basic.basic_m, basic.basic_n, basic.basic_k) == (128, 64, 32)
    special = adv.get_special_basic_config(128, 64, 32, 256, 128, 512, 2, 1)
    assert special.do_special_basic_block and special.base_mn == 128 * 64
    assert special.single_core_mn == 256 * 128 and (special.step_m, special.step_n) == (2, 1)
    ib = adv.get_ib_share_norm_config(is_double_cache=True)
    assert ib.do_ib_share_norm and ib.enable_double_cache and not ib.do_norm


def test_matmul_type_ib_share_is_a_sixth_field_off_by_default():
    """aicore-sim's extension (Ascend C's MatmulType IBShare); pyasc's five stay as they are."""
    plain = adv.MatmulType(asc.TPosition.GM, asc.CubeFormat.ND, asc.float16)
    assert plain.ib_share is False
    shared = adv.MatmulType(asc.TPosition.GM, asc.CubeFormat.ND, asc.float16, False,
                            asc.LayoutMode.NONE, True)
    assert shared.ib_share is True and shared != plain
    with pytest.raises(TypeError, match="ib_share must be a compile-time bool"):
        adv.MatmulType(asc.TPosition.GM, asc.CubeFormat.ND, asc.float16, ib_share="yes")


def test_get_mm_config_honours_its_arguments():
    cfg = adv.get_mm_config(adv.MatmulShapeParams(256, 128, 512, 128, 64, 128),
                            adv.MatmulFuncParams(enable_kdim_reorder_load=True),
                            MatmulConfigMode.CONFIG_MDL)
    assert (cfg.single_core_m, cfg.single_core_n, cfg.single_core_k) == (256, 128, 512)
    assert (cfg.basic_m, cfg.basic_n, cfg.basic_k) == (128, 64, 128)
    assert cfg.enable_kdim_reorder_load and cfg.do_multi_data_load and not cfg.do_norm
    norm = adv.get_mm_config(MatmulConfigMode.CONFIG_NORM)
    assert norm.do_norm and norm.iterate_order == IterateOrder.ORDER_M
    assert norm.enable_reuse is False and norm.is_bias_batch is False
    assert adv.get_mm_config(MatmulConfigMode.CONFIG_SPECIALMDL).do_special_mdl
    assert adv.get_mm_config(MatmulConfigMode.CONFIG_IBSHARE).do_ib_share_norm
    quant = adv.get_mm_config(adv.MatmulQuantParams(True, True))
    assert quant.is_per_tensor and quant.has_anti_quant_offset
    batch = adv.get_mm_config(adv.MatmulBatchParams(True, 2, True))
    assert batch.is_n_batch and batch.batch_mode == 2 and batch.is_bias_batch
    with pytest.raises(TypeError, match="get_mm_config"):
        adv.get_mm_config(42)


def test_get_matmul_api_tiling_needs_l1_size_and_returns_nothing():
    t = adv.MatmulType(asc.TPosition.GM, asc.CubeFormat.ND, asc.float16)
    assert adv.get_matmul_api_tiling(adv.MatmulConfig(), t, t, t, t, l1_size=512 * 1024) is None
    with pytest.raises(TypeError, match="l1_size"):
        adv.get_matmul_api_tiling(adv.MatmulConfig(), t, t, t, t)


def test_tcube_tiling_is_49_int32_fields_in_canns_order():
    names = [f.attr for f in adv.TCubeTiling._fields]
    assert len(names) == 49 and adv.TCubeTiling.sizeof() == 196
    assert names[:11] == ["used_core_num", "m", "n", "k_a", "k_b", "single_core_m",
                          "single_core_n", "single_core_k", "base_m", "base_n", "base_k"]
    assert names[-1] == "batch_num" and names.index("step_k_a") == 26
    assert [f.name for f in adv.TCubeTiling._fields][:3] == ["usedCoreNum", "M", "N"]
    t = adv.TCubeTiling(used_core_num=16, m=256, base_m=64)
    assert (t.used_core_num, t.m, t.base_m, t.n) == (16, 256, 64, 0)
    t.n = 128
    raw = t.pack()
    assert len(raw) == 196 and int.from_bytes(raw[8:12], "little") == 128
    view = adv.TCubeTiling._ctype.from_address(t.addressof())
    view.k_a = 77
    assert t.k_a == 77
    with pytest.raises(RuntimeError, match="no field"):
        adv.TCubeTiling(not_a_field=1)
    assert ctypes.sizeof(adv.TCubeTiling._ctype) == 196


def test_the_other_tiling_structs():
    assert adv.SoftmaxTiling.sizeof() == 64 and adv.SoftmaxTiling().src_m == 0
    r = adv.RmsNormTiling(reciprocal_of_h_length=0.25, h_length=4)
    assert r.reciprocal_of_h_length == 0.25 and r.h_length == 4
    assert adv.RmsNormTiling.sizeof() == 12 * 4  # 11 int32 and one float32
    s = adv.MatmulApiStaticTiling()
    assert s.m == -1 and s.mx_type_para == -1 and len(adv.MatmulApiStaticTiling._fields) == 46
    assert [f.name for f in adv.MatmulApiStaticTiling._fields][16] == "transLength"
