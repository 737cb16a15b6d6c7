"""A linear layer C = A x W^T with raw cube instructions, as pyasc's linear_kernel_direct writes
it (asc-api.md 10.6), run on aicore-sim's cube cores: static A1/A2/B2/CO1 tensors, A's K slices
copied ND -> NZ into L1, the NZ weight copied with DataCopyParams, load_data into L0A/L0B, mmad
over the K slices (the first overwrites L0C, the later ones accumulate) and fixpipe out of L0C
with float32 -> float16 conversion, PIPE_ALL barriers between the stages. Prints PASS/FAIL
against numpy, the simulated time and what bounds it; exits non-zero on a mismatch.

Layouts (float16 inputs): A is M x K row-major; W is the N x K weight stored NZ, K panels of 16
(element (j, c) at ((c // 16) * N + j) * 16 + c % 16); C is M x N row-major, float16
(quant=F322F16) or float32 (quant=NoQuant). M, N, K, the tiles and quant are compile-time (one
compilation each): K a multiple of TILE_K; M a multiple of TILE_M; TILE_M, TILE_N and TILE_K
multiples of 16, with TILE_M x TILE_K and TILE_K x TILE_N halves fitting L0A / L0B (64 KiB
each), TILE_M x TILE_N floats fitting L0C (128 KiB), and both halves' slices fitting L1 (512 KiB).

    python3 examples/linear_cube.py [--m 256] [--n 256] [--k 512] [--cores 4]
"""
import argparse
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "clients",
                                "python"))

import numpy as np  # noqa: E402

import asc  # noqa: E402
import asc.lib.runtime as rt  # noqa: E402
import asc.runtime.config as config  # noqa: E402

FRACTAL = 16          # rows and columns of a 16 x 16 b16 fractal
FRACTAL_ELEMS = 256   # elements of one fractal (512 bytes of float16)


