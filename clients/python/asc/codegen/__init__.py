"""Python AST -> kernel IR v1."""
from asc.codegen.errors import CodegenError, UnsupportedSyntaxError  # noqa: F401
