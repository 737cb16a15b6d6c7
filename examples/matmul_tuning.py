"""Tune a Matmul as hardware-910b.md 7.1's cases do, on aicore-sim: asc.adv.Matmul on the cube
cores (matmul_cube_only), one single-core block of C per core, with the template (Norm or MDL),
the tiling's base shape, L1 steps and depths, UnitFlag, a transposed B, a half C and an L2 split
in rounds as switches. Prints PASS/FAIL against numpy, the simulated cycles, the bound pipe and
each pipe's busy time; `--timing-only` gives the cycles of shapes too large to compute here
(docs/timing_only.md), e.g. row 6's Case5:

    python3 examples/matmul_tuning.py --m 8192 --n 8192 --k 8192 --cores 24 --single 2048,1536 \\
        --base 128,256,64 --steps 8,4 --depths 16,8 --mdl --trans-b --half-c --timing-only
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
from matmul_leakyrelu import block_offsets  # noqa: E402


def half_matmul(cfg, trans_b, c_half):
    """A Matmul of half A and B (B transposed with trans_b) into float or half C in GM."""
    return asc.adv.Matmul(
        asc.adv.MatmulType(asc.TPosition.GM, asc.CubeFormat.ND, asc.float16),
        asc.adv.MatmulType(asc.TPosition.GM, asc.CubeFormat.ND, asc.float16, trans_b),
        asc.adv.MatmulType(asc.TPosition.GM, asc.CubeFormat.ND,
                           asc.float16 if c_half else asc.float32),
        matmul_config=cfg)


@asc.jit(matmul_cube_only=True)
def tuned_matmul(a: asc.GlobalAddress, b: asc.GlobalAddress, c: asc.GlobalAddress,
                 tiling: asc.adv.TCubeTiling, mode: asc.ConstExpr, unit_flag: asc.ConstExpr[bool],
                 trans_b: asc.ConstExpr[bool], c_half: asc.ConstExpr[bool],
                 rounds: asc.ConstExpr[int], preload: asc.ConstExpr[int]):
    """One single-core block of C per cube core (its M index, then its N index), its tails set,
    iterate_all into C. B as stored K x N, or N x K with trans_b; C float32, or half. With
    rounds > 1 (L2 split, hardware-910b.md 7.1 row 6 Case6) the tiling covers 1 / rounds of M
    and the cores compute the rounds one after the other, so that a round's A and all of B can
    stay in L2. preload is the MDL config's do_mte2_preload (1: A, 2: B one block ahead)."""
    cfg = asc.adv.get_mm_config(mode).replace(en_unit_flag=unit_flag, do_mte2_preload=preload)
    if asc.ascend_is_aic():
        offset_a, offset_b, offset_c, _, tail_m, tail_n = block_offsets(tiling, False, trans_b)
        pipe = asc.TPipe()
        mm = half_matmul(cfg, trans_b, c_half)
        asc.adv.register_matmul(pipe, mm, tiling)
        if asc.get_block_idx() < tiling.used_core_num:
            for r in range(rounds):
                a_gm = asc.GlobalTensor()
                b_gm = asc.GlobalTensor()
                c_gm = asc.GlobalTensor()
                a_gm.set_global_buffer(a + offset_a + r * tiling.m * tiling.k_a)
                b_gm.set_global_buffer(b + offset_b)
                c_gm.set_global_buffer(c + offset_c + r * tiling.m * tiling.n)
                mm.set_tensor_a(a_gm)
                mm.set_tensor_b(b_gm, trans_b)
                mm.set_tail(tail_m, tail_n, tiling.k_a)
                mm.iterate_all(c_gm)
        mm.end()


@asc.jit(matmul_cube_only=True)
def constant_matmul(a: asc.GlobalAddress, b: asc.GlobalAddress, c: asc.GlobalAddress,
                    m: asc.ConstExpr[int], n: asc.ConstExpr[int], k: asc.ConstExpr[int],
                    single_m: asc.ConstExpr[int], single_n: asc.ConstExpr[int],
                    base_m: asc.ConstExpr[int], base_n: asc.ConstExpr[int],
                    base_k: asc.ConstExpr[int], trans_b: asc.ConstExpr[bool],
                    c_half: asc.ConstExpr[bool], unit_flag: asc.ConstExpr[bool]):
    """tuned_matmul's MDL Matmul with every size a compile-time constant: a full constant tiling
    (hardware-910b.md 7.1 rows 14 and 6 Case7), its L1 steps and depths derived from the shapes
    as Ascend C's GetMatmulApiTiling does (docs/matmul.md); no bias."""
    cfg = asc.adv.get_mm_config(
        asc.adv.MatmulShapeParams(single_m, single_n, k, base_m, base_n, base_k),
        asc.MatmulConfigMode.CONFIG_MDL).replace(en_unit_flag=unit_flag, enable_set_bias=False)
    if asc.ascend_is_aic():
        m_blocks = (m + single_m - 1) // single_m
        block = asc.get_block_idx()
        row = block % m_blocks * single_m
        col = block // m_blocks * single_n
        tail_m = m - row
        if tail_m > single_m:
            tail_m = single_m
        tail_n = n - col
        if tail_n > single_n:
            tail_n = single_n
        a_gm = asc.GlobalTensor()
        b_gm = asc.GlobalTensor()
        c_gm = asc.GlobalTensor()
        a_gm.set_global_buffer(a + row * k)
        b_gm.set_global_buffer(b + (col * k if trans_b else col))
        c_gm.set_global_buffer(c + row * n + col)
        pipe = asc.TPipe()
        mm = half_matmul(cfg, trans_b, c_half)
        asc.adv.register_matmul(pipe, mm)
        mm.set_org_shape(m, n, k, k)
        mm.set_tensor_a(a_gm)
        mm.set_tensor_b(b_gm, trans_b)
        mm.set_tail(tail_m, tail_n, k)
        mm.iterate_all(c_gm)
        mm.end()


