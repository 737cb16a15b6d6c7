"""transpose (plain and Ext) and trans_data_to_5hd in its three list forms (asc-api.md 4.11,
ascendc-semantics.md 5.9, 5.10) against numpy, bit exact."""
import numpy as np
import pytest

import asc
import asc.lib.runtime as rt
from asc.runtime.errors import KernelCheckError


def source(dtype, n, seed=1):
    rng = np.random.default_rng(seed)
    if np.dtype(dtype).kind == "f":
        return rng.uniform(-100, 100, n).astype(dtype)
    info = np.iinfo(dtype)
    return rng.integers(info.min, info.max, n, dtype=dtype, endpoint=True)


# ---- transpose ------------------------------------------------------------------------------

@asc.jit
def transpose_kernel(x: asc.GlobalAddress, out: asc.GlobalAddress, in_place: asc.ConstExpr):
    gx, go = asc.GlobalTensor(), asc.GlobalTensor()
    gx.set_global_buffer(x)
    go.set_global_buffer(out)
    s = asc.LocalTensor(x.dtype, asc.TPosition.VECIN, 0, 256)
    d = asc.LocalTensor(x.dtype, asc.TPosition.VECOUT, 1024, 256)
    asc.data_copy(s, gx, 256)
    asc.set_flag(asc.HardEvent.MTE2_V, 0)
    asc.wait_flag(asc.HardEvent.MTE2_V, 0)
    asc.set_vector_mask(0, 1, dtype=x.dtype, mode=asc.MaskMode.NORMAL)  # ignored (6.3)
    if in_place:
        asc.transpose(s, s)  # src and dst may alias (ascendc-semantics.md 5.9)
        asc.pipe_barrier(asc.PipeID.PIPE_V)
        asc.adds(d, s, 0, 256)
    else:
        asc.transpose(d, s)
    asc.reset_mask()
    asc.set_flag(asc.HardEvent.V_MTE3, 0)
    asc.wait_flag(asc.HardEvent.V_MTE3, 0)
    asc.data_copy(go, d, 256)


@pytest.mark.parametrize("dtype", ["float16", "int16", "uint16"])
def test_transpose_16x16(device, dtype):
    x = source(dtype, 256)
    out = np.zeros(256, dtype=dtype)
    transpose_kernel[1, rt.current_stream()](x, out, False)
    np.testing.assert_array_equal(out.reshape(16, 16), x.reshape(16, 16).T)


@pytest.mark.parametrize("dtype", ["float16", "int16"])
def test_transpose_in_place(device, dtype):
    x = source(dtype, 256)
    out = np.zeros(256, dtype=dtype)
    transpose_kernel[1, rt.current_stream()](x, out, True)
    np.testing.assert_array_equal(out.reshape(16, 16), x.reshape(16, 16).T)


def test_transpose_rejects_4_byte_elements(device):
    with pytest.raises(Exception, match="dtype float32 is not supported"):
        transpose_kernel[1, rt.current_stream()](np.zeros(256, np.float32),
                                                 np.zeros(256, np.float32), False)


@asc.jit
def transpose_ext_kernel(x: asc.GlobalAddress, out: asc.GlobalAddress, n: asc.ConstExpr,
                         c: asc.ConstExpr, h: asc.ConstExpr, w: asc.ConstExpr,
                         ttype: asc.ConstExpr, tmp_dtype: asc.ConstExpr):
    gx, go = asc.GlobalTensor(), asc.GlobalTensor()
    gx.set_global_buffer(x)
    go.set_global_buffer(out)
    size = n * c * h * w
    s = asc.LocalTensor(x.dtype, asc.TPosition.VECIN, 0, size)
    d = asc.LocalTensor(x.dtype, asc.TPosition.VECOUT, 8192, size)
    pipe = asc.TPipe()
    q = asc.TQue(asc.TPosition.VECCALC, 1)
    pipe.init_buffer(q, 1, (16 + c) * 16 * 8 * 4)
    tmp = q.alloc_tensor(tmp_dtype)
    asc.data_copy(s, gx, size)
    asc.set_flag(asc.HardEvent.MTE2_V, 0)
    asc.wait_flag(asc.HardEvent.MTE2_V, 0)
    params = asc.TransposeParamsExt(n_size=n, c_size=c, h_size=h, w_size=w, transpose_type=ttype)
    asc.transpose(d, s, tmp, params)
    asc.set_flag(asc.HardEvent.V_MTE3, 0)
    asc.wait_flag(asc.HardEvent.V_MTE3, 0)
    asc.data_copy(go, d, size)
    q.free_tensor(tmp)


T = asc.TransposeType


