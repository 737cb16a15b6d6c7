"""The framework API end to end: TPipe/TQue pipelines, TBuf, TQueBind, TBufPool, event ids, queue
state, LocalTensorAuto and the sync options, run on the simulator."""
import warnings

import numpy as np
import pytest

import asc
import asc.lib.runtime as rt
from asc.runtime.errors import DeadlockError, KernelWarning
from fwk_kernels import (add_auto_kernel, add_static_no_flags_kernel, pool_two_stage_kernel,
                         run_add_framework)
from kernels import read_slots, scalar_slots

PIPES = ("MTE2", "V", "MTE3")
TILES = 16  # TILE_NUM * the largest BUFFER_NUM


@asc.jit
def store_scalar(out: asc.GlobalAddress, slot, value):
    """out[slot * 8] += value through a 32-byte block at the top of UB, away from the pipe's
    buffers. Its flags take ids with fetch_event_id, as library code does: literal ids could
    collide with the ids the kernel's queues hold (kernels.store_scalar uses id 0)."""
    pipe = asc.get_tpipe_ptr()
    gm = asc.GlobalTensor()
    gm.set_global_buffer(out + slot * 8)
    block = asc.LocalTensor(asc.int32, asc.TPosition.VECCALC, 190 * 1024, 8)
    asc.data_copy(block, gm, 8)
    mte2_v = pipe.fetch_event_id(asc.HardEvent.MTE2_V)
    asc.set_flag(asc.HardEvent.MTE2_V, mte2_v)
    asc.wait_flag(asc.HardEvent.MTE2_V, mte2_v)
    asc.adds(block, block, value, 8)
    v_mte3 = pipe.fetch_event_id(asc.HardEvent.V_MTE3)
    asc.set_flag(asc.HardEvent.V_MTE3, v_mte3)
    asc.wait_flag(asc.HardEvent.V_MTE3, v_mte3)
    asc.data_copy(gm, block, 8)
    mte3_mte2 = pipe.fetch_event_id(asc.HardEvent.MTE3_MTE2)
    asc.set_flag(asc.HardEvent.MTE3_MTE2, mte3_mte2)
    asc.wait_flag(asc.HardEvent.MTE3_MTE2, mte3_mte2)


def _inputs(dtype, n, seed=0):
    rng = np.random.default_rng(seed)
    if np.dtype(dtype).kind == "f":
        return (rng.uniform(-100, 100, n).astype(dtype), rng.uniform(-100, 100, n).astype(dtype))
    return (rng.integers(-10**4, 10**4, n).astype(dtype),
            rng.integers(-10**4, 10**4, n).astype(dtype))


def _triple_overlap_cycles(report, core):
    """Cycles of `core` at which MTE2, V and MTE3 all execute a (non-sync) instruction, computed
    from the raw timeline records (independently of LaunchReport.concurrent_intervals)."""
    busy = {p: [] for p in PIPES}
    for r in report.timeline:
        if r.core == core and r.pipe in busy and r.op not in ("set_flag", "wait_flag",
                                                              "pipe_barrier", "barrier"):
            busy[r.pipe].append((r.start_cycle, r.end_cycle))
    total = 0
    events = sorted({c for ivs in busy.values() for iv in ivs for c in iv})
    for lo, hi in zip(events, events[1:]):
        if all(any(s <= lo and hi <= e for s, e in busy[p]) for p in PIPES):
            total += hi - lo
    return total


# ---- tutorial 02: double buffering --------------------------------------------------------------

@pytest.mark.parametrize("buffer_num", [1, 2])
@pytest.mark.parametrize("dtype,cores", [("float32", 1), ("float16", 8), ("int32", 2),
                                         ("int16", 4)])
def test_add_framework_is_exact(device, dtype, cores, buffer_num):
    n = cores * TILES * 128
    x, y = _inputs(dtype, n, seed=cores)
    z, report = run_add_framework(x, y, cores, buffer_num)
    assert np.array_equal(z.view(np.uint8), (x + y).view(np.uint8)), \
        f"{np.count_nonzero(z != x + y)} mismatching elements"
    assert report.status == "OK" and report.block_dim == cores


