"""The kernel IR builder and the "current builder" that device APIs emit into while tracing.

The builder owns SSA numbering, the region stack (for/if bodies), the source-file table and a pool
of constants hoisted to the kernel entry (constants have no operands, so defining each once at the
top keeps loop bodies free of redundant scalar instructions). Two more fixed regions frame the body:
a prologue (after the constants: the TPipe's initialisation and buffers whose size is known at
entry, e.g. LocalTensorAuto) and an epilogue (the TPipe's destruction at the end of the kernel).
"""
from __future__ import annotations

import contextlib
from typing import Dict, List, Optional, Tuple

from asc._proto import kernel_pb2

_current: Optional["IRBuilder"] = None


def current_builder() -> Optional["IRBuilder"]:
    return _current


def require_builder(api_name: str) -> "IRBuilder":
    """The active builder; device APIs called outside a traced kernel fail like pyasc's."""
    if _current is None:
        raise RuntimeError(f"'{api_name}' cannot be called without initialization of global builder")
    return _current


@contextlib.contextmanager
def activate(builder: "IRBuilder"):
    global _current
    previous = _current
    _current = builder
    try:
        yield builder
    finally:
        _current = previous


class IRBuilder:
    def __init__(self, name: str):
        # The kernel type and sync options are the compile step's (asc/runtime/compiler.py).
        self.kernel = kernel_pb2.Kernel(version=kernel_pb2.IR_VERSION_1, name=name)
        self._num_values = 0
        self._const_region = kernel_pb2.Region()
        self._const_cache: Dict[Tuple[int, object], int] = {}
        self._prologue = kernel_pb2.Region()
        self._prologue_cse: Dict[tuple, int] = {}
        self._epilogue = kernel_pb2.Region()
        self._regions: List[kernel_pb2.Region] = [self.kernel.body]
        # Common-subexpression tables of pure scalar ops, one per open region: a value defined in
        # an enclosing open region dominates everything emitted later inside it.
        self._cse: List[Dict[tuple, int]] = [{}]
        self._files: Dict[str, int] = {}
        self.aipp_config = None  # the last set_aipp_functions (asc/language/basic/aipp.py)
        self.loc: Tuple[int, int, int] = (0, 0, 0)
        # Free-form per-kernel state for language objects (e.g. the TPipe of a later issue).
        self.state: Dict[str, object] = {}

    # ---- SSA ids and locations ----------------------------------------------------------------

    def new_value(self) -> int:
        self._num_values += 1
        return self._num_values

    def file_index(self, filename: str) -> int:
        index = self._files.get(filename)
        if index is None:
            index = len(self.kernel.files)
            self.kernel.files.append(filename)
            self._files[filename] = index
        return index

    def set_loc(self, filename: str, line: int, column: int = 0) -> None:
        self.loc = (self.file_index(filename), line, column)

    # ---- emission -----------------------------------------------------------------------------

    def _new_op(self, region: kernel_pb2.Region) -> kernel_pb2.Op:
        op = region.ops.add()
        op.loc.file, op.loc.line, op.loc.column = self.loc
        return op

    def emit(self, kind: str):
        """Appends an op of oneof field `kind` to the current region and returns that field."""
        op = self._new_op(self._regions[-1])
        sub = getattr(op, kind)
        sub.SetInParent()
        return sub

    def emit_prologue(self, kind: str):
        """Like emit(), into the prologue (runs once, before the body)."""
        op = self._new_op(self._prologue)
        sub = getattr(op, kind)
        sub.SetInParent()
        return sub

    def emit_epilogue(self, kind: str):
        """Like emit(), into the epilogue (runs once, after the body)."""
        op = self._new_op(self._epilogue)
        sub = getattr(op, kind)
        sub.SetInParent()
        return sub

    @contextlib.contextmanager
    def in_prologue(self):
        """Emit scalar ops into the prologue for the duration of the block (values computed there
        dominate the whole body). The prologue has its own CSE table: values of the body are not
        defined yet when it runs."""
        saved = self._regions, self._cse
        self._regions, self._cse = [self._prologue], [self._prologue_cse]
        try:
            yield
        finally:
            self._regions, self._cse = saved

    def is_entry_value(self, value_id: int) -> bool:
        """True if the SSA value exists before the body runs: a parameter, a constant, or a value
        computed in the prologue."""
        if any(p.value == value_id for p in self.kernel.params):
            return True
        if value_id in self._const_cache.values():
            return True
        return any(_defines(op, value_id) for op in self._prologue.ops)

    @contextlib.contextmanager
    def at_loc(self, loc: Tuple[int, int, int]):
        saved = self.loc
        self.loc = loc
        try:
            yield
        finally:
            self.loc = saved

    def const_id(self, value, ir_dtype: int, is_float: bool) -> int:
        key = (ir_dtype, float(value) if is_float else int(value))
        if is_float and value != value:  # NaN never equals itself; do not cache
            key = None
        if key is not None and key in self._const_cache:
            return self._const_cache[key]
        op = self._new_op(self._const_region)
        result = self.new_value()
        op.constant.result = result
        op.constant.dtype = ir_dtype
        if is_float:
            op.constant.float_value = float(value)
        else:
            # int_value is an int64: uint64 constants >= 2**63 travel as their two's complement.
            value = int(value)
            op.constant.int_value = value - (1 << 64) if value >= 1 << 63 else value
        if key is not None:
            self._const_cache[key] = result
        return result

    @contextlib.contextmanager
    def region(self, region: kernel_pb2.Region):
        """Emit into `region` (a for/if body) for the duration of the block."""
        self._regions.append(region)
        self._cse.append({})
        try:
            yield region
        finally:
            self._regions.pop()
            self._cse.pop()

    def cse_lookup(self, key: tuple) -> Optional[int]:
        for table in reversed(self._cse):
            if key in table:
                return table[key]
        return None

    def cse_insert(self, key: tuple, value_id: int) -> None:
        self._cse[-1][key] = value_id

    @property
    def prologue_ops(self):
        return self._prologue.ops

    @property
    def depth(self) -> int:
        """How many regions are open (1 = kernel body)."""
        return len(self._regions)

    @property
    def current_region(self) -> kernel_pb2.Region:
        return self._regions[-1]

    def finish(self) -> kernel_pb2.Kernel:
        kernel = kernel_pb2.Kernel()
        kernel.CopyFrom(self.kernel)
        kernel.body.Clear()
        kernel.body.ops.extend(self._const_region.ops)
        kernel.body.ops.extend(self._prologue.ops)
        kernel.body.ops.extend(self.kernel.body.ops)
        kernel.body.ops.extend(self._epilogue.ops)
        kernel.num_values = self._num_values
        return kernel


def _defines(op: kernel_pb2.Op, value_id: int) -> bool:
    kind = op.WhichOneof("kind")
    if kind is None:
        return False
    msg = getattr(op, kind)
    return getattr(msg, "result", 0) == value_id or getattr(msg, "result2", 0) == value_id
