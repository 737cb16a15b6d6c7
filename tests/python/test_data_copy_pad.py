"""data_copy_pad GM -> UB and UB -> GM and set_pad_value (asc-api.md 4.2, ascendc-semantics.md
5.11), against a numpy model of the UB layout: per block [left pad][block_len bytes][right pad]
[dummy to 32 B], the dummy repeating the block's first element when there are no paddings."""
import numpy as np
import pytest

import asc
import asc.lib.runtime as rt

UB_BYTES = 4096  # the UB window each test reads back
FILL = 0x5A      # what UB holds before the copy (prefill), as bytes


@asc.jit
def pad_in_kernel(src: asc.GlobalAddress, out: asc.GlobalAddress, fill_value,
                  bc: asc.ConstExpr[int], bl: asc.ConstExpr[int], ss: asc.ConstExpr[int],
                  ds: asc.ConstExpr[int], is_pad: asc.ConstExpr[bool], left: asc.ConstExpr[int],
                  right: asc.ConstExpr[int], value: asc.ConstExpr, form: asc.ConstExpr[str],
                  before: asc.ConstExpr):
    n = UB_BYTES // src.dtype.sizeof()
    g_src, g_out = asc.GlobalTensor(), asc.GlobalTensor()
    g_src.set_global_buffer(src)
    g_out.set_global_buffer(out)
    ub = asc.LocalTensor(src.dtype, asc.TPosition.VECIN, 0, n)
    raw = asc.LocalTensor(asc.int16, asc.TPosition.VECIN, 0, UB_BYTES // 2)
    asc.duplicate(raw, fill_value, UB_BYTES // 2)
    asc.set_flag(asc.HardEvent.V_MTE2, 0)
    asc.wait_flag(asc.HardEvent.V_MTE2, 0)
    if before is not None:
        if before[0] == "set":
            asc.set_pad_value(before[1])
        else:  # an earlier copy with is_pad loads the register, which persists
            asc.data_copy_pad(ub, g_src, asc.DataCopyExtParams(1, src.dtype.sizeof(), 0, 0),
                              asc.DataCopyPadExtParams(src.dtype, True, 1, 0, before[1]))
            asc.pipe_barrier(asc.PipeID.PIPE_MTE2)
    if form == "ext":
        asc.data_copy_pad(ub, g_src, asc.DataCopyExtParams(bc, bl, ss, ds),
                          asc.DataCopyPadExtParams(src.dtype, is_pad, left, right, value))
    else:
        asc.data_copy_pad(ub, g_src, data_copy_params=asc.DataCopyParams(bc, bl, ss, ds),
                          pad_params=asc.DataCopyPadParams(is_pad, left, right, value))
    asc.set_flag(asc.HardEvent.MTE2_MTE3, 0)
    asc.wait_flag(asc.HardEvent.MTE2_MTE3, 0)
    asc.data_copy(g_out, ub, n)


def pad_model(src, bc, bl, ss, ds, left, right, fill, unit=None):
    """UB bytes after the copy: `src` as bytes, `fill` the pad element as its bytes; `unit` the
    instruction's element (a 64-bit type runs as the b32 instruction: 4)."""
    esize = len(fill)
    unit = unit or esize
    ub = np.full(UB_BYTES, FILL, np.uint8)
    raw = src.view(np.uint8)
    padded = -(-(left * esize + bl + right * esize) // 32) * 32
    for c in range(bc if bl else 0):
        data = raw[c * (bl + ss):c * (bl + ss) + bl]
        block = np.empty(padded, np.uint8)
        lb, rb = left * esize, right * esize
        block[:lb] = np.tile(fill, left)
        block[lb:lb + bl] = data
        block[lb + bl:lb + bl + rb] = np.tile(fill, right)
        tail = data[:unit] if left == 0 and right == 0 else fill[:unit]
        rest = padded - lb - bl - rb
        block[padded - rest:] = np.tile(tail, rest // unit)
        at = c * (padded + ds * 32)
        ub[at:at + padded] = block
    return ub


def fill_bytes(value, dtype):
    return np.frombuffer(np.array(value).astype(dtype).tobytes(), np.uint8)


def run_in(dtype, bc, bl, ss, ds, is_pad=False, left=0, right=0, value=0, form="ext",
           before=None):
    rng = np.random.default_rng(3)
    n = 2048 // np.dtype(dtype).itemsize
    if np.dtype(dtype).kind == "f":
        src = rng.uniform(-9, 9, n).astype(dtype)
    else:
        src = rng.integers(-100, 100, n).astype(dtype)
    out = np.zeros(UB_BYTES // np.dtype(dtype).itemsize, dtype)
    pad_in_kernel[1, rt.current_stream()](src, out, FILL * 0x101, bc=bc, bl=bl, ss=ss, ds=ds,
                                          is_pad=is_pad, left=left, right=right, value=value,
                                          form=form, before=before)
    return src, out.view(np.uint8)


DTYPES = ["float16", "float32", "int16", "int32", "int8", "uint8"]


@pytest.mark.parametrize("dtype", DTYPES)
def test_unaligned_blocks_without_padding_repeat_the_first_element(device, dtype):
    es = np.dtype(dtype).itemsize
    bc, bl, ss, ds = 3, 5 * es, 3 * es, 1
    src, out = run_in(dtype, bc, bl, ss, ds)
    want = pad_model(src, bc, bl, ss, ds, 0, 0, fill_bytes(0, dtype))
    np.testing.assert_array_equal(out, want)


@pytest.mark.parametrize("dtype", DTYPES)
def test_left_and_right_padding_take_the_pad_value(device, dtype):
    es = np.dtype(dtype).itemsize
    left, right = min(2, 32 // es), 1
    bc, bl, ss, ds = 4, 3 * es, es, 0
    value = 7 if np.dtype(dtype).kind in "iu" else -1.5
    src, out = run_in(dtype, bc, bl, ss, ds, True, left, right, value)
    want = pad_model(src, bc, bl, ss, ds, left, right, fill_bytes(value, dtype))
    np.testing.assert_array_equal(out, want)


def test_full_32_byte_paddings_and_long_blocks(device):
    # float16: 16 elements = 32 bytes of padding on each side; blocks longer than 32 bytes.
    bc, bl, ss, ds = 2, 70, 6, 2
    src, out = run_in("float16", bc, bl, ss, ds, True, 16, 16, 3.0)
    want = pad_model(src, bc, bl, ss, ds, 16, 16, fill_bytes(3.0, "float16"))
    np.testing.assert_array_equal(out, want)


def test_data_copy_params_and_pad_params_form(device):
    bc, bl, ss, ds = 2, 12, 4, 1
    src, out = run_in("int32", bc, bl, ss, ds, True, 2, 3, 0xFFFF_FFFF_0000_0009, form="plain")
    # The uint64 value is converted to int32: its low 32 bits.
    want = pad_model(src, bc, bl, ss, ds, 2, 3, fill_bytes(9, "int32"))
    np.testing.assert_array_equal(out, want)


@pytest.mark.parametrize("before,value", [(("set", 11), 11), (("copy", 5), 5)])
def test_is_pad_false_uses_the_pad_register(device, before, value):
    # set_pad_value, or an earlier copy with is_pad, leaves the value for later copies.
    bc, bl, ss, ds = 2, 6, 2, 0
    src, out = run_in("int16", bc, bl, ss, ds, False, 1, 2, 99, before=before)
    # The earlier copy's 32 bytes are overwritten by the first block of this one.
    want = pad_model(src, bc, bl, ss, ds, 1, 2, fill_bytes(value, "int16"))
    np.testing.assert_array_equal(out, want)


def test_without_any_pad_value_paddings_are_zero(device):
    src, out = run_in("float32", 1, 8, 0, 0, False, 1, 1, 5.0)
    want = pad_model(src, 1, 8, 0, 0, 1, 1, fill_bytes(0, "float32"))
    np.testing.assert_array_equal(out, want)


@asc.jit
def pad_out_kernel(src: asc.GlobalAddress, out: asc.GlobalAddress, n: asc.ConstExpr[int],
                   bc: asc.ConstExpr[int], bl: asc.ConstExpr[int], ss: asc.ConstExpr[int],
                   ds: asc.ConstExpr[int], form: asc.ConstExpr[str]):
    g_src, g_out = asc.GlobalTensor(), asc.GlobalTensor()
    g_src.set_global_buffer(src)
    g_out.set_global_buffer(out)
    ub = asc.LocalTensor(src.dtype, asc.TPosition.VECOUT, 0, n)
    asc.data_copy(ub, g_src, n)
    asc.set_flag(asc.HardEvent.MTE2_MTE3, 0)
    asc.wait_flag(asc.HardEvent.MTE2_MTE3, 0)
    if form == "ext":
        asc.data_copy_pad(g_out[3:], ub, asc.DataCopyExtParams(bc, bl, ss, ds))
    else:
        asc.data_copy_pad(g_out[3:], ub, asc.DataCopyParams(bc, bl, ss, ds))


@pytest.mark.parametrize("form", ["ext", "plain"])
@pytest.mark.parametrize("dtype", DTYPES)
def test_ub_to_gm_writes_exactly_block_len_bytes(device, dtype, form):
    es = np.dtype(dtype).itemsize
    n = 1024 // es
    bc, bl, ss, ds = 3, 7 * es, 1, 5 * es  # UB stride in blocks, GM stride in bytes
    src = (np.arange(n) % 100 + 1).astype(dtype)
    out = np.full(n * es, 0x3C, np.uint8).view(dtype).copy()
    pad_out_kernel[1, rt.current_stream()](src, out, n, bc, bl, ss, ds, form)
    got, raw = out.view(np.uint8), src.view(np.uint8)
    want = np.full(n * es, 0x3C, np.uint8)
    ub_pitch = (-(-bl // 32) + ss) * 32
    for c in range(bc):
        at = 3 * es + c * (bl + ds)
        want[at:at + bl] = raw[c * ub_pitch:c * ub_pitch + bl]
    np.testing.assert_array_equal(got, want)


@asc.jit
def wrong_kernel(src: asc.GlobalAddress, case: asc.ConstExpr[str]):
    g = asc.GlobalTensor()
    g.set_global_buffer(src)
    ub = asc.LocalTensor(src.dtype, asc.TPosition.VECIN, 0, 256)
    if case == "no_pad_params":
        asc.data_copy_pad(ub, g, asc.DataCopyExtParams(1, 32, 0, 0))
    elif case == "pad_dtype":
        asc.data_copy_pad(ub, g, asc.DataCopyExtParams(1, 32, 0, 0),
                          asc.DataCopyPadExtParams(asc.int16, True, 1, 1, 0))
    elif case == "pos":
        asc.set_pad_value(1, asc.TPosition.GM)
    elif case == "ub_to_ub":
        asc.data_copy_pad(ub, ub, asc.DataCopyExtParams(1, 32, 0, 0),
                          asc.DataCopyPadExtParams(src.dtype))
    else:  # 17 float16 elements are 34 bytes: more than 32 bytes of padding
        asc.data_copy_pad(ub, g, asc.DataCopyExtParams(1, 32, 0, 0),
                          asc.DataCopyPadExtParams(src.dtype, True, 17, 0, 0))


@pytest.mark.parametrize("case,match", [
    ("no_pad_params", "needs pad_params"), ("pad_dtype", "differs from the tensors' dtype"),
    ("pos", "pos must be TPosition.MAX, VECIN or VECOUT"), ("ub_to_ub", "is not supported")])
def test_frontend_errors(device, case, match):
    with pytest.raises(Exception, match=match):
        wrong_kernel[1, rt.current_stream()](np.zeros(256, np.float16), case)


def test_padding_over_32_bytes_is_rejected_at_the_copy(device):
    with pytest.raises(Exception, match="left_padding = 17 is out of range"):
        wrong_kernel[1, rt.current_stream()](np.zeros(256, np.float16), "too_much")


@pytest.mark.parametrize("dtype", ["int64", "uint64"])
@pytest.mark.parametrize("left,right", [(0, 0), (1, 2), (4, 0)])
def test_64_bit_types_run_as_b32_with_doubled_paddings(device, dtype, left, right):
    # Pads and the dummy are 4-byte elements: a pad is the value's low 32 bits twice, the dummy
    # without pads repeats the first 4 bytes of the block.
    bc, bl, ss, ds = 3, 3 * 8, 8, 1
    value = 0x0000_0001_0000_0005
    src, out = run_in(dtype, bc, bl, ss, ds, left + right > 0, left, right, value)
    fill = np.frombuffer(np.array([5, 5], np.uint32).tobytes(), np.uint8)
    want = pad_model(src, bc, bl, ss, ds, left, right, fill, unit=4)
    np.testing.assert_array_equal(out, want)


@asc.jit
def pad_out_64_kernel(src: asc.GlobalAddress, out: asc.GlobalAddress):
    g_src, g_out = asc.GlobalTensor(), asc.GlobalTensor()
    g_src.set_global_buffer(src)
    g_out.set_global_buffer(out)
    ub = asc.LocalTensor(src.dtype, asc.TPosition.VECIN, 0, 64)
    asc.data_copy(ub, g_src, 64)
    asc.set_flag(asc.HardEvent.MTE2_MTE3, 0)
    asc.wait_flag(asc.HardEvent.MTE2_MTE3, 0)
    # Two chunks of 3 elements from 32-byte blocks one block apart, 8 bytes apart in GM.
    asc.data_copy_pad(g_out, ub, asc.DataCopyExtParams(2, 24, 1, 8))


def test_64_bit_ub_to_gm_writes_exactly_block_len_bytes(device):
    src = np.arange(64, dtype=np.int64) * 0x1_0000_0001
    out = np.full(16, -1, np.int64)
    pad_out_64_kernel[1, rt.current_stream()](src, out)
    want = np.full(16, -1, np.int64)
    want[0:3] = src[0:3]      # chunk 0: UB block 0
    want[4:7] = src[8:11]     # chunk 1: UB block 2 (32-byte block + stride 1), GM 24 + 8 bytes on
    np.testing.assert_array_equal(out, want)



@asc.jit
def tail_kernel(src: asc.GlobalAddress, out: asc.GlobalAddress, n: asc.ConstExpr[int]):
    # A tail: the vector op computes exactly n elements, the UB -> GM copy writes exactly n; the
    # copy reads its last 32-byte block whole, whose bytes past n nothing wrote.
    g_src, g_out = asc.GlobalTensor(), asc.GlobalTensor()
    g_src.set_global_buffer(src)
    g_out.set_global_buffer(out)
    ub_in = asc.LocalTensor(src.dtype, asc.TPosition.VECIN, 0, 128)
    ub_out = asc.LocalTensor(src.dtype, asc.TPosition.VECOUT, 512, 128)
    asc.data_copy_pad(ub_in, g_src, asc.DataCopyExtParams(1, n * 2, 0, 0),
                      asc.DataCopyPadExtParams(src.dtype, False, 0, 0, 0))
    asc.set_flag(asc.HardEvent.MTE2_V, 0)
    asc.wait_flag(asc.HardEvent.MTE2_V, 0)
    asc.adds(ub_out, ub_in, 1.0, n)
    asc.set_flag(asc.HardEvent.V_MTE3, 0)
    asc.wait_flag(asc.HardEvent.V_MTE3, 0)
    asc.data_copy_pad(g_out, ub_out, asc.DataCopyExtParams(1, n * 2, 0, 0))


def test_a_tail_copy_reads_no_uninitialised_bytes(device):
    # The padding of the last block reaches no output: no UNINITIALIZED_READ, even at strict-all.
    n = 77
    src = np.arange(n).astype(np.float16)
    out = np.zeros(n, np.float16)
    report = tail_kernel[1, rt.current_stream()](src, out, n, check="strict-all")
    kinds = [d.kind for d in report.diagnostics]
    assert "UNINITIALIZED_READ" not in kinds, [str(d) for d in report.diagnostics]
    np.testing.assert_array_equal(out, src + np.float16(1))
