"""Mixed AIC + AIV kernels (asc-api.md 10.1, 10.7): a cube-to-vector handoff through GM with
mode-2 cross-core flags, its race without them, deadlocks across cores, sync_all in both forms
and the GM-polling block protocols."""
import inspect
import warnings

import numpy as np
import pytest

import asc
import asc.lib.runtime as rt
import asc.runtime.config as config
from asc.runtime.errors import DeadlockError, KernelWarning

from mixed_kernels import matmul_leaky_kernel

ALPHA = 0.125


def _leaky_matmul(a, bt):
    """What the kernel computes: float32 products of float16, one rounding to float16 by the
    fixpipe, then leaky_relu in float16."""
    c = (a.astype(np.float32) @ bt.astype(np.float32).T).astype(np.float16)
    return np.where(c >= 0, c, (c * np.float16(ALPHA)).astype(np.float16))


def _run_handoff(m, n, k, groups, tile=(64, 64, 32), flags=True, **run):
    rng = np.random.default_rng(m * 1000 + n * 10 + k)
    a = rng.uniform(-1, 1, (m, k)).astype(np.float16)
    bt = rng.uniform(-1, 1, (n, k)).astype(np.float16)
    tm, tn, tk = tile
    ws = np.zeros(groups * 2 * tm * tn, np.float16)
    c = np.zeros((m, n), np.float16)
    report = matmul_leaky_kernel[groups, rt.current_stream()](a, bt, ws, c, m, n, k, tm, tn, tk,
                                                             ALPHA, flags, **run)
    return a, bt, c, report


def _line(fn, text):
    """The source line of `text` inside jit function `fn`."""
    lines, first = inspect.getsourcelines(fn.fn)
    return first + next(i for i, line in enumerate(lines) if text in line)


@pytest.mark.parametrize("m,n,k,groups", [(64, 64, 32, 1), (128, 128, 64, 2), (96, 80, 40, 2),
                                          (70, 48, 100, 1), (200, 144, 64, 3)])
def test_cube_hands_tiles_to_its_vector_cores_through_gm_and_mode2_flags(device, m, n, k, groups):
    a, bt, c, report = _run_handoff(m, n, k, groups)
    want = _leaky_matmul(a, bt)
    np.testing.assert_allclose(c.astype(np.float32), want.astype(np.float32), rtol=2e-3,
                               atol=2e-3)
    assert report.status == "OK"
    # One cube core and two vector cores per group, every one of them ran.
    types = sorted(cs.core_type for cs in report.cores)
    assert types.count("aic") == groups and types.count("aiv") == 2 * groups


def test_the_handoff_without_its_flags_is_a_race_naming_both_cores_and_lines(device):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", KernelWarning)
        _, _, _, report = _run_handoff(96, 80, 40, 1, flags=False, check="warn")
    races = [d for d in report.diagnostics if d.kind == "RACE"]
    assert races, report.diagnostics
    text = " ".join(d.message for d in races)
    assert "across cores" in text and "fixpipe" in text and "data_copy" in text, text
    assert "mixed_kernels.py" in text and "cube_kernels.py" in text, text
    cores = {d.core for d in races} | {d.other_core for d in races}
    assert 0 in cores and (1 in cores or 2 in cores), races


@asc.jit(kernel_type=config.KernelType.MIX_AIC_1_2)
def never_set_kernel(x: asc.GlobalAddress):
    """Written to deadlock: the vector cores wait for a flag no cube core sets."""
    if asc.ascend_is_aiv():
        asc.cross_core_wait_flag(5, mode_id=0, pipe=asc.PipeID.PIPE_S)


def test_a_cross_core_wait_never_set_is_a_deadlock_naming_every_blocked_core(device):
    x = np.zeros(16, np.float32)
    with pytest.raises(DeadlockError) as info:
        never_set_kernel[2, rt.current_stream()](x)
    report = info.value.report
    assert report.status == "DEADLOCK"
    line = _line(never_set_kernel, "cross_core_wait_flag(5")
    deadlocks = [d for d in report.diagnostics if d.kind == "DEADLOCK"]
    summary = [d for d in deadlocks if "deadlock across cores" in d.message]
    assert len(summary) == 1, deadlocks
    # Groups 0 and 1: vector cores 1, 2 and 4, 5 (cube cores 0 and 3 finished).
    assert "cores 1-2, 4-5 wait" in summary[0].message, summary[0].message
    assert f":{line} for cross-core flag 5" in summary[0].message, summary[0].message
    per_core = [d for d in deadlocks if d not in summary]
    assert per_core and all(d.line == line for d in per_core)
    assert "cross-core flag 5" in per_core[0].message and "no core has set" in per_core[0].message


