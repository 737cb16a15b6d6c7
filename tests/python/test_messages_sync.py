"""Sync findings that point at the user's code (issue 23). A kernel written to deadlock: an
unpaired wait_flag(MTE2_MTE3) before a UB -> GM copy. Under auto_sync the user's wait consumes
the set auto_sync inserted for the copy, and the deadlock names the user's wait (not the inserted
one); in both modes the copy that never ran is not reported as a race."""
import inspect

import numpy as np
import pytest

import asc
import asc.lib.runtime as rt
from asc.runtime.errors import DeadlockError


@asc.jit
def unpaired_wait_kernel(src: asc.GlobalAddress, out: asc.GlobalAddress):
    g_src, g_out = asc.GlobalTensor(), asc.GlobalTensor()
    g_src.set_global_buffer(src)
    g_out.set_global_buffer(out)
    ub = asc.LocalTensor(src.dtype, asc.TPosition.VECIN, 0, 128)
    asc.data_copy(ub, g_src, 128)
    asc.wait_flag(asc.HardEvent.MTE2_MTE3, 0)  # no set_flag pairs this wait
    asc.data_copy(g_out, ub, 128)


def line_of(text):
    lines, first = inspect.getsourcelines(unpaired_wait_kernel.fn
                                          if hasattr(unpaired_wait_kernel, "fn")
                                          else unpaired_wait_kernel)
    return first + next(i for i, line in enumerate(lines) if text in line)


@pytest.mark.parametrize("auto_sync", [True, False])
def test_the_deadlock_names_the_users_wait_and_no_race_of_what_never_ran(device, auto_sync):
    src = np.arange(128).astype(np.float16)
    out = np.zeros(128, np.float16)
    with pytest.raises(DeadlockError) as info:
        unpaired_wait_kernel[1, rt.current_stream()](src, out, auto_sync=auto_sync)
    report = info.value.report
    kinds = [d.kind for d in report.diagnostics]
    assert "RACE" not in kinds, [str(d) for d in report.diagnostics]
    wait_line = line_of("asc.wait_flag(asc.HardEvent.MTE2_MTE3, 0)")
    deadlock = [d for d in report.diagnostics if d.kind == "DEADLOCK"]
    assert deadlock and deadlock[0].line == wait_line, [str(d) for d in deadlock]
    text = deadlock[0].message
    assert f"PIPE_MTE3 wait_flag at {__file__}:{wait_line}" in text, text
    if auto_sync:
        assert "consumed the set_flag(MTE2_MTE3, 0) that auto_sync inserted" in text, text
        assert f"for the instruction at {__file__}:{wait_line + 1}" in text, text
        assert "remove this wait_flag" in text, text
