"""Per-kernel state of the framework library (TPipe and the objects it manages) and the helpers
that emit FrameworkOps and declarations.

The kernel has at most one TPipe. It comes into being with the first framework object (an explicit
`asc.TPipe()`, a queue, a TBuf, a pool or a LocalTensorAuto): its PIPE_INIT goes into the
prologue and its PIPE_DESTROY (the C++ destructor at the end of the kernel) into the epilogue.
"""
from __future__ import annotations

import numbers
from typing import Optional, Sequence, Tuple

from asc._proto import kernel_pb2
from asc.codegen.builder import IRBuilder, require_builder
from asc.language.core.constexpr import ConstExpr, required_error
from asc.language.core.dtype import DataType
from asc.language.core.enums import HardEvent, TPosition
from asc.language.core.ir_value import PlainValue, to_value

FW = kernel_pb2.FrameworkOp


class FwkState:
    def __init__(self):
        self.pipe = None                 # the TPipe object (explicit or implicit)
        self.init_op: Optional[kernel_pb2.Op] = None
        self.auto_tensors = 0            # LocalTensorAuto call sites traced


def fwk_state(builder: IRBuilder) -> FwkState:
    state = builder.state.get("fwk")
    if state is None:
        state = builder.state["fwk"] = FwkState()
    return state


def ensure_pipe(builder: IRBuilder):
    """The kernel's TPipe, created (implicitly) with its PIPE_INIT if it does not exist yet."""
    from asc.language.fwk.tpipe import TPipe
    state = fwk_state(builder)
    if state.pipe is None:
        pipe = object.__new__(TPipe)
        pipe._explicit = False
        state.pipe = pipe
        builder.emit_prologue("framework").kind = FW.PIPE_INIT
        state.init_op = builder.prologue_ops[-1]
    return state.pipe


def finish_kernel(builder: IRBuilder) -> None:
    """Emit the TPipe destructor at the end of the kernel (waits the pending "buffer free"
    events and drains every pipe, as Ascend C's ~TPipe does)."""
    state = builder.state.get("fwk")
    if state is None or state.pipe is None:
        return
    loc = (state.init_op.loc.file, state.init_op.loc.line, state.init_op.loc.column)
    with builder.at_loc(loc):
        builder.emit_epilogue("framework").kind = FW.PIPE_DESTROY


# ---- argument checks --------------------------------------------------------------------------

def compile_time_int(value, name: str) -> int:
    """pyasc's check for compile-time arguments (positions, depths, sizes of declarations)."""
    value = ConstExpr.unwrap(value)
    if not isinstance(value, numbers.Integral):
        raise required_error(name, value)
    return int(value)


def position_arg(value, name: str) -> TPosition:
    value = compile_time_int(value, name)
    try:
        return TPosition(value)
    except ValueError:
        raise ValueError(f"'{name}' must be a TPosition, got {value}") from None


def event_arg(value, api: str) -> HardEvent:
    value = ConstExpr.unwrap(value)
    if not isinstance(value, numbers.Integral) or isinstance(value, bool):
        raise TypeError(f"{api}(): event must be a compile-time HardEvent, "
                        f"got {type(value).__name__}")
    return HardEvent(value)


def dtype_arg(value, api: str) -> DataType:
    value = ConstExpr.unwrap(value)
    if not isinstance(value, DataType):
        raise TypeError(f"{api}(): dtype must be a DataType, got {type(value).__name__}")
    return value


# ---- emission ---------------------------------------------------------------------------------

def emit_framework(api: str, kind: int, *, queue: int = 0, pool: int = 0, sub_pool: int = 0,
                   share_pool: int = 0, operands: Sequence[Tuple[object, DataType]] = (),
                   results: Sequence[DataType] = (), event: Optional[int] = None,
                   position: Optional[int] = None, prologue: bool = False):
    """Emit one FrameworkOp; operands are (value, dtype) pairs converted before the op, results
    (at most two: result, result2) come back as traced values."""
    builder = require_builder(api)
    ids = [to_value(v, dtype, api).id for v, dtype in operands]
    op = builder.emit_prologue("framework") if prologue else builder.emit("framework")
    op.kind = kind
    op.queue, op.pool, op.sub_pool, op.share_pool = queue, pool, sub_pool, share_pool
    op.operands.extend(ids)
    if event is not None:
        op.event = int(event)
    if position is not None:
        op.position = int(position)
    values = []
    for index, dtype in enumerate(results):
        value = PlainValue(builder.new_value(), dtype)
        if index == 0:
            op.result = value.id
        else:
            op.result2 = value.id
        values.append(value)
    return values


def declare_queue(builder: IRBuilder, kind: int, src: TPosition, dst: TPosition,
                  depth: int) -> kernel_pb2.QueueDecl:
    ensure_pipe(builder)
    decl = builder.kernel.queues.add()
    decl.id = len(builder.kernel.queues)
    decl.kind = kind
    decl.src_position = int(src)
    decl.dst_position = int(dst)
    decl.depth = depth
    decl.loc.file, decl.loc.line, decl.loc.column = builder.loc
    return decl


def declare_pool(builder: IRBuilder, pos: TPosition, buf_id_size: int) -> kernel_pb2.BufPoolDecl:
    ensure_pipe(builder)
    decl = builder.kernel.pools.add()
    decl.id = len(builder.kernel.pools)
    decl.position = int(pos)
    decl.buf_id_size = buf_id_size
    decl.loc.file, decl.loc.line, decl.loc.column = builder.loc
    return decl


class Declared:
    """Mixin of objects with a QueueDecl/BufPoolDecl: the first name they are assigned to in the
    kernel becomes the declaration's name (used in the simulator's messages)."""
    _decl = None

    def _ir_name(self, name: str) -> None:
        if self._decl is not None and not self._decl.name:
            self._decl.name = name

    @property
    def name(self) -> str:
        return self._decl.name if self._decl is not None else ""
