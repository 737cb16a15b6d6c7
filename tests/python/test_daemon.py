"""Daemon parity: the same kernels through a real aicore-simd (remote transport) and through the
embedded simulator give bit-identical outputs, identical cycle counts and the same resolved
config (by its hash)."""
import contextlib
import json
import os
import signal
import subprocess
import sys
import tempfile
import threading

import pytest

from conftest import REPO

HERE = os.path.dirname(os.path.abspath(__file__))
SIMD = os.environ.get("AICORE_SIMD", os.path.join(REPO, "build", "bin", "aicore-simd"))


@contextlib.contextmanager
def running_daemon(*flags, log_path=None, simd=None):
    """An aicore-simd (the build's, or the binary `simd`) with these flags on a free loopback
    port; yields its address, stops it with SIGTERM after. Its log goes to `log_path` (a file the
    test may read), else to a temporary file: an undrained pipe would fill up and block the
    daemon mid-run."""
    if simd is not None:
        if not os.path.exists(simd):
            pytest.fail(f"daemon binary {simd} does not exist")
    elif not os.path.exists(SIMD):
        if "AICORE_SIMD" in os.environ:  # make test sets it: a missing daemon is a failure there
            pytest.fail(f"daemon binary {SIMD} (from AICORE_SIMD) does not exist")
        pytest.skip(f"daemon binary {SIMD} does not exist (set AICORE_SIMD or build it)")
    log = open(log_path, "w+") if log_path else tempfile.TemporaryFile(mode="w+")
    simd = simd or SIMD
    proc = subprocess.Popen([simd, "--listen", "127.0.0.1:0", *flags], stdout=subprocess.PIPE,
                            stderr=log, text=True)
    watchdog = threading.Timer(30, proc.kill)
    watchdog.start()
    try:
        first = proc.stdout.readline().strip()
        watchdog.cancel()
        if not first.startswith("listening on "):
            log.seek(0)
            pytest.fail(f"unexpected first line from {simd}: {first!r} (stderr: {log.read()})")
        yield first[len("listening on "):]
    finally:
        watchdog.cancel()
        if proc.poll() is None:
            proc.send_signal(signal.SIGTERM)
            try:
                proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
        proc.stdout.close()
        log.close()


@pytest.fixture
def daemon():
    with running_daemon() as address:
        yield address


def test_daemon_and_embedded_are_bit_identical(device, daemon):
    env = dict(os.environ, AICORE_SIM_ADDRESS=daemon)
    done = subprocess.run([sys.executable, os.path.join(HERE, "parity_worker.py")], env=env,
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    remote = json.loads(done.stdout.strip().splitlines()[-1])
    assert remote.pop("_transport").startswith("remote"), "the subprocess did not use the daemon"

    import parity_worker
    local = parity_worker.run_all()
    assert device.transport() == "embedded"
    assert set(remote) == set(local)
    for name in sorted(local):
        assert remote[name]["sha"] == local[name]["sha"], f"{name}: outputs differ"
        assert remote[name]["cycles"] == local[name]["cycles"], f"{name}: cycle counts differ"
        # Both reports carry the resolved config; the same figures give the same hash.
        assert len(local[name]["config_hash"]) == 16
        assert remote[name]["config_hash"] == local[name]["config_hash"], f"{name}: configs differ"
        assert remote[name].get("diagnostics") == local[name].get("diagnostics"), \
            f"{name}: diagnostics differ"
        assert remote[name].get("check") == local[name].get("check"), f"{name}: checks differ"
        assert remote[name].get("debug") == local[name].get("debug"), \
            f"{name}: debug output differs"
    assert local["race-diagnostics"]["check"]["races"] == 3
    assert "mixed-handoff" in local and local["mixed-handoff"]["check"]["races"] == 0
    assert "adv-matmul" in local and local["adv-matmul"]["check"]["races"] == 0
    assert local["adv-matmul-mixed"]["check"]["races"] == 0
    for example in ("example-gelu", "example-swiglu", "example-rmsnorm",
                    "example-flash-attention"):
        assert local[example]["check"]["races"] == local[example]["check"]["errors"] == 0
    tail = [d["kind"] for d in local["tail-overrun"]["diagnostics"]]
    assert tail.count("GM_OVERRUN") == 3 and "GM_OUT_OF_BOUNDS" not in tail
    assert [d["core"] for d in local["debug-output"]["debug"]] == [0] * 3 + [1] * 3 + [2] * 3 + \
        [3] * 3


def test_config_overrides_reach_the_daemons_session(device, daemon, monkeypatch):
    """set_config_overrides travels in CreateSession: the daemon runs the same figures as the
    embedded simulator (same cycles, same config hash), and names a bad override."""
    import numpy as np
    from kernels import vadd_kernel

    def run():
        x = np.arange(4096, dtype=np.float16)
        z = np.zeros_like(x)
        report = vadd_kernel[2, device.current_stream()](x, x, z, 2048)
        assert np.array_equal(z, x + x)
        return report

    device.set_config_overrides("gm { latency_cycles: 4000 }")
    local = run()
    monkeypatch.setenv("AICORE_SIM_ADDRESS", daemon)
    device.reset_device()
    remote = run()
    assert device.transport().startswith("remote")
    assert (remote.cycles, remote.config_hash) == (local.cycles, local.config_hash)
    device.set_config_overrides("gm { latency_cycles: 4000 } clock_mhz: 0")
    with pytest.raises(RuntimeError, match="config overrides.*clock_mhz"):
        run()
