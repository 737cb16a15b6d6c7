"""asc.adv.digamma and asc.adv.lgamma (math_gamma.py), CANN 8.1's A2 sequences, against float64
(torch.special.digamma, math.lgamma) for float32 and float16: error bands, special values, tails
(float rounds the count up to 8; half lgamma writes to the end of its last chunk), in place,
is_reuse_source, the temp buffer against the framework's scratch, and the argument checks.

Where |f| >= 1 the error is in ULP of the result type; where |f| < 1 (around the zeros of digamma
and of lgamma at 1 and 2) relative error means nothing and the bound is absolute."""
import functools
import math

import numpy as np
import pytest
import torch

import asc
import asc.lib.runtime as rt
from asc.codegen.errors import CodegenError
from asc.runtime.errors import KernelWarning
from adv_kernels import assert_clean, math_kernel

# Half overflows (-2^23, the references of the poles) and inf - inf are meant.
pytestmark = pytest.mark.filterwarnings("ignore:overflow encountered in cast:RuntimeWarning",
                                        "ignore:invalid value encountered:RuntimeWarning")
DTYPES = {"f32": np.float32, "f16": np.float16}


def reference(op, x):
    x64 = np.asarray(x, np.float64)
    if op == "digamma":
        return torch.special.digamma(torch.from_numpy(x64)).numpy()
    return np.array([math.lgamma(v) if np.isfinite(v) and not (v <= 0 and v == int(v))
                     else np.nan if np.isnan(v) else np.inf for v in x64])


def run(op, x, count=None, tmp_bytes=0, in_place=False, clean=True, **flags):
    y = np.zeros_like(x)
    fn = functools.partial(getattr(asc.adv, op), **flags) if flags else getattr(asc.adv, op)
    report = math_kernel[1, rt.current_stream()](x, y, x.size, fn, x.size if count is None
                                                 else count, tmp_bytes, in_place)
    if clean:
        assert_clean(report)
    return y, report


def band(lo, hi, k=2048):
    if lo > 0:
        return np.geomspace(lo, hi, k)
    if hi < 0:
        return -np.geomspace(-hi, -lo, k)
    return np.linspace(lo, hi, k)


def errors(got, want, dtype):
    """(worst ULP where |want| >= 1, worst absolute error where |want| < 1); a NaN want (a
    digamma pole) must come out NaN, one beyond the type's range as that infinity."""
    want_t = want.astype(dtype)
    finite = np.isfinite(want_t)
    nan = np.isnan(want_t)
    assert np.isnan(got[nan]).all() and (got[~finite & ~nan] == want_t[~finite & ~nan]).all()
    assert np.isfinite(got[finite]).all()
    err = np.abs(got.astype(np.float64) - want)
    spacing = np.spacing(np.abs(want_t[finite])).astype(np.float64)
    big = np.abs(want[finite]) >= 1
    ulps = err[finite][big] / spacing[big]
    return (ulps.max() if ulps.size else 0.0), err[finite][~big].max(initial=0.0)


# (op, dtype, [(lo, hi, worst ULP where |f| >= 1, worst absolute where |f| < 1)]): the bounds are
# the measured worst with a small margin (docs/adv.md has the table).
ACCURACY = [
    ("digamma", "f32", [(10, 1e4, 2.8, 0), (1e4, 1e30, 1.4, 0), (1e-6, 10, 8.0, 9e-7),
                        (-10, -1e-3, 5.8, 7.5e-7), (-1e6, -10, 8.6, 2.3e-6)]),
    ("digamma", "f16", [(10, 6e4, 0.5, 0), (1e-4, 10, 0.6, 3.3e-4), (-10, -1e-3, 0.6, 3e-4),
                        (-6e4, -10, 0.5, 2.5e-4), (-1e-4, -1e-6, 0.5, 0)]),
    ("lgamma", "f32", [(1e-30, 3, 0.8, 8e-8), (3, 5.8, 500, 1.2e-7), (5.8, 1e36, 3.1, 0),
                       (-3, -1e-30, 2.6, 2e-7), (-5.8, -3, 420, 4.7e-5), (-1e6, -5.8, 5.4, 0)]),
    ("lgamma", "f16", [(1e-4, 3, 0.5, 2.5e-4), (3, 5.8, 0.5, 2.5e-4), (5.8, 6e4, 0.5, 0),
                       (-3, -1e-3, 0.51, 2.5e-4), (-5.8, -3, 0.5, 2.5e-4), (-6e4, -5.8, 0.5, 0),
                       (-1e-3, -1e-6, 7.5, 0)]),
]


