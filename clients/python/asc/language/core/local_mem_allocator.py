"""`asc.LocalMemAllocator` (asc-api.md 3.8): a bump allocator handing out static LocalTensors of
one on-chip memory, for kernels that carve UB by hand instead of using a TPipe."""
from __future__ import annotations

from asc.codegen.builder import require_builder
from asc.language.core.constexpr import ConstExpr
from asc.language.core.dtype import DataType, KnownTypes
from asc.language.core.enums import Hardware, TPosition
from asc.language.core.hints import RuntimeInt
from asc.language.core.ir_value import PlainValue, cast, const
from asc.language.core.tensor import LocalTensor

__all__ = ["LocalMemAllocator"]


class LocalMemAllocator:
    """Hands out LocalTensors from consecutive addresses of one on-chip memory (UB by default).

    `asc.LocalMemAllocator(hard=Hardware.UB)`; `alloc(pos, data_type, tile_size)` returns the
    next tensor and `get_cur_addr()` the cursor. The cursor lives at trace time: a Python int
    while sizes are compile-time (no scalar instructions), a traced uint32 once a traced
    `tile_size` was allocated."""

    def __init__(self, hard: Hardware = Hardware.UB) -> None:
        require_builder("LocalMemAllocator")
        self.hard = Hardware(ConstExpr.unwrap(hard))
        self._cur = 0

    def alloc(self, pos: TPosition, data_type: DataType, tile_size: RuntimeInt) -> LocalTensor:
        """`tile_size` elements of `data_type` at the current address; the cursor advances."""
        require_builder("LocalMemAllocator.alloc")
        tensor = LocalTensor(data_type, pos, self._cur, tile_size)
        size = ConstExpr.unwrap(tile_size)
        if isinstance(size, PlainValue):
            size = cast(size, KnownTypes.uint32)
        self._cur = self._cur + size * data_type.sizeof()
        return tensor

    def get_cur_addr(self) -> PlainValue:
        """The cursor: the byte address the next alloc starts at (uint32)."""
        require_builder("LocalMemAllocator.get_cur_addr")
        if isinstance(self._cur, PlainValue):
            return self._cur
        return const(self._cur, KnownTypes.uint32, "get_cur_addr")