def test_double_buffering_overlaps_copy_in_compute_and_copy_out(device):
    n = TILES * 4096  # 16 KiB fp32 tiles: 6 buffers of x, y, z fit UB twice over
    x, y = _inputs("float32", n)
    z1, single = run_add_framework(x, y, 1, 1, record_timeline=True)
    z2, double = run_add_framework(x, y, 1, 2, record_timeline=True)
    assert np.array_equal(z1, x + y) and np.array_equal(z2, x + y)
    assert double.cycles < single.cycles, (double.cycles, single.cycles)
    assert double.timeline and single.timeline
    # depth 2: there are cycles where MTE2 loads tile i+1, V adds tile i and MTE3 stores tile i-1
    overlap = double.concurrent_intervals(PIPES, core=0)
    assert overlap, double.pipe_intervals(0, merged=True)
    assert sum(e - s for s, e in overlap) == _triple_overlap_cycles(double, 0) > 0
    # depth 1: the queue events serialise V against both copies, so the three never overlap
    assert _triple_overlap_cycles(single, 0) == 0
    assert single.concurrent_intervals(PIPES, core=0) == []
    # the timeline names the framework's own flags (enque/deque/free events)
    flags = [r for r in double.timeline if r.op in ("set_flag", "wait_flag")]
    assert flags and any("MTE2_V" in r.detail for r in flags)


def test_timeline_is_only_recorded_on_request(device, monkeypatch):
    x, y = _inputs("float32", TILES * 128)
    _, report = run_add_framework(x, y, 1, 2)
    assert report.timeline == []
    monkeypatch.setenv("AICORE_SIM_TIMELINE", "1")
    _, report = run_add_framework(x, y, 1, 2)
    assert report.timeline and {"MTE2", "V", "MTE3"} <= {r.pipe for r in report.timeline}
    record = next(r for r in report.timeline if r.op == "add")
    assert record.end_cycle > record.start_cycle >= record.issue_cycle
    assert record.file.endswith("fwk_kernels.py") and record.line > 0
    per_pipe = report.pipe_intervals(core=0)
    assert all(iv == sorted(iv) for iv in per_pipe.values())


# ---- the TBufPool two-stage example -------------------------------------------------------------

def test_pool_two_stage_example_is_exact(device):
    n = 8192
    src0, src1 = _inputs("float32", n, seed=3)
    dst = np.zeros(2 * n, dtype=np.float32)
    report = pool_two_stage_kernel[1, rt.current_stream()](src0, src1, dst, n=n)
    assert report.status == "OK"
    assert np.array_equal(dst[:n], src0 + src1)
    assert np.array_equal(dst[n:], src0 - src1)


# ---- sync options: tutorial 01 without any set_flag/wait_flag -----------------------------------

def _launch_no_flags(**options):
    n = 2048
    x, y = _inputs("float32", n, seed=5)
    x += 1000  # no element of x + y is zero
    z = np.full(n, 7.0, dtype=np.float32)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", KernelWarning)
        report = add_static_no_flags_kernel[1, rt.current_stream()](x, y, z, n=n,
                                                                    record_timeline=True,
                                                                    **options)
    return x, y, z, report, caught


def test_missing_flags_are_inserted_by_auto_sync(device):
    x, y, z, report, _ = _launch_no_flags()
    assert np.array_equal(z, x + y)
    waits = [r for r in report.timeline if r.op == "wait_flag"]
    assert waits, "auto_sync inserted no flag"


def test_without_auto_sync_the_race_gives_the_stale_result(device):
    """Written to exhibit a fault (so checked at warn): the add starts before the copies land
    and the copy-out before the add: the output is the UB's previous contents (zeros on a fresh
    device), as on the chip, not x + y; the race checker names the three missing pairs."""
    x, y, z, report, _ = _launch_no_flags(auto_sync=False, check="warn")
    assert not np.any(z == 7.0)          # the copy-out did write
    assert np.array_equal(z, np.zeros_like(z))
    assert not [r for r in report.timeline if r.op in ("set_flag", "wait_flag")]
    assert report.check.races == 3
    assert {(d.other_pipe, d.pipe) for d in report.diagnostics} == {("MTE2", "V"), ("V", "MTE3")}


# ---- TBuf, TQueBind, sub-kernels passing queues and returning tuples ----------------------------

@asc.jit
def load_pair(i, x_gm, y_gm, que_x: asc.TQue, que_y: asc.TQue, n: asc.ConstExpr[int]):
    a = que_x.alloc_tensor(x_gm.dtype)
    b = que_y.alloc_tensor(y_gm.dtype)
    asc.data_copy(a, x_gm[i * n:], n)
    asc.data_copy(b, y_gm[i * n:], n)
    que_x.enque(a)
    que_y.enque(b)
    return que_x.deque(x_gm.dtype), que_y.deque(y_gm.dtype)


