"""Benchmark: the launch path (docs/performance.md, "Launch path").

1. `import asc` beyond numpy: the median wall time of fresh processes running
   `import numpy, asc` minus that of processes running `import numpy`, with bytecode caches
   (as an installed package or any second run has them; kept in a temporary
   PYTHONPYCACHEPREFIX) and, when this environment sets PYTHONDONTWRITEBYTECODE and the
   package has no __pycache__, as this environment runs it (every module compiled from source).
2. A warm small launch: an already-compiled kernel on one core with three 1 KiB arrays (a
   256-element fp32 add), the median of --launches launches; the simulation's own time is the
   native runtime's launch call measured inside each launch, and the overhead is the rest
   (argument binding, cache look-up, device copies, the report).
3. A cold launch in a fresh process (import, trace or load, simulate; with bytecode caches),
   median of --processes, with the kernel cache off and with it filled by an earlier process;
   the same for compiling (without launching) examples/matmul_leakyrelu.py's kernel, whose
   trace is long.

    python3 bench/launch_path.py [--processes 10] [--launches 100] [--frontend DIR]

--frontend runs another checkout's clients/python (before/after figures).
"""
import argparse
import importlib.util
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

REPO = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
FRONTEND = os.path.join(REPO, "clients", "python")

# The small kernel of parts 2 and 3: z = x + y over 256 float32 (three 1 KiB arrays).
SMALL_KERNEL = '''
import asc


@asc.jit
def small_add(x: asc.GlobalAddress, y: asc.GlobalAddress, z: asc.GlobalAddress, n: int):
    xg, yg, zg = asc.GlobalTensor(), asc.GlobalTensor(), asc.GlobalTensor()
    xg.set_global_buffer(x, n)
    yg.set_global_buffer(y, n)
    zg.set_global_buffer(z, n)
    xl = asc.LocalTensor(x.dtype, asc.TPosition.VECIN, 0, 256)
    yl = asc.LocalTensor(x.dtype, asc.TPosition.VECIN, 1024, 256)
    zl = asc.LocalTensor(x.dtype, asc.TPosition.VECOUT, 2048, 256)
    asc.data_copy(xl, xg, 256)
    asc.data_copy(yl, yg, 256)
    asc.set_flag(asc.HardEvent.MTE2_V, 0)
    asc.wait_flag(asc.HardEvent.MTE2_V, 0)
    asc.add(zl, xl, yl, 256)
    asc.set_flag(asc.HardEvent.V_MTE3, 0)
    asc.wait_flag(asc.HardEvent.V_MTE3, 0)
    asc.data_copy(zg, zl, 256)
'''

# A fresh process's first launch of the small kernel; prints import and launch seconds.
COLD_LAUNCH = '''
import time
start = time.perf_counter()
import numpy as np
import asc
import asc.lib.runtime as rt
import asc.runtime.config as config
import small_kernel
imported = time.perf_counter()
config.set_platform(config.Backend.Model)
x = np.arange(256, dtype=np.float32)
y = np.ones(256, np.float32)
z = np.zeros(256, np.float32)
small_kernel.small_add[1, rt.current_stream()](x, y, z, 256)
assert np.array_equal(z, x + y)
print(imported - start, time.perf_counter() - imported, small_kernel.small_add.compile_count)
'''

# A fresh process compiling (tracing, or loading) examples/matmul_leakyrelu.py's kernel.
COLD_MATMUL = '''
import time
import asc
from asc.runtime.jit import MockTensor
from matmul_leakyrelu import matmul_leakyrelu_kernel as kernel
start = time.perf_counter()
kernel.compile(MockTensor(asc.float16), MockTensor(asc.float16), MockTensor(asc.float32),
               MockTensor(asc.float32), 0.001, asc.adv.TCubeTiling(), MockTensor(asc.uint8))
print(0.0, time.perf_counter() - start, kernel.compile_count)
'''


def median_ms(values):
    return 1e3 * statistics.median(values)


def child_env(**extra):
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([FRONTEND, os.environ.get(
        "PYTHONPATH", "")]).rstrip(os.pathsep))
    env.update(extra)
    return env


def process_seconds(code, env, cwd=None):
    start = time.perf_counter()
    subprocess.run([sys.executable, "-c", code], env=env, cwd=cwd, check=True)
    return time.perf_counter() - start


def import_time(processes, env):
    """Median process times of `import numpy` and `import numpy, asc`, alternated."""
    bare, with_asc = [], []
    for _ in range(processes):
        bare.append(process_seconds("import numpy", env))
        with_asc.append(process_seconds("import numpy, asc", env))
    return median_ms(bare), median_ms(with_asc)


def bytecode_env(scratch, **extra):
    """Python as an installed package or a second run has it: bytecode caches kept (in the
    scratch directory, not the source tree), written by a first process."""
    env = child_env(PYTHONPYCACHEPREFIX=os.path.join(scratch, "pycache"), **extra)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    return env


