"""Paragraph filling for the docstrings the API builds at import time.

textwrap.fill splits every paragraph with a regular expression, and the few hundred generated
docstrings made that about a tenth of `import asc`. These paragraphs are single-spaced prose, so
a greedy split on spaces gives the same lines for a fraction of the cost.
"""
from __future__ import annotations

from typing import List

__all__ = ["fill"]


def fill(text: str, width: int = 92) -> str:
    """`text` as lines of at most `width` characters, broken at spaces only (a longer word keeps
    a line of its own), as textwrap.fill(text, width, break_on_hyphens=False) gives for
    single-spaced text."""
    lines: List[str] = []
    line = ""
    for word in text.split():
        if not line:
            line = word
        elif len(line) + 1 + len(word) <= width:
            line += " " + word
        else:
            lines.append(line)
            line = word
    if line:
        lines.append(line)
    return "\n".join(lines)
