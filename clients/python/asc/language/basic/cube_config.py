"""The cube core's control registers (asc-api.md 4.4): `set_fix_pipe_pre_quant_flag(config)` loads
QUANT_PRE, the uint64 quant word of a fixpipe's scalar quant modes; `set_hf32_mode(hf32_mode)`
sets CTRL[46] (float Mmad inputs rounded to HF32); `set_hf32_trans_mode(trans_mode)` CTRL[47]
(HF32's rounding: False nearest even, True toward zero); `set_mm_layout_transform(mm_layout_mode)`
CTRL[51] (True: the cube computes N first). Each is a scalar-unit register write in program order
(StoreConfigOp); on a vector core it is a run-time error naming the call, as the registers are
the cube core's.
"""
from asc._proto import kernel_pb2
from asc.codegen.builder import require_builder
from asc.language.core.dtype import KnownTypes as KT
from asc.language.core.ir_value import to_bool, to_value

__all__ = ["set_fix_pipe_pre_quant_flag", "set_hf32_mode", "set_hf32_trans_mode",
           "set_mm_layout_transform"]

_KIND = kernel_pb2.StoreConfigOp


def _emit(api, kind, value_id):
    builder = require_builder(api)
    op = builder.emit("store_config")
    op.kind = kind
    op.value = value_id


def set_fix_pipe_pre_quant_flag(config) -> None:
    """QUANT_PRE = `config` (uint64): the quant word of the scalar quant modes (DEQF16, REQ8,
    QF322B8_PRE) of the fixpipes after it."""
    require_builder("set_fix_pipe_pre_quant_flag")
    _emit("set_fix_pipe_pre_quant_flag", _KIND.SET_FIX_PIPE_PRE_QUANT,
          to_value(config, KT.uint64, "set_fix_pipe_pre_quant_flag").id)


def set_hf32_mode(hf32_mode) -> None:
    """CTRL[46]: float inputs of the Mmads after it are rounded to HF32 before multiplying."""
    require_builder("set_hf32_mode")
    _emit("set_hf32_mode", _KIND.SET_HF32_MODE, to_bool(hf32_mode).id)


def set_hf32_trans_mode(trans_mode) -> None:
    """CTRL[47]: HF32's rounding, round to nearest even (False) or toward zero (True)."""
    require_builder("set_hf32_trans_mode")
    _emit("set_hf32_trans_mode", _KIND.SET_HF32_TRANS_MODE, to_bool(trans_mode).id)


def set_mm_layout_transform(mm_layout_mode) -> None:
    """CTRL[51]: the cube computes N first (True, for a fixpipe converting to ND) or M first."""
    require_builder("set_mm_layout_transform")
    _emit("set_mm_layout_transform", _KIND.SET_MM_LAYOUT_TRANSFORM, to_bool(mm_layout_mode).id)
