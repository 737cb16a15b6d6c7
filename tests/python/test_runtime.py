"""`asc.lib.runtime` over the native runtime: memory, streams, launching on a created stream."""
import ctypes

import numpy as np

import asc.lib.runtime as rt
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
