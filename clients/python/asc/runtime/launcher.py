"""Launching a compiled kernel: host argument conversion (asc-api.md 1.7), device copies, the
native launch, copy-back, and turning the report into a result or an exception."""
from __future__ import annotations

import dataclasses
import json
import numbers
import os
import sys
import warnings
from typing import Any, Dict, List, Optional, Tuple

import numpy as np

from asc.language.core.dtype import DataType, KnownTypes
from asc.runtime.compiler import ArgSpec, CompiledKernel
from asc.runtime.errors import (CycleLimitError, DeadlockError, KernelCheckError,
                                 KernelFaultError, KernelWarning)
from asc.runtime.report import LaunchReport


@dataclasses.dataclass(frozen=True)
class LaunchOptions:
    """Launch options of a kernel: the core count and the stream (asc-api.md 1.6).

    Made by `kernel[core_num]` or `kernel[core_num, stream]`; stream None is
    rt.current_stream()."""

    core_num: int = 0
    stream: Any = None


class MockTensor:
    """Stands for an array argument of `dtype` when only tracing (no data, no launch)."""

    def __init__(self, dtype: DataType):
        self.dtype = DataType(dtype)


class MockValue:
    """Stands for a scalar argument of `dtype` when only tracing."""

    def __init__(self, dtype: DataType):
        self.dtype = DataType(dtype)


class HostArg:
    """One runtime argument: its spec for tracing and how to pass it (and copy it back)."""

    def __init__(self, spec: ArgSpec, value=None, array: Optional[np.ndarray] = None):
        self.spec = spec
        self.value = value  # scalar value (int/float) for scalars
        self.array = array  # host data for pointers; a CPU torch tensor's numpy view shares memory
        self.device_addr: Optional[int] = None
        self.copy_back = True  # struct bytes are not copied back (asc-api.md 1.7)


def _torch_tensor_type():
    torch = sys.modules.get("torch")
    return getattr(torch, "Tensor", None) if torch is not None else None


# The DataType of each numpy dtype an array argument had: naming a dtype costs more than the
# rest of an array's conversion.
_ARRAY_DTYPES: Dict[np.dtype, DataType] = {}


def convert_arg(name: str, value, kernel: str = "") -> HostArg:
    """Map a host value to a kernel argument, in pyasc's order of checks. `kernel` names the
    kernel in the errors about an array's dtype."""
    if isinstance(value, bool):
        return HostArg(ArgSpec(name, "scalar", KnownTypes.bool_), value=int(value))
    if isinstance(value, numbers.Integral) and not isinstance(value, np.generic):
        if not -2**31 <= int(value) < 2**31:
            raise OverflowError(f"Python int {value} out of bounds for int32 (argument '{name}')")
        return HostArg(ArgSpec(name, "scalar", KnownTypes.int32), value=int(value))
    if isinstance(value, float):
        return HostArg(ArgSpec(name, "scalar", KnownTypes.float32), value=float(value))
    if isinstance(value, np.ndarray):
        dtype = _ARRAY_DTYPES.get(value.dtype)
        if dtype is None:
            dtype = DataType(str(value.dtype))
            try:
                dtype.to_ir()
            except TypeError as e:
                where = f"kernel {kernel}: " if kernel else ""
                raise TypeError(f"{where}argument '{name}' is a {value.dtype} array: {e}; pass "
                                "an array of int8-int64, uint8-uint64, float16, float32 or "
                                f"float64 (e.g. {name}.astype(np.float32))") from None
            _ARRAY_DTYPES[value.dtype] = dtype
        return HostArg(ArgSpec(name, "ptr", dtype), array=value)
    if isinstance(value, np.generic):
        dtype = DataType(str(value.dtype))
        scalar = float(value) if dtype.is_float() else int(value)
        return HostArg(ArgSpec(name, "scalar", dtype), value=scalar)
    from asc.language.core.struct import Struct
    if isinstance(value, Struct):
        arg = HostArg(ArgSpec(name, "ptr", KnownTypes.uint8, type(value)),
                      array=np.frombuffer(value.pack(), dtype=np.uint8).copy())
        arg.copy_back = False
        return arg
    tensor_type = _torch_tensor_type()
    if tensor_type is not None and isinstance(value, tensor_type):
        return _convert_torch(name, value)
    if isinstance(value, MockTensor):
        return HostArg(ArgSpec(name, "ptr", value.dtype))
    if isinstance(value, MockValue):
        return HostArg(ArgSpec(name, "scalar", value.dtype))
    raise TypeError("Argument type in JIT function is not supported: "
                    f"{type(value).__name__}")


