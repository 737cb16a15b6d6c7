"""Every vector op of the walking skeleton, the DataCopyParams copy form and GM offsets."""
import numpy as np
import pytest

import asc
import asc.lib.runtime as rt
from kernels import elementwise_kernel

CORES = 2
TILE = 256


def _run(op, x, y, scalar=0):
    z = np.zeros_like(x)
    block = x.size // CORES
    elementwise_kernel[CORES, rt.current_stream()](x, y, z, block, scalar, tile=TILE, op=op)
    return z


def _data(dtype, positive=False, seed=0):
    rng = np.random.default_rng(seed)
    n = CORES * TILE * 2
    if np.dtype(dtype).kind == "f":
        lo = 0.01 if positive else -50
        return rng.uniform(lo, 50, n).astype(dtype), rng.uniform(0.5, 50, n).astype(dtype)
    return (rng.integers(-20000, 20000, n).astype(dtype),
            rng.integers(1, 20000, n).astype(dtype))


EXACT_BINARY = {"add": np.add, "sub": np.subtract, "mul": np.multiply, "max": np.maximum,
                "min": np.minimum}


@pytest.mark.parametrize("dtype", ["float16", "float32", "int16", "int32"])
@pytest.mark.parametrize("op", sorted(EXACT_BINARY))
def test_binary_ops_exact(device, op, dtype):
    x, y = _data(dtype, seed=hash(op) % 100)
    if op == "mul" and dtype.startswith("int"):
        x, y = x % 100, y % 100  # keep products inside the type
    z = _run(op, x, y)
    with np.errstate(over="ignore"):
        expected = EXACT_BINARY[op](x, y).astype(dtype)
    assert np.array_equal(z, expected)


@pytest.mark.parametrize("dtype", ["float16", "float32"])
def test_div(device, dtype):
    x, y = _data(dtype)
    z = _run("div", x, y)
    np.testing.assert_allclose(z, (x / y).astype(dtype), rtol=1e-3 if dtype == "float16" else 1e-6)


@pytest.mark.parametrize("dtype", ["float16", "float32"])
@pytest.mark.parametrize("op,fn,positive,exact", [
    ("abs", np.abs, False, True), ("relu", lambda v: np.maximum(v, 0), False, True),
    ("exp", np.exp, False, False), ("ln", np.log, True, False), ("sqrt", np.sqrt, True, False)])
def test_unary_ops(device, op, fn, positive, exact, dtype):
    x, _ = _data(dtype, positive=positive)
    if op == "exp":
        x = (x / 10).astype(dtype)
    z = _run(op, x, x)
    expected = fn(x).astype(dtype)
    if exact:
        assert np.array_equal(z, expected)
    else:
        np.testing.assert_allclose(z, expected, rtol=2e-3 if dtype == "float16" else 1e-5)


# Rsqrt and Reciprocal are hardware estimates on the chip: half results within 0.1% and float
# results within 0.01% of the exact value (ascendc-semantics.md 5.4). The model rounds correctly,
# so it must be inside that bound (and, being correctly rounded, match numpy's rounding of the
# exact value computed in float64).
ESTIMATE_RTOL = {"float16": 1e-3, "float32": 1e-4}


@pytest.mark.parametrize("dtype", ["float16", "float32"])
@pytest.mark.parametrize("op,fn,positive", [
    ("rsqrt", lambda v: 1.0 / np.sqrt(v), True), ("reciprocal", lambda v: 1.0 / v, False)])
def test_hardware_estimates_within_their_bound(device, op, fn, positive, dtype):
    x, _ = _data(dtype, positive=positive, seed=5)
    x[x == 0] = 1
    z = _run(op, x, x)
    exact = fn(x.astype(np.float64))
    np.testing.assert_allclose(z, exact, rtol=ESTIMATE_RTOL[dtype])
    assert np.array_equal(z, exact.astype(dtype))


