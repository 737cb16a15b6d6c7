"""Kernel faults surface as exceptions that name the cause and the Python source line."""
import inspect
import os

import numpy as np
import pytest

import asc
import asc.lib.runtime as rt
from asc.runtime.errors import DeadlockError, KernelFaultError

THIS_FILE = os.path.basename(__file__)


def _line(fn, text):
    lines, start = inspect.getsourcelines(fn.fn)
    return start + next(i for i, line in enumerate(lines) if text in line)


@asc.jit
def missing_set_kernel(x: asc.GlobalAddress):
    g = asc.GlobalTensor()
    g.set_global_buffer(x)
    t = asc.LocalTensor(x.dtype, asc.TPosition.VECIN, 0, 64)
    asc.data_copy(t, g, 64)
    asc.wait_flag(asc.HardEvent.MTE2_V, 3)  # nobody sets (MTE2_V, 3)
    asc.abs(t, t, 64)


def test_wait_without_set_is_a_deadlock_naming_pipe_event_id_and_line(device):
    x = np.ones(64, dtype=np.float32)
    with pytest.raises(DeadlockError) as info:
        missing_set_kernel[1, rt.current_stream()](x)
    err = info.value
    assert isinstance(err, KernelFaultError) and isinstance(err, RuntimeError)
    line = _line(missing_set_kernel, "asc.wait_flag(asc.HardEvent.MTE2_V, 3)")
    text = str(err)
    assert f"{THIS_FILE}:{line}" in text, text
    assert "MTE2_V" in text and "3" in text and "V" in text, text
    assert err.report.status == "DEADLOCK"
    deadlocks = [d for d in err.report.diagnostics if d.kind == "DEADLOCK"]
    assert deadlocks and deadlocks[0].line == line and deadlocks[0].pipe == "V"


UB_BYTES = 192 * 1024


@asc.jit
def ub_overflow_kernel(x: asc.GlobalAddress, start: asc.ConstExpr[int]):
    g = asc.GlobalTensor()
    g.set_global_buffer(x)
    t = asc.LocalTensor(x.dtype, asc.TPosition.VECIN, start, 1024)
    asc.data_copy(t, g, 1024)  # 4 KiB from `start`: past the end of UB
    asc.set_flag(asc.HardEvent.MTE2_V, 0)
    asc.wait_flag(asc.HardEvent.MTE2_V, 0)


def test_ub_overflow_is_a_bounds_error_naming_ub_range_and_line(device):
    start = UB_BYTES - 1024
    x = np.ones(1024, dtype=np.float32)
    with pytest.raises(KernelFaultError) as info:
        ub_overflow_kernel[1, rt.current_stream()](x, start=start)
    err = info.value
    text = str(err)
    line = _line(ub_overflow_kernel, "asc.data_copy(t, g, 1024)")
    assert f"{THIS_FILE}:{line}" in text, text
    assert "UB" in text, text
    assert (str(start) in text or hex(start) in text.lower()), text
    bounds = [d for d in err.report.diagnostics if d.kind == "OUT_OF_BOUNDS"]
    assert bounds and bounds[0].line == line


def test_in_bounds_neighbour_of_the_overflow_kernel_passes(device):
    """The same kernel ending exactly at the end of UB is fine (the check is not too eager)."""
    x = np.ones(1024, dtype=np.float32)
    report = ub_overflow_kernel[1, rt.current_stream()](x, start=UB_BYTES - 4096)
    assert report.status == "OK"
