"""Parameter structs of the basic API (asc-api.md 4.1/4.2). Constructed inside kernels only;
fields accept runtime ints and are converted to the C++ field type when emitted. A struct's
constructor signature (and its hints: RuntimeInt for an integer field, RuntimeBool for a runtime
bool, bool or the enum for a compile-time one) is made from its fields."""
from __future__ import annotations

import inspect
from typing import Any, Optional

from asc.codegen.builder import require_builder
from asc.language.core.constexpr import ConstExpr
from asc.language.core.dtype import DataType, KnownTypes
from asc.language.core.enums import BlockMode, CO2Layout, DeqScale, pad_t
from asc.language.core.hints import RuntimeInt, RuntimeNumber
from asc.language.core.ir_value import (PlainValue, cast, is_runtime_int, is_runtime_number,
                                        to_bool)
from asc.language.core.tensor import LocalTensor

__all__ = ["DataCopyParams", "BinaryRepeatParams", "UnaryRepeatParams", "CopyRepeatParams",
           "DataCopyExtParams", "DataCopyPadExtParams", "DataCopyPadParams", "MrgSortSrcList",
           "BrcbRepeatParams", "GatherRepeatParams", "GatherMaskParams", "TransDataTo5HDParams",
           "TransposeParamsExt", "Nz2NdParamsFull", "SliceInfo", "Nd2NzParams",
           "LoadData2DParams", "LoadData2dTransposeParams", "LoadData2dTransposeParamsV2",
           "DataCopyEnhancedParams", "InitConstValueParams", "LoadData2DParamsV2",
           "LoadData3DParamsV1", "LoadData3DParamsV2", "LoadData3DParamsV2Pro",
           "LoadDataRepeatParam", "MmadParams", "FixpipeParamsV220", "FixpipeConfig",
           "DataCopyCO12DstParams"]

_REQUIRED = object()  # a field the constructor must be given


def _takes_any(init) -> bool:
    """An __init__(self, *args, **kwargs) that binds the struct's fields itself."""
    kinds = {p.kind for p in inspect.signature(init).parameters.values()}
    return inspect.Parameter.VAR_POSITIONAL in kinds


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


def _annotation(dtype) -> str:
    """A field's type hint, a string as the API's hints are: its enum class or bool for a
    compile-time field, RuntimeBool for a runtime bool, else RuntimeInt (a traced integer or a
    Python int, converted to the field's C++ integer type)."""
    if isinstance(dtype, type):
        return dtype.__name__
    return "RuntimeBool" if dtype.is_bool() else "RuntimeInt"


def fields_signature(fields, shown=None, extra=(), hints=None) -> inspect.Signature:
    """The constructor signature a struct's (name, default, dtype) fields make, for
    `inspect.signature` and docs/api.md; `shown` replaces defaults a constructor computes,
    `hints` gives the hints of fields without a dtype."""
    shown, hints = shown or {}, hints or {}
    params = []
    for name, default, dtype in fields:
        default = shown.get(name, default)
        params.append(inspect.Parameter(
            name, inspect.Parameter.POSITIONAL_OR_KEYWORD,
            default=inspect.Parameter.empty if default is _REQUIRED else default,
            annotation=hints[name] if dtype is None else _annotation(dtype)))
    return inspect.Signature(params + list(extra))


class _ParamStruct:
    _fields = ()  # (name, default, dtype)
    _shown_defaults = {}  # defaults the constructor computes, as its signature shows them
    _extra_params = ()  # parameters after the fields (inspect.Parameter)
    _hints = {}  # hints of the fields without a dtype

    def __init_subclass__(cls, **kwargs):
        # A constructor that binds its fields from *args/**kwargs shows them as its signature;
        # one with its own parameters shows those (None: inspect reads the __init__).
        super().__init_subclass__(**kwargs)
        cls.__signature__ = fields_signature(cls._fields, cls._shown_defaults, cls._extra_params,
                                             cls._hints) \
            if _takes_any(cls.__init__) else None

    def __init__(self, *args, **kwargs) -> None:
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
            if dtype.is_bool():  # a runtime bool: C++'s conversion (non-zero is true)
                value = to_bool(value) if isinstance(value, PlainValue) else bool(value)
            elif isinstance(value, PlainValue):
                value = cast(value, dtype)
            else:
                value = dtype.wrap(int(value))
            setattr(self, name, value)

    def __repr__(self):
        fields = ", ".join(f"{n}={getattr(self, n)!r}" for n, _, _ in self._fields)
        return f"{type(self).__name__}({fields})"


