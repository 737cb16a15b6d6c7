"""`asc.TensorDesc` and `asc.ListTensorDesc` (asc-api.md 4.16): a list of GM tensors described in
GM, read by the scalar unit.

The list's layout, in uint64 words from its start (Ascend C's ListTensorDesc; the references do
not spell it out, so docs/frontend.md states it as the model's reading):

    word 0                 ptr_offset: bytes from the start to the pointer table
    word 1 ...             one descriptor per tensor: a header whose low 32 bits are its dim,
                           then dim shape words; with `shape_size` every descriptor is
                           `shape_size` words long, otherwise they follow each other
    word ptr_offset / 8    the tensors' GM addresses, one word each

Every read is a `GlobalTensor.get_value` of a uint64 word (a PIPE_S access with its checks).
"""
from __future__ import annotations

import numbers
from typing import Optional

from asc.language.core.constexpr import ConstExpr
from asc.language.core.dtype import DataType, KnownTypes as KT
from asc.language.core.hints import RuntimeInt
from asc.language.core.ir_value import cast, is_runtime_int
from asc.language.core.tensor import GlobalAddress, GlobalTensor
from asc.language.core.unset_state import unset_state

__all__ = ["TensorDesc", "ListTensorDesc"]

_UNSET = 0xFFFFFFFF  # Ascend C's default length / shape_size: not given


def _words(address: GlobalAddress) -> GlobalTensor:
    """The list as a tensor of uint64 words."""
    words = GlobalTensor()
    words.set_global_buffer(GlobalAddress(address._addr, KT.uint64))
    return words


class TensorDesc:
    """`asc.TensorDesc(dtype=float32)`: one tensor of a list, filled by ListTensorDesc.get_desc."""

    def __init__(self, dtype: DataType = KT.float32) -> None:
        dtype = ConstExpr.unwrap(dtype)
        if not isinstance(dtype, DataType):
            raise TypeError(f"TensorDesc(): dtype must be an asc DataType, got {dtype!r}")
        self.dtype = dtype
        self._shape_ptr = None
        self._words = None   # the list's words and this descriptor's first word
        self._at = None
        self._dim = None
        self._index = None
        self._ptr = None

    def set_shape_addr(self, shape_ptr) -> None:
        """Where get_shape's values are kept (an asc.array of uint64 in Ascend C); the model
        reads each shape word from the list when get_shape asks for it."""
        self._shape_ptr = shape_ptr

    # A descriptor no get_desc filled is Ascend C's default-constructed one: every read gives 0
    # (a null data pointer) with an UNINITIALIZED_READ warning at run time.

    def get_dim(self):
        if self._words is None:
            return unset_state("TensorDesc.get_dim", KT.uint64)
        return self._dim

    def get_index(self):
        if self._words is None:
            return unset_state("TensorDesc.get_index", KT.uint64)
        return self._index

    def get_shape(self, offset):
        """Shape word `offset` (0 .. dim - 1) of the tensor (uint64)."""
        offset = ConstExpr.unwrap(offset)
        if not is_runtime_int(offset):
            raise TypeError(f"TensorDesc.get_shape(): offset must be an int, got {offset!r}")
        if self._words is None:
            return unset_state("TensorDesc.get_shape", KT.uint64)
        return self._words.get_value(self._at + 1 + offset)

    def get_data_ptr(self) -> GlobalAddress:
        if self._words is None:
            return GlobalAddress(unset_state("TensorDesc.get_data_ptr", KT.uint64), self.dtype)
        return GlobalAddress(self._ptr, self.dtype)

    def get_data_obj(self) -> GlobalTensor:
        """The tensor as a GlobalTensor (without a size)."""
        tensor = GlobalTensor()
        tensor.set_global_buffer(self.get_data_ptr())
        return tensor


class ListTensorDesc:
    """A list of GM tensors described in GM (Ascend C's ListTensorDesc, asc-api.md 4.16).

    `asc.ListTensorDesc()` or `ListTensorDesc(data=, length=, shape_size=)`: the list at `data`
    (a GlobalAddress); init(data, ...) sets it later. get_desc(desc, index) fills a TensorDesc,
    get_data_ptr(index, dtype) gives a tensor's address; length (bytes) and shape_size are
    accepted and not checked."""

    def __init__(self, data: Optional[GlobalAddress] = None, length: RuntimeInt = _UNSET,
                 shape_size: RuntimeInt = _UNSET) -> None:
        self._words = None
        if data is not None:
            self.init(data, length, shape_size)

    def init(self, data: GlobalAddress, length: RuntimeInt = _UNSET,
             shape_size: RuntimeInt = _UNSET) -> None:
        """`length` (the list's bytes) is accepted and not checked, as docs/frontend.md says."""
        if not isinstance(data, GlobalAddress):
            raise TypeError(f"ListTensorDesc.init(): data must be a GlobalAddress, got "
                            f"{type(data).__name__}")
        self._words = _words(data)
        shape_size = ConstExpr.unwrap(shape_size)
        if not isinstance(shape_size, numbers.Integral):
            raise TypeError("ListTensorDesc.init(): shape_size must be a compile-time int (the "
                            f"words of every descriptor), got {shape_size!r}")
        self._shape_size = int(shape_size)
        # The pointer table's first word: ptr_offset bytes / 8.
        self._table = self._words.get_value(0) >> 3

    def _require_init(self, api: str) -> None:
        """A list no init() reached is Ascend C's default one: its data pointer is null, so its
        reads fault at run time (GM_OUT_OF_BOUNDS at the line), as on the chip."""
        if self._words is None:
            self.init(GlobalAddress(unset_state(f"ListTensorDesc.{api}", KT.uint64), KT.uint64))

    def _descriptor_at(self, index):
        """The first word of descriptor `index`."""
        if self._shape_size != _UNSET:
            return 1 + index * self._shape_size
        index = ConstExpr.unwrap(index)
        if not isinstance(index, numbers.Integral):
            raise TypeError("ListTensorDesc.get_desc(): a traced index needs the descriptors' "
                            "fixed length: pass shape_size to init(), or use a compile-time "
                            "index")
        at = 1
        for _ in range(int(index)):  # descriptors of varying length follow each other
            at = at + cast(self._words.get_value(at) & 0xFFFFFFFF, KT.int32) + 1
        return at

    def get_desc(self, desc: TensorDesc, index) -> None:
        """Fills `desc` with tensor `index`: its dim, index, shape words and data pointer."""
        self._require_init("get_desc")
        if not isinstance(desc, TensorDesc):
            raise TypeError(f"ListTensorDesc.get_desc(): desc must be an asc.TensorDesc, got "
                            f"{type(desc).__name__}")
        at = self._descriptor_at(index)
        desc._words, desc._at, desc._index = self._words, at, index
        desc._dim = self._words.get_value(at) & 0xFFFFFFFF
        desc._ptr = self._words.get_value(self._table + index)

    def get_data_ptr(self, index, dtype: DataType = KT.float32) -> GlobalAddress:
        """The GM address of tensor `index`, typed `dtype`."""
        self._require_init("get_data_ptr")
        return GlobalAddress(self._words.get_value(self._table + index), ConstExpr.unwrap(dtype))

    def get_size(self) -> None:
        """pyasc's get_size returns nothing (asc-api.md 4.16); kept so kernels calling it run."""
        return None
