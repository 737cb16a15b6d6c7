"""asc.adv's sinh, cosh, asinh, acosh, atanh, log, erf and erfc (asc-api.md 6.7) as the
library's sequences (math_hyperbolic.py): accuracy against float64 per band, special values,
the temp buffer's chunking against the framework's scratch, tails, in place and the errors."""
import functools
import math

import numpy as np
import pytest

import asc
import asc.lib.runtime as rt
from asc.codegen.errors import CodegenError
from adv_kernels import assert_clean, math_kernel, ulp_error

OPS = ["sinh", "cosh", "asinh", "acosh", "atanh", "log", "erf", "erfc"]
WANT = {"sinh": np.sinh, "cosh": np.cosh, "asinh": np.arcsinh, "acosh": np.arccosh,
        "atanh": np.arctanh, "log": np.log, "erf": np.vectorize(math.erf),
        "erfc": np.vectorize(math.erfc)}
# Float areas of the temp per element (half source, float source), as the library splits it.
AREAS = {"sinh": (2, 1), "cosh": (3, 2), "asinh": (3, 3), "acosh": (2, 1), "atanh": (2, 1),
         "erf": (4, 3), "erfc": (6, 5)}
# V-pipe instructions per chunk, barriers included (half source, float source). A half atanh
# chunk is 15 and the barrier auto_sync adds before the next chunk's cast (the library has none).
PER_CHUNK = {"sinh": (16, 12), "cosh": (14, 10), "asinh": (29, 23), "acosh": (18, 14),
             "atanh": (16, 12), "erf": (52, 48), "erfc": (84, 80)}


def run(name, x, count=None, tmp_bytes=0, in_place=False, op=None):
    y = np.zeros_like(x)
    count = x.size if count is None else count
    op = getattr(asc.adv, name) if op is None else op
    with np.errstate(all="ignore"):
        report = math_kernel[1, rt.current_stream()](x, y, x.size, op, count, tmp_bytes,
                                                     in_place)
    assert_clean(report)
    return y, report


def band(lo, hi, both_signs, dtype):
    """4096 points over [lo, hi] (geometric when lo > 0), and their negatives if asked."""
    x = np.geomspace(lo, hi, 4096) if lo > 0 else np.linspace(lo, hi, 4096)
    return (np.concatenate([x, -x]) if both_signs else x).astype(dtype)


F32, F16 = np.float32, np.float16


