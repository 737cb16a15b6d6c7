"""`asc.LocalTensorAuto(dtype, shape)` (asc-api.md 3.6): a UB tensor whose storage the compiler
provides. Each call site becomes a TBuf of the kernel's TPipe (created implicitly if needed), so
the simulator allocates it like any other buffer; a kernel with auto tensors gets automatic sync
(jit option insert_sync, default: on iff the kernel creates one).

The buffer is initialised once, in the kernel prologue, when its size is known at entry
(compile-time dims, or dims that are kernel arguments): a call site inside a loop then reuses one
buffer instead of growing the allocator every iteration.
"""
from __future__ import annotations

import numbers
from typing import Sequence, Union

from asc.codegen.builder import require_builder
from asc.language.core.constexpr import ConstExpr
from asc.language.core.dtype import DataType, KnownTypes
from asc.language.core.enums import TPosition
from asc.language.core.hints import RuntimeInt
from asc.language.core.ir_value import PlainValue, cast, is_runtime_int
from asc.language.core.tensor import LocalTensor

__all__ = ["LocalTensorAuto"]


def _dims(shape):
    shape = ConstExpr.unwrap(shape)
    dims = list(shape) if isinstance(shape, (list, tuple)) or hasattr(shape, "_values") \
        else [shape]
    dims = [ConstExpr.unwrap(d) for d in dims]
    if not dims:
        raise ValueError("LocalTensorAuto(): shape must have at least one dimension")
    for d in dims:
        if not is_runtime_int(d) or (isinstance(d, PlainValue) and d.dtype.is_float()):
            raise TypeError("LocalTensorAuto(): shape must be a runtime int or a sequence of "
                            f"runtime ints, got {d!r}")
    return dims


def _product(dims):
    count = 1
    for d in dims:
        if isinstance(d, PlainValue):
            d = cast(d, KnownTypes.int32)
        count = d * count if isinstance(d, PlainValue) else count * d
    return count


def LocalTensorAuto(dtype: DataType,  # noqa: N802 - the name is API
                    shape: Union[RuntimeInt, Sequence[RuntimeInt]]) -> LocalTensor:
    """A LocalTensor of `dtype` and `shape` in its own VECCALC buffer, allocated by the framework.

    `asc.LocalTensorAuto(dtype, shape)` (asc-api.md 3.6): dtype a numeric DataType, shape a
    runtime int or a sequence of them (the element count is their product). Each call site
    becomes a TBuf of the kernel's TPipe (created implicitly if needed), initialised once in the
    kernel prologue when the size is known at entry; inside a runtime loop or `if` the shape
    must be. A kernel that creates one gets automatic sync (jit option insert_sync)."""
    from asc.language.fwk.state import FW, emit_framework, fwk_state
    from asc.language.fwk.tque import TBuf
    builder = require_builder("LocalTensorAuto")
    dtype = ConstExpr.unwrap(dtype)
    if not isinstance(dtype, DataType) or not dtype.is_numeric():
        raise TypeError(f"LocalTensorAuto(): dtype must be a numeric DataType, got {dtype!r}")
    dims = _dims(shape)
    traced = [d for d in dims if isinstance(d, PlainValue)]
    at_entry = all(builder.is_entry_value(d.id) for d in traced)
    if not at_entry and builder.depth > 1:
        raise RuntimeError("LocalTensorAuto(): inside a runtime loop or if, the shape must be "
                           "known at kernel entry (compile-time values or kernel arguments); "
                           "compute the tensor outside the region or pass the size as an "
                           "argument")
    fwk_state(builder).auto_tensors += 1
    buf = TBuf(TPosition.VECCALC)

    def allocate():
        count = _product(dims)
        nbytes = count * dtype.sizeof()
        emit_framework("LocalTensorAuto", FW.INIT_BUFFER, queue=buf.id,
                       operands=[(1, KnownTypes.int32), (nbytes, KnownTypes.int32)])
        addr, length = emit_framework("LocalTensorAuto", FW.TBUF_GET, queue=buf.id,
                                      results=(KnownTypes.uint32, KnownTypes.uint32))
        return count, addr, length

    if at_entry:
        with builder.in_prologue():
            count, addr, length = allocate()
    else:
        count, addr, length = allocate()
    if isinstance(count, numbers.Integral) and count <= 0:
        raise ValueError(f"LocalTensorAuto(): the shape has {count} elements")
    tensor = LocalTensor._from_buffer(dtype, TPosition.VECCALC, addr, length, size=count)
    tensor._auto_decl = buf._decl
    return tensor
