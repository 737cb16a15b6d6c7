"""Framework API (asc-api.md 5): TPipe, TQue, TQueBind, TBuf, TBufPool, get_tpipe_ptr."""
from asc import _unsupported
from asc.language.fwk.tpipe import TBufPool, TPipe, get_tpipe_ptr
from asc.language.fwk.tque import TBuf, TQue, TQueBind

__all__ = ["TPipe", "TQue", "TQueBind", "TBuf", "TBufPool", "get_tpipe_ptr"]

# pyasc names not implemented yet raise NotSupportedError, not AttributeError (asc/_unsupported.py).
__getattr__ = _unsupported.module_getattr(__name__)
