"""TPipe (the kernel's allocator of queue buffers and event ids) and TBufPool (a sub-allocator
over a range of the pipe's memory), asc-api.md 5.1 and 5.4.

Addresses are not computed here: init_buffer and friends are FrameworkOps, and the simulator runs
the library's bump allocator, so exhausting UB or misusing a pool is a kernel fault naming the
source line. What is known at trace time (positions, pool sizes) is checked here.
"""
from __future__ import annotations

from asc import _isa
from asc._proto import kernel_pb2
from asc.codegen.builder import require_builder
from asc.language.core.dispatch import Overload, Param, dispatch
from asc.language.core.enums import HardEvent, TPosition
from asc.language.core.dtype import KnownTypes
from asc.language.core.ir_value import PlainValue, is_runtime_int
from asc.language.core.tensor import memory_of
from asc.language.fwk.state import (FW, Declared, compile_time_int, declare_pool,
                                    emit_framework, ensure_pipe, event_arg, fwk_state,
                                    position_arg)
from asc.language.fwk.tque import TBuf, TQueBind

__all__ = ["TPipe", "TBufPool", "get_tpipe_ptr"]

_INT = KnownTypes.int32
# Positions a TBufPool may take, from the simulator's position table (asc/_isa.py); the UB ones
# first, as messages list them.
_POOL_POSITIONS = tuple(sorted((TPosition(pos) for pos, row in _isa.POSITIONS.items() if row[3]),
                               key=lambda p: (_isa.POSITIONS[p][1] != kernel_pb2.MEM_UB, p)))
_MAX_BUF_ID_SIZE = 16


def _runtime_int(x) -> bool:
    return is_runtime_int(x)


_runtime_int.__name__ = "RuntimeInt"


def _is_queue(x) -> bool:
    return isinstance(x, TQueBind)


_is_queue.__name__ = "TQue"


def _is_tbuf(x) -> bool:
    return isinstance(x, TBuf)


_is_tbuf.__name__ = "TBuf"


def _check_same_memory(api: str, pool_pos: TPosition, what: str, pos: TPosition) -> None:
    if memory_of(pool_pos) != memory_of(pos):
        raise ValueError(f"{api}(): the {what} at position {pos.name} is not in the memory of "
                         f"the pool (position {pool_pos.name}); a pool only serves buffers of "
                         "its own physical memory")


def _init_buffer_overloads(api: str, on_queue, on_tbuf, tbuf_keyword: str):
    return [
        Overload([Param("que", _is_queue), Param("num", _runtime_int, 0),
                  Param("len", _runtime_int, 0)], on_queue),
        Overload([Param("buf", _is_tbuf), Param(tbuf_keyword, _runtime_int, 0)],
                 lambda buf, **kw: on_tbuf(buf, kw[tbuf_keyword])),
    ]


