"""pytest set-up for the `asc` frontend tests.

Tests that run kernels use the `device` fixture: a fresh embedded simulator
(asc._aicore_native) on the default platform.
"""
import atexit
import os
import shutil
import sys
import tempfile

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.abspath(os.path.join(HERE, "..", ".."))
for path in (os.path.join(REPO, "clients", "python"), os.path.join(REPO, "examples"), HERE):
    if path not in sys.path:
        sys.path.insert(0, path)

# The standing rule: every test kernel runs clean under strict checking (a race or an error is
# an exception). Tests of a fault or a finding say so by lowering the level themselves.
os.environ.setdefault("AICORE_SIM_CHECK", "strict")
# And every test kernel that can run timing-only runs so first, its cycles compared with the full
# run's (docs/timing_only.md): a difference fails the test with TimingOnlyMismatch.
os.environ.setdefault("AICORE_SIM_TIMING_CHECK", "1")
# Compiled kernels (docs/frontend.md "Kernel cache") go to a directory of this session, removed at
# its end, never to the user's ~/.pyasc/cache; the tests' subprocesses inherit it.
KERNEL_CACHE = tempfile.mkdtemp(prefix="asc-kernel-cache-")
os.environ["PYASC_CACHE_DIR"] = KERNEL_CACHE
atexit.register(shutil.rmtree, KERNEL_CACHE, ignore_errors=True)

import asc.lib.runtime as rt  # noqa: E402
import asc.runtime.config as config  # noqa: E402


@pytest.fixture
def device(monkeypatch):
    """A fresh embedded runtime on Ascend910B1."""
    monkeypatch.delenv("AICORE_SIM_ADDRESS", raising=False)
    monkeypatch.delenv("AICORE_SIM_REPORT", raising=False)
    monkeypatch.delenv("DRY_RUN", raising=False)
    rt.reset_device()
    rt.set_config_overrides("")
    config.set_platform(config.Backend.Model)
    yield rt
    rt.set_config_overrides("")
    rt.reset_device()