@pytest.mark.parametrize("op, dtype, bands", ACCURACY, ids=[f"{o}-{d}" for o, d, _ in ACCURACY])
def test_accuracy(op, dtype, bands):
    """Every band in one launch. float32 misses 2 ULP (digamma: 1/x + ... + 1/(x + 9) and the
    reflection; lgamma: the [3, 5.8) rational is off by up to 1.8e-4 in float64 already);
    float16 stays within 1 ULP but for lgamma of tiny negatives (x - floor(x) cancels)."""
    dt = DTYPES[dtype]
    parts = [band(lo, hi).astype(dt) for lo, hi, _, _ in bands]
    y, _ = run(op, np.concatenate(parts))
    start = 0
    for (lo, hi, ulp_bound, abs_bound), x in zip(bands, parts):
        got = y[start:start + x.size]
        start += x.size
        ulps, absolute = errors(got, reference(op, x), dt)
        assert ulps <= ulp_bound and absolute <= abs_bound, (lo, hi, ulps, absolute)


SPECIAL = [0.0, -0.0, np.inf, -np.inf, np.nan, -1.0, -2.0, -100.0, -8388608.0, 1.0, 2.0, 0.5,
           -0.5, -1.5, 1e-5, -1e-5, 3.0]


@pytest.mark.parametrize("op", ["digamma", "lgamma"])
@pytest.mark.parametrize("dtype", ["f32", "f16"])
def test_special_values(op, dtype):
    """0 and the negative integers are poles (digamma NaN at negative integers and at or below
    -2^23, -inf at +0, +inf at -0; lgamma +inf), NaN stays NaN, +inf gives +inf, digamma(-inf)
    is NaN and lgamma(-inf) +inf, as torch and math have them; half overflows to inf."""
    dt = DTYPES[dtype]
    x = np.array(SPECIAL + [1.0] * (64 - len(SPECIAL)), dt)
    # half lgamma: one whole chunk of 64 (its tail would run over the whole chunk)
    y, _ = run(op, x, tmp_bytes=13 * 64 * 4 if (op, dtype) == ("lgamma", "f16") else 0)
    want = reference(op, x)
    got = y[:len(SPECIAL)].astype(np.float64)
    want_t = want[:len(SPECIAL)].astype(dt).astype(np.float64)
    same = (got == want_t) | (np.isnan(got) & np.isnan(want_t))
    close = np.isclose(got, want_t, rtol=2e-3 if dtype == "f16" else 2e-6, atol=1e-6)
    assert (same | close).all(), list(zip(x[:len(SPECIAL)], got, want_t))
    assert np.signbit(got[:2]).tolist() == ([True, False] if op == "digamma" else [False, False])


# (op, dtype, temp bytes giving chunks of 128 elements)
CHUNKS = [("digamma", "f32", 7 * 128 * 4), ("digamma", "f16", 8 * 128 * 4),
          ("lgamma", "f32", 8 * 128 * 4), ("lgamma", "f16", 13 * 128 * 4)]
TEMP = {(op, dtype): tmp for op, dtype, tmp in CHUNKS}


