"""A matmul hand-pipelined with the basic cube API, as hardware-910b.md 7.1 row 7's source
writes one (data_copy ND -> NZ into L1, load_data into L0A / L0B, mmad, fixpipe, with
set_flag / wait_flag between the pipes instead of barriers), on aicore-sim's cube cores: each
core computes one single-core region of C = A x B^T (A M x K, B N x K, both half; C half) in
base blocks of 128 x 256 x 64. A and B come to L1 in chunks of four K slices, two slots each,
so MTE2 fills one while MTE1 loads from the other; L0A and L0B have two slots, so MTE1 fills one
while the cube multiplies from the other; L0C holds one block, which Fixpipe drains to GM while
the next block's copies run. `--rounds 2` is the L2 split: the cores compute M's halves one
after the other. Prints PASS/FAIL against numpy (or, with --timing-only, the cycles alone),
the simulated cycles and the checkers' summary.

Shapes: M a multiple of rounds x the single-core M, the single-core sizes multiples of the base
block, N's last region (its tail) a multiple of 256 too, K a multiple of 256, and one region
per core a round.

    python3 examples/matmul_basic_api.py [--m 512 --n 1024 --k 512 --single 256,512 --cores 4]
"""
import argparse
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "clients",
                                "python"))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import numpy as np  # noqa: E402

import asc  # noqa: E402
import asc.lib.runtime as rt  # noqa: E402
import asc.runtime.config as config  # noqa: E402
from matmul_tuning import ints  # noqa: E402

BM, BN, BK = 128, 256, 64  # the base block
STEP = 4                   # K slices per GM -> L1 copy
CHUNK_A = BM * BK * STEP   # elements of one L1 slot of A (64 KiB), of B (128 KiB)
CHUNK_B = BN * BK * STEP
H = asc.HardEvent