class DataCopyParams(_ParamStruct):
    """The chunks of a data_copy: block_count chunks of block_len 32-byte blocks.

    src_stride and dst_stride are end-to-start gaps between chunks, in 32-byte blocks on both
    the GM and the UB side (asc-api.md 4.2); every field is a uint16."""
    _fields = (("block_count", 1, KnownTypes.uint16), ("block_len", 0, KnownTypes.uint16),
               ("src_stride", 0, KnownTypes.uint16), ("dst_stride", 0, KnownTypes.uint16))


class Nz2NdParamsFull(_ParamStruct):
    """data_copy UB -> GM from NZ fractals to ND rows (every field required, uint16).

    nd_num matrices of n_value rows x d_value columns; src_nd_matrix_stride (in 16x16 fractals)
    and src_n_stride (in 16-element rows) step through UB, dst_d_stride (elements) is the GM row
    pitch, dst_nd_matrix_stride (elements) the GM matrix pitch. handle, pyasc's internal IR
    handle, is accepted and unused."""
    _fields = tuple((name, _REQUIRED, KnownTypes.uint16) for name in (
        "nd_num", "n_value", "d_value", "src_nd_matrix_stride", "src_n_stride", "dst_d_stride",
        "dst_nd_matrix_stride"))
    _extra_params = (inspect.Parameter("handle", inspect.Parameter.POSITIONAL_OR_KEYWORD,
                                       default=None, annotation="Any"),)

    def __init__(self, *args, handle: Any = None, **kwargs) -> None:
        # pyasc's constructor ends with an internal IR handle (an 8th positional); none here.
        super().__init__(*args[:7], **kwargs)
        if len(args) > 8:
            raise TypeError(f"Nz2NdParamsFull() takes at most 8 arguments ({len(args)} given)")


class SliceInfo(_ParamStruct):
    """One dimension of data_copy's multi-dimensional slice form (uint32 fields).

    Elements start_index .. end_index, stride, burst_len and shape_value. A missing end_index is
    one block's elements less one and a missing burst_len one block (32), as pyasc documents;
    data_copy refuses the slice form on Ascend 910B."""
    _fields = (("start_index", 0, KnownTypes.uint32), ("end_index", 0, KnownTypes.uint32),
               ("stride", 0, KnownTypes.uint32), ("burst_len", 0, KnownTypes.uint32),
               ("shape_value", 0, KnownTypes.uint32))
    _ONE_BLK_SIZE = 32

    def __init__(self, start_index: RuntimeInt = 0, end_index: Optional[RuntimeInt] = None,
                 stride: RuntimeInt = 0, burst_len: Optional[RuntimeInt] = None,
                 shape_value: RuntimeInt = 0) -> None:
        super().__init__(start_index,
                         self._ONE_BLK_SIZE - 1 if end_index is None else end_index, stride,
                         self._ONE_BLK_SIZE if burst_len is None else burst_len, shape_value)


class BinaryRepeatParams(_ParamStruct):
    """The block and repeat strides of dst, src0 and src1 of a binary vector instruction.

    Block strides inside an iteration and repeat strides between iterations, in 32-byte blocks
    (block stride 1 and repeat stride 8: dense); every field is a uint8 (asc-api.md 4.1)."""
    _fields = (("dst_blk_stride", 1, KnownTypes.uint8), ("src0_blk_stride", 1, KnownTypes.uint8),
               ("src1_blk_stride", 1, KnownTypes.uint8), ("dst_rep_stride", 8, KnownTypes.uint8),
               ("src0_rep_stride", 8, KnownTypes.uint8), ("src1_rep_stride", 8, KnownTypes.uint8))

    def strides(self) -> tuple:
        """(block strides, repeat strides) of dst, src0 and src1."""
        return ((self.dst_blk_stride, self.src0_blk_stride, self.src1_blk_stride),
                (self.dst_rep_stride, self.src0_rep_stride, self.src1_rep_stride))


