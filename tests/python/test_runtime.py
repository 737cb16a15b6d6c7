"""`asc.lib.runtime` over the native runtime: memory, streams, launching on a created stream."""
import ctypes
import os

import numpy as np
import pytest

import asc
import asc.lib.runtime as rt
import asc.runtime.config as config
from kernels import vadd_kernel


def test_malloc_memcpy_roundtrip(device):
    data = np.arange(1000, dtype=np.int32)
    addr = rt.malloc(data.nbytes)
    try:
        rt.memcpy_h2d(addr, data)
        back = np.zeros_like(data)
        rt.memcpy_d2h(back, addr)
        assert np.array_equal(back, data)
        # pyasc-style memcpy with raw host pointers
        other = np.zeros_like(data)
        rt.memcpy(other.ctypes.data, other.nbytes, addr, data.nbytes,
                  rt.MemcpyKind.RT_MEMCPY_DEVICE_TO_HOST)
        assert np.array_equal(other, data)
        src = np.full(1000, 7, dtype=np.int32)
        rt.memcpy(addr, src.nbytes, ctypes.c_void_p(src.ctypes.data), src.nbytes,
                  rt.MemcpyKind.RT_MEMCPY_HOST_TO_DEVICE)
        rt.copy_data_from_device(back, addr, back.nbytes)
        assert np.array_equal(back, src)
    finally:
        rt.free(addr)


def test_launch_on_created_stream(device):
    stream = rt.create_stream()
    try:
        x = np.arange(2 * 512, dtype=np.float32)
        y = np.full_like(x, 2)
        z = np.zeros_like(x)
        report = vadd_kernel[2, stream](x, y, z, 512)
        rt.synchronize(stream)
        assert np.array_equal(z, x + y) and report.status == "OK"
    finally:
        rt.destroy_stream(stream)


def test_transport_is_embedded_by_default(device):
    assert rt.transport() == "embedded"
    assert rt.is_available() and rt.is_model()


def test_launches_reuse_the_compiled_kernel(device):
    before = vadd_kernel.compile_count
    for n in (2 * 512, 2 * 1024):
        x = np.ones(n, dtype=np.float16)
        z = np.zeros_like(x)
        vadd_kernel[2, rt.current_stream()](x, x, z, n // 2)
        assert np.array_equal(z, x + x)
    assert vadd_kernel.compile_count - before <= 1  # same kinds and dtypes: one specialization
    z = np.zeros(1024, dtype=np.float32)
    vadd_kernel[2, rt.current_stream()](z, z, z, 512)
    assert vadd_kernel.compile_count - before <= 2


def _platform_file_counts(platform):
    """(cube_cores, vector_cores) as the platform's config file states them."""
    from google.protobuf import text_format
    from asc._proto import soc_config_pb2
    from conftest import REPO
    path = os.path.join(REPO, "configs", f"{platform}.textproto")
    with open(path, encoding="utf-8") as f:
        desc = text_format.Parse(f.read(), soc_config_pb2.SocDescription())
    return desc.cube_cores, desc.vector_cores


@pytest.mark.parametrize("platform", ["Ascend910B1", "Ascend910B2", "Ascend910B4"])
def test_device_info_reports_the_selected_platforms_core_counts(device, platform):
    from asc.lib.runtime.support import DeviceInfoType, DeviceModuleType
    config.set_platform(config.Backend.Model, config.Platform(platform))
    aic = rt.device_info(DeviceModuleType.RT_MODULE_TYPE_AICORE,
                         DeviceInfoType.INFO_TYPE_CORE_NUM)
    aiv = rt.device_info(DeviceModuleType.RT_MODULE_TYPE_VECTOR_CORE,
                         DeviceInfoType.INFO_TYPE_CORE_NUM)
    assert (aic, aiv) == _platform_file_counts(platform)
    # asc-api.md 10.8: the counts the examples derive their launch geometry from
    assert (aic, aiv) == {"Ascend910B1": (25, 50), "Ascend910B2": (24, 48),
                          "Ascend910B4": (20, 40)}[platform]
    assert rt.device_info(4, 3) == aic  # plain ints work, as in pyasc


def test_device_info_enums_have_pyascs_values_and_paths():
    import asc.lib.runtime.support as support
    from asc.lib.runtime import device_info
    assert device_info is rt.device_info
    assert support.DeviceModuleType.RT_MODULE_TYPE_SYSTEM == 0
    assert support.DeviceModuleType.RT_MODULE_TYPE_AICORE == 4
    assert support.DeviceModuleType.RT_MODULE_TYPE_VECTOR_CORE == 7
    assert support.DeviceModuleType.RT_MODULE_TYPE_HOST_AICPU == 8
    assert [m.value for m in support.DeviceModuleType] == list(range(9))
    assert support.DeviceInfoType.INFO_TYPE_ENV == 0
    assert support.DeviceInfoType.INFO_TYPE_CORE_NUM == 3
    assert support.DeviceInfoType.INFO_TYPE_ENDIAN == 10
    assert support.DeviceInfoType.INFO_TYPE_CUBE_NUM == 0x775A5A5A
    assert rt.MemcpyKind is support.MemcpyKind and rt.Stream is support.Stream
    assert support.MemcpyKind.RT_MEMCPY_DEVICE_TO_HOST == 2


def test_device_info_of_other_figures_is_a_clear_not_supported_error(device):
    from asc.lib.runtime.support import DeviceInfoType, DeviceModuleType
    with pytest.raises(NotImplementedError, match="not supported by aicore-sim yet: "
                       "device_info\\(RT_MODULE_TYPE_SYSTEM, INFO_TYPE_ENV\\)"):
        rt.device_info(DeviceModuleType.RT_MODULE_TYPE_SYSTEM, DeviceInfoType.INFO_TYPE_ENV)


@asc.jit
def apply_op_kernel(x: asc.GlobalAddress, y: asc.GlobalAddress, op: asc.ConstExpr):
    gx, gy = asc.GlobalTensor(), asc.GlobalTensor()
    gx.set_global_buffer(x)
    gy.set_global_buffer(y)
    t = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 0, 64)
    asc.data_copy(t, gx, 64)
    asc.set_flag(asc.HardEvent.MTE2_V, 0)
    asc.wait_flag(asc.HardEvent.MTE2_V, 0)
    op(t)
    asc.set_flag(asc.HardEvent.V_MTE3, 0)
    asc.wait_flag(asc.HardEvent.V_MTE3, 0)
    asc.data_copy(gy, t, 64)


