"""set_aipp_functions and the Aipp*Params classes (asc-api.md 4.2): a configuration of the image
pre-processing unit, which only load_image_to_local uses; plain copies after it are unchanged, as
in pyasc's generalization test."""
import numpy as np
import pytest

import asc
import asc.lib.runtime as rt
from asc.runtime.jit import MockTensor


@asc.jit
def aipp_kernel(x: asc.GlobalAddress, y: asc.GlobalAddress, n: asc.ConstExpr[int]):
    gx, gy = asc.GlobalTensor(), asc.GlobalTensor()
    gx.set_global_buffer(x)
    gy.set_global_buffer(y)
    cfg = asc.AippParams(dtype=asc.int8, swap_params=asc.AippSwapParams(is_swap_rb=True))
    asc.set_aipp_functions(gx, asc.AippInputFormat.RGB888_U8, cfg)
    a = asc.LocalTensor(x.dtype, asc.TPosition.VECIN, 0, n)
    b = asc.LocalTensor(x.dtype, asc.TPosition.VECOUT, 4096, n)
    asc.data_copy(a, gx, count=n)
    asc.set_flag(asc.HardEvent.MTE2_V, 0)
    asc.wait_flag(asc.HardEvent.MTE2_V, 0)
    asc.data_copy(b, a, count=n)
    asc.set_flag(asc.HardEvent.V_MTE3, 0)
    asc.wait_flag(asc.HardEvent.V_MTE3, 0)
    asc.data_copy(gy, b, count=n)


@pytest.mark.parametrize("dtype", [np.uint8, np.int8, np.float16])
def test_copies_after_set_aipp_functions_are_plain(device, dtype):
    x = (np.arange(256) % 100).astype(dtype)
    y = np.zeros_like(x)
    aipp_kernel[1, rt.current_stream()](x, y, 256)
    np.testing.assert_array_equal(y, x)


def test_params_take_their_defaults():
    cfg = asc.AippParams(asc.uint8)
    assert cfg.swap_params == asc.AippSwapParams()
    assert cfg.dtc_params.dtc_var_ch2 == 1.0
    assert asc.AippColorSpaceConvParams().csc_bias_out_2 == 0
    with pytest.raises(TypeError, match="swap_params must be an asc.AippSwapParams"):
        asc.AippParams(asc.uint8, swap_params=asc.AippPaddingParams())


@asc.jit
def bad_format_kernel(x: asc.GlobalAddress):
    gx = asc.GlobalTensor()
    gx.set_global_buffer(x)
    asc.set_aipp_functions(gx, 3, asc.AippParams(asc.uint8))


def test_an_unknown_input_format_is_named():
    with pytest.raises(Exception, match="input_format must be an asc.AippInputFormat, got 3"):
        bad_format_kernel.compile(MockTensor(asc.uint8))


@asc.jit(matmul_cube_only=True)
def load_image_kernel(x: asc.GlobalAddress):
    l1 = asc.LocalTensor(asc.uint8, asc.TPosition.A1, 0, 4096)
    asc.load_image_to_local(l1, asc.LoadImageToLocalParams(horiz_size=4, vert_size=4))


def test_load_image_to_local_says_which_fact_it_needs():
    from asc.codegen.errors import CodegenError
    with pytest.raises(CodegenError, match="not supported by aicore-sim yet: "
                                           "asc.load_image_to_local needs the AIPP unit's arithmetic"):
        load_image_kernel.compile(MockTensor(asc.uint8))
