"""asc.adv.Matmul in a mixed kernel (asc-api.md 6.2; ascendc-semantics.md 7.4-7.5): the vector
cores post requests into the GM workspace, their cube core serves them and notifies with mode-2
cross-core flags; pyasc's tutorials 03 (iterate_all to GM) and 05 (block by block into UB,
leaky_relu, copied out) with host tilings, against numpy."""
import numpy as np
import pytest

import asc
import asc.lib.host as host
import asc.lib.runtime as rt
import asc.runtime.config as config
from asc.codegen.errors import CodegenError

from matmul_kernels import (matmul_batch_cube_kernel, matmul_batch_kernel, matmul_quant_kernel,
                            matmul_leakyrelu_kernel, matmul_mix_kernel, matmul_share_kernel)

WORKSPACE = 16 * 1024 * 1024


def _tiling(m, n, k, dtype, dim, c_position, bias, fix_split=None):
    dt = host.DataType.DT_FLOAT16 if dtype == np.float16 else host.DataType.DT_FLOAT
    api = host.MultiCoreMatmulTiling(host.get_ascendc_platform())
    api.set_a_type(host.TPosition.GM, host.CubeFormat.ND, dt, False)
    api.set_b_type(host.TPosition.GM, host.CubeFormat.ND, dt, False)
    api.set_c_type(c_position, host.CubeFormat.ND, host.DataType.DT_FLOAT)
    api.set_bias_type(host.TPosition.GM, host.CubeFormat.ND, host.DataType.DT_FLOAT)
    api.set_dim(dim)
    api.set_org_shape(m, n, k)
    api.set_shape(m, n, k)
    api.enable_bias(bias)
    api.set_traverse(host.MatrixTraverse.FIRSTM)
    if fix_split:
        api.set_fix_split(*fix_split)
    api.set_buffer_space(-1, -1, -1)
    tiling = asc.adv.TCubeTiling()
    assert api.get_tiling(tiling) == 0 and tiling.used_core_num > 0
    return tiling


def _operands(m, n, k, dtype, seed):
    rng = np.random.default_rng(seed)
    return (rng.integers(-5, 5, (m, k)).astype(dtype), rng.integers(-5, 5, (k, n)).astype(dtype),
            rng.integers(-5, 5, (1, n)).astype(np.float32))


@pytest.mark.parametrize("m,n,k,dtype,dim", [
    (512, 1024, 512, np.float16, 48),   # tutorial 03's problem on 24 groups
    (130, 70, 100, np.float16, 6),
    (96, 80, 48, np.float32, 4),
])
def test_vector_cores_get_their_blocks_from_the_cube_core_with_iterate_all(device, m, n, k,
                                                                         dtype, dim):
    a, b, _ = _operands(m, n, k, dtype, m + n)
    tiling = _tiling(m, n, k, dtype, dim, host.TPosition.GM, False)
    c = np.zeros((m, n), np.float32)
    groups = (tiling.used_core_num + 1) // 2
    report = matmul_mix_kernel[groups, rt.current_stream()](a, b, c, tiling,
                                                           np.zeros(WORKSPACE, np.uint8))
    np.testing.assert_allclose(c, a.astype(np.float32) @ b.astype(np.float32), atol=1e-3)
    assert report.status == "OK" and report.check.races == 0
    types = sorted(core.core_type for core in report.cores)
    assert types.count("aic") == groups and types.count("aiv") == 2 * groups


def _leaky(x, alpha):
    return np.where(x >= 0, x, x * alpha)


@pytest.mark.parametrize("m,n,k,split,dtype", [
    (1024, 640, 256, (256, 128, -1), np.float16),   # tutorial 05 as it stands
    (128, 96, 64, (32, 32, -1), np.float16),
    (128, 64, 80, (32, 32, -1), np.float32),
])
def test_blocks_reach_the_vector_cores_ub_through_the_workspace_mirror(device, m, n, k, split,
                                                                     dtype):
    a, b, bias = _operands(m, n, k, dtype, k)
    tiling = _tiling(m, n, k, dtype, 2, host.TPosition.VECCALC, True, split)
    c = np.zeros((m, n), np.float32)
    report = matmul_leakyrelu_kernel[tiling.used_core_num // 2, rt.current_stream()](
        a, b, c, bias, 0.001, tiling, np.zeros(WORKSPACE, np.uint8))
    want = _leaky(a.astype(np.float32) @ b.astype(np.float32) + bias, np.float32(0.001))
    np.testing.assert_allclose(c, want, atol=1e-3, rtol=1e-6)
    assert report.status == "OK" and report.check.races == 0


