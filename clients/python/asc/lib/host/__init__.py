"""Host-side Matmul tiling (pyasc's `asc.lib.host`, asc-api.md 7): the platform description,
the enums of CANN's tiling API and the calculators that fill an `asc.adv.TCubeTiling`.

pyasc wraps CANN's C++ tiling library; this is a pure-Python reimplementation of the same
interface whose search is aicore-sim's own (docs/host_tiling.md). Typical use:

    tiling = host.MultiCoreMatmulTiling(host.get_ascendc_platform())
    tiling.set_a_type(host.TPosition.GM, host.CubeFormat.ND, host.DataType.DT_FLOAT16, False)
    ...
    tiling.set_dim(core_num)
    tiling.set_shape(m, n, k)
    assert tiling.get_tiling(tiling_struct) == 0
"""
from asc import _unsupported
from asc.lib.host.enums import (CubeFormat, DataType, DequantType, MatrixMadType, MatrixTraverse,
                                ScheduleType, TPosition)
from asc.lib.host.params import MatmulConfigParams
from asc.lib.host.platform import (CoreMemType, PlatformAscendC, PlatformAscendCManager,
                                   get_ascendc_platform)
from asc.lib.host.tiling import BatchMatmulTiling, MatmulApiTiling, MultiCoreMatmulTiling

__all__ = [
    "get_ascendc_platform", "PlatformAscendC", "PlatformAscendCManager", "CoreMemType",
    "MatmulApiTiling", "MultiCoreMatmulTiling", "BatchMatmulTiling", "MatmulConfigParams",
    "TPosition", "CubeFormat", "DataType", "MatrixTraverse", "MatrixMadType", "DequantType",
    "ScheduleType",
]

# Names pyasc lacks too stay AttributeErrors (asc/_unsupported.py lists none of this module's).
__getattr__ = _unsupported.module_getattr(__name__)
