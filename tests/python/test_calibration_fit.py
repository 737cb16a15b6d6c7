"""The fitter (bench/calibration/fit.py): it recovers known parameters from times the model
itself made under a perturbed preset, it reads and writes preset figures by path keeping every
comment, and its overrides are what the loader accepts."""
import dataclasses
import os
import sys

import pytest

from conftest import REPO

sys.path.insert(0, os.path.join(REPO, "bench", "calibration"))

import manifest  # noqa: E402  (puts bench/ on the path)
import calibrate  # noqa: E402
import fit  # noqa: E402
import run  # noqa: E402

# The Add ladder's five steps on 48 cores at 1/16 of its size: 0.4 s a set on two processes.
SIZE = 16384 * 48 * 4
READ = "gm.hbm_read_bytes_per_second"
OVERHEAD = "gm.hbm_transfer_overhead_ns"


def reduced_ladder():
    return [manifest.Point(f"ladder-{i}", "reduced ladder", row[0], "this test", "Ascend910B1",
                           "Task Duration", 1.0, "ladder_reduced", (row, SIZE))
            for i, row in enumerate(calibrate.LADDER)]


def reduced_copies(group, scenarios, to_l1):
    """The DataCopy scenarios on 512 rows and 4 cores, where the engine, not HBM, bounds them:
    short rows (fixed cost per copy) against long ones (rate)."""
    return [manifest.Point(f"{group}-{s[0]}", group, s[1], "this test", "Ascend910B1",
                           "Task Duration", 1.0, "copy_reduced", (s, to_l1, 512, 4))
            for s in scenarios]


def test_the_fitter_recovers_perturbed_parameters_within_two_percent():
    # Three stages as make fit's: HBM on the ladder, then each core type's MTE2 route row on its
    # copies (copies read through HBM, so they come after it).
    stages = (
        fit.Stage("hbm", ("reduced ladder",), (fit.Param(READ, 0.5, 2.0),
                                               fit.Param(OVERHEAD, 0.25, 4.0))),
        fit.Stage("vector copies", ("reduced ub",), (
            fit.Param("mte2.core_bytes_per_cycle", 0.5, 4.0),
            fit.Param("mte2.fixed_cycles", 0.25, 4.0))),
        # The cube core's copies from HBM stream at its read window over the latency (7g).
        fit.Stage("cube copies", ("reduced l1",), (
            fit.Param("cube_mte2.read_window_bytes", 0.5, 2.0),
            fit.Param("cube_mte2.fixed_cycles", 0.25, 4.0))),
    )
    C = copies_module()
    points = (reduced_ladder() +
              reduced_copies("reduced ub", [C.UB_SCENARIOS[i] for i in (0, 1, 2)], False) +
              reduced_copies("reduced l1", [C.L1_SCENARIOS[i] for i in (0, 1, 2)], True))
    factors = {READ: 1.08, OVERHEAD: 0.85, "mte2.core_bytes_per_cycle": 1.15,
               "mte2.fixed_cycles": 0.8, "cube_mte2.read_window_bytes": 1.25,
               "cube_mte2.fixed_cycles": 1.3}
    with run.Runner(2, "", progress=False) as runner:
        fitter = fit.Fitter(runner, points, stages, max_evals=60, say=lambda text: None)
        truth = {path: fitter.defaults[path] * f for path, f in factors.items()}
        made = fitter.simulate(points, truth)
        fitter.points = [dataclasses.replace(p, measured=made[p.id]["sim_us"]) for p in points]
        before = fit.errors(fitter.points, fitter.simulate(fitter.points, fitter.defaults))
        for stage in stages:  # each stage's points see its perturbation
            moved = [abs(before[p.id]) for p in fitter.points_of(stage.groups)]
            assert max(moved) > 1.0, (stage.name, moved)
        # The ladder also reads through MTE2, whose truth the first pass does not know yet.
        values = fitter.fit(passes=2)
        after = fit.errors(fitter.points, fitter.simulate(fitter.points, values))
    missed = {path: (values[path], want) for path, want in truth.items()
              if values[path] != pytest.approx(want, rel=0.02)}
    assert not missed, missed
    assert max(abs(e) for e in after.values()) < 0.2, after


def copies_module():
    import copies
    return copies


def test_overrides_nest_each_block_once_and_the_loader_takes_them(device):
    text = fit.overrides_text({"gm.latency_cycles": (512.4, True), READ: (1.5e12, False),
                               "launch_overhead_ns": (300.0, False)})
    assert text.count("gm {") == 1
    assert "latency_cycles: 512 " in text and "hbm_read_bytes_per_second: 1.5e+12" in text
    device.set_config_overrides(text)
    report = calibrate.simulate_ladder(calibrate.LADDER[0], size=SIZE)
    assert report["check"] == ""