@asc.jit
def accumulate_tile(a_gm, w_gm, a_l1, w_l1, a_l0, w_l0, c_l0, row0, n0, m_act, n_act,
                    n: asc.ConstExpr[int], k: asc.ConstExpr[int], tile_m: asc.ConstExpr[int],
                    tile_n: asc.ConstExpr[int], tile_k: asc.ConstExpr[int]):
    """c_l0 = A[row0 : row0 + m_act, :] x W[n0 : n0 + n_act, :]^T, one K slice at a time."""
    panels = tile_k // FRACTAL  # K panels of 16 columns in one slice
    for k0 in range(0, k, tile_k):
        first = k0 == 0
        # A's slice, m_act x tile_k, lands in L1 as panels of tile_m rows x 16 columns.
        asc.data_copy(a_l1, a_gm[row0 * k + k0:],
                      asc.Nd2NzParams(1, m_act, tile_k, 0, k, tile_m, 1, 0))
        # W's slice: one chunk of n_act rows (16 K values each) per K panel.
        asc.data_copy(w_l1, w_gm[(k0 // FRACTAL) * n * FRACTAL + n0 * FRACTAL:],
                      asc.DataCopyParams(panels, n_act, n - n_act, tile_n - n_act))
        asc.pipe_barrier(asc.PipeID.PIPE_ALL)
        # L0A: per 16-row band, its panels' fractals one after the other.
        for band in asc.static_range(tile_m // FRACTAL):
            asc.load_data(a_l0[band * panels * FRACTAL_ELEMS:], a_l1[band * FRACTAL_ELEMS:],
                          asc.LoadData2DParams(0, panels, tile_m // FRACTAL, 0, 0, False, 0))
        asc.load_data(w_l0, w_l1,
                      asc.LoadData2DParams(0, tile_k * tile_n // FRACTAL_ELEMS, 1, 0, 0, False, 0))
        asc.pipe_barrier(asc.PipeID.PIPE_ALL)
        asc.mmad(c_l0, a_l0, w_l0,
                 asc.MmadParams(m=m_act, n=n_act, k=tile_k, unit_flag=0, cmatrix_source=False,
                                cmatrix_init_val=first))
        asc.pipe_barrier(asc.PipeID.PIPE_ALL)


@asc.jit(matmul_cube_only=True, kernel_type=config.KernelType.AIC_ONLY)
def linear_cube_kernel(a: asc.GlobalAddress, w: asc.GlobalAddress, c: asc.GlobalAddress,
                       m: asc.ConstExpr[int], n: asc.ConstExpr[int], k: asc.ConstExpr[int],
                       tile_m: asc.ConstExpr[int], tile_n: asc.ConstExpr[int],
                       tile_k: asc.ConstExpr[int], quant: asc.ConstExpr):
    """C's tiles, tile_m x tile_n each, shared out over the cube cores. `quant` is the fixpipe's
    asc.QuantModes: F322F16 for a float16 C (pyasc's example), NoQuant for a float32 C."""
    if asc.ascend_is_aic():
        a_gm, w_gm, c_gm = asc.GlobalTensor(), asc.GlobalTensor(), asc.GlobalTensor()
        a_gm.set_global_buffer(a)
        w_gm.set_global_buffer(w)
        c_gm.set_global_buffer(c)
        # pyasc's example declares 1024 * 1024 bytes here, more than the 512 KiB L1 of 910B: that
        # runs (accesses are checked, not declarations) but warns when the launch starts.
        l1 = asc.LocalTensor(asc.uint8, asc.TPosition.A1, 0, 512 * 1024)
        l0a = asc.LocalTensor(asc.uint8, asc.TPosition.A2, 0, 64 * 1024)
        l0b = asc.LocalTensor(asc.uint8, asc.TPosition.B2, 0, 64 * 1024)
        l0c = asc.LocalTensor(asc.uint8, asc.TPosition.CO1, 0, 128 * 1024)
        a_l1 = l1.reinterpret_cast(asc.float16)
        w_l1 = l1[tile_m * tile_k * asc.float16.sizeof():].reinterpret_cast(asc.float16)
        a_l0 = l0a.reinterpret_cast(asc.float16)
        w_l0 = l0b.reinterpret_cast(asc.float16)
        c_l0 = l0c.reinterpret_cast(asc.float32)
        m_tiles = asc.ceildiv(m, tile_m)
        tiles = m_tiles * asc.ceildiv(n, tile_n)
        for tile in asc.range(asc.get_block_idx(), tiles, asc.get_block_num()):
            row0 = (tile % m_tiles) * tile_m
            n0 = (tile // m_tiles) * tile_n
            m_act = tile_m if m - row0 > tile_m else m - row0
            n_act = tile_n if n - n0 > tile_n else n - n0
            accumulate_tile(a_gm, w_gm, a_l1, w_l1, a_l0, w_l0, c_l0, row0, n0, m_act, n_act,
                            n, k, tile_m, tile_n, tile_k)
            # src_stride: one 16-column band of L0C is tile_m rows high.
            asc.fixpipe(c_gm[row0 * n + n0:], c_l0,
                        asc.FixpipeParamsV220(n_size=n_act, m_size=m_act, src_stride=tile_m,
                                              dst_stride=n, quant_pre=quant),
                        asc.FixpipeConfig.cfg_row_major())
            asc.pipe_barrier(asc.PipeID.PIPE_ALL)


def nz_weight(w):
    """W (N x K) as the kernel reads it: K panels of 16 columns, each N rows of 16."""
    n, k = w.shape
    return np.ascontiguousarray(w.reshape(n, k // FRACTAL, FRACTAL).transpose(1, 0, 2))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--m", type=int, default=256)
    parser.add_argument("--n", type=int, default=256)
    parser.add_argument("--k", type=int, default=512)
    parser.add_argument("--cores", type=int, default=4)
    args = parser.parse_args()
    m, n, k = args.m, args.n, args.k
    tile_m, tile_n, tile_k = 64, 64, 256
    if m % tile_m or n % FRACTAL or k % tile_k:
        parser.error(f"m must be a multiple of {tile_m}, n of {FRACTAL}, k of {tile_k}")

    config.set_platform(config.Backend.Model)
    rng = np.random.default_rng(2024)
    a = rng.uniform(-1, 1, (m, k)).astype(np.float16)
    w = rng.uniform(-1, 1, (n, k)).astype(np.float16)
    c = np.zeros((m, n), np.float16)
    report = linear_cube_kernel[args.cores, rt.current_stream()](
        a, nz_weight(w), c, m, n, k, tile_m, tile_n, tile_k, asc.QuantModes.F322F16)
    exact = a.astype(np.float64) @ w.astype(np.float64).T
    err = np.abs(c.astype(np.float64) - exact)
    # One float16 rounding of the output, and float32 sums: within a float16 ulp and a bit.
    ok = bool(np.all(err <= np.abs(exact) * 2.0 ** -10 + 2e-3))
    print(f"linear {m}x{n}x{k} float16 on {args.cores} cube cores ({rt.transport()}): "
          f"{'PASS' if ok else 'FAIL'} (max |C - float64| = {err.max():.2e})")
    print(f"simulated: {report.cycles} cycles, {report.duration_us:.3f} us at "
          f"{report.clock_mhz:.0f} MHz on {report.platform}; bound by PIPE_{report.bound_pipe}")
    print(f"checkers ({report.check.level}): {report.check.summary}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
