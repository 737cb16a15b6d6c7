"""Calibration points for asc.adv.Matmul: the small and medium tuning cases of hardware-910b.md
section 7.1 (rows 13, 14, 16, 17), simulated, against the times the sources measured on A2
silicon. A benchmark, not a test: it prints per point the simulated and measured per-core busy
time (msprof's aic_time: the largest, or the average where the source gives that), the MTE2
time where the source gives it, the error, and ('search') the simulated time of the same Matmul
with asc.lib.host's own tiling for the shape over the time with the source's. It does not fit the model to them (issue 19
prints; the accuracy targets come later). The 8192^3 rows (4-7) need timing-only launches and
are listed as such.

Each kernel is written with the asc API the way its source describes it: the Matmul high-level
API on the cube cores (matmul_cube_only), the source's single-core and base shapes, steps and
depths in the TCubeTiling (or as a constant tiling), its template through get_mm_config, C in
float32 (the sources' C type is not stated: the model's choice).

    python3 bench/calibrate_matmul.py
"""
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "clients",
                                "python"))

import numpy as np  # noqa: E402

import asc  # noqa: E402
import asc.lib.runtime as rt  # noqa: E402
import asc.runtime.config as config  # noqa: E402


@asc.jit(matmul_cube_only=True)
def tuned_matmul(a: asc.GlobalAddress, b: asc.GlobalAddress, c: asc.GlobalAddress,
                 tiling: asc.adv.TCubeTiling, mode: asc.ConstExpr, unit_flag: asc.ConstExpr[bool]):
    """One single-core block of C per cube core: A's rows by the core's M index, B's columns by
    its N index, iterate_all into C."""
    cfg = asc.adv.get_mm_config(mode).replace(en_unit_flag=unit_flag)
    if asc.ascend_is_aic():
        block = asc.get_block_idx()
        m_blocks = tiling.m.ceildiv(tiling.single_core_m)
        row = block % m_blocks * tiling.single_core_m
        col = block // m_blocks * tiling.single_core_n
        a_gm = asc.GlobalTensor()
        b_gm = asc.GlobalTensor()
        c_gm = asc.GlobalTensor()
        a_gm.set_global_buffer(a + row * tiling.k_a)
        b_gm.set_global_buffer(b + col)
        c_gm.set_global_buffer(c + row * tiling.n + col)
        pipe = asc.TPipe()
        mm = asc.adv.Matmul(asc.adv.MatmulType(asc.TPosition.GM, asc.CubeFormat.ND, asc.float16),
                            asc.adv.MatmulType(asc.TPosition.GM, asc.CubeFormat.ND, asc.float16),
                            asc.adv.MatmulType(asc.TPosition.GM, asc.CubeFormat.ND, asc.float32),
                            matmul_config=cfg)
        asc.adv.register_matmul(pipe, mm, tiling)
        if block < tiling.used_core_num:
            mm.set_tensor_a(a_gm)
            mm.set_tensor_b(b_gm)
            mm.iterate_all(c_gm)
        mm.end()


@asc.jit(matmul_cube_only=True)
def constant_matmul(a: asc.GlobalAddress, b: asc.GlobalAddress, c: asc.GlobalAddress,
                    m: asc.ConstExpr[int], n: asc.ConstExpr[int], k: asc.ConstExpr[int],
                    single_n: asc.ConstExpr[int], base_m: asc.ConstExpr[int],
                    base_n: asc.ConstExpr[int], base_k: asc.ConstExpr[int]):
    """The same with every size a compile-time constant (a full constant tiling)."""
    cfg = asc.adv.get_mm_config(asc.adv.MatmulShapeParams(m, single_n, k, base_m, base_n, base_k),
                                asc.MatmulConfigMode.CONFIG_MDL)
    if asc.ascend_is_aic():
        col = asc.get_block_idx() * single_n
        a_gm = asc.GlobalTensor()
        b_gm = asc.GlobalTensor()
        c_gm = asc.GlobalTensor()
        a_gm.set_global_buffer(a)
        b_gm.set_global_buffer(b + col)
        c_gm.set_global_buffer(c + col)
        pipe = asc.TPipe()
        mm = asc.adv.Matmul(asc.adv.MatmulType(asc.TPosition.GM, asc.CubeFormat.ND, asc.float16),
                            asc.adv.MatmulType(asc.TPosition.GM, asc.CubeFormat.ND, asc.float16),
                            asc.adv.MatmulType(asc.TPosition.GM, asc.CubeFormat.ND, asc.float32),
                            matmul_config=cfg)
        asc.adv.register_matmul(pipe, mm)
        mm.set_org_shape(m, n, k, k)
        mm.set_tensor_a(a_gm)
        mm.set_tensor_b(b_gm)
        mm.iterate_all(c_gm)
        mm.end()


