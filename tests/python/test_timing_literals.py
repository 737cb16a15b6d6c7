"""scripts/check_timing_literals.py (the ctest sim.timing_literals) finds a cost constant in a
timing function and lets 0, 1, named constants, comments and strings pass."""
import os
import sys

from conftest import REPO

sys.path.insert(0, os.path.join(REPO, "scripts"))

import check_timing_literals as check  # noqa: E402

SOURCE = """
PipeTiming Unit::Timing(const Cost& cost, uint64_t n, Cycle now) {
  // 3 cycles per burst (a comment is no figure)
  double stream = n / cost.bytes_per_cycle + 0.5 * kNamedFigure;
  SIM_CHECK(n < 7, "at most 7");
  return Make(now + stream * 1.25, 0, 1);
}
"""


def test_a_literal_in_a_timing_function_is_found_with_its_line():
    assert check.literals_in(SOURCE, "Unit::Timing") == [(5, "7"), (6, "1.25")]


def test_a_missing_function_is_none_and_the_tree_is_clean():
    assert check.literals_in(SOURCE, "Unit::Other") is None
    assert check.main() == 0
