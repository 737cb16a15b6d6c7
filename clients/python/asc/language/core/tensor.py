"""Tensors as the hardware sees them: (memory, byte address, dtype, element count).

GlobalAddress is a typed GM pointer (a kernel parameter), GlobalTensor a bound view of GM,
LocalTensor a view of on-chip memory at a byte address. Addresses stay Python ints while they are
compile-time constants and become traced scalars (uint64 for GM, uint32 on chip) otherwise, so
static UB layouts cost no scalar instructions.

Each class also implements the small "carry" protocol (_ir_fields / _ir_rebuild / _ir_static)
that lets the compiler pass it through runtime loops and ifs when a name is re-assigned there.
"""
from __future__ import annotations

import numbers
from typing import Optional

from asc import _isa
from asc._proto import kernel_pb2
from asc.codegen.builder import current_builder, require_builder
from asc.language.core import scalar_access
from asc.language.core.array import ShapeInfo
from asc.language.core.constexpr import ConstExpr, required_error
from asc.language.core.dtype import DataType, KnownTypes
from asc.language.core.enums import CacheMode, CacheRwMode, TPosition
from asc.language.core.hints import RuntimeInt, RuntimeNumber
from asc.language.core.ir_value import PlainValue, cast, is_runtime_int, to_value

__all__ = ["GlobalAddress", "GlobalTensor", "LocalTensor"]

_GM_ADDR = KnownTypes.uint64
_LOCAL_ADDR = KnownTypes.uint32
_COUNT = KnownTypes.int32
_PHY_ADDR = KnownTypes.uint64

# TPosition -> its physical memory, from the simulator's position table (asc/_isa.py).
_SPACE_OF_POSITION = {TPosition(pos): memory for pos, (_, memory, _, _) in _isa.POSITIONS.items()
                      if memory != kernel_pb2.MEM_INVALID}


# Why a position has no memory of its own (the simulator's position table gives it none).
_NO_MEMORY = {
    TPosition.CO2: "on A2 the fixpipe writes L0C (CO1) straight to GM or L1: there is no CO2 "
                   "buffer to place a tensor, queue or TBuf in",
}


def memory_of(pos: TPosition) -> int:
    try:
        return _SPACE_OF_POSITION[TPosition(pos)]
    except (KeyError, ValueError):
        reason = _NO_MEMORY.get(pos)
        name = pos.name if isinstance(pos, TPosition) else pos
        raise ValueError(f"position {name} has no physical memory"
                         + (f" ({reason})" if reason else "")) from None


# Memories by the names Ascend C's documentation gives them (messages use these, not MEM_*).
_MEMORY_NAMES = {kernel_pb2.MEM_GM: "GM", kernel_pb2.MEM_UB: "UB", kernel_pb2.MEM_L1: "L1",
                 kernel_pb2.MEM_L0A: "L0A", kernel_pb2.MEM_L0B: "L0B", kernel_pb2.MEM_L0C: "L0C",
                 kernel_pb2.MEM_BT: "BT", kernel_pb2.MEM_FB: "FB"}


def memory_name(space: int) -> str:
    return _MEMORY_NAMES.get(space, "an invalid memory")


def place_name(tensor) -> str:
    """Where a tensor lives in the user's terms: 'GM', or its TPosition and memory ('A1 (L1)')."""
    pos = getattr(tensor, "pos", None)
    if isinstance(tensor, GlobalTensor) or not isinstance(pos, TPosition):
        return "GM"
    memory = memory_name(_SPACE_OF_POSITION.get(pos, kernel_pb2.MEM_INVALID))
    return pos.name if pos.name == memory else f"{pos.name} ({memory})"


