"""The calibration set as data: every public A2 measurement the simulator is compared with
(hardware-910b.md sections 7 and 7.1), one Point each, in the order `make calibrate` prints them.

A Point names its group (points that constrain the same part of the model), its source, the
platform, the metric the source measured and its value, the per-pipe figures the source gives,
whether it counts in the error figures (in_mape), and how to run it: a family (the benchmark
module whose simulate function runs it) and that family's spec (the module's own table row).
The kernels and their facts live in those modules and in docs/timing-model.md 7-7c and 7e.

A Step is a pair of those points (before, after) that the source measured as one tuning change:
`make calibrate` compares the simulated change with the measured one (run.py)."""
import os
import sys
from dataclasses import dataclass, field
from typing import Dict, Tuple

HERE = os.path.dirname(os.path.abspath(__file__))
BENCH = os.path.dirname(HERE)
for path in (HERE, BENCH, os.path.join(BENCH, "..", "examples"),
             os.path.join(BENCH, "..", "clients", "python")):
    if path not in sys.path:
        sys.path.insert(0, path)


@dataclass(frozen=True)
class Point:
    id: str            # stable and short: `--point ID`, and part of the cache key
    group: str         # e.g. "vector copies"
    label: str         # what the point is, for the table
    source: str        # where the measurement comes from
    platform: str      # the platform the source measured on
    metric: str        # what the measured value is (msprof's name)
    measured: float    # microseconds
    family: str        # which simulate function runs it (run.py)
    spec: tuple        # that function's argument: the module's own table row
    pipes: Dict[str, Tuple[str, float]] = field(default_factory=dict)  # pipe: ("us"|"ratio", v)
    in_mape: bool = True  # False: reported, kept out of the error figures (and of a fit)
    why_not: str = ""  # why a point is kept out


def _slug(text):
    return "".join(ch if ch.isalnum() else "-" for ch in text.lower()).strip("-")


def points():
    """Every calibration point, in print order."""
    import calibrate
    import calibrate_matmul as mm
    import copies
    import nd2nz_banks

    found = []
    ladder_ids = ["add-8k", "add-32k", "add-db", "add-bypass", "add-nobank"]
    for pid, row in zip(ladder_ids, calibrate.LADDER):
        found.append(Point(pid, "vector add ladder", row[0], "hardware-910b.md 7 [DK-addex]",
                           "Ascend910B1", "Task Duration", row[-1], "ladder", row))
    scalar_tiling = ("these measure the Matmul library's own scalar tiling code (a tiling "
                     "argument against constants, hardware-910b.md 7.1 rows 14 and 6), not a "
                     "hardware mechanism")
    small_ids = ["mm13-norm", "mm13-mdl", "mm14-arg", "mm14-const", "mm16-mdl",
                 "mm16-unitflag", "mm17-nopreload", "mm17-preload"]
    for pid, row in zip(small_ids, mm.POINTS):
        number, label, platform = row[:3]
        how, measured, mte2 = row[-3:]
        found.append(Point(pid, "small matmul", label, f"hardware-910b.md 7.1 row {number}",
                           platform, f"{how} aic_time", measured, "matmul_small", row,
                           {"MTE2": ("us", mte2)} if mte2 is not None else {},
                           in_mape=number != 14, why_not=scalar_tiling if number == 14 else ""))
    for row in mm.LARGE:
        number, label = row[:2]
        case = label.split()[0].lower()
        constant = row[5] is None
        found.append(Point(f"mm{number}-{case}", "large matmul", label,
                           f"hardware-910b.md 7.1 row {number}", "Ascend910B1", "Task Duration",
                           row[-2], "matmul_large", row, dict(row[-1]), in_mape=not constant,
                           why_not=scalar_tiling if constant else ""))
    for row in mm.BASIC:
        label = row[0]
        found.append(Point(f"mm7-{label.split()[0].lower()}", "large matmul", label,
                           "hardware-910b.md 7.1 row 7", "Ascend910B1", "Task Duration",
                           row[-2], "matmul_basic", row, dict(row[-1])))
    tiling_ids = ["mm-tiling-4core", "mm-tiling-20core", "mm-tiling-base", "mm-tiling-mdl"]
    for pid, row in zip(tiling_ids, mm.TILING):
        label, metric, measured, pipes = row[0], row[6], row[7], row[8]
        # Steps 3 and 4 give only aic_mte2_time; the simulated figure is the cube cores'
        # average MTE2 busy time (average, not largest: the model's reading).
        found.append(Point(pid, "large matmul", label, "hardware-910b.md 7 [DK-mmtiling]",
                           "Ascend910B3", "Task Duration" if metric == "task" else
                           "aic_mte2_time (average over the cube cores)", measured,
                           "matmul_tiling", row, dict(pipes)))
    for group, table, to_l1 in (("vector copies", copies.UB_SCENARIOS, False),
                                ("cube copies", copies.L1_SCENARIOS, True)):
        for row in table:
            sid, what, mode = row[0], row[1], row[6]
            repeats = mode in (copies.REPEAT_WHOLE, copies.REPEAT_SPLIT)
            # The repeat scenarios' second figure is the core's time, not MTE2's.
            found.append(Point(_slug(sid), group, what,
                               "hardware-910b.md 7.1 rows 8, 10 (devkit DataCopy practice)",
                               "Ascend910B1", "Task Duration", row[-2], "copy", (row, to_l1),
                               {} if repeats else {"MTE2": ("us", row[-1])}))
    for case in nd2nz_banks.CASES:
        cid, what, _, task, vec, mte2, mte3 = case
        found.append(Point(_slug(cid), "bank conflicts", what,
                           "hardware-910b.md 7.1 row 11 (devkit ND2NZ practice)", "Ascend910B1",
                           "Task Duration", task, "nd2nz", case,
                           {"V": ("us", vec), "MTE2": ("us", mte2), "MTE3": ("us", mte3)}))
    ids = [p.id for p in found]
    assert len(ids) == len(set(ids)), "calibration point ids must be unique"
    return found