@pytest.mark.parametrize("dtype", ["float16", "int16"])
def test_transpose_ext_nchw_to_nhwc(device, dtype):
    n, c, h, w = 1, 16, 4, 4  # pyasc's T2 case: permute(0, 2, 3, 1)
    x = source(dtype, n * c * h * w)
    out = np.zeros_like(x)
    transpose_ext_kernel[1, rt.current_stream()](x, out, n, c, h, w, T.TRANSPOSE_NCHW2NHWC,
                                                 asc.uint8)
    want = x.reshape(n, c, h, w).transpose(0, 2, 3, 1).reshape(-1)
    np.testing.assert_array_equal(out, want)


def test_transpose_ext_nhwc_to_nchw(device):
    n, c, h, w = 2, 16, 2, 8
    x = source("float16", n * c * h * w)
    out = np.zeros_like(x)
    transpose_ext_kernel[1, rt.current_stream()](x, out, n, c, h, w, T.TRANSPOSE_NHWC2NCHW,
                                                 asc.uint8)
    want = x.reshape(n, h, w, c).transpose(0, 3, 1, 2).reshape(-1)
    np.testing.assert_array_equal(out, want)


def test_transpose_ext_nd2nd_b16(device):
    n, c, h, w = 1, 1, 32, 16
    x = source("uint16", h * w)
    out = np.zeros_like(x)
    transpose_ext_kernel[1, rt.current_stream()](x, out, n, c, h, w, T.TRANSPOSE_ND2ND_B16,
                                                 asc.uint8)
    np.testing.assert_array_equal(out.reshape(w, h), x.reshape(h, w).T)


def test_transpose_ext_tmp_buffer_must_be_uint8(device):
    with pytest.raises(Exception, match="shared_tmp_buffer must be a uint8 tensor"):
        transpose_ext_kernel[1, rt.current_stream()](
            np.zeros(256, np.float16), np.zeros(256, np.float16), 1, 16, 4, 4,
            T.TRANSPOSE_NCHW2NHWC, asc.int16)


# ---- trans_data_to_5hd ----------------------------------------------------------------------

HW = 64      # h = w = 8
C0 = 16
DST_AT = 16384


@asc.jit
def five_hd_kernel(x: asc.GlobalAddress, out: asc.GlobalAddress, form: asc.ConstExpr[str],
                   repeat: asc.ConstExpr, dst_rep: asc.ConstExpr, src_rep: asc.ConstExpr):
    gx, go = asc.GlobalTensor(), asc.GlobalTensor()
    gx.set_global_buffer(x)
    go.set_global_buffer(out)
    s = asc.LocalTensor(x.dtype, asc.TPosition.VECIN, 0, C0 * HW)
    d = asc.LocalTensor(x.dtype, asc.TPosition.VECOUT, DST_AT, C0 * HW)
    asc.data_copy(s, gx, C0 * HW)
    asc.data_copy(d, go, C0 * HW)
    params = asc.TransDataTo5HDParams(dst_high_half=False, src_high_half=False,
                                      repeat_times=repeat, dst_rep_stride=dst_rep,
                                      src_rep_stride=src_rep)
    dl = []
    sl = []
    for i in asc.static_range(16):
        if form == "tensors":
            dl.append(d[C0 * i])
            sl.append(s[HW * i])
        else:
            dl.append(d[C0 * i].get_phy_addr())
            sl.append(s[HW * i].get_phy_addr())
    if form == "tensors" or form == "addresses":
        asc.set_flag(asc.HardEvent.MTE2_V, 0)
        asc.wait_flag(asc.HardEvent.MTE2_V, 0)
        asc.trans_data_to_5hd(dl, sl, params)
    else:
        da = asc.LocalTensor(asc.uint64, asc.TPosition.VECCALC, 40960, 16)
        sa = asc.LocalTensor(asc.uint64, asc.TPosition.VECCALC, 41088, 16)
        for i in asc.static_range(16):
            da.set_value(i, d[C0 * i].get_phy_addr())
            sa.set_value(i, s[HW * i].get_phy_addr())
        if form == "addr_tensors":  # "addr_tensors_unsynced" leaves the S_V pair out
            asc.set_flag(asc.HardEvent.S_V, 0)
            asc.wait_flag(asc.HardEvent.S_V, 0)
        asc.set_flag(asc.HardEvent.MTE2_V, 0)
        asc.wait_flag(asc.HardEvent.MTE2_V, 0)
        asc.trans_data_to_5hd(da, sa, params)
    asc.set_flag(asc.HardEvent.V_MTE3, 0)
    asc.wait_flag(asc.HardEvent.V_MTE3, 0)
    asc.data_copy(go, d, C0 * HW)


