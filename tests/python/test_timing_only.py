"""Timing-only launches (run option `timing_only`, docs/timing_only.md): the full run's cycles
and per-pipe times without the element math, the output arrays left as they were, the same
through the daemon; a scalar read of a skipped result stops the launch at its line. conftest.py
also runs every other test kernel timing-only first (AICORE_SIM_TIMING_CHECK) and compares."""
import json
import os
import subprocess
import sys

import numpy as np
import pytest

import asc.lib.host as host
import asc.lib.runtime as rt
from asc.runtime.errors import KernelFaultError

import test_matmul
import test_matmul_mixed
from matmul_kernels import matmul_cube_only_kernel, matmul_mix_kernel, matmul_n_batch_kernel
from test_daemon import daemon  # noqa: F401 - the fixture

HERE = os.path.dirname(os.path.abspath(__file__))


def _pipes(report):
    return [(c.core, name, p.busy_cycles, p.instructions)
            for c in report.cores for name, p in sorted(c.pipes.items())]


def _cube_only(timing_only):
    m, n, k = 128, 512, 256
    a, b, bias = test_matmul._operands(m, n, k, np.float16, 3)
    tiling = test_matmul._tiling(m, n, k, single=(64, 256), base=(64, 128, 64))
    c = np.full((m, n), 7.0, np.float32)
    report = matmul_cube_only_kernel[tiling.used_core_num, rt.current_stream()](
        a, b, c, bias, tiling, np.zeros(test_matmul.WORKSPACE, np.uint8), False, False, 0,
        timing_only=timing_only)
    return report, c, a.astype(np.float32) @ b.astype(np.float32) + bias


def _mixed(timing_only):
    m, n, k = 130, 70, 100
    a, b, _ = test_matmul_mixed._operands(m, n, k, np.float16, 5)
    tiling = test_matmul_mixed._tiling(m, n, k, np.float16, 6, host.TPosition.GM, False)
    c = np.full((m, n), 7.0, np.float32)
    report = matmul_mix_kernel[(tiling.used_core_num + 1) // 2, rt.current_stream()](
        a, b, c, tiling, np.zeros(test_matmul_mixed.WORKSPACE, np.uint8),
        timing_only=timing_only)
    return report, c, a.astype(np.float32) @ b.astype(np.float32)


@pytest.mark.parametrize("run", [_cube_only, _mixed], ids=["cube_only", "mixed"])
def test_a_timing_only_matmul_takes_the_full_runs_cycles_and_leaves_c_as_it_was(device, run):
    full, c_full, want = run(False)
    timing, c_timing, _ = run(True)
    np.testing.assert_allclose(c_full, want, atol=1e-3)
    assert full.status == timing.status == "OK"
    assert not full.timing_only and timing.timing_only
    assert timing.cycles == full.cycles
    assert _pipes(timing) == _pipes(full)
    assert (c_timing == 7.0).all()  # nothing computed, nothing copied back


def test_the_environment_variable_makes_launches_timing_only(device, monkeypatch):
    monkeypatch.setenv("AICORE_SIM_TIMING_ONLY", "1")
    report, c, _ = _cube_only(None)
    assert report.timing_only and (c == 7.0).all()


def test_a_scalar_read_of_a_skipped_result_stops_the_launch_at_its_line(device):
    """matmul_n_batch_kernel reads its first result element back with get_value: in a
    timing-only launch that value was never computed, and what the kernel does with it could
    change its cycles."""
    m = n = k = 32
    rng = np.random.default_rng(4)
    a = rng.integers(-3, 3, (2 * 2 * m, k)).astype(np.float16)
    b = rng.integers(-3, 3, (2 * k, n)).astype(np.float16)
    tiling = test_matmul_mixed._batch_tiling(m, n, k, np.float16, 2, 1)
    results = np.zeros(2 * 2 * m * n, np.float32)
    with pytest.raises(KernelFaultError) as info:
        matmul_n_batch_kernel[1, rt.current_stream()](a, b, results, np.zeros(8, np.float32),
                                                      tiling, 2, 2, 1, timing_only=True)
    (diag,) = [d for d in info.value.report.diagnostics if d.kind == "TIMING_ONLY_READ"]
    assert "matmul_kernels.py:" in diag.message and "get_value" in diag.message
    assert "without timing_only" in diag.message


def test_the_daemon_runs_timing_only_launches_as_the_embedded_simulator(device, daemon):  # noqa: F811
    script = ("import json, sys; sys.path[:0] = sys.argv[1:]; import test_timing_only as t; "
              "import asc.lib.runtime as rt; r, c, _ = t._cube_only(True); "
              "print(json.dumps([r.cycles, r.timing_only, bool((c == 7.0).all()), "
              "rt.get_runtime().transport]))")
    env = dict(os.environ, AICORE_SIM_ADDRESS=daemon)
    done = subprocess.run([sys.executable, "-c", script, HERE] + sys.path, env=env,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    cycles, timing_only, untouched, transport = json.loads(done.stdout.strip().splitlines()[-1])
    local, _, _ = _cube_only(False)
    assert transport.startswith("remote")
    assert timing_only and untouched
    assert cycles == local.cycles


def test_a_dump_of_values_a_timing_only_launch_did_not_compute_says_so(device, capsys):
    from debug_kernels import print_kernel
    x = np.arange(128, dtype=np.float32)
    full = print_kernel[2, rt.current_stream()](x, 64, 0.5)
    timing = print_kernel[2, rt.current_stream()](x, 64, 0.5, timing_only=True)
    marker = "[timing-only launch: the values of this dump were not computed]"
    assert marker not in full.debug_text
    assert timing.debug_text.count(marker) == 4  # two dumps on each of two cores
    assert "n=64 scale=0.50" in timing.debug_text  # printf's scalars are computed


def test_a_gather_whose_offsets_were_not_computed_stops_a_timing_only_launch(device):
    """gather's offsets decide which UB bytes it reads, and so its bank conflicts: offsets
    copied from the host are not computed in a timing-only launch, so it cannot run one."""
    from test_gather import BASE, SRC_ELEMS_BYTES, DST_BYTES, gather_kernel, source
    n_src = SRC_ELEMS_BYTES // 4
    x = source(np.float32, n_src)
    offs = (np.arange(512) * 4 % (n_src * 4 - BASE)).astype(np.uint32)
    out = source(np.float32, DST_BYTES // 4, seed=3)
    with pytest.raises(KernelFaultError) as info:
        gather_kernel[1, rt.current_stream()](x, offs, out, "count", False, timing_only=True)
    (diag,) = [d for d in info.value.report.diagnostics if d.kind == "TIMING_ONLY_READ"]
    assert "gather" in diag.message and "addresses" in diag.message
    assert "test_gather.py:" in diag.message