@asc.jit
def tbuf_kernel(x: asc.GlobalAddress, y: asc.GlobalAddress, z: asc.GlobalAddress,
                tiles: int, n: asc.ConstExpr[int]):
    x_gm = asc.GlobalTensor()
    y_gm = asc.GlobalTensor()
    z_gm = asc.GlobalTensor()
    x_gm.set_global_buffer(x)
    y_gm.set_global_buffer(y)
    z_gm.set_global_buffer(z)
    pipe = asc.TPipe()
    que_x = asc.TQue(asc.TPosition.VECIN, 1)
    que_y = asc.TQue(asc.TPosition.VECIN, 1)
    que_z = asc.TQue(asc.TPosition.VECOUT, 1)
    tmp = asc.TBuf(asc.TPosition.VECCALC)
    nbytes = n * x.dtype.sizeof()
    pipe.init_buffer(que_x, 1, nbytes)
    pipe.init_buffer(que_y, 1, nbytes)
    pipe.init_buffer(que_z, 1, nbytes)
    pipe.init_buffer(buf=tmp, num=2 * nbytes)
    for i in range(tiles):
        a, b = load_pair(i, x_gm, y_gm, que_x, que_y, n)
        total = tmp.get(x.dtype, n)                       # first half of tmp
        doubled = tmp.get_with_offset(n, nbytes, x.dtype)  # second half
        asc.add(total, a, b, n)
        asc.pipe_barrier(asc.PipeID.PIPE_V)
        asc.muls(doubled, total, 2, n)
        asc.pipe_barrier(asc.PipeID.PIPE_V)
        c = que_z.alloc_tensor(x.dtype)
        asc.sub(c, doubled, b, n)                          # 2 (a + b) - b
        que_z.enque(c)
        que_x.free_tensor(a)
        que_y.free_tensor(b)
        c = que_z.deque(x.dtype)
        asc.data_copy(z_gm[i * n:], c, n)
        que_z.free_tensor(c)


def test_tbuf_scratch_and_tuple_returning_sub_kernel(device):
    n, tiles = 512, 6
    x, y = _inputs("int32", n * tiles, seed=9)
    z = np.zeros_like(x)
    tbuf_kernel[1, rt.current_stream()](x, y, z, tiles, n=n)
    assert np.array_equal(z, 2 * (x + y) - y)


@asc.jit
def bind_copy_kernel(x: asc.GlobalAddress, z: asc.GlobalAddress, tiles: int,
                     n: asc.ConstExpr[int]):
    x_gm = asc.GlobalTensor()
    z_gm = asc.GlobalTensor()
    x_gm.set_global_buffer(x)
    z_gm.set_global_buffer(z)
    pipe = asc.TPipe()
    que = asc.TQueBind(asc.TPosition.VECIN, asc.TPosition.VECOUT, 1)
    pipe.init_buffer(que, 1, n * x.dtype.sizeof())
    for i in range(tiles):
        t = que.alloc_tensor(x.dtype)
        asc.data_copy(t, x_gm[i * n:], n)   # MTE2 writes ...
        que.enque(t)
        t = que.deque(x.dtype)
        asc.data_copy(z_gm[i * n:], t, n)   # ... MTE3 reads: MTE2_MTE3 / MTE3_MTE2 events
        que.free_tensor(t)


def test_tquebind_vecin_vecout_copies_through_one_buffer(device):
    n, tiles = 1024, 8
    x = np.arange(n * tiles, dtype=np.float16)
    z = np.zeros_like(x)
    report = bind_copy_kernel[1, rt.current_stream()](x, z, tiles, n=n, record_timeline=True)
    assert np.array_equal(z, x)
    details = " ".join(r.detail for r in report.timeline if r.op in ("set_flag", "wait_flag"))
    assert "MTE2_MTE3" in details and "MTE3_MTE2" in details


# ---- event ids and queue state ------------------------------------------------------------------

@asc.jit
def event_id_kernel(x: asc.GlobalAddress, out: asc.GlobalAddress):
    pipe = asc.TPipe()
    a = pipe.alloc_event_id(event=asc.HardEvent.MTE2_V)
    b = pipe.alloc_event_id(event=asc.HardEvent.MTE2_V)
    f = pipe.fetch_event_id(event=asc.HardEvent.MTE2_V)    # lowest free, not reserved
    pipe.release_event_id(id=a, event=asc.HardEvent.MTE2_V)
    g = pipe.fetch_event_id(event=asc.HardEvent.MTE2_V)    # a's id is free again
    other = pipe.alloc_event_id(event=asc.HardEvent.V_MTE3)  # ids are per event type
    store_scalar(out, 0, a)
    store_scalar(out, 1, b)
    store_scalar(out, 2, f)
    store_scalar(out, 3, g)
    store_scalar(out, 4, other)
    # an allocated id orders a copy and its consumer like a literal one
    x_gm = asc.GlobalTensor()
    x_gm.set_global_buffer(x)
    t = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 1024, 64)
    asc.data_copy(t, x_gm, 64)
    asc.set_flag(asc.HardEvent.MTE2_V, b)
    asc.wait_flag(asc.HardEvent.MTE2_V, b)
    asc.abs(t, t, 64)
    asc.set_flag(asc.HardEvent.V_MTE3, other)
    asc.wait_flag(asc.HardEvent.V_MTE3, other)
    asc.data_copy(x_gm, t, 64)
    pipe.release_event_id(b, asc.HardEvent.MTE2_V)
    pipe.release_event_id(other, asc.HardEvent.V_MTE3)


