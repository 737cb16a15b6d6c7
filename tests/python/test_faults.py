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
    errors = [d for d in bounds if d.severity == "ERROR"]
    assert errors and errors[0].line == line
    # The declaration past the end was announced when the launch started, at its own line.
    declared = [d for d in bounds if d.severity == "WARNING"]
    assert [d.line for d in declared] == [_line(ub_overflow_kernel, "asc.LocalTensor(")], declared


def test_in_bounds_neighbour_of_the_overflow_kernel_passes(device):
    """The same kernel ending exactly at the end of UB is fine (the check is not too eager)."""
    x = np.ones(1024, dtype=np.float32)
    report = ub_overflow_kernel[1, rt.current_stream()](x, start=UB_BYTES - 4096)
    assert report.status == "OK"


@asc.jit
def crossed_waits_kernel(x: asc.GlobalAddress):
    """Written to deadlock: each pipe waits for the other's set before making its own."""
    asc.wait_flag(asc.HardEvent.V_MTE2, 0)  # on MTE2, before its set below
    asc.set_flag(asc.HardEvent.MTE2_V, 0)
    asc.wait_flag(asc.HardEvent.MTE2_V, 0)  # on V, before its set below
    asc.set_flag(asc.HardEvent.V_MTE2, 0)


def test_a_deadlock_on_eight_cores_is_reported_once_with_its_cycle(device):
    x = np.ones(64, dtype=np.float32)
    with pytest.raises(DeadlockError) as info:
        crossed_waits_kernel[8, rt.current_stream()](x)
    text = str(info.value)
    report = info.value.report
    # The cycle and the two blocked waits, each once for all eight cores.
    assert len(report.diagnostics) == 3, text
    assert all(d.cores == list(range(8)) for d in report.diagnostics), text
    assert text.count("a cycle of waits") == 1 and text.count("cores 0-7") == 3, text
    v_line = _line(crossed_waits_kernel, "asc.wait_flag(asc.HardEvent.MTE2_V, 0)")
    mte2_line = _line(crossed_waits_kernel, "asc.wait_flag(asc.HardEvent.V_MTE2, 0)")
    cycle = report.diagnostics[0].message
    assert f"{THIS_FILE}:{v_line}" in cycle and f"{THIS_FILE}:{mte2_line}" in cycle, cycle
    assert cycle.endswith("or move a set_flag ahead of the wait that holds it up."), cycle
