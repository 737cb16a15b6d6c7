"""Tutorial 01 vector add: exact results for every legal dtype, core count and argument kind."""
import numpy as np
import pytest
import torch

from kernels import run_vadd

DTYPES = ["float16", "float32", "int32", "int16"]


def _inputs(dtype, n, seed=0):
    rng = np.random.default_rng(seed)
    if np.dtype(dtype).kind == "f":
        x = rng.uniform(-1000, 1000, n)
        y = rng.uniform(-1000, 1000, n)
    else:
        info = np.iinfo(dtype)
        x = rng.integers(info.min // 2, info.max // 2, n)
        y = rng.integers(info.min // 2, info.max // 2, n)
    return x.astype(dtype), y.astype(dtype)


@pytest.mark.parametrize("cores", [1, 2, 8, 48])
@pytest.mark.parametrize("dtype", DTYPES)
def test_vadd_numpy_exact(device, dtype, cores):
    n = cores * 512
    x, y = _inputs(dtype, n, seed=cores)
    x_before, y_before = x.copy(), y.copy()
    z, report = run_vadd(x, y, cores)
    expected = x_before + y_before  # numpy computes in the element dtype (fp16 rounded as fp16)
    assert z.dtype == np.dtype(dtype)
    assert np.array_equal(z.view(np.uint8), expected.view(np.uint8)), \
        f"{np.count_nonzero(z != expected)} mismatching elements"
    assert np.array_equal(x, x_before) and np.array_equal(y, y_before)
    assert report.status == "OK" and report.block_dim == cores


@pytest.mark.parametrize("cores", [1, 8])
@pytest.mark.parametrize("dtype", [torch.float16, torch.float32, torch.int32])
def test_vadd_torch_exact(device, dtype, cores):
    n = cores * 1024
    torch.manual_seed(cores)
    if dtype.is_floating_point:
        x = (torch.rand(n) * 200 - 100).to(dtype)
        y = (torch.rand(n) * 200 - 100).to(dtype)
    else:
        x = torch.randint(-10**6, 10**6, (n,), dtype=dtype)
        y = torch.randint(-10**6, 10**6, (n,), dtype=dtype)
    z, report = run_vadd(x, y, cores)
    assert isinstance(z, torch.Tensor) and z.dtype == dtype
    assert torch.equal(z, x + y)
    assert report.cycles > 0


def test_fp16_add_rounding_is_bit_exact(device):
    """Sums that need rounding (ties, subnormals, overflow to inf) match numpy's fp16 add."""
    n = 8 * 256
    rng = np.random.default_rng(7)
    bits = rng.integers(0, 0x7C00, n, dtype=np.uint16)  # every finite positive fp16 pattern
    sign = rng.integers(0, 2, n, dtype=np.uint16) << 15
    x = (bits | sign).view(np.float16)
    y = rng.permutation(x)
    z, _ = run_vadd(x, y, 8)
    with np.errstate(over="ignore"):
        expected = x + y
    assert np.array_equal(z.view(np.uint16), expected.view(np.uint16))


def test_vadd_2d_arrays_are_flattened_and_written_back(device):
    x = np.arange(8 * 512, dtype=np.float32).reshape(64, 64)
    y = np.ones((64, 64), dtype=np.float32)
    z, _ = run_vadd(x, y, 8)
    assert z.shape == (64, 64)
    assert np.array_equal(z, x + y)