@dataclass(frozen=True)
class Step:
    id: str        # stable and short, for the table
    label: str     # the tuning change
    before: str    # point id
    after: str     # point id, measured in the same metric as `before`
    source: str    # where the two measurements come from


def steps(known=None):
    """Every tuning step of hardware-910b.md 7 and 7.1, in print order, checked against `known`
    (the points; default points()). A step compares two points measured in the same metric: the
    matmul tiling example's 20-core step is Task Duration and its base-block step MTE2 time, so
    there is no step between those two."""
    ladder = "hardware-910b.md 7 [DK-addex]"
    tiling = "hardware-910b.md 7 [DK-mmtiling]"
    row = "hardware-910b.md 7.1 row {}".format
    found = [
        Step("add-32k", "8 KB -> 32 KB tiles", "add-8k", "add-32k", ladder),
        Step("add-db", "+ double buffer", "add-32k", "add-db", ladder),
        Step("add-bypass", "+ L2 bypass", "add-db", "add-bypass", ladder),
        Step("add-nobank", "+ no bank conflict", "add-bypass", "add-nobank", ladder),
        Step("mm4-base", "base block 64x64x64 -> 128x256x64", "mm4-case0", "mm4-case1", row(4)),
        Step("mm5-grid", "core grid 2x12 -> 4x6", "mm5-case2", "mm5-case3", row(5)),
        Step("mm6-depth", "MDL depth 4/4 -> step 8/4 depth 16/8", "mm6-case4", "mm6-case5",
             row(6)),
        Step("mm6-l2split", "Case5 + L2 split, 2 rounds", "mm6-case5", "mm6-case6", row(6)),
        Step("mm6-const", "Case5 + constant tiling", "mm6-case5", "mm6-case7", row(6)),
        Step("mm6-unitflag", "Case5 + UnitFlag", "mm6-case5", "mm6-case8", row(6)),
        Step("mm7-l2split", "basic API + L2 split, 2 rounds", "mm7-s1", "mm7-s2", row(7)),
        Step("mm13-mdl", "Norm -> MDL", "mm13-norm", "mm13-mdl", row(13)),
        Step("mm14-const", "tiling argument -> constant tiling", "mm14-arg", "mm14-const",
             row(14)),
        Step("mm16-unitflag", "MDL + UnitFlag", "mm16-mdl", "mm16-unitflag", row(16)),
        Step("mm17-preload", "MDL + MTE2 preload along N", "mm17-nopreload", "mm17-preload",
             row(17)),
        Step("tiling-cores", "4 -> 20 blocks (Task Duration)", "mm-tiling-4core",
             "mm-tiling-20core", tiling),
        Step("tiling-mdl", "base 128x256 + MDL (MTE2 time)", "mm-tiling-base", "mm-tiling-mdl",
             tiling),
    ]
    by_id = {p.id: p for p in (known if known is not None else points())}
    for s in found:
        assert s.before in by_id and s.after in by_id, f"step {s.id}: unknown point"
        assert by_id[s.before].metric == by_id[s.after].metric, \
            f"step {s.id}: {s.before} and {s.after} are measured in different metrics"
    ids = [s.id for s in found]
    assert len(ids) == len(set(ids)), "tuning step ids must be unique"
    return found