def five_hd_ref(x, out, repeat, dst_rep, src_rep):
    """Dj[i] = Si[j] per repeat (elements), a single repeat already offset by the strides."""
    want = out.copy()
    for r in range(repeat):
        step = 1 if repeat == 1 else r
        for i in range(16):
            for j in range(16):
                d = C0 * j + step * dst_rep * 16 + i
                s = HW * i + step * src_rep * 16 + j
                want[d] = x[s]
    return want


@pytest.mark.parametrize("form", ["tensors", "addresses", "addr_tensors"])
@pytest.mark.parametrize("dtype", ["float16", "int16", "uint16"])
def test_trans_data_to_5hd_nchw_to_nc1hwc0(device, form, dtype):
    if form != "tensors" and dtype != "float16":
        pytest.skip("the address forms carry no element type: the model moves 2-byte elements")
    x = source(dtype, C0 * HW)
    out = source(dtype, C0 * HW, seed=2)
    five_hd_kernel[1, rt.current_stream()](x, out, form, HW // 16, 16, 1)
    # The recipe of ascendc-semantics.md 5.10: NCHW (one C1 group) -> NC1HWC0.
    np.testing.assert_array_equal(out, x.reshape(C0, HW).T.reshape(-1))
    np.testing.assert_array_equal(out, five_hd_ref(x, out, HW // 16, 16, 1))


def test_address_tensors_are_read_by_pipe_v_so_set_value_needs_s_v(device):
    x = source("float16", C0 * HW)
    out = source("float16", C0 * HW, seed=2)
    with pytest.raises(KernelCheckError, match=r"RAW.*trans_data_to_5hd.*set_value|S_V"):
        five_hd_kernel[1, rt.current_stream()](x, out, "addr_tensors_unsynced", HW // 16, 16, 1,
                                               auto_sync=False)


def test_trans_data_to_5hd_single_repeat_is_offset_by_the_strides(device):
    x = source("float16", C0 * HW)
    out = source("float16", C0 * HW, seed=2)
    want = five_hd_ref(x, out, 1, 2, 1)
    five_hd_kernel[1, rt.current_stream()](x, out, "tensors", 1, 2, 1)
    np.testing.assert_array_equal(out, want)


@asc.jit
def five_hd_wide_kernel(x: asc.GlobalAddress, out: asc.GlobalAddress, dst_high: asc.ConstExpr,
                        src_high: asc.ConstExpr):
    gx, go = asc.GlobalTensor(), asc.GlobalTensor()
    gx.set_global_buffer(x)
    go.set_global_buffer(out)
    n = 16 * 32 // x.dtype.sizeof()  # 16 blocks
    s = asc.LocalTensor(x.dtype, asc.TPosition.VECIN, 0, n)
    d = asc.LocalTensor(x.dtype, asc.TPosition.VECOUT, 4096, n)
    asc.data_copy(s, gx, n)
    asc.data_copy(d, go, n)
    asc.set_flag(asc.HardEvent.MTE2_V, 0)
    asc.wait_flag(asc.HardEvent.MTE2_V, 0)
    per = 32 // x.dtype.sizeof()
    params = asc.TransDataTo5HDParams(dst_high, src_high, 1, 0, 0)
    dl = []
    sl = []
    for i in asc.static_range(16):
        dl.append(d[per * i])
        sl.append(s[per * i])
    asc.trans_data_to_5hd(dl, sl, params)
    asc.set_flag(asc.HardEvent.V_MTE3, 0)
    asc.wait_flag(asc.HardEvent.V_MTE3, 0)
    asc.data_copy(go, d, n)


@pytest.mark.parametrize("dtype", ["int8", "uint8"])
@pytest.mark.parametrize("dst_high,src_high", [(False, False), (True, False), (False, True),
                                               (True, True)])
def test_trans_data_to_5hd_b8_halves(device, dtype, dst_high, src_high):
    x = source(dtype, 512)
    out = source(dtype, 512, seed=2)
    want = out.copy().reshape(16, 32)
    src = x.reshape(16, 32)
    for i in range(16):
        for j in range(16):
            want[j, 16 * dst_high + i] = src[i, 16 * src_high + j]
    five_hd_wide_kernel[1, rt.current_stream()](x, out, dst_high, src_high)
    np.testing.assert_array_equal(out.reshape(16, 32), want)


@pytest.mark.parametrize("dtype", ["float32", "int32", "uint32"])
def test_trans_data_to_5hd_b32(device, dtype):
    x = source(dtype, 128)
    out = source(dtype, 128, seed=2)
    want = out.copy().reshape(16, 8)
    src = x.reshape(16, 8)
    for r in range(8):
        for h in range(2):
            for e in range(8):
                want[2 * r + h, e] = src[8 * h + e, r]
    five_hd_wide_kernel[1, rt.current_stream()](x, out, False, False)
    np.testing.assert_array_equal(out.reshape(16, 8), want)
