"""Cube kernels run on the cube cores and match numpy: the raw-instruction linear layer of
asc-api.md 10.6 (static L1/L0 tensors, PIPE_ALL barriers) and a matmul through TPipe/TQue cube
positions with tails in M, N and K, for float16 and float32 inputs, bit for bit against the
model's documented accumulation order (docs/cube.md) and close to float64; and every quantising
fixpipe mode against a numpy statement of ascendc-semantics.md 4.4's golden arithmetic."""
import numpy as np
import pytest

import asc
import asc.lib.runtime as rt
import asc.runtime.config as config

from cube_kernels import linear_cube_kernel, matmul_queue_kernel, quant_matmul_kernel


def chunked_matmul(a, bt, k_slice, c0):
    """A x B^T as the model's cube sums it: per K slice (one Mmad each), C0-wide chunks of exact
    products summed in float64 in increasing k, each chunk added to C with one rounding to
    float32."""
    a64, b64 = a.astype(np.float64), bt.astype(np.float64)
    m, k = a.shape
    acc = np.zeros((m, bt.shape[0]), np.float32)
    for k0 in range(0, k, k_slice):
        end = min(k, k0 + k_slice)
        for q in range(k0, end, c0):
            chunk = np.zeros(acc.shape, np.float64)
            for kk in range(q, min(end, q + c0)):
                chunk += np.outer(a64[:, kk], b64[:, kk])
            acc = (acc.astype(np.float64) + chunk).astype(np.float32)
    return acc


