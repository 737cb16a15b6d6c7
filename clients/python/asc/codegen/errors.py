"""Errors raised while tracing a kernel; str() shows the offending source line with a caret, the
error in pyasc's terms and, when there is one, a hint."""
from typing import Optional


class CodegenError(Exception):
    """A kernel could not be compiled. Carries the source excerpt and the underlying message."""

    def __init__(self, message: str, filename: Optional[str] = None, line: Optional[int] = None,
                 column: Optional[int] = None, source_line: Optional[str] = None,
                 hint: Optional[str] = None):
        self.message = message
        self.hint = hint
        self.filename = filename
        self.line = line
        self.column = column
        self.source_line = source_line
        super().__init__(self._format())

    def _format(self) -> str:
        hint = [] if not self.hint else [f"hint: {self.hint}"]
        if self.line is None:
            return "\n".join([self.message] + hint)
        parts = [f'File "{self.filename}", line {self.line}']
        if self.source_line is not None:
            text = self.source_line.rstrip("\n")
            stripped = text.lstrip()
            indent = len(text) - len(stripped)
            parts.append("    " + stripped)
            if self.column is not None and self.column >= indent:
                parts.append("    " + " " * (self.column - indent) + "^")
        parts.append(self.message)
        return "\n".join(parts + hint)

    def __str__(self):
        return self._format()


class UnsupportedSyntaxError(CodegenError):
    """Python syntax that a kernel body may not use (asc-api.md 1.3)."""


class NotSupportedError(NotImplementedError):
    """A pyasc name aicore-sim does not implement yet (the list is asc/_unsupported.py)."""

    def __init__(self, name: str):
        self.name = name
        self.hint = ("aicore-sim does not implement this part of pyasc yet; docs/frontend.md lists "
                     "what runs on the simulator")
        super().__init__(f"not supported by aicore-sim yet: {name}")
        # Shown under the message when raised outside a kernel (a CodegenError shows it itself).
        self.add_note(f"hint: {self.hint}")
