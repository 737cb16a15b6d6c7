"""`asc.array`, `asc.ShapeInfo`, `asc.get_shape_size` (asc-api.md 3.7): small compile-time
containers. Elements are Python numbers or traced scalars; nothing is emitted until an element is
used, so shapes made of constants fold away."""
from __future__ import annotations

import numbers
from typing import Optional, Sequence, Union

from asc.codegen.builder import require_builder
from asc.language.core.constexpr import ConstExpr
from asc.language.core.dtype import DataType, KnownTypes
from asc.language.core.enums import DataFormat
from asc.language.core.hints import RuntimeInt, RuntimeNumber
from asc.language.core.ir_value import PlainValue, cast, is_runtime_number
from asc.language.core.unset_state import unset_state

__all__ = ["array", "ShapeInfo", "get_shape_size"]

_MAX_DIMS = 8


class array:  # noqa: N801 - the name is API
    """A compile-time container of numbers or traced scalars of one dtype (asc-api.md 3.7).

    `asc.array(dtype, length, fill_value=None)` (length copies of fill_value, 0 when None) or
    `asc.array(dtype, values)`. Elements are converted to dtype: traced scalars by a cast, a
    Python number to float (float dtypes) or wrapped to the integer type. Indices are
    compile-time ints; nothing is emitted until an element is used."""

    def __init__(self, dtype: DataType, values: Union[int, Sequence[RuntimeNumber]],
                 fill_value: Optional[RuntimeNumber] = None) -> None:
        builder = require_builder("array")
        dtype = ConstExpr.unwrap(dtype)
        if not isinstance(dtype, DataType) or not dtype.is_numeric():
            raise TypeError(f"array(): dtype must be a numeric DataType, got {dtype!r}")
        self.dtype = dtype
        self._depth = builder.depth
        values = ConstExpr.unwrap(values)
        if isinstance(values, numbers.Integral) and not isinstance(values, bool):
            fill = 0 if fill_value is None else fill_value
            items = [fill] * int(values)
        elif isinstance(values, (list, tuple, array)):
            if fill_value is not None:
                raise TypeError("array(): fill_value is only allowed with a length")
            items = list(values)
        else:
            raise TypeError("array(): expected a length (int) or a sequence of values, got "
                            f"{type(values).__name__}")
        self._values = [self._convert(v) for v in items]

    def _convert(self, value):
        value = ConstExpr.unwrap(value)
        if not is_runtime_number(value):
            raise TypeError(f"array elements must be numbers, got {type(value).__name__}")
        if isinstance(value, PlainValue):
            return cast(value, self.dtype)
        if self.dtype.is_float():
            return float(value)
        return self.dtype.wrap(int(value))

    def _index(self, index) -> int:
        index = ConstExpr.unwrap(index)
        if not isinstance(index, numbers.Integral):
            raise TypeError("array indices must be compile-time ints, got "
                            f"{type(index).__name__}")
        return int(index)

    def __getitem__(self, index):
        return self._values[self._index(index)]

    def __setitem__(self, index, value) -> None:
        builder = require_builder("array[]")
        if builder.depth > self._depth:
            raise RuntimeError("writing an asc.array created outside a runtime loop/if inside "
                               "it is not supported")
        self._values[self._index(index)] = self._convert(value)

    def __len__(self):
        return len(self._values)

    def __iter__(self):
        return iter(list(self._values))

    def __repr__(self):
        return f"array({self.dtype}, {self._values!r})"


def _as_dims(values, name):
    if values is None:
        return []
    values = ConstExpr.unwrap(values)
    if isinstance(values, array):
        dims = list(values)
    elif isinstance(values, (list, tuple)):
        dims = [ConstExpr.unwrap(v) for v in values]
    else:
        raise TypeError(f"ShapeInfo(): {name} must be an asc.array or a sequence, got "
                        f"{type(values).__name__}")
    if len(dims) > _MAX_DIMS:
        raise ValueError(f"ShapeInfo(): at most {_MAX_DIMS} dims, got {len(dims)}")
    return dims