def nz_weight(w):
    """W (N x K) as 10.6 stores it: K panels of 16, element (j, c) at ((c//16)*N + j)*16 + c%16."""
    n, k = w.shape
    return np.ascontiguousarray(w.reshape(n, k // 16, 16).transpose(1, 0, 2))


def inputs(m, n, k, dtype, seed):
    rng = np.random.default_rng(seed)
    return (rng.uniform(-1, 1, (m, k)).astype(dtype), rng.uniform(-1, 1, (n, k)).astype(dtype))


@pytest.mark.parametrize("m,n,k,tiles,cores,out", [
    (128, 128, 512, (64, 64, 256), 4, np.float16),
    (64, 128, 256, (64, 64, 128), 1, np.float32),
    (192, 64, 128, (64, 64, 64), 2, np.float16),
])
def test_linear_layer_of_raw_cube_instructions(device, m, n, k, tiles, cores, out):
    a, w = inputs(m, n, k, np.float16, seed=m + n + k)
    c = np.zeros((m, n), out)
    quant = asc.QuantModes.F322F16 if out == np.float16 else asc.QuantModes.NoQuant
    report = linear_cube_kernel[cores, rt.current_stream()](a, nz_weight(w), c, m, n, k, *tiles,
                                                          quant)
    assert report.status == "OK" and report.block_dim == cores
    want = chunked_matmul(a, w, tiles[2], 16).astype(out)
    assert np.array_equal(c.view(np.uint8), want.view(np.uint8)), \
        f"{np.count_nonzero(c != want)} of {c.size} elements differ"
    exact = a.astype(np.float64) @ w.astype(np.float64).T
    assert np.allclose(c, exact, rtol=2e-3, atol=2e-3)
    assert report.cycles > 0


@pytest.mark.parametrize("m,n,k,tiles,cores,dtype", [
    (100, 70, 90, (64, 64, 64), 1, np.float16),   # tails in M, N and K
    (100, 70, 90, (64, 64, 64), 3, np.float16),   # the tiles over three cube cores
    (17, 40, 200, (32, 48, 96), 2, np.float16),
    (37, 21, 50, (32, 32, 32), 2, np.float32),    # float inputs: fractals of 16 x 8
    (16, 16, 8, (16, 16, 16), 1, np.float32),     # one partial fractal of K
])
def test_matmul_through_cube_queues_with_tails(device, m, n, k, tiles, cores, dtype):
    a, bt = inputs(m, n, k, dtype, seed=k)
    half = dtype == np.float16
    c = np.full((m, n), -3, dtype)
    report = matmul_queue_kernel[cores, rt.current_stream()](
        a, bt, c, m, n, k, *tiles, asc.float16 if half else asc.float32,
        asc.QuantModes.F322F16 if half else asc.QuantModes.NoQuant)
    assert report.status == "OK"
    want = chunked_matmul(a, bt, tiles[2], 16 if half else 8).astype(dtype)
    assert np.array_equal(c.view(np.uint8), want.view(np.uint8)), \
        f"{np.count_nonzero(c != want)} of {c.size} elements differ"
    exact = a.astype(np.float64) @ bt.astype(np.float64).T
    assert np.allclose(c, exact, rtol=2e-3 if half else 1e-5, atol=2e-3 if half else 1e-5)


def test_cube_kernels_report_cube_cores_and_their_pipes(device, monkeypatch):
    m, n, k = 128, 128, 512
    a, w = inputs(m, n, k, np.float16, seed=1)
    c = np.zeros((m, n), np.float16)
    report = linear_cube_kernel[2, rt.current_stream()](a, nz_weight(w), c, m, n, k, 64, 64, 256,
                                                      asc.QuantModes.F322F16)
    assert [core.core_type for core in report.cores] == ["aic", "aic"]
    pipes = report.cores[0].pipes
    for name in ("MTE2", "MTE1", "M", "FIX"):
        assert pipes[name].busy_cycles > 0, name
    assert "V" not in pipes, "a cube core has no vector pipe"
    assert report.bound_pipe in pipes


@asc.jit(matmul_cube_only=True)
def cube_registers_kernel(x: asc.GlobalAddress):
    asc.set_hf32_mode(True)
    asc.set_hf32_trans_mode(False)
    asc.set_mm_layout_transform(1)
    asc.set_fix_pipe_pre_quant_flag(0x3F800000)


@asc.jit
def vector_hf32_kernel(x: asc.GlobalAddress):
    asc.set_hf32_mode(True)


def test_cube_control_registers_are_the_cube_cores(device):
    x = np.zeros(8, np.float32)
    assert cube_registers_kernel[1, rt.current_stream()](x).status == "OK"
    from asc.runtime.errors import KernelFaultError
    with pytest.raises(KernelFaultError, match=r"set_hf32_mode sets a cube core's register, and "
                                               r"a vector core has none"):
        vector_hf32_kernel[1, rt.current_stream()](x)


# ---- Quantising fixpipes (ascendc-semantics.md 4.4) -------------------------------------------

def quant_word(m1, shift=0, mcb=False, offset=0, to_int8=True):
    """The 64-bit quant word of 4.4 from its fields."""
    bits = int(np.array(m1, np.float32).view(np.uint32))
    return bits | shift << 32 | int(mcb) << 36 | offset << 37 | int(to_int8) << 46


def quantised(c, words, relu, out):
    """4.4's golden arithmetic in float64, per column's word: (MCB, integer C) shift right and
    saturate to int16; times M1 (0 for a negative x with ReLU); then half with saturation, or
    round half to even, clamp to [-256, 255], add the offset and clamp to int8 / uint8."""
    w = np.asarray(words, np.uint64)
    m1 = (w & np.uint64(0xffffe000)).astype(np.uint32).view(np.float32).astype(np.float64)
    shift = ((w >> np.uint64(32)) & np.uint64(15)).astype(np.float64)
    mcb = ((w >> np.uint64(36)) & np.uint64(1)).astype(bool)
    offset = ((w >> np.uint64(37)) & np.uint64(511)).astype(np.float64)
    to_int8 = ((w >> np.uint64(46)) & np.uint64(1)).astype(bool)
    x = c.astype(np.float64)
    if np.issubdtype(c.dtype, np.integer):
        x = np.where(mcb, np.clip(np.floor(x / 2.0 ** shift), -32768, 32767), x)
    p = np.where(relu & (x < 0), 0.0, x * m1)
    if out == np.float16:
        return np.clip(p, -65504, 65504).astype(np.float16)
    r = np.clip(np.rint(p), -256, 255) + offset
    return np.where(to_int8, np.clip(r, -128, 127), np.clip(r, 0, 255)).astype(out)


def quant_inputs(m, n, k, dtype, seed):
    rng = np.random.default_rng(seed)
    if dtype == np.int8:
        return (rng.integers(-128, 128, (m, k)).astype(np.int8),
                rng.integers(-128, 128, (n, k)).astype(np.int8))
    return inputs(m, n, k, dtype, seed)


def product(a, bt):
    if a.dtype == np.int8:  # int32 in L0C, exact
        return a.astype(np.int64) @ bt.astype(np.int64).T
    return chunked_matmul(a, bt, a.shape[1], 16)


Q = asc.QuantModes
# (mode, input type, output type, scalar word or a function of the column, relu)
QUANT_CASES = [
    (Q.DEQF16, np.int8, np.float16, quant_word(1 / 3), False),
    (Q.DEQF16, np.int8, np.float16, quant_word(0.5, shift=3, mcb=True), True),
    (Q.VDEQF16, np.int8, np.float16, lambda j: quant_word(0.125 * (j + 1), 2, True), False),
    (Q.REQ8, np.int8, np.int8, quant_word(1 / 64, shift=4, mcb=True, offset=3), False),
    (Q.REQ8, np.int8, np.uint8, quant_word(1 / 128, offset=128, to_int8=False), True),
    (Q.VREQ8, np.int8, np.uint8,
     lambda j: quant_word(1 / (256 + 32 * j), offset=128, to_int8=False), False),
    (Q.QF322B8_PRE, np.float16, np.int8, quant_word(8.0), False),
    (Q.QF322B8_PRE, np.float16, np.uint8, quant_word(8.0, offset=100, to_int8=False), True),
    (Q.VQF322B8_PRE, np.float16, np.int8, lambda j: quant_word(2.0 + j / 4), False),
]


def run_quant(mode, dtype, out, word, relu, m=20, n=48, k=64, form="fixpipe"):
    a, bt = quant_inputs(m, n, k, dtype, seed=n + k)
    words = np.array([word(j) if callable(word) else word for j in range((n + 15) // 16 * 16)],
                     np.uint64)
    c = np.zeros((m, n), out)
    scalar = np.uint64(0 if callable(word) else word)
    report = quant_matmul_kernel[1, rt.current_stream()](a, bt, c, words, scalar, m, n, k,
                                                       asc.int8 if dtype == np.int8 else
                                                       asc.float16, mode, relu, form)
    assert report.status == "OK"
    c_l0 = product(a, bt)
    want = c_l0.astype(out) if mode == Q.F322F16 else quantised(c_l0, words[:n], relu, out)
    assert np.array_equal(c.view(np.uint8), want.view(np.uint8)), \
        f"{np.count_nonzero(c != want)} of {c.size} elements differ"
    return c, report


@pytest.mark.parametrize("mode,dtype,out,word,relu", QUANT_CASES,
                         ids=[f"{c[0].name}-{np.dtype(c[2]).name}-{'relu' if c[4] else 'plain'}"
                              for c in QUANT_CASES])
def test_every_quant_mode_matches_the_golden_arithmetic(device, mode, dtype, out, word, relu):
    c, _ = run_quant(mode, dtype, out, word, relu)
    assert len(np.unique(c)) > 10, "the outputs should spread over the type's range"


def test_a_vector_mode_wider_than_the_fixpipe_buffer_runs_in_chunks(device):
    # n = 320 > 256 words: the library's 128-column chunks (two of 128, a tail of 64).
    _, report = run_quant(Q.VREQ8, np.int8, np.int8, lambda j: quant_word(1 / (64 + j)), False,
                          m=16, n=320, k=32)
    # three chunks on PIPE_FIX, each its barrier and its fixpipe
    assert report.cores[0].pipes["FIX"].instructions == 6


def test_data_copy_co12_is_the_fixpipe_with_quant_pre(device):
    run_quant(Q.REQ8, np.int8, np.int8, quant_word(1 / 64, shift=4, mcb=True, offset=3), True,
              form="data_copy")
    run_quant(Q.F322F16, np.float16, np.float16, 0, False, form="data_copy")


@asc.jit
def load_ones_and_b(b_gm, l0a, l0b, m: asc.ConstExpr[int], n: asc.ConstExpr[int],
                    k: asc.ConstExpr[int]):
    """L0A = ones (m x k) by init_const_value; L0B = B (k x n, row-major fp16 in GM), through L1
    as NZ (n-blocks of k rows), each K panel's fractals transposed by load_data_with_transpose."""
    l1 = asc.LocalTensor(asc.float16, asc.TPosition.B1, 0, k * n)
    asc.init_const_value(l0a, asc.InitConstValueParams(repeat_times=1,
                                                       block_num=m * k * 2 // 512,
                                                       dst_gap=0, init_value=1.0))
    asc.data_copy(l1, b_gm, asc.Nd2NzParams(1, k, n, 0, n, k, 1, 0))
    asc.pipe_barrier(asc.PipeID.PIPE_ALL)
    for p in asc.static_range(k // 16):
        asc.load_data_with_transpose(l0b[p * n * 16:], l1[p * 256:],
                                     asc.LoadData2dTransposeParams(0, n // 16, k // 16, 0, 0, 0))
    asc.pipe_barrier(asc.PipeID.PIPE_ALL)


@asc.jit(matmul_cube_only=True)
def ones_times_b_kernel(b: asc.GlobalAddress, c: asc.GlobalAddress, m: asc.ConstExpr[int],
                        n: asc.ConstExpr[int], k: asc.ConstExpr[int]):
    """C (m x n, float32) = ones (m x k) x B (k x n, row-major fp16): L0A filled by
    init_const_value, B's K panels transposed into L0B by load_data_with_transpose."""
    b_gm, c_gm = asc.GlobalTensor(), asc.GlobalTensor()
    b_gm.set_global_buffer(b)
    c_gm.set_global_buffer(c)
    l0a = asc.LocalTensor(asc.float16, asc.TPosition.A2, 0, m * k)
    l0b = asc.LocalTensor(asc.float16, asc.TPosition.B2, 0, k * n)
    l0c = asc.LocalTensor(asc.float32, asc.TPosition.CO1, 0, m * n)
    load_ones_and_b(b_gm, l0a, l0b, m, n, k)
    asc.mmad(l0c, l0a, l0b, asc.MmadParams(m=m, n=n, k=k, unit_flag=0, cmatrix_source=False,
                                           cmatrix_init_val=True))
    asc.pipe_barrier(asc.PipeID.PIPE_ALL)
    asc.fixpipe(c_gm, l0c, asc.FixpipeParamsV220(n_size=n, m_size=m, src_stride=m, dst_stride=n))


def test_init_const_value_and_transposing_loads(device):
    m, n, k = 32, 48, 64
    rng = np.random.default_rng(5)
    b = rng.uniform(-1, 1, (k, n)).astype(np.float16)
    c = np.zeros((m, n), np.float32)
    report = ones_times_b_kernel[1, rt.current_stream()](b, c, m, n, k)
    assert report.status == "OK"
    want = chunked_matmul(np.ones((m, k), np.float16), np.ascontiguousarray(b.T), k, 16)
    assert np.array_equal(c, want)
    mte1 = report.cores[0].pipes["MTE1"]
    assert mte1.instructions >= 1 + k // 16  # the fill and the transposing loads


def test_cube_cores_trace_in_msprofs_layout(device, monkeypatch, tmp_path):
    import json
    monkeypatch.setenv("AICORE_SIM_TRACE", str(tmp_path))
    m, n, k = 128, 128, 256
    a, w = inputs(m, n, k, np.float16, seed=2)
    c = np.zeros((m, n), np.float16)
    linear_cube_kernel[2, rt.current_stream()](a, nz_weight(w), c, m, n, k, 64, 64, 128,
                                               asc.QuantModes.F322F16)
    (launch_dir,) = list(tmp_path.iterdir())
    cores = sorted(p.name for p in (launch_dir / "simulator").iterdir() if p.is_dir())
    assert cores == ["core0.cubecore0", "core1.cubecore0"]
    trace = json.loads((launch_dir / "simulator" / "core0.cubecore0" / "trace.json").read_text())
    lanes = {e["args"]["name"] for e in trace["traceEvents"]
             if e.get("ph") == "M" and e.get("name") == "process_name"}
    assert {"MTE1", "CUBE", "FIXP", "MTE2"} <= lanes
    ops = {e["name"] for e in trace["traceEvents"] if e.get("ph") == "X"}
    assert {"mmad", "fixpipe", "load_data_2d", "data_copy_nd2nz"} <= ops, ops


@asc.jit(matmul_cube_only=True)
def unit_flag_tiles_kernel(b: asc.GlobalAddress, c: asc.GlobalAddress, m: asc.ConstExpr[int],
                           n: asc.ConstExpr[int], k: asc.ConstExpr[int],
                           last_unit: asc.ConstExpr[int]):
    """Two tiles of C (m x n, float32) = ones (m x k) x B (k x n): per tile two Mmads over the K
    halves (unit_flag 2, then `last_unit`) and a fixpipe with unit_flag 3, with no M_FIX or FIX_M
    flag and no barrier between them: the L0C ready bits hand each tile over (3.5), and tile 1's
    Mmads wait for tile 0's fixpipe to have read L0C."""
    b_gm, c_gm = asc.GlobalTensor(), asc.GlobalTensor()
    b_gm.set_global_buffer(b)
    c_gm.set_global_buffer(c)
    l0a = asc.LocalTensor(asc.float16, asc.TPosition.A2, 0, m * k)
    l0b = asc.LocalTensor(asc.float16, asc.TPosition.B2, 0, k * n)
    l0c = asc.LocalTensor(asc.float32, asc.TPosition.CO1, 0, m * n)
    load_ones_and_b(b_gm, l0a, l0b, m, n, k)
    half = k // 2
    for tile in asc.static_range(2):
        asc.mmad(l0c, l0a, l0b, asc.MmadParams(m=m, n=n, k=half, unit_flag=2,
                                               cmatrix_source=False, cmatrix_init_val=True))
        asc.pipe_barrier(asc.PipeID.PIPE_M)  # 6 fractals of C: the cube does not interlock
        asc.mmad(l0c, l0a, l0b[half * n:], asc.MmadParams(m=m, n=n, k=half, unit_flag=last_unit,
                                                          cmatrix_source=False,
                                                          cmatrix_init_val=False))
        asc.fixpipe(c_gm[tile * m * n:], l0c,
                    asc.FixpipeParamsV220(n_size=n, m_size=m, src_stride=m, dst_stride=n,
                                          unit_flag=3))


def test_unit_flags_hand_l0c_between_mmad_and_fixpipe(device):
    m, n, k = 32, 48, 64
    rng = np.random.default_rng(6)
    b = rng.uniform(-1, 1, (k, n)).astype(np.float16)
    c = np.zeros((2, m, n), np.float32)
    report = unit_flag_tiles_kernel[1, rt.current_stream()](b, c, m, n, k, 3)
    assert report.status == "OK"
    want = chunked_matmul(np.ones((m, k), np.float16), np.ascontiguousarray(b.T), k // 2, 16)
    assert np.array_equal(c[0], want) and np.array_equal(c[1], want)


def test_a_fixpipe_waiting_for_bits_no_mmad_sets_is_a_deadlock(device):
    from asc.runtime.errors import DeadlockError
    m, n, k = 32, 48, 64
    b = np.ones((k, n), np.float16)
    c = np.zeros((2, m, n), np.float32)
    with pytest.raises(DeadlockError) as info:
        # The last Mmad keeps the bits at 0 (unit_flag 2): the fixpipe waits for them forever.
        unit_flag_tiles_kernel[1, rt.current_stream()](b, c, m, n, k, 2, check="warn")
    text = str(info.value)
    assert "ready bit of L0C[0, 512) to be 1" in text, text
    assert "fixpipe" in text and "test_cube.py" in text, text


@asc.jit(matmul_cube_only=True)
def aic_identity_kernel(y: asc.GlobalAddress):
    g = asc.GlobalTensor()
    g.set_global_buffer(y)
    base = asc.get_block_idx() * 3
    g.set_value(base, asc.get_task_ratio())
    g.set_value(base + 1, asc.get_block_num())
    g.set_value(base + 2, asc.get_sub_block_idx())


@asc.jit
def aiv_task_ratio_kernel(y: asc.GlobalAddress):
    g = asc.GlobalTensor()
    g.set_global_buffer(y)
    g.set_value(asc.get_block_idx(), asc.get_task_ratio())


def test_task_ratio_and_identity_of_single_type_kernels(device):
    # asc-api.md 10.1: the ratio reads 1 on every core of AIC_ONLY and AIV_ONLY kernels.
    y = np.full(3 * 4, -1, np.int64)
    assert aic_identity_kernel[4, rt.current_stream()](y).status == "OK"
    assert y.reshape(4, 3).tolist() == [[1, 4, 0]] * 4
    z = np.full(3, -1, np.int64)
    assert aiv_task_ratio_kernel[3, rt.current_stream()](z).status == "OK"
    assert z.tolist() == [1, 1, 1]


@asc.jit(matmul_cube_only=True, kernel_type=config.KernelType.MIX_AIC_1_2)
def mix_identity_kernel(y: asc.GlobalAddress):
    g = asc.GlobalTensor()
    g.set_global_buffer(y)
    if asc.ascend_is_aic():
        base = asc.get_block_idx() * 3
    else:
        base = (asc.get_block_num() + asc.get_block_idx()) * 3
    g.set_value(base, asc.get_block_idx())
    g.set_value(base + 1, asc.get_task_ratio())
    g.set_value(base + 2, asc.get_block_idx() // asc.get_task_ratio())


def test_a_mixed_launch_runs_each_groups_cube_core_and_both_vector_cores(device):
    # asc-api.md 10.1: on the cube core block_idx is the group, on a vector core 2 * group + sub;
    # block_idx // task_ratio is the group on all three.
    y = np.full(3 * (2 + 4), -1, np.int64)
    report = mix_identity_kernel[2, rt.current_stream()](y)
    assert report.status == "OK"
    assert sorted(c.core_type for c in report.cores) == ["aic"] * 2 + ["aiv"] * 4
    rows = y.reshape(6, 3).tolist()
    assert rows[:2] == [[0, 1, 0], [1, 1, 1]]
    assert rows[2:] == [[v, 2, v // 2] for v in range(4)]


# Written to exhibit a fault: the cube core hands a tile to its vector cores through GM with
# nothing ordering them (cross-core flags are not in the IR yet), which the GM checker reports.
@asc.jit(matmul_cube_only=True, kernel_type=config.KernelType.MIX_AIC_1_2)
def unordered_handoff_kernel(ws: asc.GlobalAddress, out: asc.GlobalAddress):
    w, o = asc.GlobalTensor(), asc.GlobalTensor()
    w.set_global_buffer(ws)
    o.set_global_buffer(out)
    if asc.ascend_is_aic():
        l0a = asc.LocalTensor(asc.float16, asc.TPosition.A2, 0, 256)
        l0b = asc.LocalTensor(asc.float16, asc.TPosition.B2, 0, 256)
        l0c = asc.LocalTensor(asc.float32, asc.TPosition.CO1, 0, 256)
        asc.init_const_value(l0a, asc.InitConstValueParams(1, 1, 0, 1.0))
        asc.init_const_value(l0b, asc.InitConstValueParams(1, 1, 0, 2.0))
        asc.pipe_barrier(asc.PipeID.PIPE_ALL)
        asc.mmad(l0c, l0a, l0b, asc.MmadParams(16, 16, 16, unit_flag=0, cmatrix_source=False,
                                               cmatrix_init_val=True))
        asc.pipe_barrier(asc.PipeID.PIPE_ALL)
        asc.fixpipe(w, l0c, asc.FixpipeParamsV220(n_size=16, m_size=16, src_stride=16,
                                                  dst_stride=16))
    else:
        ub = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 0, 256)
        asc.data_copy(ub, w, 256)
        asc.set_flag(asc.HardEvent.MTE2_MTE3, 0)
        asc.wait_flag(asc.HardEvent.MTE2_MTE3, 0)
        asc.data_copy(o[asc.get_sub_block_idx() * 256:], ub, 256)


def test_an_unordered_cube_to_vector_handoff_is_a_race_across_cores(device):
    import warnings
    from asc.runtime.errors import KernelWarning
    ws, out = np.zeros(256, np.float32), np.zeros(512, np.float32)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", KernelWarning)
        report = unordered_handoff_kernel[1, rt.current_stream()](ws, out, check="warn")
    races = [d for d in report.diagnostics if d.kind == "RACE"]
    assert races, report.check.summary
    text = races[0].message
    assert "across cores" in text and "fixpipe" in text and "data_copy" in text
    assert "PIPE_FIX" in text and "PIPE_MTE2" in text