@pytest.mark.parametrize("dtype", ["float16", "float32"])
def test_hardware_estimates_special_values(device, dtype):
    x = np.tile(np.array([0.0, -0.0, np.inf, 4.0, -4.0, 0.25, 1.0, 2.0], dtype=dtype),
                CORES * TILE * 2 // 8)
    with np.errstate(divide="ignore", invalid="ignore"):
        r = _run("rsqrt", x, x)
        q = _run("reciprocal", x, x)
        np.testing.assert_array_equal(r[:8], (1 / np.sqrt(x[:8].astype(np.float64))).astype(dtype))
        np.testing.assert_array_equal(q[:8], (1 / x[:8].astype(np.float64)).astype(dtype))
    assert np.isposinf(q[0]) and np.isneginf(q[1]) and np.isnan(r[4])


@pytest.mark.parametrize("dtype,scalar", [("float16", 2.5), ("float32", -1.25),
                                          ("int32", 7), ("int16", -3)])
@pytest.mark.parametrize("op,fn", [("adds", np.add), ("muls", np.multiply)])
def test_scalar_ops(device, op, fn, dtype, scalar):
    x, _ = _data(dtype)
    if dtype.startswith("int"):
        x = x % 1000
    z = _run(op, x, x, scalar)
    expected = fn(x, np.array(scalar, dtype=dtype)).astype(dtype)
    assert np.array_equal(z, expected)


def test_float_scalar_is_truncated_for_integer_tensors(device):
    x = np.arange(CORES * TILE * 2, dtype=np.int32)
    z = _run("adds", x, x, 2.9)  # float32 kernel argument, converted to int32 (truncates)
    assert np.array_equal(z, x + 2)


@asc.jit
def strided_copy_kernel(src: asc.GlobalAddress, dst: asc.GlobalAddress, rows: asc.ConstExpr[int],
                        cols: asc.ConstExpr[int], pitch: asc.ConstExpr[int]):
    """Copy a rows x cols fp32 tile out of a matrix with row pitch `pitch` (DataCopyParams form)
    into a dense tile of `dst`, then back into `dst` with a different pitch."""
    src_gm = asc.GlobalTensor()
    src_gm.set_global_buffer(src)
    dst_gm = asc.GlobalTensor()
    dst_gm.set_global_buffer(dst)
    tile = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 0, rows * cols)
    block = asc.property(asc.DEFAULT_C0_SIZE)
    params_in = asc.DataCopyParams(block_count=rows, block_len=cols * 4 // block,
                                   src_stride=(pitch - cols) * 4 // block, dst_stride=0)
    asc.data_copy(tile, src_gm[cols:], repeat_params=params_in)
    asc.set_flag(asc.HardEvent.MTE2_MTE3, 0)
    asc.wait_flag(asc.HardEvent.MTE2_MTE3, 0)
    asc.data_copy(dst_gm, tile, asc.DataCopyParams(rows, cols * 4 // 32, 0, cols * 4 // 32))


def test_data_copy_params_form(device):
    rows, cols, pitch = 4, 16, 48
    src = np.arange(rows * pitch + cols, dtype=np.float32)
    dst = np.full(rows * 2 * cols, -1, dtype=np.float32)
    strided_copy_kernel[1, rt.current_stream()](src, dst, rows=rows, cols=cols, pitch=pitch)
    tile = np.stack([src[cols + r * pitch: cols + r * pitch + cols] for r in range(rows)])
    expected = np.full((rows, 2 * cols), -1, dtype=np.float32)
    expected[:, :cols] = tile
    assert np.array_equal(dst, expected.reshape(-1))


@asc.jit
def offset_copy_kernel(src: asc.GlobalAddress, dst: asc.GlobalAddress, n: int,
                       skip: asc.ConstExpr[int]):
    """dst[b*n : b*n+n] = src[b*n + skip : ...] via GlobalAddress arithmetic `x + block * n`,
    UB->UB copy included."""
    base = asc.get_block_idx() * n
    src_gm = asc.GlobalTensor()
    src_gm.set_global_buffer(src + base + skip, n)
    dst_gm = asc.GlobalTensor()
    dst_gm.set_global_buffer(dst + base)
    a = asc.LocalTensor(src.dtype, asc.TPosition.VECIN, 0, n)
    b = asc.LocalTensor(src.dtype, asc.TPosition.VECOUT, 4096, n)
    asc.data_copy(a, src_gm, n)
    asc.set_flag(asc.HardEvent.MTE2_V, 1)
    asc.wait_flag(asc.HardEvent.MTE2_V, 1)
    asc.data_copy(b, a, n)
    asc.set_flag(asc.HardEvent.V_MTE3, 1)
    asc.wait_flag(asc.HardEvent.V_MTE3, 1)
    asc.data_copy(dst_gm, b, n)


@pytest.mark.parametrize("skip", [0, 3, 64])
def test_gm_offsets_per_block(device, skip):
    cores, n = 8, 128
    src = np.arange(cores * n + skip, dtype=np.int16)
    dst = np.zeros(cores * n, dtype=np.int16)
    offset_copy_kernel[cores, rt.current_stream()](src, dst, n, skip=skip)
    assert np.array_equal(dst, src[skip:])


def test_count_form_moves_whole_blocks_only(device):
    """data_copy count form moves floor(count * sizeof / 32) blocks: 20 fp32 = 2 blocks + 16 B."""
    src = np.arange(64, dtype=np.float32)
    dst = np.full(64, -1, dtype=np.float32)
    offset_copy_kernel[1, rt.current_stream()](src, dst, 20, skip=0)
    assert np.array_equal(dst[:16], src[:16])
    assert np.all(dst[16:] == -1)


@asc.jit
def chain_kernel(x: asc.GlobalAddress, z: asc.GlobalAddress, total: int):
    """Dependent vector ops ordered by pipe_barrier(PIPE_V); per-core slice from get_block_num."""
    n = total // asc.get_block_num()
    gx = asc.GlobalTensor()
    gx.set_global_buffer(x + asc.get_block_idx() * n, n)
    gz = asc.GlobalTensor()
    gz.set_global_buffer(z + asc.get_block_idx() * n, n)
    a = asc.LocalTensor(x.dtype, asc.TPosition.VECIN, 0, n)
    b = asc.LocalTensor(x.dtype, asc.TPosition.VECOUT, n * x.dtype.sizeof(), n)
    asc.data_copy(a, gx, n)
    asc.set_flag(asc.HardEvent.MTE2_V, 0)
    asc.wait_flag(asc.HardEvent.MTE2_V, 0)
    asc.muls(b, a, 2.0, n)
    asc.pipe_barrier(asc.PipeID.PIPE_V)
    asc.add(b, b, a, n)
    asc.pipe_barrier(asc.PipeID.PIPE_V)
    asc.maxs(b, b, 0.0, n)
    asc.pipe_barrier(asc.PipeID.PIPE_V)
    asc.mins(b, b, 100.0, n)
    asc.set_flag(asc.HardEvent.V_MTE3, 0)
    asc.wait_flag(asc.HardEvent.V_MTE3, 0)
    asc.data_copy(gz, b, n)
    asc.pipe_barrier(asc.PipeID.PIPE_ALL)


@pytest.mark.parametrize("dtype", ["float16", "float32"])
def test_dependent_vector_ops_with_barriers(device, dtype):
    cores, n = 4, 1024
    x = np.linspace(-50, 50, cores * n).astype(dtype)
    z = np.zeros_like(x)
    chain_kernel[cores, rt.current_stream()](x, z, cores * n)
    two = np.array(2, dtype=dtype)
    expected = np.minimum(np.maximum(x * two + x, np.array(0, dtype)), np.array(100, dtype))
    assert np.array_equal(z, expected)
