"""A LocalTensor whose compile-time address plus size passes the end of its memory (issue 23):
reported when the launch starts, naming the tensor, its line and the memory's size; never at trace
time, so compiling with Launcher.run patched accepts what pyasc accepts. The chip checks accesses,
not declarations (pyasc's linear example declares 1 MiB of a 512 KiB L1, asc-api.md 10.6), so the
declaration is a warning and the kernel runs; an access past the end is an error where it
happens (tests/python/test_faults.py)."""
import inspect
import warnings

import numpy as np

import asc
import asc.lib.runtime as rt
from asc.runtime import launcher
from asc.runtime.errors import KernelWarning

UB_BYTES = 192 * 1024  # Ascend910B1's vector core (configs/)


@asc.jit
def three_tiles_kernel(x: asc.GlobalAddress, z: asc.GlobalAddress, tile: asc.ConstExpr[int],
                       used: asc.ConstExpr[int]):
    """Three tiles declared back to back; only the first `used` elements of each are touched."""
    x_gm = asc.GlobalTensor()
    z_gm = asc.GlobalTensor()
    x_gm.set_global_buffer(x, used)
    z_gm.set_global_buffer(z, used)
    nbytes = tile * x.dtype.sizeof()
    x_local = asc.LocalTensor(x.dtype, asc.TPosition.VECIN, 0, tile)
    y_local = asc.LocalTensor(x.dtype, asc.TPosition.VECCALC, nbytes, tile)
    z_local = asc.LocalTensor(x.dtype, asc.TPosition.VECOUT, 2 * nbytes, tile)  # the third tile
    asc.data_copy(x_local, x_gm, used)
    asc.set_flag(asc.HardEvent.MTE2_V, 0)
    asc.wait_flag(asc.HardEvent.MTE2_V, 0)
    asc.muls(y_local, x_local, 2.0, used)
    asc.adds(z_local, y_local, 1.0, used)
    asc.set_flag(asc.HardEvent.V_MTE3, 0)
    asc.wait_flag(asc.HardEvent.V_MTE3, 0)
    asc.data_copy(z_gm, z_local, used)


def _line_of(text):
    source, first = inspect.getsourcelines(three_tiles_kernel.fn)
    for offset, line in enumerate(source):
        if text in line:
            return first + offset
    raise AssertionError(text)


def _run(tile, used):
    x = np.arange(used, dtype=np.float32)
    z = np.zeros_like(x)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", KernelWarning)
        report = three_tiles_kernel[1, rt.current_stream()](x, z, tile, used)
    np.testing.assert_array_equal(z, x * 2 + 1)
    return report, [str(c.message) for c in caught if issubclass(c.category, KernelWarning)]


def test_three_tiles_that_fit_run_clean():
    report, warned = _run(4096, 4096)
    assert report.status == "OK" and not report.diagnostics and not warned, warned


def test_a_tensor_declared_past_the_end_of_ub_warns_when_the_launch_starts_and_runs():
    tile = 20 * 1024  # three float32 tiles declare 240 KiB of a 192 KiB UB; 4 KiB of each is used
    report, warned = _run(tile, 1024)
    assert report.status == "OK"
    found = [d for d in report.diagnostics if d.kind == "OUT_OF_BOUNDS"]
    assert [d.severity for d in found] == ["WARNING"], found
    d = found[0]
    line = _line_of("# the third tile")
    assert d.line == line and d.file.endswith("test_static_tensor_bounds.py"), d
    assert (d.memory, d.address_lo, d.address_hi) == ("UB", 2 * tile * 4, 3 * tile * 4), d
    assert d.message.startswith(f"LocalTensor z_local at {d.file}:{line} (TPosition.VECOUT) is "
                                f"declared over UB[{2 * tile * 4}, {3 * tile * 4}) but the "
                                f"vector core's UB has {UB_BYTES} bytes"), d.message
    assert "lower its addr or tile_size" in d.message, d.message
    assert "x_local" not in d.message and "y_local" not in d.message, d.message
    assert len(warned) == 1 and "WARNING" in warned[0] and "z_local" in warned[0], warned


def test_compiling_with_launcher_run_patched_accepts_it(monkeypatch):
    """pyasc compiles the kernel; only the launch on a platform knows UB's size."""
    ran = []
    monkeypatch.setattr(launcher.Launcher, "run", lambda self, *a, **k: ran.append(1))
    tile = 20 * 1024
    x = np.ones(tile, dtype=np.float32)
    three_tiles_kernel[1, rt.current_stream()](x, np.zeros_like(x), tile, tile)
    assert ran == [1]


def test_the_declaration_is_in_the_ir_with_its_name_and_bytes():
    tile = 20 * 1024
    x = np.ones(tile, dtype=np.float32)
    compiled = three_tiles_kernel.compile(x, np.zeros_like(x), tile, tile)
    ir = getattr(compiled, "ir", None) or compiled
    decls = [(d.name, d.addr, d.bytes) for d in ir.static_tensors]
    assert decls == [("x_local", 0, tile * 4), ("y_local", tile * 4, tile * 4),
                     ("z_local", 2 * tile * 4, tile * 4)]


@asc.jit
def unrolled_kernel(x: asc.GlobalAddress, z: asc.GlobalAddress, tile: asc.ConstExpr[int]):
    """A Python loop (unrolled at trace time) that declares the same oversized tile each time."""
    x_gm = asc.GlobalTensor()
    z_gm = asc.GlobalTensor()
    x_gm.set_global_buffer(x, 4 * 256)
    z_gm.set_global_buffer(z, 4 * 256)
    for i in range(4):
        t = asc.LocalTensor(x.dtype, asc.TPosition.VECCALC, UB_BYTES - 1024, tile)  # the tile
        asc.data_copy(t, x_gm[i * 256:], 256)
        asc.set_flag(asc.HardEvent.MTE2_MTE3, 0)
        asc.wait_flag(asc.HardEvent.MTE2_MTE3, 0)
        asc.data_copy(z_gm[i * 256:], t, 256)
        asc.set_flag(asc.HardEvent.MTE3_MTE2, 0)
        asc.wait_flag(asc.HardEvent.MTE3_MTE2, 0)


def test_a_declaration_unrolled_by_a_python_loop_is_reported_once():
    x = np.arange(1024, dtype=np.float32)
    z = np.zeros_like(x)
    compiled = unrolled_kernel.compile(x, z, 1024)
    ir = getattr(compiled, "ir", None) or compiled
    assert [(d.name, d.addr, d.bytes) for d in ir.static_tensors] == [("t", UB_BYTES - 1024,
                                                                       4096)]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", KernelWarning)
        report = unrolled_kernel[1, rt.current_stream()](x, z, 1024)
    assert len([c for c in caught if issubclass(c.category, KernelWarning)]) == 1, caught
    np.testing.assert_array_equal(z, x)
    found = [d for d in report.diagnostics if d.kind == "OUT_OF_BOUNDS"]
    assert len(found) == 1 and found[0].severity == "WARNING", found
    assert "LocalTensor t at " in found[0].message, found[0].message
