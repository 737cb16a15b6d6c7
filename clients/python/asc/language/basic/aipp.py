"""`set_aipp_functions` and its parameter classes (asc-api.md 4.2, "Other movement ops"): the
configuration of the AI Core's image pre-processing unit (AIPP).

AIPP only acts on `load_image_to_local` (GM -> L1), which aicore-sim does not model yet (it stays
in the not-supported list). `set_aipp_functions` checks its arguments as pyasc does and records
the configuration for the kernel; it changes nothing else, as on the chip, where `data_copy`
never goes through AIPP."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Optional, overload

from asc.codegen.builder import require_builder
from asc.language.core.constexpr import ConstExpr
from asc.language.core.dtype import DataType
from asc.language.core.enums import AippInputFormat
from asc.language.core.tensor import GlobalTensor

__all__ = ["set_aipp_functions", "AippParams", "AippSwapParams", "AippPaddingParams",
           "AippSingleLineParams", "AippDataTypeConvParams", "AippChannelPaddingParams",
           "AippColorSpaceConvParams"]


@dataclass
class AippPaddingParams:
    """AIPP padding group: the padding mode and the value of each of four channels."""

    padding_mode: int = 0
    padding_value_ch0: int = 0
    padding_value_ch1: int = 0
    padding_value_ch2: int = 0
    padding_value_ch3: int = 0


@dataclass
class AippSwapParams:
    """AIPP swap group: whether to swap R/B, U/V and the alpha channel."""

    is_swap_rb: bool = False
    is_swap_uv: bool = False
    is_swap_ax: bool = False


@dataclass
class AippSingleLineParams:
    """AIPP single-line group: whether to copy one line only."""

    is_single_line_copy: bool = False


@dataclass
class AippDataTypeConvParams:
    """AIPP data-type conversion group: per-channel mean, min and variance, and the rounding."""

    dtc_mean_ch0: int = 0
    dtc_mean_ch1: int = 0
    dtc_mean_ch2: int = 0
    dtc_min_ch0: float = 0.0
    dtc_min_ch1: float = 0.0
    dtc_min_ch2: float = 0.0
    dtc_var_ch0: float = 1.0
    dtc_var_ch1: float = 1.0
    dtc_var_ch2: float = 1.0
    dtc_round_mode: int = 0


@dataclass
class AippChannelPaddingParams:
    """AIPP channel padding group: the channel padding mode and its value."""

    c_padding_mode: int = 0
    c_padding_value: int = 0


@dataclass
class AippColorSpaceConvParams:
    """AIPP colour-space conversion group: the switch, the 3 x 3 matrix and the biases."""

    is_enable_csc: bool = False
    csc_matrix_r0_c0: int = 0
    csc_matrix_r0_c1: int = 0
    csc_matrix_r0_c2: int = 0
    csc_matrix_r1_c0: int = 0
    csc_matrix_r1_c1: int = 0
    csc_matrix_r1_c2: int = 0
    csc_matrix_r2_c0: int = 0
    csc_matrix_r2_c1: int = 0
    csc_matrix_r2_c2: int = 0
    csc_bias_in_0: int = 0
    csc_bias_in_1: int = 0
    csc_bias_in_2: int = 0
    csc_bias_out_0: int = 0
    csc_bias_out_1: int = 0
    csc_bias_out_2: int = 0


@dataclass
class AippParams:
    """The AIPP configuration set_aipp_functions records: the dtype and the parameter groups.

    `AippParams(dtype, padding_params=None, swap_params=None, single_line_params=None,
    dtc_params=None, c_padding_params=None, csc_params=None)` (asc-api.md 4.2): an unset group
    takes its defaults, as Ascend C's AippParams initialises them."""

    dtype: DataType
    padding_params: Optional[AippPaddingParams] = None
    swap_params: Optional[AippSwapParams] = None
    single_line_params: Optional[AippSingleLineParams] = None
    dtc_params: Optional[AippDataTypeConvParams] = None
    c_padding_params: Optional[AippChannelPaddingParams] = None
    csc_params: Optional[AippColorSpaceConvParams] = None

    def __post_init__(self) -> None:
        # Every unset group takes its defaults, as Ascend C's AippParams initialises them.
        self.dtype = ConstExpr.unwrap(self.dtype)
        if not isinstance(self.dtype, DataType):
            raise TypeError(f"AippParams(): dtype must be an asc DataType, got {self.dtype!r}")
        defaults = (("padding_params", AippPaddingParams), ("swap_params", AippSwapParams),
                    ("single_line_params", AippSingleLineParams),
                    ("dtc_params", AippDataTypeConvParams),
                    ("c_padding_params", AippChannelPaddingParams),
                    ("csc_params", AippColorSpaceConvParams))
        for name, cls in defaults:
            value = getattr(self, name)
            if value is None:
                setattr(self, name, cls())
            elif not isinstance(value, cls):
                raise TypeError(f"AippParams(): {name} must be an asc.{cls.__name__}, got "
                                f"{type(value).__name__}")


@overload
def set_aipp_functions(src0: GlobalTensor, input_format: AippInputFormat,
                       config: AippParams) -> None: ...


@overload
def set_aipp_functions(src0: GlobalTensor, src1: GlobalTensor, input_format: AippInputFormat,
                       config: AippParams) -> None: ...


def set_aipp_functions(src0: GlobalTensor, *args) -> None:
    """Checks and records the AIPP configuration for later load_image_to_local calls.

    `set_aipp_functions(src0, input_format, config)` or `(src0, src1, input_format, config)`
    (asc-api.md 4.2): src0 (and src1) the GM image as GlobalTensors, input_format an
    asc.AippInputFormat, config an AippParams. It changes nothing else, as on the chip, where
    data_copy never goes through AIPP (the module docstring)."""
    builder = require_builder("set_aipp_functions")
    if len(args) == 2:
        src1, (input_format, config) = None, args
    elif len(args) == 3:
        src1, input_format, config = args
    else:
        raise TypeError("set_aipp_functions() takes (src0, input_format, config) or (src0, src1, "
                        f"input_format, config), got {1 + len(args)} arguments")
    for name, t in (("src0", src0), ("src1", src1)):
        if t is not None and not isinstance(t, GlobalTensor):
            raise TypeError(f"set_aipp_functions(): {name} must be a GlobalTensor (the image in "
                            f"GM), got {type(t).__name__}")
    fmt = ConstExpr.unwrap(input_format)
    if isinstance(fmt, bool) or not isinstance(fmt, int) or fmt not in iter(AippInputFormat):
        raise TypeError(f"set_aipp_functions(): input_format must be an asc.AippInputFormat, "
                        f"got {input_format!r}")
    if not isinstance(config, AippParams):
        raise TypeError(f"set_aipp_functions(): config must be an asc.AippParams, got "
                        f"{type(config).__name__}")
    builder.aipp_config = (src0, src1, AippInputFormat(fmt), config)
