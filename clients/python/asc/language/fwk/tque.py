"""TQueBind / TQue (buffer rings with events between a producer and a consumer pipe) and TBuf (one
scratch buffer, no events), asc-api.md 5.2-5.3.

Each object is a QueueDecl of the kernel; every method is one FrameworkOp that the simulator runs
like Ascend C's library (ascendc-semantics.md 8.2). Tensors handed out are LocalTensors whose
address and buffer length are the op's results.
"""
from __future__ import annotations

import numbers
from typing import Optional

from asc._proto import kernel_pb2
from asc.codegen.builder import require_builder
from asc.language.core.constexpr import ConstExpr
from asc.language.core.dispatch import Overload, Param, dispatch, of_type
from asc.language.core.dtype import DataType, KnownTypes
from asc.language.core.enums import TPosition
from asc.language.core.ir_value import PlainValue, is_runtime_int
from asc.language.core.tensor import LocalTensor, memory_of
from asc.language.fwk.state import (FW, Declared, compile_time_int, declare_queue, dtype_arg,
                                    emit_framework, position_arg)

__all__ = ["TQueBind", "TQue", "TBuf"]

_ADDR = KnownTypes.uint32
_QD = kernel_pb2.QueueDecl


def buffer_position(src: TPosition, dst: TPosition) -> TPosition:
    """Where a queue's buffers live: its non-GM end (a GM->VECIN bind buffers in UB)."""
    return dst if src == TPosition.GM else src


def _buffer_address(tensor: LocalTensor, api: str):
    """The address identifying the buffer behind `tensor` (its start, also for views)."""
    if not isinstance(tensor, LocalTensor):
        raise TypeError(f"{api}(): expected a LocalTensor, got {type(tensor).__name__}")
    if tensor._addr is None:
        raise RuntimeError(f"{api}(): the tensor has no storage (it was never allocated)")
    if tensor._root is not None and tensor._root_unit == 1:
        return tensor._root[0]
    return tensor._addr


