"""The launch report: real numbers, per-core and per-pipe statistics, dict access, JSON log."""
import json

import numpy as np
import pytest

from kernels import run_vadd


def _vadd(cores=8, n=8 * 2048):
    x = np.arange(n, dtype=np.float32)
    y = np.ones(n, dtype=np.float32)
    z, report = run_vadd(x, y, cores)
    assert np.array_equal(z, x + y)
    return report


def test_report_fields(device):
    report = _vadd()
    assert report.status == "OK" and report.ok
    assert report.kernel_name == "vadd_kernel" and report.platform == "Ascend910B1"
    assert type(report.cycles) is int and report.cycles > 0
    assert type(report.block_dim) is int and report.block_dim == 8
    assert type(report.duration_us) is float and report.duration_us > 0
    assert report.duration_us == pytest.approx(report.cycles / report.clock_mhz, rel=1e-6)
    assert len(report.cores) == 8
    assert sorted(c.block_idx for c in report.cores) == list(range(8))
    for core in report.cores:
        assert type(core.cycles) is int and 0 < core.cycles <= report.cycles
        for pipe in ("V", "MTE2", "MTE3"):
            stats = core.pipes[pipe]
            assert type(stats.busy_cycles) is int and stats.busy_cycles > 0
            assert stats.instructions > 0
        assert core.pipes["MTE2"].bytes == 2 * core.pipes["MTE3"].bytes == 2 * 2048 * 4
    assert report.pipe_busy_cycles("V") == sum(c.pipes["V"].busy_cycles for c in report.cores)


def test_bound_pipe_is_the_busiest_pipe(device):
    report = _vadd()
    for core in report.cores:
        busiest = max(core.pipes.values(), key=lambda p: p.busy_cycles).pipe
        assert core.bound_pipe == busiest
    longest = max(report.cores, key=lambda c: c.cycles)
    assert report.bound_pipe == longest.bound_pipe == "MTE2"  # the add streams two inputs
    assert report["bound_pipe"] == "MTE2" and report.to_dict()["cores"][0]["bound_pipe"]


def test_report_reads_like_a_dict(device):
    report = _vadd(cores=2)
    assert report["cycles"] == report.cycles
    assert report["cores"][1]["pipes"]["V"]["busy_cycles"] == \
        report.cores[1].pipes["V"].busy_cycles
    as_dict = report.to_dict()
    assert as_dict["cycles"] == report.cycles
    assert as_dict["cores"][0]["pipes"]["MTE2"]["bytes"] == report.cores[0].pipes["MTE2"].bytes
    json.dumps(as_dict)
    with pytest.raises(KeyError):
        report["no_such_stat"]


def test_more_data_takes_more_cycles(device):
    small = _vadd(cores=8, n=8 * 512)
    large = _vadd(cores=8, n=8 * 8192)
    assert large.cycles > small.cycles


def test_report_file(device, tmp_path, monkeypatch):
    path = tmp_path / "launches.jsonl"
    monkeypatch.setenv("AICORE_SIM_REPORT", str(path))
    first = _vadd(cores=2)
    second = _vadd(cores=4)
    records = [json.loads(line) for line in path.read_text().splitlines()]
    assert len(records) == 2
    for record, report in zip(records, (first, second)):
        assert record["kernel"] == "vadd_kernel" and record["platform"] == "Ascend910B1"
        assert record["block_dim"] == report.block_dim
        assert record["cycles"] == report.cycles
        assert record["bound_pipe"] == report.bound_pipe
        assert record["cores"][0]["bound_pipe"] == report.cores[0].bound_pipe
        assert record["duration_us"] == pytest.approx(report.duration_us)
        assert len(record["cores"]) == report.block_dim
        assert record["cores"][0]["pipes"]["V"]["busy_cycles"] == \
            report.cores[0].pipes["V"].busy_cycles


def test_trace_env_writes_msprof_layout(device, monkeypatch, tmp_path):
    monkeypatch.setenv("AICORE_SIM_TRACE", str(tmp_path))
    report = _vadd(cores=2, n=2 * 2048)
    (launch_dir,) = list(tmp_path.iterdir())
    assert launch_dir.name.startswith("OPPROF_vadd_kernel_")
    merged = json.loads((launch_dir / "simulator" / "trace.json").read_text())
    slices = [e for e in merged["traceEvents"] if e.get("ph") == "X"]
    assert {e["tid"] for e in slices} >= {"MTE2", "VECTOR", "MTE3"}
    assert any("vadd.py:" in e["args"].get("code", "") for e in slices)
    starts = {e["id"] for e in merged["traceEvents"] if e.get("ph") == "s"}
    ends = {e["id"] for e in merged["traceEvents"] if e.get("ph") == "t"}
    assert starts and starts == ends, "every set_flag arrow must end at its wait_flag"
    info = (launch_dir / "OpBasicInfo.csv").read_text().splitlines()
    assert info[1].startswith("vadd_kernel")
    assert (launch_dir / "PipeUtilization.csv").exists()
    assert not report.timeline, "the timeline is kept only when the caller asked for it"


def test_pipe_stats_carry_stall_and_traffic_counters(device):
    report = _vadd(cores=2, n=2 * 2048)
    mte2 = report.cores[0].pipes["MTE2"]
    for name in ("queue_full_stall_cycles", "bandwidth_stall_cycles", "bank_conflict_cycles",
                 "l2_hit_bytes", "hbm_read_bytes", "hbm_write_bytes"):
        assert type(getattr(mte2, name)) is int, name
    # Cold L2: every byte MTE2 reads comes from HBM.
    assert mte2.hbm_read_bytes >= mte2.bytes > 0
    assert report["cores"][0]["pipes"]["V"]["bank_conflict_cycles"] >= 0


def test_report_carries_the_resolved_config(device):
    report = _vadd()
    config = report.config
    assert config["name"] == "Ascend910B1" and config["arch"] == "dav-c220"
    assert config["clock_mhz"] == report.clock_mhz == 1850
    # Derived from the preset's 1.647e12 B/s at 1850 MHz, at the model's 0.01 precision.
    assert config["gm"]["hbm_read_bytes_per_cycle"] == 890.27
    assert type(config["memory"]["ub_bytes"]) is int and config["memory"]["ub_bytes"] == 196608
    assert {"op": "add", "dtype": "float16", "per_call_cycles": 21.5,
            "cycles_per_repeat": 1.0} in config["vector"]["costs"]
    assert len(report.config_hash) == 16 and int(report.config_hash, 16) >= 0
    assert report["config_hash"] == _vadd().config_hash


def test_config_hash_differs_between_platforms(device):
    import asc.runtime.config as cfg
    import asc.lib.runtime as rt
    b1 = _vadd().config_hash
    rt.reset_device()
    cfg.set_platform(cfg.Backend.Model, cfg.Platform.Ascend910B4)
    report = _vadd()
    assert report.platform == "Ascend910B4" and report.config["clock_mhz"] == 1650
    assert report.config_hash != b1
