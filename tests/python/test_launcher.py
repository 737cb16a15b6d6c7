"""`Launcher(options).run(...)` and `Compiler(options).run(...)`: the JIT's launch path makes one
`Launcher.run` call per launch, so patching it (as pyasc's unit tests do) traces kernels without
simulating anything."""
from unittest import mock

import numpy as np
import pytest

import asc
import asc.lib.runtime as rt
import asc.runtime.config as config
from asc.codegen.function_visitor import CodegenOptions
from asc.runtime.compiler import CompiledKernel, Compiler, CompileOptions, Specialization
from asc.runtime.jit import MockTensor, MockValue
from asc.runtime.launcher import Launcher, LaunchOptions, convert_arg
from asc.runtime.report import LaunchReport


@asc.jit
def double_kernel(x: asc.GlobalAddress, y: asc.GlobalAddress, n: int):
    gx = asc.GlobalTensor()
    gy = asc.GlobalTensor()
    gx.set_global_buffer(x + asc.get_block_idx() * n)
    gy.set_global_buffer(y + asc.get_block_idx() * n)
    t = asc.LocalTensor(x.dtype, asc.TPosition.VECCALC, 0, n)
    asc.data_copy(t, gx, n)
    asc.set_flag(asc.HardEvent.MTE2_V, 0)
    asc.wait_flag(asc.HardEvent.MTE2_V, 0)
    asc.muls(t, t, 2.0, n)
    asc.set_flag(asc.HardEvent.V_MTE3, 0)
    asc.wait_flag(asc.HardEvent.V_MTE3, 0)
    asc.data_copy(gy, t, n)


@pytest.fixture
def mock_launcher_run():
    """pyasc's unit-test fixture: kernels compile, nothing runs."""
    with mock.patch.object(Launcher, "run") as run:
        yield run


def test_patched_run_is_called_once_per_launch_and_nothing_runs(mock_launcher_run):
    rt.reset_device()
    config.set_platform(config.Backend.Model, check=False)
    x = np.arange(2 * 64, dtype=np.float32)
    y = np.full_like(x, -1.0)
    first = double_kernel[2, rt.current_stream()](x, y, 64)
    second = double_kernel[2](x, y, 64)
    assert mock_launcher_run.call_count == 2
    for call in mock_launcher_run.call_args_list:
        kernel, function_name, user_args = call.args
        assert isinstance(kernel, CompiledKernel) and kernel.ir.name == "double_kernel"
        assert function_name == "double_kernel"
        assert [a.spec.name for a in user_args] == ["x", "y", "n"]
    assert not isinstance(first, LaunchReport) and not isinstance(second, LaunchReport)
    assert not rt.is_initialized()  # no simulator was even created
    assert np.all(y == -1.0)        # the output was not touched


def test_unpatched_launch_goes_through_launcher_and_returns_the_report(device):
    x = np.arange(2 * 64, dtype=np.float32)
    y = np.zeros_like(x)
    with mock.patch.object(Launcher, "run", autospec=True, side_effect=Launcher.run) as run:
        report = double_kernel[2, rt.current_stream()](x, y, 64)
    assert run.call_count == 1
    launcher = run.call_args.args[0]
    assert launcher.options == LaunchOptions(2, rt.current_stream())
    assert isinstance(report, LaunchReport) and report.status == "OK"
    assert np.array_equal(y, x * 2)


def test_launcher_runs_a_compiled_kernel_directly(device):
    compiled = double_kernel.compile(MockTensor(asc.float32), MockTensor(asc.float32),
                                     MockValue(asc.int32))
    x = np.arange(64, dtype=np.float32)
    y = np.zeros_like(x)
    args = [convert_arg("x", x), convert_arg("y", y), convert_arg("n", 64)]
    report = Launcher(LaunchOptions(core_num=1)).run(compiled, "double_kernel", args)
    assert report.block_dim == 1 and np.array_equal(y, x * 2)


def test_launcher_refuses_mock_arguments(device):
    compiled = double_kernel.compile(MockTensor(asc.float32), MockTensor(asc.float32),
                                     MockValue(asc.int32))
    args = [convert_arg("x", MockTensor(asc.float32)), convert_arg("y", MockTensor(asc.float32)),
            convert_arg("n", MockValue(asc.int32))]
    with pytest.raises(TypeError, match="traced but not launched"):
        Launcher(LaunchOptions(core_num=1)).run(compiled, "double_kernel", args)


def test_compiler_run_compiles_a_traced_module():
    specs = (convert_arg("x", MockTensor(asc.float16)).spec,
             convert_arg("y", MockTensor(asc.float16)).spec,
             convert_arg("n", MockValue(asc.int32)).spec)
    mod = double_kernel._run_codegen(Specialization(specs, {}), CodegenOptions())
    assert all(op.loc.line for op in mod.kernel.body.ops if op.WhichOneof("kind") == "data_copy")
    compiled = Compiler(CompileOptions(strip_loc=True)).run(mod, "double_kernel")
    assert isinstance(compiled, CompiledKernel)
    assert [p.name for p in compiled.ir.params] == ["x", "y", "n"]
    assert compiled.ir_bytes == compiled.ir.SerializeToString()
    assert not any(op.HasField("loc") for op in compiled.ir.body.ops) and not compiled.ir.files
    assert Compiler().options == CompileOptions()
    with pytest.raises(TypeError, match="mod must be the module"):
        Compiler().run(double_kernel, "double_kernel")


def test_jit_compiles_through_compiler_run():
    with mock.patch.object(Compiler, "run", autospec=True, side_effect=Compiler.run) as run:
        double_kernel.compile(MockTensor(asc.int16), MockTensor(asc.int16), MockValue(asc.int32),
                              always_compile=True)
    assert run.call_count == 1
    assert run.call_args.args[0].options.always_compile is True

