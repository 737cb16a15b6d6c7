"""The package surface: imports, dtypes, enums, config and runtime helpers (no kernel runs)."""
import pytest

import asc
import asc.lib.runtime as rt
import asc.runtime.config as config
from asc.codegen.errors import CodegenError, UnsupportedSyntaxError
from asc.runtime import config as config2
from asc.runtime.jit import MockTensor, MockValue
from asc._proto import kernel_pb2


def test_import_forms():
    assert config is config2
    for name in ("jit", "CodegenOptions", "CompileOptions", "LaunchOptions", "adv", "basic",
                 "core", "fwk", "GlobalAddress", "GlobalTensor", "LocalTensor", "ConstExpr",
                 "range", "static_range", "ceildiv", "get_block_idx", "get_block_num",
                 "data_copy", "DataCopyParams", "add", "sub", "mul", "div", "max", "min", "abs",
                 "exp", "ln", "sqrt", "relu", "adds", "muls", "set_flag", "wait_flag",
                 "pipe_barrier", "TPosition", "HardEvent", "PipeID", "DataType"):
        assert hasattr(asc, name), name
    assert issubclass(UnsupportedSyntaxError, CodegenError)


def test_dtypes():
    assert asc.half is asc.float16 and asc.float_ is asc.float32 and asc.int_ is asc.int32
    assert asc.double is asc.float64
    sizes = {asc.int8: 1, asc.uint8: 1, asc.int16: 2, asc.uint16: 2, asc.int32: 4, asc.uint32: 4,
             asc.int64: 8, asc.uint64: 8, asc.float16: 2, asc.float32: 4, asc.float64: 8}
    for dtype, size in sizes.items():
        assert dtype.sizeof() == size
        assert dtype.bitwidth == size * 8
    assert asc.float16.is_float() and not asc.float16.is_int()
    assert asc.uint32.is_unsigned() and asc.uint32.is_int() and not asc.uint32.is_signed()
    assert asc.int32.is_signed() and asc.int32.is_numeric()
    assert asc.DataType("int32") == asc.int32 and str(asc.int32) == "int32"
    assert asc.float16.name == "float16"
    assert asc.void.is_void()
    with pytest.raises(ValueError):
        asc.void.sizeof()
    assert asc.core.dtype.KnownTypes.bool_ == asc.int8


def test_enum_values():
    assert asc.TPosition.VECIN == 9 and asc.TPosition.VECOUT == 10 and asc.TPosition.GM == 0
    assert asc.TPosition.VECCALC == 11 and asc.TPosition.CO1 == 7 and asc.TPosition.MAX == 12
    assert asc.HardEvent.MTE2_V == 4 and asc.HardEvent.V_MTE3 == 7
    assert asc.HardEvent.MTE3_MTE2 == 19 and asc.HardEvent.FIX_FIX == 34
    assert asc.HardEvent.S_V == 21 and asc.HardEvent.MTE2_MTE3 == 20
    assert asc.PipeID.PIPE_V == 1 and asc.PipeID.PIPE_ALL == 6 and asc.PipeID.PIPE_FIX == 10
    assert len(asc.HardEvent) == 35 and len(asc.PipeID) == 11


def test_config_enums_and_set_platform_errors():
    assert config.Backend("Model") is config.Backend.Model
    assert [p.value for p in config.Platform][:6] == [
        "Ascend910B1", "Ascend910B2", "Ascend910B2C", "Ascend910B3", "Ascend910B4",
        "Ascend910B4-1"]
    assert config.Platform.Ascend910B4_1.value == "Ascend910B4-1"
    assert config.KernelType.AIV_ONLY.value == 0 and config.KernelType.MIX_AIC_1_2.value == 7
    assert list(config.Backend.__members__) == ["Model", "NPU"]
    with pytest.raises(RuntimeError, match="NPU"):
        config.set_platform(config.Backend.NPU)
    with pytest.raises(ValueError):
        config.set_platform("Hardware")


