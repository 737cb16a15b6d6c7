"""aicore-calibrate (clients/python/aicore_tools/calibrate.py): msprof-layout folders written by
runs here under perturbed figures are fitted back within 2 %; a fit that leaves a launch worse is
refused; malformed or mismatched folders are errors naming the file, the row and what is wrong."""
import csv
import os
import shutil
import subprocess
import sys

import pytest

from conftest import REPO

HERE = os.path.dirname(os.path.abspath(__file__))
TOOL = os.path.join(REPO, "clients", "python", "bin", "aicore-calibrate")
PROGRAM = [sys.executable, os.path.join(HERE, "calibration_program.py")]
READ = "gm.hbm_read_bytes_per_second"
OVERHEAD = "gm.hbm_transfer_overhead_ns"
# The preset's values (configs/presets/dav-c220.textproto) and the chip's, made up: +9 %, -20 %.
DEFAULT = {READ: 1.647e12, OVERHEAD: 1.14}
CHIP = {READ: 1.647e12 * 1.09, OVERHEAD: 1.14 * 0.8}


def env(**extra):
    e = dict(os.environ, **extra)
    e["PYTHONPATH"] = os.path.join(REPO, "clients", "python")
    for name in ("AICORE_SIM_ADDRESS", "AICORE_SIM_CONFIG_DIR", "AICORE_SIM_CONFIG_OVERRIDES",
                 "AICORE_SIM_TRACE", "AICORE_SIM_REPORT"):
        if name not in extra:
            e.pop(name, None)
    return e


def calibrate_tool(*args, timeout=600):
    return subprocess.run([sys.executable, TOOL, *args], env=env(), capture_output=True,
                          text=True, timeout=timeout)