def tiling_of(m, n, k, cores, single, base, steps, depths):
    sm, sn = single
    bm, bn, bk = base
    return asc.adv.TCubeTiling(used_core_num=cores, m=m, n=n, k_a=k, k_b=k, single_core_m=sm,
                               single_core_n=sn, single_core_k=k, base_m=bm, base_n=bn,
                               base_k=bk, depth_a1=depths[0], depth_b1=depths[1], step_m=1,
                               step_n=1, step_k_a=steps[0], step_k_b=steps[1], db_l0a=2,
                               db_l0b=2, db_l0c=1)


def searched_tiling(m, n, k, cores):
    """asc.lib.host's own choice for the point's shape and core count."""
    import asc.lib.host as host
    api = host.MultiCoreMatmulTiling(host.get_ascendc_platform())
    api.set_a_type(host.TPosition.GM, host.CubeFormat.ND, host.DataType.DT_FLOAT16, False)
    api.set_b_type(host.TPosition.GM, host.CubeFormat.ND, host.DataType.DT_FLOAT16, False)
    api.set_c_type(host.TPosition.GM, host.CubeFormat.ND, host.DataType.DT_FLOAT)
    api.set_dim(cores)
    api.set_org_shape(m, n, k)
    api.set_shape(m, n, k)
    api.set_buffer_space(-1, -1, -1)
    tiling = asc.adv.TCubeTiling()
    if api.get_tiling(tiling) != 0:
        raise SystemExit(f"asc.lib.host found no tiling for {m}x{n}x{k} on {cores} cores")
    return tiling


def busy_us(report, clock_mhz, how):
    """(aic time, MTE2 time) in us: the largest or the average over the cube cores."""
    cores = [c for c in report.cores if c.core_type == "aic"]
    spans = [c.cycles for c in cores]
    mte2 = [c.pipes["MTE2"].busy_cycles for c in cores]
    pick = max if how == "max" else (lambda v: sum(v) / len(v))
    return pick(spans) / clock_mhz, pick(mte2) / clock_mhz


# (row, label, platform, (m, n, k), cores, single (m, n), base, steps, depths, template,
#  unit flag, constant, how, measured aic us, measured mte2 us or None)
POINTS = [
    (13, "Norm", "Ascend910B1", (128, 30720, 1024), 24, (128, 1280), (128, 256, 64), (1, 1),
     (2, 2), asc.MatmulConfigMode.CONFIG_NORM, False, False, "max", 83.68, 75.64),
    (13, "MDL step 4/4 depth 8/8", "Ascend910B1", (128, 30720, 1024), 24, (128, 1280),
     (128, 256, 64), (4, 4), (8, 8), asc.MatmulConfigMode.CONFIG_MDL, False, False, "max",
     53.4, 46.24),
    (14, "MDL, tiling argument", "Ascend910B1", (128, 30720, 64), 24, (128, 1280),
     (128, 256, 64), (4, 4), (8, 8), asc.MatmulConfigMode.CONFIG_MDL, False, False, "max",
     10.62, None),
    (14, "MDL, constant tiling", "Ascend910B1", (128, 30720, 64), 24, (128, 1280),
     (128, 256, 64), (4, 4), (8, 8), asc.MatmulConfigMode.CONFIG_MDL, False, True, "max", 7.87,
     None),
    (16, "MDL", "Ascend910B3", (128, 30720, 64), 20, (128, 1536), (128, 256, 64), (4, 4),
     (8, 8), asc.MatmulConfigMode.CONFIG_MDL, False, False, "max", 37.39, None),
    (16, "MDL + UnitFlag", "Ascend910B3", (128, 30720, 64), 20, (128, 1536), (128, 256, 64),
     (4, 4), (8, 8), asc.MatmulConfigMode.CONFIG_MDL, True, False, "max", 34.66, None),
    (17, "MDL step 8/8 (no preload)", "Ascend910B1", (128, 24576, 512), 24, (128, 1024),
     (128, 128, 64), (8, 8), (8, 16), asc.MatmulConfigMode.CONFIG_MDL, False, False, "avg",
     30.88, None),
]

