"""asc.adv's rounding ops (asc-api.md 6.7): ceil, floor, round, trunc, frac and sign as the
library's sequences (math_rounding.py), exact against numpy for float32 and float16: halfway
cases, signed zeros, values past 2^23 (float) / 2^10 (half), inf and NaN; tails, in place, the
temp buffer's chunking and the framework's scratch."""
import functools

import numpy as np
import pytest

import asc
import asc.lib.runtime as rt
from asc.codegen.errors import CodegenError
from adv_kernels import assert_clean, math_kernel

OPS = ["ceil", "floor", "round", "trunc", "frac", "sign"]
IN_PLACE = {"ceil": (np.float16, np.float32), "floor": (np.float16, np.float32),
            "round": (np.float16, np.float32), "trunc": (np.float16, np.float32),
            "frac": (np.float16,), "sign": ()}


def run(op, x, count=None, tmp_bytes=0, in_place=False):
    y = np.zeros_like(x)
    count = x.size if count is None else count
    report = math_kernel[1, rt.current_stream()](x, y, x.size, getattr(asc.adv, op), count,
                                                 tmp_bytes, in_place)
    assert_clean(report)
    return y, report


def reference(op, x):
    """numpy's result in float64, rounded to x's type (exact for these ops)."""
    w = x.astype(np.float64)
    with np.errstate(invalid="ignore"):
        want = {"ceil": np.ceil, "floor": np.floor, "round": np.rint, "trunc": np.trunc,
                "frac": lambda v: v - np.trunc(v), "sign": np.sign}[op](w)
    if op == "sign":
        want = np.where(np.isnan(w), 0.0, want)  # the compares are false for NaN
    return want.astype(x.dtype)


def special_values(dtype):
    """Halfway and near-halfway points, signed zeros, integers, values past the last fraction
    bit, the largest finite values, inf and NaN, both signs."""
    big = 2.0 ** (23 if dtype == np.float32 else 10)
    eps = float(np.finfo(dtype).eps)
    top = float(np.finfo(dtype).max)
    values = [0.0, 0.5, 1.5, 2.5, 3.5, 0.49, 0.51, 1 - eps, 1 + 2 * eps, 1.0, 2.0, 7.25, 100.75,
              big - 0.5, big - 1.5, big, big + 1, big + 2, 2 * big + 2, 4 * big, top, 1e-3,
              2.0 ** -14, np.inf, np.nan]
    values += [k + 0.5 for k in range(4, 40)]
    x = np.array(values + [-v for v in values], np.float64).astype(dtype)
    pad = (-x.size) % 64
    return np.concatenate([x, np.full(pad, 1.25, dtype)])


@pytest.mark.parametrize("dtype", [np.float16, np.float32])
@pytest.mark.parametrize("op", OPS)
def test_exact_on_special_values(op, dtype):
    """Equal to numpy bit for bit except the sign of zero: every zero the float -> float cast
    makes is +0 (ascendc-semantics.md 5.2), where numpy keeps -0 (ceil(-0.5), trunc(-0.0))."""
    x = special_values(dtype)
    y, _ = run(op, x)
    want = reference(op, x)
    np.testing.assert_array_equal(y, want)
    zeros = (y == 0) & ~((op == "frac") & (x == 0))
    assert not np.signbit(y[zeros]).any()


@pytest.mark.parametrize("dtype", [np.float16, np.float32])
def test_exact_on_random_values(dtype):
    """All six ops on the same wide random sample, in one launch each."""
    rng = np.random.default_rng(7)
    scale = 2.0 ** rng.uniform(-4, 12 if dtype == np.float16 else 26, 2048)
    x = (scale * rng.choice([-1, 1], 2048)).astype(dtype)
    for op in OPS:
        y, _ = run(op, x)
        np.testing.assert_array_equal(y, reference(op, x), err_msg=op)


def test_frac_of_negative_zero_and_integers():
    """frac(-0) = -0 - (+0) = -0 and frac(-3) = -3 - (-3) = +0, by the sub's IEEE rules."""
    x = np.array([-0.0, -3.0, 3.0, -2.75] + [0.0] * 60, np.float32)
    y, _ = run("frac", x)
    assert np.signbit(y[0]) and not np.signbit(y[1]) and not np.signbit(y[2])
    assert y[3] == -0.75


@pytest.mark.parametrize("op", OPS)
@pytest.mark.parametrize("dtype", [np.float16, np.float32])
def test_tail_beyond_count_stays_zero(op, dtype):
    """A temp of 1024 bytes: chunks of 256 floats (sign: 1024 / size / 3 rounded to 32), then
    the tail; elements beyond count are not written."""
    rng = np.random.default_rng(3)
    x = rng.uniform(-50, 50, 1024).astype(dtype)
    y, _ = run(op, x, 1000, 1024)
    np.testing.assert_array_equal(y[:1000], reference(op, x[:1000]))
    assert (y[1000:] == 0).all()


@pytest.mark.parametrize("op, dtype", [(op, dt) for op in OPS for dt in IN_PLACE[op]])
def test_in_place_and_user_temp(op, dtype):
    """dst is src where the sequence allows it; a user temp buffer gives the scratch's result."""
    rng = np.random.default_rng(11)
    x = rng.uniform(-9, 9, 512).astype(dtype)
    y, _ = run(op, x, 500, in_place=True)
    np.testing.assert_array_equal(y[:500], reference(op, x[:500]))
    np.testing.assert_array_equal(y[500:], x[500:])
    mine, _ = run(op, x, 500, 512)
    scratch, _ = run(op, x, 500)
    np.testing.assert_array_equal(mine, scratch)


@pytest.mark.parametrize("op, dtype", [("sign", np.float32), ("sign", np.float16),
                                       ("frac", np.float32)])
def test_in_place_refused(op, dtype):
    """sign zeroes dst before comparing src with it; float frac writes trunc(src) into dst and
    then reads src: dst is src would give 0, so it is an error."""
    with pytest.raises(CodegenError, match="dst must not be src"):
        run(op, np.ones(64, dtype), in_place=True)


def test_chunks_follow_the_temp_buffer():
    """A half ceil chunk is 3 casts and 3 barriers; a chunk is the temp's floats rounded down to
    32: 1024 bytes give 4 chunks of 256 for 1024 elements, 4096 bytes one."""
    x = np.ones(1024, np.float16)
    v = {t: run("ceil", x, 1024, t)[1].cores[0].pipes["V"].instructions for t in (1024, 4096)}
    assert v[1024] - v[4096] == 3 * 6


@pytest.mark.parametrize("op, dtype, tmp_bytes, needed", [
    ("ceil", np.float32, 64, 128), ("floor", np.float16, 96, 128), ("round", np.float16, 64, 128),
    ("frac", np.float16, 128, 256), ("sign", np.float32, 256, 384), ("sign", np.float16, 160, 192),
])
def test_temp_too_small(op, dtype, tmp_bytes, needed):
    with pytest.raises(CodegenError, match=f"needs at least {needed}"):
        run(op, np.ones(64, dtype), 64, tmp_bytes)


def test_argument_errors():
    with pytest.raises(CodegenError, match="float16 or both float32"):
        run("floor", np.ones(64, np.int32))
    y = np.zeros(64, np.float32)
    with pytest.raises(CodegenError, match="is_reuse_source must be a compile-time bool"):
        math_kernel[1, rt.current_stream()](y, y, 64, functools.partial(
            asc.adv.trunc, is_reuse_source=1), 64, 0, False)
