"""get_value / set_value on LocalTensor and GlobalTensor (asc-api.md 3.4, 3.5): scalar-unit
element reads and writes, their IR, their values per dtype, and their sync needs."""
import inspect

import numpy as np
import pytest

import asc
import asc.lib.runtime as rt
from asc.codegen.errors import CodegenError
from asc.runtime.errors import KernelWarning

def _line_of(kernel, text: str) -> int:
    lines, first = inspect.getsourcelines(kernel.fn)
    return first + next(i for i, line in enumerate(lines) if text in line)


DTYPES = [np.float16, np.float32, np.int16, np.int32, np.uint8]


@asc.jit
def round_trip(x: asc.GlobalAddress, y: asc.GlobalAddress, z: asc.GlobalAddress,
               n: asc.ConstExpr[int]):
    """ub[i] = x[i]; y[i] = ub[i] (scalar loads and stores), then z = ub through MTE3."""
    gx, gy, gz = asc.GlobalTensor(), asc.GlobalTensor(), asc.GlobalTensor()
    gx.set_global_buffer(x)
    gy.set_global_buffer(y)
    gz.set_global_buffer(z)
    ub = asc.LocalTensor(x.dtype, asc.TPosition.VECCALC, 0, n)
    for i in range(n):
        ub.set_value(i, gx.get_value(i))
        gy.set_value(i, ub.get_value(i))
    asc.data_copy(gz, ub, n)


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda t: np.dtype(t).name)
def test_values_round_trip_for_every_dtype(device, dtype):
    n = 32
    if np.dtype(dtype).kind == "f":
        x = np.array([1.5, -2.25, 1e-3, 0.0, -0.0, 100.125, 7, np.inf] * 4, dtype=dtype)
    else:
        info = np.iinfo(dtype)
        x = np.array([0, 1, info.max, info.min, 5, 100, info.max // 3, 2] * 4, dtype=dtype)
    y = np.zeros_like(x)
    z = np.zeros_like(x)
    report = round_trip[1, rt.current_stream()](x, y, z, n)
    assert y.tobytes() == x.tobytes()
    assert z.tobytes() == x.tobytes()
    # auto_sync placed the S_MTE3 pair the copy-out needs: the strict run had no race.
    assert report.check.races == 0


def test_set_value_converts_to_the_tensor_dtype(device):
    @asc.jit
    def kernel(y: asc.GlobalAddress, h: asc.GlobalAddress):
        gy, gh = asc.GlobalTensor(), asc.GlobalTensor()
        gy.set_global_buffer(y)
        gh.set_global_buffer(h)
        gy.set_value(0, -2.75)   # float into int32: truncates
        gy.set_value(1, True)
        f = gh.get_value(0) * 3  # traced float16 scalar
        gy.set_value(2, f)       # converted by the store
        gh.set_value(1, 0.1)

    y = np.zeros(8, dtype=np.int32)
    h = np.array([1.5] + [0] * 15, dtype=np.float16)
    kernel[1, rt.current_stream()](y, h)
    assert list(y[:3]) == [-2, 1, 4]
    assert h[1] == np.float16(0.1)


@asc.jit(auto_sync=False)
def vector_then_scalar(x: asc.GlobalAddress, y: asc.GlobalAddress, sync: asc.ConstExpr[bool]):
    gx, gy = asc.GlobalTensor(), asc.GlobalTensor()
    gx.set_global_buffer(x)
    gy.set_global_buffer(y)
    a = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 0, 64)
    b = asc.LocalTensor(asc.float32, asc.TPosition.VECOUT, 256, 64)
    asc.data_copy(a, gx, 64)
    asc.set_flag(asc.HardEvent.MTE2_V, 0)
    asc.wait_flag(asc.HardEvent.MTE2_V, 0)
    asc.muls(b, a, 2.0, 64)
    if sync:
        asc.set_flag(asc.HardEvent.V_S, 0)
        asc.wait_flag(asc.HardEvent.V_S, 0)
    v = b.get_value(5)
    gy.set_value(0, v)


def test_a_missing_v_s_is_a_race_naming_both_lines(device):
    x = np.arange(64, dtype=np.float32)
    y = np.zeros(8, dtype=np.float32)
    with pytest.warns(KernelWarning, match="RACE"):
        report = vector_then_scalar[1, rt.current_stream()](x, y, False, check="warn")
    races = [d for d in report.diagnostics if d.kind == "RACE"]
    assert len(races) == 1, report.check.summary
    race = races[0]
    assert (race.pipe, race.op, race.other_pipe, race.other_op) == ("S", "get_value", "V", "muls")
    assert race.line == _line_of(vector_then_scalar, "v = b.get_value(5)")
    assert race.other_line == _line_of(vector_then_scalar, "asc.muls(b, a, 2.0, 64)")
    assert "HardEvent.V_S" in race.message
    assert y[0] != 10.0  # read before the muls wrote it: the chip's stale value

    y[:] = 0
    report = vector_then_scalar[1, rt.current_stream()](x, y, True)
    assert y[0] == 10.0
    assert report.check.races == 0


def test_auto_sync_inserts_what_a_read_needs(device):
    @asc.jit
    def kernel(x: asc.GlobalAddress, y: asc.GlobalAddress):
        gx, gy = asc.GlobalTensor(), asc.GlobalTensor()
        gx.set_global_buffer(x)
        gy.set_global_buffer(y)
        a = asc.LocalTensor(asc.int32, asc.TPosition.VECIN, 0, 64)
        asc.data_copy(a, gx, 64)          # MTE2 writes, the scalar unit reads: MTE2_S
        total = 0
        for i in range(64):
            total += a.get_value(i)
        asc.adds(a, a, total, 64)           # the scalar unit read a, PIPE_V writes it: S_V
        asc.data_copy(gy, a, 64)          # V_MTE3

    x = np.arange(64, dtype=np.int32)
    y = np.zeros_like(x)
    report = kernel[1, rt.current_stream()](x, y, record_timeline=True)
    assert np.array_equal(y, x + x.sum())
    assert report.check.races == 0
    inserted = {r.detail.split()[0] for r in report.timeline if "auto_sync" in r.detail}
    assert {"MTE2_S", "S_V", "V_MTE3"} <= inserted, inserted


def test_traced_indices_inside_loops(device):
    @asc.jit
    def kernel(y: asc.GlobalAddress, n: int):
        gy = asc.GlobalTensor()
        gy.set_global_buffer(y, n)
        t = asc.LocalTensor(asc.int32, asc.TPosition.VECCALC, 0, 64)
        for i in range(n):
            t.set_value(i, i * i)
        for i in range(0, n, 2):
            j = n - 1 - i
            gy.set_value(i, t.get_value(j))
        gy.set_value(1, gy.get_size())  # the uint64 size, converted to int32

    y = np.zeros(16, dtype=np.int32)
    kernel[1, rt.current_stream()](y, 16)
    expected = np.zeros(16, dtype=np.int32)
    expected[0::2] = [(15 - i) ** 2 for i in range(0, 16, 2)]
    expected[1] = 16
    assert np.array_equal(y, expected)


def test_ir_of_get_and_set_value():
    @asc.jit
    def kernel(x: asc.GlobalAddress):
        g = asc.GlobalTensor()
        g.set_global_buffer(x)
        t = asc.LocalTensor(asc.float16, asc.TPosition.VECCALC, 64, 16)
        t.set_value(3, g.get_value(2))

    ir = kernel.compile(np.zeros(4, dtype=np.float16)).ir
    ops = [op for op in ir.body.ops if op.WhichOneof("kind") in ("scalar_load", "scalar_store")]
    assert [op.WhichOneof("kind") for op in ops] == ["scalar_load", "scalar_store"]
    load, store = ops[0].scalar_load, ops[1].scalar_store
    assert load.src.space == asc._proto.kernel_pb2.MEM_GM
    assert store.dst.space == asc._proto.kernel_pb2.MEM_UB
    assert store.value == load.result
    assert ops[0].loc.line > 0


def test_bad_arguments_are_codegen_errors():
    @asc.jit
    def kernel(x: asc.GlobalAddress):
        t = asc.LocalTensor(asc.float32, asc.TPosition.VECCALC, 0, 16)
        t.get_value(1.5)

    with pytest.raises(CodegenError, match="index must be an int or a traced integer"):
        kernel.compile(np.zeros(4, dtype=np.float32))


def test_an_index_past_ub_is_a_kernel_fault(device):
    @asc.jit
    def kernel(y: asc.GlobalAddress):
        gy = asc.GlobalTensor()
        gy.set_global_buffer(y)
        t = asc.LocalTensor(asc.float32, asc.TPosition.VECCALC, 0, 16)
        gy.set_value(0, t.get_value(192 * 1024 // 4))

    from asc.runtime.errors import KernelFaultError
    with pytest.raises(KernelFaultError, match="OUT_OF_BOUNDS"):
        kernel[1, rt.current_stream()](np.zeros(8, dtype=np.float32))
