"""asc.adv's exp (Taylor levels), power, xor and axpy (asc-api.md 6.7) as the library's
sequences (math_arith.py): against float64 or an exact numpy model of the same roundings, for
float32 and float16 (xor: int16 and uint16), with tails, in place where the sequence allows it,
the temp buffer's chunking, the framework's scratch, special values and the errors."""
import functools

import numpy as np
import pytest

import asc
import asc.lib.runtime as rt
from asc.codegen.errors import CodegenError
from adv_kernels import (adv_binary_kernel, assert_clean, math_kernel, temp_buffer,
                         ulp_error)


# ---- exp -----------------------------------------------------------------------------------------

def exp_call(dst, src, count, tmp, level=10, reuse=False):
    asc.adv.exp(dst, src, count, level, tmp, reuse)


def run_exp(x, level=10, count=None, tmp_bytes=0, in_place=False, reuse=False):
    y = np.zeros_like(x)
    count = x.size if count is None else count
    op = functools.partial(exp_call, level=level, reuse=reuse)
    report = math_kernel[1, rt.current_stream()](x, y, x.size, op, count, tmp_bytes, in_place)
    assert_clean(report)
    return y, report


@pytest.mark.parametrize("dtype, lo, hi, level, ulps", [
    (np.float32, -80, 80, 10, 5.5),     # measured 5.29: the float sum's roundings
    (np.float32, -1, 1, 10, 4.5),       # measured 4.36
    (np.float32, -1, 1, 5, 1.0e4),      # measured 9952: truncation, f^6/6! left out
    (np.float32, -80, 80, 0, 0.51),     # the basic exp instruction
    (np.float16, -9, 10.5, 10, 0.51),   # float inside, one rounding to half
    (np.float16, -9, 10.5, 5, 1.7),     # measured 1.59
])
def test_exp_accuracy(dtype, lo, hi, level, ulps):
    """What the Taylor sequence reaches against float64 (docs/adv.md): limited by its float
    roundings at level 10, by the truncation below it."""
    x = np.linspace(lo, hi, 4096).astype(dtype)
    y, _ = run_exp(x, level)
    assert ulp_error(y, np.exp(x.astype(np.float64)), dtype).max() <= ulps


def test_exp_levels_differ():
    """Each level adds a term: level 1 is 1 + f (26% off at f -> 1), level 3 about 2%."""
    x = np.linspace(0, 0.999, 1024).astype(np.float32)
    want = np.exp(x.astype(np.float64))
    rel = {lv: (np.abs(run_exp(x, lv)[0] - want) / want).max() for lv in (1, 3)}
    assert 0.25 < rel[1] < 0.27 and 0.015 < rel[3] < 0.02


def test_exp_special_values():
    """Level 0 is IEEE; the Taylor sequence gives NaN for +-inf (x - floor(x) = inf - inf)."""
    x = np.array([-np.inf, np.inf, np.nan, -50.0, 0.0, -0.0, 88.0] + [1.0] * 57, np.float32)
    y0, _ = run_exp(x, 0)
    y10, _ = run_exp(x, 10)
    assert y0[0] == 0 and y0[1] == np.inf and np.isnan(y0[2])
    assert np.isnan(y10[:3]).all()
    np.testing.assert_allclose(y10[3:7], np.exp(x[3:7].astype(np.float64)), rtol=1e-6)


@pytest.mark.parametrize("dtype, reuse", [(np.float32, False), (np.float32, True),
                                          (np.float16, False)])
def test_exp_tail_temp_and_scratch(dtype, reuse):
    """A 1024-byte temp: chunks of 1024 / 4 / areas floats rounded down to 32 bytes, then the
    tail; elements beyond count stay zero; the framework's scratch gives the same result."""
    rng = np.random.default_rng(5)
    x = rng.uniform(-8, 8, 1024).astype(dtype)
    mine, _ = run_exp(x, count=1000, tmp_bytes=1024, reuse=reuse)
    scratch, _ = run_exp(x, count=1000, reuse=reuse)
    np.testing.assert_array_equal(mine, scratch)
    tol = 2e-3 if dtype == np.float16 else 1e-6
    np.testing.assert_allclose(mine[:1000], np.exp(x[:1000].astype(np.float64)), rtol=tol)
    assert (mine[1000:] == 0).all()


@pytest.mark.parametrize("dtype", [np.float16, np.float32])
def test_exp_in_place(dtype):
    x = np.linspace(-3, 3, 512).astype(dtype)
    y, _ = run_exp(x, in_place=True, count=500)
    np.testing.assert_array_equal(y, np.concatenate([run_exp(x, count=500)[0][:500], x[500:]]))