class UnaryRepeatParams(_ParamStruct):
    """The block and repeat strides of dst and src of a one-source vector instruction.

    In 32-byte blocks (1 and 8: dense): the block strides are uint16, the repeat strides uint8
    (asc-api.md 4.1)."""
    _fields = (("dst_blk_stride", 1, KnownTypes.uint16), ("src_blk_stride", 1, KnownTypes.uint16),
               ("dst_rep_stride", 8, KnownTypes.uint8), ("src_rep_stride", 8, KnownTypes.uint8))

    def strides(self) -> tuple:
        """(block strides, repeat strides) of dst and src."""
        return ((self.dst_blk_stride, self.src_blk_stride),
                (self.dst_rep_stride, self.src_rep_stride))


class CopyRepeatParams(_ParamStruct):
    """The strides of copy, in 32-byte blocks, within and between iterations.

    dst_stride / src_stride between the blocks of an iteration, dst_repeat_size /
    src_repeat_size between iterations (all uint16)."""
    _fields = (("dst_stride", 0, KnownTypes.uint16), ("src_stride", 0, KnownTypes.uint16),
               ("dst_repeat_size", 0, KnownTypes.uint16),
               ("src_repeat_size", 0, KnownTypes.uint16))

    def strides(self) -> tuple:
        """(block strides, repeat strides) of dst and src."""
        return ((self.dst_stride, self.src_stride), (self.dst_repeat_size, self.src_repeat_size))


class DataCopyExtParams(_ParamStruct):
    """The chunks of a data_copy_pad: block_count chunks of block_len bytes.

    src_stride / dst_stride are end-to-start gaps, in bytes on the GM side and in 32-byte blocks
    on the UB side; rsv is unused (ascendc-semantics.md 5.11)."""
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
    """The GM -> UB padding of data_copy_pad, its value of an explicit dtype.

    With is_pad, left_padding / right_padding elements (each at most 32 bytes) of padding_value
    (a number or traced scalar, converted to `dtype`, nearest-even for a float) are put around
    each block; is_pad and the paddings are uint8 runtime values."""

    def __init__(self, dtype: DataType, is_pad: RuntimeInt = False, left_padding: RuntimeInt = 0,
                 right_padding: RuntimeInt = 0, padding_value: RuntimeNumber = 0) -> None:
        from asc.language.core.ir_value import to_value
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
    """The GM -> UB padding of data_copy_pad, its value a uint64.

    As DataCopyPadExtParams without a dtype: padding_value is an integer (uint64), converted to
    the tensor's element type by the copy."""

    def __init__(self, is_pad: RuntimeInt = False, left_padding: RuntimeInt = 0,
                 right_padding: RuntimeInt = 0, padding_value: RuntimeInt = 0) -> None:
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
    """The sorted lists of a merge (mrg_sort, mrg_sort4): two to four LocalTensors of one dtype.

    `MrgSortSrcList(dtype, src1, src2, src3=None, src4=None)` (asc-api.md 4.12): UB tensors of
    `dtype` (float16 or float32); the merge's valid bits say how many take part."""

    def __init__(self, dtype: DataType, src1: LocalTensor, src2: LocalTensor,
                 src3: Optional[LocalTensor] = None, src4: Optional[LocalTensor] = None) -> None:
        require_builder("MrgSortSrcList")
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

    def tensors(self) -> list:
        """The lists, in order."""
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
    """gather_mask's source block stride, iterations and repeat strides (32-byte blocks).

    src0_block_stride (uint8), repeat_times (uint16), src0_repeat_stride (uint16) and
    src1_repeat_stride (uint8, the pattern tensor's)."""
    _fields = (("src0_block_stride", 1, KnownTypes.uint8), ("repeat_times", 1, KnownTypes.uint16),
               ("src0_repeat_stride", 0, KnownTypes.uint16),
               ("src1_repeat_stride", 0, KnownTypes.uint8))


