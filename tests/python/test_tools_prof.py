"""aicore-prof (clients/python/aicore_tools/prof.py): runs a program with its launches traced and
prints their OpBasicInfo/PipeUtilization figures; --compare pairs two runs launch by launch.
Every test runs the real launcher as a subprocess, as a user would."""
import csv
import json
import os
import shutil
import subprocess
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.abspath(os.path.join(HERE, "..", ".."))
CLIENTS = os.path.join(REPO, "clients", "python")
PROF = os.path.join(CLIENTS, "bin", "aicore-prof")

# Two kernels from examples/: vadd twice (its second launch is vadd_kernel#1) and gelu once.
# argv: cores of vadd, gelu's tile, and the exit code to end with.
SCRIPT = f"""
import sys
sys.path.insert(0, {os.path.join(REPO, "examples")!r})
import numpy as np
from vadd import vadd_launch
from gelu import gelu_launch

cores, tile, code = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
x = np.random.default_rng(1).uniform(-1, 1, 16384).astype(np.float16)
z, _ = vadd_launch(x, x, cores)
assert np.array_equal(z, x + x)
gelu_launch(np.linspace(-2, 2, 8192, dtype=np.float32), 8, tile)
vadd_launch(x, x, cores)
print("script done")
sys.exit(code)
"""


def prof(*args, cwd=None):
    env = dict(os.environ, PYTHONPATH=CLIENTS)
    return subprocess.run([sys.executable, PROF, *args], capture_output=True, text=True,
                          env=env, cwd=cwd, timeout=300)


def sections(stdout):
    """The per-launch blocks of the output, by their first word (`<kernel>#<n>`)."""
    out = {}
    for block in stdout.split("\n\n"):
        first = block.strip().split()[0] if block.strip() else ""
        if "#" in first:
            out[first] = block
    return out


