"""The launch report as text (`str(report)`, `report.table(per_core=True)`, docs/report.md), and
the invariant that no pipe of any core waits or is busy longer than the whole launch, checked on
the reports of every launch of the vector, framework, cube, matmul and mixed kernel tests.

This module is also a pytest plugin: `-p test_report_table` with REPORT_TABLE_CAPTURE=FILE set
appends every report Launcher.run returns to FILE (how the invariant test collects them)."""
import os
import re
import struct
import subprocess
import sys

import numpy as np
import pytest

import asc
import asc.lib.runtime as rt
from asc._proto import report_pb2
from asc.runtime.report import LaunchReport, format_us

HERE = os.path.dirname(os.path.abspath(__file__))
CAPTURE_ENV = "REPORT_TABLE_CAPTURE"
TITLES = ["pipe", "cores", "instr", "busy%", "busy", "wait", "qfull", "bw", "bank", "bytes"]


# --- the capture plugin (active only in the child pytest the invariant test starts) ---

def pytest_configure(config):
    path = os.environ.get(CAPTURE_ENV)
    if not path:
        return
    from asc.runtime.launcher import Launcher
    original = Launcher.run

    def run_and_capture(self, *args, **kwargs):
        report = original(self, *args, **kwargs)
        test = os.environ.get("PYTEST_CURRENT_TEST", "?").split(" ")[0].encode()
        data = report.proto.SerializeToString()
        with open(path, "ab") as f:  # length-prefixed: test id, then the report
            f.write(struct.pack("<II", len(test), len(data)) + test + data)
        return report

    Launcher.run = run_and_capture


def read_captured(path):
    out = []
    with open(path, "rb") as f:
        blob = f.read()
    pos = 0
    while pos < len(blob):
        n_test, n_data = struct.unpack_from("<II", blob, pos)
        pos += 8
        test = blob[pos:pos + n_test].decode()
        pos += n_test
        out.append((test, LaunchReport(report_pb2.LaunchReport.FromString(blob[pos:pos + n_data]))))
        pos += n_data
    return out


# --- the table ---

def _rows(text):
    """The table's rows as {(pipe, cores): cells} and the column titles."""
    lines = text.splitlines()
    titles = lines[1].split()
    rows = {}
    for line in lines[2:]:
        cells = line.split()
        if len(cells) == len(titles) + 1:  # "aiv 8" is one column of two words
            rows[(cells[0], f"{cells[1]} {cells[2]}")] = [cells[0], f"{cells[1]} {cells[2]}"] \
                + cells[3:]
    return titles, rows


def _span(values, fmt=str):
    lo, hi = fmt(min(values)), fmt(max(values))
    return lo if lo == hi else f"{lo}-{hi}"


def _expect_row(report, core_type, pipe):
    stats = [c.pipes[pipe] for c in report.cores if c.core_type == core_type and pipe in c.pipes]

    def zero_dash(values):
        return "-" if max(values) == 0 else _span(values)
    busy = [s.busy_cycles for s in stats]
    return [pipe, f"{core_type} {len(stats)}", _span([s.instructions for s in stats]),
            _span(busy, lambda b: f"{100.0 * b / report.cycles:.1f}"), _span(busy),
            _span([s.wait_flag_cycles for s in stats]),
            zero_dash([s.queue_full_stall_cycles for s in stats]),
            zero_dash([s.bandwidth_stall_cycles for s in stats]),
            zero_dash([s.bank_conflict_cycles for s in stats]),
            zero_dash([s.bytes for s in stats])]


def _check_table(report, pipes):
    text = str(report)
    header = text.splitlines()[0]
    assert header == (f"{report.kernel_name} on Ascend910B1: OK, block_dim {report.block_dim}, "
                      f"{report.cycles} cycles ({format_us(report.duration_us)} us at 1850 MHz), "
                      f"bound {report.bound_pipe}, check {report.check.level}: "
                      f"{report.check.summary}")
    titles, rows = _rows(text)
    assert titles == TITLES
    core_type = report.cores[0].core_type
    assert [p for p, _ in rows] == [p for p in report.cores[0].pipes]
    for pipe in pipes:
        assert rows[(pipe, f"{core_type} {report.block_dim}")] == \
            _expect_row(report, core_type, pipe), pipe
    # The last column is right-aligned: the titles and every row end in one column.
    lines = text.splitlines()[1:2 + len(rows)]
    assert len({len(line) for line in lines}) == 1, lines
    assert repr(report) == (f"<LaunchReport {report.kernel_name} on Ascend910B1 "
                            f"x{report.block_dim}: OK, {report.cycles} cycles>")
    return text