def test_event_ids_are_lowest_free_per_event_type(device):
    out = scalar_slots(5)
    x = np.linspace(-5, 5, 64, dtype=np.float32)
    event_id_kernel[1, rt.current_stream()](x, out, auto_sync=False)
    assert read_slots(out) == [0, 1, 2, 0, 0]
    assert np.array_equal(x, np.abs(np.linspace(-5, 5, 64, dtype=np.float32)))


@asc.jit
def queue_state_kernel(out: asc.GlobalAddress):
    pipe = asc.TPipe()
    que = asc.TQue(asc.TPosition.VECOUT, 1)
    pipe.init_buffer(que, 2, 256)
    store_scalar(out, 0, que.vacant_in_que())
    store_scalar(out, 1, que.has_tensor_in_que())
    store_scalar(out, 2, que.get_tensor_count_in_que())
    store_scalar(out, 3, que.has_idle_buffer())
    t = que.alloc_tensor(asc.float32)
    que.enque(t)
    store_scalar(out, 4, que.vacant_in_que())       # depth 1: full
    store_scalar(out, 5, que.has_tensor_in_que())
    store_scalar(out, 6, que.get_tensor_count_in_que())
    store_scalar(out, 7, que.has_idle_buffer())     # the second buffer is still free
    u = que.alloc_tensor(asc.float32)
    store_scalar(out, 8, que.has_idle_buffer())     # both taken
    que.free_tensor(que.deque(asc.float32))
    que.free_tensor(u)
    store_scalar(out, 9, que.get_tensor_count_in_que())
    store_scalar(out, 10, que.has_idle_buffer())


def test_queue_state_queries(device):
    out = scalar_slots(11)
    queue_state_kernel[1, rt.current_stream()](out)
    assert read_slots(out) == [1, 0, 0, 1, 0, 1, 1, 1, 0, 0, 1]


@asc.jit
def bookkeeping_kernel(out: asc.GlobalAddress, n: int):
    pipe = asc.TPipe()
    que = asc.TQue(asc.TPosition.VECCALC, 1)
    pipe.init_buffer(que, 1, 1000)                 # rounded up to 1024 bytes
    t = que.alloc_tensor(asc.float32)
    store_scalar(out, 0, t.get_length())
    store_scalar(out, 1, t.get_size())
    store_scalar(out, 2, t[n:].get_size())
    store_scalar(out, 3, t.reinterpret_cast(asc.int16).get_size())
    v = asc.LocalTensor(asc.float32)
    v.set_addr_with_offset(t, n)
    store_scalar(out, 4, v.get_length())
    store_scalar(out, 5, v.get_phy_addr() - t.get_phy_addr())
    t.set_size(16)
    store_scalar(out, 6, t.get_length())
    que.free_tensor(t)


def test_local_tensor_bookkeeping_values(device):
    out = scalar_slots(7)
    bookkeeping_kernel[1, rt.current_stream()](out, 10)
    assert read_slots(out) == [1024, 256, 246, 512, 1024 - 40, 40, 64]


# ---- LocalTensorAuto ----------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", ["float32", "float16", "int16"])
def test_local_tensor_auto_add_is_exact(device, dtype):
    cores, tile = 4, 256
    n = cores * 8 * tile
    x, y = _inputs(dtype, n, seed=11)
    z = np.zeros_like(x)
    report = add_auto_kernel[cores, rt.current_stream()](x, y, z, n // cores, tile=tile)
    assert np.array_equal(z.view(np.uint8), (x + y).view(np.uint8))
    assert report.status == "OK"


@asc.jit
def auto_with_bad_user_flags_kernel(x: asc.GlobalAddress, z: asc.GlobalAddress,
                                    n: asc.ConstExpr[int]):
    x_gm = asc.GlobalTensor()
    z_gm = asc.GlobalTensor()
    x_gm.set_global_buffer(x)
    z_gm.set_global_buffer(z)
    t = asc.LocalTensorAuto(x.dtype, n)
    asc.data_copy(t, x_gm, n)
    asc.wait_flag(asc.HardEvent.MTE2_V, 5)  # nobody sets it: erased by insert_sync
    asc.muls(t, t, 3, n)
    asc.data_copy(z_gm, t, n)


def test_insert_sync_erases_user_flags(device):
    n = 512
    x = np.arange(n, dtype=np.float32)
    z = np.zeros_like(x)
    auto_with_bad_user_flags_kernel[1, rt.current_stream()](x, z, n=n)
    assert np.array_equal(z, 3 * x)
    with pytest.raises(DeadlockError):
        auto_with_bad_user_flags_kernel[1, rt.current_stream()](x, z, n=n, insert_sync=False)
