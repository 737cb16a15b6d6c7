#!/usr/bin/python3
"""Regenerates the fuzzers' seed corpus (docs/fuzzing.md) from the kernels of real tests.

Runs a selection of tests/python suites under pytest with the launch replaced by a recorder
(asc.runtime.launcher.Launcher.run, the one call per launch that touches the device), so every
kernel a test would launch is traced and serialized by the frontend exactly as it launches it,
and nothing is simulated. The tests' own assertions then fail; that is expected and ignored.

Writes, replacing the seeds it wrote before (regression seeds, regress-*, stay):
  tests/fuzz/corpus/ir/<kernel>-<hash>      an aicore.ir.v1.Kernel (CompiledKernel.ir_bytes)
  tests/fuzz/corpus/launch/<kernel>-<hash>  an aicore.service.v1.LaunchRequest of that kernel, its
                                            block_dim and arguments as the test passed them

    PYTHONPATH=clients/python /usr/bin/python3 tests/fuzz/make_corpus.py

Needs a built tree (`make build`: the tests' fixtures open the embedded runtime, though no kernel
runs) and protoc (the build's protobuf-compiler) for the LaunchRequest message class.
"""
import contextlib
import hashlib
import io
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.abspath(os.path.join(HERE, "..", ".."))
TESTS = os.path.join(REPO, "tests", "python")
for path in (os.path.join(REPO, "clients", "python"), os.path.join(REPO, "examples"), TESTS):
    if path not in sys.path:
        sys.path.insert(0, path)

import pytest  # noqa: E402
from google.protobuf import descriptor_pb2, descriptor_pool, message_factory  # noqa: E402

from asc._proto import kernel_pb2  # noqa: E402
from asc.runtime import launcher  # noqa: E402

# The suites whose kernels seed the corpus: vector, control flow, framework queues, cube,
# matmul, sorting, reductions, casts, copies, scalar access, debug output, mixed kernels.
SUITES = [
    "test_vadd.py", "test_ops.py", "test_control_flow.py", "test_fwk.py", "test_cube.py",
    "test_matmul.py", "test_sort.py", "test_reduce.py", "test_cast.py", "test_select.py",
    "test_copy.py", "test_data_copy_pad.py", "test_gather.py", "test_atomic.py",
    "test_scalar_access.py", "test_debug.py", "test_mixed.py", "test_adv_softmax.py",
    "test_transpose.py", "test_compare.py", "test_bilinear.py", "test_system_regs.py",
]
PER_SUITE = 3            # distinct kernels kept per suite, in the order the tests launch them
MAX_SEED_BYTES = 24 << 10  # larger kernels slow the fuzzer more than they add

# The buffers service_fuzz.cc allocates on each fresh device (kBuffers, kFirstBufferAddress,
# kBufferStride): pointer arguments are passed as these addresses, in order, wrapping around.
BUFFERS = [(1 << 32) + i * (2 << 20) for i in range(4)]

CHECK_LEVELS = {"": 0, "off": 1, "warn": 2, "strict": 3, "strict-all": 4}


def launch_request_class():
    """aicore.service.v1.LaunchRequest, from proto/ through protoc, in its own descriptor pool
    (the asc package registers kernel.proto in the default one)."""
    proto_dir = os.path.join(REPO, "proto")
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "simulator.desc")
        subprocess.run(["protoc", "-I", proto_dir, "--include_imports",
                        "--descriptor_set_out", out, os.path.join(proto_dir, "simulator.proto")],
                       check=True)
        with open(out, "rb") as f:
            files = descriptor_pb2.FileDescriptorSet.FromString(f.read())
    pool = descriptor_pool.DescriptorPool()
    for file in files.file:
        pool.Add(file)
    descriptor = pool.FindMessageTypeByName("aicore.service.v1.LaunchRequest")
    return message_factory.MessageFactory(pool).GetPrototype(descriptor)