class ShapeInfo:
    """A tensor's logical shape, original shape and data format (Ascend C's ShapeInfo).

    `asc.ShapeInfo(shape=None, original_shape=None, data_format=DataFormat.ND)` (asc-api.md
    3.7): shape and original_shape are asc.arrays or sequences of up to 8 runtime ints
    (original_shape defaults to shape), data_format an asc.DataFormat. Attach it with
    `tensor.set_shape_info`; softmax and dump_tensor read it."""

    def __init__(self, shape: Optional[Union[array, Sequence[RuntimeInt]]] = None,
                 original_shape: Optional[Union[array, Sequence[RuntimeInt]]] = None,
                 data_format: DataFormat = DataFormat.ND) -> None:
        require_builder("ShapeInfo")
        self._shape = _as_dims(shape, "shape")
        self._original = _as_dims(original_shape, "original_shape") if original_shape is not None \
            else list(self._shape)
        self.data_format = DataFormat(ConstExpr.unwrap(data_format))

    @property
    def shape_dim(self) -> int:
        return len(self._shape)

    @property
    def original_shape_dim(self) -> int:
        return len(self._original)

    def shape(self, dim):
        return _dim(self._shape, dim)

    def original_shape(self, dim):
        return _dim(self._original, dim)

    def dims(self):
        return list(self._shape)

    def __repr__(self):
        return f"ShapeInfo({self._shape!r}, {self.data_format.name})"


class UnsetShapeInfo(ShapeInfo):
    """What get_shape_info returns for a tensor no set_shape_info reached: Ascend C's
    default-constructed ShapeInfo, every field 0, each read an UNINITIALIZED_READ warning."""

    def __init__(self):  # noqa: super-init-not-called - it has no dims to convert
        self._shape, self._original = [], []
        self.data_format = DataFormat.ND

    @property
    def shape_dim(self):
        return unset_state("ShapeInfo.shape_dim", KnownTypes.uint8)

    @property
    def original_shape_dim(self):
        return unset_state("ShapeInfo.original_shape_dim", KnownTypes.uint8)

    def shape(self, dim):
        _check_dim_index(dim)
        return unset_state("ShapeInfo.shape", KnownTypes.int32)

    def original_shape(self, dim):
        _check_dim_index(dim)
        return unset_state("ShapeInfo.original_shape", KnownTypes.int32)

    def __repr__(self):
        return "ShapeInfo(<unset>)"


def _check_dim_index(dim):
    dim = ConstExpr.unwrap(dim)
    if not isinstance(dim, numbers.Integral):
        raise TypeError("ShapeInfo dims are indexed by compile-time ints")


def _dim(dims, dim):
    dim = ConstExpr.unwrap(dim)
    if not isinstance(dim, numbers.Integral):
        raise TypeError("ShapeInfo dims are indexed by compile-time ints")
    value = dims[int(dim)]
    return cast(value, KnownTypes.int32) if isinstance(value, PlainValue) else value


def get_shape_size(shape_info: ShapeInfo) -> RuntimeInt:
    """The element count of a ShapeInfo: the product of its dims.

    A Python int when every dim is one, else a traced integer; the default (unset) ShapeInfo's
    size reads its unset field, 0 with an UNINITIALIZED_READ warning at run time."""
    if not isinstance(shape_info, ShapeInfo):
        raise TypeError(f"get_shape_size() expects a ShapeInfo, got {type(shape_info).__name__}")
    if isinstance(shape_info, UnsetShapeInfo):
        # Ascend C's default ShapeInfo has shapeDim 0; the size reads that unset field.
        return unset_state("get_shape_size", KnownTypes.uint64)
    size = 1
    for i in range(shape_info.shape_dim):
        d = shape_info.shape(i)
        size = d * size if isinstance(d, PlainValue) else size * d
    return size