def test_exp_chunks_follow_the_temp_buffer():
    """A float level-3 chunk is 14 V instructions and 14 barriers; 3 areas: 1200 bytes give
    chunks of 96 floats, 10 of them for 1024 elements and a tail of 64; 12288 bytes one chunk."""
    x = np.ones(1024, np.float32)
    v = {t: run_exp(x, 3, tmp_bytes=t)[1].cores[0].pipes["V"].instructions for t in (1200, 12288)}
    assert v[1200] - v[12288] == 10 * 28


@pytest.mark.parametrize("dtype, reuse, tmp_bytes, needed", [
    (np.float16, False, 192, 256), (np.float32, False, 64, 96), (np.float32, True, 32, 64)])
def test_exp_temp_too_small(dtype, reuse, tmp_bytes, needed):
    with pytest.raises(CodegenError, match=f"needs at least {needed}"):
        run_exp(np.ones(64, dtype), tmp_bytes=tmp_bytes, reuse=reuse)


def test_exp_argument_errors():
    with pytest.raises(CodegenError, match="taylor_expand_level must be a compile-time int"):
        run_exp(np.ones(64, np.float32), level=256)
    with pytest.raises(CodegenError, match="dst must not be src"):
        run_exp(np.ones(64, np.float32), in_place=True, reuse=True)
    with pytest.raises(CodegenError, match="all be float16 or all float32"):
        run_exp(np.ones(64, np.int32))


# ---- power ---------------------------------------------------------------------------------------

def run_binary(op, a, b, count=None, tmp_bytes=0, check=True):
    y = np.zeros_like(a)
    count = a.size if count is None else count
    report = adv_binary_kernel[1, rt.current_stream()](a, b, y, a.size, op, count, 0.0, tmp_bytes)
    if check:
        assert_clean(report)
    return y, report


def power_in_place(dst, src0, src1, count, tmp):
    asc.adv.power(src0, src0, src1, count, tmp)
    asc.pipe_barrier(asc.PipeID.PIPE_V)
    asc.data_copy(dst, src0, count)


def power_of_scalar(dst, src0, src1, count, tmp):
    asc.adv.power(dst, src0, 2.0, count, tmp)


def xor_in_place(dst, src0, src1, count, tmp):
    asc.adv.xor(src0, src0, src1, count, tmp)


def assert_stale_compare_reads(report, expected):
    """No race or error; warnings, if `expected`, only the compares' reads of unwritten temp."""
    assert report.status == "OK" and (report.check.races, report.check.errors) == (0, 0)
    kinds = {(d.kind, d.op) for d in report.diagnostics if d.severity == "WARNING"}
    assert kinds == ({("UNINITIALIZED_READ", "compare_scalar")} if expected else set())


@pytest.mark.parametrize("dtype, ulps", [(np.float32, 9), (np.float16, 0.51)])
def test_power_accuracy(dtype, ulps):
    """e^(y ln|x|) in float: float32 measured 8.40 ULP for x in [0.1, 10], y in [-3, 3] (the
    error of y ln|x| grows with it); float16 within half an ULP."""
    rng = np.random.default_rng(1)
    x = rng.uniform(0.1, 10, 4096).astype(dtype)
    y = rng.uniform(-3, 3, 4096).astype(dtype)
    got, _ = run_binary(asc.adv.power, x, y)
    want = np.power(x.astype(np.float64), y.astype(np.float64))
    assert ulp_error(got, want, dtype).max() <= ulps


@pytest.mark.parametrize("dtype", [np.float16, np.float32])
def test_power_negative_bases(dtype):
    """Odd integer exponents keep the sign, even ones drop it, others give NaN."""
    rng = np.random.default_rng(2)
    x = -rng.uniform(0.1, 10, 2048).astype(dtype)
    y = rng.integers(-4, 5, 2048).astype(dtype)
    y[::4] += 0.5
    got, _ = run_binary(asc.adv.power, x, y)
    with np.errstate(invalid="ignore"):
        want = np.power(x.astype(np.float64), y.astype(np.float64))
    assert (np.isnan(got) == np.isnan(want)).all()
    ok = ~np.isnan(want)
    assert ulp_error(got[ok], want[ok], dtype).max() <= (9 if dtype == np.float32 else 0.51)