@pytest.fixture(scope="module")
def profiled(tmp_path_factory):
    """The program's launches traced under the 'chip' figures: msprof op's folder layout."""
    folder = tmp_path_factory.mktemp("measured")
    overrides = f"gm {{ hbm_read_bytes_per_second: {CHIP[READ]:.6g} " \
                f"hbm_transfer_overhead_ns: {CHIP[OVERHEAD]:.6g} }}"
    done = subprocess.run(PROGRAM, env=env(AICORE_SIM_TRACE=str(folder),
                                           AICORE_SIM_CONFIG_OVERRIDES=overrides),
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert len([n for n in os.listdir(folder) if n.startswith("OPPROF_")]) == 3
    return folder


def figure(text, path):
    block, name = path.split(".")
    inside = False
    for line in text.splitlines():
        body = line.split("#", 1)[0].strip()
        if body == block + " {":
            inside = True
        elif body == "}":
            inside = False
        elif inside and body.startswith(name + ":"):
            return float(body.split(":", 1)[1])
    raise AssertionError(f"{path} not in\n{text}")


def test_a_round_trip_recovers_the_chips_figures_within_two_percent(profiled, tmp_path):
    out = tmp_path / "mycfg"
    done = calibrate_tool("--measured", str(profiled), "--output", str(out), "--param", READ,
                          "--param", OVERHEAD, "--max-evals", "45", "--", *PROGRAM)
    assert done.returncode == 0, done.stdout + done.stderr
    text = (out / "Ascend910B1.textproto").read_text()
    assert text.startswith(open(os.path.join(REPO, "configs", "Ascend910B1.textproto"))
                           .read().rstrip("\n").split("\n")[0])
    for path in (READ, OVERHEAD):
        assert figure(text, path) == pytest.approx(CHIP[path], rel=0.02), (path, text)
    assert "fitted by aicore-calibrate" in text
    assert "MAPE" in done.stdout and "wrote" in done.stdout
    # The folder is a config folder: the program's launches now take the chip's times.
    assert "add_ladder#2" in done.stdout
    # PipeUtilization.csv's pipe times are fitted too, and end as close as the launches.
    pipe_rows = [line.split() for line in done.stdout.splitlines()
                 if line.startswith("add_ladder#") and " aiv_mte2 " in line]
    assert len(pipe_rows) == 3, done.stdout
    assert all(abs(float(row[-1].rstrip("%"))) < 1.0 for row in pipe_rows), done.stdout


def test_a_fit_that_leaves_a_launch_worse_is_refused(profiled, tmp_path):
    measured = tmp_path / "measured"
    shutil.copytree(profiled, measured)
    folders = sorted(n for n in os.listdir(measured) if n.startswith("OPPROF_"))
    # One launch twice as slow as the chip ran it, another twice as fast: no HBM rate serves both.
    scale_csv(measured / folders[0] / "OpBasicInfo.csv", 2.0)
    scale_csv(measured / folders[1] / "OpBasicInfo.csv", 0.5)
    out = tmp_path / "cfg"
    done = calibrate_tool("--measured", str(measured), "--output", str(out), "--param", READ,
                          "--max-evals", "8", "--", *PROGRAM)
    assert done.returncode == 1, done.stdout + done.stderr
    assert "refused: launch add_ladder#" in done.stderr and "Nothing was written" in done.stderr
    assert not out.exists() or not os.listdir(out)


def scale_csv(path, factor=None, cell=None, column="Task Duration(us)"):
    with open(path, newline="") as f:
        rows = list(csv.DictReader(f))
        header = list(rows[0].keys())
    rows[0][column] = cell if cell is not None else str(float(rows[0][column]) * factor)
    with open(path, "w", newline="") as f:
        writer = csv.DictWriter(f, header)
        writer.writeheader()
        writer.writerows(rows)


@pytest.mark.parametrize("column, cell, expected", [
    ("Task Duration(us)", "abc", "column Task Duration(us): 'abc' is not a positive number"),
    ("Task Duration(us)", "-3", "column Task Duration(us): '-3' is not a positive number"),
    ("Op Name", "other_kernel", "Op Name 'other_kernel' (its launch 0) was not launched"),
])
def test_a_malformed_or_mismatched_folder_names_the_file_and_row(profiled, tmp_path, column,
                                                                 cell, expected):
    measured = tmp_path / "measured"
    shutil.copytree(profiled, measured)
    first = sorted(n for n in os.listdir(measured) if n.startswith("OPPROF_"))[0]
    scale_csv(measured / first / "OpBasicInfo.csv", cell=cell, column=column)
    done = calibrate_tool("--measured", str(measured), "--output", str(tmp_path / "cfg"),
                          "--", *PROGRAM)
    assert done.returncode == 2, done.stdout + done.stderr
    assert f"{first}/OpBasicInfo.csv, row 2" in done.stderr, done.stderr
    assert expected in done.stderr, done.stderr


def test_missing_folders_files_and_programs_are_named(profiled, tmp_path):
    done = calibrate_tool("--measured", str(tmp_path / "nope"), "--output", str(tmp_path / "c"),
                          "--", *PROGRAM)
    assert done.returncode == 2 and "no such folder" in done.stderr, done.stderr
    measured = tmp_path / "measured"
    shutil.copytree(profiled, measured)
    first = sorted(n for n in os.listdir(measured) if n.startswith("OPPROF_"))[0]
    os.remove(measured / first / "OpBasicInfo.csv")
    done = calibrate_tool("--measured", str(measured), "--output", str(tmp_path / "c"),
                          "--", *PROGRAM)
    assert done.returncode == 2 and "OpBasicInfo.csv is missing" in done.stderr, done.stderr
    done = calibrate_tool("--measured", str(profiled), "--output", str(tmp_path / "c"),
                          "--", sys.executable, "-c", "raise SystemExit(3)")
    assert done.returncode == 2 and "exited with 3" in done.stderr, done.stderr
    done = calibrate_tool("--measured", str(profiled), "--output", str(tmp_path / "c"),
                          "--param", "gm.no_such", "--", *PROGRAM)
    assert done.returncode == 2 and "--param gm.no_such: no such figure" in done.stderr
    done = calibrate_tool("--measured", str(profiled), "--output", str(tmp_path / "c"))
    assert done.returncode == 2 and "give the program" in done.stderr