class Recorder:
    """A pytest plugin that knows which suite is running and, while installed(), replaces
    Launcher.run to keep each kernel launch (kernel bytes, block_dim, arguments, run options)."""

    def __init__(self):
        self.launches = []  # (suite, ir_bytes, block_dim, args, check, timing_only)
        self.suite = ""

    @contextlib.contextmanager
    def installed(self):
        recorder = self

        def record(launcher_self, kernel, function_name, user_args):
            args = [(a.spec.kind, a.spec.dtype.is_float(), a.value) for a in user_args]
            recorder.launches.append((recorder.suite, kernel.ir_bytes,
                                      int(launcher_self.options.core_num), args,
                                      launcher_self.check, launcher_self.timing_only))
            raise RuntimeError("make_corpus.py: launch recorded, not simulated")

        run = launcher.Launcher.run
        launcher.Launcher.run = record
        try:
            yield self
        finally:
            launcher.Launcher.run = run

    def pytest_runtest_setup(self, item):
        self.suite = os.path.splitext(os.path.basename(str(item.fspath)))[0]


def portable_kernel(ir_bytes):
    """The kernel with its source paths relative to the repository, so the seeds do not depend
    on where it was checked out."""
    kernel = kernel_pb2.Kernel.FromString(ir_bytes)
    for i, path in enumerate(kernel.files):
        if os.path.isabs(path) and path.startswith(REPO + os.sep):
            kernel.files[i] = os.path.relpath(path, REPO)
    return kernel


def launch_request(request_class, kernel, block_dim, args, check, timing_only):
    request = request_class()
    request.session_id = "fuzz"
    # Its own pool's Kernel class: the message crosses as bytes.
    request.kernel.MergeFromString(kernel.SerializeToString())
    request.block_dim = block_dim
    pointer = 0
    for kind, is_float, value in args:
        arg = request.args.add()
        if kind == "ptr":
            arg.address = BUFFERS[pointer % len(BUFFERS)]
            pointer += 1
        elif is_float:
            arg.float_value = float(value)
        else:
            arg.int_value = int(value)
    request.options.check = CHECK_LEVELS.get(check, 0)
    request.options.timing_only = bool(timing_only)
    return request


def clear(directory):
    """Removes the generated seeds; regression seeds (regress-*, docs/fuzzing.md) stay."""
    os.makedirs(directory, exist_ok=True)
    for name in os.listdir(directory):
        if not name.startswith("regress-"):
            os.remove(os.path.join(directory, name))


def main():
    request_class = launch_request_class()
    recorder = Recorder()
    os.environ.pop("AICORE_SIM_ADDRESS", None)
    # The tests' own output and failures are noise here: only the recorded launches matter.
    with contextlib.redirect_stdout(io.StringIO()), recorder.installed():
        pytest.main(["-q", "-p", "no:cacheprovider", "--rootdir", TESTS]
                    + [os.path.join(TESTS, s) for s in SUITES], plugins=[recorder])

    ir_dir = os.path.join(HERE, "corpus", "ir")
    launch_dir = os.path.join(HERE, "corpus", "launch")
    clear(ir_dir)
    clear(launch_dir)
    seen = set()
    kept = {}
    total = 0
    for suite, ir_bytes, block_dim, args, check, timing_only in recorder.launches:
        kernel = portable_kernel(ir_bytes)
        data = kernel.SerializeToString()
        digest = hashlib.sha1(data).hexdigest()[:12]
        if digest in seen or len(data) > MAX_SEED_BYTES or kept.get(suite, 0) >= PER_SUITE:
            continue
        seen.add(digest)
        kept[suite] = kept.get(suite, 0) + 1
        name = f"{kernel.name or 'kernel'}-{digest}"
        request = launch_request(request_class, kernel, block_dim, args, check, timing_only)
        launch = request.SerializeToString()
        with open(os.path.join(ir_dir, name), "wb") as f:
            f.write(data)
        with open(os.path.join(launch_dir, name), "wb") as f:
            f.write(launch)
        total += len(data) + len(launch)
    print(f"{len(seen)} kernels from {len(kept)} suites ({len(recorder.launches)} launches "
          f"recorded): {total} bytes in {ir_dir} and {launch_dir}")
    return 0 if seen else 1


if __name__ == "__main__":
    sys.exit(main())