def tiling_of(m, n, k, cores, single, base, steps, depths):
    """A TCubeTiling with these sizes (m: one round's rows), one single-core block per core."""
    sm, sn = single
    bm, bn, bk = base
    return asc.adv.TCubeTiling(used_core_num=cores, m=m, n=n, k_a=k, k_b=k, single_core_m=sm,
                               single_core_n=sn, single_core_k=k, base_m=bm, base_n=bn,
                               base_k=bk, depth_a1=depths[0], depth_b1=depths[1], step_m=1,
                               step_n=1, step_k_a=steps[0], step_k_b=steps[1], db_l0a=2,
                               db_l0b=2, db_l0c=1)


def ints(count):
    """An argparse type: `count` positive integers separated by commas ("128,256,64")."""
    def parse(text):
        values = tuple(int(v) for v in text.split(","))
        if len(values) != count or min(values) <= 0:
            raise argparse.ArgumentTypeError(f"expected {count} positive integers, got {text!r}")
        return values
    return parse


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--m", type=int, default=512)
    parser.add_argument("--n", type=int, default=1024)
    parser.add_argument("--k", type=int, default=512)
    parser.add_argument("--cores", type=int, default=4, help="cube cores (the tiling's grid)")
    parser.add_argument("--single", type=ints(2), default=(256, 512),
                        help="single-core block M,N (default 256,512)")
    parser.add_argument("--base", type=ints(3), default=(128, 256, 64),
                        help="base block M,N,K (default 128,256,64)")
    parser.add_argument("--steps", type=ints(2), default=(4, 4),
                        help="stepKa,stepKb: base_k slices per GM -> L1 copy (default 4,4)")
    parser.add_argument("--depths", type=ints(2), default=(8, 8),
                        help="depthA1,depthB1: slices in L1, one or two slots (default 8,8)")
    parser.add_argument("--mdl", action="store_true", help="the MDL template (default Norm)")
    parser.add_argument("--unit-flag", action="store_true", help="UnitFlag (en_unit_flag)")
    parser.add_argument("--trans-b", action="store_true", help="B stored N x K")
    parser.add_argument("--half-c", action="store_true", help="C in float16 (default float32)")
    parser.add_argument("--rounds", type=int, default=1, help="L2 split: rounds along M")
    parser.add_argument("--preload", type=int, choices=(0, 1, 2), default=0,
                        help="MDL's MTE2 preload: 1 A (along M), 2 B (along N) one block ahead; "
                             "K whole in L1 and two slots of that operand needed")
    parser.add_argument("--constant", action="store_true",
                        help="MDL with a full constant tiling (its steps and depths derived from "
                             "the shapes; --steps, --depths, --rounds, --preload unused)")
    parser.add_argument("--timing-only", action="store_true",
                        help="skip the element math: cycles only (docs/timing_only.md)")
    parser.add_argument("--platform", default="Ascend910B1")
    args = parser.parse_args()
    if args.m % args.rounds:
        parser.error(f"--rounds {args.rounds} must divide --m {args.m}")
    config.set_platform(config.Backend.Model, config.Platform(args.platform))
    m, n, k = args.m, args.n, args.k
    make = np.zeros if args.timing_only else (
        lambda shape, dtype: np.random.default_rng(len(shape)).uniform(-1, 1, shape).astype(dtype))
    a = make((m, k), np.float16)
    b = make((n, k) if args.trans_b else (k, n), np.float16)
    c = np.zeros((m, n), np.float16 if args.half_c else np.float32)
    tiling = tiling_of(m // args.rounds, n, k, args.cores, args.single, args.base, args.steps,
                       args.depths)
    mode = asc.MatmulConfigMode.CONFIG_MDL if args.mdl else asc.MatmulConfigMode.CONFIG_NORM
    if args.constant:
        report = constant_matmul[args.cores, rt.current_stream()](
            a, b, c, m, n, k, *args.single, *args.base, args.trans_b, args.half_c,
            args.unit_flag, timing_only=args.timing_only)
    else:
        report = tuned_matmul[args.cores, rt.current_stream()](
            a, b, c, tiling, mode, args.unit_flag, args.trans_b, args.half_c, args.rounds,
            args.preload, timing_only=args.timing_only)
    template = "MDL, constant tiling" if args.constant else "MDL" if args.mdl else "Norm"
    verdict = "timing-only, results not computed"
    ok = True
    if not args.timing_only:
        want = a.astype(np.float32) @ (b.T if args.trans_b else b).astype(np.float32)
        ok = np.allclose(c.astype(np.float32), want, atol=2e-2 if args.half_c else 1e-3,
                         rtol=2e-3 if args.half_c else 1e-4)
        verdict = "PASS" if ok else "FAIL"
    print(f"matmul {m}x{n}x{k} float16, {template}, {args.cores} cube cores "
          f"({rt.transport()}): {verdict}")
    print(f"simulated: {report.cycles} cycles, {report.duration_us:.3f} us, bound pipe "
          f"{report.bound_pipe}")
    core = max(report.cores, key=lambda cr: cr.cycles)
    busy = ", ".join(f"{name} {p.busy_cycles}" for name, p in sorted(core.pipes.items()))
    print(f"busiest core {core.core}: {core.cycles} cycles; busy {busy}")
    print(f"checkers ({report.check.level}): {report.check.summary}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
