"""Quiet runs of correct kernels (issue 14): pyasc's square-root test, whose cores each copy one
whole tile that overlaps the next core's and runs past the tensor's end, prints at `warn` one
summary line and its two overruns; the identical bytes neighbouring cores both write are a
NOTE, kept in the report and printed only under AICORE_SIM_NOTES=1."""
import inspect
import os
import warnings

import numpy as np
import pytest

import asc
import asc.lib.runtime as rt
import asc.runtime.launcher as launcher
from asc.runtime.errors import KernelCheckError, KernelWarning

THIS_FILE = os.path.basename(__file__)
CORES = 16
LENGTH = 2048
BLOCK_LENGTH = LENGTH // CORES  # 128: less than a tile, so neighbouring cores overlap
TILE_LENGTH = 256


@asc.jit
def sqrt_kernel(x: asc.GlobalAddress, z: asc.GlobalAddress, block_length: int):
    """As pyasc's sqrt test writes it: core i copies the whole tile from i * block_length in,
    takes its square root and copies it out; the last core reads and writes past the end."""
    offset = asc.get_block_idx() * block_length
    x_gm = asc.GlobalTensor()
    z_gm = asc.GlobalTensor()
    x_gm.set_global_buffer(x + offset, TILE_LENGTH)
    z_gm.set_global_buffer(z + offset, TILE_LENGTH)
    pipe = asc.TPipe()
    in_queue = asc.TQue(asc.TPosition.VECIN, 1)
    out_queue = asc.TQue(asc.TPosition.VECOUT, 1)
    pipe.init_buffer(in_queue, 1, TILE_LENGTH * x.dtype.sizeof())
    pipe.init_buffer(out_queue, 1, TILE_LENGTH * z.dtype.sizeof())
    x_local = in_queue.alloc_tensor(x.dtype)
    asc.data_copy(x_local, x_gm, count=TILE_LENGTH)
    in_queue.enque(x_local)
    x_in = in_queue.deque(x.dtype)
    z_local = out_queue.alloc_tensor(z.dtype)
    asc.sqrt(z_local, x_in, count=TILE_LENGTH)
    out_queue.enque(z_local)
    in_queue.free_tensor(x_in)
    z_out = out_queue.deque(z.dtype)
    asc.data_copy(z_gm, z_out, count=TILE_LENGTH)
    out_queue.free_tensor(z_out)


def _line(text):
    lines, start = inspect.getsourcelines(sqrt_kernel.fn)
    return start + next(i for i, line in enumerate(lines) if text in line)


def _run_sqrt(**options):
    x = np.random.default_rng(14).uniform(0, 100, LENGTH).astype(np.float16)
    z = np.zeros_like(x)
    report = sqrt_kernel[CORES, rt.current_stream()](x, z, BLOCK_LENGTH, **options)
    np.testing.assert_allclose(z, np.sqrt(x), rtol=1e-3)
    return report


@pytest.fixture
def fresh_process(monkeypatch):
    """As a new process: no finding shown yet, notes off."""
    monkeypatch.delenv("AICORE_SIM_NOTES", raising=False)
    launcher._warned_sites.clear()
    yield
    launcher._warned_sites.clear()


def test_sqrt_at_warn_prints_one_summary_line_and_at_most_two_findings(device, fresh_process,
                                                                        capsys):
    with warnings.catch_warnings(record=True) as shown:
        warnings.simplefilter("always", KernelWarning)
        report = _run_sqrt(check="warn")
    err = capsys.readouterr().err
    assert len(shown) <= 2, "\n".join(str(w.message) for w in shown)
    assert err.count("aicore-sim:") == 1, err
    assert f"kernel 'sqrt_kernel': {report.check.summary} (check level warn)" in err, err
    assert report.check.summary == "0 races, 0 errors, 2 warnings, 1 note"
    assert all("GM_SHARED_WRITE" not in str(w.message) for w in shown)
    # Another launch has nothing new to say.
    with warnings.catch_warnings(record=True) as again:
        warnings.simplefilter("always", KernelWarning)
        _run_sqrt(check="warn")
    assert not again and capsys.readouterr().err == ""


def test_the_report_keeps_every_finding_merged_over_the_cores(device, fresh_process):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", KernelWarning)
        report = _run_sqrt(check="warn")
    copy_out = _line("asc.data_copy(z_gm, z_out, count=TILE_LENGTH)")
    (shared,) = [d for d in report.diagnostics if d.kind == "GM_SHARED_WRITE"]
    assert shared.severity == "NOTE"
    assert (os.path.basename(shared.file), shared.line) == (THIS_FILE, copy_out)
    assert (shared.pipe, shared.other_pipe, shared.race) == ("MTE3", "MTE3", "WAW")
    # Each pair of neighbours shares 128 elements, reported by the later writer of the two:
    # together the pairs name every core and cover z from the second core's start to its end.
    assert set(shared.cores) | set(shared.other_cores) == set(range(CORES)), \
        (shared.cores, shared.other_cores)
    assert shared.address_hi - shared.address_lo == (CORES - 1) * BLOCK_LENGTH * 2
    assert shared.message.startswith("cores "), shared.message
    assert f" PIPE_MTE3 data_copy at {shared.file}:{copy_out}: shared write on " \
        f"GM[{shared.address_lo:#x}, {shared.address_hi:#x}): " in shared.message, shared.message
    overruns = [d for d in report.diagnostics if d.kind == "GM_OVERRUN"]
    assert sorted(d.pipe for d in overruns) == ["MTE2", "MTE3"]
    assert all(d.severity == "WARNING" and d.cores == [CORES - 1] for d in overruns)
    assert (report.check.races, report.check.errors, report.check.warnings,
            report.check.notes) == (0, 0, 2, 1)


def test_strict_passes_it_and_strict_all_fails_it_naming_the_note(device, fresh_process):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", KernelWarning)
        report = _run_sqrt(check="strict")
    assert not report.check.failed
    with pytest.raises(KernelCheckError) as info:
        _run_sqrt(check="strict-all")
    text = str(info.value)
    assert "strict-all" in text and "GM_SHARED_WRITE" in text and "NOTE" in text, text


def test_notes_print_under_aicore_sim_notes(device, fresh_process, monkeypatch, capsys):
    monkeypatch.setenv("AICORE_SIM_NOTES", "1")
    with warnings.catch_warnings(record=True) as shown:
        warnings.simplefilter("always", KernelWarning)
        _run_sqrt(check="warn")
    notes = [str(w.message) for w in shown if "GM_SHARED_WRITE" in str(w.message)]
    assert len(notes) == 1 and notes[0].startswith("[NOTE GM_SHARED_WRITE]"), notes
    assert capsys.readouterr().err.count("aicore-sim:") == 1