def _convert_torch(name: str, t) -> HostArg:
    dtype = DataType(str(t.dtype).replace("torch.", ""))
    if t.device.type != "cpu":
        raise TypeError(f"argument '{name}': only CPU torch tensors can be passed to the "
                        f"simulator, got device '{t.device}'")
    spec = ArgSpec(name, "ptr", dtype)
    try:
        host = t.detach().numpy()
    except (TypeError, RuntimeError):
        # e.g. bfloat16: typed, but tracing rejects it before any data is needed.
        return HostArg(spec, array=None)
    return HostArg(spec, array=host)


def _is_mock(arg: HostArg) -> bool:
    return arg.spec.kind == "ptr" and arg.array is None or \
        arg.spec.kind == "scalar" and arg.value is None


class Launcher:
    """pyasc's launch object: `Launcher(options).run(kernel, function_name, user_args)` runs one
    compiled kernel once. The JIT's launch path (`kernel[core_num, stream](...)`) makes exactly
    one `run` call per launch and nothing else touches the device, so tests that patch
    `Launcher.run` (as pyasc's unit tests do) trace kernels without simulating them.

    `record_timeline`, `check` and `timing_only` are aicore-sim's run options (see
    `docs/frontend.md`, `docs/timing_only.md`)."""

    def __init__(self, options: LaunchOptions, record_timeline: bool = False, check: str = "",
                 timing_only: bool = False):
        self.options = options
        self.record_timeline = bool(record_timeline)
        self.check = check
        self.timing_only = bool(timing_only)

    def run(self, kernel: CompiledKernel, function_name: str, user_args: List[HostArg]):
        """Run `kernel` on `options.core_num` cores; returns the LaunchReport, raises
        KernelFaultError (with every diagnostic) if the kernel faulted, KernelCheckError if the
        check level (off|warn|strict|strict-all; empty for AICORE_SIM_CHECK, default warn)
        fails its findings. With `record_timeline` the report carries one record per pipe
        instruction (`report.timeline`). With `timing_only` the launch skips the element math
        no scalar read needs and leaves the arrays as they were (`report.timing_only`).
        `function_name` is the kernel's name (the IR carries it too; pyasc passes it to look
        the function up in the device binary).

        AICORE_SIM_TIMING_CHECK=1 runs each full launch timing-only first and fails it with
        TimingOnlyMismatch when the cycles differ (a kernel whose scalar unit reads what
        timing-only skips is left out: it cannot run that way)."""
        if any(_is_mock(a) for a in user_args):
            raise TypeError("MockTensor/MockValue arguments can be traced but not launched")
        _check_writable(kernel, user_args)
        _warn_waves(kernel, int(self.options.core_num))
        dump_dir = os.environ.get("AICORE_SIM_DUMP_IR", "")
        # The inputs as given, before the launch's results overwrite them.
        inputs = [np.array(a.array, copy=True) if a.spec.kind == "ptr" else a.value
                  for a in user_args] if dump_dir else None
        cache_key = self._result_cache_key(kernel, user_args)
        cached = None
        if cache_key:
            from asc.runtime import result_cache
            found = result_cache.load(_result_cache_dir(), cache_key, user_args)
            cached = LaunchReport(found) if found is not None else None
        if cached is not None:
            report = cached
        elif not self.timing_only and \
                os.environ.get("AICORE_SIM_TIMING_CHECK", "") not in ("", "0"):
            timing = self._launch(kernel, user_args, timing_only=True, trace=False)
            report = self._launch(kernel, user_args, timing_only=False)
            _compare_timing(report, timing)
        else:
            report = self._launch(kernel, user_args, self.timing_only)
        if cache_key and cached is None and report.status == "OK":
            from asc.runtime import result_cache
            result_cache.store(_result_cache_dir(), cache_key, report.proto, user_args)
        if dump_dir:
            self._dump_job(dump_dir, kernel, function_name, user_args, inputs, report)
        _append_report_file(report, from_cache=cached is not None)
        print_debug_output(report)
        check_report(report)
        return report

    def _result_cache_key(self, kernel: CompiledKernel, user_args: List[HostArg]) -> str:
        """The result cache's key for this launch, or "" when the cache is off or the launch
        must really run: a trace asked for (files to write), timing-only (its arrays stay as
        they were), or the timing check. A recorded timeline is part of the cached report."""
        if not _result_cache_dir() or self.timing_only or \
                os.environ.get("AICORE_SIM_TRACE") or \
                os.environ.get("AICORE_SIM_TIMING_CHECK", "") not in ("", "0"):
            return ""
        from asc.lib import runtime as rt
        from asc.runtime import result_cache
        options = {"check": self.check or os.environ.get("AICORE_SIM_CHECK", ""),
                   "max_cycles": _max_cycles(), "record_timeline": self.record_timeline}
        return result_cache.key(kernel.ir_bytes, user_args, int(self.options.core_num), options,
                                rt.current_platform(), rt._runtime_identity())

    def _dump_job(self, root: str, kernel: CompiledKernel, function_name: str,
                  user_args: List[HostArg], inputs: list, report: LaunchReport) -> None:
        """AICORE_SIM_DUMP_IR=DIR: this launch as a job folder below DIR (docs/jobs.md)."""
        from asc.lib import runtime as rt
        from asc.runtime import jobs
        args = []
        for arg, value in zip(user_args, inputs):
            if arg.spec.kind == "ptr":
                args.append(jobs.JobArg("buffer", array=value, name=arg.spec.name))
            elif arg.spec.dtype.is_float():
                args.append(jobs.JobArg("float", value=float(value), name=arg.spec.name))
            else:
                args.append(jobs.JobArg("int", value=int(value), name=arg.spec.name))
        options = {"max_cycles": _max_cycles(), "timing_only": bool(self.timing_only),
                   "record_timeline": bool(self.record_timeline),
                   "check": self.check or os.environ.get("AICORE_SIM_CHECK", "") or "warn"}
        job = jobs.Job(kernel_name=report.kernel_name or function_name,
                       kernel_ir=kernel.ir_bytes, platform=rt.current_platform(),
                       block_dim=int(self.options.core_num), args=args, options=options,
                       recorded={"cycles": int(report.cycles), "status": report.status,
                                 "simulator_version": report.proto.simulator_version,
                                 "config_hash": report.config_hash})
        jobs.write_job(root, job)

    def _launch(self, kernel: CompiledKernel, user_args: List[HostArg], timing_only: bool,
                trace: bool = True):
        """One launch on the device; the arrays receive the results unless `timing_only`, and
        AICORE_SIM_TRACE receives its trace if `trace`."""
        from asc.lib import runtime as rt
        runtime = rt.get_runtime()
        stream = rt.current_stream() if self.options.stream is None else self.options.stream
        stream_id = int(stream.value or 0) if hasattr(stream, "value") else int(stream)
        allocated = []
        try:
            native_args: List[Tuple[str, Any]] = []
            for arg in user_args:
                if arg.spec.kind == "ptr":
                    data = np.ascontiguousarray(arg.array).reshape(-1).view(np.uint8)
                    arg.device_addr = runtime.malloc(max(int(data.nbytes), 1))
                    allocated.append(arg.device_addr)
                    if data.nbytes:
                        runtime.memcpy_h2d(arg.device_addr, data)
                    native_args.append(("addr", arg.device_addr))
                elif arg.spec.dtype.is_float():
                    native_args.append(("float", float(arg.value)))
                else:
                    native_args.append(("int", int(arg.value)))
            raw = _native_launch(runtime, kernel, int(self.options.core_num), native_args,
                                 stream_id, self.record_timeline, self.check, timing_only,
                                 trace)
            runtime.synchronize(stream_id)
            report = LaunchReport.from_bytes(raw)
            for arg in user_args:
                if (arg.spec.kind == "ptr" and arg.copy_back and arg.array.nbytes
                        and not report.timing_only):
                    _copy_back(runtime, arg)
        finally:
            for addr in allocated:
                try:
                    runtime.free(addr)
                except RuntimeError:
                    pass
        return report


