"""Pipe synchronisation: hardware flags between pipes and per-pipe barriers (asc-api.md 4.3)."""
import numbers

from asc.codegen.builder import require_builder
from asc.language.core.constexpr import ConstExpr
from asc.language.core.dtype import KnownTypes
from asc.language.core.enums import HardEvent, MemDsbT, PipeID
from asc.language.core.ir_value import is_runtime_int, to_value

__all__ = ["set_flag", "wait_flag", "pipe_barrier", "data_sync_barrier"]


def _event(api, event) -> int:
    event = ConstExpr.unwrap(event)
    if not isinstance(event, numbers.Integral) or isinstance(event, bool):
        raise TypeError(f"{api}(): event must be a HardEvent, got {type(event).__name__}")
    return int(HardEvent(event))


def _flag(api, kind, event, event_id):
    require_builder(api)
    event_value = _event(api, event)
    event_id = ConstExpr.unwrap(event_id)
    if not is_runtime_int(event_id):
        raise TypeError(f"{api}(): event_id must be an int or a traced integer, "
                        f"got {type(event_id).__name__}")
    id_value = to_value(event_id, KnownTypes.int32).id
    op = require_builder(api).emit(kind)
    op.event = event_value
    op.event_id = id_value


def set_flag(event: HardEvent, event_id=0) -> None:
    """Issued into the source pipe of `event`; sets flag (event, event_id) when that pipe's
    earlier work is done."""
    _flag("set_flag", "set_flag", event, event_id)


def wait_flag(event: HardEvent, event_id=0) -> None:
    """Blocks the destination pipe of `event` until the flag is set, then consumes it."""
    _flag("wait_flag", "wait_flag", event, event_id)


def pipe_barrier(pipe: PipeID) -> None:
    """Orders the instructions of `pipe`; PIPE_ALL drains every pipe."""
    builder = require_builder("pipe_barrier")
    pipe = ConstExpr.unwrap(pipe)
    if not isinstance(pipe, numbers.Integral) or isinstance(pipe, bool):
        raise TypeError(f"pipe_barrier(): pipe must be a PipeID, got {type(pipe).__name__}")
    builder.emit("pipe_barrier").pipe = int(PipeID(pipe))


def data_sync_barrier(arg0) -> None:
    """DSB: the scalar unit waits until its own data accesses of the given memories complete.
    The model's scalar unit completes each access before the next instruction, so the barrier
    has nothing to wait for: the argument is checked and nothing is emitted. (It orders no pipe:
    pipes are ordered by set_flag/wait_flag and pipe_barrier.)"""
    require_builder("data_sync_barrier")
    value = ConstExpr.unwrap(arg0)
    if isinstance(value, bool) or not isinstance(value, int) or value not in iter(MemDsbT):
        choices = ", ".join(m.name for m in MemDsbT)
        raise TypeError(f"data_sync_barrier(): arg0 must be an asc.MemDsbT ({choices}), got "
                        f"{arg0!r}")


def library_sync(event: HardEvent) -> None:
    """The library's set_flag + wait_flag of `event` inside an API's sequence, with an event id
    fetched from the TPipe when the kernel has one (else 0), as Ascend C's APIs do."""
    from asc.language.fwk.state import fwk_state
    pipe = fwk_state(require_builder("sync")).pipe
    event_id = pipe.fetch_event_id(event) if pipe is not None else 0
    set_flag(event, event_id)
    wait_flag(event, event_id)