class TransDataTo5HDParams(_ParamStruct):
    """trans_data_to_5hd's halves (1-byte types), iterations and repeat strides.

    dst_high_half / src_high_half (compile-time bools) pick the 16-byte half of each block for
    1-byte types; repeat_times is a uint8, the repeat strides uint16 in 32-byte blocks."""
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


# ---- cube structs (asc-api.md 4.2, 4.14; ascendc-semantics.md 1.4, 2.1, 3, 4) ----------------
# Their fields lower to the cube messages of proto/kernel.proto, one SSA id per field.

def _quant_modes():
    from asc.language.core.enums import QuantModes
    return QuantModes


class Nd2NzParams(_ParamStruct):
    """data_copy GM -> L1 from ND rows to NZ fractals (every field required, uint16).

    nd_num matrices of n_value rows x d_value elements (rows src_d_value elements apart,
    matrices src_nd_matrix_stride elements apart) land as C0-column blocks dst_nz_c0_stride
    32-byte units apart, rows dst_nz_n_stride units apart, matrices dst_nz_matrix_stride
    elements apart (ascendc-semantics.md 1.4)."""
    _fields = tuple((name, _REQUIRED, KnownTypes.uint16) for name in (
        "nd_num", "n_value", "d_value", "src_nd_matrix_stride", "src_d_value",
        "dst_nz_c0_stride", "dst_nz_n_stride", "dst_nz_matrix_stride"))


class LoadData2DParams(_ParamStruct):
    """load_data L1 -> L0A/L0B (LoadData 2D): which fractals move, and where to.

    repeat_times 512-byte fractals from fractal start_index, src_stride fractals apart, each
    stored dst_gap fractals after the previous one's end; if_transpose (a runtime bool)
    transposes each 16 x 16 b16 fractal; sid is ignored on A2 (ascendc-semantics.md 2.1)."""
    _fields = (("start_index", 0, KnownTypes.uint16), ("repeat_times", 1, KnownTypes.uint8),
               ("src_stride", 0, KnownTypes.uint16), ("sid", 0, KnownTypes.uint16),
               ("dst_gap", 0, KnownTypes.uint16), ("if_transpose", False, KnownTypes.int1),
               ("addr_mode", 0, KnownTypes.uint8))


class LoadData2dTransposeParams(_ParamStruct):
    """load_data_with_transpose L1 -> L0A/L0B: which squares of fractals move transposed.

    repeat_times squares (b16 one 16 x 16 fractal; b8 32 x 32 bytes and b32 16 x 16, two
    fractals each) from square start_index, src_stride squares apart, each transposed; a
    repeat's first output fractal dst_gap + 1 fractals after the last one's, its fractals
    dst_frac_gap + 1 apart (ascendc-semantics.md 2.2)."""
    _fields = (("start_index", 0, KnownTypes.uint16), ("repeat_times", 1, KnownTypes.uint8),
               ("src_stride", 0, KnownTypes.uint16), ("dst_gap", 0, KnownTypes.uint16),
               ("dst_frac_gap", 0, KnownTypes.uint16), ("addr_mode", 0, KnownTypes.uint8))


class LoadData2dTransposeParamsV2(_ParamStruct):
    """LoadData2dTransposeParams with src_frac_gap (asc-api.md 4.14), refused on Ascend 910B.

    load_data_with_transpose refuses it, naming the missing fact
    (asc/language/basic/cube_loads.py)."""
    _fields = (("start_index", 0, KnownTypes.uint16), ("repeat_times", 0, KnownTypes.uint8),
               ("src_stride", 0, KnownTypes.uint16), ("dst_gap", 0, KnownTypes.uint16),
               ("dst_frac_gap", 0, KnownTypes.uint16), ("src_frac_gap", 0, KnownTypes.uint16),
               ("addr_mode", 0, KnownTypes.uint8))