class TPipe:
    """`asc.TPipe()`: the kernel's single pipe (asc-api.md 5.1).

    It hands out the on-chip memory of queues and buffers (init_buffer) and the event ids of
    the framework (ascendc-semantics.md 8); a second explicit TPipe is an error (use
    get_tpipe_ptr), and a pipe the framework created implicitly is adopted."""

    def __new__(cls):
        builder = require_builder("TPipe")
        state = fwk_state(builder)
        if state.pipe is not None and state.pipe._explicit:
            raise RuntimeError("TPipe instance is already created, use get_tpipe_ptr() to "
                               "obtain it")
        # A pipe the framework already created implicitly (for a queue declared earlier or a
        # LocalTensorAuto) is adopted: still one PIPE_INIT per kernel.
        pipe = ensure_pipe(builder)
        pipe._explicit = True
        return pipe

    def __init__(self) -> None:
        pass

    def __repr__(self):
        return "TPipe()"

    # ---- buffers ------------------------------------------------------------------------------

    def init_buffer(self, *args, **kwargs) -> None:
        """`init_buffer(que, num, len)`: `num` buffers of `len` bytes (rounded up to 32) for a
        queue; `init_buffer(buf, num)` / `init_buffer(buf=, len=)`: one buffer of that many
        bytes for a TBuf."""
        require_builder("init_buffer")

        def on_queue(que, num, len):  # noqa: A002 - API keyword
            emit_framework("init_buffer", FW.INIT_BUFFER, queue=que.id,
                           operands=[(num, _INT), (len, _INT)])

        def on_tbuf(buf, nbytes):
            emit_framework("init_buffer", FW.INIT_BUFFER, queue=buf.id,
                           operands=[(1, _INT), (nbytes, _INT)])

        dispatch("init_buffer",
                 _init_buffer_overloads("init_buffer", on_queue, on_tbuf, "num") +
                 _init_buffer_overloads("init_buffer", on_queue, on_tbuf, "len")[1:],
                 args, kwargs)

    def init_buf_pool(self, buf_pool, len=0, share_buf=None) -> None:  # noqa: A002
        """Carve `len` bytes of the pool's memory for `buf_pool`; with `share_buf`, alias the
        range of that (already initialised) pool instead."""
        _init_sub_pool("init_buf_pool", FW.INIT_BUF_POOL, 0, None, buf_pool, len, share_buf)

    # ---- event ids ----------------------------------------------------------------------------

    def alloc_event_id(self, event=HardEvent.V_S) -> PlainValue:
        """Reserve the lowest free id of `event` (int32)."""
        event = event_arg(event, "alloc_event_id")
        return emit_framework("alloc_event_id", FW.ALLOC_EVENT_ID, event=event,
                              results=(_INT,))[0]

    def fetch_event_id(self, event=HardEvent.V_S) -> PlainValue:
        """The lowest currently free id of `event`, not reserved (int32)."""
        event = event_arg(event, "fetch_event_id")
        return emit_framework("fetch_event_id", FW.FETCH_EVENT_ID, event=event,
                              results=(_INT,))[0]

    def release_event_id(self, id, event=HardEvent.V_S) -> None:  # noqa: A002 - API keyword
        if not is_runtime_int(id):
            raise TypeError(f"release_event_id(): id must be a runtime int, got "
                            f"{type(id).__name__}")
        event = event_arg(event, "release_event_id")
        emit_framework("release_event_id", FW.RELEASE_EVENT_ID, event=event,
                       operands=[(id, _INT)])

    def get_base_addr(self, logic_pos) -> PlainValue:
        pos = position_arg(logic_pos, "logic_pos")
        memory_of(pos)
        return emit_framework("get_base_addr", FW.GET_BASE_ADDR, position=pos,
                              results=(KnownTypes.uint32,))[0]

    # ---- lifetime -----------------------------------------------------------------------------

    def init(self) -> None:
        """Re-initialise the pipe: allocation and event pools start over."""
        emit_framework("init", FW.PIPE_INIT)

    def reset(self) -> None:
        """Wait pending "buffer free" events and rewind allocation to the base of each memory."""
        emit_framework("reset", FW.PIPE_RESET)

    def destroy(self) -> None:
        """Wait pending "buffer free" events and drain every pipe (PIPE_ALL)."""
        emit_framework("destroy", FW.PIPE_DESTROY)


def get_tpipe_ptr() -> TPipe:
    """The kernel's TPipe (created by `asc.TPipe()` or implicitly by the framework).

    A RuntimeError when the kernel has none yet."""
    builder = require_builder("get_tpipe_ptr")
    pipe = fwk_state(builder).pipe
    if pipe is None:
        raise RuntimeError("get_tpipe_ptr(): no TPipe has been created in this kernel; create "
                           "one with asc.TPipe()")
    return pipe