def test_set_platform_selects_runtime_lazily(monkeypatch):
    created = []

    class FakeRuntime:
        def __init__(self, platform, config_overrides=""):
            created.append(platform)
            self.platform = platform

    fake = type("M", (), {"Runtime": FakeRuntime,
                          "list_platforms": staticmethod(lambda: ["Ascend910B1", "Ascend910B3"])})
    monkeypatch.setattr(rt, "_native", lambda: fake)
    rt.reset_device()
    config.set_platform(config.Backend.Model)
    assert created == []  # lazy
    assert rt.get_runtime().platform == "Ascend910B1"
    assert rt.get_runtime() is rt.get_runtime()
    config.set_platform(config.Backend.Model, config.Platform.Ascend910B3)
    assert rt.get_runtime().platform == "Ascend910B3"
    assert created == ["Ascend910B1", "Ascend910B3"]
    assert rt.get_soc_version() is config.Platform.Ascend910B3
    with pytest.raises(RuntimeError, match="Ascend910B2"):
        config.set_platform(config.Backend.Model, config.Platform.Ascend910B2)
    config.set_platform(config.Backend.Model, config.Platform.Ascend910B2, check=False)
    rt.reset_device()
    rt.set_soc_version(config.Platform.Ascend910B1)


def test_missing_native_module_is_reported(monkeypatch):
    def broken():
        raise RuntimeError("Runtime library is not available! (test)")
    monkeypatch.setattr(rt, "_native", broken)
    with pytest.raises(RuntimeError, match="Runtime library is not available"):
        config.set_platform(config.Backend.Model)
    config.set_platform(config.Backend.Model, check=False)


def test_stream_helpers():
    assert rt.current_stream() == rt.current_stream()
    assert int(rt.current_stream()) == 0


def test_ceildiv_and_host_helpers():
    assert asc.ceildiv(10, 3) == 4 and asc.ceildiv(9, 3) == 3
    assert asc.ConstExpr.unwrap(asc.ConstExpr(5)) == 5 and asc.ConstExpr(5).value == 5
    assert list(asc.static_range(3)) == [0, 1, 2]


@pytest.mark.parametrize("call", [
    lambda: asc.add(None, None, None, 8),
    lambda: asc.get_block_idx(),
    lambda: asc.GlobalTensor(),
    lambda: asc.set_flag(asc.HardEvent.MTE2_V, 0),
    lambda: asc.data_copy(None, None, 8),
])
def test_device_api_outside_kernel(call):
    with pytest.raises(RuntimeError, match="cannot be called without initialization of global "
                                           "builder"):
        call()


def test_l2_cache_hint_travels_on_gm_operands_and_views():
    @asc.jit
    def copy_bypass(x: asc.GlobalAddress, y: asc.GlobalAddress):
        gx, gy = asc.GlobalTensor(), asc.GlobalTensor()
        gx.set_global_buffer(x)
        gy.set_global_buffer(y)
        gx.set_l2_cache_hint(asc.CacheMode.CACHE_MODE_DISABLE)
        t = asc.LocalTensor(x.dtype, asc.TPosition.VECIN, 0, 256)
        asc.data_copy(t, gx[256:], 256)
        asc.data_copy(gy, t, 256)

    ir = copy_bypass.compile(MockTensor(asc.float32), MockTensor(asc.float32)).ir
    copies = [op.data_copy for op in ir.body.ops if op.WhichOneof("kind") == "data_copy"]
    assert [c.src.cache_mode for c in copies if c.src.space == kernel_pb2.MEM_GM] == \
        [kernel_pb2.CACHE_MODE_DISABLE]
    assert [c.dst.cache_mode for c in copies if c.dst.space == kernel_pb2.MEM_GM] == \
        [kernel_pb2.CACHE_MODE_NORMAL]


def test_l2_cache_hint_rejects_a_runtime_mode():
    @asc.jit
    def bad(x: asc.GlobalAddress, m: int):
        gx = asc.GlobalTensor()
        gx.set_global_buffer(x)
        gx.set_l2_cache_hint(m)

    with pytest.raises(CodegenError, match="compile-time asc.CacheMode"):
        bad.compile(MockTensor(asc.float32), MockValue(asc.int32))