class TQueBind(Declared):
    """A queue of buffers written by the pipe of `src` and read by the pipe of `dst`.

    `asc.TQueBind(src, dst, depth=0, mask=0)` (asc-api.md 5.2): src and dst are TPositions,
    depth (a compile-time int) the tensors that may be enqueued at once, mask unused. Memory
    comes from pipe.init_buffer(que, num, len); alloc_tensor / enque / deque / free_tensor set
    and wait the events of the position pair, as Ascend C's TQueBind does
    (ascendc-semantics.md 8.2)."""

    def __init__(self, src: TPosition = TPosition.VECIN, dst: TPosition = TPosition.VECIN,
                 depth: int = 0, mask: int = 0) -> None:
        builder = require_builder("TQueBind")
        src, dst = position_arg(src, "src"), position_arg(dst, "dst")
        depth = compile_time_int(depth, "depth")
        compile_time_int(mask, "mask")
        self._declare(builder, src, dst, depth)

    def _declare(self, builder, src: TPosition, dst: TPosition, depth: int) -> None:
        if depth < 0:
            raise ValueError(f"queue depth must not be negative, got {depth}")
        memory_of(buffer_position(src, dst))  # the buffers need a physical memory
        self.src, self.dst, self.depth = src, dst, depth
        self._decl = declare_queue(builder, _QD.QUEUE, src, dst, depth)
        self.id = self._decl.id

    @property
    def position(self) -> TPosition:
        return buffer_position(self.src, self.dst)

    def _tensor(self, dtype: DataType, pos: TPosition, results) -> LocalTensor:
        addr, nbytes = results
        return LocalTensor._from_buffer(dtype, pos, addr, nbytes)

    @property
    def _alloc_pos(self) -> TPosition:
        return self.dst if self.src == TPosition.GM else self.src

    @property
    def _deque_pos(self) -> TPosition:
        return self.src if self.dst == TPosition.GM else self.dst

    # ---- buffers ------------------------------------------------------------------------------

    def alloc_tensor(self, *args, **kwargs):
        """`alloc_tensor(dtype) -> LocalTensor` or in place `alloc_tensor(tensor)`: the next free
        buffer (waiting for its previous consumer to release it)."""
        require_builder("alloc_tensor")

        def by_dtype(dtype):
            return self._tensor(dtype, self._alloc_pos, self._alloc_op())

        def in_place(tensor):
            tensor._check_mutable("alloc_tensor")
            tensor._bind(self._tensor(tensor.dtype, self._alloc_pos, self._alloc_op()),
                         "alloc_tensor")

        return dispatch("alloc_tensor", [
            Overload([Param("dtype", of_type(DataType))], by_dtype),
            Overload([Param("tensor", of_type(LocalTensor))], in_place),
        ], args, kwargs)

    def _alloc_op(self):
        return emit_framework("alloc_tensor", FW.ALLOC_TENSOR, queue=self.id,
                              results=(_ADDR, _ADDR))

    def enque(self, tensor, src_user_pos=None, dst_user_pos=None) -> None:
        """Push `tensor` and signal "data ready" from the producer pipe."""
        addr = _buffer_address(tensor, "enque")
        for name, pos in (("src_user_pos", src_user_pos), ("dst_user_pos", dst_user_pos)):
            if pos is not None:
                position_arg(pos, name)
        emit_framework("enque", FW.ENQUE, queue=self.id, operands=[(addr, _ADDR)])

    def deque(self, *args, **kwargs):
        """`deque(dtype) -> LocalTensor` (also with src/dst user positions) or in place
        `deque(tensor)`: the oldest enqueued tensor, after the consumer pipe waited for it."""
        require_builder("deque")

        def by_dtype(dtype, src_user_pos=None, dst_user_pos=None):
            for name, pos in (("src_user_pos", src_user_pos), ("dst_user_pos", dst_user_pos)):
                if pos is not None:
                    position_arg(pos, name)
            return self._tensor(dtype, self._deque_pos, self._deque_op())

        def in_place(tensor):
            tensor._check_mutable("deque")
            tensor._bind(self._tensor(tensor.dtype, self._deque_pos, self._deque_op()), "deque")

        def position(x):
            return x is None or isinstance(ConstExpr.unwrap(x), numbers.Integral)

        return dispatch("deque", [
            Overload([Param("dtype", of_type(DataType)),
                      Param("src_user_pos", position, None, "TPosition"),
                      Param("dst_user_pos", position, None, "TPosition")], by_dtype),
            Overload([Param("tensor", of_type(LocalTensor))], in_place),
        ], args, kwargs)

    def _deque_op(self):
        return emit_framework("deque", FW.DEQUE, queue=self.id, results=(_ADDR, _ADDR))

    def free_tensor(self, tensor) -> None:
        """Give the buffer back and signal "buffer free" from the consumer pipe."""
        addr = _buffer_address(tensor, "free_tensor")
        emit_framework("free_tensor", FW.FREE_TENSOR, queue=self.id, operands=[(addr, _ADDR)])

    # ---- state --------------------------------------------------------------------------------

    def vacant_in_que(self) -> PlainValue:
        return emit_framework("vacant_in_que", FW.VACANT_IN_QUE, queue=self.id,
                              results=(KnownTypes.int1,))[0]

    def has_tensor_in_que(self) -> PlainValue:
        return emit_framework("has_tensor_in_que", FW.HAS_TENSOR_IN_QUE, queue=self.id,
                              results=(KnownTypes.int1,))[0]

    def get_tensor_count_in_que(self) -> PlainValue:
        return emit_framework("get_tensor_count_in_que", FW.TENSOR_COUNT_IN_QUE, queue=self.id,
                              results=(KnownTypes.int32,))[0]

    def has_idle_buffer(self) -> PlainValue:
        return emit_framework("has_idle_buffer", FW.HAS_IDLE_BUFFER, queue=self.id,
                              results=(KnownTypes.int1,))[0]

    def free_all_event(self) -> None:
        emit_framework("free_all_event", FW.FREE_ALL_EVENT, queue=self.id)

    def __repr__(self):
        return (f"{type(self).__name__}({self.name or '?'}: {self.src.name}->{self.dst.name}, "
                f"depth={self.depth})")


