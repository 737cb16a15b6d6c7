"""The parsed source of a kernel function, with line numbers of the real file."""
from __future__ import annotations

import ast
import inspect
import linecache
import textwrap


class FunctionSource:
    """AST of one function plus what error messages need: file name and original lines."""

    def __init__(self, fn):
        self.filename = inspect.getsourcefile(fn) or fn.__code__.co_filename
        lines, start = inspect.getsourcelines(fn)
        first = lines[0]
        self.col_shift = len(first) - len(first.lstrip())
        tree = ast.parse(textwrap.dedent("".join(lines)))
        ast.increment_lineno(tree, start - 1)
        node = tree.body[0]
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            raise TypeError(f"{fn!r} is not defined by a def statement")
        self.fdef = node
        self._lines = lines
        self._start = start

    @property
    def text(self) -> str:
        """The function's source as read (decorators included), for the kernel cache's key."""
        return "".join(self._lines)

    @property
    def first_line(self) -> int:
        """The line of the file the source starts at."""
        return self._start

    def line_text(self, lineno: int) -> str:
        text = linecache.getline(self.filename, lineno)
        if not text and 0 <= lineno - self._start < len(self._lines):
            text = self._lines[lineno - self._start]
        return text
