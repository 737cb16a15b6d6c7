"""The CMPMASK register (asc-api.md 4.9, ascendc-semantics.md 5.6, 5.7): set_cmp_mask /
get_cmp_mask move 16 bytes between UB and the register, compare's register form writes it (one
iteration, the mask honoured, lanes not compared 0), and select's VSEL_CMPMASK_SPR mode reuses its
first 256/sizeof bits in every iteration. Its PIPE_V writers and readers need a barrier between
them, as the library's own code has."""
import numpy as np
import pytest

import asc
import asc.lib.runtime as rt
from asc.runtime.errors import KernelCheckError, KernelFaultError

N = 512
S = asc.SelMode
C = asc.CMPMODE


def _setup(x, y, bits):
    gx, gy, gb = asc.GlobalTensor(), asc.GlobalTensor(), asc.GlobalTensor()
    gx.set_global_buffer(x)
    gy.set_global_buffer(y)
    gb.set_global_buffer(bits)
    a = asc.LocalTensor(x.dtype, asc.TPosition.VECIN, 0, N)
    b = asc.LocalTensor(x.dtype, asc.TPosition.VECIN, 4096, N)
    sel = asc.LocalTensor(asc.uint8, asc.TPosition.VECIN, 8192, 64)
    asc.data_copy(a, gx, N)
    asc.data_copy(b, gy, N)
    asc.data_copy(sel, gb, 64)
    return a, b, sel


def move(bits: asc.GlobalAddress, out: asc.GlobalAddress, barrier: asc.ConstExpr[bool]):
    gb, go = asc.GlobalTensor(), asc.GlobalTensor()
    gb.set_global_buffer(bits)
    go.set_global_buffer(out)
    src = asc.LocalTensor(bits.dtype, asc.TPosition.VECIN, 0, 32)
    dst = asc.LocalTensor(bits.dtype, asc.TPosition.VECOUT, 1024, 32)
    asc.data_copy(src, gb, 32)
    asc.data_copy(dst, go, 32)
    asc.set_flag(asc.HardEvent.MTE2_V, 0)
    asc.wait_flag(asc.HardEvent.MTE2_V, 0)
    asc.set_cmp_mask(src)
    if barrier:
        asc.pipe_barrier(asc.PipeID.PIPE_V)
    asc.get_cmp_mask(dst)
    asc.set_flag(asc.HardEvent.V_MTE3, 0)
    asc.wait_flag(asc.HardEvent.V_MTE3, 0)
    asc.data_copy(go, dst, 32)


move_kernel = asc.jit(auto_sync=False)(move)
move_kernel_auto_sync = asc.jit(move)


@pytest.mark.parametrize("dtype", ["uint8", "float16", "int32"])
def test_set_then_get_moves_the_first_16_bytes(device, dtype):
    size = np.dtype(dtype).itemsize
    raw = np.random.default_rng(1).integers(0, 256, 32 * size).astype(np.uint8)
    out = np.full(32 * size, 7, dtype=np.uint8)
    bits = raw.view(dtype).copy()
    result = out.view(dtype).copy()
    move_kernel[1, rt.current_stream()](bits, result, True)
    got = result.view(np.uint8)
    np.testing.assert_array_equal(got[:16], raw[:16])
    np.testing.assert_array_equal(got[16:], out[16:])


def test_get_right_after_set_without_a_barrier_is_a_race(device):
    bits = np.arange(32, dtype=np.uint8)
    with pytest.raises(KernelCheckError) as info:
        move_kernel[1, rt.current_stream()](bits, np.zeros(32, np.uint8), False)
    assert "CMPMASK" in str(info.value) and "RAW" in str(info.value), str(info.value)


def test_auto_sync_puts_the_barrier_between_set_and_get(device):
    bits = np.arange(32, dtype=np.uint8)
    out = np.zeros(32, np.uint8)
    move_kernel_auto_sync[1, rt.current_stream()](bits, out, False)
    np.testing.assert_array_equal(out[:16], bits[:16])