def test_power_special_values():
    """pow's special cases as the selects make them. A NaN operand gives 1 where IEEE gives NaN
    (except y = 0 or x = 1, 1 in both): the sequence's x != 1 and y != 0 compares are false for
    NaN on A2 (ascendc-semantics.md 5.6), so those lanes take the 1.0 select."""
    inf, nan = np.inf, np.nan
    cases = [(2, 0, 1), (nan, 0, 1), (1, nan, 1), (1, inf, 1), (-1, inf, 1), (-1, -inf, 1),
             (0, 2, 0), (-0.0, 3, -0.0), (0, -1, inf), (-2, 3, -8), (-2, 2, 4), (-2, 2.5, nan),
             (inf, 2, inf), (-inf, 3, -inf), (-inf, 0.5, inf), (2, inf, inf), (0.5, inf, 0),
             (nan, 2, 1), (2, nan, 1), (-2, nan, nan)]
    x = np.array([c[0] for c in cases] + [1.0] * (64 - len(cases)), np.float32)
    y = np.array([c[1] for c in cases] + [1.0] * (64 - len(cases)), np.float32)
    got, _ = run_binary(asc.adv.power, x, y)
    want = np.array([c[2] for c in cases], np.float32)
    np.testing.assert_allclose(got[:len(cases)], want, rtol=1e-6)
    assert np.signbit(got[7])


@pytest.mark.filterwarnings("ignore::asc.runtime.errors.KernelWarning")
@pytest.mark.parametrize("dtype", [np.float16, np.float32])
def test_power_tail_temp_and_scratch(dtype):
    """A temp of 256 + 1024 bytes: chunks of 1024 / 4 / 4 (float) or / 7 (half) floats rounded
    down to 32 (float 64, half 32), then the tail; the framework's scratch (one chunk) gives
    the same result. The compares ignore the mask and read whole iterations of 64 floats: in a
    chunk of 32 (half) or one of 1000, the last iteration reads temp floats that nothing wrote
    yet, as on the chip (their bits are never used), which the checker reports."""
    rng = np.random.default_rng(4)
    x = rng.uniform(0.5, 4, 1024).astype(dtype)
    y = rng.uniform(-2, 2, 1024).astype(dtype)
    mine, report = run_binary(asc.adv.power, x, y, 1000, 1280, check=False)
    assert_stale_compare_reads(report, dtype == np.float16)
    scratch, report = run_binary(asc.adv.power, x, y, 1000, check=False)
    assert_stale_compare_reads(report, True)
    np.testing.assert_array_equal(mine, scratch)
    want = np.power(x[:1000].astype(np.float64), y[:1000].astype(np.float64))
    np.testing.assert_allclose(mine[:1000], want, rtol=2e-3 if dtype == np.float16 else 1e-6)
    assert (mine[1000:] == 0).all()


def test_power_in_place_half_only():
    x = np.linspace(0.5, 3, 512).astype(np.float16)
    y = np.full(512, 2.0, np.float16)
    got, _ = run_binary(power_in_place, x, y)
    np.testing.assert_array_equal(got, run_binary(asc.adv.power, x, y)[0])
    with pytest.raises(CodegenError, match="dst must not be src0"):
        run_binary(power_in_place, x.astype(np.float32), y.astype(np.float32))


@pytest.mark.parametrize("dtype, tmp_bytes, needed", [(np.float32, 512, 768),
                                                      (np.float16, 1024, 1152)])
def test_power_temp_too_small(dtype, tmp_bytes, needed):
    with pytest.raises(CodegenError, match=f"needs at least {needed}"):
        run_binary(asc.adv.power, np.ones(64, dtype), np.ones(64, dtype), 64, tmp_bytes)


def int_power_model(x, e):
    """CANN's int32 x^y: wrapping multiplies by squaring; for y < 0, trunc(1 / x^|y|) in float
    (0 where x^|y| wrapped to 0)."""
    want = []
    for base, exp in zip(x.tolist(), e.tolist()):
        p = np.int32(1)
        with np.errstate(over="ignore"):
            b = np.int32(base)
            for _ in range(abs(exp)):
                p = np.int32(p * b)
        if exp < 0 and p != 0:
            p = np.int32(np.trunc(np.float32(1.0) / np.float32(p)))
        want.append(p)
    return np.array(want, np.int32)


def assert_only_cmp_mask_reads(report):
    """No race or error; warnings only for the library's set_cmp_mask of a scalar block of
    which it wrote the first word (the select address)."""
    assert report.status == "OK" and (report.check.races, report.check.errors) == (0, 0)
    kinds = {(d.kind, d.op) for d in report.diagnostics if d.severity == "WARNING"}
    assert kinds <= {("UNINITIALIZED_READ", "set_cmp_mask"),
                     ("UNINITIALIZED_READ", "compare_scalar")}


