"""Benchmark: simulate one large fp16 matmul on one cube core (C = A x B^T through L1, L0A/L0B
and L0C, K in slices, A1/B1/A2/B2/CO1 queues) and time it against numpy's float32 matmul of the
same shape, in the same run. Prints both wall times, the ratio simulator/numpy, the simulated
cycles and M-pipe utilisation, and the share of the simulation spent in the cube's semantics:
the same launch with every mmad made empty (m = 0, so the cube computes nothing while every
other instruction runs) gives the rest; the difference is the cube's math. Compilation is
excluded from the timed runs.

    python3 bench/mmad_large.py [--m 256] [--n 256] [--k 2048] [--repeat 3]
"""
import argparse
import os
import statistics
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "clients",
                                "python"))

import numpy as np  # noqa: E402

import asc  # noqa: E402
import asc.lib.runtime as rt  # noqa: E402
import asc.runtime.config as config  # noqa: E402

TILE_M, TILE_N, TILE_K = 128, 128, 64


@asc.jit(matmul_cube_only=True)
def matmul_kernel(a: asc.GlobalAddress, bt: asc.GlobalAddress, c: asc.GlobalAddress,
                  m: asc.ConstExpr[int], n: asc.ConstExpr[int], k: asc.ConstExpr[int],
                  compute: asc.ConstExpr[bool]):
    """C (m x n, float32) = A (m x k) x B^T (n x k)^T, all ND fp16/float32 in GM, in 128 x 128
    tiles with K slices of 64; `compute` False makes every mmad empty (the benchmark's
    baseline)."""
    a_gm, bt_gm, c_gm = asc.GlobalTensor(), asc.GlobalTensor(), asc.GlobalTensor()
    a_gm.set_global_buffer(a)
    bt_gm.set_global_buffer(bt)
    c_gm.set_global_buffer(c)
    pipe = asc.TPipe()
    q_a1 = asc.TQue(asc.TPosition.A1, 2)
    q_b1 = asc.TQue(asc.TPosition.B1, 2)
    q_a2 = asc.TQue(asc.TPosition.A2, 2)
    q_b2 = asc.TQue(asc.TPosition.B2, 2)
    q_co1 = asc.TQue(asc.TPosition.CO1, 1)
    pipe.init_buffer(q_a1, 2, TILE_M * TILE_K * 2)
    pipe.init_buffer(q_b1, 2, TILE_N * TILE_K * 2)
    pipe.init_buffer(q_a2, 2, TILE_M * TILE_K * 2)
    pipe.init_buffer(q_b2, 2, TILE_N * TILE_K * 2)
    pipe.init_buffer(q_co1, 1, TILE_M * TILE_N * 4)
    panels = TILE_K // 16
    mm = TILE_M if compute else 0
    for row0 in range(0, m, TILE_M):
        for n0 in range(0, n, TILE_N):
            c_l0 = q_co1.alloc_tensor(asc.float32)
            for k0 in range(0, k, TILE_K):
                a1 = q_a1.alloc_tensor(asc.float16)
                asc.data_copy(a1, a_gm[row0 * k + k0:],
                              asc.Nd2NzParams(1, TILE_M, TILE_K, 0, k, TILE_M, 1, 0))
                q_a1.enque(a1)
                b1 = q_b1.alloc_tensor(asc.float16)
                asc.data_copy(b1, bt_gm[n0 * k + k0:],
                              asc.Nd2NzParams(1, TILE_N, TILE_K, 0, k, TILE_N, 1, 0))
                q_b1.enque(b1)
                a1 = q_a1.deque(asc.float16)
                a2 = q_a2.alloc_tensor(asc.float16)
                for band in asc.static_range(TILE_M // 16):
                    asc.load_data(a2[band * panels * 256:], a1[band * 256:],
                                  asc.LoadData2DParams(0, panels, TILE_M // 16, 0, 0, False, 0))
                q_a2.enque(a2)
                q_a1.free_tensor(a1)
                b1 = q_b1.deque(asc.float16)
                b2 = q_b2.alloc_tensor(asc.float16)
                asc.load_data(b2, b1, asc.LoadData2DParams(0, panels * TILE_N // 16, 1, 0, 0,
                                                           False, 0))
                q_b2.enque(b2)
                q_b1.free_tensor(b1)
                a2 = q_a2.deque(asc.float16)
                b2 = q_b2.deque(asc.float16)
                # 64 fractals of C: the cube orders the accumulation itself (3.4).
                asc.mmad(c_l0, a2, b2, asc.MmadParams(m=mm, n=TILE_N, k=TILE_K, unit_flag=0,
                                                      cmatrix_source=False,
                                                      cmatrix_init_val=k0 == 0))
                q_a2.free_tensor(a2)
                q_b2.free_tensor(b2)
            q_co1.enque(c_l0)
            c_l0 = q_co1.deque(asc.float32)
            asc.fixpipe(c_gm[row0 * n + n0:], c_l0,
                        asc.FixpipeParamsV220(n_size=TILE_N, m_size=TILE_M, src_stride=TILE_M,
                                              dst_stride=n))
            q_co1.free_tensor(c_l0)


def timed(fn, repeat):
    times = []
    result = None
    for _ in range(repeat):
        start = time.perf_counter()
        result = fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times), result


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--m", type=int, default=256)
    parser.add_argument("--n", type=int, default=256)
    parser.add_argument("--k", type=int, default=2048)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    m, n, k = args.m, args.n, args.k
    if m % TILE_M or n % TILE_N or k % TILE_K:
        parser.error(f"m and n must be multiples of {TILE_M}, k of {TILE_K}")
    config.set_platform(config.Backend.Model)
    rng = np.random.default_rng(0)
    a = rng.uniform(-1, 1, (m, k)).astype(np.float16)
    bt = rng.uniform(-1, 1, (n, k)).astype(np.float16)
    c = np.zeros((m, n), np.float32)

    def launch(compute):
        return matmul_kernel[1, rt.current_stream()](a, bt, c, m, n, k, compute)

    start = time.perf_counter()
    launch(True)
    launch(False)
    compile_s = time.perf_counter() - start
    sim_s, report = timed(lambda: launch(True), args.repeat)
    result = c.copy()
    base_s, _ = timed(lambda: launch(False), args.repeat)
    a32, b32 = a.astype(np.float32), bt.astype(np.float32)
    np_s, want = timed(lambda: a32 @ b32.T, max(args.repeat, 5))
    err = float(np.abs(result - want).max())
    macs = m * n * k
    busy = report.pipe_busy_cycles("M")
    print(f"matmul {m}x{n}x{k} fp16 -> fp32 on 1 cube core ({macs / 1e6:.0f}M MACs), "
          f"median of {args.repeat}")
    print(f"  simulator   {sim_s * 1e3:9.1f} ms   ({compile_s * 1e3:.0f} ms compile + first runs, "
          f"excluded)")
    print(f"  numpy fp32  {np_s * 1e3:9.2f} ms   max |sim - numpy| = {err:.2e}")
    print(f"  ratio       {sim_s / np_s:9.2f} x   simulator/numpy")
    print(f"  cycles      {report.cycles:9d}      M busy {busy} ({busy / report.cycles:.0%}), "
          f"bound_pipe {report.bound_pipe}")
    share = max(0.0, sim_s - base_s) / sim_s
    print(f"  cube math   {share:9.0%}      of the simulation ({(sim_s - base_s) * 1e3:.1f} ms; "
          f"{base_s * 1e3:.1f} ms with empty mmads); "
          f"{macs / max(sim_s - base_s, 1e-9) / 1e9:.2f} G MAC/s")


if __name__ == "__main__":
    main()