def offset_address(base, offset, elem_size: int, addr_dtype: DataType, api: str):
    """`base + offset * elem_size` in `addr_dtype`, folded while everything is a Python int."""
    offset = ConstExpr.unwrap(offset)
    if not is_runtime_int(offset):
        raise TypeError(f"{api}: offset must be an int or a traced integer, "
                        f"got {type(offset).__name__}")
    if isinstance(offset, numbers.Integral):
        if offset == 0:
            return base
        if not isinstance(base, PlainValue):
            return addr_dtype.wrap(base + int(offset) * elem_size)
        return base + addr_dtype.wrap(int(offset) * elem_size)
    if offset.dtype.is_float():
        raise TypeError(f"{api}: offset must be an integer, got {offset.dtype.name}")
    scaled = cast(offset, addr_dtype)
    if elem_size != 1:
        scaled = scaled * elem_size
    if isinstance(base, numbers.Integral) and base == 0:
        return scaled
    return scaled + base


def _ref_id(x, dtype) -> int:
    """A TensorRef field (address or count): a traced integer as it is, a Python int as a
    constant of `dtype`. No conversion op: the decoder takes any integer type, and a conversion
    emitted here would follow the op that reads the ref."""
    if isinstance(x, PlainValue) and x.dtype.is_int():
        return x.id
    return to_value(x, dtype).id


def _count_id(count) -> int:
    return 0 if count is None else _ref_id(count, _COUNT)


def tensor_ref(t) -> kernel_pb2.TensorRef:
    """The TensorRef of `t`. It emits no op, so it may be filled in after its consumer is."""
    ref = kernel_pb2.TensorRef()
    t._fill_ref(ref)
    return ref


def _view_index(index, api: str):
    """The element offset of `t[i]` / `t[i:]`; stop and step are rejected like pyasc."""
    if isinstance(index, slice):
        if index.stop is not None or index.step is not None:
            raise RuntimeError(f"{api}: only 't[offset:]' slices are supported (no stop or step)")
        return 0 if index.start is None else index.start
    return index


class _ShapeInfoHolder:
    """`set_shape_info` / `get_shape_info` of both tensors: a compile-time `ShapeInfo` the tensor
    (and its views) carries for the APIs that read it."""

    def set_shape_info(self, shape_info: ShapeInfo) -> None:
        """Attaches a compile-time ShapeInfo to the tensor (and the views made after)."""
        self._shape_info = shape_info

    def get_shape_info(self) -> ShapeInfo:
        """The ShapeInfo set_shape_info gave; without one, Ascend C's default ShapeInfo, whose
        fields read 0 with an UNINITIALIZED_READ warning at run time."""
        if self._shape_info is None:
            from asc.language.core.array import UnsetShapeInfo
            return UnsetShapeInfo()
        return self._shape_info


class GlobalAddress:
    """A typed GM pointer; `x + n` advances by n elements, `x.dtype` is the element type.

    The type of a kernel parameter fed by an array (asc-api.md 1.5): addr is the GM byte
    address (a traced uint64, or a Python int), dtype the element type (None: untyped, which
    cannot be offset). set_global_buffer takes it."""

    def __init__(self, addr: RuntimeInt, dtype: Optional[DataType]) -> None:
        self._addr = addr  # PlainValue(uint64) or Python int
        self.dtype = dtype

    def __add__(self, offset):
        if self.dtype is None:
            raise ValueError("cannot offset a GlobalAddress without dtype")
        return GlobalAddress(
            offset_address(self._addr, offset, self.dtype.sizeof(), _GM_ADDR, "GlobalAddress +"),
            self.dtype)

    def __repr__(self):
        return f"GlobalAddress({self._addr!r}, {self.dtype})"

    # carry protocol
    def _ir_fields(self):
        return [(self._addr, _GM_ADDR)]

    def _ir_static(self):
        return (GlobalAddress, self.dtype)

    def _ir_rebuild(self, values):
        return GlobalAddress(values[0], self.dtype)