class DataCopyEnhancedParams(_ParamStruct):
    """data_copy's enhanced form's fields (asc-api.md 4.2), refused on Ascend 910B.

    data_copy refuses the form, naming the missing fact (asc/language/basic/data_copy.py)."""
    _fields = (("block_mode", BlockMode.BLOCK_MODE_NORMAL, BlockMode),
               ("deq_scale", DeqScale.DEQ_NONE, DeqScale), ("deq_value_in", 0, KnownTypes.uint64),
               ("sid_store_mode_in", 0, KnownTypes.uint8), ("is_relu_in", False, bool),
               ("pad_mode_in", pad_t.PAD_NONE, pad_t), ("pad_value_in", 0, KnownTypes.uint64))


class InitConstValueParams:
    """init_const_value's fields: repeats of blocks of a cube buffer filled with one value.

    repeat_times repeats of block_num blocks (32 bytes in A1/B1, 512 in A2/B2), dst_gap blocks
    between repeats (uint16 runtime values), filled with init_value (a Python or numpy number,
    or a traced scalar), converted to the tensor's type when it is emitted."""
    _FIELDS = (("repeat_times", KnownTypes.uint16), ("block_num", KnownTypes.uint16),
               ("dst_gap", KnownTypes.uint16))

    def __init__(self, repeat_times: RuntimeInt = 0, block_num: RuntimeInt = 0,
                 dst_gap: RuntimeInt = 0, init_value: RuntimeNumber = 0) -> None:
        require_builder("InitConstValueParams")
        for name, _ in self._FIELDS:
            value = ConstExpr.unwrap(locals()[name])
            if not is_runtime_int(value):
                raise TypeError(f"InitConstValueParams.{name} must be an int or a traced integer, "
                                f"got {type(value).__name__}")
            setattr(self, name, value)
        self.init_value = ConstExpr.unwrap(init_value)


class LoadData2DParamsV2(_ParamStruct):
    """pyasc's LoadData2DParamsV2 (its field types), refused by load_data on A2.

    A2 has no such load: the library's dav_c220 LoadData with it reports "not supported"."""
    _fields = (("m_start_position", 0, KnownTypes.uint32), ("k_start_position", 0, KnownTypes.uint32),
               ("m_step", 0, KnownTypes.uint16), ("k_step", 0, KnownTypes.uint16),
               ("src_stride", 0, KnownTypes.int32), ("dst_stride", 0, KnownTypes.uint16),
               ("if_transpose", False, KnownTypes.int1), ("sid", 0, KnownTypes.uint8))


class LoadDataRepeatParam(_ParamStruct):
    """set_load_data_repeat's registers: the repeats of the LoadData 3D loads after it.

    repeat_time blocks (0 makes LoadData 3D a NOP), repeat_stride apart (16 rows along M, C0
    columns along K), repeat_mode 0 along M, 1 along K."""
    _fields = (("repeat_time", 1, KnownTypes.uint8), ("repeat_stride", 0, KnownTypes.uint16),
               ("repeat_mode", 0, KnownTypes.uint8))


class LoadData3DParamsV2Pro(_ParamStruct):
    """LoadData 3D with the window and the filter packed into two uint64 words.

    ext_config = m_start_pt << 48 | k_start_pt << 32 |
    m_extension << 16 | k_extension, filter_config = dilation_h << 40 | dilation_w << 32 |
    filter_h << 24 | filter_w << 16 | stride_h << 8 | stride_w; the feature map and pad value
    come from the FMATRIX and PADDING registers (as an earlier LoadData3DParamsV2 load or
    set_load_data_padding_value left them)."""
    _fields = (("channel_size", 0, KnownTypes.uint16), ("en_transpose", False, KnownTypes.int1),
               ("en_small_k", False, KnownTypes.int1), ("filter_size_w", False, KnownTypes.int1),
               ("filter_size_h", False, KnownTypes.int1), ("f_matrix_ctrl", False, KnownTypes.int1),
               ("ext_config", 0, KnownTypes.uint64),
               ("filter_config", 0x10101010101, KnownTypes.uint64))


