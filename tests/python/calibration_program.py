"""A program whose launches aicore-calibrate's tests profile and fit (tests/python/
test_tools_calibrate.py): the first steps of the Add ladder (bench/calibrate.py) at 1/32 of its
size, each launch checked."""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "bench"))

import calibrate  # noqa: E402

SIZE = 16384 * 48 * 2


def main():
    inputs = calibrate.ladder_inputs(SIZE)
    steps = int(sys.argv[1]) if len(sys.argv) > 1 else 3
    for row in calibrate.LADDER[:steps]:
        result = calibrate.simulate_ladder(row, size=SIZE, inputs=inputs)
        if result["check"]:
            sys.exit(f"{row[0]}: {result['check']}")


if __name__ == "__main__":
    main()