def _native_launch(runtime, compiled, core_num, native_args, stream_id, record_timeline, check,
                   timing_only=False, trace=True):
    # AICORE_SIM_TRACE=DIR: the runtime writes msprof-style trace files to DIR/OPPROF_<kernel>_<n>/.
    # An empty check lets the runtime read AICORE_SIM_CHECK (and reject a bad value).
    return runtime.launch(compiled.ir_bytes, core_num, native_args, stream=stream_id,
                          max_cycles=_max_cycles(), record_timeline=bool(record_timeline),
                          trace_dir=os.environ.get("AICORE_SIM_TRACE", "") if trace else "",
                          check=check, timing_only=bool(timing_only))


class TimingOnlyMismatch(RuntimeError):
    """AICORE_SIM_TIMING_CHECK: a timing-only launch of a kernel took other cycles than its
    full launch (a simulator bug: timing-only must not change the timing)."""


def _compare_timing(full: LaunchReport, timing: LaunchReport) -> None:
    skipped = any(d.kind == "TIMING_ONLY_READ" for d in timing.diagnostics)
    if skipped or full.status != "OK":
        return  # it cannot run timing-only, or the full run fails on its own
    if timing.cycles != full.cycles or timing.status != full.status:
        raise TimingOnlyMismatch(
            f"{full.kernel_name}: the timing-only launch took {timing.cycles} cycles "
            f"({timing.status}), the full launch {full.cycles} ({full.status}). This is "
            "aicore-sim's bug (INTERNAL): please report it with the kernel.")