class TBufPool(Declared):
    """A sub-allocator over a range of the pipe's memory (asc-api.md 5.4).

    `asc.TBufPool(pos, buf_id_size=4)`: pos a TPosition of a pool-capable memory; at most
    `buf_id_size` buffers (a compile-time int <= 16) are allocated from it."""

    def __init__(self, pos: TPosition = TPosition.VECCALC, buf_id_size: int = 4) -> None:
        builder = require_builder("TBufPool")
        pos = position_arg(pos, "pos")
        if pos not in _POOL_POSITIONS:
            raise ValueError(f"TBufPool position must be one of "
                             f"{', '.join(p.name for p in _POOL_POSITIONS)}, got {pos.name}")
        buf_id_size = compile_time_int(buf_id_size, "buf_id_size")
        if not 1 <= buf_id_size <= _MAX_BUF_ID_SIZE:
            raise ValueError(f"TBufPool buf_id_size must be between 1 and {_MAX_BUF_ID_SIZE} "
                             f"(the number of buffers a pool can hand out), got {buf_id_size}")
        self.pos, self.buf_id_size = pos, buf_id_size
        self._decl = declare_pool(builder, pos, buf_id_size)
        self.id = self._decl.id

    @property
    def position(self) -> TPosition:
        return self.pos

    def init_buffer(self, *args, **kwargs) -> None:
        """`init_buffer(que, num=0, len=0)` / `init_buffer(buf, len=0)` inside the pool."""
        require_builder("init_buffer")

        def on_queue(que, num, len):  # noqa: A002 - API keyword
            _check_same_memory("init_buffer", self.pos, "queue", que.position)
            emit_framework("init_buffer", FW.POOL_INIT_BUFFER, queue=que.id, pool=self.id,
                           operands=[(num, _INT), (len, _INT)])

        def on_tbuf(buf, nbytes):
            _check_same_memory("init_buffer", self.pos, "TBuf", buf.position)
            emit_framework("init_buffer", FW.POOL_INIT_BUFFER, queue=buf.id, pool=self.id,
                           operands=[(1, _INT), (nbytes, _INT)])

        dispatch("TBufPool.init_buffer",
                 _init_buffer_overloads("init_buffer", on_queue, on_tbuf, "len"), args, kwargs)

    def init_buf_pool(self, buf_pool, len=0, share_buf=None) -> None:  # noqa: A002
        """Carve a sub-pool of `len` bytes from this pool, or with `share_buf` a sub-pool that
        aliases the range of `share_buf`."""
        _init_sub_pool("init_buf_pool", FW.POOL_INIT_BUF_POOL, self.id, self, buf_pool, len,
                       share_buf)

    def reset(self) -> None:
        """Rewind the pool (its buffers stay usable; their contents may be overwritten)."""
        emit_framework("reset", FW.POOL_RESET, pool=self.id)

    def __repr__(self):
        return f"TBufPool({self.name or '?'}: {self.pos.name}, buf_id_size={self.buf_id_size})"


def _init_sub_pool(api, kind, parent_id, parent, buf_pool, length, share_buf) -> None:
    require_builder(api)
    if not isinstance(buf_pool, TBufPool):
        raise TypeError(f"{api}(): buf_pool must be a TBufPool, got {type(buf_pool).__name__}")
    if share_buf is not None and not isinstance(share_buf, TBufPool):
        raise TypeError(f"{api}(): share_buf must be a TBufPool, got {type(share_buf).__name__}")
    if not is_runtime_int(length):
        raise TypeError(f"{api}(): len must be a runtime int, got {type(length).__name__}")
    if buf_pool is parent or buf_pool is share_buf:
        raise ValueError(f"{api}(): a pool cannot be carved from itself")
    if parent is not None:
        _check_same_memory(api, parent.pos, "sub-pool", buf_pool.pos)
    if share_buf is not None and share_buf.pos != buf_pool.pos:
        raise ValueError(f"{api}(): the shared pool has position {share_buf.pos.name} but the "
                         f"new pool has position {buf_pool.pos.name}; a pool can only share the "
                         "range of a pool of the same position")
    emit_framework(api, kind, pool=parent_id, sub_pool=buf_pool.id,
                   share_pool=share_buf.id if share_buf is not None else 0,
                   operands=[(length, _INT)])