@asc.jit(kernel_type=config.KernelType.AIV_ONLY)
def rotate_kernel(x: asc.GlobalAddress, y: asc.GlobalAddress, ws: asc.GlobalAddress,
                  soft: asc.ConstExpr[bool]):
    """Each block doubles its 64 floats in place, then reads its neighbour's: right only when
    sync_all orders every block's write before every read."""
    xg, yg, wg = asc.GlobalTensor(), asc.GlobalTensor(), asc.GlobalTensor()
    xg.set_global_buffer(x)
    yg.set_global_buffer(y)
    wg.set_global_buffer(ws)
    ub = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 0, 64)
    work = asc.LocalTensor(asc.int32, asc.TPosition.VECCALC, 1024, 8)
    b = asc.get_block_idx()
    asc.data_copy(ub, xg[b * 64], count=64)
    asc.set_flag(asc.HardEvent.MTE2_V, 0)
    asc.wait_flag(asc.HardEvent.MTE2_V, 0)
    asc.muls(ub, ub, 2.0, count=64)
    asc.set_flag(asc.HardEvent.V_MTE3, 0)
    asc.wait_flag(asc.HardEvent.V_MTE3, 0)
    asc.data_copy(xg[b * 64], ub, count=64)
    if soft:
        asc.sync_all(wg, work)
    else:
        asc.sync_all()
    nb = (b + 1) % asc.get_block_num()
    asc.data_copy(ub, xg[nb * 64], count=64)
    asc.set_flag(asc.HardEvent.MTE2_MTE3, 0)
    asc.wait_flag(asc.HardEvent.MTE2_MTE3, 0)
    asc.data_copy(yg[b * 64], ub, count=64)


@pytest.mark.parametrize("soft", [False, True])
def test_sync_all_orders_every_blocks_writes_before_every_read(device, soft):
    blocks = 6
    x = np.arange(blocks * 64, dtype=np.float32)
    y = np.zeros_like(x)
    ws = np.zeros(blocks * 8, np.int32)
    report = rotate_kernel[blocks, rt.current_stream()](x, y, ws, soft)
    want = np.roll((np.arange(blocks * 64, dtype=np.float32) * 2).reshape(blocks, 64), -1, axis=0)
    np.testing.assert_array_equal(y.reshape(blocks, 64), want)
    assert report.status == "OK"
    if soft:
        assert (ws.reshape(blocks, 8)[:, 0] == 1).all()  # each block's slot counts its one barrier


def test_without_sync_all_the_rotation_is_a_race(device):
    @asc.jit(kernel_type=config.KernelType.AIV_ONLY)
    def unordered(x: asc.GlobalAddress, y: asc.GlobalAddress):
        xg, yg = asc.GlobalTensor(), asc.GlobalTensor()
        xg.set_global_buffer(x)
        yg.set_global_buffer(y)
        ub = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 0, 64)
        b = asc.get_block_idx()
        asc.data_copy(ub, xg[b * 64], count=64)
        asc.set_flag(asc.HardEvent.MTE2_MTE3, 0)
        asc.wait_flag(asc.HardEvent.MTE2_MTE3, 0)
        asc.data_copy(xg[b * 64], ub, count=64)
        nb = (b + 1) % asc.get_block_num()
        asc.data_copy(ub, xg[nb * 64], count=64)
        asc.set_flag(asc.HardEvent.MTE2_MTE3, 0)
        asc.wait_flag(asc.HardEvent.MTE2_MTE3, 0)
        asc.data_copy(yg[b * 64], ub, count=64)

    x = np.ones(4 * 64, np.float32)
    y = np.zeros_like(x)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", KernelWarning)
        report = unordered[4, rt.current_stream()](x, y, check="warn")
    assert any(d.kind == "RACE" for d in report.diagnostics)


