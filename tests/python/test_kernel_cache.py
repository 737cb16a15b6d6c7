"""The kernel cache on disk (docs/frontend.md "Kernel cache"): a second process runs an
already-compiled kernel without tracing it; a changed constant, kernel or sub-kernel source is
traced again; a damaged entry is ignored and rewritten; the directory is pyasc's variable."""
import json
import os
import subprocess
import sys
from unittest import mock

import pytest

import asc
from asc.runtime import kernel_cache
from asc.runtime.jit import JITFunction, MockTensor

HERE = os.path.dirname(os.path.abspath(__file__))
PYTHON_DIR = os.path.join(HERE, "..", "..", "clients", "python")

# A script that launches a kernel (scaling 256 floats by SCALE through a sub-kernel of helper.py)
# and prints how many times it traced and the first results.
SCRIPT = """
import json
import numpy as np
import asc
import asc.lib.runtime as rt
import asc.runtime.config as config
import helper

SCALE = {scale}


@asc.jit
def scale_kernel(x: asc.GlobalAddress, z: asc.GlobalAddress, n: int):
    xg, zg = asc.GlobalTensor(), asc.GlobalTensor()
    xg.set_global_buffer(x, n)
    zg.set_global_buffer(z, n)
    t = asc.LocalTensor(x.dtype, asc.TPosition.VECCALC, 0, 256)
    asc.data_copy(t, xg, 256)
    asc.set_flag(asc.HardEvent.MTE2_V, 0)
    asc.wait_flag(asc.HardEvent.MTE2_V, 0)
    asc.{op}(t, t, SCALE, 256)
    helper.finish(t)
    asc.set_flag(asc.HardEvent.V_MTE3, 0)
    asc.wait_flag(asc.HardEvent.V_MTE3, 0)
    asc.data_copy(zg, t, 256)


config.set_platform(config.Backend.Model)
x = np.arange(256, dtype=np.float32)
z = np.zeros_like(x)
scale_kernel[1, rt.current_stream()](x, z, 256)
print(json.dumps({{"traced": scale_kernel.compile_count, "z": z[:3].tolist()}}))
"""

HELPER = """
import asc


@asc.jit
def finish(t: asc.LocalTensor):
    asc.adds(t, t, {offset}, 256)
"""


def write(folder, scale=2.0, op="muls", offset=0.0):
    with open(os.path.join(folder, "kernel_script.py"), "w", encoding="utf-8") as f:
        f.write(SCRIPT.format(scale=scale, op=op))
    with open(os.path.join(folder, "helper.py"), "w", encoding="utf-8") as f:
        f.write(HELPER.format(offset=offset))