def _pad_list(api, value):
    value = ConstExpr.unwrap(value)
    if not isinstance(value, (list, tuple)) or len(value) != 4:
        raise TypeError(f"{api}.pad_list must be 4 values (left, right, top, bottom), got "
                        f"{value!r}")
    out = []
    for v in value:
        v = ConstExpr.unwrap(v)
        if not is_runtime_int(v):
            raise TypeError(f"{api}.pad_list must hold ints or traced integers, got "
                            f"{type(v).__name__}")
        out.append(cast(v, KnownTypes.uint8) if isinstance(v, PlainValue)
                   else KnownTypes.uint8.wrap(int(v)))
    return tuple(out)


class LoadData3DParamsV2(_ParamStruct):
    """LoadData 3D (img2col) of an NC1HWC0 feature map in L1 into L0A/L0B.

    The feature map has l1_h x l1_w pixels and channel_size channels; the load writes the
    [m_start_pt, +m_extension) x [k_start_pt, +k_extension) block of its im2col matrix
    (docs/cube.md, "LoadData 3D"). pad_list is (left, right, top, bottom); pad_value (a number
    or traced scalar) is converted to the tensors' dtype when loading."""
    _fields = (("pad_list", None, None), ("l1_h", 1, KnownTypes.uint16),
               ("l1_w", 1, KnownTypes.uint16), ("channel_size", 1, KnownTypes.uint16),
               ("k_extension", 1, KnownTypes.uint16), ("m_extension", 1, KnownTypes.uint16),
               ("k_start_pt", 0, KnownTypes.uint16), ("m_start_pt", 0, KnownTypes.uint16),
               ("stride_w", 1, KnownTypes.uint8), ("stride_h", 1, KnownTypes.uint8),
               ("filter_w", 1, KnownTypes.uint8), ("filter_h", 1, KnownTypes.uint8),
               ("dilation_filter_w", 1, KnownTypes.uint8),
               ("dilation_filter_h", 1, KnownTypes.uint8),
               ("en_transpose", False, KnownTypes.int1), ("pad_value", None, None),
               ("filter_size_w", False, KnownTypes.int1), ("filter_size_h", False, KnownTypes.int1),
               ("f_matrix_ctrl", False, KnownTypes.int1))
    _shown_defaults = {"pad_list": (0, 0, 0, 0), "pad_value": 0}
    _hints = {"pad_list": "Sequence[RuntimeInt]", "pad_value": "RuntimeNumber"}

    def __init__(self, *args, **kwargs) -> None:
        api = type(self).__name__
        require_builder(api)
        names = [f[0] for f in self._fields]
        values = bind_fields(api, names, args, kwargs)
        pad_list = values.pop("pad_list", (0, 0, 0, 0))
        pad_value = ConstExpr.unwrap(values.pop("pad_value", 0))
        if not is_runtime_number(pad_value):
            raise TypeError(f"{api}.pad_value must be a number or a traced scalar, got "
                            f"{type(pad_value).__name__}")
        scalar = [f for f in self._fields if f[0] not in ("pad_list", "pad_value")]
        struct = type("_Fields", (_ParamStruct,), {"_fields": tuple(scalar)})
        fields = struct(**values)
        for name, _, _ in scalar:
            setattr(self, name, getattr(fields, name))
        self.pad_list = _pad_list(api, pad_list)
        self.pad_value = pad_value


class LoadData3DParamsV1:
    """pyasc's LoadData3DParamsV1, kept as given and refused by load_data on A2.

    A2 has no v1 load (Ascend C's LoadData_3D page lists v1 for the Atlas training and
    inference products only)."""
    _names = ("pad_list", "l1_h", "l1_w", "c1_index", "fetch_filter_w", "fetch_filter_h",
              "left_top_w", "left_top_h", "stride_w", "stride_h", "filter_w", "filter_h",
              "dilation_filter_w", "dilation_filter_h", "jump_stride", "repeat_mode",
              "repeat_time", "c_size", "pad_value")

    __signature__ = inspect.Signature([
        inspect.Parameter(name, inspect.Parameter.POSITIONAL_OR_KEYWORD, default=default,
                          annotation="Sequence[RuntimeInt]" if name == "pad_list" else
                          "RuntimeNumber" if name == "pad_value" else "RuntimeInt")
        for name, default in zip(_names, ((0, 0, 0, 0), 1, 1, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1,
                                          0, 1, 0, 0))])  # asc-api.md 4.14

    def __init__(self, *args, **kwargs) -> None:
        require_builder(type(self).__name__)
        self.fields = bind_fields(type(self).__name__, self._names, args, kwargs)


