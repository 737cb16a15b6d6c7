"""The cube core's first instructions (asc-api.md 4.2, 4.14; ascendc-semantics.md 1-4): the ND ->
NZ copy GM -> L1 (data_copy with Nd2NzParams, which data_copy.py dispatches here), load_data
L1 -> L0A/L0B, mmad into L0C and fixpipe out of L0C. One IR message each (proto/kernel.proto,
"cube core"); every struct field is the SSA id of its value.

Operand positions are not checked while tracing (pyasc's tracing does not check them): the
simulator's decoder refuses what the chip cannot do, at the kernel line.
"""
from __future__ import annotations

from typing import Union, overload

from asc._proto import kernel_pb2
from asc.codegen.builder import require_builder
from asc.codegen.errors import NotSupportedError
from asc.language.core.dispatch import Overload, Param, dispatch, of_type
from asc.language.core.dtype import KnownTypes as KT
from asc.language.core.enums import CO2Layout, QuantModes, TPosition
from asc.language.core.ir_value import to_bool, to_value
from asc.language.core.tensor import GlobalTensor, LocalTensor, place_name, tensor_ref
from asc.language.core.constexpr import ConstExpr
from asc.language.core.enums import PipeID
from asc.language.core.types import (DataCopyCO12DstParams, FixpipeConfig, FixpipeParamsV220,
                                     LoadData2DParams, LoadData2DParamsV2, LoadData3DParamsV1,
                                     LoadData3DParamsV2, LoadData3DParamsV2Pro, MmadParams,
                                     Nd2NzParams)
from asc.language.basic.cube_config import set_fix_pipe_pre_quant_flag
from asc.language.basic.sync import pipe_barrier

__all__ = ["load_data", "mmad", "fixpipe"]  # co1_copy is data_copy's (data_copy.py)

_BOOL = KT.int1


def _field_ids(params, fields):
    """{field: SSA id} of a struct's fields, each converted to its type ((name, dtype) pairs)."""
    return {name: to_value(getattr(params, name), dtype).id for name, dtype in fields}


def _require(api: str, **tensors) -> None:
    for name, (t, kinds) in tensors.items():
        if not isinstance(t, kinds):
            names = " or ".join(k.__name__ for k in kinds)
            raise TypeError(f"{api}(): '{name}' must be a {names}, got {type(t).__name__}")


def _same_dtype(api: str, dst, src) -> None:
    if dst.dtype != src.dtype:
        raise TypeError(f"{api}(): dst and src must have the same dtype, got {dst.dtype} and "
                        f"{src.dtype}")


_TENSORS = (LocalTensor, GlobalTensor)

# ---- data_copy(dst L1, src GM, Nd2NzParams) -------------------------------------------------

_ND2NZ_FIELDS = tuple((name, KT.uint16) for name in (
    "nd_num", "n_value", "d_value", "src_nd_matrix_stride", "src_d_value", "dst_nz_c0_stride",
    "dst_nz_n_stride", "dst_nz_matrix_stride"))


def nd2nz_copy(dst, src, params: Nd2NzParams) -> None:
    """data_copy's Nd2NzParams form: one Nd2NzCopyOp GM -> L1 on MTE2."""
    api = "data_copy"
    builder = require_builder(api)
    _same_dtype(api, dst, src)
    dst_ref, src_ref = tensor_ref(dst), tensor_ref(src)
    if src_ref.space == kernel_pb2.MEM_UB:
        # The library emulates it: UB -> GM workspace on the AIV, then a GM -> L1 ND2NZ that it
        # asks the AIC for (ascendc-semantics.md 1.4).
        raise NotSupportedError("asc.data_copy(dst, src, Nd2NzParams) from UB (the library's "
                                "UB -> GM -> L1 emulation)")
    if (dst_ref.space, src_ref.space) != (kernel_pb2.MEM_L1, kernel_pb2.MEM_GM):
        raise TypeError(f"{api}(): Nd2NzParams copies GM -> L1 (a GlobalTensor into a "
                        f"LocalTensor of A1/B1/C1), got {place_name(src)} -> "
                        f"{place_name(dst)}")
    ids = _field_ids(params, _ND2NZ_FIELDS)
    op = builder.emit("nd2nz_copy")
    op.dst.CopyFrom(dst_ref)
    op.src.CopyFrom(src_ref)
    for name, value in ids.items():
        setattr(op, name, value)


