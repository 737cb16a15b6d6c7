"""Host-side Matmul tiling (pyasc's `asc.lib.host`, asc-api.md 7): not implemented yet; every
pyasc name here raises NotSupportedError (the list is asc/_unsupported.py)."""
from asc import _unsupported

__all__ = []

__getattr__ = _unsupported.module_getattr(__name__)
