"""Read-only host arrays (issue 23): a read-only input runs and is never copied back; a read-only
output is refused before the launch, naming the kernel and the argument; the analysis of which
arguments a kernel writes (asc.runtime.outputs) on real kernels."""
import numpy as np
import pytest

import asc.lib.runtime as rt
from asc.runtime.outputs import written_params
from kernels import run_vadd, vadd_kernel


def test_read_only_inputs_run_and_stay_as_they_were():
    x = np.arange(2048, dtype=np.float32)
    x.setflags(write=False)
    y = np.broadcast_to(np.float32(2.0), (2048,))
    z, report = run_vadd(x, y, 2)
    assert report.status == "OK"
    np.testing.assert_array_equal(z, x + 2.0)
    assert not x.flags.writeable and not y.flags.writeable


def test_a_read_only_output_is_refused_before_the_launch(monkeypatch):
    launched = []
    from asc.runtime import launcher
    real = launcher.Launcher._launch
    monkeypatch.setattr(launcher.Launcher, "_launch",
                        lambda self, *a, **k: launched.append(1) or real(self, *a, **k))
    x = np.ones(1024, dtype=np.float32)
    z = np.zeros(1024, dtype=np.float32)
    z.setflags(write=False)
    with pytest.raises(ValueError) as e:
        vadd_kernel[1, rt.current_stream()](x, x, z, 1024)
    text = str(e.value)
    assert "argument 'z' is a read-only array, but the kernel writes it" in text, text
    assert "vadd_kernel" in text and "z.copy()" in text, text
    assert not launched, "the kernel was launched"


def test_the_written_arguments_of_a_vadd_are_its_output_only():
    x = np.ones(1024, dtype=np.float32)
    z = np.zeros_like(x)
    compiled = vadd_kernel.compile(x, x, z, 1024)
    ir = getattr(compiled, "ir", None) or compiled
    written, complete = written_params(ir)
    assert complete and written == {"z"}


def test_more_blocks_than_cores_warns_once_naming_the_waves():
    import warnings as w

    from asc.runtime.errors import KernelWarning
    cores = rt._core_counts()[1]  # the platform's vector cores
    blocks = cores * 2 + 3
    x = np.ones(blocks * 1024, dtype=np.float32)
    with w.catch_warnings(record=True) as caught:
        w.simplefilter("always", KernelWarning)
        z, report = run_vadd(x, x, blocks)
        run_vadd(x, x, blocks)
    texts = [str(c.message) for c in caught if "waves" in str(c.message)]
    assert len(texts) == 1, texts
    assert f"block_dim {blocks} is more than the {cores} vector cores" in texts[0], texts
    assert f"in 3 waves ({cores} + {cores} + 3)" in texts[0], texts
    np.testing.assert_array_equal(z, x + x)


def test_a_float64_array_is_named_at_the_op_that_cannot_take_it():
    import asc
    from asc.codegen.errors import CodegenError

    @asc.jit
    def scale_kernel(x: asc.GlobalAddress, y: asc.GlobalAddress):
        gx, gy = asc.GlobalTensor(), asc.GlobalTensor()
        gx.set_global_buffer(x)
        gy.set_global_buffer(y)
        ub = asc.LocalTensor(x.dtype, asc.TPosition.VECIN, 0, 64)
        asc.data_copy(ub, gx, 64)
        asc.set_flag(asc.HardEvent.MTE2_V, 0)
        asc.wait_flag(asc.HardEvent.MTE2_V, 0)
        asc.muls(ub, ub, 2.0, 64)
        asc.set_flag(asc.HardEvent.V_MTE3, 0)
        asc.wait_flag(asc.HardEvent.V_MTE3, 0)
        asc.data_copy(gy, ub, 64)

    with pytest.raises(CodegenError) as e:
        scale_kernel[1, rt.current_stream()](np.ones(64), np.zeros(64, np.float32))
    text = str(e.value)
    assert "muls(): dtype float64 is not supported" in text, text
    assert "hint: float64 comes from the kernel's argument 'x'" in text, text
    assert "x.astype(np.float32)" in text, text


@pytest.mark.parametrize("bad", [np.ones(4, np.complex64), np.array(["a"]), np.ones(4, object)])
def test_an_array_of_a_dtype_no_kernel_takes_is_named_at_the_call(bad):
    import asc

    @asc.jit
    def takes_array(x: asc.GlobalAddress, n: int):
        pass

    with pytest.raises(TypeError) as e:
        takes_array[1, rt.current_stream()](bad, 4)
    text = str(e.value)
    assert f"kernel takes_array: argument 'x' is a {bad.dtype} array" in text, text
    assert "x.astype(np.float32)" in text, text
