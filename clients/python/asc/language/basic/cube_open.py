"""pyasc's cube names whose behaviour on Ascend 910B rests on a fact no reference gives
(docs/cube.md, "Open facts"). Their parameter structs construct as pyasc's do, so a kernel
traces up to the call, and the call raises `not supported by aicore-sim yet: NAME needs FACT`
at the user's line: the missing fact, not a guess, decides what the simulator would compute.
"""
from __future__ import annotations

from asc.codegen.builder import require_builder
from asc.codegen.errors import NotSupportedError
from asc.language.core.dtype import KnownTypes
from asc.language.core.tensor import LocalTensor
from asc.language.core.types import LoadData2DParams, MmadParams, _ParamStruct

__all__ = ["LoadImageToLocalParams", "load_image_to_local", "load_data_with_sparse",
           "mmad_with_sparse"]

# What each name needs (its sources: ascendc-semantics.md 2, 3; asc-api.md 4.2, 4.14).
_SPARSE_INDEX = ("the index format of the 4:2 structured sparsity (which two of every four "
                 "elements an index selects and how the indices pack into the idx tensor)")
_AIPP = ("the AIPP unit's arithmetic (its colour-space conversion, data-type conversion, "
         "padding and cropping of a GM image on its way to L1)")


class LoadImageToLocalParams(_ParamStruct):
    """load_image_to_local's window: a rectangle of an image with its padding (uint16 fields).

    horiz_size x vert_size pixels from (horiz_start_pos, vert_start_pos) of an image
    src_horiz_size wide, with top/bottom/left/right padding (asc-api.md 4.2)."""
    _fields = (("horiz_size", 2, KnownTypes.uint16), ("vert_size", 2, KnownTypes.uint16),
               ("horiz_start_pos", 0, KnownTypes.uint16), ("vert_start_pos", 0, KnownTypes.uint16),
               ("src_horiz_size", 2, KnownTypes.uint16), ("top_pad_size", 0, KnownTypes.uint16),
               ("bot_pad_size", 0, KnownTypes.uint16), ("left_pad_size", 0, KnownTypes.uint16),
               ("right_pad_size", 0, KnownTypes.uint16))


def load_image_to_local(dst: LocalTensor, load_data_params: LoadImageToLocalParams) -> None:
    """Refused with NotSupportedError: the AIPP unit's arithmetic from GM to L1 is not known.

    pyasc's LoadImageToLocal (asc-api.md 4.2) copies an image window through the AIPP unit
    that set_aipp_functions configures; the kernel traces up to the call."""
    require_builder("load_image_to_local")
    raise NotSupportedError(f"asc.load_image_to_local needs {_AIPP}")


def load_data_with_sparse(dst: LocalTensor, src: LocalTensor, idx: LocalTensor,
                          load_data_params: LoadData2DParams) -> None:
    """Refused with NotSupportedError: the index format of the 4:2 structured sparsity is unknown.

    pyasc's LoadDataWithSparse (asc-api.md 4.14); the kernel traces up to the call."""
    require_builder("load_data_with_sparse")
    raise NotSupportedError(f"asc.load_data_with_sparse needs {_SPARSE_INDEX}")


def mmad_with_sparse(dst: LocalTensor, fm: LocalTensor, filter: LocalTensor,  # noqa: A002
                     mmad_params: MmadParams) -> None:
    """Refused with NotSupportedError: the index format of the 4:2 structured sparsity is unknown.

    pyasc's MmadWithSparse (asc-api.md 4.14); the kernel traces up to the call."""
    require_builder("mmad_with_sparse")
    raise NotSupportedError(f"asc.mmad_with_sparse needs {_SPARSE_INDEX}")