# ---- load_data --------------------------------------------------------------------------------

_LOAD_2D_FIELDS = (("start_index", KT.uint16), ("repeat_times", KT.uint8),
                   ("src_stride", KT.uint16), ("sid", KT.uint16), ("dst_gap", KT.uint16),
                   ("if_transpose", _BOOL), ("addr_mode", KT.uint8))


_LOAD_3D_FLAGS = (("en_transpose", _BOOL), ("filter_size_w", _BOOL), ("filter_size_h", _BOOL),
                  ("f_matrix_ctrl", _BOOL))
_LOAD_3D_FIELDS = tuple((name, KT.uint16) for name in (
    "l1_h", "l1_w", "channel_size", "k_extension", "m_extension", "k_start_pt",
    "m_start_pt")) + tuple((name, KT.uint8) for name in (
        "stride_w", "stride_h", "filter_w", "filter_h", "dilation_filter_w",
        "dilation_filter_h")) + _LOAD_3D_FLAGS
_LOAD_3D_PRO_FIELDS = (("channel_size", KT.uint16), ("en_small_k", _BOOL),
                       ("ext_config", KT.uint64), ("filter_config", KT.uint64)) + _LOAD_3D_FLAGS


@overload
def load_data(dst: LocalTensor, src: Union[LocalTensor, GlobalTensor],
              params: LoadData2DParams) -> None: ...


@overload
def load_data(dst: LocalTensor, src: LocalTensor,
              params: Union[LoadData3DParamsV2, LoadData3DParamsV2Pro]) -> None: ...


@overload
def load_data(dst: LocalTensor, src: LocalTensor,
              params: Union[LoadData3DParamsV1, LoadData2DParamsV2]) -> None: ...


def load_data(dst: LocalTensor, src: Union[LocalTensor, GlobalTensor], *args, **kwargs) -> None:
    """Loads fractals into L0A/L0B: LoadData 2D, or the img2col LoadData 3D.

    `load_data(dst, src, params)` (asc-api.md 4.14): with LoadData2DParams, fractals L1 ->
    L0A/L0B on MTE1 (GM -> L0A/L0B on MTE2 when src is a GlobalTensor; ascendc-semantics.md
    2.1); with LoadData3DParamsV2 / LoadData3DParamsV2Pro, the img2col load L1 -> L0A/L0B on
    MTE1 (docs/cube.md, "LoadData 3D"). dst and src have one dtype. LoadData3DParamsV1 and
    LoadData2DParamsV2 are refused: Ascend 910B has neither load.

    Numerics: exact (bits move; a 2D transpose moves 16 x 16 b16 fractals). Padding cells of
    a 3D load take pad_value converted to the tensors' dtype (nearest-even for a float)."""
    api = "load_data"
    builder = require_builder(api)
    # pyasc emits nothing for a dst that is no LocalTensor; a silent no-op helps nobody.
    _require(api, dst=(dst, (LocalTensor,)), src=(src, _TENSORS))

    def two_d(params):
        _same_dtype(api, dst, src)
        ids = _field_ids(params, _LOAD_2D_FIELDS)
        dst_ref, src_ref = tensor_ref(dst), tensor_ref(src)
        op = builder.emit("load_data_2d")
        op.dst.CopyFrom(dst_ref)
        op.src.CopyFrom(src_ref)
        for name, value in ids.items():
            setattr(op, name, value)

    def three_d(params, pro):
        _same_dtype(api, dst, src)
        op = builder.emit("load_data_3d")
        op.dst.CopyFrom(tensor_ref(dst))
        op.src.CopyFrom(tensor_ref(src))
        op.pro = pro
        fields = _LOAD_3D_PRO_FIELDS if pro else _LOAD_3D_FIELDS
        for name, value in _field_ids(params, fields).items():
            setattr(op, name, value)
        if not pro:
            op.pad_list.extend(to_value(v, KT.uint8).id for v in params.pad_list)
            op.pad_value = to_value(params.pad_value, dst.dtype, "pad_value").id

    def v2(params):
        three_d(params, False)

    def v2_pro(params):
        three_d(params, True)

    def refuse(what):
        def fail(params):
            raise NotSupportedError(f"{type(params).__name__}: Ascend 910B (Atlas A2) has no "
                                    f"{what}")
        return fail

    dispatch(api, [Overload([Param("params", of_type(LoadData2DParams))], two_d),
                   Overload([Param("params", of_type(LoadData3DParamsV2))], v2),
                   Overload([Param("params", of_type(LoadData3DParamsV2Pro))], v2_pro),
                   # Ascend C's LoadData_3D page: v1 is for the Atlas training / inference
                   # products only; the dav_c220 library reports LoadData2DParamsV2 unsupported.
                   Overload([Param("params", of_type(LoadData3DParamsV1))],
                            refuse("LoadData 3D v1 (Ascend C lists it for Atlas training and "
                                   "inference products only)")),
                   Overload([Param("params", of_type(LoadData2DParamsV2))],
                            refuse("LoadData 2D v2 (the library's dav_c220 LoadData reports it "
                                   "not supported)"))], args, kwargs)