@pytest.mark.parametrize("op, dtype, tmp_bytes", CHUNKS)
def test_tail(op, dtype, tmp_bytes):
    """1001 of 1152 elements in chunks of 128: the float paths and half digamma round the count
    up to 1008; half lgamma runs its last chunk whole, so 1001..1023 are written (from stale
    chunk data) and only 1024.. stay zero."""
    dt = DTYPES[dtype]
    x = np.random.default_rng(7).uniform(-6, 12, 1152).astype(dt)
    y, _ = run(op, x, 1001, tmp_bytes)
    want = reference(op, x[:1001])
    tol = dict(rtol=2e-3, atol=2e-3) if dtype == "f16" else dict(rtol=2e-5, atol=2e-4)
    np.testing.assert_allclose(y[:1001], want, **tol)
    written = 1024 if (op, dtype) == ("lgamma", "f16") else 1008
    assert (y[1001:written] != 0).all()
    assert (y[written:] == 0).all()
    if written == 1008:
        np.testing.assert_allclose(y[1001:1008], reference(op, x[1001:1008]), **tol)


@pytest.mark.parametrize("op, dtype, tmp_bytes", CHUNKS)
def test_temp_buffer_and_scratch_agree(op, dtype, tmp_bytes):
    """Chunks of 128 in the user's temp, one chunk in the framework's scratch: the same bits."""
    dt = DTYPES[dtype]
    x = np.random.default_rng(3).uniform(-8, 8, 2048).astype(dt)
    ours, _ = run(op, x, 2048, tmp_bytes)
    # half lgamma: 2048 is a tail of the scratch's chunk, run whole over stale temp bytes
    if (op, dtype) == ("lgamma", "f16"):
        with pytest.warns(KernelWarning, match="UNINITIALIZED_READ"):
            framework, report = run(op, x, 2048, 0, clean=False)
        assert {d.kind for d in report.diagnostics} == {"UNINITIALIZED_READ"}
    else:
        framework, _ = run(op, x, 2048, 0)
    np.testing.assert_array_equal(ours, framework)


@pytest.mark.parametrize("op, dtype", [("digamma", "f16"), ("lgamma", "f32"), ("lgamma", "f16")])
def test_in_place(op, dtype):
    dt = DTYPES[dtype]
    x = np.random.default_rng(5).uniform(-4, 9, 1024).astype(dt)
    y, _ = run(op, x, 1024, TEMP[op, dtype], in_place=True)
    z, _ = run(op, x, 1024, TEMP[op, dtype])
    np.testing.assert_array_equal(y, z)


@pytest.mark.parametrize("op, steps", [("digamma", 6), ("lgamma", 7)])
def test_reuse_source_needs_one_area_less(op, steps):
    """is_reuse_source: float's temp needs one area less (the source holds it), same results."""
    x = np.random.default_rng(11).uniform(-5, 5, 1024).astype(np.float32)
    y, _ = run(op, x, 1024, steps * 64 * 4, is_reuse_source=True)
    z, _ = run(op, x, 1024, 0)
    np.testing.assert_array_equal(y, z)
    with pytest.raises(CodegenError, match=f"needs at least {(steps + 1) * 32 * 4}"):
        run(op, x, 1024, steps * 32 * 4)


@pytest.mark.parametrize("op, dtype, needed", [("digamma", "f32", 896), ("digamma", "f16", 1024),
                                               ("lgamma", "f32", 1024), ("lgamma", "f16", 1664)])
def test_temp_too_small(op, dtype, needed):
    x = np.ones(64, DTYPES[dtype])
    with pytest.raises(CodegenError, match=f"{op}\\(\\): the temp buffer holds 512 bytes; {op} "
                                           f"needs at least {needed}"):
        run(op, x, 64, 512)


def test_float_digamma_refuses_dst_is_src():
    with pytest.raises(CodegenError, match="for float32 dst must not be src"):
        run("digamma", np.ones(64, np.float32), 64, 0, in_place=True)


def test_float_lgamma_reuse_refuses_dst_is_src():
    with pytest.raises(CodegenError, match="with is_reuse_source=True dst must not be src"):
        run("lgamma", np.ones(64, np.float32), 64, 0, in_place=True, is_reuse_source=True)


@pytest.mark.parametrize("op", ["digamma", "lgamma"])
def test_argument_checks(op):
    with pytest.raises(CodegenError, match="dst and src must both be float16 or both float32"):
        run(op, np.ones(64, np.int32), 64)
    with pytest.raises(CodegenError, match="is_reuse_source must be a compile-time bool"):
        run(op, np.ones(64, np.float32), 64, is_reuse_source=1)