def test_the_server_and_clients_leave_no_flag_or_message_behind(device):
    m, n, k = 128, 96, 64
    a, b, bias = _operands(m, n, k, np.float16, 3)
    tiling = _tiling(m, n, k, np.float16, 2, host.TPosition.VECCALC, True, (32, 32, -1))
    ws = np.zeros(WORKSPACE, np.uint8)
    c = np.zeros((m, n), np.float32)
    report = matmul_leakyrelu_kernel[1, rt.current_stream()](a, b, c, bias, 0.001, tiling, ws)
    assert report.diagnostics == [] or all(d.kind != "UNMATCHED_FLAG"
                                           for d in report.diagnostics)
    # Every request the server took was freed: no head word of either ring is left valid.
    heads = ws[:2 * 2 * 64 * 128].view(np.uint32).reshape(2, 2, 64, 32)[:, 0, :, 0]
    assert not heads.any()


@asc.jit(kernel_type=config.KernelType.AIC_ONLY)
def _aic_only_kernel(a: asc.GlobalAddress, tiling: asc.adv.TCubeTiling):
    pipe = asc.TPipe()
    mm = asc.adv.Matmul(asc.adv.MatmulType(asc.TPosition.GM, asc.CubeFormat.ND, asc.float16),
                        asc.adv.MatmulType(asc.TPosition.GM, asc.CubeFormat.ND, asc.float16),
                        asc.adv.MatmulType(asc.TPosition.GM, asc.CubeFormat.ND, asc.float32))
    asc.adv.register_matmul(pipe, a, mm, tiling)


@asc.jit
def _nested_kernel(a: asc.GlobalAddress, tiling: asc.adv.TCubeTiling, n: int):
    pipe = asc.TPipe()
    mm = asc.adv.Matmul(asc.adv.MatmulType(asc.TPosition.GM, asc.CubeFormat.ND, asc.float16),
                        asc.adv.MatmulType(asc.TPosition.GM, asc.CubeFormat.ND, asc.float16),
                        asc.adv.MatmulType(asc.TPosition.GM, asc.CubeFormat.ND, asc.float32))
    if n > 0:
        asc.adv.register_matmul(pipe, a, mm, tiling)


def test_a_served_matmul_in_a_kernel_without_vector_cores_is_refused(device):
    with pytest.raises(CodegenError, match="MIX_AIC_1_2.*matmul_cube_only"):
        _aic_only_kernel[1, rt.current_stream()](np.zeros(64, np.uint8), asc.adv.TCubeTiling())


def test_register_matmul_of_a_mixed_kernel_stays_at_the_top_level(device):
    with pytest.raises(CodegenError, match="inside a runtime if or loop"):
        _nested_kernel[1, rt.current_stream()](np.zeros(64, np.uint8), asc.adv.TCubeTiling(), 1)


# ---- batches ----------------------------------------------------------------------------------

def _batch_tiling(m, n, k, dtype, batch_a, batch_b):
    dt = host.DataType.DT_FLOAT if dtype == np.float32 else host.DataType.DT_FLOAT16
    api = host.MultiCoreMatmulTiling(host.get_ascendc_platform())
    api.set_a_type(host.TPosition.GM, host.CubeFormat.ND, dt, False)
    api.set_b_type(host.TPosition.GM, host.CubeFormat.ND, dt, False)
    api.set_c_type(host.TPosition.VECCALC, host.CubeFormat.ND, host.DataType.DT_FLOAT)
    api.set_bias_type(host.TPosition.GM, host.CubeFormat.ND, host.DataType.DT_FLOAT)
    api.set_dim(16)
    api.set_org_shape(m, n, k)
    api.set_shape(m, n, k)
    api.set_traverse(host.MatrixTraverse.FIRSTM)
    api.set_buffer_space(-1, -1, -1)
    batch = max(batch_a, batch_b)
    api.set_a_layout(batch_a, m, 1, 1, k)
    api.set_b_layout(batch_b, k, 1, 1, n)
    api.set_c_layout(batch, m, 1, 1, n)
    api.set_batch_num(batch)
    tiling = asc.adv.TCubeTiling()
    assert api.get_tiling(tiling) == 0
    return tiling