def test_functions_made_in_a_loop_are_separate_specializations(device):
    """A ConstExpr function is keyed by itself as well as its repr: closures made and dropped one
    after another (their addresses, and so reprs, may repeat) each get their own kernel."""
    x = np.arange(64, dtype=np.float32)
    for k in (2.0, 3.0, 5.0):
        def scale(t, k=k):
            asc.muls(t, t, k, 64)
        y = np.zeros_like(x)
        apply_op_kernel[1, rt.current_stream()](x, y, scale)
        np.testing.assert_array_equal(y, x * k)
        del scale


def _vadd_report(n=2 * 2048):
    x = np.arange(n, dtype=np.float16)
    z = np.zeros_like(x)
    report = vadd_kernel[2, rt.current_stream()](x, x, z, n // 2)
    assert np.array_equal(z, x + x)
    return report


def test_config_overrides_change_the_figures_of_the_next_launches(device):
    base = _vadd_report()
    rt.set_config_overrides("gm { latency_cycles: 4000 }  # a trial figure")
    assert rt.config_overrides().startswith("gm {")
    slow = _vadd_report()
    assert slow.cycles > base.cycles + 3000  # every GM read waits 3600 cycles longer
    assert slow.config_hash != base.config_hash
    assert slow.config["gm"]["latency_cycles"] == 4000
    rt.set_config_overrides("")
    again = _vadd_report()
    assert (again.cycles, again.config_hash) == (base.cycles, base.config_hash)


def test_bad_config_overrides_name_the_layer_and_the_field(device):
    rt.set_config_overrides("gm { latency: 3 }")
    with pytest.raises(RuntimeError, match=r"config overrides.*latency"):
        _vadd_report()
    rt.set_config_overrides("name: \"Ascend910B2\"")
    with pytest.raises(RuntimeError, match="not which platform or preset"):
        rt.get_runtime()
    with pytest.raises(TypeError, match="as text"):
        rt.set_config_overrides({"gm": {"latency_cycles": 1}})
