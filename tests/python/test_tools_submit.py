"""Jobs (AICORE_SIM_DUMP_IR) and aicore-submit (docs/jobs.md, docs/tools.md): a launched kernel
saved as a job replays on a daemon with the same cycles and outputs; what is not a job, or not a
kernel, fails with a clear message and exit code."""
import json
import os
import subprocess
import sys

import numpy as np

from conftest import REPO
from test_daemon import daemon  # noqa: F401  (the fixture)

import asc.lib.runtime as rt
from asc.runtime import jobs

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(REPO, "examples"))
SUBMIT = os.path.join(REPO, "clients", "python", "bin", "aicore-submit")


def submit(*args, timeout=120):
    return subprocess.run([sys.executable, SUBMIT, *args], capture_output=True, text=True,
                          timeout=timeout)


def dump_vadd(tmp_path, monkeypatch):
    """Runs a vadd on the embedded simulator with AICORE_SIM_DUMP_IR set: its job folder, the
    output the launch computed, and its report."""
    from kernels import run_vadd
    monkeypatch.setenv("AICORE_SIM_DUMP_IR", str(tmp_path / "jobs"))
    rng = np.random.default_rng(5)
    x = rng.uniform(-10, 10, 4 * 1024).astype(np.float16)
    y = rng.uniform(-10, 10, 4 * 1024).astype(np.float16)
    z, report = run_vadd(x, y, 4)
    folders = sorted(os.listdir(tmp_path / "jobs"))
    assert len(folders) == 1, folders
    return str(tmp_path / "jobs" / folders[0]), x, y, z, report


def test_a_dumped_job_holds_the_ir_arguments_inputs_and_the_recorded_run(tmp_path, monkeypatch):
    folder, x, y, _, report = dump_vadd(tmp_path, monkeypatch)
    document = json.loads(open(os.path.join(folder, "job.json")).read())
    assert document["format"] == "aicore-job" and document["format_version"] == 1
    assert document["platform"] == rt.current_platform()
    assert document["block_dim"] == 4
    assert document["recorded"]["cycles"] == report.cycles
    assert document["recorded"]["config_hash"] == report.config_hash
    job = jobs.read_job(folder)
    buffers = [a for a in job.args if a.kind == "buffer"]
    # The inputs as given, not as the launch left them.
    np.testing.assert_array_equal(buffers[0].array, x)
    np.testing.assert_array_equal(buffers[1].array, y)
    assert job.kernel_ir and job.kernel_name == report.kernel_name


def test_submit_replays_a_job_with_the_same_cycles_and_outputs(tmp_path, monkeypatch, daemon):
    folder, _, _, z, report = dump_vadd(tmp_path, monkeypatch)
    out = tmp_path / "out"
    done = submit("--target", daemon, folder, "--out", str(out))
    assert done.returncode == 0, done.stderr
    assert f"cycles {report.cycles} " in done.stdout, done.stdout
    assert f"same as {report.cycles} cycles" in done.stdout, done.stdout
    outputs = sorted(os.listdir(out))
    assert outputs, "no output buffers written"
    # z is the third argument: the daemon computed what the embedded launch did, bit for bit.
    np.testing.assert_array_equal(np.load(out / "arg2.npy"), z)
    as_json = submit("--target", daemon, os.path.join(folder, "job.json"), "--json")
    assert as_json.returncode == 0, as_json.stderr
    assert int(json.loads(as_json.stdout)["cycles"]) == report.cycles


def test_random_bytes_as_a_job_exit_non_zero_with_the_daemons_message(tmp_path, daemon):
    junk = tmp_path / "junk.pb"
    junk.write_bytes(np.random.default_rng(1).integers(0, 256, 4096, dtype=np.uint8).tobytes())
    done = submit("--target", daemon, str(junk))
    assert done.returncode == 3, (done.stdout, done.stderr)
    assert "INVALID_ARGUMENT" in done.stderr, done.stderr
    assert "not a valid serialized message" in done.stderr, done.stderr


def test_a_job_of_an_unknown_format_version_is_refused_before_any_daemon(tmp_path):
    folder = tmp_path / "job"
    folder.mkdir()
    (folder / "job.json").write_text(json.dumps({"format": "aicore-job", "format_version": 99}))
    done = submit("--target", "127.0.0.1:1", str(folder))
    assert done.returncode == 2, done.stderr
    assert "format_version 99" in done.stderr and "docs/jobs.md" in done.stderr, done.stderr


def test_an_unreachable_daemon_is_named(tmp_path, monkeypatch):
    folder, *_ = dump_vadd(tmp_path, monkeypatch)
    done = submit("--target", "127.0.0.1:1", folder, "--timeout", "20")
    assert done.returncode == 3, done.stderr
    assert "no daemon answers at 127.0.0.1:1" in done.stderr, done.stderr


def test_submit_help_lists_its_options_and_exit_codes():
    done = submit("--help")
    assert done.returncode == 0
    for option in ("--target", "--out", "--json", "--token-file", "--tls-ca", "--timing-only"):
        assert option in done.stdout
    assert "Exit codes" in done.stdout
