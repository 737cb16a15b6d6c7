"""User-defined kernel-argument structs (pyasc's `asc.language.core.struct`, asc-api.md 3.9).

On the host a `Struct` subclass is a packed `ctypes.Structure` (fields in declaration order,
`pack=` as `_pack_`): `MyCfg(a=1)`, attribute reads and writes, `.pack()`, `.addressof()`.
Passed to a kernel it travels as pyasc's ABI says (1.7): its packed bytes are copied to a device
buffer and the kernel receives an 8-byte GM pointer (never copied back). At kernel entry the
kernel copies it into a local struct, field by field, with scalar-unit GM loads (`get_value`);
in the kernel `cfg.field` is then a traced scalar and `cfg.field = v` writes the local copy.
`MyCfg(...)` inside a kernel builds a local struct (unspecified fields are zero).
"""
from __future__ import annotations

import ctypes
import numbers
from typing import Any, Dict, List, Optional, Tuple

from asc.codegen.builder import current_builder, require_builder
from asc.language.core.dtype import DataType, KnownTypes
from asc.language.core.ir_value import PlainValue, const, to_value

__all__ = ["Struct", "Field", "StructField"]

_REQUIRED = object()

_CTYPES: Dict[str, Any] = {
    "int1": ctypes.c_bool, "int8": ctypes.c_int8, "int16": ctypes.c_int16,
    "int32": ctypes.c_int32, "int64": ctypes.c_int64, "uint8": ctypes.c_uint8,
    "uint16": ctypes.c_uint16, "uint32": ctypes.c_uint32, "uint64": ctypes.c_uint64,
    "float32": ctypes.c_float, "float64": ctypes.c_double,
}


class Field:
    """A scalar member: `Field(dtype, default=<required>, name=None, enum=None)`. `name` is the
    C++ member name (the Python name by default); `enum` names a C++ enum type (no effect
    here)."""

    def __init__(self, dtype: DataType, default=_REQUIRED, name: Optional[str] = None,
                 enum: Optional[str] = None):
        if not isinstance(dtype, DataType) or dtype.name not in _CTYPES:
            raise TypeError(f"Field dtype must be one of {', '.join(_CTYPES)}, got {dtype!r}")
        self.dtype = dtype
        self.default = default
        self.name = name
        self.enum = enum
        self.attr = ""

    def __set_name__(self, owner, attr: str) -> None:
        self.attr = attr
        if self.name is None:
            self.name = attr

    def _ctype(self):
        return _CTYPES[self.dtype.name]

    def __get__(self, obj, owner=None):
        return self if obj is None else obj._get(self)

    def __set__(self, obj, value) -> None:
        obj._set(self, value)


class StructField(Field):
    """A nested struct member: `StructField(struct_cls, default=None, name=None)`; the default
    is `struct_cls()`."""

    def __init__(self, struct_cls, default=None, name: Optional[str] = None):
        if not (isinstance(struct_cls, type) and issubclass(struct_cls, Struct)):
            raise TypeError(f"StructField expects a Struct subclass, got {struct_cls!r}")
        self.struct_cls = struct_cls
        self.dtype = None
        self.default = default
        self.name = name
        self.enum = None
        self.attr = ""

    def _ctype(self):
        return self.struct_cls._ctype