def run(folder, cache):
    env = dict(os.environ, PYASC_CACHE_DIR=cache, PYTHONPATH=os.path.abspath(PYTHON_DIR))
    done = subprocess.run([sys.executable, os.path.join(folder, "kernel_script.py")], env=env,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


def entries(cache):
    folder = os.path.join(cache, "aicore-sim")
    return sorted(os.listdir(folder)) if os.path.isdir(folder) else []


@pytest.fixture
def project(tmp_path):
    folder = tmp_path / "project"
    folder.mkdir()
    return str(folder), str(tmp_path / "cache")


def test_a_second_process_runs_the_kernel_without_tracing_it(project):
    folder, cache = project
    write(folder)
    assert run(folder, cache) == {"traced": 1, "z": [0.0, 2.0, 4.0]}
    assert len(entries(cache)) == 1 and entries(cache)[0].endswith(".kernel")
    assert run(folder, cache) == {"traced": 0, "z": [0.0, 2.0, 4.0]}


def test_a_changed_constant_kernel_or_sub_kernel_is_traced_again(project):
    folder, cache = project
    write(folder, scale=2.0)
    assert run(folder, cache)["traced"] == 1
    write(folder, scale=3.0)  # a global constant the kernel reads
    assert run(folder, cache) == {"traced": 1, "z": [0.0, 3.0, 6.0]}
    write(folder, scale=3.0, op="adds")  # the kernel's own source
    assert run(folder, cache) == {"traced": 1, "z": [3.0, 4.0, 5.0]}
    write(folder, scale=3.0, op="adds", offset=10.0)  # the source of a sub-kernel it calls
    assert run(folder, cache) == {"traced": 1, "z": [13.0, 14.0, 15.0]}
    assert run(folder, cache) == {"traced": 0, "z": [13.0, 14.0, 15.0]}
    assert len(entries(cache)) == 4


@pytest.mark.parametrize("damage", ["truncate", "garble", "empty"])
def test_a_damaged_entry_is_traced_again_and_rewritten(project, damage):
    folder, cache = project
    write(folder)
    run(folder, cache)
    (name,) = entries(cache)
    path = os.path.join(cache, "aicore-sim", name)
    with open(path, "rb") as f:
        data = f.read()
    data = {"truncate": data[:len(data) - 7], "garble": data[:-20] + b"\xff" * 20,
            "empty": b""}[damage]
    with open(path, "wb") as f:
        f.write(data)
    assert run(folder, cache) == {"traced": 1, "z": [0.0, 2.0, 4.0]}
    assert entries(cache) == [name]  # rewritten whole, no temporary file left
    assert run(folder, cache) == {"traced": 0, "z": [0.0, 2.0, 4.0]}


# ---- in one process: the directory, the switches, what stays out ------------------------------

def test_the_directory_is_pyascs(monkeypatch, tmp_path):
    monkeypatch.setenv("PYASC_CACHE_DIR", str(tmp_path / "c"))
    assert kernel_cache.cache_dir() == str(tmp_path / "c" / "aicore-sim")
    monkeypatch.setenv("PYASC_CACHE_DIR", "")  # pyasc's way to turn it off
    assert kernel_cache.cache_dir() == ""
    monkeypatch.delenv("PYASC_CACHE_DIR")
    monkeypatch.setenv("PYASC_HOME", str(tmp_path / "home"))
    assert kernel_cache.cache_dir() == str(tmp_path / "home" / ".pyasc" / "cache" / "aicore-sim")
    monkeypatch.delenv("PYASC_HOME")
    monkeypatch.setenv("HOME", str(tmp_path / "user"))
    assert kernel_cache.cache_dir() == str(tmp_path / "user" / ".pyasc" / "cache" / "aicore-sim")


def abs_kernel(x: asc.GlobalAddress, tile: asc.ConstExpr[int]):
    t = asc.LocalTensor(x.dtype, asc.TPosition.VECIN, 0, tile)
    asc.abs(t, t, tile)


def test_a_new_kernel_object_reads_what_another_traced(monkeypatch, tmp_path):
    monkeypatch.setenv("PYASC_CACHE_DIR", str(tmp_path))
    first = asc.jit(abs_kernel)
    traced = first.compile(MockTensor(asc.float16), tile=64)
    second = asc.jit(abs_kernel)
    loaded = second.compile(MockTensor(asc.float16), tile=64)
    assert (first.compile_count, second.compile_count) == (1, 0)
    assert loaded.ir_bytes == traced.ir_bytes and loaded.name == traced.name
    assert second.compile(MockTensor(asc.float16), tile=64) is loaded  # then from memory
    # ConstExpr values, dtypes and compile options are keys.
    second.compile(MockTensor(asc.float16), tile=128)
    second.compile(MockTensor(asc.float32), tile=64)
    second.compile(MockTensor(asc.float16), tile=64, auto_sync=False)
    assert second.compile_count == 3
    assert len(os.listdir(tmp_path / "aicore-sim")) == 4


def test_off_always_compile_and_patched_steps_trace(monkeypatch, tmp_path):
    monkeypatch.setenv("PYASC_CACHE_DIR", str(tmp_path))
    asc.jit(abs_kernel).compile(MockTensor(asc.float16), tile=64)
    k = asc.jit(abs_kernel)
    k.compile(MockTensor(asc.float16), tile=64, always_compile=True)
    assert k.compile_count == 1
    real = JITFunction._run_compiler
    with mock.patch.object(JITFunction, "_run_compiler",
                           lambda self, mod, options: real(self, mod, options)):
        k2 = asc.jit(abs_kernel)
        k2.compile(MockTensor(asc.float16), tile=64)
        assert k2.compile_count == 1  # the patched step ran
    monkeypatch.setenv("PYASC_CACHE_DIR", "")
    k3 = asc.jit(abs_kernel)
    k3.compile(MockTensor(asc.float16), tile=64)
    assert k3.compile_count == 1
    assert len(os.listdir(tmp_path / "aicore-sim")) == 1


class Opaque:
    """An object the key cannot describe by content."""


OPAQUE = Opaque()


def opaque_kernel(x: asc.GlobalAddress):
    if OPAQUE is not None:
        asc.pipe_barrier(asc.PipeID.PIPE_V)


def test_a_kernel_reading_an_indescribable_value_stays_out(monkeypatch, tmp_path):
    monkeypatch.setenv("PYASC_CACHE_DIR", str(tmp_path))
    for _ in range(2):
        k = asc.jit(opaque_kernel)
        k.compile(MockTensor(asc.float32))
        assert k.compile_count == 1
    assert not os.path.exists(tmp_path / "aicore-sim")


def test_an_unwritable_directory_is_no_error(monkeypatch, tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    monkeypatch.setenv("PYASC_CACHE_DIR", str(blocker))
    k = asc.jit(abs_kernel)
    k.compile(MockTensor(asc.float16), tile=64)
    assert k.compile_count == 1


TILE = 64
x = None  # a global with a parameter's name: the kernel never reads it


def traces_of(fn):
    """How many times a fresh jit of `fn` traces for one fp16 tensor: 0 when the disk cache
    answers."""
    k = asc.jit(fn)
    k.compile(MockTensor(asc.float16))
    return k.compile_count


def tile_kernel(x: asc.GlobalAddress):
    t = asc.LocalTensor(x.dtype, asc.TPosition.VECIN, 0, TILE)
    asc.abs(t, t, TILE)


def test_the_key_reads_the_globals_the_code_names_but_not_its_own_names(monkeypatch, tmp_path):
    monkeypatch.setenv("PYASC_CACHE_DIR", str(tmp_path))
    module = sys.modules[__name__]
    assert traces_of(tile_kernel) == 1
    monkeypatch.setattr(module, "x", object())  # not described: the parameter shadows it
    assert traces_of(tile_kernel) == 0
    monkeypatch.setattr(module, "TILE", 128)
    assert traces_of(tile_kernel) == 1
    monkeypatch.setattr(module, "TILE", 64)
    assert traces_of(tile_kernel) == 0


def tile_sizes(x):
    """A helper the kernel calls while tracing; its comprehension reads its own `x`."""
    return [TILE * (i + 1) for i in range(2) if x is not None]


def helper_kernel(x: asc.GlobalAddress):
    sizes = tile_sizes(x)
    t = asc.LocalTensor(x.dtype, asc.TPosition.VECIN, 0, sizes[-1])
    asc.abs(t, t, sizes[0])


def test_a_helper_is_described_by_its_code_and_what_it_names(monkeypatch, tmp_path):
    monkeypatch.setenv("PYASC_CACHE_DIR", str(tmp_path))
    module = sys.modules[__name__]
    assert traces_of(helper_kernel) == 1
    monkeypatch.setattr(module, "x", object())  # the comprehension's x is the parameter
    assert traces_of(helper_kernel) == 0
    monkeypatch.setattr(module, "TILE", 32)  # a global the helper reads
    assert traces_of(helper_kernel) == 1
