"""Framework API (asc-api.md 5): TPipe, TQue, TQueBind, TBuf, TBufPool, get_tpipe_ptr."""
from asc.language.fwk.tpipe import TBufPool, TPipe, get_tpipe_ptr
from asc.language.fwk.tque import TBuf, TQue, TQueBind

__all__ = ["TPipe", "TQue", "TQueBind", "TBuf", "TBufPool", "get_tpipe_ptr"]