@asc.jit(kernel_type=config.KernelType.MIX_AIC_1_2)
def mixed_sync_all_kernel(x: asc.GlobalAddress, y: asc.GlobalAddress):
    """The hardware sync_all of a mixed kernel (is_aiv_only=False): every vector core writes its
    row, all cores meet, then each reads its neighbour's row."""
    if asc.ascend_is_aiv():
        xg, yg = asc.GlobalTensor(), asc.GlobalTensor()
        xg.set_global_buffer(x)
        yg.set_global_buffer(y)
        ub = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 0, 64)
        b = asc.get_block_idx()
        asc.data_copy(ub, yg[b * 64], count=64)
        asc.set_flag(asc.HardEvent.MTE2_MTE3, 0)
        asc.wait_flag(asc.HardEvent.MTE2_MTE3, 0)
        asc.data_copy(xg[b * 64], ub, count=64)
    asc.sync_all(is_aiv_only=False)
    if asc.ascend_is_aiv():
        xg2, yg2 = asc.GlobalTensor(), asc.GlobalTensor()
        xg2.set_global_buffer(x)
        yg2.set_global_buffer(y)
        ub2 = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 0, 64)
        b2 = asc.get_block_idx()
        nb = (b2 + 1) % (asc.get_block_num() * asc.get_task_ratio())
        asc.data_copy(ub2, xg2[nb * 64], count=64)
        asc.set_flag(asc.HardEvent.MTE2_MTE3, 0)
        asc.wait_flag(asc.HardEvent.MTE2_MTE3, 0)
        asc.data_copy(yg2[b2 * 64], ub2, count=64)


def test_the_hardware_sync_all_of_a_mixed_kernel_meets_every_core(device):
    groups = 3
    vec = groups * 2
    y = np.arange(vec * 64, dtype=np.float32)
    x = np.zeros_like(y)
    want = np.roll(y.reshape(vec, 64), -1, axis=0).copy()
    report = mixed_sync_all_kernel[groups, rt.current_stream()](x, y)
    np.testing.assert_array_equal(y.reshape(vec, 64), want)
    assert report.status == "OK"


def test_a_hardware_sync_all_across_waves_is_a_deadlock_naming_the_waves(device):
    from asc.lib.runtime.support import DeviceInfoType, DeviceModuleType
    cores = rt.device_info(DeviceModuleType.RT_MODULE_TYPE_VECTOR_CORE,
                           DeviceInfoType.INFO_TYPE_CORE_NUM)
    blocks = cores + 2
    x = np.arange(blocks * 64, dtype=np.float32)
    y = np.zeros_like(x)
    ws = np.zeros(blocks * 8, np.int32)
    # Written to run in waves: the launcher warns before it, the simulator finds the deadlock.
    from asc.runtime.errors import KernelWarning
    with pytest.raises(DeadlockError) as info, \
            pytest.warns(KernelWarning, match=f"in 2 waves \\({cores} \\+ 2\\)"):
        rotate_kernel[blocks, rt.current_stream()](x, y, ws, False)
    text = str(info.value)
    assert f"{blocks} blocks on {cores} vector cores in 2 waves" in text, text


@pytest.mark.parametrize("tasks", [1, 2, 5])
def test_the_attention_protocol_runs_softmax_between_two_cube_steps(device, tasks):
    from mixed_kernels import KV, ROWS, attention_protocol_kernel
    d = 64
    scale = 0.125
    rng = np.random.default_rng(tasks)
    q = rng.uniform(-1, 1, (ROWS, d)).astype(np.float16)
    k = rng.uniform(-1, 1, (tasks * KV, d)).astype(np.float16)
    v = rng.uniform(-1, 1, (tasks * KV, d)).astype(np.float16)
    vt = np.ascontiguousarray(v.reshape(tasks, KV, d).transpose(0, 2, 1))
    s_ws = np.zeros(2 * ROWS * KV, np.float16)
    p_ws = np.zeros(2 * ROWS * KV, np.float16)
    o_ws = np.zeros(2 * ROWS * d, np.float32)
    out = np.zeros((ROWS, d), np.float32)
    report = attention_protocol_kernel[1, rt.current_stream()](q, k, vt, s_ws, p_ws, o_ws, out,
                                                               tasks, d, scale)
    want = np.zeros((ROWS, d), np.float64)
    for t in range(tasks):
        kt, vt_ = k[t * KV:(t + 1) * KV], v[t * KV:(t + 1) * KV]
        s = (q.astype(np.float32) @ kt.astype(np.float32).T).astype(np.float16)
        s = s.astype(np.float64) * scale
        p = np.exp(s - s.max(axis=1, keepdims=True))
        p = (p / p.sum(axis=1, keepdims=True)).astype(np.float16)
        want += p.astype(np.float64) @ vt_.astype(np.float64)
    np.testing.assert_allclose(out, want, rtol=1e-2, atol=1e-2)
    assert report.status == "OK"