# ---- mmad -------------------------------------------------------------------------------------

# The MmadOp fields (MmadParams attributes of the same names) and their types; an attribute left
# None stays 0, the field's default.
_MMAD_FIELDS = (("m", KT.uint16), ("n", KT.uint16), ("k", KT.uint16), ("is_bias", _BOOL),
                ("unit_flag", KT.uint8), ("cmatrix_source", _BOOL),
                ("cmatrix_init_val", _BOOL))


@overload
def mmad(dst: LocalTensor, fm: LocalTensor, filter: LocalTensor,  # noqa: A002
         params: MmadParams) -> None: ...


@overload
def mmad(dst: LocalTensor, fm: LocalTensor, filter: LocalTensor,  # noqa: A002
         bias: LocalTensor, params: MmadParams) -> None: ...


def mmad(dst: LocalTensor, fm: LocalTensor, filter: LocalTensor,  # noqa: A002 - pyasc's name
         *args, **kwargs) -> None:
    """Matrix multiply on the cube: L0C (CO1) = L0A (A2) x L0B (B2) (+ C or bias) on PIPE_M.

    `mmad(dst, fm, filter, params)` or `mmad(dst, fm, filter, bias, params)` (asc-api.md 4.14):
    params.m x params.k of fm (Zz) times params.k x params.n of filter (Zn) into dst (Nz); any
    of m, n, k 0 is a NOP. cmatrix_init_val (and is_bias) decide whether C is overwritten or
    accumulated (ascendc-semantics.md 3.2). A bias tensor in C2 (the bias table) sets
    cmatrix_source, as the library does; a bias in CO1 is the accumulator itself and is not
    passed on (the library's mad takes no address for it). Types: float16 / bfloat16 / float32
    into float32, int8 into int32.

    Numerics: every product is exact; each output element sums its products over K in
    C0-wide chunks in increasing k, a chunk's products summed exactly, and adds each chunk's sum
    to C with one rounding to float32, nearest-even (the vendor reference model's chunking; the
    chip's internal order is not public). int8 sums are exact and saturate to int32 after each
    chunk. With set_hf32_mode each float32 input is first rounded to HF32 (10 mantissa bits),
    nearest-even or toward zero by set_hf32_trans_mode (docs/cube.md)."""
    api = "mmad"
    builder = require_builder(api)
    _require(api, dst=(dst, (LocalTensor,)), fm=(fm, (LocalTensor,)),
             filter=(filter, (LocalTensor,)))

    def emit(params, bias=None):
        ids = {name: to_value(getattr(params, name), dtype).id
               for name, dtype in _MMAD_FIELDS if getattr(params, name) is not None}
        refs = {"dst": tensor_ref(dst), "fm": tensor_ref(fm), "filter": tensor_ref(filter)}
        if bias is not None:
            ids.pop("cmatrix_source", None)  # the bias's position decides it
            if bias.pos == TPosition.C2:
                refs["bias"] = tensor_ref(bias)
                ids["cmatrix_source"] = to_value(True, _BOOL).id
            elif bias.pos != TPosition.CO1:
                refs["bias"] = tensor_ref(bias)  # the library allows CO1 and C2 only: the
                # decoder refuses it, naming the position
        op = builder.emit("mmad")
        for name, ref in refs.items():
            getattr(op, name).CopyFrom(ref)
        for name, value in ids.items():
            setattr(op, name, value)

    def without_bias(params):
        emit(params)

    def with_bias(bias, params):
        emit(params, bias)

    dispatch(api, [
        Overload([Param("params", of_type(MmadParams))], without_bias),
        Overload([Param("bias", of_type(LocalTensor)), Param("params", of_type(MmadParams))],
                 with_bias),
    ], args, kwargs)


