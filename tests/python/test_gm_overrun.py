"""GM as the device has it (DESIGN.md, device memory): every allocation starts its own 2 MiB
allocator block, so pyasc's whole-tile tail kernels run and compute the right values, with a
GM_OVERRUN warning per overrunning copy; an overrun that reaches the next tensor writes it and
names both; an access outside mapped memory is a GM_OUT_OF_BOUNDS fault."""
import inspect
import os
import warnings

import numpy as np
import pytest

import asc
import asc.lib.runtime as rt
from asc.runtime.errors import KernelCheckError, KernelFaultError, KernelWarning
from kernels import TAIL_TILE, run_whole_tile_add, whole_tile_add_kernel

BLOCK_FLOATS = (2 << 20) // 4  # the preset's gm.alloc_block_bytes in fp32 elements
KERNELS_FILE = "kernels.py"
THIS_FILE = os.path.basename(__file__)


def _line(fn, text):
    lines, start = inspect.getsourcelines(fn.fn)
    return start + next(i for i, line in enumerate(lines) if text in line)


def _quiet(fn, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", KernelWarning)
        return fn(*args, **kwargs)


def test_whole_tile_tail_on_16_cores_runs_with_overrun_warnings(device):
    # 1000 fp32 over 16 cores: core 15 starts at element 960 and moves 512, 1888 bytes past
    # the end of x, y and z.
    rng = np.random.default_rng(3)
    x = rng.uniform(-10, 10, 1000).astype(np.float32)
    y = rng.uniform(-10, 10, 1000).astype(np.float32)
    z, report = _quiet(run_whole_tile_add, x, y, 16, check="warn")
    assert report.status == "OK" and report.block_dim == 16
    assert np.array_equal(z, x + y)
    overruns = [d for d in report.diagnostics if d.kind == "GM_OVERRUN"]
    assert {d.severity for d in overruns} == {"WARNING"}
    by_tensor = {d.message.split("past the end of tensor ")[1].split(" ")[0]: d for d in overruns}
    assert set(by_tensor) == {"x", "y", "z"}, [d.message for d in overruns]
    copy_in = _line(whole_tile_add_kernel, "asc.data_copy(x_local, x_gm, TAIL_TILE)")
    copy_out = _line(whole_tile_add_kernel, "asc.data_copy(z_gm, z_out, TAIL_TILE)")
    assert (os.path.basename(by_tensor["x"].file), by_tensor["x"].line) == (KERNELS_FILE, copy_in)
    assert (os.path.basename(by_tensor["z"].file), by_tensor["z"].line) == (KERNELS_FILE, copy_out)
    assert "writes GM[" in by_tensor["z"].message and "belongs to no tensor" in \
        by_tensor["z"].message
    # The range is the bytes past the tensor: up to the end of the first overrunning tile.
    d = by_tensor["x"]
    assert d.memory == "GM" and d.address_hi > d.address_lo
    assert d.address_hi - d.address_lo <= TAIL_TILE * 4
    assert report.check.warnings >= 3 and report.check.races == 0 and not report.check.failed


def test_overruns_pass_strict_and_fail_strict_all(device):
    x = np.ones(1000, dtype=np.float32)
    z, report = _quiet(run_whole_tile_add, x, x, 16, check="strict")
    assert np.array_equal(z, x + x) and not report.check.failed
    with pytest.raises(KernelCheckError) as info:
        _quiet(run_whole_tile_add, x, x, 16, check="strict-all")
    assert "GM_OVERRUN" in str(info.value) and "strict-all" in str(info.value)


@asc.jit
def copy_to_offset_kernel(x: asc.GlobalAddress, y: asc.GlobalAddress, z: asc.GlobalAddress,
                          offset: int):
    """Written to exhibit an overrun: 8 elements of x land at y + offset."""
    x_gm = asc.GlobalTensor()
    y_gm = asc.GlobalTensor()
    x_gm.set_global_buffer(x)
    y_gm.set_global_buffer(y + offset)
    t = asc.LocalTensor(x.dtype, asc.TPosition.VECIN, 0, 8)
    asc.data_copy(t, x_gm, 8)
    asc.set_flag(asc.HardEvent.MTE2_MTE3, 0)
    asc.wait_flag(asc.HardEvent.MTE2_MTE3, 0)
    asc.data_copy(y_gm, t, 8)


def test_an_overrun_into_the_next_tensor_writes_it_and_names_both(device):
    # The launcher allocates x, y, z in order: z's block follows y's. 16 of the 32 bytes written
    # from 16 bytes before the end of y's block land in z.
    x = np.full(8, 5.0, dtype=np.float32)
    y = np.zeros(8, dtype=np.float32)
    z = np.ones(8, dtype=np.float32)
    report = _quiet(copy_to_offset_kernel[1, rt.current_stream()], x, y, z, BLOCK_FLOATS - 4,
                    check="warn")
    assert report.status == "OK"
    assert np.array_equal(z, [5, 5, 5, 5, 1, 1, 1, 1])
    (d,) = [d for d in report.diagnostics if d.kind == "GM_OVERRUN"]
    assert "past the end of tensor y (the 32-byte allocation" in d.message, d.message
    assert "into tensor z (the 32-byte allocation" in d.message, d.message
    assert "overwrites its bytes" in d.message, d.message
    assert os.path.basename(d.file) == THIS_FILE
    assert d.line == _line(copy_to_offset_kernel, "data_copy(y_gm, t, 8)")
    assert d.address_hi - d.address_lo == 16


def test_an_access_outside_mapped_memory_is_an_error(device):
    # z is the last allocation: two blocks past y is beyond z's block, unmapped.
    x = np.ones(8, dtype=np.float32)
    y = np.zeros(8, dtype=np.float32)
    z = np.zeros(8, dtype=np.float32)
    with pytest.raises(KernelFaultError) as info:
        copy_to_offset_kernel[1, rt.current_stream()](x, y, z, 2 * BLOCK_FLOATS, check="warn")
    (d,) = [d for d in info.value.report.diagnostics if d.kind == "GM_OUT_OF_BOUNDS"]
    assert d.severity == "ERROR" and "not inside mapped device memory" in d.message, d.message
    assert "nearest allocation below it is tensor z" in d.message, d.message