def test_vector_kernel_table(device):
    from kernels import run_vadd
    x = np.arange(8 * 2048, dtype=np.float32)
    _, report = run_vadd(x, x, 8)
    text = _check_table(report, ["S", "V", "MTE2", "MTE3"])
    # 9177 cycles at 1850 MHz are 4.96 us: three significant digits in the header.
    assert f"{report.cycles} cycles (" in text and re.search(r"\((\d+\.\d\d) us", text)
    _, rows = _rows(text)
    mte2 = rows[("MTE2", "aiv 8")]
    # The eight cores' MTE2 differ in their stalls: min-max, bytes equal on every core.
    cores = report.cores
    if len({c.pipes["MTE2"].wait_flag_cycles for c in cores}) > 1:
        assert "-" in mte2[5]
    assert mte2[9] == str(2 * 2048 * 4)
    assert rows[("S", "aiv 8")][9] == "-", "the scalar pipe moves no bytes"
    assert report.summary() == (f"vadd_kernel on Ascend910B1 x8: OK, {report.cycles} cycles, "
                                f"{report.duration_us:.3f} us")


def test_per_core_table_has_one_block_per_core(device):
    from kernels import run_vadd
    x = np.ones(2 * 2048, dtype=np.float32)
    _, report = run_vadd(x, x, 2)
    text = report.table(per_core=True)
    blocks = text.split("\n\n")
    assert blocks[0] == text.splitlines()[0] == str(report).splitlines()[0]
    assert len(blocks) == 1 + len(report.cores)
    for block, core in zip(blocks[1:], report.cores):
        lines = block.splitlines()
        assert lines[0] == (f"core {core.core} (aiv, block {core.block_idx}): {core.cycles} "
                            f"cycles, bound {core.bound_pipe}, queue-full stall "
                            f"{core.queue_full_stall_cycles}")
        assert lines[1].split() == [t for t in TITLES if t != "cores"]
        for line, pipe in zip(lines[2:], core.pipes.values()):
            cells = line.split()
            assert cells[:6] == [pipe.pipe, str(pipe.instructions),
                                 f"{100.0 * pipe.busy_cycles / report.cycles:.1f}",
                                 str(pipe.busy_cycles), str(pipe.wait_flag_cycles),
                                 str(pipe.queue_full_stall_cycles or "-")]


def test_cube_kernel_table(device):
    from cube_kernels import linear_cube_kernel
    from test_cube import inputs, nz_weight
    m, n, k = 128, 128, 512
    a, w = inputs(m, n, k, np.float16, seed=1)
    c = np.zeros((m, n), np.float16)
    report = linear_cube_kernel[2, rt.current_stream()](a, nz_weight(w), c, m, n, k, 64, 64, 256,
                                                      asc.QuantModes.F322F16)
    text = _check_table(report, ["S", "M", "MTE1", "MTE2", "FIX"])
    _, rows = _rows(text)
    assert ("V", "aic 2") not in rows, "a cube core has no vector pipe"
    assert rows[("MTE1", "aic 2")][9] == str(report.cores[0].pipes["MTE1"].bytes)


def test_mixed_kernel_rows_are_per_core_type(device):
    from test_mixed import _run_handoff
    _, _, _, report = _run_handoff(64, 64, 32, 1)
    _, rows = _rows(str(report))
    types = {c.core_type for c in report.cores}
    assert types == {"aic", "aiv"}
    n_aiv = sum(c.core_type == "aiv" for c in report.cores)
    assert ("M", "aic 1") in rows and ("V", f"aiv {n_aiv}") in rows
    assert ("S", "aic 1") in rows and ("S", f"aiv {n_aiv}") in rows
    assert rows[("V", f"aiv {n_aiv}")] == _expect_row(report, "aiv", "V")


def test_format_us_keeps_three_significant_digits():
    assert [format_us(v) for v in (0.012345, 0.4961, 4.9605, 49.605, 496.05, 4960.5, 0)] == \
        ["0.0123", "0.496", "4.96", "49.6", "496", "4960", "0"]