@asc.jit
def compare_reg_kernel(x: asc.GlobalAddress, y: asc.GlobalAddress, bits: asc.GlobalAddress,
                       out: asc.GlobalAddress, mode: asc.ConstExpr, mask: asc.ConstExpr,
                       blk: asc.ConstExpr[int]):
    a, b, sel = _setup(x, y, bits)
    go = asc.GlobalTensor()
    go.set_global_buffer(out)
    dst = asc.LocalTensor(asc.uint8, asc.TPosition.VECOUT, 12288, 32)
    asc.data_copy(dst, go, 32)
    asc.set_flag(asc.HardEvent.MTE2_V, 0)
    asc.wait_flag(asc.HardEvent.MTE2_V, 0)
    asc.compare(a, b, mode, mask, asc.BinaryRepeatParams(1, blk, 1, 8, 8, 8))
    asc.pipe_barrier(asc.PipeID.PIPE_V)
    asc.get_cmp_mask(dst)
    asc.set_flag(asc.HardEvent.V_MTE3, 0)
    asc.wait_flag(asc.HardEvent.V_MTE3, 0)
    asc.data_copy(go, dst, 32)


def _lanes_of(dtype, mask, blk):
    """Element index of lane e for src0 with block stride blk, and the lane's mask bit."""
    lanes = 256 // np.dtype(dtype).itemsize
    per_block = 32 // np.dtype(dtype).itemsize
    e = np.arange(lanes)
    src0_index = e // per_block * blk * per_block + e % per_block
    if isinstance(mask, list):
        active = np.array([(mask[i // 64] >> (i % 64)) & 1 for i in range(lanes)], dtype=bool)
    else:
        active = e < mask
    return lanes, src0_index, active


@pytest.mark.parametrize("dtype", ["float16", "float32"])
@pytest.mark.parametrize("mask", [100, [0xF0F0_0000_FFFF_0001, 0x8000_0000_0000_00FF]])
@pytest.mark.parametrize("blk", [1, 2])
def test_compare_register_form_writes_the_bits_of_one_masked_iteration(device, dtype, mask, blk):
    rng = np.random.default_rng(2)
    x = rng.integers(-3, 4, N).astype(dtype)
    y = rng.integers(-3, 4, N).astype(dtype)
    out = np.full(32, 0x5A, np.uint8)
    compare_reg_kernel[1, rt.current_stream()](x, y, np.zeros(64, np.uint8), out, C.LE, mask,
                                              blk)
    lanes, idx, active = _lanes_of(dtype, mask, blk)
    want_bits = np.zeros(128, dtype=bool)
    want_bits[:lanes] = (x[idx] <= y[:lanes]) & active
    np.testing.assert_array_equal(out[:16], np.packbits(want_bits, bitorder="little"))
    np.testing.assert_array_equal(out[16:], np.full(16, 0x5A, np.uint8))


@asc.jit
def select_reg_kernel(x: asc.GlobalAddress, y: asc.GlobalAddress, bits: asc.GlobalAddress,
                      out: asc.GlobalAddress, form: asc.ConstExpr[str], mask: asc.ConstExpr):
    a, b, sel = _setup(x, y, bits)
    go = asc.GlobalTensor()
    go.set_global_buffer(out)
    d = asc.LocalTensor(x.dtype, asc.TPosition.VECOUT, 12288, N)
    asc.data_copy(d, go, N)
    asc.set_flag(asc.HardEvent.MTE2_V, 0)
    asc.wait_flag(asc.HardEvent.MTE2_V, 0)
    if form == "count":
        asc.select(d, sel, a, b, S.VSEL_CMPMASK_SPR, 300)
    elif form == "repeat":
        asc.select(d, sel, a, b, S.VSEL_CMPMASK_SPR, mask, 2, asc.BinaryRepeatParams())
    elif form == "register":
        # Bits from compare's register form (a < b over all lanes), then the register form.
        asc.compare(a, b, C.LT, 256 // x.dtype.sizeof(), asc.BinaryRepeatParams())
        asc.pipe_barrier(asc.PipeID.PIPE_V)
        asc.select(d, a, b, repeat_times=3, repeat_params=asc.BinaryRepeatParams(),
                   sel_mode=S.VSEL_CMPMASK_SPR)
    elif form == "scalar":
        # The scalar-register form: CMPMASK holds the scalar (b's first element), sel's bits
        # are streamed, iteration r taking bits r * lanes ...
        asc.set_cmp_mask(b)
        asc.pipe_barrier(asc.PipeID.PIPE_V)
        asc.select(d, sel, a, 2, asc.BinaryRepeatParams())
    elif form == "scalar_keywords":
        # The register form in VSEL_TENSOR_SCALAR_MODE: src1 is the streamed selection mask.
        asc.set_cmp_mask(b)
        asc.pipe_barrier(asc.PipeID.PIPE_V)
        asc.set_vector_mask(0, mask, dtype=x.dtype, mode=asc.MaskMode.NORMAL)
        asc.select(d, a, sel, repeat_times=2, repeat_params=asc.BinaryRepeatParams(),
                   sel_mode=S.VSEL_TENSOR_SCALAR_MODE)
        asc.reset_mask()
    elif form == "address":
        # The register form in VSEL_TENSOR_TENSOR_MODE: CMPMASK holds the UB address of the
        # selection bits (`mask` bytes past sel's).
        where = asc.LocalTensor(asc.uint64, asc.TPosition.VECCALC, 16384, 4)
        where.set_value(0, sel.get_phy_addr() + mask)
        where.set_value(1, sel.get_phy_addr() + mask)
        asc.set_flag(asc.HardEvent.S_V, 0)
        asc.wait_flag(asc.HardEvent.S_V, 0)
        asc.set_cmp_mask(where.reinterpret_cast(asc.uint32))
        asc.pipe_barrier(asc.PipeID.PIPE_V)
        asc.select(d, a, b, repeat_times=2, repeat_params=asc.BinaryRepeatParams(),
                   sel_mode=S.VSEL_TENSOR_TENSOR_MODE)
    else:  # counter mode: the register form over `mask` lanes in all
        asc.set_cmp_mask(sel)
        asc.pipe_barrier(asc.PipeID.PIPE_V)
        asc.set_mask_count()
        asc.set_vector_mask(mask, dtype=x.dtype, mode=asc.MaskMode.COUNTER)
        asc.select(d, a, b, repeat_times=1, repeat_params=asc.BinaryRepeatParams(),
                   sel_mode=S.VSEL_CMPMASK_SPR)
        asc.set_mask_norm()
        asc.reset_mask()
    asc.set_flag(asc.HardEvent.V_MTE3, 0)
    asc.wait_flag(asc.HardEvent.V_MTE3, 0)
    asc.data_copy(go, d, N)


_BITS = np.random.default_rng(4).integers(0, 256, 64).astype(np.uint8)


def _run_select(dtype, form, mask=0):
    rng = np.random.default_rng(3)
    x = rng.uniform(-9, 9, N).astype(dtype)
    y = rng.uniform(-9, 9, N).astype(dtype)
    bits = _BITS
    out = np.full(N, 42, dtype=dtype)
    select_reg_kernel[1, rt.current_stream()](x, y, bits, out, form, mask)
    lanes = 256 // np.dtype(dtype).itemsize
    reg = np.unpackbits(bits, bitorder="little").astype(bool)[:lanes]
    return x, y, out, lanes, reg


@pytest.mark.parametrize("dtype", ["float16", "float32"])
def test_select_cmpmask_mode_count_form_reuses_the_same_bits(device, dtype):
    x, y, out, lanes, reg = _run_select(dtype, "count")
    picks = np.tile(reg, N // lanes)
    want = np.full(N, 42, dtype=dtype)
    want[:300] = np.where(picks[:300], x[:300], y[:300])
    np.testing.assert_array_equal(out, want)


@pytest.mark.parametrize("dtype", ["float16", "float32"])
def test_select_cmpmask_mode_repeat_form_with_a_partial_mask(device, dtype):
    x, y, out, lanes, reg = _run_select(dtype, "repeat", 40)
    want = np.full(N, 42, dtype=dtype)
    for r in range(2):
        i = r * lanes + np.arange(40)
        want[i] = np.where(reg[:40], x[i], y[i])
    np.testing.assert_array_equal(out, want)


@pytest.mark.parametrize("dtype", ["float16", "float32"])
def test_select_register_form_takes_the_bits_compare_left(device, dtype):
    x, y, out, lanes, _ = _run_select(dtype, "register")
    reg = x[:lanes] < y[:lanes]
    want = np.full(N, 42, dtype=dtype)
    n = min(N, 3 * lanes)
    want[:n] = np.where(np.tile(reg, 3)[:n], x[:n], y[:n])
    np.testing.assert_array_equal(out, want)


@pytest.mark.parametrize("dtype", ["float16", "float32"])
def test_select_register_form_in_counter_mode(device, dtype):
    x, y, out, lanes, reg = _run_select(dtype, "counter", 200)
    want = np.full(N, 42, dtype=dtype)
    want[:200] = np.where(np.tile(reg, 4)[:200], x[:200], y[:200])
    np.testing.assert_array_equal(out, want)


@pytest.mark.parametrize("dtype", ["float16", "float32"])
def test_select_scalar_register_form_takes_the_scalar_from_cmpmask(device, dtype):
    x, y, out, lanes, _ = _run_select(dtype, "scalar")
    bits = np.unpackbits(_BITS, bitorder="little").astype(bool)
    want = np.full(N, 42, dtype=dtype)
    n = 2 * lanes
    want[:n] = np.where(bits[:n], x[:n], y[0])
    np.testing.assert_array_equal(out, want)


@pytest.mark.parametrize("dtype", ["float16", "float32"])
def test_select_register_form_tensor_scalar_mode_streams_src1_as_the_bits(device, dtype):
    x, y, out, lanes, _ = _run_select(dtype, "scalar_keywords", 0xFFFF_0000_FFFF_00F3)
    bits = np.unpackbits(_BITS, bitorder="little").astype(bool)
    want = np.full(N, 42, dtype=dtype)
    for r in range(2):
        for e in range(lanes):
            if e < 64 and (0xFFFF_0000_FFFF_00F3 >> e) & 1:  # the mask's low word
                i = r * lanes + e
                want[i] = x[i] if bits[i] else y[0]
    np.testing.assert_array_equal(out, want)


@pytest.mark.parametrize("dtype", ["float16", "float32"])
def test_select_register_form_tensor_tensor_mode_reads_the_bits_at_cmpmask_address(device,
                                                                                   dtype):
    x, y, out, lanes, _ = _run_select(dtype, "address", 0)
    bits = np.unpackbits(_BITS, bitorder="little").astype(bool)
    want = np.full(N, 42, dtype=dtype)
    n = 2 * lanes
    want[:n] = np.where(bits[:n], x[:n], y[:n])
    np.testing.assert_array_equal(out, want)


def test_select_register_form_address_outside_ub_faults_at_the_line(device):
    with pytest.raises(KernelFaultError) as info:
        _run_select("float16", "address", 1 << 20)
    text = str(info.value)
    assert "OUT_OF_BOUNDS" in text and "outside UB" in text and "test_cmp_mask.py" in text


@asc.jit
def compare_count_kernel(x: asc.GlobalAddress, y: asc.GlobalAddress, out: asc.GlobalAddress,
                         count: asc.ConstExpr[int]):
    gx, gy, go = asc.GlobalTensor(), asc.GlobalTensor(), asc.GlobalTensor()
    gx.set_global_buffer(x)
    gy.set_global_buffer(y)
    go.set_global_buffer(out)
    n = 252 * 128
    a = asc.LocalTensor(asc.float16, asc.TPosition.VECIN, 0, n)
    b = asc.LocalTensor(asc.float16, asc.TPosition.VECIN, 2 * n, n)
    d = asc.LocalTensor(asc.uint8, asc.TPosition.VECOUT, 4 * n, n // 8)
    asc.data_copy(a, gx, count)
    asc.data_copy(b, gy, count)
    asc.set_flag(asc.HardEvent.MTE2_V, 0)
    asc.wait_flag(asc.HardEvent.MTE2_V, 0)
    asc.compare(d, a, b, C.GT, count)
    asc.set_flag(asc.HardEvent.V_MTE3, 0)
    asc.wait_flag(asc.HardEvent.V_MTE3, 0)
    asc.data_copy(go, d, count // 8)


def _compare_count(repeats):
    count = repeats * 128
    rng = np.random.default_rng(6)
    x = rng.uniform(-1, 1, 252 * 128).astype(np.float16)
    y = rng.uniform(-1, 1, 252 * 128).astype(np.float16)
    out = np.zeros(252 * 16, np.uint8)
    report = compare_count_kernel[1, rt.current_stream()](x, y, out, count)
    want = np.packbits(x[:count] > y[:count], bitorder="little")
    np.testing.assert_array_equal(out[:count // 8], want)
    v = report.cores[0].pipes["V"]
    return v.instructions, v.busy_cycles


def test_compare_count_form_splits_at_252_repeats_plus_a_tail(device):
    # 250 repeats: one instruction; 252: a full one and a tail one with no repeats, which
    # still holds the pipe for a cycle.
    n250, c250 = _compare_count(250)
    n252, c252 = _compare_count(252)
    assert n252 == n250 + 1
    assert c252 >= c250 + 4 + 1  # two more repeats at 2 cycles, and the empty tail