class TQue(TQueBind):
    """A queue at one position: TQueBind(pos, pos, depth) (asc-api.md 5.2).

    `asc.TQue(pos, depth)`: the simulator derives the producer and consumer pipes from the
    position (VECIN: MTE2 -> V, VECOUT: V -> MTE3, A1/B1: MTE2 -> MTE1, ...); depth is a
    compile-time int."""

    def __init__(self, pos: TPosition = TPosition.VECIN, depth: Optional[int] = None) -> None:
        builder = require_builder("TQue")
        pos = position_arg(pos, "pos")
        depth = compile_time_int(depth, "depth")
        self._declare(builder, pos, pos, depth)


class TBuf(Declared):
    """`asc.TBuf(pos)`: one scratch buffer (no events); memory from `pipe.init_buffer(buf, n)`.

    pos is a TPosition (VECCALC by default); `buf.get(dtype, n)` gives a LocalTensor over it."""

    def __init__(self, pos: TPosition = TPosition.VECCALC) -> None:
        builder = require_builder("TBuf")
        pos = position_arg(pos, "pos")
        memory_of(pos)
        self.src = self.dst = pos
        self.depth = 0
        self._decl = declare_queue(builder, _QD.TBUF, pos, pos, 0)
        self.id = self._decl.id

    @property
    def position(self) -> TPosition:
        return self.src

    def _get_op(self, api):
        return emit_framework(api, FW.TBUF_GET, queue=self.id, results=(_ADDR, _ADDR))

    def get(self, dtype, len=None, shape=None) -> LocalTensor:  # noqa: A002 - API keyword
        """The whole buffer, or its first `len` elements, as a tensor of `dtype`. Every get views
        the same bytes from offset 0."""
        dtype = dtype_arg(dtype, "get")
        len = ConstExpr.unwrap(len)
        if len is None and shape is not None:
            len = 1
            for dim in (shape if isinstance(shape, (list, tuple)) else [shape]):
                len = len * ConstExpr.unwrap(dim)
        if len is not None and not is_runtime_int(len):
            raise TypeError(f"get(): len must be a runtime int, got {type(len).__name__}")
        addr, nbytes = self._get_op("get")
        return LocalTensor._from_buffer(dtype, self.src, addr, nbytes, size=len)

    def get_with_offset(self, size, buf_offset, dtype) -> LocalTensor:
        """`size` elements of `dtype` starting `buf_offset` bytes (a multiple of 32) into the
        buffer."""
        dtype = dtype_arg(dtype, "get_with_offset")
        buf_offset = ConstExpr.unwrap(buf_offset)
        if not isinstance(buf_offset, numbers.Integral) or buf_offset % 32 != 0:
            raise ValueError("buf_offset must be align to 32B.")
        size = ConstExpr.unwrap(size)
        if not is_runtime_int(size):
            raise TypeError(f"get_with_offset(): size must be a runtime int, "
                            f"got {type(size).__name__}")
        addr, nbytes = self._get_op("get_with_offset")
        whole = LocalTensor._from_buffer(KnownTypes.uint8, self.src, addr, nbytes)
        view = whole[int(buf_offset):].reinterpret_cast(dtype)
        view._size = size
        return view

    def alloc_tensor(self, dtype) -> LocalTensor:
        """The buffer as a tensor (a TBuf inherits TQueBind's interface)."""
        return self.get(dtype)

    def free_tensor(self, tensor) -> None:
        """Accepted for TQueBind compatibility; a TBuf has nothing to release."""
        _buffer_address(tensor, "free_tensor")

    def __repr__(self):
        return f"TBuf({self.name or '?'}: {self.src.name})"