# (kernel, block_dim, platform) already warned about: once per process, not once per launch.
_warned_waves = set()


def _warn_waves(kernel: CompiledKernel, block_dim: int) -> None:
    """A block count above the platform's cores is legal (the chip runs the blocks in waves, a
    wave starting as cores of the previous one finish) but rarely meant: a KernelWarning, once,
    before the launch, naming the waves and the fix."""
    from asc.lib import runtime as rt
    from asc._proto import kernel_pb2
    platform = rt.current_platform()
    if (kernel.name, block_dim, platform) in _warned_waves:
        return
    cube, vector = rt._core_counts()
    aiv_only = kernel.ir.kernel_type == kernel_pb2.KERNEL_AIV_ONLY
    cores, what = (vector, "vector cores") if aiv_only else \
        (cube, "cube cores" if kernel.ir.kernel_type == kernel_pb2.KERNEL_AIC_ONLY
         else "core groups (one cube core with its vector cores)")
    if cores <= 0 or block_dim <= cores:
        return
    _warned_waves.add((kernel.name, block_dim, platform))
    full, rest = divmod(block_dim, cores)
    waves = full + (1 if rest else 0)
    sizes = " + ".join([str(cores)] * full + ([str(rest)] if rest else []))
    warnings.warn(
        f"kernel {kernel.name}: block_dim {block_dim} is more than the {cores} {what} of "
        f"{platform}, so its blocks run in {waves} waves ({sizes}), each starting as cores of "
        f"the previous one finish, as on the chip. For one wave, launch at most {cores} blocks "
        "and loop over the work inside the kernel (asc.get_block_num()).",
        KernelWarning, stacklevel=5)


def _written_params(kernel: CompiledKernel):
    """asc.runtime.outputs.written_params of the kernel, computed once per compiled kernel."""
    found = getattr(kernel, "_written", None)
    if found is None:
        from asc.runtime.outputs import written_params
        found = written_params(kernel.ir)
        kernel._written = found
    return found


def _check_writable(kernel: CompiledKernel, user_args: List[HostArg]) -> None:
    """Read-only arrays (`x.setflags(write=False)`, `np.broadcast_to`): an input is accepted and
    never copied back; an output (an argument the kernel's IR stores to) is refused here, before
    the launch, naming the kernel and the argument."""
    readonly = [a for a in user_args
                if a.spec.kind == "ptr" and a.copy_back and not a.array.flags.writeable]
    if not readonly:
        return
    written, complete = _written_params(kernel)
    for arg in readonly:
        if arg.spec.name in written:
            raise ValueError(
                f"kernel {kernel.name}: argument '{arg.spec.name}' is a read-only array, but the "
                "kernel writes it (its IR stores to that tensor), so its results could not be "
                f"copied back. Pass a writable array (e.g. {arg.spec.name}.copy(); "
                "np.broadcast_to views are read-only)")
        if complete:
            arg.copy_back = False  # provably only read: nothing to copy back


def _copy_back(runtime, arg: HostArg) -> None:
    """Overwrite the host array (numpy, or the numpy view of a CPU torch tensor) in place."""
    arr = arg.array
    if arr.flags.c_contiguous and arr.flags.writeable:
        runtime.memcpy_d2h(arr.reshape(-1).view(np.uint8), arg.device_addr)
        return
    staging = np.empty(arr.shape, dtype=arr.dtype)
    runtime.memcpy_d2h(staging.reshape(-1).view(np.uint8), arg.device_addr)
    if not arr.flags.writeable:
        # A read-only array the analysis could not clear (an address read from memory): fine if
        # the kernel left it as it was.
        if np.array_equal(staging.view(np.uint8), np.ascontiguousarray(arr).view(np.uint8)):
            return
        raise ValueError(f"argument '{arg.spec.name}' is a read-only array, but the kernel "
                         "changed it; its results are in device memory only. Pass a writable "
                         f"array (e.g. {arg.spec.name}.copy())")
    arr[...] = staging