@asc.jit
def multiply_block(a_gm, b_gm, a_l1, b_l1, a_l0, b_l0, c_l0, row, col, chunk0,
                   k: asc.ConstExpr[int]):
    """L0C = A[row : row + BM, :] x B[col : col + BN, :]^T: K in chunks of STEP slices. Chunk
    `chunk0 + i` of the launch uses L1 slot (chunk0 + i) % 2, its slices L0 slots in turn."""
    chunks = k // (BK * STEP)
    for i in range(chunks):
        g = chunk0 + i
        slot = g % 2
        asc.wait_flag(H.MTE1_MTE2, slot)
        asc.data_copy(a_l1[slot * CHUNK_A:], a_gm[row * k + i * BK * STEP:],
                      asc.Nd2NzParams(1, BM, BK * STEP, 0, k, BM, 1, 0))
        asc.data_copy(b_l1[slot * CHUNK_B:], b_gm[col * k + i * BK * STEP:],
                      asc.Nd2NzParams(1, BN, BK * STEP, 0, k, BN, 1, 0))
        asc.set_flag(H.MTE2_MTE1, slot)
        asc.wait_flag(H.MTE2_MTE1, slot)
        for s in range(STEP):
            l0 = (g * STEP + s) % 2
            asc.wait_flag(H.M_MTE1, l0)
            # A's slice: K panels 4s .. 4s + 3 of the chunk, one load per band of 16 rows.
            a_slice = a_l1[slot * CHUNK_A + s * BK * BM:]
            for band in asc.static_range(BM // 16):
                asc.load_data(a_l0[l0 * BM * BK + band * BK * 16:], a_slice[band * 256:],
                              asc.LoadData2DParams(0, BK // 16, BM // 16, 0, 0, False, 0))
            # B's slice (N x K as stored, NZ in L1): its fractals in one load.
            asc.load_data(b_l0[l0 * BN * BK:], b_l1[slot * CHUNK_B + s * BK * BN:],
                          asc.LoadData2DParams(0, (BK // 16) * (BN // 16), 1, 0, 0, False, 0))
            asc.set_flag(H.MTE1_M, l0)
            asc.wait_flag(H.MTE1_M, l0)
            # 8 x 16 fractals of C: the cube orders the accumulating mmads itself.
            asc.mmad(c_l0, a_l0[l0 * BM * BK:], b_l0[l0 * BN * BK:],
                     asc.MmadParams(m=BM, n=BN, k=BK, unit_flag=0, cmatrix_source=False,
                                    cmatrix_init_val=i == 0 and s == 0))
            asc.set_flag(H.M_MTE1, l0)
        asc.set_flag(H.MTE1_MTE2, slot)


@asc.jit(matmul_cube_only=True, kernel_type=config.KernelType.AIC_ONLY)
def basic_matmul(a: asc.GlobalAddress, b: asc.GlobalAddress, c: asc.GlobalAddress,
                 m: asc.ConstExpr[int], n: asc.ConstExpr[int], k: asc.ConstExpr[int],
                 single_m: asc.ConstExpr[int], single_n: asc.ConstExpr[int],
                 rounds: asc.ConstExpr[int]):
    """Core i computes region i of each round (M index first; the last column of regions may be
    narrower), its base blocks M first."""
    if asc.ascend_is_aic():
        a_gm, b_gm, c_gm = asc.GlobalTensor(), asc.GlobalTensor(), asc.GlobalTensor()
        a_gm.set_global_buffer(a)
        b_gm.set_global_buffer(b)
        c_gm.set_global_buffer(c)
        a_l1 = asc.LocalTensor(asc.float16, asc.TPosition.A1, 0, 2 * CHUNK_A)
        b_l1 = asc.LocalTensor(asc.float16, asc.TPosition.B1, 2 * CHUNK_A * 2, 2 * CHUNK_B)
        a_l0 = asc.LocalTensor(asc.float16, asc.TPosition.A2, 0, 2 * BM * BK)
        b_l0 = asc.LocalTensor(asc.float16, asc.TPosition.B2, 0, 2 * BN * BK)
        c_l0 = asc.LocalTensor(asc.float32, asc.TPosition.CO1, 0, BM * BN)
        for slot in asc.static_range(2):  # every slot starts free
            asc.set_flag(H.MTE1_MTE2, slot)
            asc.set_flag(H.M_MTE1, slot)
        asc.set_flag(H.FIX_M, 0)
        round_m = m // rounds
        m_regions = round_m // single_m
        m_blocks = single_m // BM
        chunks = k // (BK * STEP)
        block = asc.get_block_idx()
        col0 = block // m_regions * single_n
        cols = n - col0
        if cols > single_n:
            cols = single_n
        blocks = m_blocks * (cols // BN)
        for r in range(rounds):
            row0 = r * round_m + block % m_regions * single_m
            for bi in range(blocks):
                row = row0 + bi % m_blocks * BM
                col = col0 + bi // m_blocks * BN
                asc.wait_flag(H.FIX_M, 0)
                multiply_block(a_gm, b_gm, a_l1, b_l1, a_l0, b_l0, c_l0, row, col,
                               (r * blocks + bi) * chunks, k)
                asc.set_flag(H.M_FIX, 0)
                asc.wait_flag(H.M_FIX, 0)
                asc.fixpipe(c_gm[row * n + col:], c_l0,
                            asc.FixpipeParamsV220(n_size=BN, m_size=BM, src_stride=BM,
                                                  dst_stride=n, quant_pre=asc.QuantModes.F322F16),
                            asc.FixpipeConfig.cfg_row_major())
                asc.set_flag(H.FIX_M, 0)
        for slot in asc.static_range(2):  # the flags the last uses left set
            asc.wait_flag(H.MTE1_MTE2, slot)
            asc.wait_flag(H.M_MTE1, slot)
        asc.wait_flag(H.FIX_M, 0)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--m", type=int, default=512)
    parser.add_argument("--n", type=int, default=1024)
    parser.add_argument("--k", type=int, default=512)
    parser.add_argument("--single", type=ints(2), default=(256, 512), help="single-core M,N")
    parser.add_argument("--cores", type=int, default=4)
    parser.add_argument("--rounds", type=int, default=1, help="L2 split: rounds along M")
    parser.add_argument("--timing-only", action="store_true",
                        help="cycles only, no element math (docs/timing_only.md)")
    args = parser.parse_args()
    m, n, k = args.m, args.n, args.k
    sm, sn = args.single
    regions = (m // args.rounds // sm) * -(-n // sn)
    if (m % (args.rounds * sm) or sm % BM or sn % BN or (n % sn) % BN or k % (BK * STEP)
            or regions != args.cores):
        parser.error(f"need M a multiple of rounds x single M, single sizes and N's tail "
                     f"multiples of {BM} x {BN}, K of {BK * STEP}, and one region per core a "
                     f"round ({regions} regions for {args.cores} cores)")
    config.set_platform(config.Backend.Model)
    rng = np.random.default_rng(7)
    make = np.zeros if args.timing_only else (
        lambda shape, dtype: rng.uniform(-1, 1, shape).astype(dtype))
    a = make((m, k), np.float16)
    b = make((n, k), np.float16)
    c = np.zeros((m, n), np.float16)
    report = basic_matmul[args.cores, rt.current_stream()](a, b, c, m, n, k, sm, sn, args.rounds,
                                                           timing_only=args.timing_only)
    ok = True
    verdict = "timing-only, results not computed"
    if not args.timing_only:
        want = a.astype(np.float32) @ b.astype(np.float32).T
        ok = bool(np.allclose(c.astype(np.float32), want, atol=2e-2, rtol=2e-3))
        verdict = "PASS" if ok else "FAIL"
    print(f"basic-API matmul {m}x{n}x{k} float16 on {args.cores} cube cores, {args.rounds} "
          f"round(s) ({rt.transport()}): {verdict}")
    print(f"simulated: {report.cycles} cycles, {report.duration_us:.3f} us, bound pipe "
          f"{report.bound_pipe}")
    print(f"checkers ({report.check.level}): {report.check.summary}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