@pytest.mark.parametrize("n, count, tmp_bytes", [(256, 256, 0), (1024, 1000, 768 * 2)])
def test_power_int32_exact(n, count, tmp_bytes):
    """Exact against the library's integer arithmetic: zero and negative exponents, zero,
    negative and one-valued bases, wrapping; with a small temp the count runs in chunks."""
    rng = np.random.default_rng(n)
    x = rng.integers(-6, 7, n).astype(np.int32)
    e = rng.integers(-3, 12, n).astype(np.int32)
    x[:6] = [0, 0, 2, -1, 1, 3]
    e[:6] = [0, -2, 31, 7, -5, 20]
    y, report = run_binary(asc.adv.power, x, e, count, tmp_bytes, check=False)
    assert_only_cmp_mask_reads(report)
    np.testing.assert_array_equal(y[:count], int_power_model(x[:count], e[:count]))
    assert (y[count:] == 0).all()


def test_power_argument_errors():
    a = np.ones(64, np.int32)
    with pytest.raises(CodegenError, match="dst must not be src0"):
        run_binary(power_in_place, a, a)
    with pytest.raises(CodegenError, match="must all be int32"):
        run_binary(asc.adv.power, a, a.astype(np.float32))
    with pytest.raises(CodegenError, match="src1 must be a LocalTensor"):
        run_binary(power_of_scalar, np.ones(64, np.float32), np.ones(64, np.float32))


# ---- xor -----------------------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", [np.int16, np.uint16])
def test_xor_exact_tail_and_temp(dtype):
    """Exact; a 64-byte temp makes chunks of 32 elements, the scratch one chunk: same result;
    elements beyond count stay zero."""
    info = np.iinfo(dtype)
    rng = np.random.default_rng(9)
    a = rng.integers(info.min, info.max, 2048, endpoint=True).astype(dtype)
    b = rng.integers(info.min, info.max, 2048, endpoint=True).astype(dtype)
    scratch, _ = run_binary(asc.adv.xor, a, b, 2000)
    mine, _ = run_binary(asc.adv.xor, a, b, 2000, 64)
    np.testing.assert_array_equal(scratch[:2000], a[:2000] ^ b[:2000])
    assert (scratch[2000:] == 0).all()
    np.testing.assert_array_equal(mine, scratch)


def test_xor_errors():
    a = np.ones(64, np.int16)
    with pytest.raises(CodegenError, match="needs at least 64"):
        run_binary(asc.adv.xor, a, a, 64, 32)
    with pytest.raises(CodegenError, match="all be int16 or all uint16"):
        run_binary(asc.adv.xor, a.astype(np.int32), a.astype(np.int32))
    with pytest.raises(CodegenError, match="dst must not be src0"):
        run_binary(xor_in_place, a, a)


# ---- axpy ----------------------------------------------------------------------------------------

@asc.jit
def axpy_kernel(x: asc.GlobalAddress, d: asc.GlobalAddress, y: asc.GlobalAddress,
                n: asc.ConstExpr[int], scalar: float, count, tmp_bytes: asc.ConstExpr[int],
                in_place: asc.ConstExpr[bool]):
    """y = d + x * scalar on `count` elements (y = d beyond): src x, dst starting as d; in_place:
    dst is src (x)."""
    gx = asc.GlobalTensor()
    gd = asc.GlobalTensor()
    gy = asc.GlobalTensor()
    gx.set_global_buffer(x, n)
    gd.set_global_buffer(d, n)
    gy.set_global_buffer(y, n)
    pipe = asc.TPipe()
    qin = asc.TQue(asc.TPosition.VECIN, 2)
    qout = asc.TQue(asc.TPosition.VECOUT, 1)
    pipe.init_buffer(qin, 2, n * 4)
    pipe.init_buffer(qout, 1, n * y.dtype.sizeof())
    tmp = temp_buffer(pipe, tmp_bytes)
    src = qin.alloc_tensor(x.dtype)
    acc = qin.alloc_tensor(d.dtype)
    asc.data_copy(src, gx, n)
    asc.data_copy(acc, gd, n)
    qin.enque(src)
    qin.enque(acc)
    src = qin.deque(x.dtype)
    acc = qin.deque(d.dtype)
    if in_place:
        acc = src
    asc.adv.axpy(acc, src, scalar, count, tmp)
    asc.pipe_barrier(asc.PipeID.PIPE_V)
    out = qout.alloc_tensor(y.dtype)
    asc.adds(out, acc, 0.0, n)
    qout.enque(out)
    qin.free_tensor(src)
    out = qout.deque(y.dtype)
    asc.data_copy(gy, out, n)
    qout.free_tensor(out)