class MmadParams:
    """mmad's m, n, k and flags, sent as one of Ascend C's two constructors.

    As in pyasc, the fields are sent only as one of Ascend C's two constructors: (m, n, k,
    is_bias, fm_offset, en_ssparse, en_winograd_a, en_winograd_b) when all five of is_bias ..
    en_winograd_b are given and none of unit_flag, cmatrix_source, cmatrix_init_val; (m, n, k,
    unit_flag, cmatrix_source, cmatrix_init_val) when those three are given and is_bias is not.
    Otherwise the struct is default-constructed and even m, n and k are dropped (asc-api.md
    4.14): every attribute reads None and the mmad computes nothing.

    Emitted fields (the others are None): m, n, k (uint16); is_bias, cmatrix_source,
    cmatrix_init_val (bools); unit_flag (uint8, Ascend C's field type). fm_offset, en_ssparse,
    en_winograd_a/b are checked and kept but have no effect on A2 (ascendc-semantics.md 3.1)."""

    _DTYPES = {"m": KnownTypes.uint16, "n": KnownTypes.uint16, "k": KnownTypes.uint16,
               "fm_offset": KnownTypes.int32, "unit_flag": KnownTypes.uint8}
    _BIAS_SET = ("is_bias", "fm_offset", "en_ssparse", "en_winograd_a", "en_winograd_b")
    _FLAG_SET = ("unit_flag", "cmatrix_source", "cmatrix_init_val")
    _FIELDS = ("m", "n", "k") + _BIAS_SET + _FLAG_SET

    def __init__(self, m: RuntimeInt = 0, n: RuntimeInt = 0, k: RuntimeInt = 0,
                 is_bias: Optional[RuntimeInt] = None, fm_offset: Optional[RuntimeInt] = None,
                 en_ssparse: Optional[RuntimeInt] = None,
                 en_winograd_a: Optional[RuntimeInt] = None,
                 en_winograd_b: Optional[RuntimeInt] = None,
                 unit_flag: Optional[RuntimeInt] = None,
                 cmatrix_source: Optional[RuntimeInt] = None,
                 cmatrix_init_val: Optional[RuntimeInt] = None) -> None:
        require_builder("MmadParams")
        given = {"m": m, "n": n, "k": k, "is_bias": is_bias, "fm_offset": fm_offset,
                 "en_ssparse": en_ssparse, "en_winograd_a": en_winograd_a,
                 "en_winograd_b": en_winograd_b, "unit_flag": unit_flag,
                 "cmatrix_source": cmatrix_source, "cmatrix_init_val": cmatrix_init_val}
        given = {name: ConstExpr.unwrap(value) for name, value in given.items()}
        bias_form = (all(given[f] is not None for f in self._BIAS_SET) and
                     all(given[f] is None for f in self._FLAG_SET))
        flag_form = all(given[f] is not None for f in self._FLAG_SET) and given["is_bias"] is None
        self._form = "bias" if bias_form else "flags" if flag_form else "default"
        # Only the fields sent are converted (and checked), as pyasc materialises only those.
        kept = (("m", "n", "k") + (self._BIAS_SET if bias_form else self._FLAG_SET)
                if self._form != "default" else ())
        for name in self._FIELDS:
            value = given[name] if name in kept else None
            if value is not None or name in kept:
                value = self._convert(name, value)
            setattr(self, name, value)

    def _convert(self, name, value):
        if not is_runtime_int(value):
            kind = "an int" if name in self._DTYPES else "a bool"
            raise TypeError(f"MmadParams.{name} must be {kind} or a traced scalar, got "
                            f"{type(value).__name__}")
        dtype = self._DTYPES.get(name)
        if dtype is None:  # a runtime bool
            return to_bool(value) if isinstance(value, PlainValue) else bool(value)
        return cast(value, dtype) if isinstance(value, PlainValue) else dtype.wrap(int(value))

    def __repr__(self):
        fields = ", ".join(f"{n}={getattr(self, n)!r}" for n in self._FIELDS
                           if getattr(self, n) is not None)
        return f"MmadParams({fields or 'default'})"


