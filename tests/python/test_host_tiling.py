"""Host-side Matmul tiling (`asc.lib.host`, asc-api.md 7, docs/host_tiling.md): the enums'
CANN values, the platform read from the runtime, every method of the three calculators, and the
contract the Matmul kernels rely on, checked against the buffer budgets over a sweep of shapes
and dtypes."""
import ctypes
import itertools

import numpy as np
import pytest

import asc
import asc.lib.host as host
import asc.lib.runtime as rt
import asc.runtime.config as config
from asc.lib.runtime.support import DeviceInfoType, DeviceModuleType

GM, UB = host.TPosition.GM, host.TPosition.VECCALC
ND, NZ = host.CubeFormat.ND, host.CubeFormat.NZ
F16, F32, BF16, I8, I32 = (host.DataType.DT_FLOAT16, host.DataType.DT_FLOAT,
                           host.DataType.DT_BF16, host.DataType.DT_INT8, host.DataType.DT_INT32)
SIZEOF = {F16: 2, F32: 4, BF16: 2, I8: 1, I32: 4}
CLASSES = [host.MatmulApiTiling, host.MultiCoreMatmulTiling, host.BatchMatmulTiling]
FIELDS = [f.attr for f in asc.adv.TCubeTiling._fields]


@pytest.fixture
def asc_platform():
    """As pyasc's unit tests get it: the manager's instance for the SoC set_platform chose."""
    config.set_platform(config.Backend.Model)
    soc_version = rt.get_soc_version()
    yield host.PlatformAscendCManager.get_instance(soc_version.value)


def filled(value=-7):
    """A TCubeTiling whose every field holds `value` (to see what get_tiling writes)."""
    return asc.adv.TCubeTiling(**{f: value for f in FIELDS})


def fields(tiling):
    return {f: getattr(tiling, f) for f in FIELDS}