# ---- fixpipe ----------------------------------------------------------------------------------

_FIXPIPE_FIELDS = (("n_size", KT.uint16), ("m_size", KT.uint16), ("src_stride", KT.uint16),
                   ("dst_stride", KT.uint32), ("deq_scalar", KT.uint64), ("nd_num", KT.uint16),
                   ("src_nd_stride", KT.uint16), ("dst_nd_stride", KT.uint16),
                   ("relu_en", _BOOL), ("unit_flag", KT.uint8), ("is_channel_split", _BOOL))


class _RowMajor:
    """fixpipe's default config, pyasc's uncalled `FixpipeConfig.cfg_row_major`."""

    def __call__(self):
        return FixpipeConfig.cfg_row_major()

    def __repr__(self):
        return "FixpipeConfig.cfg_row_major"


_ROW_MAJOR = _RowMajor()


# The quant modes whose word is QUANT_PRE and those reading a word per column (4.4).
_SCALAR_QUANT = (QuantModes.DEQF16, QuantModes.QF322B8_PRE, QuantModes.REQ8)
_VECTOR_QUANT = (QuantModes.VDEQF16, QuantModes.VQF322B8_PRE, QuantModes.VREQ8)
# The fixpipe buffer holds 256 words per fixpipe; the library runs a wider N in 128-column
# chunks (GenFixpipeTilingV220, ascendc-semantics.md 4.2).
_FB_WORDS, _FB_CHUNK = 256, 128


def _emit_fixpipe(dst, src, ids, quant_pre, nz, cbuf_workspace=None) -> None:
    """One FixpipeOp: `ids` are its fields' SSA ids."""
    refs = {"dst": tensor_ref(dst), "src": tensor_ref(src)}
    if cbuf_workspace is not None:
        refs["cbuf_workspace"] = tensor_ref(cbuf_workspace)
    op = require_builder("fixpipe").emit("fixpipe")
    for name, ref in refs.items():
        getattr(op, name).CopyFrom(ref)
    for name, value in ids.items():
        setattr(op, name, value)
    op.quant_pre = int(quant_pre)
    op.nz_layout = nz


