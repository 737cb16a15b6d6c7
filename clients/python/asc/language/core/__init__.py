"""Core language objects: dtypes, enums, traced scalars, tensors, ranges, properties."""
from asc import _unsupported
from asc.language.core.array import ShapeInfo, array, get_shape_size
from asc.language.core.auto_tensor import LocalTensorAuto
from asc.language.core.constexpr import ConstExpr
from asc.language.core.dtype import *  # noqa: F401,F403
from asc.language.core.dtype import __all__ as _dtype_all
from asc.language.core.enums import *  # noqa: F401,F403
from asc.language.core.enums import __all__ as _enums_all
from asc.language.core.ir_value import PlainValue, number
from asc.language.core.local_mem_allocator import LocalMemAllocator
from asc.language.core.properties import *  # noqa: F401,F403
from asc.language.core.properties import __all__ as _prop_all
from asc.language.core.tensor import GlobalAddress, GlobalTensor, LocalTensor
from asc.language.core.types import (BinaryRepeatParams, CopyRepeatParams, DataCopyExtParams,
                                     DataCopyPadExtParams, DataCopyPadParams, DataCopyParams,
                                     MrgSortSrcList, UnaryRepeatParams)
from asc.language.core.types import (BrcbRepeatParams, GatherMaskParams, GatherRepeatParams,
                                     Nz2NdParamsFull, SliceInfo, TransDataTo5HDParams,
                                     TransposeParamsExt)
from asc.language.core.types import (DataCopyCO12DstParams, FixpipeConfig, FixpipeParamsV220,
                                     LoadData2DParams, LoadData2dTransposeParams,
                                     LoadData2dTransposeParamsV2, DataCopyEnhancedParams,
                                     InitConstValueParams, LoadData2DParamsV2,
                                     LoadData3DParamsV1, LoadData3DParamsV2,
                                     LoadData3DParamsV2Pro, LoadDataRepeatParam,
                                     MmadParams, Nd2NzParams)
from asc.language.core.utils import ceildiv, inline, range, static_assert, static_range

__all__ = (["ConstExpr", "PlainValue", "number", "GlobalAddress", "GlobalTensor", "LocalTensor",
            "LocalTensorAuto", "LocalMemAllocator", "ShapeInfo", "array", "get_shape_size",
            "DataCopyParams", "BinaryRepeatParams", "UnaryRepeatParams", "CopyRepeatParams",
            "DataCopyExtParams", "DataCopyPadExtParams", "DataCopyPadParams", "MrgSortSrcList",
            "BrcbRepeatParams", "GatherRepeatParams", "GatherMaskParams", "TransDataTo5HDParams",
            "TransposeParamsExt", "Nz2NdParamsFull", "SliceInfo", "Nd2NzParams",
            "LoadData2DParams", "LoadData2dTransposeParams", "LoadData2dTransposeParamsV2",
            "DataCopyEnhancedParams", "InitConstValueParams", "LoadData2DParamsV2",
            "LoadData3DParamsV1", "LoadData3DParamsV2", "LoadData3DParamsV2Pro",
            "LoadDataRepeatParam", "MmadParams", "FixpipeParamsV220", "FixpipeConfig",
            "DataCopyCO12DstParams", "ceildiv", "inline", "range",
            "static_assert", "static_range"]
           + list(_dtype_all) + list(_enums_all) + list(_prop_all))

# pyasc names not implemented yet raise NotSupportedError, not AttributeError (asc/_unsupported.py).
__getattr__ = _unsupported.module_getattr(__name__)
