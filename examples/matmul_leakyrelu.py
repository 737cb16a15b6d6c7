"""A matmul with a leaky ReLU epilogue as pyasc's tutorial 05 writes it, on aicore-sim: a mixed
kernel in which each vector core asks its group's cube core for its blocks of C one by one
(asc.adv.Matmul's iterate / get_tensor_c into UB), applies leaky_relu on the vector unit and
copies each block out with DataCopyParams; the tiling comes from asc.lib.host. Prints PASS/FAIL
against numpy, the simulated cycles and the checkers' summary; exits non-zero on a mismatch.
docs/matmul.md describes the instruction sequences behind the Matmul.

    python3 examples/matmul_leakyrelu.py [--m 1024] [--n 640] [--k 256]
"""
import argparse
import os
import sys
from typing import Tuple

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "clients",
                                "python"))

import numpy as np  # noqa: E402

import asc  # noqa: E402
import asc.lib.host as host  # noqa: E402
import asc.lib.runtime as rt  # noqa: E402
import asc.runtime.config as config  # noqa: E402

ALPHA = 0.001


@asc.jit
def block_offsets(tiling: asc.adv.TCubeTiling, is_trans_a: asc.ConstExpr[bool],
                  is_trans_b: asc.ConstExpr[bool]) -> Tuple[int, int, int, int, int, int]:
    """This block's element offsets into A, B, C and the bias, and its tail sizes (block i of
    the launch's vector cores owns one single-core region of C)."""
    block_idx = asc.get_block_idx()
    m_blocks = tiling.m.ceildiv(tiling.single_core_m)
    m_index = block_idx % m_blocks
    n_index = block_idx // m_blocks
    offset_a = m_index * tiling.k_a * tiling.single_core_m
    if is_trans_a:
        offset_a = m_index * tiling.single_core_m
    offset_b = n_index * tiling.single_core_n
    if is_trans_b:
        offset_b = n_index * tiling.k_b * tiling.single_core_n
    offset_c = m_index * tiling.n * tiling.single_core_m + n_index * tiling.single_core_n
    offset_bias = n_index * tiling.single_core_n
    tail_m = tiling.m - m_index * tiling.single_core_m
    if tail_m <= 0 or tail_m >= tiling.single_core_m:
        tail_m = tiling.single_core_m
    tail_n = tiling.n - n_index * tiling.single_core_n
    if tail_n <= 0 or tail_n >= tiling.single_core_n:
        tail_n = tiling.single_core_n
    return offset_a, offset_b, offset_c, offset_bias, tail_m, tail_n


@asc.jit
def matmul_leakyrelu_kernel(a: asc.GlobalAddress, b: asc.GlobalAddress, c: asc.GlobalAddress,
                            bias: asc.GlobalAddress, alpha: float, tiling: asc.adv.TCubeTiling,
                            workspace: asc.GlobalAddress):
    """Each vector core takes its blocks one by one into UB (get_tensor_c), applies leaky_relu
    and copies the block out with DataCopyParams (pyasc's tutorial 05)."""
    asc.set_sys_workspace(workspace)
    offset_a, offset_b, offset_c, offset_bias, tail_m, tail_n = block_offsets(tiling, False,
                                                                              False)
    a_global = asc.GlobalTensor()
    b_global = asc.GlobalTensor()
    c_global = asc.GlobalTensor()
    bias_global = asc.GlobalTensor()
    a_global.set_global_buffer(a + offset_a)
    b_global.set_global_buffer(b + offset_b)
    c_global.set_global_buffer(c + offset_c)
    bias_global.set_global_buffer(bias + offset_bias)
    size = tiling.base_m * tiling.base_n * c.dtype.sizeof()
    pipe = asc.TPipe()
    out_queue = asc.TQue(asc.TPosition.VECOUT, 1)
    pipe.init_buffer(que=out_queue, num=1, len=size)
    matmul = asc.adv.Matmul(
        a=asc.adv.MatmulType(asc.TPosition.GM, asc.CubeFormat.ND, a_global.dtype),
        b=asc.adv.MatmulType(asc.TPosition.GM, asc.CubeFormat.ND, b_global.dtype),
        c=asc.adv.MatmulType(asc.TPosition.VECCALC, asc.CubeFormat.ND, c_global.dtype),
        bias=asc.adv.MatmulType(asc.TPosition.GM, asc.CubeFormat.ND, bias_global.dtype))
    asc.adv.register_matmul(pipe, matmul, tiling)
    matmul.set_tensor_a(a_global)
    matmul.set_tensor_b(b_global)
    matmul.set_bias(bias_global)
    with matmul.iterate() as count:
        out = out_queue.alloc_tensor(c.dtype)
        matmul.get_tensor_c(out, en_sequential_write=True)
        asc.leaky_relu(out, out, alpha, count=tiling.base_m * tiling.base_n)
        out_queue.enque(out)
        out = out_queue.deque(c.dtype)
        round_m = tiling.single_core_m // tiling.base_m
        start = count % round_m * tiling.base_m * tiling.n + count // round_m * tiling.base_n
        params = asc.DataCopyParams(
            block_count=tiling.base_m,
            block_len=tiling.base_n * c.dtype.sizeof() // asc.property(asc.DEFAULT_C0_SIZE),
            src_stride=0,
            dst_stride=(tiling.n - tiling.base_n) * c.dtype.sizeof() //
            asc.property(asc.DEFAULT_C0_SIZE))
        asc.data_copy(c_global[start:], out, repeat_params=params)
        out_queue.free_tensor(out)
    matmul.end()
    asc.pipe_barrier(asc.PipeID.PIPE_ALL)



