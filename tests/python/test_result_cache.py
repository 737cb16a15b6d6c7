"""AICORE_SIM_RESULT_CACHE (asc.runtime.result_cache): a launch whose kernel, inputs and runtime
are unchanged is answered from the cache, arrays restored as the launch left them; any change of
input is a miss."""
import json
import os

import numpy as np

from kernels import run_vadd


def launches(report_file):
    with open(report_file) as f:
        return [json.loads(line) for line in f]


def test_an_unchanged_launch_comes_from_the_cache_with_its_outputs(tmp_path, monkeypatch):
    monkeypatch.delenv("AICORE_SIM_TIMING_CHECK", raising=False)
    monkeypatch.setenv("AICORE_SIM_RESULT_CACHE", str(tmp_path / "cache"))
    monkeypatch.setenv("AICORE_SIM_REPORT", str(tmp_path / "reports.jsonl"))
    rng = np.random.default_rng(9)
    x = rng.uniform(-5, 5, 2 * 1024).astype(np.float32)
    y = rng.uniform(-5, 5, 2 * 1024).astype(np.float32)
    z1, r1 = run_vadd(x, y, 2)
    z2, r2 = run_vadd(x, y, 2)
    np.testing.assert_array_equal(z1, x + y)
    np.testing.assert_array_equal(z2, z1)
    assert r2.cycles == r1.cycles and r2.config_hash == r1.config_hash
    # A changed input is another key.
    y[0] += 1
    z3, _ = run_vadd(x, y, 2)
    np.testing.assert_array_equal(z3, x + y)
    assert [r["from_cache"] for r in launches(tmp_path / "reports.jsonl")] == [False, True, False]


def test_the_cache_is_off_under_the_timing_check(tmp_path, monkeypatch):
    monkeypatch.setenv("AICORE_SIM_TIMING_CHECK", "1")
    monkeypatch.setenv("AICORE_SIM_RESULT_CACHE", str(tmp_path / "cache"))
    x = np.ones(1024, dtype=np.float32)
    run_vadd(x, x, 1)
    assert not os.path.exists(tmp_path / "cache")
