"""The calibration kernels of bench/calibration compute what their sources compute, on reduced
shapes under strict checking.

copies.py (hardware-910b.md 7.1 rows 8 and 10): with `verify`, every tile that reaches UB is
written back out and must rebuild the matrix, and every L1 buffer is dumped and must hold its
tile in NZ fractals; each walk of the source is covered (tiles with an unaligned tail, repeats
whole and in slices, the whole matrix per core in the same and the staggered order).
nd2nz_banks.py (row 11): the NZ matrix equals numpy's, with both C0 strides and a last row of
tiles shorter than the others. calibrate_matmul.py's tiling strategy points (hardware-910b.md 7):
each point's tiling has the source's baseK and its reduced twin (the same mixed kernel, base
block, steps and depths) computes numpy's product."""
import os
import re
import sys

import numpy as np
import pytest

import asc.lib.runtime as rt
import asc.runtime.config as config

BENCH = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "bench")
sys.path.insert(0, BENCH)
sys.path.insert(0, os.path.join(BENCH, "calibration"))

import calibrate_matmul as MM  # noqa: E402
import copies as C  # noqa: E402
import nd2nz_banks as B  # noqa: E402

M, CORES = 64, 4
WALKS = [(C.TILES, 256, 4, 64), (C.TILES, 255, 4, 64), (C.REPEAT_WHOLE, 256, 8, 64),
         (C.REPEAT_SPLIT, 256, 8, 32), (C.FULL_SAME, 256, 8, 64),
         (C.FULL_STAGGERED, 256, 8, 64)]


def matrix(m, n):
    return (np.arange(m * n) % 2039).astype(np.float16)  # exact in half, no two rows alike


@pytest.mark.parametrize("mode,n,tile_m,tile_n", WALKS)
def test_every_tile_that_reaches_ub_rebuilds_the_matrix(device, mode, n, tile_m, tile_n):
    x = matrix(M, n)
    full = mode in (C.FULL_SAME, C.FULL_STAGGERED)
    out = np.zeros(M * n * (CORES if full else 1), np.float16)
    C.copy_gm_to_ub[CORES, rt.current_stream()](x, out, M, n, tile_m, tile_n, mode, True)
    want = np.tile(x, CORES) if full else x
    assert np.array_equal(out, want)


def dumps(report):
    """(desc, values) of every dump_tensor record, in order."""
    found = re.findall(r"DumpTensor: desc=(\d+),[^\n]*\n\[([^\]]*)\]", report.debug_text)
    return [(int(desc), np.array([float(v) for v in values.split(",")])) for desc, values in found]