def _batch_operands(m, n, k, dtype, batch_a, batch_b):
    rng = np.random.default_rng(m + k)
    a = rng.uniform(-5, 5, (batch_a * m, k)).astype(dtype)
    b = rng.uniform(-5, 5, (batch_b * k, n)).astype(dtype)
    batch = max(batch_a, batch_b)
    want = np.vstack([a[(i // (batch // batch_a)) * m:][:m].astype(np.float32) @
                      b[(i // (batch // batch_b)) * k:][:k].astype(np.float32)
                      for i in range(batch)])
    return a, b, want


@pytest.mark.parametrize("dtype,size,batches", [(np.float32, 64, (2, 2)), (np.float16, 32, (2, 2)),
                                                (np.float16, 48, (1, 4)), (np.float32, 40, (4, 2))])
def test_iterate_batch_computes_every_normal_batch(device, dtype, size, batches):
    m = k = n = size
    batch_a, batch_b = batches
    a, b, want = _batch_operands(m, n, k, dtype, batch_a, batch_b)
    tiling = _batch_tiling(m, n, k, dtype, batch_a, batch_b)
    c = np.zeros((max(batches) * m, n), np.float32)
    report = matmul_batch_kernel[1, rt.current_stream()](a, b, c, tiling,
                                                        np.zeros(WORKSPACE, np.uint8),
                                                        batch_a, batch_b)
    np.testing.assert_allclose(c, want, atol=1e-3, rtol=1e-5)
    assert report.status == "OK" and report.check.races == 0


def test_the_cube_only_batch_form_takes_set_batch_num(device):
    m = n = k = 32
    a, b, want = _batch_operands(m, n, k, np.float16, 2, 2)
    tiling = _batch_tiling(m, n, k, np.float16, 2, 2)
    c = np.zeros((2 * m, n), np.float32)
    matmul_batch_cube_kernel[1, rt.current_stream()](a, b, c, tiling, 2, 2)
    np.testing.assert_allclose(c, want, atol=1e-3, rtol=1e-5)


# ---- int8 with dequantisation -------------------------------------------------------------------

def _kept(scales):
    """The scale Fixpipe applies: sign, exponent and 10 mantissa bits of the float."""
    return (scales.view(np.uint32) & np.uint32(0xFFFFE000)).view(np.float32)


@pytest.mark.parametrize("m,n,k", [(256, 128, 64), (64, 128, 256), (100, 72, 80)])
@pytest.mark.parametrize("per_column", [True, False])
def test_int8_matmul_dequantised_into_half(device, m, n, k, per_column):
    rng = np.random.default_rng(m + n + k)
    a = rng.integers(-5, 5, (m, k)).astype(np.int8)
    b = rng.integers(-5, 5, (k, n)).astype(np.int8)
    scales = ((rng.random(n) - 0.5) * 0.1).astype(np.float32)
    words = scales.view(np.uint32).astype(np.uint64)
    scalar = np.float32(0.03125 + 1e-4)
    api = host.MultiCoreMatmulTiling(host.get_ascendc_platform())
    api.set_a_type(host.TPosition.GM, host.CubeFormat.ND, host.DataType.DT_INT8, False)
    api.set_b_type(host.TPosition.GM, host.CubeFormat.ND, host.DataType.DT_INT8, False)
    api.set_c_type(host.TPosition.GM, host.CubeFormat.ND, host.DataType.DT_FLOAT16)
    api.set_dim(8)
    api.set_org_shape(m, n, k)
    api.set_shape(m, n, k)
    api.set_traverse(host.MatrixTraverse.FIRSTM)
    api.set_buffer_space(-1, -1, -1)
    tiling = asc.adv.TCubeTiling()
    assert api.get_tiling(tiling) == 0
    c = np.zeros((m, n), np.float16)
    report = matmul_quant_kernel[(tiling.used_core_num + 1) // 2, rt.current_stream()](
        a, b, c, tiling, np.zeros(WORKSPACE, np.uint8), words,
        int(np.array([scalar]).view(np.uint32)[0]), per_column)
    acc = a.astype(np.int64) @ b.astype(np.int64)
    scale = _kept(scales) if per_column else _kept(np.array([scalar]))[0]
    want = (acc.astype(np.float64) * scale).astype(np.float16)
    np.testing.assert_allclose(c.astype(np.float32), want.astype(np.float32), rtol=2e-3,
                               atol=2e-3)
    assert report.status == "OK" and report.check.races == 0


# ---- get_tensor_c's other forms, iterate_n_batch -----------------------------------------------

@pytest.mark.parametrize("mode", ["async", "both", "workspace"])
def test_get_tensor_c_async_both_and_workspace_forms(device, mode):
    from matmul_kernels import matmul_async_kernel
    m, n, k = 128, 64, 64
    a, b, _ = _operands(m, n, k, np.float16, 21)
    tiling = _tiling(m, n, k, np.float16, 2, host.TPosition.VECCALC, False, (32, 32, -1))
    c = np.zeros((m, n), np.float32)
    d = np.zeros((m, n), np.float32)
    results = np.zeros(m * n, np.float32)
    report = matmul_async_kernel[1, rt.current_stream()](a, b, c, d, tiling,
                                                        np.zeros(WORKSPACE, np.uint8), results,
                                                        mode)
    want = a.astype(np.float32) @ b.astype(np.float32)
    np.testing.assert_allclose(d, want, atol=1e-3)
    if mode == "both":
        np.testing.assert_allclose(c, want, atol=1e-3)
    assert report.status == "OK" and report.check.races == 0


def test_iterate_n_batch_writes_its_groups_into_the_workspace(device):
    from matmul_kernels import matmul_n_batch_kernel
    m = n = k = 32
    batch_loop, batch_a, batch_b = 2, 2, 1
    rng = np.random.default_rng(4)
    a = rng.integers(-3, 3, (batch_loop * batch_a * m, k)).astype(np.float16)
    b = rng.integers(-3, 3, (batch_loop * batch_b * k, n)).astype(np.float16)
    tiling = _batch_tiling(m, n, k, np.float16, batch_a, batch_b)
    results = np.zeros(batch_loop * 2 * m * n, np.float32)
    firsts = np.zeros(8, np.float32)
    matmul_n_batch_kernel[1, rt.current_stream()](a, b, results, firsts, tiling, batch_loop,
                                                 batch_a, batch_b)
    got = results.reshape(batch_loop * 2, m, n)
    for group in range(batch_loop):
        for i in range(2):
            ia = group * batch_a + i
            ib = group * batch_b
            want = a[ia * m:(ia + 1) * m].astype(np.float32) @ \
                b[ib * k:(ib + 1) * k].astype(np.float32)
            np.testing.assert_allclose(got[group * 2 + i], want, atol=1e-3)
        assert firsts[group] == got[group * 2][0, 0]


def test_an_operand_in_the_vector_cores_ub_reaches_the_cube_core_through_its_mirror(device):
    from matmul_kernels import matmul_ub_a_kernel
    m, n, k = 64, 32, 64
    a, b, _ = _operands(m, n, k, np.float16, 8)
    tiling = asc.adv.TCubeTiling(used_core_num=2, m=m, n=n, k_a=k, k_b=k, single_core_m=32,
                                 single_core_n=n, single_core_k=k, base_m=32, base_n=32,
                                 base_k=32)
    c = np.zeros((m, n), np.float32)
    report = matmul_ub_a_kernel[1, rt.current_stream()](a, b, c, tiling,
                                                       np.zeros(WORKSPACE, np.uint8))
    np.testing.assert_allclose(c, 2 * a.astype(np.float32) @ b.astype(np.float32), atol=1e-3)
    assert report.status == "OK" and report.check.races == 0


def test_the_server_honours_the_tilings_l1_steps(device):
    m, n, k = 128, 96, 200
    a, b, _ = _operands(m, n, k, np.float16, 12)
    tiling = _tiling(m, n, k, np.float16, 4, host.TPosition.GM, False, (32, 32, 32))
    tiling.step_k_a, tiling.step_k_b = 3, 2
    c = np.zeros((m, n), np.float32)
    report = matmul_mix_kernel[(tiling.used_core_num + 1) // 2, rt.current_stream()](
        a, b, c, tiling, np.zeros(WORKSPACE, np.uint8))
    np.testing.assert_allclose(c, a.astype(np.float32) @ b.astype(np.float32), atol=1e-3)
    assert report.status == "OK" and report.check.races == 0


def _shared_run(a, b, tiling, share):
    """One group's launch: (MTE2 copies on the cube core, its MTE2 busy cycles, cycles)."""
    m, n = a.shape[0], b.shape[1]
    c = np.zeros((m, n), np.float32)
    report = matmul_share_kernel[1, rt.current_stream()](
        a, b, c, tiling, np.zeros(WORKSPACE, np.uint8), share, record_timeline=True)
    np.testing.assert_allclose(c, a.astype(np.float32) @ b.astype(np.float32), atol=1e-3)
    assert report.status == "OK" and report.check.races == 0
    assert not [d for d in report.diagnostics if d.severity in ("error", "warning")]
    cube = [core for core in report.cores if core.core_type == "aic"][0]
    copies = [r for r in report.timeline if r.pipe == "MTE2" and "nd2nz" in r.op
              and r.core == cube.core]
    return len(copies), cube.pipes["MTE2"].busy_cycles, report.cycles


def _whole_k(tiling, k, base_k):
    tiling.step_k_a = tiling.step_k_b = k // base_k  # K whole in one chunk of each operand
    tiling.depth_a1 = tiling.depth_b1 = k // base_k
    return tiling


def test_ib_share_keeps_the_shared_b_in_l1_for_both_vector_cores(device):
    """IBShare (Ascend C's IBShare-B case, 64 x 256 x 384 half, one group): each vector core
    asks for its 32 rows of C with the same B, whole in L1 (K whole, all of N). Shared, the cube
    core copies B once for both requests, MTE2 is busy less and the launch ends sooner; the
    results are the same."""
    m, n, k = 64, 256, 384
    a, b, _ = _operands(m, n, k, np.float16, 64)
    tiling = _whole_k(_tiling(m, n, k, np.float16, 2, host.TPosition.GM, False, (32, 256, 64)),
                      k, 64)
    assert (tiling.used_core_num, tiling.single_core_m, tiling.single_core_n) == (2, 32, 256)
    norm, shared = _shared_run(a, b, tiling, 0), _shared_run(a, b, tiling, 2)
    # Both templates copy one base_k slice at a time (6 of A, 6 of B per request). Norm: B in
    # two chunks of 3 slices (its 192 KiB exceed a 120 KiB server slot), every request.
    # IBShare: B in its 240 KiB slot once for both requests.
    assert norm[0] == 2 * (6 + 6) and shared[0] == 2 * 6 + 6
    assert shared[1] < norm[1] and shared[2] < norm[2]


def test_ib_share_of_a_and_of_operands_that_differ(device):
    """The two vector cores split N (32 x 512 x 192): they share A, not B. IBShare on A copies
    A once for both; on B, whose record names the other client's columns, every B is copied
    (what differs is never reused); on both, as on A. Every result is exact."""
    m, n, k = 32, 512, 192
    a, b, _ = _operands(m, n, k, np.float16, 65)
    tiling = _whole_k(_tiling(m, n, k, np.float16, 2, host.TPosition.GM, False, (32, 256, 64)),
                      k, 64)
    assert (tiling.used_core_num, tiling.single_core_m, tiling.single_core_n) == (2, 32, 256)
    copies = {share: _shared_run(a, b, tiling, share)[0] for share in (0, 1, 2, 3)}
    slices = k // 64  # one copy each
    assert copies == {0: 2 * 2 * slices, 1: (1 + 2) * slices, 2: 2 * 2 * slices,
                      3: (1 + 2) * slices}
