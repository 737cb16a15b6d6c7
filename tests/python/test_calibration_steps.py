"""The tuning-step table of `make calibrate` (bench/calibration/run.py over manifest.steps()):
the rule a simulated step must meet, the steps' points, and the table, on made-up results (no
point is simulated here)."""
import os
import sys

import pytest

from conftest import REPO

sys.path.insert(0, os.path.join(REPO, "bench", "calibration"))

import manifest  # noqa: E402  (puts bench/ on the path)
import run  # noqa: E402


@pytest.mark.parametrize("measured, simulated, moves", [
    (36.0, 20.0, True),     # a gain simulated at more than half its size
    (36.0, 10.0, False),    # less than half
    (36.0, -5.0, False),    # the wrong way
    (36.0, 72.0, True),     # twice
    (36.0, 73.0, False),    # more than twice
    (-36.0, -20.0, True),   # a loss, as a gain
    (2.0, 4.0, True),       # no change measured, none simulated
    (2.0, 6.0, False),      # no change measured, one simulated
    (2.0, -4.9, True),
])
def test_the_rule(measured, simulated, moves):
    assert run.moves_as_the_chip(measured, simulated) is moves


def test_every_step_names_two_points_of_one_metric():
    by_id = {p.id: p for p in manifest.points()}
    steps = manifest.steps()
    assert steps
    for step in steps:
        assert step.before in by_id and step.after in by_id, step.id
        assert by_id[step.before].metric == by_id[step.after].metric, step.id
    pairs = {(s.before, s.after) for s in steps}
    # Task Duration against MTE2 time: not a step.
    assert ("mm-tiling-20core", "mm-tiling-base") not in pairs


def fake_results(points, factor=None):
    """Every point simulated at its measured time, or at `factor[id]` times it."""
    factor = factor or {}
    return {p.id: {"sim_us": p.measured * factor.get(p.id, 1.0), "check": ""} for p in points}


def test_rows_only_for_steps_whose_points_ran():
    points = manifest.points()
    results = fake_results(points)
    del results["mm4-case1"]                  # not run (a --point selection)
    results["mm7-s2"]["check"] = "a failure"  # ran and failed
    rows = run.step_rows(manifest.steps(), points, results)
    ids = [step.id for step, _, _, _ in rows]
    assert "mm4-base" not in ids and "mm7-l2split" not in ids
    assert ids == [s.id for s in manifest.steps() if s.id not in ("mm4-base", "mm7-l2split")]
    assert run.step_rows(manifest.steps(), points, {}) == []


def test_changes_are_after_over_before():
    points = manifest.points()
    step = next(s for s in manifest.steps() if s.id == "mm13-mdl")
    rows = run.step_rows([step], points, {"mm13-norm": {"sim_us": 100.0},
                                          "mm13-mdl": {"sim_us": 80.0}})
    (_, measured, simulated, moves), = rows
    assert measured == pytest.approx((53.40 / 83.68 - 1) * 100)
    assert simulated == pytest.approx(-20.0)
    assert moves  # -36 % measured, -20 % simulated


def test_the_table_counts_the_steps_in_the_mape():
    points = manifest.points()
    # Case5 10 % slower: Case4 -> Case5 still moves (-9 % against -18 %), the three steps from
    # Case5 do not (about -10 % against under 5 %); Case5 -> Case7 is not counted.
    results = fake_results(points, {"mm6-case5": 1.1})
    text = run.format_steps(run.step_rows(manifest.steps(), points, results), points)
    lines = text.splitlines()
    counted = [s for s in manifest.steps() if run.step_counted(s, {p.id: p for p in points})]
    assert lines[-1] == f"tuning steps: {len(counted) - 2} of {len(counted)} move as the chip's"
    marked = [line.split()[0] for line in lines if line.endswith("[not counted]")]
    assert marked == ["mm6-const", "mm14-const"]