def expect_nz(x2d, row, col, cols, tile_m):
    """Where each element of the tile at (row, col) lands in the NZ buffer, and its value:
    columns in groups of 16, each group tile_m rows (rounded up to 16) of 16 elements."""
    rows16 = (tile_m + 15) // 16 * 16
    places, values = [], []
    for r in range(tile_m):
        for c in range(cols):
            places.append((c // 16 * rows16 + r) * 16 + c % 16)
            values.append(float(x2d[row + r, col + c]))
    return np.array(places), np.array(values)


@pytest.mark.parametrize("mode,n,tile_m,tile_n", [
    (C.TILES, 256, 16, 64), (C.TILES, 255, 16, 64), (C.REPEAT_WHOLE, 256, 16, 64),
    (C.REPEAT_SPLIT, 256, 16, 32), (C.FULL_SAME, 256, 16, 64), (C.FULL_STAGGERED, 256, 16, 64)])
def test_every_l1_buffer_holds_its_tile_in_nz_fractals(device, mode, n, tile_m, tile_n):
    cores = 2
    x = matrix(M, n)
    report = C.copy_gm_to_l1[cores, rt.current_stream()](x, M, n, tile_m, tile_n, mode, True)
    records = dumps(report)
    per_core = {C.TILES: M // cores // tile_m * -(-n // tile_n),
                C.REPEAT_WHOLE: 4 * M // cores // tile_m * (n // tile_n),
                C.REPEAT_SPLIT: 4 * M // cores // tile_m * (n // tile_n),
                C.FULL_SAME: M // tile_m * (n // tile_n),
                C.FULL_STAGGERED: M // tile_m * (n // tile_n)}[mode]
    assert len(records) == cores * per_core
    x2d = x.reshape(M, n)
    for desc, values in records:
        row, col = divmod(desc, n)
        places, want = expect_nz(x2d, row, col, min(tile_n, n - col), tile_m)
        assert np.array_equal(values[places], want), (desc, row, col)


@pytest.mark.parametrize("stride", [144, 145])
def test_nd2nz_banks_builds_numpys_nz_matrix(device, stride):
    # 3 rows of 144-row tiles (the last 16 high) over 2 row splits, 4 column tiles over 2.
    m, n = 304, 512
    x = matrix(m, n)
    z = np.zeros_like(x)
    B.nd2nz_banks[4, rt.current_stream()](x, z, m, n, 144, 128, 128, 2, 2, stride)
    assert np.array_equal(z, B.nz_of(x, m, n))


@pytest.mark.parametrize("point", MM.TILING, ids=[row[0] for row in MM.TILING])
def test_the_tiling_strategy_twins_compute_numpys_product(device, point):
    # The source's 20-AIC A2, then the default platform again for the tests after this one.
    config.set_platform(config.Backend.Model, config.Platform("Ascend910B3"))
    try:
        assert MM.tiling_twin(point) == ""
    finally:
        config.set_platform(config.Backend.Model)


# --- the harness (bench/calibration/run.py) -------------------------------------------------

RUN = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "bench",
                   "calibration", "run.py")


def run_harness(tmp_path, *args):
    import subprocess
    env = dict(os.environ, AICORE_SIM_CALIBRATION_CACHE=str(tmp_path / "cache"))
    env.pop("AICORE_SIM_TIMING_CHECK", None)  # the harness times what it runs itself
    return subprocess.run([sys.executable, RUN, *args], capture_output=True, text=True, env=env,
                          timeout=300)


def test_the_manifest_names_each_point_once_and_keeps_the_tiling_code_out():
    import manifest
    points = manifest.points()
    assert len({p.id for p in points}) == len(points)
    out = {p.id for p in points if not p.in_mape}
    assert out == {"mm14-arg", "mm14-const", "mm6-case7"}
    assert {p.group for p in points} == {"vector add ladder", "small matmul", "large matmul",
                                         "vector copies", "cube copies", "bank conflicts"}
    assert all(p.measured > 0 and p.why_not for p in points if not p.in_mape)


def test_the_harness_prints_errors_and_mapes_and_reuses_its_cache(tmp_path):
    first = run_harness(tmp_path, "--point", "mm16-mdl", "--point", "nd2nz-2", "--jobs", "1")
    assert first.returncode == 0, first.stderr
    rows = {line.split()[0]: line for line in first.stdout.splitlines() if line[:1].isalnum()}
    assert "mm16-mdl" in rows and "nd2nz-2" in rows
    assert "V " in rows["nd2nz-2"] and "MTE3 " in rows["nd2nz-2"]  # the source's pipe figures
    assert "small matmul         MAPE" in first.stdout
    assert "overall              MAPE" in first.stdout and "over 2 points" in first.stdout
    assert "0 from the cache, 2 to run" in first.stderr
    second = run_harness(tmp_path, "--point", "mm16-mdl", "--point", "nd2nz-2")
    assert second.returncode == 0, second.stderr
    assert "2 from the cache, 0 to run" in second.stderr
    figures = [line.split()[1:4] for line in first.stdout.splitlines()[2:4]]
    assert [line.split()[1:4] for line in second.stdout.splitlines()[2:4]] == figures


def test_the_harness_names_an_unknown_point_and_where_to_look(tmp_path):
    bad = run_harness(tmp_path, "--point", "mm99")
    assert bad.returncode == 2
    assert "unknown point 'mm99'; see --list for the ids" in bad.stderr
