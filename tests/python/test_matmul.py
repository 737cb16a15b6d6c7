"""asc.adv.Matmul on the cube core (asc-api.md 6.1-6.3, 10.5): iterate_all and the iterate()
loop against numpy for half and float inputs, every layout, tails, bias, atomic accumulation,
half C, a constant tiling from the config; the setters' runtime semantics; its errors."""
import numpy as np
import pytest

import asc
import asc.lib.runtime as rt
from asc.codegen.errors import CodegenError
from asc.runtime.errors import KernelFaultError

from matmul_kernels import (matmul_cube_only_kernel, matmul_iterate_kernel, matmul_mdl_kernel,
                            matmul_static_kernel)

WORKSPACE = 16 * 1024 * 1024


def _tiling(m, n, k, single=(64, 64), base=(32, 32, 32), bias=True, order=0):
    sm, sn = single
    bm, bn, bk = base
    used = -(-m // sm) * -(-n // sn)
    return asc.adv.TCubeTiling(used_core_num=used, m=m, n=n, k_a=k, k_b=k, single_core_m=sm,
                               single_core_n=sn, single_core_k=k, base_m=bm, base_n=bn,
                               base_k=bk, depth_a1=2, depth_b1=2, step_m=1, step_n=1,
                               is_bias=int(bias), iterate_order=order)


def _operands(m, n, k, dtype, seed, integers=True):
    rng = np.random.default_rng(seed)
    draw = ((lambda shape: rng.integers(-5, 5, shape)) if integers
            else (lambda shape: rng.uniform(-5, 5, shape)))
    a = draw((m, k)).astype(dtype)
    b = draw((k, n)).astype(dtype)
    bias = draw((1, n)).astype(np.float32)
    return a, b, bias


def _run_cube_only(m, n, k, dtype, trans_a=False, trans_b=False, bias=True, en_atomic=0,
                   c_init=None, integers=True, **tiling_args):
    a, b, bias_row = _operands(m, n, k, dtype, m * 7 + n * 3 + k, integers)
    tiling = _tiling(m, n, k, bias=bias, **tiling_args)
    c = np.zeros((m, n), np.float32) if c_init is None else c_init.copy()
    ws = np.zeros(WORKSPACE, np.uint8)
    report = matmul_cube_only_kernel[tiling.used_core_num, rt.current_stream()](
        np.ascontiguousarray(a.T) if trans_a else a, np.ascontiguousarray(b.T) if trans_b else b,
        c, bias_row, tiling, ws, trans_a, trans_b, en_atomic)
    want = a.astype(np.float32) @ b.astype(np.float32)
    if bias:
        want = want + bias_row
    return c, want, report


SHAPES = [(64, 64, 64), (128, 128, 64), (77, 45, 33), (130, 200, 300), (16, 16, 16)]


@pytest.mark.parametrize("m,n,k", SHAPES)
@pytest.mark.parametrize("dtype", [np.float16, np.float32])
def test_iterate_all_matches_numpy_with_tails_and_bias(device, m, n, k, dtype):
    c, want, report = _run_cube_only(m, n, k, dtype)
    np.testing.assert_allclose(c, want, atol=1e-3, rtol=0)
    assert report.status == "OK"


@pytest.mark.parametrize("trans_a,trans_b", [(True, False), (False, True), (True, True)])
@pytest.mark.parametrize("dtype", [np.float16, np.float32])
def test_transposed_operands_read_their_stored_layout(device, trans_a, trans_b, dtype):
    c, want, _ = _run_cube_only(77, 45, 33, dtype, trans_a, trans_b)
    np.testing.assert_allclose(c, want, atol=1e-3, rtol=0)


def test_float_inputs_multiply_in_float_within_the_tests_tolerance(device):
    c, want, _ = _run_cube_only(96, 80, 200, np.float32, integers=False)
    np.testing.assert_allclose(c, want, atol=1e-3, rtol=1e-5)


def test_the_tiling_without_bias_leaves_it_out(device):
    c, want, _ = _run_cube_only(64, 64, 64, np.float16, bias=False)
    np.testing.assert_allclose(c, want, atol=1e-3, rtol=0)


def test_atomic_add_accumulates_into_c(device):
    start = np.full((64, 96), 2.5, np.float32)
    c, want, _ = _run_cube_only(64, 96, 64, np.float16, en_atomic=1, c_init=start)
    np.testing.assert_allclose(c, want + 2.5, atol=1e-3, rtol=0)


def test_n_first_order_and_single_block_cores(device):
    c, want, _ = _run_cube_only(100, 70, 48, np.float16, order=1, single=(128, 128),
                                base=(48, 32, 16))
    np.testing.assert_allclose(c, want, atol=1e-3, rtol=0)


def _run_iterate(m, n, k, sequential):
    a, b, _ = _operands(m, n, k, np.float16, 11)
    tiling = _tiling(m, n, k, single=(m, n), bias=False)
    c = np.zeros((m, n), np.float32)
    blocks = np.zeros(-(-m // 32) * -(-n // 32) * 32 * 32, np.float32)
    ws = np.zeros(WORKSPACE, np.uint8)
    matmul_iterate_kernel[1, rt.current_stream()](a, b, c, blocks, tiling, ws, sequential)
    return a.astype(np.float32) @ b.astype(np.float32), c, blocks


def test_iterate_delivers_each_block_at_its_place(device):
    want, c, _ = _run_iterate(96, 64, 48, sequential=False)
    np.testing.assert_allclose(c, want, atol=1e-3, rtol=0)


def test_iterate_counts_blocks_m_first_and_writes_them_densely_in_sequence(device):
    want, _, blocks = _run_iterate(96, 64, 48, sequential=True)
    m_iter = 3
    for count in range(6):
        mi, ni = count % m_iter, count // m_iter
        got = blocks[count * 1024:(count + 1) * 1024].reshape(32, 32)
        np.testing.assert_allclose(got, want[mi * 32:(mi + 1) * 32, ni * 32:(ni + 1) * 32],
                                   atol=1e-3, rtol=0)


@pytest.mark.parametrize("mode", [asc.MatmulConfigMode.CONFIG_NORM,
                                  asc.MatmulConfigMode.CONFIG_MDL])
def test_a_constant_tiling_from_the_config_with_org_shape_and_tails(device, mode):
    m, n, k = 100, 72, 64
    rng = np.random.default_rng(5)
    a = rng.uniform(-1, 1, (m, k)).astype(np.float16)
    w = rng.uniform(-1, 1, (n, k)).astype(np.float16)  # B stored transposed: N x K
    c = np.zeros((m, n), np.float16)
    ws = np.zeros(WORKSPACE, np.uint8)
    matmul_static_kernel[2, rt.current_stream()](a, w, c, ws, m, n, k, 64, 48, 32, 16, mode,
                                                  None)
    want = (a.astype(np.float32) @ w.astype(np.float32).T).astype(np.float16)
    np.testing.assert_allclose(c.astype(np.float32), want.astype(np.float32), atol=2e-3,
                               rtol=2e-3)


# ---- errors ---------------------------------------------------------------------------------

@asc.jit(matmul_cube_only=True)
def _bad_type_kernel(a: asc.GlobalAddress):
    asc.adv.Matmul(asc.float16, asc.float16, asc.float16)


@asc.jit(matmul_cube_only=True)
def _outside_iterate_kernel(a: asc.GlobalAddress, c: asc.GlobalAddress,
                            tiling: asc.adv.TCubeTiling):
    a_global = asc.GlobalTensor()
    a_global.set_global_buffer(a)
    c_global = asc.GlobalTensor()
    c_global.set_global_buffer(c)
    pipe = asc.TPipe()
    mm = asc.adv.Matmul(asc.adv.MatmulType(asc.TPosition.GM, asc.CubeFormat.ND, asc.float16),
                        asc.adv.MatmulType(asc.TPosition.GM, asc.CubeFormat.ND, asc.float16),
                        asc.adv.MatmulType(asc.TPosition.GM, asc.CubeFormat.ND, asc.float32))
    asc.adv.register_matmul(pipe, a, mm, tiling)
    mm.set_tensor_a(a_global)
    mm.set_tensor_b(a_global, True)
    mm.get_tensor_c(c_global)


def test_matmul_types_must_be_matmul_types(device):
    with pytest.raises(CodegenError, match="must be an asc.adv.MatmulType"):
        _bad_type_kernel[1, rt.current_stream()](np.zeros(16, np.float16))


def test_a_transpose_flag_against_the_declared_layout_is_refused(device):
    with pytest.raises(CodegenError, match="is_trans=False"):
        _outside_iterate_kernel[1, rt.current_stream()](np.zeros(256, np.float16),
                                                        np.zeros(256, np.float32),
                                                        _tiling(16, 16, 16))


# ---- with host tiling ---------------------------------------------------------------------------

def _host_tiling(m, n, k, a_dtype, dim, bias, fix_split=None, c_dtype=None):
    import asc.lib.host as host
    dt = host.DataType.DT_FLOAT16 if a_dtype == np.float16 else host.DataType.DT_FLOAT
    tiling_api = host.MultiCoreMatmulTiling(host.get_ascendc_platform())
    tiling_api.set_a_type(host.TPosition.GM, host.CubeFormat.ND, dt, False)
    tiling_api.set_b_type(host.TPosition.GM, host.CubeFormat.ND, dt, False)
    tiling_api.set_c_type(host.TPosition.GM, host.CubeFormat.ND,
                          c_dtype or host.DataType.DT_FLOAT)
    tiling_api.set_bias_type(host.TPosition.GM, host.CubeFormat.ND, host.DataType.DT_FLOAT)
    tiling_api.set_dim(dim)
    tiling_api.set_org_shape(m, n, k)
    tiling_api.set_shape(m, n, k)
    tiling_api.enable_bias(bias)
    tiling_api.set_buffer_space(-1, -1, -1)
    if fix_split:
        tiling_api.set_fix_split(*fix_split)
    tiling = asc.adv.TCubeTiling()
    assert tiling_api.get_tiling(tiling) == 0 and tiling.used_core_num > 0
    return tiling


@pytest.mark.parametrize("m,n,k,dtype,dim,bias", [
    (128, 3072, 64, np.float16, 24, False),   # tutorial 04's shape family, narrower N
    (200, 136, 72, np.float16, 8, True),
    (77, 45, 33, np.float32, 4, True),
    (256, 256, 256, np.float32, 6, False),
])
def test_tutorial_cube_only_matmul_with_host_tiling(device, m, n, k, dtype, dim, bias):
    a, b, bias_row = _operands(m, n, k, dtype, m + n + k, integers=False)
    tiling = _host_tiling(m, n, k, dtype, dim, bias)
    c = np.zeros((m, n), np.float32)
    ws = np.zeros(WORKSPACE, np.uint8)
    report = matmul_cube_only_kernel[tiling.used_core_num, rt.current_stream()](
        a, b, c, bias_row, tiling, ws, False, False, 0)
    want = a.astype(np.float32) @ b.astype(np.float32) + (bias_row if bias else 0)
    np.testing.assert_allclose(c, want, atol=1e-3, rtol=1e-5)
    assert report.status == "OK" and report.check.races == 0


@pytest.mark.parametrize("which", ["a", "b"])
@pytest.mark.parametrize("dtype", [np.float16, np.float32])
def test_a_constant_operand_fills_its_tiles_with_the_value(device, which, dtype):
    from matmul_kernels import matmul_constant_kernel
    m, n, k = 48, 40, 72
    a, b, _ = _operands(m, n, k, dtype, 9)
    tiling = _tiling(m, n, k, single=(m, n), base=(32, 32, 32), bias=True)
    c = np.zeros((m, n), np.float32)
    matmul_constant_kernel[1, rt.current_stream()](a, b, c, tiling, 1.5, which)
    if which == "a":
        want = np.full((m, k), 1.5, np.float32) @ b.astype(np.float32)
    else:
        want = a.astype(np.float32) @ np.full((k, n), 1.5, np.float32)
    np.testing.assert_allclose(c, want, atol=1e-3, rtol=0)  # disable_bias: no bias added


def test_a_transposed_nz_weight_as_pyascs_linear_example_packs_it(device):
    from matmul_kernels import matmul_nz_weight_kernel
    m, n, k = 96, 80, 64
    rng = np.random.default_rng(13)
    x = rng.uniform(-1, 1, (m, k)).astype(np.float16)
    w = rng.uniform(-1, 1, (n, k)).astype(np.float16)
    # W[n][k] at (k // 16) * (N * 16) + n * 16 + k % 16.
    packed = w.reshape(n, k // 16, 16).transpose(1, 0, 2).copy()
    tiling = _tiling(m, n, k, single=(48, 48), base=(32, 32, 32), bias=False)
    y = np.zeros((m, n), np.float16)
    report = matmul_nz_weight_kernel[tiling.used_core_num, rt.current_stream()](
        x, packed, y, tiling)
    want = (x.astype(np.float32) @ w.astype(np.float32).T).astype(np.float16)
    np.testing.assert_allclose(y.astype(np.float32), want.astype(np.float32), atol=2e-3,
                               rtol=2e-3)
    assert report.status == "OK"


def _hf32(x):
    """Round float32 to HF32 (10 mantissa bits, to nearest even: docs/cube.md)."""
    bits = x.astype(np.float32).view(np.uint32).astype(np.uint64)
    keep = 13
    half = np.uint64(1 << (keep - 1))
    lsb = (bits >> np.uint64(keep)) & np.uint64(1)
    rounded = (bits + half - np.uint64(1) + lsb) >> np.uint64(keep) << np.uint64(keep)
    return rounded.astype(np.uint32).view(np.float32)


@pytest.mark.parametrize("hf32", [False, True])
def test_set_hf32_rounds_float_inputs_to_hf32(device, hf32):
    from matmul_kernels import matmul_hf32_kernel
    m, n, k = 32, 32, 64
    rng = np.random.default_rng(2)
    a = rng.uniform(-1, 1, (m, k)).astype(np.float32)
    b = rng.uniform(-1, 1, (k, n)).astype(np.float32)
    tiling = _tiling(m, n, k, single=(m, n), base=(32, 32, 32), bias=False)
    c = np.zeros((m, n), np.float32)
    matmul_hf32_kernel[1, rt.current_stream()](a, b, c, tiling, hf32)
    exact = a.astype(np.float64) @ b.astype(np.float64)
    rounded = _hf32(a).astype(np.float64) @ _hf32(b).astype(np.float64)
    want, other = (rounded, exact) if hf32 else (exact, rounded)
    assert np.abs(c - want).max() < 1e-5 < np.abs(c - other).max()


@asc.jit(matmul_cube_only=True)
def _callback_kernel(a: asc.GlobalAddress):
    pipe = asc.TPipe()
    mm = asc.adv.Matmul(asc.adv.MatmulType(asc.TPosition.GM, asc.CubeFormat.ND, asc.float16),
                        asc.adv.MatmulType(asc.TPosition.GM, asc.CubeFormat.ND, asc.float16),
                        asc.adv.MatmulType(asc.TPosition.GM, asc.CubeFormat.ND, asc.float32))
    asc.adv.register_matmul(pipe, a, mm)
    mm.set_self_define_data(a)


def test_callback_data_says_what_a_pyasc_matmul_cannot_declare(device):
    with pytest.raises(CodegenError, match="user-defined Matmul callbacks"):
        _callback_kernel[1, rt.current_stream()](np.zeros(64, np.uint8))


def test_dual_master_runs_the_matmul_on_the_cube_core_of_a_mixed_kernel(device):
    from matmul_kernels import matmul_dual_master_kernel
    m, n, k = 64, 48, 64
    rng = np.random.default_rng(6)
    a = rng.uniform(-1, 1, (m, k)).astype(np.float16)
    bt = rng.uniform(-1, 1, (n, k)).astype(np.float16)
    tiling = _tiling(m, n, k, single=(m, n), base=(32, 48, 32), bias=False)
    c = np.zeros((m, n), np.float16)
    report = matmul_dual_master_kernel[1, rt.current_stream()](a, bt, c, tiling)
    want = (a.astype(np.float32) @ bt.astype(np.float32).T).astype(np.float16)
    np.testing.assert_allclose(c.astype(np.float32), want.astype(np.float32), atol=2e-3,
                               rtol=2e-3)
    types = sorted(core.core_type for core in report.cores)
    assert types == ["aic", "aiv", "aiv"]


# ---- MDL's multi-slice L1 loads (stepKa / stepKb) -----------------------------------------------

def _stepped(m, n, k, dtype, trans_a, trans_b, step_ka, step_kb, base=(64, 64, 32), bias=True,
             order=0, kernel=matmul_mdl_kernel, seed=31):
    """One block of m x n x k with these L1 steps, each operand's slots double-buffered (MDL
    unless `kernel` says otherwise): (C, numpy's C, the report, the GM -> L1 copies)."""
    a, b, bias_row = _operands(m, n, k, dtype, seed)
    tiling = _tiling(m, n, k, single=(m, n), base=base, bias=bias, order=order)
    tiling.step_k_a, tiling.step_k_b = step_ka, step_kb
    tiling.depth_a1, tiling.depth_b1 = 2 * step_ka, 2 * step_kb  # double-buffered
    c = np.zeros((m, n), np.float32)
    report = kernel[1, rt.current_stream()](
        np.ascontiguousarray(a.T) if trans_a else a, np.ascontiguousarray(b.T) if trans_b else b,
        c, bias_row, tiling, np.zeros(WORKSPACE, np.uint8), trans_a, trans_b, 0,
        record_timeline=True)
    want = a.astype(np.float32) @ b.astype(np.float32) + (bias_row if bias else 0)
    copies = sum(1 for r in report.timeline if r.pipe == "MTE2" and "nd2nz" in r.op)
    return c, want, report, copies


@pytest.mark.parametrize("trans_a,trans_b", [(False, False), (True, True), (True, False),
                                             (False, True)])
@pytest.mark.parametrize("dtype", [np.float16, np.float32])
def test_l1_steps_load_several_k_slices_per_copy_and_compute_the_same(device, dtype, trans_a,
                                                                      trans_b):
    base = _stepped(128, 128, 200, dtype, trans_a, trans_b, 1, 1)
    stepped = _stepped(128, 128, 200, dtype, trans_a, trans_b, 4, 2)
    np.testing.assert_allclose(stepped[0], stepped[1], atol=1e-3, rtol=1e-5)
    np.testing.assert_allclose(base[0], base[1], atol=1e-3, rtol=1e-5)
    if dtype == np.float32 and trans_a and not trans_b:
        # Both float operands are copied band by band (16 rows each): as many copies.
        assert stepped[3] == base[3]
    else:
        assert stepped[3] < base[3]  # fewer GM -> L1 copies


def test_a_depth_of_one_step_keeps_one_l1_slot(device):
    """depthA1 = stepKa (hardware-910b.md 7.1 row 17's A): one L1 slot, so a copy waits for the
    slot's last L0 load; the result is the same, the Matmul no faster."""
    m, n, k = 128, 128, 256
    a, b, bias_row = _operands(m, n, k, np.float16, 17)
    cycles = []
    for depth in (8, 4):
        tiling = _tiling(m, n, k, single=(m, n), base=(64, 64, 32), bias=False)
        tiling.step_k_a = tiling.step_k_b = 4
        tiling.depth_a1 = tiling.depth_b1 = depth
        c = np.zeros((m, n), np.float32)
        report = matmul_cube_only_kernel[1, rt.current_stream()](
            a, b, c, bias_row, tiling, np.zeros(WORKSPACE, np.uint8), False, False, 0)
        np.testing.assert_allclose(c, a.astype(np.float32) @ b.astype(np.float32), atol=1e-3)
        cycles.append(report.cycles)
    assert cycles[1] >= cycles[0]


def test_l1_steps_cut_mte2_time_on_the_mdl_row_shape(device):
    """hardware-910b.md 7.1 row 13's core (single core 128 x 1280 x 1024, base 128 x 256 x 64):
    Norm copies one base block at a time whatever the steps; MDL with stepKa = stepKb = 4
    brings four K slices per copy, so MTE2, the bound pipe, is busy less and the Matmul ends
    sooner (the chip: Norm 83.68 -> MDL 53.4 us; the model's gain is smaller: docs/matmul.md)."""
    runs = {}
    for kernel, step in ((matmul_cube_only_kernel, 1), (matmul_cube_only_kernel, 4),
                         (matmul_mdl_kernel, 4)):
        # The source's depth 8 for step 4.
        c, want, report, copies = _stepped(128, 1280, 1024, np.float16, False, False, step, step,
                                           base=(128, 256, 64), bias=False, kernel=kernel,
                                           seed=5)
        np.testing.assert_allclose(c, want, atol=1e-3)
        runs[kernel is matmul_mdl_kernel, step] = (copies, report)
    (norm_copies, norm), (norm4_copies, _), (mdl_copies, mdl) = (
        runs[False, 1], runs[False, 4], runs[True, 4])
    blocks, slices = 5, 16
    assert norm_copies == norm4_copies == blocks * slices * 2  # a slice of A and of B per copy
    assert mdl_copies == blocks * (slices // 4) * 2
    assert norm.cores[0].bound_pipe == mdl.cores[0].bound_pipe == "MTE2"
    assert mdl.cores[0].pipes["MTE2"].busy_cycles < norm.cores[0].pipes["MTE2"].busy_cycles
    assert mdl.cycles < norm.cycles


def test_unit_flag_hands_blocks_to_the_fixpipe_without_the_flag_pair(device):
    """hardware-910b.md 7.1 row 16: UnitFlag overlaps the Mmads and the Fixpipe (37.39 ->
    34.66 us on the chip). The same MDL constant-tiling kernel with and without en_unit_flag:
    the same copies, loads and Mmads, without the M_FIX / FIX_M pair per block."""
    m, n, k = 128, 144, 64
    rng = np.random.default_rng(8)
    a = rng.uniform(-1, 1, (m, k)).astype(np.float16)
    w = rng.uniform(-1, 1, (n, k)).astype(np.float16)
    runs = {}
    for unit_flag in (True, False):
        c = np.zeros((m, n), np.float16)
        report = matmul_static_kernel[1, rt.current_stream()](
            a, w, c, np.zeros(WORKSPACE, np.uint8), m, n, k, 128, 144, 32, 48,
            asc.MatmulConfigMode.CONFIG_MDL, unit_flag, record_timeline=True)
        want = (a.astype(np.float32) @ w.astype(np.float32).T).astype(np.float16)
        np.testing.assert_allclose(c.astype(np.float32), want.astype(np.float32), atol=2e-3)
        pairs = sum(1 for r in report.timeline if r.op == "set_flag" and r.pipe == "M")
        copies = sum(1 for r in report.timeline if r.pipe == "MTE2" and r.op.startswith("data"))
        runs[unit_flag] = (report.cycles, pairs, copies)
    unit, flags = runs[True], runs[False]
    assert unit[2] == flags[2]  # the same copies
    assert unit[1] < flags[1]  # no M_FIX set per block
    assert unit[0] < flags[0]


def test_a_constant_tiling_spends_less_scalar_time_than_a_tiling_argument(device):
    """hardware-910b.md 7.1 row 14 (and 6's Case7): with every size a compile-time constant the
    scalar unit neither reads the tiling struct nor computes the sizes, so it spends less time
    and the first GM -> L1 copy starts earlier (chip: scalar 6.32 -> 3.38 us, first MTE2 3.536
    -> 2.185 us)."""
    from matmul_kernels import matmul_runtime_tiling_kernel
    m, n, k = 128, 256, 64
    rng = np.random.default_rng(14)
    a = rng.uniform(-1, 1, (m, k)).astype(np.float16)
    w = rng.uniform(-1, 1, (n, k)).astype(np.float16)
    want = (a.astype(np.float32) @ w.astype(np.float32).T).astype(np.float16)
    ws = np.zeros(WORKSPACE, np.uint8)
    c_const = np.zeros((m, n), np.float16)
    const = matmul_static_kernel[1, rt.current_stream()](
        a, w, c_const, ws, m, n, k, m, n, 128, 256, asc.MatmulConfigMode.CONFIG_MDL, None,
        record_timeline=True)
    tiling = _tiling(m, n, k, single=(m, n), base=(128, 256, 32), bias=False)
    c_arg = np.zeros((m, n), np.float16)
    arg = matmul_runtime_tiling_kernel[1, rt.current_stream()](a, w, c_arg, ws, tiling, 0,
                                                              record_timeline=True)
    for c in (c_const, c_arg):
        np.testing.assert_allclose(c.astype(np.float32), want.astype(np.float32), atol=2e-3)

    def first_mte2(report):
        return min(r.start_cycle for r in report.timeline if r.pipe == "MTE2")

    assert const.cores[0].pipes["S"].busy_cycles < arg.cores[0].pipes["S"].busy_cycles
    assert first_mte2(const) < first_mte2(arg)
    assert const.cycles < arg.cycles


@pytest.mark.parametrize("order", [0, 1])
def test_an_operand_whose_block_index_holds_stays_in_l1(device, order):
    """With K whole in one L1 chunk of each operand (MDL's full-K load, 7.1 row 17), the operand
    whose block index does not change from one block to the next is not copied again: M first
    (order 0) loads B once per column of blocks, N first (order 1) A once per row. Against steps
    that cut K in two (every block reloads both), fewer copies, less MTE2 time, fewer cycles."""
    runs = {}
    for step in (4, 2):  # base 64 x 128 x 64 on 128 x 512 x 256: 2 x 4 blocks, 4 K slices
        c, want, report, copies = _stepped(128, 512, 256, np.float16, False, False, step, step,
                                           base=(64, 128, 64), bias=False, order=order, seed=19)
        np.testing.assert_allclose(c, want, atol=1e-3)
        runs[step] = (copies, report.cores[0].pipes["MTE2"].busy_cycles, report.cycles)
    blocks, m_iter, n_iter = 8, 2, 4
    held = n_iter if order == 0 else m_iter  # loads of the operand that stays
    assert runs[4][0] == blocks + held
    assert runs[2][0] == blocks * 2 * 2  # two chunks of each operand per block
    assert runs[4][1] < runs[2][1]
    assert runs[4][2] < runs[2][2]


def test_bias_buffers_exist_only_when_the_tiling_has_a_bias(device):
    """hardware-910b.md 7.1 row 6 Case5's L1 (stepKa 8 / depthA1 16, stepKb 4 / depthB1 8 of
    128 x 256 x 64 half tiles) is all 512 KiB: it fits without a bias; with one, the bias row's
    L1 buffer does not, and the launch says so at the Matmul's registration."""
    m, n, k = 128, 256, 512
    a, b, bias_row = _operands(m, n, k, np.float16, 6)
    for with_bias in (False, True):
        tiling = _tiling(m, n, k, single=(m, n), base=(128, 256, 64), bias=with_bias)
        tiling.step_k_a, tiling.step_k_b, tiling.depth_a1, tiling.depth_b1 = 8, 4, 16, 8
        c = np.zeros((m, n), np.float32)
        run = lambda: matmul_cube_only_kernel[1, rt.current_stream()](  # noqa: E731
            a, b, c, bias_row, tiling, np.zeros(WORKSPACE, np.uint8), False, False, 0)
        if not with_bias:
            run()
            np.testing.assert_allclose(c, a.astype(np.float32) @ b.astype(np.float32), atol=1e-3)
            continue
        with pytest.raises(KernelFaultError) as info:
            run()
        assert "bytes of L1" in str(info.value) and "init_buffer" in str(info.value)


def test_the_host_tiling_keeps_k_whole_in_l1_when_it_fits_and_copies_less(device):
    """asc.lib.host's stage 3 (docs/host_tiling.md): with K (4 slices of 64) whole in one L1
    chunk of each operand, A, the same for every block of the row, is copied once; against the
    same tiling with one slice per copy the Matmul moves less over MTE2 and keeps it busy for
    less time. (It need not end sooner: on one core the Mmads bound it, and its first whole-K
    copies delay the first Mmad.)"""
    import asc.lib.host as host
    from test_matmul_mixed import _tiling as host_tiling
    m, n, k = 256, 1024, 256
    found = host_tiling(m, n, k, np.float16, 1, host.TPosition.GM, False)
    slices = -(-k // found.base_k)
    assert found.step_k_a == found.step_k_b == slices
    a, b, bias_row = _operands(m, n, k, np.float16, 13)
    runs = []
    for steps in ((found.step_k_a, found.step_k_b, found.depth_a1, found.depth_b1), (1, 1, 2, 2)):
        found.step_k_a, found.step_k_b, found.depth_a1, found.depth_b1 = steps
        c = np.zeros((m, n), np.float32)
        report = matmul_cube_only_kernel[1, rt.current_stream()](
            a, b, c, bias_row, found, np.zeros(WORKSPACE, np.uint8), False, False, 0)
        np.testing.assert_allclose(c, a.astype(np.float32) @ b.astype(np.float32), atol=1e-3)
        mte2 = report.cores[0].pipes["MTE2"]
        runs.append((mte2.bytes, mte2.busy_cycles))
    assert runs[0][0] < runs[1][0]
    assert runs[0][1] < runs[1][1]


def test_mte2_preload_issues_the_next_blocks_b_ahead_and_ends_sooner(device):
    """hardware-910b.md 7.1 row 17 (MDL, K whole in L1: stepKa = stepKb = 8 slices, B in two
    slots): do_mte2_preload = 2 issues the next block's B copy before this block's work, so MTE2
    need not wait for the scalar unit to get past it; the chip went 30.88 -> 28.50 us."""
    from matmul_tuning import tiling_of, tuned_matmul
    m, n, k = 128, 1024, 512
    a, b, _ = _operands(m, n, k, np.float16, 17)
    runs = {}
    for preload in (0, 2):
        tiling = tiling_of(m, n, k, 1, (m, n), (128, 128, 64), (8, 8), (8, 16))
        c = np.zeros((m, n), np.float32)
        report = tuned_matmul[1, rt.current_stream()](
            a, b, c, tiling, asc.MatmulConfigMode.CONFIG_MDL, False, False, False, 1, preload,
            record_timeline=True)
        np.testing.assert_allclose(c, a.astype(np.float32) @ b.astype(np.float32), atol=1e-3)
        first_mmad = min(r.issue_cycle for r in report.timeline if r.op == "mmad")
        copies = [r for r in report.timeline if r.pipe == "MTE2" and "nd2nz" in r.op]
        ahead = sum(1 for r in copies if r.issue_cycle < first_mmad)
        runs[preload] = (len(copies), ahead, report.cycles)
    assert runs[0][0] == runs[2][0] == 1 + 8  # A once, B once per block: the same copies
    assert (runs[0][1], runs[2][1]) == (2, 3)  # A and B, and with preload the next B too
    assert runs[2][2] < runs[0][2]


def test_a_constant_tiling_derives_its_l1_steps_from_the_shapes(device):
    """A full constant tiling (get_mm_config with MatmulShapeParams) gets its steps and depths
    as Ascend C's GetMatmulApiTiling derives them: asc.lib.host's stage 3. For 256 x 1024 x 256
    with 256 x 128 x 64 bases K is whole in L1, so A is copied once and B once per block."""
    from matmul_tuning import constant_matmul
    m, n, k = 256, 1024, 256
    a, b, _ = _operands(m, n, k, np.float16, 21)
    c = np.zeros((m, n), np.float32)
    report = constant_matmul[1, rt.current_stream()](a, b, c, m, n, k, m, n, 256, 128, 64, False,
                                                    False, False, record_timeline=True)
    np.testing.assert_allclose(c, a.astype(np.float32) @ b.astype(np.float32), atol=1e-3)
    copies = sum(1 for r in report.timeline if r.pipe == "MTE2" and "nd2nz" in r.op)
    assert copies == 1 + 8


def test_nbuffer33_keeps_all_of_a_in_l1_and_copies_less(device):
    """NBuffer33MatmulPolicy (MDL, cube only; Ascend C's MatmulPolicy page): the single core's A,
    3 x 3 base blocks (3 rows of 128, K of 3 slices), stays in L1 while B's 3 x 1 blocks come one
    column at a time, double-buffered. Against the MDL default, where A's row changes every
    block, A is copied 3 times instead of 12 and MTE2 is busy for less time; as the Mmads and
    the Fixpipe bound this kernel on one core, it ends no later (within 0.1 %)."""
    from matmul_kernels import matmul_runtime_tiling_kernel
    m, n, k = 384, 1024, 192
    rng = np.random.default_rng(33)
    a = rng.uniform(-1, 1, (m, k)).astype(np.float16)
    w = rng.uniform(-1, 1, (n, k)).astype(np.float16)
    want = a.astype(np.float32) @ w.astype(np.float32).T
    runs = {}
    for policy in (0, 3):  # MatmulPolicy, NBuffer33MatmulPolicy
        tiling = _tiling(m, n, k, single=(m, n), base=(128, 256, 64), bias=False)
        tiling.step_k_a = tiling.step_k_b = 3
        tiling.depth_a1, tiling.depth_b1 = 9, 6
        c = np.zeros((m, n), np.float16)
        report = matmul_runtime_tiling_kernel[1, rt.current_stream()](
            a, w, c, np.zeros(WORKSPACE, np.uint8), tiling, policy, record_timeline=True)
        np.testing.assert_allclose(c.astype(np.float32), want, atol=2e-2, rtol=2e-3)
        copies = sum(1 for r in report.timeline if r.pipe == "MTE2" and "nd2nz" in r.op)
        runs[policy] = (copies, report.cores[0].pipes["MTE2"].busy_cycles, report.cycles)
    assert runs[0][0] == 12 + 4 and runs[3][0] == 3 + 4  # A, then B once per column
    assert runs[3][1] < runs[0][1]
    assert runs[3][2] <= runs[0][2] * 1.001


def test_l2_split_rounds_read_less_from_hbm_near_l2_capacity(device):
    """L2 split (hardware-910b.md 7.1 rows 6 and 7): computing M's halves in two rounds keeps a
    round's data well inside L2. Row 7's basic-API kernel scaled to the 96 MB L2 and 20 cube
    cores of Ascend910B4: A 64 MiB, B 100 MiB, each core rereads its A block once per 256
    columns of B, about 94 MiB apart in one round (many of those rereads miss) and 57 MiB in
    two. On the chip the split cut row 7's MTE2 time by 1.8%; here the copies read ~15% less
    from HBM. (Cycles do not follow yet: the cube cores' MTE2 rate, not HBM, bounds them,
    docs/matmul.md.) Timing-only and unchecked for speed: test_examples runs the same kernel
    under the checkers at a small shape."""
    import asc.runtime.config as config
    from matmul_basic_api import basic_matmul
    config.set_platform(config.Backend.Model, config.Platform.Ascend910B4)
    m, n, k = 4096, 6400, 8192
    traffic = {}
    for rounds, single_m in ((1, 1024), (2, 512)):
        a = np.zeros((m, k), np.float16)
        b = np.zeros((n, k), np.float16)
        c = np.zeros((m, n), np.float16)
        report = basic_matmul[20, rt.current_stream()](a, b, c, m, n, k, single_m, 1280, rounds,
                                                      timing_only=True, check="off")
        mte2 = [core.pipes["MTE2"] for core in report.cores]
        hits = sum(p.l2_hit_bytes for p in mte2)
        hbm = sum(p.hbm_read_bytes for p in mte2)
        assert hits + hbm >= 2 * (m + n) * k  # at least A and B once each
        traffic[rounds] = (hits, hbm)
    assert traffic[1][0] + traffic[1][1] == traffic[2][0] + traffic[2][1]  # the same copies
    assert traffic[2][1] < 0.9 * traffic[1][1]