def read_csv(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def cell_line(block, label):
    """The words of the line of `block` starting with `label`."""
    for line in block.splitlines():
        if line.strip().startswith(label + " ") or line.strip() == label:
            return line.split()
    raise AssertionError(f"no line {label!r} in\n{block}")


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    """Two runs of the script: A (vadd on 8 cores, gelu tile 1024), B (4 cores, tile 512)."""
    root = tmp_path_factory.mktemp("prof")
    script = root / "two_kernels.py"
    script.write_text(SCRIPT)
    out = {}
    for name, cores, tile in (("a", 8, 1024), ("b", 4, 512)):
        result = prof("--output", str(root / name), sys.executable, str(script), str(cores),
                      str(tile), "0")
        assert result.returncode == 0, result.stderr
        out[name] = (root / name, result)
    out["script"] = script
    return out


def test_run_prints_every_launch_with_its_csv_figures(runs):
    folder, result = runs["a"]
    assert "script done" in result.stdout  # the program's own output passes through
    blocks = sections(result.stdout)
    assert set(blocks) == {"vadd_kernel#0", "vadd_kernel#1", "gelu_kernel#0"}
    records = [json.loads(line) for line in
               (folder / "aicore-prof-launches.jsonl").read_text().splitlines()]
    assert [r["kernel"] for r in records] == ["vadd_kernel", "gelu_kernel", "vadd_kernel"]
    # The overview lists the launches in launch order.
    order = [line.split()[0] for line in result.stdout.splitlines()
             if line.startswith("  ") and "#" in line.split()[0]]
    assert order == ["vadd_kernel#0", "gelu_kernel#0", "vadd_kernel#1"]

    for key, record, trace in (("vadd_kernel#0", records[0], "OPPROF_vadd_kernel_0"),
                               ("gelu_kernel#0", records[1], "OPPROF_gelu_kernel_0"),
                               ("vadd_kernel#1", records[2], "OPPROF_vadd_kernel_1")):
        block = blocks[key]
        basic = read_csv(folder / trace / "OpBasicInfo.csv")[0]
        assert basic["Op Name"] == key.split("#")[0]
        assert cell_line(block, "Task Duration(us)")[-1] == basic["Task Duration(us)"]
        assert cell_line(block, "Block Dim")[-1] == basic["Block Dim"] == "8"
        assert cell_line(block, "cycles")[-1] == str(record["cycles"])
        assert record["cycles"] > 0
        overview = cell_line(result.stdout, key)
        assert f"{float(basic['Task Duration(us)']):.3f}" in overview
        assert str(record["cycles"]) in overview and trace in overview
        # Every pipe of PipeUtilization.csv, with its largest time over the cores.
        rows = read_csv(folder / trace / "PipeUtilization.csv")
        assert len(rows) == 8
        for pipe in ("vec", "scalar", "mte2", "mte3"):
            times = [float(r[f"aiv_{pipe}_time(us)"]) for r in rows]
            ratios = [float(r[f"aiv_{pipe}_ratio"]) for r in rows]
            words = cell_line(block, f"aiv_{pipe}")
            assert words[1] == f"{max(times):.3f}"
            assert words[3] == f"{sum(ratios) / len(ratios):.6f}"
        assert "aic_cube" not in block  # N/A on vector cores: not a pipe of this launch
        assert str(folder / trace / "simulator" / "trace.json") in block
        assert "perfetto" in block.lower()


def test_per_core_table_has_the_csv_rows(tmp_path, runs):
    result = prof("--output", str(tmp_path / "c"), "--cores", "--", sys.executable,
                  str(runs["script"]), "2", "1024", "0")
    assert result.returncode == 0, result.stderr
    block = sections(result.stdout)["gelu_kernel#0"]
    rows = read_csv(tmp_path / "c" / "OPPROF_gelu_kernel_0" / "PipeUtilization.csv")
    for row in rows:
        words = cell_line(block, row["block id"])
        assert words[1] == row["sub core type"]
        assert row["aiv_total_cycles"] in words and row["aiv_mte2_ratio"] in words
    assert "aiv_mte2_time(us)" in block and "aic_cube_time(us)" not in block


def test_failing_program_keeps_its_exit_code_and_still_prints(tmp_path, runs):
    result = prof("--output", str(tmp_path / "f"), sys.executable, str(runs["script"]), "8",
                  "1024", "3")
    assert result.returncode == 3
    assert "exited with 3" in result.stderr
    assert set(sections(result.stdout)) == {"vadd_kernel#0", "vadd_kernel#1", "gelu_kernel#0"}


def test_compare_prints_duration_pipe_and_line_changes(runs):
    dir_a, dir_b = runs["a"][0], runs["b"][0]
    result = prof("--compare", str(dir_a), str(dir_b))
    assert result.returncode == 0, result.stderr
    blocks = sections(result.stdout)
    assert set(blocks) == {"vadd_kernel#0", "vadd_kernel#1", "gelu_kernel#0"}
    assert "only in" not in result.stdout
    for key, trace in (("vadd_kernel#0", "OPPROF_vadd_kernel_0"),
                       ("gelu_kernel#0", "OPPROF_gelu_kernel_0")):
        block = blocks[key]
        da = float(read_csv(dir_a / trace / "OpBasicInfo.csv")[0]["Task Duration(us)"])
        db = float(read_csv(dir_b / trace / "OpBasicInfo.csv")[0]["Task Duration(us)"])
        assert da != db
        words = cell_line(block, "task duration (us)")
        assert words[3:] == [f"{da:.3f}", f"{db:.3f}", f"{db - da:+.3f}",
                             f"{(db - da) / da * 100:+.1f}%"]
        pa = read_csv(dir_a / trace / "PipeUtilization.csv")
        pb = read_csv(dir_b / trace / "PipeUtilization.csv")
        ta = max(float(r["aiv_mte2_time(us)"]) for r in pa)
        tb = max(float(r["aiv_mte2_time(us)"]) for r in pb)
        assert cell_line(block, "aiv_mte2")[1:5] == [f"{ta:.3f}", f"{tb:.3f}", f"{tb - ta:+.3f}",
                                                     f"{(tb - ta) / ta * 100:+.1f}%"]
    # vadd on 4 cores instead of 8: the block dim changed, and so did the per-line figures.
    vadd = blocks["vadd_kernel#0"]
    assert cell_line(vadd, "Block Dim")[2:4] == ["8", "4"]
    line_rows = [line.split() for line in vadd.splitlines() if "vadd.py:" in line]
    assert 0 < len(line_rows) <= 10
    changes = [abs(int(words[5])) for words in line_rows]
    assert changes == sorted(changes, reverse=True) and changes[0] > 0
    # The per-line figures are the sums of the cores' code_exe.csv.
    code, calls_a, calls_b, cycles_a, cycles_b = line_rows[0][:5]
    for folder, calls, cycles in ((dir_a, calls_a, cycles_a), (dir_b, calls_b, cycles_b)):
        sim = folder / "OPPROF_vadd_kernel_0" / "simulator"
        rows = [r for core in os.listdir(sim) if (sim / core).is_dir()
                for r in read_csv(sim / core / f"{core}_code_exe.csv")
                if r["code"].endswith(code)]
        assert rows
        assert sum(int(r["call_count"]) for r in rows) == int(calls)
        assert sum(int(r["cycles"]) for r in rows) == int(cycles)


def test_compare_lists_unpaired_launches_and_fails_when_none_pair(tmp_path, runs):
    dir_a = runs["a"][0]
    # B: only the first vadd launch of A, as a bare AICORE_SIM_TRACE folder (no launch list).
    part = tmp_path / "part"
    part.mkdir()
    shutil.copytree(dir_a / "OPPROF_vadd_kernel_0", part / "OPPROF_vadd_kernel_0")
    result = prof("--compare", str(dir_a), str(part))
    assert result.returncode == 0, result.stderr
    assert set(sections(result.stdout)) == {"vadd_kernel#0"}
    assert "only in A: gelu_kernel#0, vadd_kernel#1" in result.stdout
    assert "source lines: no line's calls or cycles changed" in result.stdout

    # A kernel of another name pairs with nothing.
    other = tmp_path / "other"
    other.mkdir()
    shutil.copytree(dir_a / "OPPROF_gelu_kernel_0", other / "OPPROF_other_kernel_0")
    basic = other / "OPPROF_other_kernel_0" / "OpBasicInfo.csv"
    basic.write_text(basic.read_text().replace("gelu_kernel", "other_kernel"))
    result = prof("--compare", str(part), str(other))
    assert result.returncode == 1
    assert "only in A: vadd_kernel#0" in result.stdout
    assert "only in B: other_kernel#0" in result.stdout
    assert "no launch of A pairs" in result.stderr


def test_bad_folders_exit_2_naming_what_is_missing(tmp_path, runs):
    dir_a = runs["a"][0]
    missing = tmp_path / "nope"
    result = prof("--compare", str(dir_a), str(missing))
    assert result.returncode == 2 and f"{missing}: no such folder" in result.stderr

    empty = tmp_path / "empty"
    empty.mkdir()
    result = prof("--compare", str(empty), str(dir_a))
    assert result.returncode == 2 and str(empty) in result.stderr
    assert "no OPPROF_* trace folder" in result.stderr

    broken = tmp_path / "broken"
    shutil.copytree(dir_a, broken)
    (broken / "OPPROF_gelu_kernel_0" / "PipeUtilization.csv").unlink()
    result = prof("--compare", str(dir_a), str(broken))
    assert result.returncode == 2
    assert f"{broken / 'OPPROF_gelu_kernel_0'}: PipeUtilization.csv is missing" in result.stderr


def test_bad_arguments_exit_2(tmp_path, runs):
    dir_a = runs["a"][0]
    assert prof().returncode == 2
    result = prof("--output", str(tmp_path / "x"))
    assert result.returncode == 2 and "needs the program to run" in result.stderr
    assert prof("--compare", str(dir_a)).returncode == 2
    result = prof("--compare", str(dir_a), str(dir_a), "--output", str(tmp_path / "y"))
    assert result.returncode == 2 and "--compare takes two folders" in result.stderr
    result = prof("--output", str(tmp_path / "z"), str(tmp_path / "no-such-program"))
    assert result.returncode == 2 and "cannot start" in result.stderr
    # An earlier run is never mixed with a new one.
    result = prof("--output", str(dir_a), sys.executable, "-c", "pass")
    assert result.returncode == 2 and "already holds an earlier run" in result.stderr
    assert (dir_a / "OPPROF_gelu_kernel_0").is_dir()


def test_overwrite_replaces_the_earlier_run_only(tmp_path):
    out = tmp_path / "run"
    out.mkdir()
    (out / "OPPROF_old_kernel_0").mkdir()
    (out / "notes.txt").write_text("mine")
    result = prof("--output", str(out), "--overwrite", sys.executable, "-c", "pass")
    assert result.returncode == 0, result.stderr
    assert "launched no kernel" in result.stdout
    assert not (out / "OPPROF_old_kernel_0").exists()
    assert (out / "notes.txt").read_text() == "mine"


def test_help_documents_every_option_and_the_exit_codes():
    result = prof("--help")
    assert result.returncode == 0
    for option in ("--output", "--overwrite", "--compare", "--lines", "--cores"):
        assert option in result.stdout
    assert "Exit codes" in result.stdout