@pytest.mark.parametrize("name, dtype, lo, hi, both_signs, ulps, atol", [
    ("sinh", F32, 0.5, 5, True, 2, None),            # measured 1.62 ULP
    ("sinh", F32, 5, 89, True, 26, None),            # x - ln2 rounded: 24.3 ULP
    ("sinh", F32, 1e-4, 0.5, True, None, 8e-8),      # the two terms cancel: 6.9e-8 absolute
    ("sinh", F16, 1e-3, 11, True, 0.51, None),       # float inside, one rounding: 0.50
    ("sinh", F16, 6e-8, 1e-3, True, 1.01, None),     # float's 6e-8 error, half's step: 1.00
    ("cosh", F32, 1e-4, 1, True, 1.5, None),         # measured 1.37
    ("cosh", F32, 1, 5, True, 5.5, None),            # measured 5.11
    ("cosh", F32, 5, 89, True, 40, None),            # measured 38.1
    ("cosh", F16, 6e-8, 11, True, 0.51, None),
    ("asinh", F32, 1e-4, 0.5, True, None, 1.6e-7),   # ln(1 + small): 1.43e-7 absolute
    ("asinh", F32, 0.5, 2, True, 3, None),           # measured 2.67
    ("asinh", F32, 2, 1.8e19, True, 1.2, None),      # measured 0.90
    ("asinh", F16, 1e-3, 65504, True, 0.51, None),
    ("asinh", F16, 6e-8, 1e-3, True, 1.01, None),
    ("acosh", F32, 1, 1.1, False, None, 1.5e-6),     # x^2 - 1 cancels: 1.2e-6 absolute
    ("acosh", F32, 1.1, 2, False, 3.5, None),        # measured 3.20
    ("acosh", F32, 2, 1.8e19, False, 1.2, None),     # measured 1.06
    ("acosh", F16, 1, 65504, False, 0.51, None),
    ("atanh", F32, 1e-4, 0.5, True, None, 8e-8),     # ln(1 + small): 7.3e-8 absolute
    ("atanh", F32, 0.5, 0.9999, True, 1.5, None),    # measured 1.18
    ("atanh", F16, 1e-3, 0.9995, True, 0.51, None),
    ("atanh", F16, 6e-8, 1e-3, True, 1.01, None),
    ("log", F32, 1e-38, 3e38, False, 1, None),       # one ln: 0.79 near 1
    ("log", F32, 0.5, 2, False, 1, None),
    ("log", F16, 6e-8, 65504, False, 0.51, None),
    ("erf", F32, 1e-38, 2, True, 4, None),           # the rational fit: 3.65 ULP
    ("erf", F32, 2, 3.92, True, 5.5, None),          # measured 4.97
    ("erf", F16, 6e-8, 4, True, 0.51, None),
    ("erfc", F32, -4, 0.5, False, 3, None),          # measured 2.29
    ("erfc", F32, 0.5, 2, False, 5, None),           # measured 4.66
    ("erfc", F32, 2, 4, False, 10.5, None),          # -z^2 rounded before exp: 9.89
    ("erfc", F32, 4, 9, False, 70, None),            # measured 65.3
    ("erfc", F16, -4, 4, False, 0.51, None),
])
def test_accuracy(name, dtype, lo, hi, both_signs, ulps, atol):
    """What each sequence reaches against float64 (docs/adv.md has the table)."""
    x = band(lo, hi, both_signs, dtype)
    y, _ = run(name, x)
    want = WANT[name](x.astype(np.float64))
    if ulps is not None:
        assert ulp_error(y, want, dtype).max() <= ulps
    if atol is not None:
        assert np.abs(y.astype(np.float64) - want).max() <= atol


INF, NAN = np.inf, np.nan
SPECIAL = {  # input -> output, the same for float32 and float16 unless a third value says so
    "sinh": [(0.0, 0.0), (-0.0, 0.0), (INF, INF), (-INF, -INF), (NAN, NAN), (100, INF),
             (-100, -INF)],
    "cosh": [(0.0, 1), (-0.0, 1), (INF, INF), (-INF, INF), (NAN, NAN), (-100, INF)],
    "asinh": [(0.0, 0.0), (-0.0, -0.0), (INF, NAN), (-INF, NAN), (NAN, NAN),
              (3e19, INF, NAN), (1e20, NAN)],
    "acosh": [(1, 0.0), (0.5, NAN), (-1, NAN), (INF, NAN), (NAN, NAN), (3e19, NAN, NAN)],
    "atanh": [(0.0, 0.0), (-0.0, 0.0), (1, INF), (-1, -INF), (2, NAN), (-INF, NAN),
              (NAN, NAN)],
    "log": [(0.0, -INF), (-0.0, -INF), (1, 0.0), (INF, INF), (-1, NAN), (NAN, NAN)],
    "erf": [(0.0, 0.0), (-0.0, -0.0), (INF, 1), (-INF, -1), (NAN, NAN), (10, 1)],
    "erfc": [(0.0, 1), (-0.0, 1), (-INF, 2), (NAN, NAN), (-10, 2), (INF, 3e-45, 0.0)],
}


@pytest.mark.parametrize("dtype", [F32, F16])
@pytest.mark.parametrize("name", OPS)
def test_special_values(name, dtype):
    """Zeros (with their sign), infinities, NaN and the domain edges, as the formulas give
    them: asinh and acosh of inf are NaN (inf / inf), x^2 overflows beyond 1.8e19, sinh and
    atanh of -0 are +0, erfc(inf) is erfc(10) in float32's denormals."""
    rows = SPECIAL[name]
    x = np.ones(64, dtype)
    with np.errstate(over="ignore"):
        x[:len(rows)] = [r[0] for r in rows]
    want = np.array([r[2] if len(r) > 2 and dtype == F16 else r[1] for r in rows], np.float64)
    y, _ = run(name, x)
    got = y[:len(rows)].astype(np.float64)
    np.testing.assert_array_equal(np.isnan(got), np.isnan(want))
    finite = ~np.isnan(want)
    np.testing.assert_allclose(got[finite], want[finite], rtol=0, atol=1e-45)
    np.testing.assert_array_equal(np.signbit(got[finite]), np.signbit(want[finite]))