def bench_import(processes, scratch):
    print(f"== import asc beyond numpy (median of {processes} fresh processes each)")
    env = bytecode_env(scratch)
    process_seconds("import numpy, asc", env)  # writes the bytecode caches
    numpy_ms, asc_ms = import_time(processes, env)
    print(f"with bytecode caches:        numpy {numpy_ms:6.1f} ms, numpy + asc {asc_ms:6.1f} ms, "
          f"asc {asc_ms - numpy_ms:6.1f} ms")
    package = os.path.join(FRONTEND, "asc")
    if os.environ.get("PYTHONDONTWRITEBYTECODE") and \
            not os.path.isdir(os.path.join(package, "__pycache__")):
        numpy_ms, asc_ms = import_time(processes, child_env())
        print(f"compiled from source (PYTHONDONTWRITEBYTECODE=1, no __pycache__): numpy "
              f"{numpy_ms:6.1f} ms, numpy + asc {asc_ms:6.1f} ms, asc {asc_ms - numpy_ms:6.1f} ms")


def load_module(name, path):
    """The module in the file `path` (written by this script, so not importable by name)."""
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def bench_warm_launch(launches, scratch):
    print(f"== warm small launch (1 core, three 1 KiB arrays; median of {launches})")
    sys.path.insert(0, FRONTEND)
    import numpy as np
    import asc.lib.runtime as rt
    import asc.runtime.config as config
    import asc.runtime.launcher as launcher
    small_kernel = load_module("small_kernel", os.path.join(scratch, "small_kernel.py"))

    config.set_platform(config.Backend.Model)
    x = np.arange(256, dtype=np.float32)
    y = np.ones(256, np.float32)
    z = np.zeros(256, np.float32)
    stream = rt.current_stream()
    small_kernel.small_add[1, stream](x, y, z, 256)  # compiles
    assert np.array_equal(z, x + y)

    native = []
    real = launcher._native_launch

    def timed(*args, **kwargs):
        start = time.perf_counter()
        try:
            return real(*args, **kwargs)
        finally:
            native.append(time.perf_counter() - start)

    launcher._native_launch = timed
    total = []
    try:
        for _ in range(launches):
            start = time.perf_counter()
            small_kernel.small_add[1, stream](x, y, z, 256)
            total.append(time.perf_counter() - start)
    finally:
        launcher._native_launch = real
    overhead = [t - n for t, n in zip(total, native)]
    print(f"launch {median_ms(total):.3f} ms = simulation (the native launch call) "
          f"{median_ms(native):.3f} ms + overhead {median_ms(overhead):.3f} ms "
          f"(overhead p10-p90 {1e3 * sorted(overhead)[len(overhead) // 10]:.3f}-"
          f"{1e3 * sorted(overhead)[len(overhead) * 9 // 10]:.3f} ms)")


def cold(code, processes, cache, cwd):
    """Median process, import and first-call times over `processes` fresh processes, and how
    many of them traced."""
    env = bytecode_env(cwd, PYASC_CACHE_DIR=cache)
    env["PYTHONPATH"] += os.pathsep + os.path.join(REPO, "examples")
    wall, imported, first, traced = [], [], [], 0
    for _ in range(processes):
        start = time.perf_counter()
        done = subprocess.run([sys.executable, "-c", code], env=env, cwd=cwd, check=True,
                              capture_output=True, text=True)
        wall.append(time.perf_counter() - start)
        fields = done.stdout.split()
        imported.append(float(fields[0]))
        first.append(float(fields[1]))
        traced += int(fields[2])
    return median_ms(wall), median_ms(imported), median_ms(first), traced


def bench_cold(processes, scratch):
    print(f"== cold launch in a fresh process (median of {processes})")
    cache = os.path.join(scratch, "kernel-cache")
    for label, code in (("small add, launched", COLD_LAUNCH),
                        ("Matmul kernel, compiled only", COLD_MATMUL)):
        off = cold(code, processes, "", scratch)
        cold(code, 1, cache, scratch)  # fills the cache
        on = cold(code, processes, cache, scratch)
        for name, (wall, imported, first, traced) in (("cache off", off), ("cache on", on)):
            print(f"{label:30s} {name:9s}: process {wall:7.1f} ms, of which import "
                  f"{imported:6.1f} ms, first call {first:6.1f} ms ({traced}/{processes} "
                  "traced)")


def main():
    global FRONTEND
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--processes", type=int, default=10)
    parser.add_argument("--launches", type=int, default=100)
    parser.add_argument("--frontend", default=FRONTEND, help="the directory holding asc/")
    args = parser.parse_args()
    FRONTEND = os.path.abspath(args.frontend)
    scratch = tempfile.mkdtemp(prefix="launch-path-")
    try:
        with open(os.path.join(scratch, "small_kernel.py"), "w", encoding="utf-8") as f:
            f.write(SMALL_KERNEL)
        bench_import(args.processes, scratch)
        bench_cold(args.processes, scratch)
        os.environ["PYASC_CACHE_DIR"] = os.path.join(scratch, "warm-cache")
        bench_warm_launch(args.launches, scratch)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