def run_axpy(x, d, scalar, count=None, tmp_bytes=0, in_place=False):
    y = np.zeros_like(d)
    count = x.size if count is None else count
    report = axpy_kernel[1, rt.current_stream()](x, d, y, x.size, scalar, count, tmp_bytes,
                                                 in_place)
    assert_clean(report)
    return y, report


def axpy_model(x, d, scalar):
    """The library's roundings: a half source in float with the scalar rounded to half first
    (the kernel's float argument arrives as float32); the product rounded, then the sum."""
    s = np.float32(scalar)
    if x.dtype == np.float16:
        s = np.float32(np.float16(s))
    acc = x.astype(np.float32) * s + d.astype(np.float32)
    return acc.astype(d.dtype)


PAIRS = [(np.float16, np.float16), (np.float16, np.float32), (np.float32, np.float32)]


@pytest.mark.parametrize("src_dtype, dst_dtype", PAIRS)
def test_axpy_exact_against_its_roundings(src_dtype, dst_dtype):
    """Bit-exact against the numpy model of the two roundings; against float64 d + x*s (with
    the half-rounded scalar) within 1 ULP of dst's type (float32 measured 1.0, half 0.5)."""
    rng = np.random.default_rng(13)
    x = rng.uniform(-4, 4, 2048).astype(src_dtype)
    d = rng.uniform(-4, 4, 2048).astype(dst_dtype)
    got, _ = run_axpy(x, d, 0.1)
    np.testing.assert_array_equal(got, axpy_model(x, d, 0.1))
    s = np.float32(0.1) if src_dtype == np.float32 else np.float16(np.float32(0.1))
    product = x.astype(np.float64) * np.float64(s)
    want = d.astype(np.float64) + product
    far = np.abs(want) >= np.abs(product)  # no cancellation
    assert ulp_error(got[far], want[far], dst_dtype).max() <= 1.0


def test_axpy_scalar_rounded_to_half():
    """A half source multiplies by half(scalar): 0.1 acts as 0.0999755859375, seen in a float
    dst."""
    x = np.full(64, 1000.0, np.float16)
    got, _ = run_axpy(x, np.zeros(64, np.float32), 0.1)
    assert got[0] == np.float32(1000 * np.float32(np.float16(0.1)))
    assert got[0] != np.float32(100.0)


@pytest.mark.parametrize("src_dtype, dst_dtype", PAIRS)
def test_axpy_tail_temp_and_scratch(src_dtype, dst_dtype):
    """A 512-byte temp: chunks of 64 floats (half dst: two areas) or 128; then the tail; dst
    beyond count keeps its values; the framework's scratch gives the same result."""
    rng = np.random.default_rng(17)
    x = rng.uniform(-4, 4, 1024).astype(src_dtype)
    d = rng.uniform(-4, 4, 1024).astype(dst_dtype)
    mine, _ = run_axpy(x, d, -1.5, 1000, 512)
    scratch, _ = run_axpy(x, d, -1.5, 1000)
    np.testing.assert_array_equal(mine, scratch)
    np.testing.assert_array_equal(mine[:1000], axpy_model(x[:1000], d[:1000], -1.5))
    np.testing.assert_array_equal(mine[1000:], d[1000:])


@pytest.mark.parametrize("dtype", [np.float16, np.float32])
def test_axpy_in_place(dtype):
    x = np.linspace(-2, 2, 512).astype(dtype)
    got, _ = run_axpy(x, np.zeros(512, dtype), 3.0, 500, in_place=True)
    np.testing.assert_array_equal(got[:500], axpy_model(x[:500], x[:500], 3.0))
    np.testing.assert_array_equal(got[500:], x[500:])


def test_axpy_errors():
    with pytest.raises(CodegenError, match="needs at least 256"):
        run_axpy(np.ones(64, np.float16), np.ones(64, np.float16), 1.0, 64, 128)
    with pytest.raises(CodegenError, match="needs at least 128"):
        run_axpy(np.ones(64, np.float16), np.ones(64, np.float32), 1.0, 64, 64)
    with pytest.raises(CodegenError, match=r"\(src, dst\) must be"):
        run_axpy(np.ones(64, np.float32), np.ones(64, np.float16), 1.0)
