"""aicore-farm (docs/tools.md): a suite of job folders and a kernel script spread over three
daemons on loopback, a baseline written and then held, a second run served from the result
cache, and an injected 10% cycle regression failing the run with JUnit XML naming the case."""
import contextlib
import json
import os
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET

import numpy as np
import pytest

from conftest import REPO
from test_daemon import running_daemon

FARM = os.path.join(REPO, "clients", "python", "bin", "aicore-farm")


@pytest.fixture
def three_daemons(tmp_path):
    """Three daemons on loopback: their addresses and their log files."""
    logs = [str(tmp_path / f"daemon{i}.log") for i in range(3)]
    with contextlib.ExitStack() as stack:
        targets = [stack.enter_context(running_daemon(log_path=log)) for log in logs]
        yield targets, logs


def runs_logged(logs):
    total = 0
    for log in logs:
        with open(log) as f:
            total += f.read().count("rpc=Run status=OK")
    return total


def make_suite(root, monkeypatch):
    """Six vadd jobs (AICORE_SIM_DUMP_IR of embedded launches) and one kernel script."""
    from kernels import run_vadd
    jobs = os.path.join(root, "jobs")
    monkeypatch.setenv("AICORE_SIM_DUMP_IR", jobs)
    rng = np.random.default_rng(3)
    for cores in (1, 2, 4, 8, 2, 4):
        x = rng.uniform(-5, 5, cores * 1024).astype(np.float32)
        run_vadd(x, x, cores)
    monkeypatch.delenv("AICORE_SIM_DUMP_IR")
    shutil.copy(os.path.join(REPO, "examples", "vadd.py"), os.path.join(root, "vadd.py"))
    return sorted(os.listdir(jobs))


def farm(*args):
    # Without the test suite's AICORE_SIM_TIMING_CHECK, under which every launch really runs
    # (twice), so that the kernel script's launch can come from the result cache.
    env = {k: v for k, v in os.environ.items() if k != "AICORE_SIM_TIMING_CHECK"}
    return subprocess.run([sys.executable, FARM, "run", *args], capture_output=True, text=True,
                          timeout=600, env=env)


def test_a_suite_over_three_daemons_keeps_its_baseline_and_fails_a_regression(
        tmp_path, monkeypatch, three_daemons):
    targets, logs = three_daemons
    suite = tmp_path / "suite"
    suite.mkdir()
    folders = make_suite(str(suite), monkeypatch)
    assert len(folders) == 6, folders
    baseline = tmp_path / "baseline.json"
    cache = tmp_path / "cache"
    junit = tmp_path / "junit.xml"
    common = [str(suite), "--targets", ",".join(targets), "--baseline", str(baseline),
              "--cache", str(cache), "--no-progress"]

    first = farm(*common, "--update-baseline", "--junit", str(junit))
    assert first.returncode == 0, first.stdout + first.stderr
    data = json.loads(baseline.read_text())
    job_cases = sorted(n for n in data["cases"] if n.startswith("jobs::"))
    assert len(job_cases) == 6, data["cases"]
    assert any(n.startswith("vadd.py::") for n in data["cases"]), data["cases"]
    assert data["simulator_version"] and data["config_hashes"]
    # The cases were spread over all three daemons.
    spread = {p.get("value") for p in ET.parse(junit).getroot().iter("property")
              if p.get("name") == "target"}
    assert set(targets) <= spread, spread

    # Unchanged: every job case comes from the cache, no Run reaches a daemon for it.
    runs_before = runs_logged(logs)
    second = farm(*common, "--junit", str(junit))
    assert second.returncode == 0, second.stdout + second.stderr
    # The job cases and the script's launch (AICORE_SIM_RESULT_CACHE) come from the cache.
    assert "7 from the result cache" in second.stdout, second.stdout
    assert runs_logged(logs) == runs_before
    root = ET.parse(junit).getroot()
    assert root.get("failures") == "0" and root.get("errors") == "0"

    # A 10% regression of one case (its baseline lowered so that now is 10% more).
    victim = job_cases[2]
    data["cases"][victim] = round(data["cases"][victim] / 1.10)
    baseline.write_text(json.dumps(data))
    third = farm(*common, "--threshold", "5", "--junit", str(junit))
    assert third.returncode == 1, third.stdout + third.stderr
    assert "regressed" in third.stdout and victim in third.stdout, third.stdout
    failed = [c for c in ET.parse(junit).getroot().iter("testcase")
              if c.find("failure") is not None]
    assert len(failed) == 1
    kernel_part = victim.split("::", 1)[1]
    assert failed[0].get("classname") == "jobs" and failed[0].get("name") == kernel_part
    assert "+10.0%" in failed[0].find("failure").get("message")


def test_bad_suites_and_baselines_are_named(tmp_path):
    empty = tmp_path / "empty"
    empty.mkdir()
    done = farm(str(empty), "--targets", "127.0.0.1:1", "--no-progress")
    assert done.returncode == 2 and "no job folders" in done.stderr, done.stderr
    (empty / "k.py").write_text("print('hi')\n")
    bad = tmp_path / "bad.json"
    bad.write_text("{}")
    done = farm(str(empty), "--targets", "127.0.0.1:1", "--baseline", str(bad), "--no-progress")
    assert done.returncode == 2 and "aicore-farm-baseline" in done.stderr, done.stderr


def test_help_lists_the_options():
    done = subprocess.run([sys.executable, FARM, "run", "--help"], capture_output=True,
                          text=True, timeout=60)
    assert done.returncode == 0
    for option in ("--targets", "--spawn", "--baseline", "--update-baseline", "--threshold",
                   "--junit", "--cache"):
        assert option in done.stdout