@asc.jit(kernel_type=config.KernelType.AIV_ONLY)
def chain_kernel(x: asc.GlobalAddress, ws: asc.GlobalAddress):
    """Block b (> 0) waits for block b - 1's mark, adds its index to the running row and marks
    itself done: the row ends as 0 + 1 + ... only when ib_set/ib_wait order the blocks."""
    xg, wg = asc.GlobalTensor(), asc.GlobalTensor()
    xg.set_global_buffer(x)
    wg.set_global_buffer(ws)
    ub = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 0, 64)
    work = asc.LocalTensor(asc.int32, asc.TPosition.VECCALC, 1024, 8)
    b = asc.get_block_idx()
    if b > 0:
        asc.ib_wait(wg, work, b - 1, 0)
    asc.data_copy(ub, xg, count=64)
    asc.adds(ub, ub, b * 1.0, count=64)
    asc.data_copy(xg, ub, count=64)
    asc.ib_set(wg, work, b, 0)


def test_ib_set_and_ib_wait_chain_the_blocks_in_order(device):
    blocks = 5
    x = np.zeros(64, np.float32)
    ws = np.zeros(blocks * 8, np.int32)
    report = chain_kernel[blocks, rt.current_stream()](x, ws)
    np.testing.assert_array_equal(x, np.full(64, sum(range(blocks)), np.float32))
    assert report.status == "OK"
    # Every mark but the last block's was consumed by its successor's ib_wait.
    assert ws.reshape(blocks, 8)[:, 0].tolist() == [0] * (blocks - 1) + [1]


@asc.jit(kernel_type=config.KernelType.AIV_ONLY)
def ordered_append_kernel(x: asc.GlobalAddress, ws: asc.GlobalAddress, rounds: int):
    """Each round, the blocks in block order scale the shared row by 2 and add their index: the
    result depends on the order, so it is right only when wait_pre_block / notify_next_block
    run the blocks 0, 1, 2 ... one after another."""
    xg, wg = asc.GlobalTensor(), asc.GlobalTensor()
    xg.set_global_buffer(x)
    wg.set_global_buffer(ws)
    ub = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 0, 64)
    work = asc.LocalTensor(asc.int32, asc.TPosition.VECCALC, 1024, 8 * 16 + 8)
    b = asc.get_block_idx()
    asc.init_determine_compute_workspace(wg, work)
    for _ in range(rounds):
        asc.wait_pre_block(wg, work)
        asc.data_copy(ub, xg, count=64)
        asc.muls(ub, ub, 2.0, count=64)
        asc.adds(ub, ub, b * 1.0, count=64)
        asc.data_copy(xg, ub, count=64)
        asc.notify_next_block(wg, work)


def test_wait_pre_block_and_notify_next_block_run_the_blocks_in_order(device):
    blocks, rounds = 4, 3
    x = np.zeros(64, np.float32)
    ws = np.zeros(blocks * 8, np.int32)
    report = ordered_append_kernel[blocks, rt.current_stream()](x, ws, rounds)
    want = 0.0
    for _ in range(rounds):
        for b in range(blocks):
            want = want * 2 + b
    np.testing.assert_array_equal(x, np.full(64, want, np.float32))
    assert report.status == "OK"


@asc.jit(kernel_type=config.KernelType.AIV_ONLY)
def scalar_flag_kernel(x: asc.GlobalAddress, ws: asc.GlobalAddress):
    """Block 0 writes its row, then raises a GM word with set_value; block 1 polls the word
    (ib_wait's GM wait) before it reads the row. The scalar store must wake the poll."""
    xg, wg = asc.GlobalTensor(), asc.GlobalTensor()
    xg.set_global_buffer(x)
    wg.set_global_buffer(ws)
    ub = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 0, 64)
    work = asc.LocalTensor(asc.int32, asc.TPosition.VECCALC, 1024, 8)
    if asc.get_block_idx() == 0:
        asc.duplicate(ub, 7.0, count=64)
        asc.data_copy(xg, ub, count=64)
        asc.pipe_barrier(asc.PipeID.PIPE_ALL)
        wg.set_value(0, 1)
    else:
        asc.ib_wait(wg, work, 0, 0)
        asc.data_copy(ub, xg, count=64)
        asc.data_copy(xg[64], ub, count=64)


def test_a_scalar_store_into_gm_wakes_a_gm_wait(device):
    x = np.zeros(128, np.float32)
    ws = np.zeros(2 * 8, np.int32)
    report = scalar_flag_kernel[2, rt.current_stream()](x, ws)
    np.testing.assert_array_equal(x, np.full(128, 7.0, np.float32))
    assert report.status == "OK" and ws[0] == 0