def ceil16(x):
    return -(-x // 16) * 16


def round_up(x, a):
    return -(-x // a) * a


def ceil_div(a, b):
    return -(-a // b)


def make(cls, platform, m, n, k, a=F16, b=F16, c=F32, c_pos=GM, bias=False, dim=None,
         b_format=ND, trans_b=False):
    t = cls(platform)
    assert t.set_a_type(GM, ND, a, False) == 0
    assert t.set_b_type(GM, b_format, b, trans_b) == 0
    assert t.set_c_type(c_pos, ND, c) == 0
    assert t.set_bias_type(GM, ND, F32 if c != I32 else I32) == 0
    if dim is not None and cls is host.MultiCoreMatmulTiling:
        assert t.set_dim(dim) == 0
    assert t.set_org_shape(m, n, k) == 0
    assert t.set_shape(m, n, k) == 0
    assert t.enable_bias(bias) == 0
    assert t.set_buffer_space(-1, -1, -1) == 0
    return t


def check_contract(t, platform, m, n, k, a=F16, b=F16, c=F32, c_pos=GM, bias=False, dim=1,
                   split_k=False, l1=None, l0c=None, ub=None):
    """Every rule of docs/host_tiling.md "The contract" for the tiling `t` computes."""
    tiling = asc.adv.TCubeTiling()
    assert t.get_tiling(tiling) == 0
    f = fields(tiling)
    l0a = platform.get_core_mem_size(host.CoreMemType.L0_A)
    l0b = platform.get_core_mem_size(host.CoreMemType.L0_B)
    l1 = l1 or platform.get_core_mem_size(host.CoreMemType.L1)
    l0c = l0c or platform.get_core_mem_size(host.CoreMemType.L0_C)
    ub = ub or platform.get_core_mem_size(host.CoreMemType.UB)
    bt = platform.get_core_mem_size(host.CoreMemType.BT)
    sa, sb, sc = SIZEOF[a], SIZEOF[b], SIZEOF[c]
    scm, scn, sck = f["single_core_m"], f["single_core_n"], f["single_core_k"]
    bm, bn, bk = f["base_m"], f["base_n"], f["base_k"]
    assert (f["m"], f["n"], f["k_a"], f["k_b"]) == (m, n, k, k)
    # The grid: kernels locate their block from these.
    assert 0 < f["used_core_num"] <= dim
    assert ceil_div(m, scm) * ceil_div(n, scn) * ceil_div(k, sck) == f["used_core_num"]
    assert 0 < scm <= m and 0 < scn <= n and 0 < sck <= k
    if not split_k:
        assert sck == k
    # Base alignment and bounds.
    c0_b = 32 // sb
    k0 = 32 if sa == 1 or sb == 1 else 16
    assert bm % 16 == 0 and bn % c0_b == 0 and bk % k0 == 0
    assert bm <= round_up(scm, 16) and bn <= round_up(scn, c0_b) and bk <= round_up(sck, k0)
    # Budgets (the simple double-buffered schedule).
    assert (f["db_l0a"], f["db_l0b"], f["db_l0c"]) == (2, 2, 1)
    assert 2 * ceil16(bm) * bk * sa <= l0a
    assert 2 * ceil16(bn) * bk * sb <= l0b
    assert ceil16(bm) * ceil16(bn) * 4 <= l0c
    bias_bytes = ceil16(bn) * 4 if bias else 0
    assert bias_bytes <= bt
    # L1: stepKa (stepKb) base_k slices per copy, in one slot or two (depth = step or 2 x step),
    # no more slices than the block's K has.
    k_slices = ceil_div(sck, bk)
    for step, depth in ((f["step_k_a"], f["depth_a1"]), (f["step_k_b"], f["depth_b1"])):
        assert 1 <= step <= k_slices and depth in (step, 2 * step)
    assert (f["depth_a1"] * ceil16(bm) * bk * sa + f["depth_b1"] * ceil16(bn) * bk * sb
            + bias_bytes) <= l1
    if c_pos in (host.TPosition.VECIN, host.TPosition.VECOUT, host.TPosition.VECCALC):
        assert bm * bn * sc <= ub
    assert (f["step_m"], f["step_n"]) == (1, 1)
    assert f["is_bias"] == int(bias)
    assert (f["trans_length"], f["share_mode"], f["share_l1_size"], f["share_l0c_size"],
            f["share_ub_size"]) == (0, 0, 0, 0, 0)
    assert (t.get_base_m(), t.get_base_n(), t.get_base_k()) == (bm, bn, bk)
    return f


# ---- enums ------------------------------------------------------------------------------------

def test_enum_values_are_canns():
    assert {e.name: e.value for e in host.TPosition} == {
        "GM": 0, "A1": 1, "A2": 2, "B1": 3, "B2": 4, "C1": 5, "C2": 6, "CO1": 7, "CO2": 8,
        "VECIN": 9, "VECOUT": 10, "VECCALC": 11, "SPM": 12, "TSCM": 13, "MAX": 14}
    assert host.TPosition.LCM is host.TPosition.VECCALC
    assert host.TPosition.SHM is host.TPosition.SPM
    assert {e.name: e.value for e in host.CubeFormat} == {
        "ND": 0, "NZ": 1, "ZN": 2, "ZZ": 3, "NN": 4, "ND_ALIGN": 5, "SCALAR": 6, "VECTOR": 7,
        "COLUMN_MAJOR": 8}
    assert host.CubeFormat.ROW_MAJOR is host.CubeFormat.ND
    assert [(e.name, e.value) for e in host.MatrixTraverse] == [("NOSET", 0), ("FIRSTM", 1),
                                                                ("FIRSTN", 2)]
    assert [(e.name, e.value) for e in host.MatrixMadType] == [("NORMAL", 0), ("HF32", 1),
                                                               ("MXMODE", 2)]
    assert [(e.name, e.value) for e in host.DequantType] == [("SCALAR", 0), ("TENSOR", 1)]
    assert [(e.name, e.value) for e in host.ScheduleType] == [("INNER_PRODUCT", 0),
                                                              ("OUTER_PRODUCT", 1)]


def test_data_type_values_are_ges():
    expected = {"DT_FLOAT": 0, "DT_FLOAT16": 1, "DT_INT8": 2, "DT_INT32": 3, "DT_UINT8": 4,
                "DT_INT16": 6, "DT_UINT16": 7, "DT_UINT32": 8, "DT_INT64": 9, "DT_UINT64": 10,
                "DT_DOUBLE": 11, "DT_BOOL": 12, "DT_STRING": 13, "DT_COMPLEX64": 16,
                "DT_COMPLEX128": 17, "DT_QINT8": 18, "DT_QINT16": 19, "DT_QINT32": 20,
                "DT_QUINT8": 21, "DT_QUINT16": 22, "DT_STRING_REF": 24, "DT_DUAL": 25,
                "DT_VARIANT": 26, "DT_BF16": 27, "DT_UNDEFINED": 28, "DT_INT4": 29,
                "DT_UINT1": 30, "DT_INT2": 31, "DT_BFLOAT16": 33, "DT_MAX": 40}
    assert {e.name: e.value for e in host.DataType} == expected


def test_enum_members_behave_like_pybind_enums():
    member = host.DataType.DT_FLOAT16
    assert (member.name, member.value, int(member)) == ("DT_FLOAT16", 1, 1)
    assert member == 1 and host.DataType["DT_FLOAT16"] is member
    assert host.TPosition.LCM.name == "VECCALC"  # an alias answers with the first name


# ---- platform ---------------------------------------------------------------------------------

def test_platform_core_counts_come_from_the_runtime(asc_platform):
    aic = rt.device_info(DeviceModuleType.RT_MODULE_TYPE_AICORE, DeviceInfoType.INFO_TYPE_CORE_NUM)
    aiv = rt.device_info(DeviceModuleType.RT_MODULE_TYPE_VECTOR_CORE,
                         DeviceInfoType.INFO_TYPE_CORE_NUM)
    assert asc_platform.get_core_num_aic() == aic == 25
    assert asc_platform.get_core_num_aiv() == aiv == 50
    assert asc_platform.get_core_num() == aiv  # separated architecture: the AIV count
    assert asc_platform.get_soc_version() == "Ascend910B1"


def test_platform_buffer_sizes(asc_platform):
    expected = {host.CoreMemType.L1: 524288, host.CoreMemType.L0_A: 65536,
                host.CoreMemType.L0_B: 65536, host.CoreMemType.L0_C: 131072,
                host.CoreMemType.UB: 196608, host.CoreMemType.BT: 1024}
    for kind, size in expected.items():
        assert asc_platform.get_core_mem_size(kind) == size
        assert asc_platform.get_core_mem_size(kind.name) == size
        assert asc_platform.get_core_mem_size(int(kind)) == size
    with pytest.raises(ValueError):
        asc_platform.get_core_mem_size("L9")


def test_get_ascendc_platform_is_the_managers_instance(asc_platform):
    assert host.get_ascendc_platform() == asc_platform
    assert host.PlatformAscendCManager.get_instance() == asc_platform
    assert host.PlatformAscendCManager.get_instance(config.Platform.Ascend910B1) == asc_platform


def test_platform_follows_set_platform(asc_platform):
    try:
        config.set_platform(config.Backend.Model, config.Platform.Ascend910B4)
        platform = host.get_ascendc_platform()
        assert (platform.get_soc_version(), platform.get_core_num_aic(),
                platform.get_core_num_aiv()) == ("Ascend910B4", 20, 40)
    finally:
        config.set_platform(config.Backend.Model)
    assert host.get_ascendc_platform().get_core_num_aic() == 25


def test_get_instance_of_another_soc_leaves_the_current_one(asc_platform):
    other = host.PlatformAscendCManager.get_instance("Ascend910B4")
    assert (other.get_core_num_aic(), other.get_core_num_aiv()) == (20, 40)
    assert rt.current_platform() == "Ascend910B1"
    assert other != asc_platform
    with pytest.raises(ValueError, match="unknown SoC"):
        host.PlatformAscendCManager.get_instance("Ascend999")
    with pytest.raises(TypeError):
        host.PlatformAscendCManager()


# ---- MatmulConfigParams -----------------------------------------------------------------------

def test_matmul_config_params_defaults_and_attributes():
    params = host.MatmulConfigParams()
    assert (params.mm_config_type, params.enable_l1_cache_ub, params.schedule_type,
            params.traverse, params.en_vec_nd2nz) == (1, False, host.ScheduleType.INNER_PRODUCT,
                                                      host.MatrixTraverse.NOSET, False)
    params = host.MatmulConfigParams(0, True, host.ScheduleType.OUTER_PRODUCT,
                                     host.MatrixTraverse.FIRSTN, True)
    assert (params.mm_config_type, params.enable_l1_cache_ub, params.schedule_type,
            params.traverse, params.en_vec_nd2nz) == (0, True, host.ScheduleType.OUTER_PRODUCT,
                                                      host.MatrixTraverse.FIRSTN, True)
    params.traverse = host.MatrixTraverse.FIRSTM
    params.mm_config_type = 1
    assert params.traverse is host.MatrixTraverse.FIRSTM and params.mm_config_type == 1
    params = host.MatmulConfigParams(mm_config_type=0, en_vec_nd2nz=True)
    assert params.mm_config_type == 0 and params.en_vec_nd2nz is True
    with pytest.raises(TypeError):
        params.mm_config_type = "one"
    with pytest.raises(AttributeError):
        params.no_such_field = 1


# ---- the common methods (pyasc's unit tests, on all three classes) -----------------------------

@pytest.mark.parametrize("cls", CLASSES)
def test_init(asc_platform, cls):
    matmul_tiling = cls(asc_platform)
    matmul_tiling.set_shape(32, 32, 32)
    assert matmul_tiling.get_tiling(asc.adv.TCubeTiling()) == 0


@pytest.mark.parametrize("cls", CLASSES)
def test_set_types(asc_platform, cls):
    matmul_tiling = cls(asc_platform)
    matmul_tiling.set_shape(32, 32, 32)
    assert matmul_tiling.set_a_type(GM, ND, F32, False) == 0
    assert matmul_tiling.set_b_type(GM, NZ, F16, True) == 0
    assert matmul_tiling.set_c_type(GM, ND, F16) == 0
    assert matmul_tiling.set_c_type(host.TPosition.VECOUT, ND, F32) == 0
    assert matmul_tiling.set_bias_type(GM, ND, F32) == 0
    assert matmul_tiling.set_a_type(pos=GM, type=ND, data_type=I8, is_trans=False) == 0


@pytest.mark.parametrize("cls", CLASSES)
def test_set_types_reject_bad_values(asc_platform, cls):
    matmul_tiling = cls(asc_platform)
    assert matmul_tiling.set_a_type(GM, ND, host.DataType.DT_STRING, False) == -1
    assert matmul_tiling.set_b_type(host.TPosition.MAX, ND, F16, False) == -1
    assert matmul_tiling.set_b_type(99, ND, F16, False) == -1
    assert matmul_tiling.set_c_type(GM, 42, F32) == -1
    assert matmul_tiling.set_c_type(GM, ND, host.DataType.DT_UINT64) == -1
    assert matmul_tiling.set_bias_type(GM, ND, I8) == -1
    with pytest.raises(TypeError):
        matmul_tiling.set_a_type(GM, ND, "float16", False)
    with pytest.raises(TypeError):
        matmul_tiling.set_a_type(GM, ND, F16)  # is_trans is required, as in pyasc


@pytest.mark.parametrize("cls", CLASSES)
def test_set_shape(asc_platform, cls):
    matmul_tiling = cls(asc_platform)
    ret = matmul_tiling.set_shape(32, 16, 8)
    tiling = asc.adv.TCubeTiling()
    assert matmul_tiling.get_tiling(tiling) == 0
    assert ret == 0
    assert (tiling.m, tiling.n, tiling.k_a, tiling.k_b) == (32, 16, 8, 8)
    assert matmul_tiling.set_shape(0, 16, 8) == -1
    assert matmul_tiling.set_shape(-1, 16, 8) == -1


@pytest.mark.parametrize("cls", CLASSES)
def test_set_org_shape(asc_platform, cls):
    matmul_tiling = cls(asc_platform)
    ret = matmul_tiling.set_org_shape(32, 16, 8)
    tiling = asc.adv.TCubeTiling()
    assert matmul_tiling.get_tiling(tiling) == 0
    assert ret == 0
    assert (tiling.m, tiling.n, tiling.k_a, tiling.k_b) == (32, 16, 8, 8)


@pytest.mark.parametrize("cls", CLASSES)
def test_set_org_shape_ka_kb(asc_platform, cls):
    matmul_tiling = cls(asc_platform)
    ret = matmul_tiling.set_org_shape(32, 16, 8, 4)
    tiling = asc.adv.TCubeTiling()
    matmul_tiling.get_tiling(tiling)
    assert ret == 0
    assert (tiling.m, tiling.n, tiling.k_a, tiling.k_b) == (32, 16, 8, 4)


@pytest.mark.parametrize("cls", CLASSES)
def test_org_shape_is_the_pitch_and_shape_the_problem(asc_platform, cls):
    matmul_tiling = cls(asc_platform)
    assert matmul_tiling.set_org_shape(org_m_in=256, org_n_in=512, org_ka_in=128,
                                       org_kb_in=96) == 0
    assert matmul_tiling.set_shape(64, 128, 96) == 0
    tiling = asc.adv.TCubeTiling()
    assert matmul_tiling.get_tiling(tiling) == 0
    assert (tiling.m, tiling.n, tiling.k_a, tiling.k_b) == (256, 512, 128, 96)
    assert tiling.single_core_k == 96 and tiling.single_core_m <= 64
    assert matmul_tiling.set_org_shape(org_m_in=8, org_n_in=8, org_k_in=8) == 0
    assert matmul_tiling.set_org_shape(8, 8, 0) == -1
    with pytest.raises(TypeError, match="incompatible function arguments"):
        matmul_tiling.set_org_shape(8, 8)
    with pytest.raises(TypeError):
        matmul_tiling.set_org_shape(8, 8, 8, 8, 8)


@pytest.mark.parametrize("cls", CLASSES)
def test_set_fix_split(asc_platform, cls):
    matmul_tiling = cls(asc_platform)
    matmul_tiling.set_shape(32, 16, 8)
    ret = matmul_tiling.set_fix_split(32, 16, 8)
    tiling = asc.adv.TCubeTiling()
    assert matmul_tiling.get_tiling(tiling) == 0
    assert ret == 0
    assert (tiling.base_m, tiling.base_n, tiling.base_k) == (32, 16, 8)
    assert matmul_tiling.set_fix_split(0, 16, 8) == -1


@pytest.mark.parametrize("cls", CLASSES)
def test_get_base_before_and_after_get_tiling(asc_platform, cls):
    matmul_tiling = cls(asc_platform)
    matmul_tiling.set_shape(32, 16, 8)
    assert (matmul_tiling.get_base_m(), matmul_tiling.get_base_n(),
            matmul_tiling.get_base_k()) == (0, 0, 0)
    matmul_tiling.set_fix_split(32, 16, 8)
    assert (matmul_tiling.get_base_m(), matmul_tiling.get_base_n(),
            matmul_tiling.get_base_k()) == (32, 16, 8)
    matmul_tiling.set_fix_split(-1, -1, -1)
    tiling = asc.adv.TCubeTiling()
    assert matmul_tiling.get_tiling(tiling) == 0
    assert (matmul_tiling.get_base_m(), matmul_tiling.get_base_n(),
            matmul_tiling.get_base_k()) == (tiling.base_m, tiling.base_n, tiling.base_k)
    assert tiling.base_m > 0 and tiling.base_n > 0 and tiling.base_k > 0


@pytest.mark.parametrize("cls", CLASSES)
def test_fixed_split_that_breaks_a_rule_fails(asc_platform, cls):
    for fix in [(24, 16, 16),      # base_m not a multiple of 16
                (32, 12, 16),      # base_n not a multiple of C0 (8 for f32 B)
                (32, 16, 12),      # base_k not a multiple of C0
                (64, 16, 16),      # base_m > round_up(single_m=32, 16)
                (32, 256, 16)]:    # base_n > round_up(single_n=16, 8)
        matmul_tiling = cls(asc_platform)
        matmul_tiling.set_shape(32, 16, 64)
        assert matmul_tiling.set_fix_split(*fix) == 0
        tiling = filled()
        assert matmul_tiling.get_tiling(tiling) == -1, fix
        assert set(fields(tiling).values()) == {-7}  # nothing written
    matmul_tiling = cls(asc_platform)  # over L0C: 256 x 256 x 4 bytes > 128 KiB
    matmul_tiling.set_shape(256, 256, 64)
    matmul_tiling.set_fix_split(256, 256, 16)
    assert matmul_tiling.get_tiling(asc.adv.TCubeTiling()) == -1


@pytest.mark.parametrize("cls", CLASSES)
def test_set_buffer_space(asc_platform, cls):
    matmul_tiling = cls(asc_platform)
    matmul_tiling.set_shape(32, 16, 8)
    assert matmul_tiling.set_buffer_space(-1, -1, -1) == 0
    assert matmul_tiling.set_buffer_space(l1_size=65536, l0_c_size=32768, ub_size=65536,
                                          bt_size=1024) == 0
    assert matmul_tiling.set_buffer_space(524288 * 2) == -1  # more than the SoC has
    assert matmul_tiling.set_buffer_space(0) == -1


def test_set_buffer_space_limits_the_search(asc_platform):
    matmul_tiling = make(host.MatmulApiTiling, asc_platform, 1024, 1024, 1024)
    assert matmul_tiling.set_buffer_space(l1_size=24576, l0_c_size=16384) == 0
    f = check_contract(matmul_tiling, asc_platform, 1024, 1024, 1024, l1=24576, l0c=16384)
    assert ceil16(f["base_m"]) * ceil16(f["base_n"]) * 4 <= 16384
    matmul_tiling = make(host.MatmulApiTiling, asc_platform, 1024, 1024, 1024)
    assert matmul_tiling.set_buffer_space(l1_size=8192) == 0
    f = check_contract(matmul_tiling, asc_platform, 1024, 1024, 1024, l1=8192)
    assert f["depth_a1"] == f["depth_b1"] == 1  # two of each no longer fit


@pytest.mark.parametrize("cls", CLASSES)
def test_set_traverse(asc_platform, cls):
    for traverse, order in [(host.MatrixTraverse.FIRSTM, 0), (host.MatrixTraverse.FIRSTN, 1),
                            (host.MatrixTraverse.NOSET, 0)]:
        matmul_tiling = cls(asc_platform)
        matmul_tiling.set_shape(32, 16, 8)
        assert matmul_tiling.set_traverse(traverse) == 0
        tiling = filled()
        matmul_tiling.get_tiling(tiling)
        assert tiling.iterate_order == order
    assert matmul_tiling.set_traverse(7) == -1


@pytest.mark.parametrize("cls", CLASSES)
def test_enable_bias(asc_platform, cls):
    for flag in (True, False):
        matmul_tiling = cls(asc_platform)
        matmul_tiling.set_shape(32, 16, 8)
        assert matmul_tiling.enable_bias(flag) == 0
        tiling = filled()
        assert matmul_tiling.get_tiling(tiling) == 0
        assert tiling.is_bias == int(flag)
    assert matmul_tiling.enable_bias() == 0 and matmul_tiling.set_bias(True) == 0


@pytest.mark.parametrize("cls", CLASSES)
def test_layouts_and_batch_num(asc_platform, cls):
    matmul_tiling = cls(asc_platform)
    matmul_tiling.set_shape(32, 16, 8)
    assert matmul_tiling.set_a_layout(2, 32, 1, 3, 64) == 0
    assert matmul_tiling.set_b_layout(b=4, s=33, n=5, g=6, d=65) == 0
    assert matmul_tiling.set_c_layout(7, 34, 8, 9, 66) == 0
    assert matmul_tiling.set_batch_num(3) == 0
    tiling = asc.adv.TCubeTiling()
    assert matmul_tiling.get_tiling(tiling) == 0
    f = fields(tiling)
    assert [f[f"a_layout_info_{x}"] for x in "bsngd"] == [2, 32, 1, 3, 64]
    assert [f[f"b_layout_info_{x}"] for x in "bsngd"] == [4, 33, 5, 6, 65]
    assert [f[f"c_layout_info_{x}"] for x in ("b", "s1", "n", "g", "s2")] == [7, 34, 8, 9, 66]
    assert f["batch_num"] == 3
    assert f["batch_m"] == f["batch_n"] == f["single_batch_m"] == f["single_batch_n"] == 1
    assert matmul_tiling.set_batch_num(0) == -1
    assert matmul_tiling.set_a_layout(-2, 32, 1, 3, 64) == -1


@pytest.mark.parametrize("cls", CLASSES)
def test_set_batch_info_for_normal(asc_platform, cls):
    matmul_tiling = cls(asc_platform)
    matmul_tiling.set_shape(32, 256, 64)
    assert matmul_tiling.set_batch_info_for_normal(3, 1, 32, 256, 64) == 0
    tiling = asc.adv.TCubeTiling()
    assert matmul_tiling.get_tiling(tiling) == 0
    f = fields(tiling)
    assert [f[f"a_layout_info_{x}"] for x in "bsngd"] == [3, 32, 1, 1, 64]
    assert [f[f"b_layout_info_{x}"] for x in "bsngd"] == [1, 64, 1, 1, 256]
    assert [f[f"c_layout_info_{x}"] for x in ("b", "s1", "n", "g", "s2")] == [3, 32, 1, 1, 256]
    assert f["batch_num"] == 3
    # One block covers each whole matrix of a batch.
    assert (f["used_core_num"], f["single_core_m"], f["single_core_n"]) == (1, 32, 256)
    assert matmul_tiling.set_batch_info_for_normal(3, 2, 32, 256, 64) == -1  # 3 % 2
    assert matmul_tiling.set_batch_info_for_normal(0, 1, 32, 256, 64) == -1


@pytest.mark.parametrize("cls", CLASSES)
def test_tuning_knobs(asc_platform, cls):
    matmul_tiling = cls(asc_platform)
    matmul_tiling.set_shape(32, 16, 8)
    assert matmul_tiling.set_dequant_type(host.DequantType.SCALAR) == 0
    assert matmul_tiling.set_dequant_type(host.DequantType.TENSOR) == 0
    assert matmul_tiling.set_dequant_type(5) == -1
    assert matmul_tiling.set_double_buffer(True, True, True, True, True) == 0
    assert matmul_tiling.set_double_buffer(a=False, b=False, c=False, bias=False,
                                           trans_nd2nz=False, trans_nz2nd=False) == 0
    assert matmul_tiling.set_mad_type(host.MatrixMadType.NORMAL) == 0
    assert matmul_tiling.set_mad_type(host.MatrixMadType.HF32) == 0
    assert matmul_tiling.set_mad_type(host.MatrixMadType.MXMODE) == -1
    assert matmul_tiling.set_sparse(True) == 0
    assert matmul_tiling.set_sparse(is_sparce_in=False) == 0
    assert matmul_tiling.get_tiling(asc.adv.TCubeTiling()) == 0


@pytest.mark.parametrize("cls", CLASSES)
def test_set_split_range(asc_platform, cls):
    matmul_tiling = cls(asc_platform)
    matmul_tiling.set_shape(32, 16, 8)
    assert matmul_tiling.set_split_range(32, 32, 32, 16, 16, 16) == 0
    assert matmul_tiling.set_split_range(16, 32, 32, 32, 16, 16) == -1  # min above max
    matmul_tiling = make(cls, asc_platform, 512, 512, 512, dim=1)
    assert matmul_tiling.set_split_range(max_base_m=64, max_base_n=48, max_base_k=32) == 0
    f = check_contract(matmul_tiling, asc_platform, 512, 512, 512)
    assert (f["base_m"], f["base_n"], f["base_k"]) == (64, 32, 32)


@pytest.mark.parametrize("cls", CLASSES)
def test_set_matmul_config_params(asc_platform, cls):
    matmul_tiling = cls(asc_platform)
    matmul_tiling.set_shape(32, 256, 64)
    params = host.MatmulConfigParams(1, False, host.ScheduleType.OUTER_PRODUCT,
                                     host.MatrixTraverse.FIRSTM, False)
    assert matmul_tiling.set_matmul_config_params(params) is None
    assert matmul_tiling.set_matmul_config_params(config_params=params) is None
    assert matmul_tiling.set_matmul_config_params(1, False, host.ScheduleType.OUTER_PRODUCT,
                                                  host.MatrixTraverse.FIRSTN) is None
    tiling = asc.adv.TCubeTiling()
    assert matmul_tiling.get_tiling(tiling) == 0
    assert tiling.iterate_order == 1  # the config's traverse
    assert matmul_tiling.set_matmul_config_params(0) is None
    assert matmul_tiling.set_matmul_config_params(mm_config_type=0, en_vec_nd2nz=True) is None
    with pytest.raises(TypeError):
        matmul_tiling.set_matmul_config_params(params, 1)


@pytest.mark.parametrize("cls", CLASSES)
def test_get_tiling_fills_the_struct_in_place(asc_platform, cls):
    matmul_tiling = make(cls, asc_platform, 64, 64, 64)
    tiling = filled()
    address = tiling.addressof()
    assert matmul_tiling.get_tiling(tiling=tiling) == 0
    assert tiling.addressof() == address
    assert -7 not in fields(tiling).values()  # every field written
    assert tiling.used_core_num > 0

    class Raw:  # any object with addressof() of a TCubeTiling-layout buffer
        def __init__(self):
            self.buf = (ctypes.c_int32 * 49)()

        def addressof(self):
            return ctypes.addressof(self.buf)

    raw = Raw()
    assert matmul_tiling.get_tiling(raw) == 0
    assert list(raw.buf) == [fields(tiling)[f] for f in FIELDS]
    with pytest.raises(TypeError):
        matmul_tiling.get_tiling(object())


@pytest.mark.parametrize("cls", CLASSES)
def test_get_tiling_without_a_shape_fails_and_writes_nothing(asc_platform, cls):
    matmul_tiling = cls(asc_platform)
    tiling = filled()
    assert matmul_tiling.get_tiling(tiling) == -1
    assert set(fields(tiling).values()) == {-7}


@pytest.mark.parametrize("cls", CLASSES)
def test_default_types_are_f32(asc_platform, cls):
    """Unset A/B/C/bias are GM, ND, DT_FLOAT (CANN's MatTilingType defaults)."""
    matmul_tiling = cls(asc_platform)
    matmul_tiling.set_shape(256, 256, 256)
    check_contract(matmul_tiling, asc_platform, 256, 256, 256, a=F32, b=F32, c=F32,
                   dim=asc_platform.get_core_num_aic())


def test_constructor_needs_a_platform():
    with pytest.raises(TypeError):
        host.MatmulApiTiling("Ascend910B1")


# ---- MatmulApiTiling --------------------------------------------------------------------------

def test_matmul_api_tiling_is_one_block(asc_platform):
    matmul_tiling = make(host.MatmulApiTiling, asc_platform, 1000, 700, 300)
    f = check_contract(matmul_tiling, asc_platform, 1000, 700, 300)
    assert (f["used_core_num"], f["single_core_m"], f["single_core_n"],
            f["single_core_k"]) == (1, 1000, 700, 300)


def test_large_base_blocks_are_chosen(asc_platform, monkeypatch):
    """f16 in, f32 out: 256 x 128 x 64 fills L0C and L0A exactly (the rules alone: stage 4's
    probe is off)."""
    monkeypatch.setenv("AICORE_SIM_TILING_PROBE", "0")
    matmul_tiling = make(host.MatmulApiTiling, asc_platform, 256, 256, 256)
    f = check_contract(matmul_tiling, asc_platform, 256, 256, 256)
    assert (f["base_m"], f["base_n"], f["base_k"]) == (256, 128, 64)
    # K (4 slices) whole in L1: A, the same for both blocks, in one slot; B double-buffered.
    assert (f["step_k_a"], f["step_k_b"], f["depth_a1"], f["depth_b1"]) == (4, 4, 4, 8)
    matmul_tiling = make(host.MatmulApiTiling, asc_platform, 128, 128, 128)
    f = check_contract(matmul_tiling, asc_platform, 128, 128, 128)
    assert (f["base_m"], f["base_n"], f["base_k"]) == (128, 128, 128)


# ---- MultiCoreMatmulTiling --------------------------------------------------------------------

def test_set_dim(asc_platform):
    matmul_tiling = host.MultiCoreMatmulTiling(asc_platform)
    matmul_tiling.set_shape(32, 16, 8)
    ret = matmul_tiling.set_dim(1)
    tiling = asc.adv.TCubeTiling()
    matmul_tiling.get_tiling(tiling)
    assert ret == 0
    assert tiling.used_core_num == 1
    assert matmul_tiling.set_dim(0) == -1


def test_get_core_num(asc_platform):
    matmul_tiling = host.MultiCoreMatmulTiling(asc_platform)
    matmul_tiling.set_shape(32, 32, 32)
    matmul_tiling.set_dim(1)
    assert matmul_tiling.get_core_num() is None
    assert matmul_tiling.get_single_shape() is None
    assert matmul_tiling.get_tiling(asc.adv.TCubeTiling()) == 0
    assert matmul_tiling.get_core_num() == (1, 1, 1)
    assert matmul_tiling.get_single_shape() == (32, 32, 32)


def test_get_core_num_is_the_grid(asc_platform):
    matmul_tiling = make(host.MultiCoreMatmulTiling, asc_platform, 1024, 1024, 256, dim=8)
    tiling = asc.adv.TCubeTiling()
    assert matmul_tiling.get_tiling(tiling) == 0
    dim, m_dim, n_dim = matmul_tiling.get_core_num()
    assert dim == m_dim * n_dim == tiling.used_core_num == 8
    assert m_dim == ceil_div(1024, tiling.single_core_m)
    assert n_dim == ceil_div(1024, tiling.single_core_n)
    assert matmul_tiling.get_single_shape() == (tiling.single_core_m, tiling.single_core_n, 256)


def test_set_single_shape(asc_platform):
    matmul_tiling = host.MultiCoreMatmulTiling(asc_platform)
    matmul_tiling.set_shape(32, 32, 32)
    ret = matmul_tiling.set_single_shape(32, 16, 8)
    tiling = asc.adv.TCubeTiling()
    assert matmul_tiling.get_tiling(tiling) == 0
    assert ret == 0
    assert (tiling.single_core_m, tiling.single_core_n, tiling.single_core_k) == (32, 16, 8)
    assert matmul_tiling.get_single_shape() == (32, 16, 8)
    # A forced single_k < K splits K: 1 x 2 blocks x 4 K parts.
    assert tiling.used_core_num == 8
    assert matmul_tiling.set_single_shape(0, 16, 8) == -1


def test_single_shape_needing_more_blocks_than_dim_fails(asc_platform):
    matmul_tiling = host.MultiCoreMatmulTiling(asc_platform)
    matmul_tiling.set_shape(64, 64, 64)
    matmul_tiling.set_dim(2)
    matmul_tiling.set_single_shape(16, 16, -1)
    assert matmul_tiling.get_tiling(asc.adv.TCubeTiling()) == -1
    assert matmul_tiling.get_core_num() is None


def test_set_single_range(asc_platform):
    matmul_tiling = host.MultiCoreMatmulTiling(asc_platform)
    matmul_tiling.set_shape(32, 32, 32)
    assert matmul_tiling.set_single_range(32, 32, 32, 16, 16, 16) == 0
    assert matmul_tiling.set_single_range(max_m=16, min_m=32) == -1
    matmul_tiling = make(host.MultiCoreMatmulTiling, asc_platform, 1024, 1024, 128, dim=4)
    assert matmul_tiling.set_single_range(max_m=256, max_n=1024) == 0
    f = check_contract(matmul_tiling, asc_platform, 1024, 1024, 128, dim=4)
    assert f["single_core_m"] == 256 and f["single_core_n"] == 1024


def test_set_align_split(asc_platform):
    matmul_tiling = host.MultiCoreMatmulTiling(asc_platform)
    matmul_tiling.set_shape(32, 32, 32)
    assert matmul_tiling.set_align_split(32, 32, 32) == 0
    assert matmul_tiling.set_align_split(-2, 32, 32) == -1
    matmul_tiling = make(host.MultiCoreMatmulTiling, asc_platform, 1000, 1000, 128, dim=24)
    assert matmul_tiling.set_align_split(-1, 96, 0) == 0
    f = check_contract(matmul_tiling, asc_platform, 1000, 1000, 128, dim=24)
    assert f["single_core_n"] % 96 == 0


def test_enable_multi_core_split_k(asc_platform):
    matmul_tiling = host.MultiCoreMatmulTiling(asc_platform)
    matmul_tiling.set_shape(32, 32, 32)
    assert matmul_tiling.enable_multi_core_split_k(True) is None
    # Small M, N and a long K: without split-K at most (64/16)^2 blocks, with it more.
    for split in (False, True):
        matmul_tiling = make(host.MultiCoreMatmulTiling, asc_platform, 64, 64, 4096, dim=24)
        matmul_tiling.enable_multi_core_split_k(split)
        f = check_contract(matmul_tiling, asc_platform, 64, 64, 4096, dim=24, split_k=split)
        k_dim = ceil_div(4096, f["single_core_k"])
        if split:
            assert k_dim > 1 and f["used_core_num"] > 16
        else:
            assert k_dim == 1 and f["used_core_num"] <= 16


def test_default_dim_is_the_aic_count(asc_platform):
    matmul_tiling = make(host.MultiCoreMatmulTiling, asc_platform, 4096, 4096, 64)
    tiling = asc.adv.TCubeTiling()
    assert matmul_tiling.get_tiling(tiling) == 0
    assert tiling.used_core_num == asc_platform.get_core_num_aic()


def test_grid_without_partial_blocks_wins_at_equal_block_count(asc_platform):
    """48 x 4096 on 3 blocks: 1 x 3 moves less data but its last block is partial (4096 is no
    multiple of 1376); 3 x 1 blocks of 16 x 4096 have none."""
    matmul_tiling = make(host.MultiCoreMatmulTiling, asc_platform, 48, 4096, 64, dim=3)
    f = check_contract(matmul_tiling, asc_platform, 48, 4096, 64, dim=3)
    assert (f["used_core_num"], f["single_core_m"], f["single_core_n"]) == (3, 16, 4096)


def test_base_block_without_partial_blocks_wins(asc_platform):
    """A 384 x 384 block: 256 x 128 and 192 x 128 bases both need 6 mmads, but only 192 x 128
    divides the block, so round_m = single // base is exact."""
    matmul_tiling = make(host.MatmulApiTiling, asc_platform, 384, 384, 64)
    f = check_contract(matmul_tiling, asc_platform, 384, 384, 64)
    assert 384 % f["base_m"] == 0 and 384 % f["base_n"] == 0
    assert (f["base_m"], f["base_n"], f["base_k"]) == (192, 128, 64)


def test_dividing_bases_are_not_taken_at_any_price(asc_platform, monkeypatch):
    """1648 = 16 x 103: only 16 divides it; 16 x 16 bases would need ~40x the mmads of
    256 x 128 ones, beyond the factor of 2 a partial-free base may cost (the rules alone)."""
    monkeypatch.setenv("AICORE_SIM_TILING_PROBE", "0")
    matmul_tiling = make(host.MatmulApiTiling, asc_platform, 1648, 1648, 64)
    f = check_contract(matmul_tiling, asc_platform, 1648, 1648, 64)
    assert (f["base_m"], f["base_n"], f["base_k"]) == (256, 128, 64)


def test_per_block_sizes_favour_large_base_blocks(asc_platform):
    """8192 x 8192 on 25 blocks: 5 x 5 blocks of 1792 (7 x 256) rather than 1648 (16 x 103),
    so 256 x 128 bases divide them."""
    matmul_tiling = make(host.MultiCoreMatmulTiling, asc_platform, 8192, 8192, 512, dim=25)
    f = check_contract(matmul_tiling, asc_platform, 8192, 8192, 512, dim=25)
    assert (f["single_core_m"], f["single_core_n"]) == (1792, 1792)
    assert f["single_core_m"] % f["base_m"] == 0 and f["single_core_n"] % f["base_n"] == 0


def test_search_is_deterministic(asc_platform):
    results = set()
    for _ in range(3):
        tiling = asc.adv.TCubeTiling()
        assert make(host.MultiCoreMatmulTiling, asc_platform, 777, 555, 333,
                    dim=20).get_tiling(tiling) == 0
        results.add(tiling.pack())
    assert len(results) == 1


# ---- BatchMatmulTiling ------------------------------------------------------------------------

def test_batch_get_core_num(asc_platform):
    matmul_tiling = host.BatchMatmulTiling(asc_platform)
    matmul_tiling.set_shape(32, 32, 32)
    assert matmul_tiling.get_core_num() is None
    tiling = asc.adv.TCubeTiling()
    ret = matmul_tiling.get_tiling(tiling)
    assert ret == 0
    assert matmul_tiling.get_core_num() == (1, 1, 1, 1, 1)
    assert (tiling.batch_m, tiling.batch_n, tiling.single_batch_m,
            tiling.single_batch_n) == (1, 1, 1, 1)


def test_batch_iterate_batch_setup(asc_platform):
    """pyasc's iterate_batch test: MultiCoreMatmulTiling with NORMAL layouts of 2 batches."""
    for dtype, (m, k, n) in [(F32, (64, 64, 64)), (F16, (32, 32, 32))]:
        matmul_tiling = host.MultiCoreMatmulTiling(asc_platform)
        matmul_tiling.set_a_type(GM, ND, dtype, False)
        matmul_tiling.set_b_type(GM, ND, dtype, False)
        matmul_tiling.set_c_type(UB, ND, F32)
        matmul_tiling.set_bias_type(GM, ND, F32)
        matmul_tiling.set_dim(16)
        matmul_tiling.set_org_shape(m, n, k)
        matmul_tiling.set_shape(m, n, k)
        matmul_tiling.set_traverse(host.MatrixTraverse.FIRSTM)
        matmul_tiling.set_buffer_space(-1, -1, -1)
        matmul_tiling.set_a_layout(2, m, 1, 1, k)
        matmul_tiling.set_b_layout(2, k, 1, 1, n)
        matmul_tiling.set_c_layout(2, m, 1, 1, n)
        matmul_tiling.set_batch_num(2)
        f = check_contract(matmul_tiling, asc_platform, m, n, k, a=dtype, b=dtype, c_pos=UB,
                           dim=16)
        assert (f["used_core_num"], f["single_core_m"], f["single_core_n"]) == (1, m, n)
        assert f["batch_num"] == 2


# ---- pyasc's tutorials and examples ------------------------------------------------------------

def test_tutorial_cube_only(asc_platform):
    """04_matmul_cube_only: f16 128 x 64 x 30720 on 24 blocks."""
    m, k, n = 128, 64, 30720
    matmul_tiling = make(host.MultiCoreMatmulTiling, host.get_ascendc_platform(), m, n, k,
                         dim=24)
    tiling = asc.adv.TCubeTiling()
    assert matmul_tiling.get_tiling(tiling) == 0
    assert tiling.used_core_num > 0
    f = check_contract(matmul_tiling, asc_platform, m, n, k, dim=24)
    assert f["used_core_num"] == 24  # 24 blocks of 128 x 1280, no partial block
    assert (f["single_core_m"], f["single_core_n"]) == (128, 1280)


def test_tutorial_mix(asc_platform):
    """03_matmul_mix: f16 512 x 512 x 1024 on 48 AIVs (the kernel uses set_tail)."""
    matmul_tiling = make(host.MultiCoreMatmulTiling, asc_platform, 512, 1024, 512, dim=48)
    f = check_contract(matmul_tiling, asc_platform, 512, 1024, 512, dim=48)
    assert f["used_core_num"] == 48


def test_tutorial_matmul_leakyrelu(asc_platform):
    """05_matmul_leakyrelu: f32 C in UB, bias, 2 blocks, FIRSTM, base 256 x 128 forced; the
    kernel walks base blocks with round_m = single_core_m // base_m and has no tails."""
    m, k, n = 1024, 256, 640
    matmul_tiling = make(host.MultiCoreMatmulTiling, host.get_ascendc_platform(), m, n, k,
                         c_pos=UB, bias=True, dim=2)
    assert matmul_tiling.set_traverse(host.MatrixTraverse.FIRSTM) == 0
    assert matmul_tiling.set_fix_split(256, 128, -1) == 0
    assert matmul_tiling.set_buffer_space(-1, -1, -1) == 0
    tiling = asc.adv.TCubeTiling()
    assert matmul_tiling.get_tiling(tiling) == 0
    assert tiling.used_core_num > 0
    f = check_contract(matmul_tiling, asc_platform, m, n, k, c_pos=UB, bias=True, dim=2)
    assert (f["base_m"], f["base_n"], f["base_k"]) == (256, 128, 64)
    assert f["used_core_num"] == 2 and f["iterate_order"] == 0
    assert m % f["single_core_m"] == 0 and n % f["single_core_n"] == 0
    assert f["single_core_m"] % f["base_m"] == 0 and f["single_core_n"] % f["base_n"] == 0


def test_generalization_matmul_f32_in_ub(asc_platform):
    """pyasc's generalization Matmul test: f32 1024 x 256 x 512, 16 blocks, C in UB, bias; the
    kernel double-buffers base blocks of C in its own VECOUT queue."""
    m, k, n = 1024, 256, 512
    matmul_tiling = make(host.MultiCoreMatmulTiling, asc_platform, m, n, k, a=F32, b=F32,
                         c_pos=UB, bias=True, dim=16)
    matmul_tiling.set_traverse(host.MatrixTraverse.FIRSTM)
    f = check_contract(matmul_tiling, asc_platform, m, n, k, a=F32, b=F32, c_pos=UB, bias=True,
                       dim=16)
    assert f["used_core_num"] == 16
    assert m % f["single_core_m"] == 0 and n % f["single_core_n"] == 0
    assert f["single_core_m"] % f["base_m"] == 0 and f["single_core_n"] % f["base_n"] == 0
    assert 2 * f["base_m"] * f["base_n"] * 4 <= 196608 // 2


def test_linear_example_nz_b_f16_c_with_retry(asc_platform):
    """09_linear: transposed NZ B, f16 C, a fixed split with 128 for base_k, retried without
    it when it fails."""
    def tiling_for(m, n, k, fix):
        matmul_tiling = make(host.MultiCoreMatmulTiling, asc_platform, m, n, k, c=F16,
                             b_format=NZ, trans_b=True, dim=asc_platform.get_core_num_aic())
        if fix:
            assert matmul_tiling.set_fix_split(*fix) == 0
        tiling = asc.adv.TCubeTiling()
        return matmul_tiling, tiling, matmul_tiling.get_tiling(tiling)

    matmul_tiling, tiling, ret = tiling_for(128, 256, 256, (128, 128, 128))
    assert ret == 0 and int(tiling.used_core_num) > 0
    assert (tiling.base_m, tiling.base_n, tiling.base_k) == (128, 128, 128)
    check_contract(matmul_tiling, asc_platform, 128, 256, 256, c=F16, dim=25)
    _, _, ret = tiling_for(128, 256, 64, (128, 128, 128))  # base_k 128 > K = 64
    assert ret == -1
    matmul_tiling, tiling, ret = tiling_for(128, 256, 64, None)
    assert ret == 0 and int(tiling.used_core_num) > 0
    check_contract(matmul_tiling, asc_platform, 128, 256, 64, c=F16, dim=25)


def test_attention_example_dim_one(asc_platform):
    """10_fused_infer_attention: one tiling per core-local product, set_dim(1), f16 C."""
    matmul_tiling = make(host.MultiCoreMatmulTiling, asc_platform, 64, 512, 64, c=F16, dim=1)
    assert matmul_tiling.set_fix_split(64, 128, -1) == 0
    f = check_contract(matmul_tiling, asc_platform, 64, 512, 64, c=F16, dim=1)
    assert matmul_tiling.get_core_num() == (1, 1, 1)
    assert (f["single_core_m"], f["single_core_n"], f["base_m"], f["base_n"]) == (64, 512, 64,
                                                                                  128)


# ---- legality sweep ---------------------------------------------------------------------------

SHAPES = [(1, 1, 1), (16, 16, 16), (77, 45, 33), (128, 64, 30720), (1024, 640, 256),
          (4096, 16, 8192), (13, 3000, 77), (513, 257, 129)]
DTYPES = [(F16, F16, F32), (F32, F32, F32), (BF16, BF16, F32), (I8, I8, I32), (F16, F16, F16)]


@pytest.mark.parametrize("m, n, k", SHAPES)
@pytest.mark.parametrize("a, b, c", DTYPES)
def test_every_budget_holds_across_shapes_and_dtypes(asc_platform, m, n, k, a, b, c):
    for (cls, dim), c_pos, bias, split_k in itertools.product(
            [(host.MatmulApiTiling, 1), (host.MultiCoreMatmulTiling, 1),
             (host.MultiCoreMatmulTiling, 7), (host.MultiCoreMatmulTiling, 48),
             (host.BatchMatmulTiling, 1)],
            (GM, UB), (False, True), (False, True)):
        if split_k and cls is not host.MultiCoreMatmulTiling:
            continue
        matmul_tiling = make(cls, asc_platform, m, n, k, a=a, b=b, c=c, c_pos=c_pos, bias=bias,
                             dim=dim)
        if split_k:
            matmul_tiling.enable_multi_core_split_k(True)
        check_contract(matmul_tiling, asc_platform, m, n, k, a=a, b=b, c=c, c_pos=c_pos,
                       bias=bias, dim=dim, split_k=split_k)


# ---- stage 4: the probe -----------------------------------------------------------------------

def row17_block(platform, bias=False):
    """7.1 row 17's block (128 x 1024 x 512, f16 in, f32 out) as one-block tiling."""
    return make(host.MatmulApiTiling, platform, 128, 1024, 512, bias=bias)


def block_cycles(f, mode=asc.MatmulConfigMode.CONFIG_MDL):
    """A full launch of the probe's own kernel on tiling fields `f`: (cycles, max error)."""
    from asc.lib.host.probe import _block_matmul
    rng = np.random.default_rng(17)
    m, n, k = f["m"], f["n"], f["k_a"]
    a = rng.uniform(-1, 1, (m, k)).astype(np.float16)
    b = rng.uniform(-1, 1, (k, n)).astype(np.float16)
    c = np.zeros((m, n), np.float32)
    report = _block_matmul[1, rt.current_stream()](a, b, c, asc.adv.TCubeTiling(**f), asc.float16,
                                                   asc.float16, asc.float32, False, False, mode)
    want = a.astype(np.float32) @ b.astype(np.float32)
    return report.cycles, float(np.abs(c - want).max())


def test_the_probe_picks_the_block_the_model_runs_fastest(asc_platform, monkeypatch):
    """Row 17's block: the rules give 128 x 256 bases whose B chunks hold half of K; stage 4
    simulates the best candidates and takes 128 x 128 x 128 with K whole in L1 (what MDL's
    residency and MTE2 preload need), which the model runs faster."""
    probed = fields_of(row17_block(asc_platform))
    monkeypatch.setenv("AICORE_SIM_TILING_PROBE", "0")
    rules = fields_of(row17_block(asc_platform))
    assert (rules["base_m"], rules["base_n"], rules["step_k_b"]) == (128, 256, 4)
    assert (probed["base_m"], probed["base_n"], probed["base_k"]) == (128, 128, 128)
    k_slices = 512 // probed["base_k"]
    assert probed["step_k_a"] == probed["step_k_b"] == k_slices
    probed_cycles, probed_err = block_cycles(probed)
    rules_cycles, rules_err = block_cycles(rules)
    assert probed_err < 0.05 and rules_err < 0.05
    assert probed_cycles < rules_cycles


def fields_of(matmul_tiling):
    tiling = asc.adv.TCubeTiling()
    assert matmul_tiling.get_tiling(tiling) == 0
    return fields(tiling)


def test_the_probe_stands_aside_where_its_kernel_cannot_stand_for_the_matmul(asc_platform,
                                                                             monkeypatch):
    """A bias, another SoC than the runtime's, a Matmul the simulator does not build yet (a
    transposed int8 A) or AICORE_SIM_TILING_PROBE=0: the rules alone."""
    def int8_trans_a():
        t = make(host.MatmulApiTiling, asc_platform, 128, 640, 512, a=I8, b=I8, c=I32)
        assert t.set_a_type(GM, ND, I8, True) == 0
        return fields_of(t)

    with_bias = fields_of(row17_block(asc_platform, bias=True))
    other_soc = fields_of(row17_block(host.PlatformAscendCManager.get_instance("Ascend910B3")))
    int8 = int8_trans_a()
    monkeypatch.setenv("AICORE_SIM_TILING_PROBE", "0")
    assert with_bias == fields_of(row17_block(asc_platform, bias=True))
    assert int8 == int8_trans_a()
    assert (other_soc["base_n"], other_soc["step_k_b"]) == (256, 4)


def test_the_probe_leaves_no_trace_nor_report(asc_platform, monkeypatch, tmp_path):
    """Its launches are the search's, not the user's: no AICORE_SIM_TRACE directory, and a
    patched Launcher.run (pyasc's unit tests trace kernels that way) is not called."""
    from asc.lib.host import probe
    from asc.runtime.launcher import Launcher
    monkeypatch.setenv("AICORE_SIM_TRACE", str(tmp_path))
    calls = []
    monkeypatch.setattr(Launcher, "run", lambda *args, **kwargs: calls.append(args))
    simulated = len(probe._cache)
    f = fields_of(make(host.MatmulApiTiling, asc_platform, 128, 768, 384))
    assert len(probe._cache) > simulated  # the probe ran
    assert f["base_m"] > 0 and calls == [] and list(tmp_path.iterdir()) == []
