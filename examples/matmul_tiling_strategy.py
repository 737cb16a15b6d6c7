"""The Matmul tiling strategy case of the devkit's Matmul tuning guide on aicore-sim: A (M x K)
and B (K x N) half, C float, all ND in GM; asc.adv.Matmul called from the vector side of a mixed
kernel, each vector core setting its block's A, B and C and calling iterate_all into C, as the
devkit's matmul sample does. The tiling is split over the vector cores (2 x the launch's
blocks: Ascend C's SetDim(usedCoreNum)) with SetFixSplit(baseM, baseN, -1); the template is Norm
or, with --mdl, MDL (the guide's "big packet" loads). Prints the tiling, PASS/FAIL against
numpy, the simulated cycles and the cube cores' average MTE2 busy time; `--timing-only` gives
the cycles of the guide's own shape (docs/timing_only.md), e.g. its last step:

    python3 examples/matmul_tiling_strategy.py --m 4096 --n 5120 --k 4096 --blocks 20 \\
        --split 128,256 --mdl --timing-only

Source: asc-devkit docs/zh/guide/算子实践参考/优秀实践/Matmul性能调优案例/
Matmul算子优化Tiling策略.md (hardware-910b.md 7 [DK-mmtiling]).
"""
import argparse
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "clients",
                                "python"))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import numpy as np  # noqa: E402

import asc  # noqa: E402
import asc.lib.host as host  # noqa: E402
import asc.lib.runtime as rt  # noqa: E402
import asc.runtime.config as config  # noqa: E402
from matmul_leakyrelu import block_offsets  # noqa: E402
from matmul_tuning import half_matmul, ints  # noqa: E402

# SysWorkspaceDesc for up to 40 vector cores: 848000 bytes of messages and a 192 KiB UB mirror
# per vector core (docs/matmul.md), rounded up.
WORKSPACE = 16 * 1024 * 1024


@asc.jit
def strategy_matmul(a: asc.GlobalAddress, b: asc.GlobalAddress, c: asc.GlobalAddress,
                    tiling: asc.adv.TCubeTiling, workspace: asc.GlobalAddress,
                    mode: asc.ConstExpr):
    """Each vector core computes its single-core block of C with iterate_all, served by its
    group's cube core (the guide's kernel: CFG_NORM, or CFG_MDL for the big-packet loads)."""
    asc.set_sys_workspace(workspace)
    offset_a, offset_b, offset_c, _, tail_m, tail_n = block_offsets(tiling, False, False)
    a_gm = asc.GlobalTensor()
    b_gm = asc.GlobalTensor()
    c_gm = asc.GlobalTensor()
    a_gm.set_global_buffer(a + offset_a)
    b_gm.set_global_buffer(b + offset_b)
    c_gm.set_global_buffer(c + offset_c)
    pipe = asc.TPipe()
    mm = half_matmul(asc.adv.get_mm_config(mode), False, False)
    asc.adv.register_matmul(pipe, mm, tiling)
    if asc.get_block_idx() < tiling.used_core_num:
        mm.set_tensor_a(a_gm)
        mm.set_tensor_b(b_gm)
        mm.set_tail(tail_m, tail_n)
        mm.iterate_all(c_gm)
        mm.end()
    asc.pipe_barrier(asc.PipeID.PIPE_ALL)


def strategy_tiling(m, n, k, used_core_num, split):
    """The guide's host tiling: SetDim(usedCoreNum) (the vector cores), half A and B, float C in
    GM, SetFixSplit(baseM, baseN, -1). Like the guide's code it does not call
    SetMatmulConfigParams, so the tiling keeps CANN's default mmConfigType 1 (MDL-sized L1 steps
    and depths; asc-devkit include/adv_api/matmul/matmul_tiling_base.h) whichever template the
    kernel uses: the guide changes only the template for its last step."""
    api = host.MultiCoreMatmulTiling(host.get_ascendc_platform())
    api.set_dim(used_core_num)
    api.set_a_type(host.TPosition.GM, host.CubeFormat.ND, host.DataType.DT_FLOAT16, False)
    api.set_b_type(host.TPosition.GM, host.CubeFormat.ND, host.DataType.DT_FLOAT16, False)
    api.set_c_type(host.TPosition.GM, host.CubeFormat.ND, host.DataType.DT_FLOAT)
    api.set_bias_type(host.TPosition.GM, host.CubeFormat.ND, host.DataType.DT_FLOAT)
    api.set_org_shape(m, n, k)
    api.set_shape(m, n, k)
    api.set_fix_split(split[0], split[1], -1)
    api.set_buffer_space(-1, -1, -1)
    tiling = asc.adv.TCubeTiling()
    if api.get_tiling(tiling) != 0:
        raise SystemExit(f"asc.lib.host found no tiling for {m}x{n}x{k} on {used_core_num} "
                         "vector cores")
    return tiling