NOT_RUN = [
    (4, "8192^3 single core, Case0/Case1", "needs timing-only launches (issue 19)"),
    (5, "8192^3 Norm on 24 cores, Case2/Case3", "needs timing-only launches (issue 19)"),
    (6, "8192^3 MDL ladder, Case4-Case8", "needs timing-only launches, L2 split (issue 19)"),
    (7, "8192^3 basic API, S1/S2", "needs timing-only launches (issue 19)"),
    (17, "MDL + MTE2 preload (28.50 us)", "MTE2 preload is not built yet (issue 19)"),
]


def main():
    print("Matmul tuning points (hardware-910b.md 7.1): simulated against measured on A2")
    print(f"{'row':>3} {'point':30} {'platform':12} {'sim us':>8} {'meas us':>8} {'error':>7} "
          f"{'sim mte2':>9} {'meas mte2':>9} {'wall s':>6} {'search':>6}")
    rng = np.random.default_rng(7)
    errors = []
    ratios = []  # simulated time with asc.lib.host's tiling / with the source's
    for (row, label, platform, (m, n, k), cores, single, base, steps, depths, mode, unit,
         constant, how, measured, measured_mte2) in POINTS:
        config.set_platform(config.Backend.Model, config.Platform(platform))
        a = rng.uniform(-1, 1, (m, k)).astype(np.float16)
        b = rng.uniform(-1, 1, (k, n)).astype(np.float16)
        c = np.zeros((m, n), np.float32)
        start = time.perf_counter()
        if constant:
            report = constant_matmul[cores, rt.current_stream()](a, b, c, m, n, k, single[1],
                                                                *base)
        else:
            tiling = tiling_of(m, n, k, cores, single, base, steps, depths)
            report = tuned_matmul[cores, rt.current_stream()](a, b, c, tiling, mode, unit)
        wall = time.perf_counter() - start
        clock = report.clock_mhz
        sample = rng.integers(0, m, 4)
        want = a[sample].astype(np.float32) @ b.astype(np.float32)
        if not np.allclose(c[sample], want, atol=1e-2, rtol=1e-3):
            print(f"{row:>3} {label:30} FAILED: the result does not match numpy")
            return 1
        sim_us, sim_mte2 = busy_us(report, clock, how)
        err = (sim_us - measured) / measured * 100
        errors.append(abs(err))
        mte2_text = f"{measured_mte2:9.2f}" if measured_mte2 is not None else f"{'-':>9}"
        search_text = ""
        if not constant:
            # The same Matmul with asc.lib.host's tiling for the shape (its steps and depths).
            found = searched_tiling(m, n, k, cores)
            searched = tuned_matmul[found.used_core_num, rt.current_stream()](
                a, b, c, found, mode, unit, check="off")
            ratio = busy_us(searched, clock, how)[0] / sim_us
            search_text = f" {ratio:6.3f}"
            ratios.append(ratio)
        print(f"{row:>3} {label:30} {platform:12} {sim_us:8.2f} {measured:8.2f} {err:+6.1f}% "
              f"{sim_mte2:9.2f} {mte2_text} {wall:6.2f}{search_text}")
    for row, label, why in NOT_RUN:
        print(f"{row:>3} {label:30} not run: {why}")
    print(f"asc.lib.host's tilings: {min(ratios):.3f} .. {max(ratios):.3f} of the sources' "
          "simulated time ('search' column)")
    print(f"matmul points: mean |error| {sum(errors) / len(errors):.1f}% over {len(errors)} "
          "points (printed, not fitted)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