class GlobalTensor(_ShapeInfoHolder):
    """A view of GM; unbound until `set_global_buffer`."""

    def __init__(self):
        self._depth = require_builder("GlobalTensor").depth
        self._addr = None
        self._size = None
        self._cache_mode = CacheMode.CACHE_MODE_NORMAL
        self._shape_info = None
        self.dtype: Optional[DataType] = None

    @classmethod
    def _make(cls, addr, dtype, size, cache_mode=None):
        t = cls.__new__(cls)
        t._addr, t.dtype, t._size = addr, dtype, size
        t._cache_mode = CacheMode.CACHE_MODE_NORMAL if cache_mode is None else cache_mode
        t._shape_info = None
        t._depth = require_builder("GlobalTensor").depth
        return t

    def set_global_buffer(self, buffer: GlobalAddress,
                          buffer_size: Optional[RuntimeInt] = None) -> None:
        builder = require_builder("set_global_buffer")
        if builder.depth > self._depth:
            # Binding in place inside a runtime loop/if would leak values of that region.
            raise RuntimeError("set_global_buffer() on a GlobalTensor created outside this "
                               "runtime loop/if is not supported; create the GlobalTensor inside "
                               "it, or re-assign a view (g = g[offset:])")
        if not isinstance(buffer, GlobalAddress):
            raise TypeError("set_global_buffer() expects a GlobalAddress, got "
                            f"{type(buffer).__name__}")
        if buffer.dtype is None:
            raise ValueError("GlobalAddress passed to set_global_buffer() has no dtype")
        buffer_size = ConstExpr.unwrap(buffer_size)
        if buffer_size is not None and not is_runtime_int(buffer_size):
            raise TypeError("buffer_size must be an int or a traced integer")
        self._addr = buffer._addr
        self.dtype = buffer.dtype
        self._size = buffer_size if buffer_size else None

    def _check_bound(self, api):
        if self.dtype is None:
            raise RuntimeError(f"{api}: GlobalTensor is not bound; call set_global_buffer() first")

    def __getitem__(self, index):
        self._check_bound("GlobalTensor[]")
        offset = ConstExpr.unwrap(_view_index(index, "GlobalTensor[]"))
        addr = offset_address(self._addr, offset, self.dtype.sizeof(), _GM_ADDR, "GlobalTensor[]")
        size = None
        if isinstance(self._size, numbers.Integral) and isinstance(offset, numbers.Integral):
            size = self._size - offset
        view = GlobalTensor._make(addr, self.dtype, size, self._cache_mode)
        view._shape_info = self._shape_info
        return view

    def set_l2_cache_hint(self, mode: CacheMode = CacheMode.CACHE_MODE_NORMAL,
                          rw_mode: CacheRwMode = CacheRwMode.RW) -> None:
        """How this tensor's GM traffic uses L2 (CACHE_MODE_DISABLE bypasses it). A compile-time
        property of the tensor and its views; it changes timing only, never values."""
        builder = require_builder("set_l2_cache_hint")
        if builder.depth > self._depth:
            raise RuntimeError("set_l2_cache_hint() on a GlobalTensor created outside this runtime "
                               "loop/if is not supported; call it where the tensor is created")
        mode, rw_mode = ConstExpr.unwrap(mode), ConstExpr.unwrap(rw_mode)
        if not isinstance(mode, numbers.Integral) or int(mode) not in set(CacheMode):
            raise TypeError(f"set_l2_cache_hint(): mode must be a compile-time asc.CacheMode, got "
                            f"{mode!r}")
        if not isinstance(rw_mode, numbers.Integral) or int(rw_mode) not in set(CacheRwMode):
            raise TypeError(f"set_l2_cache_hint(): rw_mode must be a compile-time "
                            f"asc.CacheRwMode, got {rw_mode!r}")
        self._cache_mode = CacheMode(int(mode))

    def get_phy_addr(self, offset: RuntimeInt = 0) -> GlobalAddress:
        """The GM address of element `offset`, as a GlobalAddress of the tensor's dtype."""
        self._check_bound("get_phy_addr")
        return GlobalAddress(self._addr, self.dtype) + offset

    def __call__(self, offset: RuntimeInt) -> PlainValue:
        """`g(offset)`: Ascend C's operator(), a reference to element `offset`; read as a value,
        it is get_value(offset) (a PIPE_S read of GM with its sync needs)."""
        return self.get_value(offset)

    def get_value(self, offset: RuntimeInt) -> PlainValue:
        """Element `offset`, read by the scalar unit (a PIPE_S access of GM)."""
        self._check_bound("get_value")
        return scalar_access.load(self, offset, "GlobalTensor.get_value")

    def set_value(self, offset: RuntimeInt, value: RuntimeNumber) -> None:
        """Element `offset` = `value` converted to the tensor dtype (a PIPE_S write of GM)."""
        self._check_bound("set_value")
        scalar_access.store(self, offset, value, "GlobalTensor.set_value")

    def get_size(self) -> RuntimeInt:
        """The element count given to `set_global_buffer` (uint64; 0 when none was)."""
        self._check_bound("get_size")
        if self._size is None:
            return 0
        if isinstance(self._size, numbers.Integral):
            return int(self._size)
        return cast(self._size, _GM_ADDR)


    def _fill_ref(self, ref: kernel_pb2.TensorRef) -> None:
        self._check_bound("GlobalTensor")
        ref.space = kernel_pb2.MEM_GM
        ref.position = kernel_pb2.POS_GM
        ref.addr = _ref_id(self._addr, _GM_ADDR)
        ref.dtype = self.dtype.to_ir()
        ref.count = _count_id(self._size)
        ref.cache_mode = int(self._cache_mode)

    position = TPosition.GM

    def __repr__(self):
        return f"GlobalTensor({self._addr!r}, {self.dtype})"

    # carry protocol
    def _ir_fields(self):
        fields = [(self._addr, _GM_ADDR)]
        if self._size is not None:
            fields.append((self._size, _size_dtype(self._size)))
        return fields

    def _ir_static(self):
        return (GlobalTensor, self.dtype, self._size is None,
                _size_dtype(self._size) if self._size is not None else None)

    def _ir_rebuild(self, values):
        t = GlobalTensor._make(values[0], self.dtype, values[1] if len(values) > 1 else None,
                               self._cache_mode)
        t._shape_info = self._shape_info
        return t


