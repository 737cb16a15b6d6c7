"""asc.__version__ and the reports' simulator_version come from the repository's VERSION file."""
import pathlib

import asc


def test_asc_version_is_the_version_file():
    root = pathlib.Path(__file__).resolve().parents[2]
    assert asc.__version__ == (root / "VERSION").read_text().strip()