def twin_tiling(tiling, base_blocks=(2, 2), chunks=2):
    """`tiling` in miniature, to run in full: the same base block, L1 steps and depths on a
    2 x 2 grid of vector cores (two groups), each single-core block `base_blocks` base blocks
    and K `chunks` L1 chunks of the larger step (so K is not whole in L1, as in the full
    shape)."""
    single_m, single_n = base_blocks[0] * tiling.base_m, base_blocks[1] * tiling.base_n
    k = chunks * max(tiling.step_k_a, tiling.step_k_b) * tiling.base_k
    fields = {name: getattr(tiling, name) for name in (
        "base_m", "base_n", "base_k", "depth_a1", "depth_b1", "step_m", "step_n", "step_k_a",
        "step_k_b", "iterate_order", "db_l0a", "db_l0b", "db_l0c")}
    return asc.adv.TCubeTiling(used_core_num=4, m=2 * single_m, n=2 * single_n, k_a=k, k_b=k,
                               single_core_m=single_m, single_core_n=single_n, single_core_k=k,
                               **fields)


def mte2_us(report):
    """The cube cores' MTE2 busy time in us, averaged over them."""
    cores = [cr for cr in report.cores if cr.core_type == "aic"]
    return sum(cr.pipes["MTE2"].busy_cycles for cr in cores) / len(cores) / report.clock_mhz


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--m", type=int, default=512)
    parser.add_argument("--n", type=int, default=1024)
    parser.add_argument("--k", type=int, default=1024)
    parser.add_argument("--blocks", type=int, default=2,
                        help="the launch's blocks (AIC + 2 AIV groups); the tiling is split "
                             "over 2 x as many vector cores (default 2)")
    parser.add_argument("--split", type=ints(2), default=(128, 256),
                        help="SetFixSplit's baseM,baseN (default 128,256); baseK is chosen")
    parser.add_argument("--mdl", action="store_true", help="the MDL template (default Norm)")
    parser.add_argument("--timing-only", action="store_true",
                        help="skip the element math: cycles only (docs/timing_only.md)")
    parser.add_argument("--platform", default="Ascend910B3",
                        help="default Ascend910B3: the guide's 20 cube cores")
    args = parser.parse_args()
    config.set_platform(config.Backend.Model, config.Platform(args.platform))
    m, n, k = args.m, args.n, args.k
    make = np.zeros if args.timing_only else (
        lambda shape, dtype: np.random.default_rng(len(shape)).uniform(-1, 1, shape).astype(dtype))
    a = make((m, k), np.float16)
    b = make((k, n), np.float16)
    c = np.zeros((m, n), np.float32)
    tiling = strategy_tiling(m, n, k, 2 * args.blocks, args.split)
    mode = asc.MatmulConfigMode.CONFIG_MDL if args.mdl else asc.MatmulConfigMode.CONFIG_NORM
    print(f"tiling: {tiling.used_core_num} vector cores, single {tiling.single_core_m}x"
          f"{tiling.single_core_n}x{tiling.single_core_k}, base {tiling.base_m}x{tiling.base_n}x"
          f"{tiling.base_k}, stepKa/Kb {tiling.step_k_a}/{tiling.step_k_b}, depthA1/B1 "
          f"{tiling.depth_a1}/{tiling.depth_b1}")
    report = strategy_matmul[args.blocks, rt.current_stream()](
        a, b, c, tiling, np.zeros(WORKSPACE, np.uint8), mode, timing_only=args.timing_only)
    verdict = "timing-only, results not computed"
    ok = True
    if not args.timing_only:
        want = a.astype(np.float32) @ b.astype(np.float32)
        ok = np.allclose(c, want, atol=1e-3, rtol=1e-4)
        verdict = "PASS" if ok else "FAIL"
    print(f"matmul {m}x{n}x{k} half -> float, {'MDL' if args.mdl else 'Norm'}, {args.blocks} "
          f"AIC+2AIV groups ({rt.transport()}): {verdict}")
    print(f"simulated: {report.cycles} cycles, {report.cycles / report.clock_mhz:.3f} us, bound "
          f"pipe {report.bound_pipe}; cube cores' MTE2 busy {mte2_us(report):.3f} us (average)")
    print(f"checkers ({report.check.level}): {report.check.summary}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