def _size_dtype(size) -> DataType:
    return size.dtype if isinstance(size, PlainValue) else _COUNT


class LocalTensor(_ShapeInfoHolder):
    """A typed view of on-chip memory at a byte address of the physical buffer of `pos`.

    `LocalTensor(dtype)` is an empty handle for the in-place framework APIs (alloc_tensor(t),
    deque(t)); `LocalTensor(dtype, pos, addr, tile_size)` a static tensor of tile_size elements
    at byte address addr of the memory of position pos (a compile-time TPosition), both
    converted to uint32 as pyasc does. Tensors also come from TQue.alloc_tensor, TBuf.get,
    LocalMemAllocator and LocalTensorAuto; `t[i:]` is a view from element i.

    Besides (position, address, dtype, element count) a tensor remembers the buffer it views
    (`_root`: the buffer's start address and its length in units of `_root_unit` bytes), so
    `get_length()` of a view is "what remains of the buffer", as in Ascend C. Nothing about the
    root costs an instruction unless `get_length()`/`get_size()` is called on a traced view.
    """

    def __init__(self, dtype: DataType, pos: Optional[TPosition] = None,
                 addr: Optional[RuntimeInt] = None, tile_size: Optional[RuntimeInt] = None) -> None:
        builder = require_builder("LocalTensor")
        if not isinstance(dtype, DataType):
            raise TypeError(f"LocalTensor dtype must be a DataType, got {type(dtype).__name__}")
        self._init_fields(dtype, TPosition.VECCALC, None, None, None)
        self._depth = builder.depth
        if pos is None and addr is None and tile_size is None:
            # `LocalTensor(dtype)`: an empty handle for the in-place framework APIs.
            return
        if pos is None or addr is None or tile_size is None:
            raise RuntimeError("No viable candidates were found to dispatch LocalTensor() "
                               "with the given arguments; candidates: LocalTensor(dtype), "
                               "LocalTensor(dtype, pos, addr, tile_size)")
        pos = ConstExpr.unwrap(pos)
        if not isinstance(pos, numbers.Integral):
            raise required_error("pos", pos)
        memory_of(pos)
        self.pos = TPosition(pos)
        self._addr = _to_uint32(addr, "addr")
        # The element count only feeds diagnostics: convert it when a ref is emitted.
        _to_uint32(tile_size, "tile_size", emit=False)
        self._size = ConstExpr.unwrap(tile_size)
        self._root = (self._addr, self._size)
        self._root_unit = dtype.sizeof()
        self._static_decl = _declare_static(builder, dtype, self.pos, ConstExpr.unwrap(addr),
                                            self._size)

    def _init_fields(self, dtype, pos, addr, size, root, root_unit=1):
        self.dtype, self.pos, self._addr, self._size = dtype, pos, addr, size
        self._root, self._root_unit = root, root_unit
        self._tag = 0
        self._shape_info = None
        self._auto_decl = None  # QueueDecl of a LocalTensorAuto (named after its variable)
        self._static_decl = None  # StaticTensorDecl of LocalTensor(dtype, pos, addr, tile_size)

    def _ir_name(self, name: str) -> None:
        for decl in (self._auto_decl, self._static_decl):
            if decl is not None and not decl.name:
                decl.name = name

    @classmethod
    def _make(cls, dtype, pos, addr, size, root=None, root_unit=1):
        t = cls.__new__(cls)
        t._init_fields(dtype, pos, addr, size, root, root_unit)
        builder = current_builder()
        t._depth = builder.depth if builder is not None else 1
        return t

    @classmethod
    def _from_buffer(cls, dtype, pos, addr, nbytes, size=None):
        """A tensor over a framework buffer at `addr` of `nbytes` bytes (op results)."""
        return cls._make(dtype, pos, addr, size, root=(addr, nbytes), root_unit=1)

    def _bind(self, other: "LocalTensor", api: str) -> None:
        """In-place forms (`alloc_tensor(t)`, `deque(t)`, `set_addr_with_offset`): this object
        becomes `other`. Values defined inside a runtime loop/if must not leak out of it."""
        self._check_mutable(api)
        self.pos, self._addr, self._size = other.pos, other._addr, other._size
        self._root, self._root_unit = other._root, other._root_unit

    def _check_mutable(self, api: str) -> None:
        builder = require_builder(api)
        if builder.depth > self._depth:
            raise RuntimeError(f"{api} on a LocalTensor created outside this runtime loop/if is "
                               "not supported; create the tensor inside it")

    def _check_storage(self, api: str) -> None:
        if self._addr is None:
            raise RuntimeError(f"{api}: the tensor has no storage yet")

    def __getitem__(self, index):
        self._check_storage("LocalTensor[]")
        offset = ConstExpr.unwrap(_view_index(index, "LocalTensor[]"))
        addr = offset_address(self._addr, offset, self.dtype.sizeof(), _LOCAL_ADDR,
                              "LocalTensor[]")
        size = None
        if isinstance(self._size, numbers.Integral) and isinstance(offset, numbers.Integral):
            size = max(self._size - offset, 0)
        view = LocalTensor._make(self.dtype, self.pos, addr, size, self._root, self._root_unit)
        view._shape_info = self._shape_info
        return view

    # ---- bookkeeping accessors (asc-api.md 3.5) ------------------------------------------------

    def get_position(self) -> TPosition:
        """The tensor's TPosition."""
        return self.pos

    @property
    def position(self) -> TPosition:
        """The tensor's TPosition."""
        return self.pos

    def get_length(self) -> RuntimeInt:
        """Bytes from this view's address to the end of its buffer (uint32)."""
        self._check_storage("get_length")
        if self._root is None:
            if self._size is None:
                raise RuntimeError("get_length(): the buffer length of this tensor is unknown")
            return _scaled(self._size, self.dtype.sizeof())
        root_addr, root_len = self._root
        total = _scaled(root_len, self._root_unit)
        if isinstance(root_addr, PlainValue) and root_addr is self._addr:
            return total
        consumed = _sub(self._addr, root_addr)
        return _sub(total, consumed)

    def get_size(self) -> RuntimeInt:
        """Element count (int32): the size set by the tensor's creator or `set_size`, else the
        buffer length divided by the element size."""
        self._check_storage("get_size")
        if self._size is not None:
            return self._size
        length = self.get_length()
        if isinstance(length, numbers.Integral):
            return length // self.dtype.sizeof()
        return cast(length // self.dtype.sizeof(), _COUNT)

    def set_size(self, size: RuntimeInt = 0) -> None:
        """Sets the element count of this tensor (its buffer's length becomes size elements)."""
        size = ConstExpr.unwrap(size)
        if not is_runtime_int(size):
            raise TypeError(f"set_size(): size must be a runtime int, got {type(size).__name__}")
        self._check_mutable("set_size")
        self._check_storage("set_size")
        self._size = size
        self._root, self._root_unit = (self._addr, size), self.dtype.sizeof()

    def set_buffer_len(self, data_len: RuntimeInt) -> None:
        """Sets the length of the tensor's buffer, in bytes (the element count is derived)."""
        data_len = ConstExpr.unwrap(data_len)
        if not is_runtime_int(data_len):
            raise TypeError("set_buffer_len(): data_len must be a runtime int, "
                            f"got {type(data_len).__name__}")
        self._check_mutable("set_buffer_len")
        self._check_storage("set_buffer_len")
        self._size = None
        self._root, self._root_unit = (self._addr, data_len), 1

    def set_user_tag(self, tag: RuntimeInt = 0) -> None:
        """Attaches a user tag (a runtime int) to the tensor, read by get_user_tag."""
        tag = ConstExpr.unwrap(tag)
        if not is_runtime_int(tag):
            raise TypeError(f"set_user_tag(): tag must be a runtime int, got {type(tag).__name__}")
        self._check_mutable("set_user_tag")
        self._tag = tag

    def get_user_tag(self) -> RuntimeInt:
        """The tag set_user_tag gave (0 by default)."""
        return self._tag

    def reinterpret_cast(self, dtype: DataType) -> LocalTensor:
        """The same bytes seen as `dtype`."""
        if not isinstance(dtype, DataType) or not dtype.is_numeric():
            raise TypeError(f"reinterpret_cast(): dtype must be a numeric DataType, got {dtype!r}")
        if dtype == self.dtype:
            return self
        self._check_storage("reinterpret_cast")
        size = None
        if isinstance(self._size, numbers.Integral):
            size = self._size * self.dtype.sizeof() // dtype.sizeof()
        view = LocalTensor._make(dtype, self.pos, self._addr, size, self._root, self._root_unit)
        if self._root is None and self._size is not None:
            view._root, view._root_unit = (self._addr, self._size), self.dtype.sizeof()
        return view

    def set_addr_with_offset(self, src: LocalTensor, offset: RuntimeInt) -> None:
        """This tensor becomes a view of `src` starting `offset` elements of `src` later."""
        if not isinstance(src, LocalTensor):
            raise TypeError("set_addr_with_offset(): src must be a LocalTensor, got "
                            f"{type(src).__name__}")
        view = src[offset:]
        if view.dtype != self.dtype:
            view = view.reinterpret_cast(self.dtype)
        self._bind(view, "set_addr_with_offset")

    def get_phy_addr(self, offset: RuntimeInt = 0) -> PlainValue:
        """On-chip byte address of element `offset` (uint64)."""
        self._check_storage("get_phy_addr")
        addr = offset_address(self._addr, offset, self.dtype.sizeof(), _LOCAL_ADDR,
                              "get_phy_addr")
        if isinstance(addr, PlainValue):
            return cast(addr, _PHY_ADDR)
        return to_value(addr, _PHY_ADDR)


    # ---- element access (scalar unit) ---------------------------------------------------------

    def __call__(self, index: RuntimeInt) -> PlainValue:
        """`t(index)`: Ascend C's operator(), a reference to element `index`; read as a value, it
        is get_value(index) (a PIPE_S read of UB with its sync needs)."""
        return self.get_value(index)

    def get_value(self, index: RuntimeInt) -> PlainValue:
        """Element `index`, read by the scalar unit (PIPE_S): needs V_S / MTE2_S after the pipe
        that wrote it (auto_sync inserts them)."""
        self._check_storage("get_value")
        return scalar_access.load(self, index, "LocalTensor.get_value")

    def set_value(self, index: RuntimeInt, value: RuntimeNumber) -> None:
        """Element `index` = `value` converted to the tensor dtype, written by the scalar unit."""
        self._check_storage("set_value")
        scalar_access.store(self, index, value, "LocalTensor.set_value")

    # ---- IR -----------------------------------------------------------------------------------

    def _fill_ref(self, ref: kernel_pb2.TensorRef) -> None:
        if self._addr is None:
            raise RuntimeError("LocalTensor has no storage yet")
        ref.space = memory_of(self.pos)
        ref.position = int(self.pos)
        ref.addr = _ref_id(self._addr, _LOCAL_ADDR)
        ref.dtype = self.dtype.to_ir()
        ref.count = 0 if self._size is None else _ref_id(self._size, _LOCAL_ADDR)

    def __repr__(self):
        return f"LocalTensor({self.pos.name}, {self._addr!r}, {self.dtype})"

    # carry protocol
    def _ir_fields(self):
        if self._addr is None:
            return []
        fields = [(self._addr, _LOCAL_ADDR)]
        if self._size is not None:
            fields.append((self._size, _size_dtype(self._size)))
        if self._root is not None:
            fields.append((self._root[0], _LOCAL_ADDR))
            fields.append((self._root[1], _LOCAL_ADDR))
        return fields

    def _ir_static(self):
        return (LocalTensor, self.dtype, self.pos, self._addr is None, self._size is None,
                _size_dtype(self._size) if self._size is not None else None,
                self._root is None, self._root_unit)

    def _ir_rebuild(self, values):
        values = list(values)
        if self._addr is None:
            t = LocalTensor._make(self.dtype, self.pos, None, None)
            t._tag, t._shape_info = self._tag, self._shape_info
            return t
        addr = values.pop(0)
        size = values.pop(0) if self._size is not None else None
        root = (values[0], values[1]) if self._root is not None else None
        t = LocalTensor._make(self.dtype, self.pos, addr, size, root, self._root_unit)
        t._tag, t._shape_info = self._tag, self._shape_info
        return t


def _scaled(x, unit: int):
    if isinstance(x, numbers.Integral):
        return _LOCAL_ADDR.wrap(int(x) * unit)
    x = cast(x, _LOCAL_ADDR)
    return x if unit == 1 else x * unit


def _sub(a, b):
    if isinstance(a, numbers.Integral) and isinstance(b, numbers.Integral):
        return _LOCAL_ADDR.wrap(int(a) - int(b))
    if isinstance(b, numbers.Integral) and b == 0:
        return a
    return to_value(a, _LOCAL_ADDR) - to_value(b, _LOCAL_ADDR)


def _declare_static(builder, dtype, pos, addr, tile_size):
    """Records a static tensor whose address and size are known at compile time, so the
    simulator can check it against its memory when the launch starts (the platform, and so the
    memory's size, is only known then)."""
    if not isinstance(addr, numbers.Integral) or not isinstance(tile_size, numbers.Integral):
        return None
    try:
        elem_bytes = dtype.sizeof()
    except ValueError:  # sub-byte types: no byte size to check
        return None
    key = (int(pos), int(addr) & 0xFFFFFFFF, (int(tile_size) & 0xFFFFFFFF) * elem_bytes,
           builder.loc)
    # A Python loop unrolled at trace time declares the same tensor once per iteration: one
    # declaration (and at most one finding) per line, address and size.
    seen = builder.state.setdefault("static_tensors", {})
    if key in seen:
        return seen[key]
    decl = builder.kernel.static_tensors.add()
    decl.position, decl.addr, decl.bytes = key[:3]  # pyasc converts addr and size to uint32
    decl.loc.file, decl.loc.line, decl.loc.column = builder.loc
    seen[key] = decl
    return decl


def _to_uint32(x, name, emit=True):
    x = ConstExpr.unwrap(x)
    if not is_runtime_int(x) or (isinstance(x, PlainValue) and x.dtype.is_float()):
        raise TypeError(f"LocalTensor {name} must be an int or a traced integer, "
                        f"got {x!r}")
    if not emit:
        return None
    if isinstance(x, PlainValue):
        return cast(x, _LOCAL_ADDR)
    return _LOCAL_ADDR.wrap(int(x))
