"""Parameter structs of the basic API (asc-api.md 4.1/4.2). Constructed inside kernels only;
fields accept runtime ints and are converted to the C++ field type when emitted."""
from asc.codegen.builder import require_builder
from asc.language.core.constexpr import ConstExpr
from asc.language.core.dtype import KnownTypes
from asc.language.core.ir_value import PlainValue, cast, is_runtime_int

__all__ = ["DataCopyParams", "BinaryRepeatParams", "UnaryRepeatParams", "CopyRepeatParams",
           "DataCopyExtParams", "DataCopyPadExtParams", "DataCopyPadParams", "MrgSortSrcList",
           "BrcbRepeatParams", "GatherRepeatParams", "GatherMaskParams", "TransDataTo5HDParams",
           "TransposeParamsExt", "Nz2NdParamsFull", "SliceInfo"]

_REQUIRED = object()  # a field the constructor must be given


def bind_fields(struct: str, names, args, kwargs) -> dict:
    """A parameter struct's constructor arguments by field name, as Python binds them."""
    if len(args) > len(names):
        raise TypeError(f"{struct}() takes at most {len(names)} arguments")
    values = dict(zip(names, args))
    for key, value in kwargs.items():
        if key not in names:
            raise TypeError(f"{struct}() got an unexpected keyword '{key}'")
        if key in values:
            raise TypeError(f"{struct}() got multiple values for '{key}'")
        values[key] = value
    return values


class _ParamStruct:
    _fields = ()  # (name, default, dtype)

    def __init__(self, *args, **kwargs):
        require_builder(type(self).__name__)
        values = bind_fields(type(self).__name__, [f[0] for f in self._fields], args, kwargs)
        for name, default, dtype in self._fields:
            if default is _REQUIRED and name not in values:
                raise TypeError(f"{type(self).__name__}() missing required argument '{name}'")
            value = ConstExpr.unwrap(values.get(name, default))
            if isinstance(dtype, type):  # a compile-time field: bool or an IntEnum
                if dtype is bool:
                    if not isinstance(value, bool):
                        raise TypeError(f"{type(self).__name__}.{name} must be a bool, got "
                                        f"{type(value).__name__}")
                elif isinstance(value, bool) or not isinstance(value, int) or \
                        value not in iter(dtype):
                    raise TypeError(f"{type(self).__name__}.{name} must be an "
                                    f"asc.{dtype.__name__}, got {value!r}")
                else:
                    value = dtype(value)
                setattr(self, name, value)
                continue
            if not is_runtime_int(value):
                raise TypeError(f"{type(self).__name__}.{name} must be an int or a traced "
                                f"integer, got {type(value).__name__}")
            value = cast(value, dtype) if isinstance(value, PlainValue) else dtype.wrap(int(value))
            setattr(self, name, value)

    def __repr__(self):
        fields = ", ".join(f"{n}={getattr(self, n)!r}" for n, _, _ in self._fields)
        return f"{type(self).__name__}({fields})"


class DataCopyParams(_ParamStruct):
    """block_count chunks of block_len 32-byte blocks; strides are end-to-start gaps in blocks."""
    _fields = (("block_count", 1, KnownTypes.uint16), ("block_len", 0, KnownTypes.uint16),
               ("src_stride", 0, KnownTypes.uint16), ("dst_stride", 0, KnownTypes.uint16))


class Nz2NdParamsFull(_ParamStruct):
    """data_copy UB -> GM from NZ fractals to ND rows: nd_num matrices of n_value rows x d_value
    columns; src_nd_matrix_stride (in 16x16 fractals) and src_n_stride (in 16-element rows)
    step through UB, dst_d_stride (elements) is the GM row pitch, dst_nd_matrix_stride
    (elements) the GM matrix pitch. Every field is required."""
    _fields = tuple((name, _REQUIRED, KnownTypes.uint16) for name in (
        "nd_num", "n_value", "d_value", "src_nd_matrix_stride", "src_n_stride", "dst_d_stride",
        "dst_nd_matrix_stride"))

    def __init__(self, *args, handle=None, **kwargs):
        # pyasc's constructor ends with an internal IR handle (an 8th positional); none here.
        super().__init__(*args[:7], **kwargs)
        if len(args) > 8:
            raise TypeError(f"Nz2NdParamsFull() takes at most 8 arguments ({len(args)} given)")


