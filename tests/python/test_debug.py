"""Device debug output (asc-api.md 4.15, 3.10): printf and dump_tensor text in the launch report
and on stdout, trap as a kernel fault, profiling marks in the timeline, the 50 MHz counter."""
import inspect
import os

import numpy as np
import pytest

import asc
import asc.lib.runtime as rt
from asc.codegen.errors import CodegenError
from asc.runtime.errors import KernelFaultError

from debug_kernels import print_kernel

THIS_FILE = os.path.basename(__file__)


def _line(fn, text):
    lines, start = inspect.getsourcelines(fn.fn)
    return start + next(i for i, line in enumerate(lines) if text in line)


def test_printf_and_dump_tensor_print_after_the_launch_by_core(device, capsys):
    x = np.arange(2 * 64, dtype=np.float32)
    report = print_kernel[2, rt.current_stream()](x, 64, 0.5)
    out = capsys.readouterr().out
    first = ("block 0 of print_kernel: n=64 scale=0.50 hex=130 100%\n"
             "DumpTensor: desc=7, addr=0, data_type=float32, position=UB, dump_size=8\n"
             "[0.000000, 1.000000, 2.000000, 3.000000, 4.000000, 5.000000, 6.000000, 7.000000]\n"
             "DumpTensor: desc=8, addr=0, data_type=float32, position=UB, dump_size=4\n"
             "[[0.000000, 0.500000],\n[1.000000, 1.500000]]\n")
    assert out.startswith(first)
    assert "block 1 of print_kernel" in out and "[64.000000, 65.000000" in out
    assert out == report.debug_text
    kinds = [(d.core, d.kind) for d in report.debug_output]
    assert kinds == [(0, "PRINTF"), (0, "DUMP_TENSOR"), (0, "DUMP_TENSOR"),
                     (1, "PRINTF"), (1, "DUMP_TENSOR"), (1, "DUMP_TENSOR")]
    cycles = [d.cycle for d in report.debug_output if d.core == 0]
    assert cycles == sorted(cycles) and cycles[0] < cycles[1]
    d = report.debug_output[0]
    assert os.path.basename(d.file) == "debug_kernels.py" and d.line > 0
    assert report.check.races == 0 and report.check.errors == 0


@asc.jit
def int_print_kernel(x: asc.GlobalAddress):
    v = asc.get_block_idx() - 3
    asc.printf("%d %i %u %x %X %o %5d|%-4d|%c %p\n", v, v, v, v, v, 8, v, v, 65, x)
    asc.printf("%e %g %f\n", 1.5, 0.25, v)


def test_printf_conversions_follow_c(device, capsys):
    x = np.zeros(8, dtype=np.int32)
    report = int_print_kernel[1, rt.current_stream()](x)
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("-3 -3 4294967293 fffffffd FFFFFFFD 10    -3|-3  |A 0x")
    assert int(lines[0].split()[-1], 16) != 0
    assert lines[1] == "1.500000e+00 0.25 -3.000000"
    assert report.debug_output[0].kind == "PRINTF"


@asc.jit
def missing_arg_kernel():
    asc.printf("%d and %d\n", 1)


def test_printf_with_too_few_arguments_is_a_trace_error(device):
    with pytest.raises(CodegenError) as info:
        missing_arg_kernel[1, rt.current_stream()]()
    assert "more conversions" in str(info.value)


@asc.jit
def trap_kernel(x: asc.GlobalAddress):
    asc.printf("before the trap\n")
    if asc.get_block_idx() == 1:
        asc.trap()
    asc.printf("after\n")


def test_trap_is_a_kernel_fault_with_its_line_and_earlier_output_prints(device, capsys):
    x = np.zeros(8, dtype=np.int32)
    with pytest.raises(KernelFaultError) as info:
        trap_kernel[2, rt.current_stream()](x)
    text = str(info.value)
    assert "TRAP" in text or "trap()" in text
    assert f"{THIS_FILE}:{_line(trap_kernel, 'asc.trap()')}" in text
    assert "before the trap" in capsys.readouterr().out


@asc.jit
def prof_kernel(x: asc.GlobalAddress, n: int):
    g = asc.GlobalTensor()
    g.set_global_buffer(x)
    t = asc.LocalTensor(x.dtype, asc.TPosition.VECIN, 0, n)
    asc.metrics_prof_start()
    asc.data_copy(t, g, n)
    asc.print_time_stamp(65577)
    asc.metrics_prof_stop()


def test_profiling_marks_are_timeline_records_with_no_effect(device, capsys):
    x = np.zeros(64, dtype=np.float32)
    report = prof_kernel[1, rt.current_stream()](x, 64, record_timeline=True)
    marks = [r for r in report.timeline if r.pipe == "S"]
    assert [r.op for r in marks] == ["metrics_prof_start", "print_time_stamp", "metrics_prof_stop"]
    assert marks[0].start_cycle <= marks[1].start_cycle <= marks[2].start_cycle
    assert "S" not in report.pipe_intervals()
    out = capsys.readouterr().out
    assert out.startswith("descId is 65577, rsv is 0, timeStamp is ")


@asc.jit
def cycle_kernel(x: asc.GlobalAddress, y: asc.GlobalAddress, n: int):
    gx, gy = asc.GlobalTensor(), asc.GlobalTensor()
    gx.set_global_buffer(x)
    gy.set_global_buffer(y)
    t = asc.LocalTensor(x.dtype, asc.TPosition.VECIN, 0, n)
    start = asc.get_system_cycle()
    asc.data_copy(t, gx, n)
    asc.pipe_barrier(asc.PipeID.PIPE_ALL)
    stop = asc.get_system_cycle()
    asc.printf("%ld %ld\n", start, stop)


def test_system_cycle_is_the_50mhz_counter_of_simulated_time(device, capsys):
    n = 16384
    x = np.ones(n, dtype=np.float32)
    y = np.zeros(2, dtype=np.int64)
    report = cycle_kernel[1, rt.current_stream()](x, y, n, record_timeline=True)
    start, stop = (int(v) for v in capsys.readouterr().out.split())
    copy = next(r for r in report.timeline if r.op == "data_copy")
    # counter = cycles * 50 / clock_mhz, rounded down; the copy takes thousands of core cycles.
    span = copy.end_cycle - copy.issue_cycle
    expected = span * 50 // int(report.clock_mhz)
    assert stop - start >= expected - 2 and stop - start <= expected + 50 * 10 // 1850 + 2
    assert stop - start < span  # a 50 MHz counter runs 37x slower than a 1850 MHz core


@asc.jit
def huge_dump_kernel(x: asc.GlobalAddress, n: int):
    g = asc.GlobalTensor()
    g.set_global_buffer(x)
    for i in range(64):
        asc.dump_tensor(g, i, n)


def test_output_beyond_a_cores_dump_space_is_dropped_with_a_note(device, capsys):
    n = 64 * 1024
    x = np.zeros(n, dtype=np.float32)  # ~9 bytes per element printed: > 1 MiB after 2 dumps
    report = huge_dump_kernel[1, rt.current_stream()](x, n)
    out = capsys.readouterr().out
    assert report.debug_output[-1].kind == "TRUNCATED"
    assert "debug output truncated" in out and "1048576 bytes per core" in out
    assert len(out) < 1048576 + 4096
