"""Advanced API (asc-api.md 6, 10.5), always written `asc.adv.X`: the Matmul stack (Matmul,
MatmulType, MatmulConfig and its helpers, register_matmul), the tiling structs, and the library
beyond Matmul (quant, softmax, softmax_flash_v2, rmsnorm, swiglu, the element-wise math, concat and
extract: docs/adv.md), each emitted as Ascend C's instruction sequence. A pyasc name not built yet
raises NotSupportedError (asc/_unsupported.py)."""
from asc import _unsupported
from asc.language.adv.matmul import Matmul, register_matmul
from asc.language.adv.matmul_config import (MatmulBatchParams, MatmulConfig, MatmulFuncParams,
                                            MatmulQuantParams, MatmulShapeParams, MatmulType,
                                            get_basic_config, get_ib_share_norm_config,
                                            get_matmul_api_tiling, get_mdl_config,
                                            get_mm_config, get_normal_config,
                                            get_special_basic_config, get_special_mdl_config)
from asc.language.adv.activation import swiglu
from asc.language.adv.math import tanh
from asc.language.adv.math_gamma import digamma, lgamma
from asc.language.adv.sort import concat, extract
from asc.language.adv.math_trig import acos, asin, atan, cos, sin, tan
from asc.language.adv.math_hyperbolic import (acosh, asinh, atanh, cosh, erf, erfc, log,
                                            sinh)
from asc.language.adv.math_rounding import ceil, floor, frac, round, sign, trunc
from asc.language.adv.math_arith import axpy, exp, power, xor
from asc.language.adv.normalization import rmsnorm
from asc.language.adv.quant import QuantConfig, quant
from asc.language.adv.softmax import softmax
from asc.language.adv.softmax_flash import SoftmaxConfig, SoftMaxShapeInfo, softmax_flash_v2
from asc.language.adv.tiling import (MatmulApiStaticTiling, RmsNormTiling, SoftmaxTiling,
                                     TCubeTiling)

__all__ = ["Matmul", "register_matmul", "MatmulType", "MatmulConfig", "MatmulShapeParams",
           "MatmulQuantParams", "MatmulBatchParams", "MatmulFuncParams", "get_normal_config",
           "get_mdl_config", "get_special_mdl_config", "get_basic_config",
           "get_special_basic_config", "get_ib_share_norm_config", "get_mm_config",
           "get_matmul_api_tiling", "TCubeTiling", "SoftmaxTiling", "RmsNormTiling",
           "MatmulApiStaticTiling", "quant", "QuantConfig", "tanh", "swiglu", "softmax",
           "softmax_flash_v2", "SoftMaxShapeInfo", "SoftmaxConfig",
           "sinh", "cosh", "asinh", "acosh", "atanh", "log", "erf", "erfc",
           "rmsnorm", "sin", "cos", "tan", "asin", "acos", "atan",
           "ceil", "floor", "round", "trunc", "frac", "sign", "exp", "power", "xor",
           "axpy", "digamma", "lgamma", "concat", "extract"]

# pyasc names not implemented yet raise NotSupportedError, not AttributeError (asc/_unsupported.py).
__getattr__ = _unsupported.module_getattr(__name__)
