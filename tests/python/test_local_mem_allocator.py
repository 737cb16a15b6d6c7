"""`asc.LocalMemAllocator` (asc-api.md 3.8): static tensors carved from UB one after another."""
import numpy as np
import pytest

import asc
import asc.lib.runtime as rt


@asc.jit
def allocator_kernel(x: asc.GlobalAddress, y: asc.GlobalAddress, n: asc.ConstExpr[int]):
    """Two static tensors from one LocalMemAllocator: y = x * 2 + x."""
    gx = asc.GlobalTensor()
    gy = asc.GlobalTensor()
    gx.set_global_buffer(x)
    gy.set_global_buffer(y)
    allocator = asc.LocalMemAllocator()
    a = allocator.alloc(asc.TPosition.VECIN, x.dtype, n)
    b = allocator.alloc(asc.TPosition.VECOUT, x.dtype, n)
    asc.data_copy(a, gx, n)
    asc.set_flag(asc.HardEvent.MTE2_V, 0)
    asc.wait_flag(asc.HardEvent.MTE2_V, 0)
    asc.muls(b, a, 2.0, n)
    asc.pipe_barrier(asc.PipeID.PIPE_V)
    asc.add(b, b, a, n)
    asc.set_flag(asc.HardEvent.V_MTE3, 0)
    asc.wait_flag(asc.HardEvent.V_MTE3, 0)
    asc.data_copy(gy, b, n)


def test_local_mem_allocator_hands_out_consecutive_tensors(device):
    x = np.arange(64, dtype=np.float32)
    y = np.zeros_like(x)
    allocator_kernel[1, rt.current_stream()](x, y, 64)
    assert np.array_equal(y, x * 3)


def test_local_mem_allocator_addresses_at_trace_time():
    seen = {}

    @asc.jit
    def kernel():
        allocator = asc.LocalMemAllocator(asc.Hardware.UB)
        first = allocator.alloc(asc.TPosition.VECCALC, asc.float16, 48)
        second = allocator.alloc(asc.TPosition.VECCALC, asc.int32, 8)
        seen["addrs"] = (first._addr, second._addr)
        seen["end"] = allocator.get_cur_addr()

    kernel.compile()
    assert seen["addrs"] == (0, 96)
    assert seen["end"].dtype == asc.uint32
    with pytest.raises(RuntimeError, match="cannot be called without initialization"):
        asc.LocalMemAllocator()