class Struct:
    """Base of user structs; subclasses declare `Field`s and `StructField`s."""

    _fields: Tuple[Field, ...] = ()
    _ctype = None

    def __init_subclass__(cls, pack: Optional[int] = None, **kwargs):
        super().__init_subclass__(**kwargs)
        fields: List[Field] = list(cls._fields)
        fields += [v for v in cls.__dict__.values() if isinstance(v, Field)]
        if not fields:
            raise TypeError(f"Struct {cls.__name__} must declare at least one Field")
        cls._fields = tuple(fields)
        attrs = {"_fields_": [(f.attr, f._ctype()) for f in fields]}
        if pack is not None:
            attrs["_pack_"] = int(pack)
        cls._ctype = type(f"{cls.__name__}_ctype", (ctypes.Structure,), attrs)

    def __init__(self, **values):
        known = {f.attr for f in self._fields}
        for name in values:
            if name not in known:
                raise RuntimeError(f"{type(self).__name__} has no field '{name}' (fields: "
                                   f"{', '.join(f.attr for f in self._fields)})")
        builder = current_builder()
        self._device = builder is not None
        if self._device:
            self._depth = builder.depth
            self._values: Dict[str, Any] = {}
            for f in self._fields:
                self._values[f.attr] = _device_value(f, values.get(f.attr))
            return
        self._c = self._ctype()
        for f in self._fields:
            if f.attr in values:
                value = values[f.attr]
            elif isinstance(f, StructField):
                value = f.struct_cls() if f.default is None else f.default
            elif f.default is _REQUIRED:
                raise RuntimeError(f"{type(self).__name__}: field '{f.attr}' has no default "
                                   "and must be given")
            else:
                value = f.default
            self._set(f, value)

    # ---- host side ----------------------------------------------------------------------------

    def pack(self) -> bytes:
        """The packed bytes, as the kernel receives them."""
        self._host_only("pack")
        return bytes(self._c)

    def addressof(self) -> int:
        """Address of the ctypes struct (host tiling fills it in place)."""
        self._host_only("addressof")
        return ctypes.addressof(self._c)

    @classmethod
    def sizeof(cls) -> int:
        return ctypes.sizeof(cls._ctype)

    def _host_only(self, api: str) -> None:
        if self._device:
            raise RuntimeError(f"{type(self).__name__}.{api}() is a host-side method; inside a "
                               "kernel the struct is a local copy")

    # ---- both sides ---------------------------------------------------------------------------

    def _get(self, f: Field):
        if self._device:
            return self._values[f.attr]
        return getattr(self._c, f.attr)

    def _set(self, f: Field, value) -> None:
        if not self._device:
            if isinstance(f, StructField):
                if isinstance(value, Struct):
                    value = value._c
                ctypes.memmove(ctypes.addressof(getattr(self._c, f.attr)), ctypes.addressof(value),
                               ctypes.sizeof(f.struct_cls._ctype))
            else:
                setattr(self._c, f.attr, value)
            return
        builder = require_builder(f"{type(self).__name__}.{f.attr} =")
        if builder.depth > self._depth:
            raise RuntimeError(f"assigning {type(self).__name__}.{f.attr} inside a runtime "
                               "loop/if to a struct created outside it is not supported; create "
                               "the struct inside it, or assign the field before the region")
        self._values[f.attr] = _device_value(f, value)

    def __repr__(self):
        items = ", ".join(f"{f.attr}={self._get(f)!r}" for f in self._fields)
        return f"{type(self).__name__}({items})"

    # ---- device side: the kernel argument and the carry protocol --------------------------------

    @classmethod
    def _load(cls, base: PlainValue, offset: int = 0) -> "Struct":
        """The kernel-entry copy of a struct argument at GM address `base` (+ `offset`)."""
        from asc.language.core.tensor import GlobalTensor
        s = cls.__new__(cls)
        s._device, s._depth, s._values = True, require_builder("struct argument").depth, {}
        for f in cls._fields:
            at = offset + getattr(cls._ctype, f.attr).offset
            if isinstance(f, StructField):
                s._values[f.attr] = f.struct_cls._load(base, at)
                continue
            # A bool is one byte in memory: load it as uint8 and test it.
            mem_dtype = KnownTypes.uint8 if f.dtype.name == "int1" else f.dtype
            addr = base + at if at else base
            value = GlobalTensor._make(addr, mem_dtype, None).get_value(0)
            s._values[f.attr] = value != 0 if f.dtype.name == "int1" else value
        return s

    def _leaves(self) -> List[Tuple[Any, DataType]]:
        out: List[Tuple[Any, DataType]] = []
        for f in self._fields:
            v = self._values[f.attr]
            out += v._leaves() if isinstance(f, StructField) else [(v, f.dtype)]
        return out

    def _ir_fields(self):
        return self._leaves() if self._device else []

    def _ir_static(self):
        return (type(self), self._device)

    def _ir_rebuild(self, values):
        it = iter(values)
        return self._rebuild(it)

    def _rebuild(self, it) -> "Struct":
        s = type(self).__new__(type(self))
        s._device = True
        builder = current_builder()
        s._depth = builder.depth if builder is not None else 1
        s._values = {}
        for f in self._fields:
            v = self._values[f.attr]
            s._values[f.attr] = v._rebuild(it) if isinstance(f, StructField) else next(it)
        return s


def _device_value(f: Field, value):
    """A field's value in a kernel-local struct: traced scalars and numbers of the field dtype,
    nested structs copied; missing values are zero."""
    if isinstance(f, StructField):
        if value is None:
            return f.struct_cls()
        if not isinstance(value, f.struct_cls) or not value._device:
            raise TypeError(f"field '{f.attr}' expects a {f.struct_cls.__name__} built in the "
                            f"kernel, got {value!r}")
        return value._rebuild(iter(v for v, _ in value._leaves()))
    if value is None:
        return const(0, f.dtype, f.attr)
    if isinstance(value, bool):
        value = int(value)
    if not isinstance(value, (numbers.Number, PlainValue)):
        raise TypeError(f"field '{f.attr}' ({f.dtype.name}) expects a number or a traced "
                        f"scalar, got {type(value).__name__}")
    if f.dtype.name == "int1":
        return to_value(value, KnownTypes.int1, f.attr)
    return to_value(value, f.dtype, f.attr)