def test_table_lists_diagnostics_and_empty_reports():
    msg = report_pb2.LaunchReport(status=report_pb2.LaunchReport.DEADLOCK, kernel_name="k",
                                  platform="Ascend910B1", block_dim=1, cycles=10)
    for i in range(7):
        msg.diagnostics.add(severity=report_pb2.Diagnostic.ERROR,
                            kind=report_pb2.Diagnostic.DEADLOCK, message=f"stuck {i}", core=-1)
    text = str(LaunchReport(msg))
    lines = text.splitlines()
    assert lines[0].startswith("k on Ascend910B1: DEADLOCK, block_dim 1, 10 cycles")
    assert lines[1:6] == [f"[ERROR DEADLOCK] stuck {i}" for i in range(5)]
    assert lines[6] == "... 2 more diagnostics (report.diagnostics)"


# --- the invariant over the kernel tests ---

# Cheap test files using kernels.py, fwk_kernels.py, cube_kernels.py, matmul_kernels.py and
# mixed_kernels.py (about 20 s together).
KERNEL_TESTS = ["test_vadd.py", "test_report.py", "test_fwk.py", "test_ops.py",
                "test_control_flow.py", "test_cube.py", "test_cube_frontend.py", "test_matmul.py",
                "test_matmul_mixed.py", "test_mixed.py"]
# A kernel of each module that must be among the captured reports.
EXPECTED_KERNELS = {"vadd_kernel", "add_framework_kernel", "linear_cube_kernel",
                    "matmul_queue_kernel", "matmul_leaky_kernel"}


@pytest.fixture(scope="module")
def captured(tmp_path_factory):
    path = tmp_path_factory.mktemp("capture") / "reports.bin"
    env = dict(os.environ, **{CAPTURE_ENV: str(path)})
    env["PYTHONPATH"] = os.pathsep.join(
        [HERE, os.path.join(HERE, "..", "..", "clients", "python"), env.get("PYTHONPATH", "")])
    proc = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "test_report_table",
                           "-p", "no:cacheprovider", *KERNEL_TESTS],
                          cwd=HERE, env=env, capture_output=True, text=True, timeout=600)
    # A failing kernel test is that test's business; here only the launches count.
    assert proc.returncode in (0, 1), proc.stdout[-3000:] + proc.stderr[-3000:]
    assert path.exists(), "no launch was captured:\n" + proc.stdout[-3000:]
    return read_captured(path)


def test_capture_covers_every_kernel_module(captured):
    names = {r.kernel_name for _, r in captured}
    assert EXPECTED_KERNELS <= names, f"missing {EXPECTED_KERNELS - names}"
    assert len(captured) >= 100


def _violations(captured, field):
    out = []
    for test, report in captured:
        for core in report.cores:
            for pipe in core.pipes.values():
                value = getattr(pipe, field)
                if value > report.cycles:
                    out.append(f"{test}: {report.kernel_name} x{report.block_dim} core "
                               f"{core.core} ({core.core_type}) pipe {pipe.pipe}: {field} "
                               f"{value} > launch cycles {report.cycles}")
    return out


def test_no_pipe_is_busy_longer_than_the_launch(captured):
    bad = _violations(captured, "busy_cycles")
    assert not bad, f"{len(bad)} pipes:\n" + "\n".join(bad[:20])


# This once failed on 20 of 57 kernels (up to 2.4x): a wait right after another sync instruction
# counted from before its predecessor left the queue (sim/pipe/pipe.cc, last_start_).
def test_no_pipe_waits_longer_than_the_launch(captured):
    bad = _violations(captured, "wait_flag_cycles")
    assert not bad, f"{len(bad)} pipes:\n" + "\n".join(bad[:20])


def test_wait_records_span_the_time_waited_and_add_up_to_the_wait_counters():
    # The timeline's wait_flag records span the wait, as the trace draws it; per core and pipe
    # their lengths sum to the pipe's wait_flag_cycles (the scalar unit's waits are not pipe
    # records, so PIPE_S is left out).
    import sys
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                                    "examples"))
    from add_framework import add_kernel
    n = 8 * 4096
    x = np.ones(n, np.float16)
    z = np.zeros_like(x)
    report = add_kernel[8, rt.current_stream()](x, x, z, n // 8, buffer_num=2,
                                                record_timeline=True)
    spans = {}
    for r in report.timeline:
        if r.op == "wait_flag":
            assert r.end_cycle >= r.start_cycle
            key = (r.core, r.pipe)
            spans[key] = spans.get(key, 0) + r.end_cycle - r.start_cycle
    assert any(v > 0 for v in spans.values()), spans
    for core in report.cores:
        for name, pipe in core.pipes.items():
            if name == "S":
                continue
            assert spans.get((core.core, name), 0) == pipe.wait_flag_cycles, (core.core, name)
