"""The examples run as users run them, under strict checking (the standing rule for every
example kernel: no race, no error), and print their check, cycles and checker summary."""
import os
import subprocess
import sys

import pytest

from conftest import REPO

EXAMPLES = os.path.join(REPO, "examples")


@pytest.mark.parametrize("script,args", [("vadd.py", []),
                                         ("add_framework.py", ["--size", "16384"]),
                                         ("linear_cube.py", ["--m", "128", "--n", "128"]),
                                         ("matmul_leakyrelu.py", []),
                                         ("matmul_tuning.py", ["--mdl", "--trans-b"]),
                                         ("matmul_basic_api.py", ["--n", "1280", "--cores", "6"]),
                                         ("matmul_tiling_strategy.py", []),
                                         ("gelu.py", []), ("gelu.py", ["--basic"]),
                                         ("swiglu.py", []),
                                         ("swiglu.py", ["--dtype", "float16"]),
                                         ("rmsnorm.py", []),
                                         ("rmsnorm.py", ["--dtype", "float16", "--hidden",
                                                         "1024"]),
                                         ("flash_attention.py", []),
                                         ("flash_attention.py", ["--heads", "1", "--seq",
                                                                 "512", "--groups", "3"])])
def test_example_passes_clean_under_strict_checking(script, args):
    env = dict(os.environ, AICORE_SIM_CHECK="strict")
    env.pop("AICORE_SIM_ADDRESS", None)
    done = subprocess.run([sys.executable, os.path.join(EXAMPLES, script)] + args, env=env,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "PASS" in done.stdout and "FAIL" not in done.stdout, done.stdout
    assert "cycles" in done.stdout
    assert "0 races, 0 errors, 0 warnings" in done.stdout, done.stdout
    assert "KernelWarning" not in done.stderr, done.stderr