def chunk_bytes(name, dtype, split):
    """The temp that gives chunks of `split` elements."""
    return AREAS[name][0 if dtype == F16 else 1] * split * 4


@pytest.mark.parametrize("dtype", [F32, F16])
@pytest.mark.parametrize("name", [op for op in OPS if op != "log"])
def test_chunks_tails_and_scratch(name, dtype):
    """A user temp of 256-element chunks gives the scratch's results bit for bit; four chunks
    cost three chunks' instructions more than one; a tail leaves the rest zero."""
    lo = 1.01 if name == "acosh" else -0.99
    hi = 3 if name in ("acosh", "sinh", "cosh") else 0.99
    x = np.random.default_rng(len(name)).uniform(lo, hi, 1024).astype(dtype)
    tmp = chunk_bytes(name, dtype, 256)
    whole, one = run(name, x)
    chunked, four = run(name, x, tmp_bytes=tmp)
    np.testing.assert_array_equal(chunked, whole)
    v = {r: r.cores[0].pipes["V"].instructions for r in (one, four)}
    assert v[four] - v[one] == 3 * PER_CHUNK[name][0 if dtype == F16 else 1]
    tail, _ = run(name, x, 1000, tmp)
    np.testing.assert_array_equal(tail[:1000], whole[:1000])
    assert (tail[1000:] == 0).all()


@pytest.mark.parametrize("dtype", [F32, F16])
@pytest.mark.parametrize("name", ["asinh", "acosh", "atanh", "log"])
def test_in_place(name, dtype):
    """The ops whose Ascend C header does not forbid dst == src: same results in place."""
    lo, hi = (-0.99, 0.99) if name == "atanh" else (1.01, 3)
    x = np.random.default_rng(3).uniform(lo, hi, 512).astype(dtype)
    apart, _ = run(name, x, 300)
    same, _ = run(name, x, 300, in_place=True)
    np.testing.assert_array_equal(same[:300], apart[:300])


@pytest.mark.parametrize("dtype", [F32, F16])
def test_log_ignores_a_temp(dtype):
    """log is one ln over the count, with or without a temp; the rest stays zero."""
    x = np.geomspace(1e-3, 1e3, 1024).astype(dtype)
    bare, plain = run("log", x, 997)
    given, with_tmp = run("log", x, 997, 1024)
    np.testing.assert_array_equal(given, bare)
    assert (bare[997:] == 0).all()
    assert with_tmp.cores[0].pipes["V"].instructions == plain.cores[0].pipes["V"].instructions


@pytest.mark.parametrize("dtype", [F32, F16])
@pytest.mark.parametrize("name", [op for op in OPS if op != "log"])
def test_temp_too_small(name, dtype):
    needed = chunk_bytes(name, dtype, 32)
    with pytest.raises(CodegenError, match=f"{name} needs at least {needed}"):
        run(name, np.ones(64, dtype), 64, needed - 32)


@pytest.mark.parametrize("name", OPS)
def test_argument_errors(name):
    op = getattr(asc.adv, name)
    with pytest.raises(CodegenError, match=f"{name}\\(\\): dst and src must both be float16"):
        run(name, np.ones(64, np.int16))
    with pytest.raises(CodegenError, match="is_reuse_source must be a compile-time bool"):
        run(name, np.ones(64, F32), op=functools.partial(op, is_reuse_source=1))
    with pytest.raises(CodegenError, match="count is 128, more than src's 64 elements"):
        run(name, np.ones(64, F32), tmp_bytes=256,  # a source of known size: the temp's floats
            op=lambda dst, src, count, tmp: op(dst, tmp.reinterpret_cast(asc.float32), 128))
    with pytest.raises(CodegenError, match="temp_buffer must be uint8"):
        run(name, np.ones(64, F32), tmp_bytes=1024,
            op=lambda dst, src, count, tmp: op(dst, src, count, tmp.reinterpret_cast(asc.int16)))