def make_tiling(m, n, k, cores=2, split=(256, 128, -1)) -> asc.adv.TCubeTiling:
    """The host tiling, as the tutorial asks for it: C in UB, bias on, M first."""
    tiling_api = host.MultiCoreMatmulTiling(host.get_ascendc_platform())
    tiling_api.set_a_type(host.TPosition.GM, host.CubeFormat.ND, host.DataType.DT_FLOAT16, False)
    tiling_api.set_b_type(host.TPosition.GM, host.CubeFormat.ND, host.DataType.DT_FLOAT16, False)
    tiling_api.set_c_type(host.TPosition.VECCALC, host.CubeFormat.ND, host.DataType.DT_FLOAT)
    tiling_api.set_bias_type(host.TPosition.GM, host.CubeFormat.ND, host.DataType.DT_FLOAT)
    tiling_api.set_dim(cores)
    tiling_api.set_org_shape(m, n, k)
    tiling_api.set_shape(m, n, k)
    tiling_api.enable_bias(True)
    tiling_api.set_traverse(host.MatrixTraverse.FIRSTM)
    tiling_api.set_fix_split(*split)
    tiling_api.set_buffer_space(-1, -1, -1)
    tiling = asc.adv.TCubeTiling()
    if tiling_api.get_tiling(tiling) != 0:
        raise SystemExit(f"no tiling for {m}x{n}x{k}")
    return tiling


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--m", type=int, default=1024)
    parser.add_argument("--n", type=int, default=640)
    parser.add_argument("--k", type=int, default=256)
    args = parser.parse_args()
    config.set_platform(config.Backend.Model)
    m, n, k = args.m, args.n, args.k
    rng = np.random.default_rng(0)
    a = rng.integers(-5, 5, (m, k)).astype(np.float16)
    b = rng.integers(-5, 5, (k, n)).astype(np.float16)
    bias = rng.integers(-5, 5, (1, n)).astype(np.float32)
    c = np.zeros((m, n), np.float32)
    tiling = make_tiling(m, n, k)
    workspace = np.zeros(16 * 1024 * 1024, np.uint8)
    report = matmul_leakyrelu_kernel[tiling.used_core_num // 2, rt.current_stream()](
        a, b, c, bias, ALPHA, tiling, workspace)
    want = a.astype(np.float32) @ b.astype(np.float32) + bias
    want = np.where(want >= 0, want, want * np.float32(ALPHA))
    ok = np.allclose(c, want, rtol=1e-3, atol=1e-3)
    print(f"matmul+leaky_relu {m}x{n}x{k} float16 on {tiling.used_core_num // 2} AIC+2AIV "
          f"groups ({rt.transport()}): {'PASS' if ok else 'FAIL'}")
    print(f"simulated: {report.cycles} cycles, {report.duration_us:.3f} us")
    print(f"checkers ({report.check.level}): {report.check.summary}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
