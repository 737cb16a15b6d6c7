"""The checkers seen from Python: check levels (AICORE_SIM_CHECK, check=, verify_sync=True),
KernelCheckError naming the first finding and listing the rest, warnings once per distinct
site, the per-launch summary, and the report file."""
import inspect
import json
import os
import warnings

import numpy as np
import pytest

import asc
import asc.lib.runtime as rt
import asc.runtime.launcher as launcher
from asc.runtime.errors import KernelCheckError, KernelFaultError, KernelWarning

THIS_FILE = os.path.basename(__file__)
TILE = 256


def _line(fn, text):
    lines, start = inspect.getsourcelines(fn.fn)
    return start + next(i for i, line in enumerate(lines) if text in line)


@asc.jit(auto_sync=False)
def missing_wait_kernel(x: asc.GlobalAddress, z: asc.GlobalAddress):
    """Written to exhibit a fault: the V -> MTE3 pair is missing, so the copy-out can read the
    result before the abs writes it."""
    x_gm = asc.GlobalTensor()
    z_gm = asc.GlobalTensor()
    x_gm.set_global_buffer(x + asc.get_block_idx() * TILE)
    z_gm.set_global_buffer(z + asc.get_block_idx() * TILE)
    x_local = asc.LocalTensor(x.dtype, asc.TPosition.VECIN, 0, TILE)
    z_local = asc.LocalTensor(x.dtype, asc.TPosition.VECOUT, TILE * 4, TILE)
    asc.data_copy(x_local, x_gm, TILE)
    asc.set_flag(asc.HardEvent.MTE2_V, 0)
    asc.wait_flag(asc.HardEvent.MTE2_V, 0)
    asc.abs(z_local, x_local, TILE)
    asc.data_copy(z_gm, z_local, TILE)  # no V_MTE3 pair before this copy


@asc.jit
def same_tile_kernel(x: asc.GlobalAddress, z: asc.GlobalAddress, per_core: int):
    """Every core writes z[0:TILE]: identical bytes when per_core is 0 (pyasc's whole-tile tail
    style, a note), different bytes otherwise (a race between cores)."""
    x_gm = asc.GlobalTensor()
    z_gm = asc.GlobalTensor()
    x_gm.set_global_buffer(x + asc.get_block_idx() * per_core)
    z_gm.set_global_buffer(z)
    t = asc.LocalTensor(x.dtype, asc.TPosition.VECIN, 0, TILE)
    asc.data_copy(t, x_gm, TILE)
    asc.set_flag(asc.HardEvent.MTE2_MTE3, 0)
    asc.wait_flag(asc.HardEvent.MTE2_MTE3, 0)
    asc.data_copy(z_gm, t, TILE)


