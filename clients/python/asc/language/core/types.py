"""Parameter structs of the basic API (asc-api.md 4.1/4.2). Constructed inside kernels only;
fields accept runtime ints and are converted to the C++ field type when emitted."""
from asc.codegen.builder import require_builder
from asc.language.core.constexpr import ConstExpr
from asc.language.core.dtype import KnownTypes
from asc.language.core.ir_value import PlainValue, cast, is_runtime_int

__all__ = ["DataCopyParams", "BinaryRepeatParams", "UnaryRepeatParams", "BrcbRepeatParams",
           "GatherRepeatParams", "GatherMaskParams", "TransDataTo5HDParams", "TransposeParamsExt"]


class _ParamStruct:
    _fields = ()  # (name, default, dtype)

    def __init__(self, *args, **kwargs):
        require_builder(type(self).__name__)
        names = [f[0] for f in self._fields]
        if len(args) > len(names):
            raise TypeError(f"{type(self).__name__}() takes at most {len(names)} arguments")
        values = dict(zip(names, args))
        for key, value in kwargs.items():
            if key not in names:
                raise TypeError(f"{type(self).__name__}() got an unexpected keyword '{key}'")
            if key in values:
                raise TypeError(f"{type(self).__name__}() got multiple values for '{key}'")
            values[key] = value
        for name, default, dtype in self._fields:
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