def _vector_chunks(dst, src, cbuf_workspace, params, ids, mode, nz) -> None:
    """The library's vector-mode sequence (kernel_operator_fixpipe_v2_impl.h): per chunk of N
    its words L1 -> FB, then PIPE_FIX's barrier and the chunk's fixpipe. The model reads the
    words from the workspace itself (docs/cube.md), so a chunk is the barrier and the op."""
    n = ConstExpr.unwrap(params.n_size)
    if not isinstance(n, int) or n <= _FB_WORDS:
        pipe_barrier(PipeID.PIPE_FIX)
        _emit_fixpipe(dst, src, ids, mode, nz, cbuf_workspace)
        return
    for start in range(0, n, _FB_CHUNK):
        chunk = min(_FB_CHUNK, n - start)
        blocks = start // 16
        src_at = src[blocks * params.src_stride * 16]
        dst_at = dst[blocks * params.dst_stride * 32 // dst.dtype.sizeof()] if nz else dst[start]
        chunk_ids = dict(ids, n_size=to_value(chunk, KT.uint16).id)
        pipe_barrier(PipeID.PIPE_FIX)
        _emit_fixpipe(dst_at, src_at, chunk_ids, mode, nz, cbuf_workspace[start])


@overload
def fixpipe(dst: Union[GlobalTensor, LocalTensor], src: LocalTensor, params: FixpipeParamsV220,
            config: FixpipeConfig = ...) -> None: ...


@overload
def fixpipe(dst: Union[GlobalTensor, LocalTensor], src: LocalTensor, cbuf_workspace: LocalTensor,
            params: FixpipeParamsV220, config: FixpipeConfig = ...) -> None: ...


def fixpipe(dst: Union[GlobalTensor, LocalTensor], src: LocalTensor, *args, **kwargs) -> None:
    """Copies L0C to GM (or L1) on PIPE_FIX, converted per the quant mode, row-major or NZ.

    `fixpipe(dst, src, params, config=FixpipeConfig.cfg_row_major)` or `fixpipe(dst, src,
    cbuf_workspace, params, config=...)` (asc-api.md 4.14): params a FixpipeParamsV220;
    cbuf_workspace the L1 tensor of the vector quant modes' uint64 words, one per column. The
    instructions are the library's (ascendc-semantics.md 4.2): a scalar mode first loads
    deq_scalar into QUANT_PRE, into GM a PIPE_FIX barrier precedes the fixpipe, and a vector
    mode runs N in chunks.

    Numerics: NoQuant moves float32 / int32 exactly. F322F16 and F322BF16 round to
    nearest-even and saturate (overflow to the largest finite value, NaN to 0). DEQF16, REQ8
    and QF322B8 (and their vector forms): x (pre-shifted and saturated to int16 with the MCB
    bit) times the word's scale M1 exactly (in double), then DEQF16 rounds once to float16,
    saturating at +-65504; REQ8 / QF322B8 round to nearest-even, clamp to [-256, 255], add the
    9-bit offset and clamp to int8 or uint8 (ascendc-semantics.md 4.4). relu_en: negative
    values become +0 before the conversion."""
    api = "fixpipe"
    require_builder(api)
    _require(api, dst=(dst, _TENSORS), src=(src, (LocalTensor,)))

    def emit(params, config, cbuf_workspace=None):
        if config is _ROW_MAJOR:
            config = config()
        if config.layout == CO2Layout.COLUMN_MAJOR:
            raise NotSupportedError("asc.fixpipe with CO2Layout.COLUMN_MAJOR (A2's fixpipe "
                                    "writes NZ or row-major)")
        nz = config.layout == CO2Layout.NZ
        mode = QuantModes(params.quant_pre)
        ids = _field_ids(params, _FIXPIPE_FIELDS)
        if cbuf_workspace is not None and mode in _VECTOR_QUANT:
            _vector_chunks(dst, src, cbuf_workspace, params, ids, mode, nz)
            return
        if cbuf_workspace is None and mode in _SCALAR_QUANT:
            set_fix_pipe_pre_quant_flag(params.deq_scalar)
        if cbuf_workspace is None and isinstance(dst, GlobalTensor):
            pipe_barrier(PipeID.PIPE_FIX)
        # Otherwise the library emits nothing (a scalar mode with a workspace) or no barrier
        # (into L1); the decoder refuses what the chip cannot do, naming the fix.
        _emit_fixpipe(dst, src, ids, mode, nz, cbuf_workspace)

    def plain(params, config):
        emit(params, config)

    def with_workspace(cbuf_workspace, params, config):
        emit(params, config, cbuf_workspace)

    config = Param("config", of_type(FixpipeConfig), _ROW_MAJOR, "FixpipeConfig")
    dispatch(api, [
        Overload([Param("params", of_type(FixpipeParamsV220)), config], plain),
        Overload([Param("cbuf_workspace", of_type(LocalTensor)),
                  Param("params", of_type(FixpipeParamsV220)), config], with_workspace),
    ], args, kwargs)


# ---- data_copy(dst GM/L1, src L0C, DataCopyCO12DstParams) ------------------------------------

_CO12_FIELDS = (("n_size", KT.uint16), ("m_size", KT.uint16), ("src_stride", KT.uint16),
                ("dst_stride", KT.uint32), ("channel_split", _BOOL))


def co1_copy(dst, src, params: DataCopyCO12DstParams) -> None:
    """data_copy's DataCopyCO12DstParams form: on 2201 the library passes its fields straight
    to the fixpipe instruction (copy_matrix_cc_to_gm / _cbuf, kernel_operator_data_copy_impl.h)
    and sets no register: the quant word is what QUANT_PRE holds (set_fix_pipe_pre_quant_flag).
    The vector modes read the FB address of set_fix_pipe_config, which the model has not."""
    api = "data_copy"
    _require(api, dst=(dst, _TENSORS), src=(src, (LocalTensor,)))
    mode = QuantModes(params.quant_pre)
    if mode in _VECTOR_QUANT:
        raise NotSupportedError(f"asc.data_copy(dst, src, DataCopyCO12DstParams) with "
                                f"QuantModes.{mode.name} (its words come from the fixpipe "
                                f"buffer set_fix_pipe_config points at; use fixpipe(dst, src, "
                                f"cbuf_workspace, params))")
    ids = _field_ids(params, _CO12_FIELDS)
    ids["is_channel_split"] = ids.pop("channel_split")
    ids["relu_en"] = to_bool(params.relu_pre).id  # reluPre 1 is the normal ReLU
    _emit_fixpipe(dst, src, ids, mode, not params.nz2nd_en)