def test_the_writer_changes_values_in_place_and_keeps_comments():
    text = open(fit.PRESET).read()
    assert fit.preset_value(text, "gm.latency_cycles") == 400
    note = "fitted by make fit to reduced ladder"
    new = fit.write_values(text, {"gm.latency_cycles": (433.2, True), READ: (1.7e12, False)},
                           note)
    assert fit.preset_value(new, "gm.latency_cycles") == 433
    assert fit.preset_value(new, READ) == 1.7e12
    changed = [(a, b) for a, b in zip(text.splitlines(), new.splitlines()) if a != b]
    assert len(changed) == 2 and len(new.splitlines()) == len(text.splitlines())
    for old, line in changed:
        assert line.split("# ", 1)[1] == note + "; " + old.split("# ", 1)[1]
    # A second fit replaces the note instead of stacking notes.
    again = fit.write_values(new, {"gm.latency_cycles": (420, True)}, note)
    assert again.count(note) == 2


def test_an_unknown_parameter_path_is_named():
    with pytest.raises(KeyError, match="gm.no_such_figure: no such figure in configs/presets"):
        fit.preset_value(open(fit.PRESET).read(), "gm.no_such_figure")


def test_the_fit_record_counts_only_for_the_preset_it_was_made_on(tmp_path):
    path = str(tmp_path / "last_fit.json")
    fit.save_record(path, "preset text", {"vector add ladder": 3.5}, 10.0, 4.0)
    record = fit.load_record(path, "preset text")
    assert record["leave_one_group_out"] == {"vector add ladder": 3.5}
    assert fit.load_record(path, "another preset") is None
    assert fit.load_record(str(tmp_path / "none.json"), "preset text") is None


class LinearModel:
    """A stand-in for run.Runner: a point's time is its 'rate' figure times its spec, so every
    stage's parameter is found exactly; records the overrides of every run."""

    def __init__(self):
        self.seen = []

    def run(self, points, overrides=""):
        self.seen.append(overrides)
        figures = {}
        for name in ("latency_cycles", "request_bytes"):
            at = overrides.find(name + ": ")
            if at >= 0:
                figures[name] = float(overrides[at + len(name) + 2:].split()[0])
        return {p.id: {"sim_us": figures[p.spec] * 1.0, "check": ""} for p in points}


def test_every_stage_is_fitted_and_logo_refits_only_the_left_out_groups_stage():
    stages = (fit.Stage("one", ("a",), (fit.Param("gm.latency_cycles", 0.5, 2.0),)),
              fit.Stage("two", ("b", "c"), (fit.Param("gm.request_bytes", 0.5, 2.0),)))
    points = [manifest.Point(pid, group, pid, "test", "Ascend910B1", "Task Duration", measured,
                             "fake", figure)
              for pid, group, measured, figure in (("a1", "a", 440.0, "latency_cycles"),
                                                   ("b1", "b", 563.2, "request_bytes"),
                                                   ("c1", "c", 563.2, "request_bytes"))]
    fitter = fit.Fitter(LinearModel(), points, stages, max_evals=60, say=lambda text: None)
    values = fitter.fit()
    assert values["gm.latency_cycles"] == pytest.approx(440, rel=2e-3)
    assert values["gm.request_bytes"] == pytest.approx(563.2, rel=2e-3)
    # Leaving group a out: its stage has no points left, so it takes the preset's value; stage
    # two keeps the full fit's value without being refitted.
    runs = len(fitter.runner.seen)
    without_a = fitter.fit(without=("a",), start=values)
    assert without_a["gm.latency_cycles"] == fitter.defaults["gm.latency_cycles"]
    assert without_a["gm.request_bytes"] == values["gm.request_bytes"]
    assert len(fitter.runner.seen) == runs
    # Leaving b out refits stage two on c alone.
    without_b = fitter.fit(without=("b",), start=values)
    assert without_b["gm.latency_cycles"] == values["gm.latency_cycles"]
    assert len(fitter.runner.seen) > runs


@pytest.mark.parametrize("field", ["left_out", "predicted"])
def test_a_stage_does_not_fit_the_points_it_leaves_out_or_predicts(field):
    # c1 says request_bytes is 1000, b1 563.2: left out (or predicted), c1 moves nothing, and the
    # fitter counts it outside its fitted points, with its reason, while it stays among every
    # point.
    stages = (fit.Stage("two", ("b", "c"), (fit.Param("gm.request_bytes", 0.5, 2.0),),
                        **{field: ("c1",), "why_" + field: "a cost outside the stage"}),)
    points = [manifest.Point(pid, group, pid, "test", "Ascend910B1", "Task Duration", measured,
                             "fake", "request_bytes")
              for pid, group, measured in (("b1", "b", 563.2), ("c1", "c", 1000.0))]
    fitter = fit.Fitter(LinearModel(), points, stages, max_evals=60, say=lambda text: None)
    values = fitter.fit()
    assert values["gm.request_bytes"] == pytest.approx(563.2, rel=2e-3)
    assert [p.id for p in fitter.fitted_points()] == ["b1"]
    assert fitter.left_out() == {"c1": "a cost outside the stage"}
    assert [p.id for p in fitter.points] == ["b1", "c1"]


def test_a_figure_that_is_zero_in_the_preset_is_refused_by_name():
    stages = (fit.Stage("w", ("a",), (fit.Param("mte2.read_window_bytes", 0.5, 2.0),)),)
    with pytest.raises(ValueError, match="mte2.read_window_bytes: 0 in the preset"):
        fit.Fitter(LinearModel(), [], stages, say=lambda text: None)
