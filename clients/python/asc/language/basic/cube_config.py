"""The cube core's control registers (asc-api.md 4.4): `set_fix_pipe_pre_quant_flag(config)` loads
QUANT_PRE, the uint64 quant word of a fixpipe's scalar quant modes; `set_hf32_mode(hf32_mode)`
sets CTRL[46] (float Mmad inputs rounded to HF32); `set_hf32_trans_mode(trans_mode)` CTRL[47]
(HF32's rounding: False nearest even, True toward zero); `set_mm_layout_transform(mm_layout_mode)`
CTRL[51] (True: the cube computes N first). The LoadData 3D registers (docs/cube.md "LoadData
3D"): `set_load_data_boundary(boundary)` (bytes of L1 past which img2col reads wrap to its start;
0 none), `set_load_data_padding_value(pad_value)` (PADDING, the value of padded cells for the
V2Pro form) and `set_load_data_repeat(LoadDataRepeatParam(...))`. Each is a scalar-unit register write in program order
(StoreConfigOp); on a vector core it is a run-time error naming the call, as the registers are
the cube core's.
"""
from __future__ import annotations

from asc._proto import kernel_pb2
from asc.codegen.builder import require_builder
from asc.language.core.constexpr import ConstExpr
from asc.language.core.dtype import KnownTypes as KT
from asc.language.core.hints import RuntimeBool, RuntimeInt, RuntimeNumber
from asc.language.core.ir_value import is_runtime_number, to_bool, to_value
from asc.language.core.types import LoadDataRepeatParam

__all__ = ["set_fix_pipe_pre_quant_flag", "set_hf32_mode", "set_hf32_trans_mode",
           "set_mm_layout_transform", "set_load_data_boundary", "set_load_data_padding_value",
           "set_load_data_repeat"]

_KIND = kernel_pb2.StoreConfigOp


def _emit(api, kind, value_id):
    builder = require_builder(api)
    op = builder.emit("store_config")
    op.kind = kind
    op.value = value_id


def set_fix_pipe_pre_quant_flag(config: RuntimeInt) -> None:
    """Loads QUANT_PRE with `config` (uint64), the quant word of the later scalar-mode fixpipes.

    The word of the scalar quant modes (DEQF16, REQ8, QF322B8_PRE): bits 31..13 the scale M1,
    35..32 the pre-shift, 36 its enable, 45..37 the offset, 46 the int8 sign (4.4)."""
    require_builder("set_fix_pipe_pre_quant_flag")
    _emit("set_fix_pipe_pre_quant_flag", _KIND.SET_FIX_PIPE_PRE_QUANT,
          to_value(config, KT.uint64, "set_fix_pipe_pre_quant_flag").id)


def set_hf32_mode(hf32_mode: RuntimeBool) -> None:
    """Sets CTRL[46]: float inputs of the Mmads after it are rounded to HF32 before multiplying.

    HF32 keeps 10 mantissa bits; set_hf32_trans_mode picks the rounding (nearest-even by
    default)."""
    require_builder("set_hf32_mode")
    _emit("set_hf32_mode", _KIND.SET_HF32_MODE, to_bool(hf32_mode).id)


def set_hf32_trans_mode(trans_mode: RuntimeBool) -> None:
    """Sets CTRL[47]: HF32's rounding, to nearest even (False) or toward zero (True)."""
    require_builder("set_hf32_trans_mode")
    _emit("set_hf32_trans_mode", _KIND.SET_HF32_TRANS_MODE, to_bool(trans_mode).id)


def set_mm_layout_transform(mm_layout_mode: RuntimeBool) -> None:
    """Sets CTRL[51]: the cube computes N first (True, for a fixpipe to ND) or M first."""
    require_builder("set_mm_layout_transform")
    _emit("set_mm_layout_transform", _KIND.SET_MM_LAYOUT_TRANSFORM, to_bool(mm_layout_mode).id)


def set_load_data_boundary(boundary: RuntimeInt) -> None:
    """Sets the L1 byte address past which a LoadData 3D's reads wrap to L1's start.

    0: no wrap; 1..1023 is undefined on the chip and refused when it runs."""
    require_builder("set_load_data_boundary")
    _emit("set_load_data_boundary", _KIND.SET_LOAD_DATA_BOUNDARY,
          to_value(boundary, KT.uint32, "set_load_data_boundary").id)


def set_load_data_padding_value(pad_value: RuntimeNumber) -> None:
    """Loads PADDING with `pad_value`'s bits: the value of padded cells of the later V2Pro loads.

    A Python int is materialised as an int32, a float as a float32, as pyasc does; a traced
    scalar keeps its type's bits."""
    require_builder("set_load_data_padding_value")
    pad_value = ConstExpr.unwrap(pad_value)
    if not is_runtime_number(pad_value):
        raise TypeError("set_load_data_padding_value(): pad_value must be a number or a traced "
                        f"scalar, got {type(pad_value).__name__}")
    _emit("set_load_data_padding_value", _KIND.SET_LOAD_DATA_PADDING_VALUE,
          to_value(pad_value, None, "set_load_data_padding_value").id)


def set_load_data_repeat(param: LoadDataRepeatParam) -> None:
    """Loads the repeat registers of the LoadData 3D loads after it (a LoadDataRepeatParam)."""
    api = "set_load_data_repeat"
    builder = require_builder(api)
    if not isinstance(param, LoadDataRepeatParam):
        raise TypeError(f"{api}(): 'param' must be a LoadDataRepeatParam, got "
                        f"{type(param).__name__}")
    op = builder.emit("store_config")
    op.kind = _KIND.SET_LOAD_DATA_REPEAT
    op.value = to_value(param.repeat_time, KT.uint8).id
    op.repeat_stride = to_value(param.repeat_stride, KT.uint16).id
    op.repeat_mode = to_value(param.repeat_mode, KT.uint8).id