class SliceInfo(_ParamStruct):
    """One dimension of data_copy's multi-dimensional slice form: elements start_index ..
    end_index, stride, burst_len and shape_value (uint32). A missing end_index is one block's
    elements less one and a missing burst_len one block (32), as pyasc documents."""
    _fields = (("start_index", 0, KnownTypes.uint32), ("end_index", 0, KnownTypes.uint32),
               ("stride", 0, KnownTypes.uint32), ("burst_len", 0, KnownTypes.uint32),
               ("shape_value", 0, KnownTypes.uint32))
    _ONE_BLK_SIZE = 32

    def __init__(self, start_index=0, end_index=None, stride=0, burst_len=None, shape_value=0):
        super().__init__(start_index,
                         self._ONE_BLK_SIZE - 1 if end_index is None else end_index, stride,
                         self._ONE_BLK_SIZE if burst_len is None else burst_len, shape_value)


class BinaryRepeatParams(_ParamStruct):
    """Block strides inside an iteration and repeat strides between iterations, in 32-byte
    blocks, of dst, src0 and src1 (1 and 8: dense)."""
    _fields = (("dst_blk_stride", 1, KnownTypes.uint8), ("src0_blk_stride", 1, KnownTypes.uint8),
               ("src1_blk_stride", 1, KnownTypes.uint8), ("dst_rep_stride", 8, KnownTypes.uint8),
               ("src0_rep_stride", 8, KnownTypes.uint8), ("src1_rep_stride", 8, KnownTypes.uint8))

    def strides(self):
        return ((self.dst_blk_stride, self.src0_blk_stride, self.src1_blk_stride),
                (self.dst_rep_stride, self.src0_rep_stride, self.src1_rep_stride))


class UnaryRepeatParams(_ParamStruct):
    """Block and repeat strides of dst and src, in 32-byte blocks (1 and 8: dense)."""
    _fields = (("dst_blk_stride", 1, KnownTypes.uint16), ("src_blk_stride", 1, KnownTypes.uint16),
               ("dst_rep_stride", 8, KnownTypes.uint8), ("src_rep_stride", 8, KnownTypes.uint8))

    def strides(self):
        return ((self.dst_blk_stride, self.src_blk_stride),
                (self.dst_rep_stride, self.src_rep_stride))


class CopyRepeatParams(_ParamStruct):
    """copy's strides in 32-byte blocks: dst_stride/src_stride between the blocks of an
    iteration, dst_repeat_size/src_repeat_size between iterations."""
    _fields = (("dst_stride", 0, KnownTypes.uint16), ("src_stride", 0, KnownTypes.uint16),
               ("dst_repeat_size", 0, KnownTypes.uint16),
               ("src_repeat_size", 0, KnownTypes.uint16))

    def strides(self):
        return ((self.dst_stride, self.src_stride), (self.dst_repeat_size, self.src_repeat_size))


class DataCopyExtParams(_ParamStruct):
    """data_copy_pad: block_count chunks of block_len BYTES; src_stride/dst_stride are gaps, in
    bytes on the GM side and in 32-byte blocks on the UB side; rsv is unused."""
    _fields = (("block_count", 1, KnownTypes.uint16), ("block_len", 0, KnownTypes.uint32),
               ("src_stride", 0, KnownTypes.uint32), ("dst_stride", 0, KnownTypes.uint32),
               ("rsv", 0, KnownTypes.uint32))


def _pad_fields(api, is_pad, left_padding, right_padding):
    from asc.language.core.ir_value import to_value
    fields = {}
    for name, value in (("is_pad", is_pad), ("left_padding", left_padding),
                        ("right_padding", right_padding)):
        value = ConstExpr.unwrap(value)
        if not is_runtime_int(value):
            raise TypeError(f"{api}.{name} must be a bool, an int or a traced integer, got "
                            f"{type(value).__name__}")
        if isinstance(value, bool):
            value = int(value)
        fields[name] = to_value(value, KnownTypes.uint8)
    return fields


class DataCopyPadExtParams:
    """GM -> UB padding of data_copy_pad: with is_pad, left_padding / right_padding elements
    (each at most 32 bytes) of padding_value (converted to `dtype`) around each block."""

    def __init__(self, dtype, is_pad=False, left_padding=0, right_padding=0, padding_value=0):
        from asc.language.core.dtype import DataType
        from asc.language.core.ir_value import is_runtime_number, to_value
        api = "DataCopyPadExtParams"
        require_builder(api)
        if not isinstance(dtype, DataType):
            raise TypeError(f"{api}(): dtype must be an asc dtype (asc.float16 ...), got "
                            f"{type(dtype).__name__}")
        self.dtype = dtype
        for name, value in _pad_fields(api, is_pad, left_padding, right_padding).items():
            setattr(self, name, value)
        value = ConstExpr.unwrap(padding_value)
        if not is_runtime_number(value):
            raise TypeError(f"{api}.padding_value must be a number or a traced scalar, got "
                            f"{type(value).__name__}")
        self.padding_value = to_value(value, dtype)

    def __repr__(self):
        return (f"DataCopyPadExtParams(dtype={self.dtype}, is_pad={self.is_pad!r}, "
                f"left_padding={self.left_padding!r}, right_padding={self.right_padding!r}, "
                f"padding_value={self.padding_value!r})")


