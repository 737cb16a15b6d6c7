"""Frontend errors as one short block: the user's frames and the error, without the frames of the
frontend's own code (tracing, launching, module `__getattr__`s). AICORE_SIM_DEBUG_FRONTEND=1
keeps every frame and the chained internal exception, for debugging the frontend itself.

Python adds the frame that re-raises an error to its traceback, so the public entry points
(`kernel[...](...)`, `kernel.compile(...)`) trim the traceback they re-raise, mark their own frame
`__tracebackhide__` (pytest hides it) and a chained `sys.excepthook` drops the rest when a
script dies of the error.
"""
from __future__ import annotations

import ast
import contextlib
import inspect
import os
import sys
import types

DEBUG_ENV = "AICORE_SIM_DEBUG_FRONTEND"
_PACKAGE_DIR = os.path.dirname(os.path.abspath(__file__)) + os.sep
# Standard-library helpers the frontend raises through (contextmanager-based error capture,
# argument binding).
_HELPER_FILES = {os.path.abspath(contextlib.__file__), os.path.abspath(inspect.__file__)}
_previous_hook = None


def debug() -> bool:
    return os.environ.get(DEBUG_ENV, "") not in ("", "0")


def _internal(tb: types.TracebackType) -> bool:
    path = os.path.abspath(tb.tb_frame.f_code.co_filename)
    return path.startswith(_PACKAGE_DIR) or path in _HELPER_FILES


def user_traceback(tb):
    """`tb` without the frontend's frames."""
    kept = []
    while tb is not None:
        if not _internal(tb):
            kept.append(tb)
        tb = tb.tb_next
    head = None
    for entry in reversed(kept):
        head = types.TracebackType(head, entry.tb_frame, entry.tb_lasti, entry.tb_lineno)
    return head


def hide_internals(exc: BaseException) -> BaseException:
    """Make `exc` print as the user's frames and its message only: its traceback and that of
    the exception it wraps (`__cause__`, kept for programs that inspect it) lose the frontend's
    frames, and a script that dies of it prints no chained exception."""
    _explain_binding(exc)
    if debug():
        return exc
    exc.__traceback__ = user_traceback(exc.__traceback__)
    if exc.__cause__ is not None:
        exc.__cause__.__traceback__ = user_traceback(exc.__cause__.__traceback__)
    exc._asc_hide_internals = True
    _install_hook()
    return exc


def _explain_binding(exc: BaseException) -> None:
    """A launch's arguments that do not bind to the kernel's parameters fail in inspect's
    Signature.bind with pyasc's TypeError text; a hint adds the kernel and its signature, as the
    user wrote it. The kernel is the JITFunction whose frame called bind."""
    if not isinstance(exc, TypeError) or getattr(exc, "hint", None):
        return
    from asc.runtime.jit import JITFunction
    tb, kernel, binding = exc.__traceback__, None, False
    while tb is not None:
        frame = tb.tb_frame
        owner = frame.f_locals.get("self")
        if os.path.abspath(frame.f_code.co_filename) in _HELPER_FILES:
            binding = binding or frame.f_code.co_name in ("bind", "_bind")
        elif isinstance(owner, JITFunction):
            kernel = owner
        tb = tb.tb_next
    if not binding or kernel is None:
        return
    try:
        fdef = kernel.source.fdef
        where = f"{os.path.basename(kernel.source.filename)}:{fdef.lineno}"
        signature = f"{fdef.name}({ast.unparse(fdef.args)})"
    except Exception:  # noqa: BLE001 - no source: the signature inspect knows
        where, signature = None, f"{kernel.fn.__name__}{kernel.signature}"
    exc.hint = (f"kernel {signature}" + (f" ({where})" if where else "") +
                " needs an argument for each parameter")
    exc.add_note(f"hint: {exc.hint}")


def _hook(exc_type, exc, tb):
    if not getattr(exc, "_asc_hide_internals", False) or debug():
        _previous_hook(exc_type, exc, tb)
        return
    # The default hook prints the exception's own __traceback__, not its `tb` argument.
    cause, suppress = exc.__cause__, exc.__suppress_context__
    exc.__cause__, exc.__suppress_context__ = None, True
    exc.__traceback__ = user_traceback(tb)
    try:
        _previous_hook(exc_type, exc, exc.__traceback__)
    finally:
        exc.__cause__, exc.__suppress_context__ = cause, suppress


def _install_hook() -> None:
    """Chain our hook in front of whatever hook is installed, once."""
    global _previous_hook
    if _previous_hook is None and sys.excepthook is not _hook:
        _previous_hook = sys.excepthook
        sys.excepthook = _hook
