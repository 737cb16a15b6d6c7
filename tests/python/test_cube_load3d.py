"""LoadData 3D (img2col) and its registers in the frontend (docs/cube.md, "LoadData 3D"): a 3x3
convolution through load_data with LoadData3DParamsV2 + mmad + fixpipe against numpy's direct
convolution (small integers: every sum exact), and the IR each new name emits, pyasc-style with
`Launcher.run` patched, with the refusals of A2's missing forms at the user's line."""
import numpy as np
import pytest

import asc
import asc.lib.runtime as rt
import asc.runtime.config as config
from asc import _unsupported
from asc._proto import kernel_pb2 as ir_pb
from asc.codegen.errors import CodegenError, NotSupportedError
from ir_walk import walk
from test_cube_frontend import mock_launcher_run  # noqa: F401 - the fixture

C, N = 16, 16  # one C1 plane of channels, 16 filters


@asc.jit(kernel_type=config.KernelType.AIC_ONLY)
def conv_kernel(x: asc.GlobalAddress, w: asc.GlobalAddress, y: asc.GlobalAddress,
                h: asc.ConstExpr[int], wd: asc.ConstExpr[int], stride: asc.ConstExpr[int],
                dilation: asc.ConstExpr[int], pad: asc.ConstExpr[int], m: asc.ConstExpr[int],
                pad_value: asc.ConstExpr):
    if asc.ascend_is_aic():
        k = 9 * C
        x_gm, w_gm, y_gm = asc.GlobalTensor(), asc.GlobalTensor(), asc.GlobalTensor()
        x_gm.set_global_buffer(x)
        w_gm.set_global_buffer(w)
        y_gm.set_global_buffer(y)
        l1 = asc.LocalTensor(asc.uint8, asc.TPosition.A1, 0, 512 * 1024)
        x_l1 = l1.reinterpret_cast(asc.float16)
        w_l1 = l1[256 * 1024:].reinterpret_cast(asc.float16)
        a_l0 = asc.LocalTensor(asc.uint8, asc.TPosition.A2, 0, 64 * 1024).reinterpret_cast(
            asc.float16)
        b_l0 = asc.LocalTensor(asc.uint8, asc.TPosition.B2, 0, 64 * 1024).reinterpret_cast(
            asc.float16)
        c_l0 = asc.LocalTensor(asc.uint8, asc.TPosition.CO1, 0, 128 * 1024).reinterpret_cast(
            asc.float32)
        asc.data_copy(x_l1, x_gm, asc.DataCopyParams(1, h * wd * C * 2 // 32, 0, 0))
        asc.data_copy(w_l1, w_gm, asc.Nd2NzParams(1, N, k, 0, k, N, 1, 0))
        asc.pipe_barrier(asc.PipeID.PIPE_ALL)
        asc.load_data(a_l0, x_l1, asc.LoadData3DParamsV2(
            [pad, pad, pad, pad], h, wd, C, k, m, 0, 0, stride, stride, 3, 3, dilation, dilation,
            False, pad_value, False, False, False))
        asc.load_data(b_l0, w_l1, asc.LoadData2DParams(0, k // 16, 1, 0, 0, False, 0))
        asc.pipe_barrier(asc.PipeID.PIPE_ALL)
        asc.mmad(c_l0, a_l0, b_l0, asc.MmadParams(m=m, n=N, k=k, unit_flag=0,
                                                   cmatrix_source=False, cmatrix_init_val=True))
        asc.pipe_barrier(asc.PipeID.PIPE_ALL)
        asc.fixpipe(y_gm, c_l0, asc.FixpipeParamsV220(n_size=N, m_size=m,
                                                      src_stride=(m + 15) // 16 * 16,
                                                      dst_stride=N,
                                                      quant_pre=asc.QuantModes.NoQuant),
                    asc.FixpipeConfig.cfg_row_major())


def direct_conv(x, w, stride, dilation, pad, pad_value):
    """x (H, W, C), w (N, 3, 3, C): y (Ho * Wo, N) with the border filled with pad_value."""
    xp = np.pad(x.astype(np.float64), ((pad, pad), (pad, pad), (0, 0)), constant_values=pad_value)
    span = 2 * dilation + 1
    ho = (xp.shape[0] - span) // stride + 1
    wo = (xp.shape[1] - span) // stride + 1
    y = np.zeros((ho, wo, w.shape[0]))
    for kh in range(3):
        for kw in range(3):
            win = xp[kh * dilation:kh * dilation + (ho - 1) * stride + 1:stride,
                     kw * dilation:kw * dilation + (wo - 1) * stride + 1:stride]
            y += win @ w[:, kh, kw, :].astype(np.float64).T
    return y.reshape(ho * wo, -1)


@pytest.mark.parametrize("h, wd, stride, dilation, pad, pad_value",
                         [(6, 5, 1, 1, 1, 0.0), (9, 8, 2, 2, 1, 0.0), (5, 7, 1, 1, 2, 1.0)])
def test_a_3x3_convolution_through_img2col_matches_numpy(device, h, wd, stride, dilation, pad,
                                                         pad_value):
    rng = np.random.default_rng(h * wd)
    x = rng.integers(-2, 3, (h, wd, C)).astype(np.float16)
    w = rng.integers(-3, 4, (N, 3, 3, C)).astype(np.float16)
    want = direct_conv(x, w, stride, dilation, pad, pad_value)
    m = want.shape[0]
    y = np.full((m, N), -1, np.float32)
    report = conv_kernel[1, rt.current_stream()](x, w.reshape(N, -1), y, h, wd, stride,
                                                 dilation, pad, m, pad_value)
    assert report.status == "OK"
    assert np.array_equal(y, want.astype(np.float32))


# ---- the IR of each name, pyasc-style ----------------------------------------------------------

def setup_function():
    config.set_platform(config.Backend.Model, check=False)


def consts(ir):
    return {m.result: (m.int_value, ir_pb.DType.Name(m.dtype))
            for k, m, _ in walk(ir.body) if k == "constant"}


def ops_of(ir, kind):
    return [m for k, m, _ in walk(ir.body) if k == kind]


@asc.jit(kernel_type=config.KernelType.AIC_ONLY)
def registers_kernel():
    a_l0 = asc.LocalTensor(asc.float16, asc.TPosition.A2, 0, 16 * 1024)
    l1 = asc.LocalTensor(asc.float16, asc.TPosition.A1, 0, 16 * 1024)
    asc.set_load_data_boundary(4096)
    asc.set_load_data_padding_value(7)
    asc.set_load_data_repeat(asc.LoadDataRepeatParam(3, 2, 1))
    asc.load_data(a_l0, l1, asc.LoadData3DParamsV2((1, 2, 3, 4), 8, 8, 16, 32, 48, 16, 5, 1, 2,
                                                   3, 3, 1, 1, True, 1.5, False, True, False))
    asc.load_data(a_l0, l1, asc.LoadData3DParamsV2Pro(16, False, False, False, False, False,
                                                      (5 << 48) | (16 << 32) | (48 << 16) | 32))


def test_the_registers_and_both_3d_forms_emit_their_ops(mock_launcher_run):
    registers_kernel[1]()
    ir = mock_launcher_run.call_args.args[0].ir
    c = consts(ir)
    cfg = ops_of(ir, "store_config")
    kinds = [ir_pb.StoreConfigOp.Kind.Name(op.kind) for op in cfg]
    assert kinds == ["SET_LOAD_DATA_BOUNDARY", "SET_LOAD_DATA_PADDING_VALUE",
                     "SET_LOAD_DATA_REPEAT"]
    assert c[cfg[0].value] == (4096, "DT_UINT32")
    assert c[cfg[1].value] == (7, "DT_INT32")  # a Python int, as pyasc materialises it
    assert (c[cfg[2].value], c[cfg[2].repeat_stride], c[cfg[2].repeat_mode]) == \
        ((3, "DT_UINT8"), (2, "DT_UINT16"), (1, "DT_UINT8"))
    v2, pro = ops_of(ir, "load_data_3d")
    assert not v2.pro and pro.pro
    assert [c[i][0] for i in v2.pad_list] == [1, 2, 3, 4]
    assert [c[getattr(v2, f)][0] for f in ("l1_h", "l1_w", "channel_size", "k_extension",
                                           "m_extension", "k_start_pt", "m_start_pt",
                                           "stride_w", "stride_h", "filter_w")] == \
        [8, 8, 16, 32, 48, 16, 5, 1, 2, 3]
    assert c[v2.en_transpose] == (1, "DT_BOOL") and c[v2.filter_size_h] == (1, "DT_BOOL")
    pad = [m for k, m, _ in walk(ir.body) if k == "constant" and m.result == v2.pad_value][0]
    assert (pad.float_value, ir_pb.DType.Name(pad.dtype)) == (1.5, "DT_FLOAT16")
    assert c[pro.ext_config] == ((5 << 48) | (16 << 32) | (48 << 16) | 32, "DT_UINT64")
    assert c[pro.filter_config] == (0x10101010101, "DT_UINT64")
    assert pro.l1_h == 0 and len(pro.pad_list) == 0 and pro.pad_value == 0


@asc.jit(kernel_type=config.KernelType.AIC_ONLY)
def v1_kernel():
    a_l0 = asc.LocalTensor(asc.float16, asc.TPosition.A2, 0, 16 * 1024)
    l1 = asc.LocalTensor(asc.float16, asc.TPosition.A1, 0, 16 * 1024)
    params = asc.LoadData3DParamsV1((0, 0, 0, 0), 16, 16, 0, 0, 0, 0, 0, 1, 1, 3, 3, 1, 1, 1, 0,
                                    1, 0, 0)
    asc.load_data(a_l0, l1, params)  # refused here


@asc.jit(kernel_type=config.KernelType.AIC_ONLY)
def v2_2d_kernel():
    a_l0 = asc.LocalTensor(asc.float16, asc.TPosition.A2, 0, 16 * 1024)
    l1 = asc.LocalTensor(asc.float16, asc.TPosition.A1, 0, 16 * 1024)
    asc.load_data(a_l0, l1, asc.LoadData2DParamsV2(0, 0, 16, 16, 0, 0, False, 0))  # refused


@pytest.mark.parametrize("kernel, name", [(v1_kernel, "LoadData3DParamsV1"),
                                          (v2_2d_kernel, "LoadData2DParamsV2")])
def test_a2s_missing_loads_are_refused_at_the_line_naming_the_chip(kernel, name):
    with pytest.raises(CodegenError) as info:
        kernel.compile()
    assert isinstance(info.value.__cause__, NotSupportedError)
    text = str(info.value)
    assert f"not supported by aicore-sim yet: {name}: Ascend 910B" in text and "refused" in text


def test_the_new_names_are_no_longer_listed_as_unsupported():
    for name in ("LoadData2DParamsV2", "LoadData3DParamsV1", "LoadData3DParamsV2",
                 "LoadData3DParamsV2Pro", "LoadDataRepeatParam", "set_load_data_boundary",
                 "set_load_data_padding_value", "set_load_data_repeat"):
        assert not any(name in names.split() for names in _unsupported._NOT_YET.values())
        assert hasattr(asc, name)
