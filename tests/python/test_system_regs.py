"""System pointers and cache control (asc-api.md 4.4): set/get_sys_workspace and
set/get_hccl_context hand a GM address from one call of the kernel to a later one; the cache ops
and init_soc_state check their arguments and change nothing (the model has no scalar data cache
or instruction cache)."""
import numpy as np
import pytest

import asc
import asc.lib.runtime as rt
from asc.codegen.errors import CodegenError
from asc.runtime.errors import KernelFaultError


@asc.jit
def workspace_kernel(x: asc.GlobalAddress, ws: asc.GlobalAddress, ctx: asc.GlobalAddress):
    asc.init_soc_state()
    asc.set_sys_workspace(ws)
    asc.set_hccl_context(1, ctx)
    gx = asc.GlobalTensor()
    gx.set_global_buffer(x)
    asc.data_cache_preload(gx, 0)
    asc.icache_preload(2)
    # Through the workspace pointer: GM bytes written by the scalar unit.
    w = asc.GlobalTensor()
    w.set_global_buffer(asc.get_sys_workspace())
    w.set_value(3, 42)
    c = asc.GlobalTensor()
    c.set_global_buffer(asc.get_hccl_context(1))
    c.set_value(0, w.get_value(3) + 1)
    asc.data_cache_clean_and_invalid(asc.CacheLine.ENTIRE_DATA_CACHE, gx,
                                     asc.DcciDst.CACHELINE_OUT)
    asc.data_cache_clean_and_invalid(asc.CacheLine.SINGLE_CACHE_LINE, gx)


def test_workspace_and_hccl_context_reach_later_calls(device):
    x = np.zeros(64, np.float32)
    ws = np.zeros(64, np.uint8)
    ctx = np.zeros(32, np.uint8)
    workspace_kernel[1, rt.current_stream()](x, ws, ctx)
    assert ws[3] == 42 and ws.sum() == 42
    assert ctx[0] == 43 and ctx.sum() == 43


@asc.jit
def unset_kernel(x: asc.GlobalAddress):
    w = asc.GlobalTensor()
    w.set_global_buffer(asc.get_sys_workspace())
    w.set_value(0, 1)


def test_an_unset_workspace_is_a_null_pointer_at_run_time(device):
    """pyasc compiles a get before any set; on the chip it reads the null pointer, so the read
    warns and the store through it faults, both at their lines."""
    with pytest.raises(KernelFaultError) as info:
        unset_kernel[1, rt.current_stream()](np.zeros(8, np.float32), check="warn")
    kinds = {d.kind: d for d in info.value.report.diagnostics}
    assert "UNINITIALIZED_READ" in kinds and "GM_OUT_OF_BOUNDS" in kinds
    assert kinds["GM_OUT_OF_BOUNDS"].line == kinds["UNINITIALIZED_READ"].line + 1


@asc.jit
def branch_kernel(x: asc.GlobalAddress, ws: asc.GlobalAddress, other: asc.GlobalAddress,
                  pick: int):
    asc.set_sys_workspace(other)
    if pick == 1:
        asc.set_sys_workspace(ws)  # on this path only, as on the chip
    for i in range(2):
        w = asc.GlobalTensor()
        w.set_global_buffer(asc.get_sys_workspace())
        w.set_value(i, 7)


@pytest.mark.parametrize("pick", [0, 1])
def test_a_workspace_set_inside_a_runtime_if_holds_on_that_path(device, pick):
    ws, other = np.zeros(32, np.uint8), np.zeros(32, np.uint8)
    branch_kernel[1, rt.current_stream()](np.zeros(8, np.float32), ws, other, pick)
    hit, miss = (ws, other) if pick == 1 else (other, ws)
    assert list(hit[:3]) == [7, 7, 0] and miss.sum() == 0


@asc.jit
def bad_group_kernel(x: asc.GlobalAddress):
    asc.set_hccl_context(2, x)


@asc.jit
def bad_cache_kernel(x: asc.GlobalAddress):
    gx = asc.GlobalTensor()
    gx.set_global_buffer(x)
    asc.data_cache_clean_and_invalid(7, gx)


@pytest.mark.parametrize("kernel,args,line,message", [
    (bad_group_kernel, (), "asc.set_hccl_context(2, x)", "is not an HCCL group (0..1)"),
    (bad_cache_kernel, (), "asc.data_cache_clean_and_invalid(7, gx)",
     "entire_type must be an asc.CacheLine"),
])
def test_misuse_is_refused_at_the_line(device, kernel, args, line, message):
    with pytest.raises(CodegenError) as e:
        kernel[1, rt.current_stream()](np.zeros(8, np.float32), *args)
    text = str(e.value)
    assert line in text and message in text, text
