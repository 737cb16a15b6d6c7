"""User-defined kernel-argument structs (pyasc's `asc.language.core.struct`, asc-api.md 3.9): not
implemented yet; `Struct`, `Field` and `StructField` raise NotSupportedError (the list is
asc/_unsupported.py)."""
from asc import _unsupported

__all__ = []

__getattr__ = _unsupported.module_getattr(__name__)