def print_debug_output(report: LaunchReport) -> None:
    """Device printf / dump_tensor output goes to stdout once the kernel is done, as the chip's
    appears on the host; before any failure is raised, so a trap's preceding prints show."""
    text = report.debug_text
    if text:
        sys.stdout.write(text)
        sys.stdout.flush()


def _max_cycles() -> int:
    value = os.environ.get("AICORE_SIM_MAX_CYCLES", "")
    return int(value) if value.strip() else 0


# Sites already reported as warnings in this process: each distinct finding is shown once, not
# once per launch of a kernel in a loop or a test suite.
_warned_sites = set()


def _show_notes() -> bool:
    """AICORE_SIM_NOTES=1: notes (findings that change no result, such as GM_SHARED_WRITE) are
    shown like warnings; by default they are only counted and kept in the report."""
    return os.environ.get("AICORE_SIM_NOTES", "").strip() not in ("", "0")


def check_report(report: LaunchReport) -> None:
    """Raise if the launch failed or its check level fails the findings; surface the findings
    of a passing one as warnings, once per distinct site (notes only under AICORE_SIM_NOTES)."""
    if report.status != "OK":
        lines = [f"kernel '{report.kernel_name}' failed on {report.platform} "
                 f"(block_dim {report.block_dim}) with status {report.status} "
                 f"after {report.cycles} cycles"]
        lines += ["  " + str(d) for d in report.diagnostics]
        if not report.diagnostics:
            lines.append("  (the simulator reported no diagnostics)")
        cls = {"DEADLOCK": DeadlockError, "CYCLE_LIMIT_EXCEEDED": CycleLimitError}.get(
            report.status, KernelFaultError)
        raise cls("\n".join(lines), report)
    if report.check.failed:
        raise KernelCheckError(_check_failure_message(report), report)
    notes = _show_notes()
    fresh = [d for d in report.diagnostics if d.site() not in _warned_sites and
             (notes or d.severity != "NOTE")]
    for d in fresh:
        _warned_sites.add(d.site())
        label = "NOTE" if d.severity == "NOTE" else "WARNING"
        warnings.warn(d.text(label), KernelWarning, stacklevel=5)
    if fresh:
        sys.stderr.write(f"aicore-sim: kernel '{report.kernel_name}': {report.check.summary}"
                         f" (check level {report.check.level})\n")


def _check_failure_message(report: LaunchReport) -> str:
    """The first finding that fails the level, in full, then the rest, one line each."""
    check = report.check
    failing = [d for d in report.diagnostics
               if check.level == "strict-all" or d.severity == "ERROR" or d.kind == "RACE"]
    rest = [d for d in report.diagnostics if d not in failing]
    lines = [f"kernel '{report.kernel_name}' fails {check.level} checking on {report.platform} "
             f"(block_dim {report.block_dim}): {check.summary}"]
    if failing:
        lines.append("  " + str(failing[0]))
        lines += ["  also: " + str(d) for d in failing[1:]]
    lines += ["  and: " + str(d) for d in rest]
    lines.append("  (set AICORE_SIM_CHECK=warn, or check='warn', to run it with warnings only)")
    return "\n".join(lines)


def _result_cache_dir() -> str:
    return os.environ.get("AICORE_SIM_RESULT_CACHE", "")


def _append_report_file(report: LaunchReport, from_cache: bool = False) -> None:
    path = os.environ.get("AICORE_SIM_REPORT")
    if not path:
        return
    record = {
        "from_cache": from_cache,
        "simulator_version": report.proto.simulator_version,
        "config_hash": report.config_hash,
        "kernel": report.kernel_name,
        "platform": report.platform,
        "status": report.status,
        "block_dim": report.block_dim,
        "cycles": report.cycles,
        "duration_us": report.duration_us,
        "clock_mhz": report.clock_mhz,
        "simulated_instructions": report.simulated_instructions,
        "bound_pipe": report.bound_pipe,
        "cores": [c.to_dict() for c in report.cores],
        "diagnostics": [d.to_dict() for d in report.diagnostics],
        "check": report.check.to_dict(),
    }
    with open(path, "a", encoding="utf-8") as f:
        f.write(json.dumps(record) + "\n")