class FixpipeParamsV220(_ParamStruct):
    """fixpipe L0C -> GM/L1: the shape, strides, quantisation and layout of the copy.

    m_size x n_size elements, 16-column blocks src_stride rows apart in
    L0C, converted per quant_pre (a compile-time asc.QuantModes; deq_scalar is the uint64 quant
    word of the scalar modes) and relu_en, written row-major with dst_stride elements between
    rows (nd_num matrices src_nd_stride x 256 / dst_nd_stride elements apart) or as NZ."""
    _fields = (("n_size", _REQUIRED, KnownTypes.uint16), ("m_size", _REQUIRED, KnownTypes.uint16),
               ("src_stride", _REQUIRED, KnownTypes.uint16),
               ("dst_stride", _REQUIRED, KnownTypes.uint32),
               ("quant_pre", 0, _quant_modes()), ("deq_scalar", 0, KnownTypes.uint64),
               ("nd_num", 1, KnownTypes.uint16), ("src_nd_stride", 0, KnownTypes.uint16),
               ("dst_nd_stride", 0, KnownTypes.uint16), ("relu_en", False, KnownTypes.int1),
               ("unit_flag", 0, KnownTypes.uint8), ("is_channel_split", False, KnownTypes.int1))


class DataCopyCO12DstParams(_ParamStruct):
    """data_copy L0C -> GM/L1: the fixpipe instruction with its fields as they are.

    n_size x m_size, 16-column blocks src_stride rows apart in L0C, converted per quant_pre (the
    quant word is whatever QUANT_PRE holds: no deq_scalar here) and relu_pre, row-major with
    nz2nd_en (dst_stride elements between rows) or NZ (dst_stride 32-byte units between blocks)."""
    _fields = (("n_size", _REQUIRED, KnownTypes.uint16), ("m_size", _REQUIRED, KnownTypes.uint16),
               ("dst_stride", _REQUIRED, KnownTypes.uint32),
               ("src_stride", _REQUIRED, KnownTypes.uint16),
               ("quant_pre", 0, _quant_modes()), ("relu_pre", 0, KnownTypes.uint8),
               ("channel_split", False, KnownTypes.int1), ("nz2nd_en", False, bool))


class FixpipeConfig:
    """The fixpipe's output layout, a compile-time asc.CO2Layout (row-major or NZ).

    `FixpipeConfig.cfg_row_major()` (NZ -> ND, the default of fixpipe) or
    `FixpipeConfig.cfg_nz()`."""

    def __init__(self, layout: CO2Layout) -> None:
        require_builder("FixpipeConfig")
        layout = ConstExpr.unwrap(layout)
        if isinstance(layout, bool) or not isinstance(layout, int) or \
                layout not in iter(CO2Layout):
            raise TypeError(f"FixpipeConfig(): layout must be a compile-time asc.CO2Layout, got "
                            f"{layout!r}")
        self.layout = CO2Layout(layout)

    @classmethod
    def cfg_nz(cls) -> FixpipeConfig:
        """Ascend C's CFG_NZ: the output keeps L0C's NZ fractals."""
        return cls(CO2Layout.NZ)

    @classmethod
    def cfg_row_major(cls) -> FixpipeConfig:
        """Ascend C's CFG_ROW_MAJOR: the output is written row-major (NZ -> ND)."""
        return cls(CO2Layout.ROW_MAJOR)

    def __repr__(self):
        return f"FixpipeConfig({self.layout.name})"
