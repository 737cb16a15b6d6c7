"""Errors raised while tracing a kernel; str() shows the offending source line with a caret."""
from typing import Optional


class CodegenError(Exception):
    """A kernel could not be compiled. Carries the source excerpt and the underlying message."""

    def __init__(self, message: str, filename: Optional[str] = None, line: Optional[int] = None,
                 column: Optional[int] = None, source_line: Optional[str] = None):
        self.message = message
        self.filename = filename
        self.line = line
        self.column = column
        self.source_line = source_line
        super().__init__(self._format())

    def _format(self) -> str:
        if self.line is None:
            return self.message
        parts = [f'File "{self.filename}", line {self.line}']
        if self.source_line is not None:
            text = self.source_line.rstrip("\n")
            stripped = text.lstrip()
            indent = len(text) - len(stripped)
            parts.append("    " + stripped)
            if self.column is not None and self.column >= indent:
                parts.append("    " + " " * (self.column - indent) + "^")
        parts.append(self.message)
        return "\n".join(parts)

    def __str__(self):
        return self._format()


class UnsupportedSyntaxError(CodegenError):
    """Python syntax that a kernel body may not use (asc-api.md 1.3)."""