class DataCopyPadParams:
    """As DataCopyPadExtParams without a dtype: padding_value is a uint64, converted to the
    tensor's element type by the copy."""

    def __init__(self, is_pad=False, left_padding=0, right_padding=0, padding_value=0):
        from asc.language.core.ir_value import to_value
        api = "DataCopyPadParams"
        require_builder(api)
        for name, value in _pad_fields(api, is_pad, left_padding, right_padding).items():
            setattr(self, name, value)
        value = ConstExpr.unwrap(padding_value)
        if not is_runtime_int(value):
            raise TypeError(f"{api}.padding_value must be an int or a traced integer, got "
                            f"{type(value).__name__}")
        self.padding_value = to_value(int(value) if isinstance(value, bool) else value,
                                      KnownTypes.uint64)

    def __repr__(self):
        return (f"DataCopyPadParams(is_pad={self.is_pad!r}, left_padding={self.left_padding!r}, "
                f"right_padding={self.right_padding!r}, padding_value={self.padding_value!r})")


class MrgSortSrcList:
    """`MrgSortSrcList(dtype, src1, src2, src3=None, src4=None)`: the sorted lists of a merge
    (asc-api.md 4.12), LocalTensors of `dtype`; the merge's valid bits say how many take part."""

    def __init__(self, dtype, src1, src2, src3=None, src4=None):
        require_builder("MrgSortSrcList")
        from asc.language.core.dtype import DataType
        from asc.language.core.tensor import LocalTensor
        dtype = ConstExpr.unwrap(dtype)
        if not isinstance(dtype, DataType):
            raise TypeError(f"MrgSortSrcList(): dtype must be an asc dtype, got {dtype!r}")
        self.dtype = dtype
        given = [src1, src2, src3, src4]
        if src3 is None and src4 is not None:
            raise TypeError("MrgSortSrcList(): src4 given without src3")
        self._lists = [t for t in given if t is not None]
        for i, t in enumerate(self._lists):
            if not isinstance(t, LocalTensor):
                raise TypeError(f"MrgSortSrcList(): src{i + 1} must be a LocalTensor, got "
                                f"{type(t).__name__}")
            if t.dtype != dtype:
                raise TypeError(f"MrgSortSrcList(): src{i + 1} has dtype {t.dtype}, not {dtype}")

    def tensors(self):
        return list(self._lists)

    def __repr__(self):
        return f"MrgSortSrcList({self.dtype}, {len(self._lists)} lists)"


class BrcbRepeatParams(_ParamStruct):
    """brcb's destination block stride and repeat stride, in 32-byte blocks."""
    _fields = (("dst_blk_stride", 1, KnownTypes.uint16), ("dst_rep_stride", 8, KnownTypes.uint16))


class GatherRepeatParams(_ParamStruct):
    """gatherb's destination block stride and repeat stride, in 32-byte blocks."""
    _fields = (("dst_blk_stride", 1, KnownTypes.uint16), ("dst_rep_stride", 8, KnownTypes.uint16))


class GatherMaskParams(_ParamStruct):
    """gather_mask's source block stride, iterations, and the source and pattern repeat strides
    (32-byte blocks)."""
    _fields = (("src0_block_stride", 1, KnownTypes.uint8), ("repeat_times", 1, KnownTypes.uint16),
               ("src0_repeat_stride", 0, KnownTypes.uint16),
               ("src1_repeat_stride", 0, KnownTypes.uint8))


class TransDataTo5HDParams(_ParamStruct):
    """trans_data_to_5hd's halves (1-byte types), iterations and repeat strides (32-byte
    blocks)."""
    _fields = (("dst_high_half", False, bool), ("src_high_half", False, bool),
               ("repeat_times", 1, KnownTypes.uint8), ("dst_rep_stride", 0, KnownTypes.uint16),
               ("src_rep_stride", 0, KnownTypes.uint16))


def _transpose_type():
    from asc.language.core.enums import TransposeType
    return TransposeType


class TransposeParamsExt(_ParamStruct):
    """The Ext transpose's n, c, h, w sizes and its TransposeType."""
    _fields = (("n_size", 0, KnownTypes.uint16), ("c_size", 0, KnownTypes.uint16),
               ("h_size", 0, KnownTypes.uint16), ("w_size", 0, KnownTypes.uint16),
               ("transpose_type", 10, _transpose_type()))