def _missing_wait(cores=1, **options):
    x = np.arange(-TILE * cores // 2, TILE * cores // 2, dtype=np.float32)
    z = np.zeros_like(x)
    report = missing_wait_kernel[cores, rt.current_stream()](x, z, **options)
    return report


def test_strict_makes_a_missing_wait_an_exception_naming_both_pipes_and_lines(device):
    with pytest.raises(KernelCheckError) as info:
        _missing_wait(check="strict")
    err = info.value
    assert isinstance(err, KernelFaultError)
    text = str(err)
    copy_line = _line(missing_wait_kernel, "asc.data_copy(z_gm, z_local, TILE)")
    abs_line = _line(missing_wait_kernel, "asc.abs(z_local, x_local, TILE)")
    assert f"{THIS_FILE}:{copy_line}" in text and f"{THIS_FILE}:{abs_line}" in text, text
    assert "PIPE_V" in text and "PIPE_MTE3" in text and "V_MTE3" in text, text
    assert "1 race, 0 errors" in text, text
    report = err.report
    assert report.status == "OK" and report.check.failed and report.check.level == "strict"
    (race,) = [d for d in report.diagnostics if d.kind == "RACE"]
    assert (race.race, race.pipe, race.other_pipe) == ("RAW", "MTE3", "V")
    assert (race.line, race.other_line) == (copy_line, abs_line)
    assert race.memory == "UB" and race.address_hi - race.address_lo == TILE * 4


def test_verify_sync_true_means_strict_for_that_kernel(device, monkeypatch):
    monkeypatch.setenv("AICORE_SIM_CHECK", "warn")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", KernelWarning)
        report = _missing_wait()  # warn: runs, reports
    assert report.check.races == 1 and not report.check.failed
    with pytest.raises(KernelCheckError):
        _missing_wait(verify_sync=True)


def test_warn_reports_each_site_once_and_prints_the_summary(device, capsys):
    launcher._warned_sites.clear()
    with warnings.catch_warnings(record=True) as first:
        warnings.simplefilter("always", KernelWarning)
        report = _missing_wait(cores=4, check="warn")
    # four cores, one finding: merged into one diagnostic naming every core.
    assert len(report.diagnostics) == 1
    assert report.diagnostics[0].cores == [0, 1, 2, 3]
    assert "cores 0-3" in str(report.diagnostics[0])
    # A finding the level passes is labelled a warning (its severity stays on the report).
    assert [str(w.message) for w in first] == [report.diagnostics[0].text("WARNING")]
    err = capsys.readouterr().err
    assert "kernel 'missing_wait_kernel': 1 race, 0 errors, 0 warnings (check level warn)" in err
    with warnings.catch_warnings(record=True) as second:
        warnings.simplefilter("always", KernelWarning)
        again = _missing_wait(cores=4, check="warn")
    assert again.check.races == 1
    assert not second, "the same site was reported twice"
    assert capsys.readouterr().err == ""


def test_off_checks_nothing(device):
    report = _missing_wait(check="off")
    assert report.diagnostics == [] and report.check.level == "off"
    assert report.check.summary == "0 races, 0 errors, 0 warnings"


def test_identical_bytes_from_several_cores_are_a_note_and_strict_all_fails_them(device):
    x = np.arange(TILE, dtype=np.float32)
    z = np.zeros_like(x)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", KernelWarning)
        report = same_tile_kernel[2, rt.current_stream()](x, z, 0, check="strict")
    assert np.array_equal(z, x)
    assert [d.kind for d in report.diagnostics] == ["GM_SHARED_WRITE"]
    assert report.diagnostics[0].severity == "NOTE" and not report.check.failed
    assert report.check.summary == "0 races, 0 errors, 0 warnings, 1 note"
    with pytest.raises(KernelCheckError) as info:
        same_tile_kernel[2, rt.current_stream()](x, z, 0, check="strict-all")
    assert "GM_SHARED_WRITE" in str(info.value) and "strict-all" in str(info.value)


def test_different_bytes_from_two_cores_are_a_race(device):
    x = np.arange(2 * TILE, dtype=np.float32)
    z = np.zeros(TILE, dtype=np.float32)
    with pytest.raises(KernelCheckError) as info:
        same_tile_kernel[2, rt.current_stream()](x, z, TILE)
    race = [d for d in info.value.report.diagnostics if d.kind == "RACE"]
    assert race and race[0].race == "WAW" and race[0].memory == "GM", str(info.value)
    assert {race[0].core, race[0].other_core} == {0, 1}


def test_bad_levels_are_rejected_with_the_choices(device, monkeypatch):
    with pytest.raises(ValueError, match="off, warn, strict, strict-all"):
        _missing_wait(check="loud")
    monkeypatch.setenv("AICORE_SIM_CHECK", "loud")
    with pytest.raises(RuntimeError) as info:
        _missing_wait()
    assert "AICORE_SIM_CHECK" in str(info.value) and "strict-all" in str(info.value)


def test_the_report_file_carries_the_check_summary(device, monkeypatch, tmp_path):
    path = tmp_path / "reports.jsonl"
    monkeypatch.setenv("AICORE_SIM_REPORT", str(path))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", KernelWarning)
        _missing_wait(check="warn")
    (record,) = [json.loads(line) for line in path.read_text().splitlines()]
    assert record["check"]["races"] == 1 and record["check"]["level"] == "warn"
    assert record["diagnostics"][0]["kind"] == "RACE"
