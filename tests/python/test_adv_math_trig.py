"""asc.adv's trigonometric ops (math_trig.py): sin, cos, tan, asin, acos, atan as the library's
sequences, against float64: every finite float16, float32 in bands, special values, chunks and
tails of a user temp buffer against the framework's scratch, is_reuse_source and the argument
errors (dst = src among them: the library forbids it)."""
import functools

import numpy as np
import pytest

import asc
import asc.lib.runtime as rt
from asc.codegen.errors import CodegenError
from adv_kernels import assert_clean, math_kernel, ulp_error

REF = {"sin": np.sin, "cos": np.cos, "tan": np.tan, "asin": np.arcsin, "acos": np.arccos,
       "atan": np.arctan}
OPS = list(REF)
DTYPES = [np.float32, np.float16]
# The library's smallest temp: one chunk of 32 elements in each area (math_trig.py).
MIN_TEMP = {("sin", np.float32): 384, ("sin", np.float16): 512,
            ("cos", np.float32): 384, ("cos", np.float16): 512,
            ("tan", np.float32): 512, ("tan", np.float16): 640,
            ("asin", np.float32): 512, ("asin", np.float16): 384,
            ("acos", np.float32): 512, ("acos", np.float16): 384,
            ("atan", np.float32): 640, ("atan", np.float16): 768}
# V pipe instructions per chunk, barriers included: the sequence's length (docs/adv.md). atan's
# include the two barriers auto_sync adds after a `min` whose source the next op overwrites.
PER_CHUNK = {("sin", np.float32): 54, ("sin", np.float16): 58,
             ("cos", np.float32): 68, ("cos", np.float16): 72,
             ("tan", np.float32): 66, ("tan", np.float16): 68,
             ("asin", np.float32): 115, ("asin", np.float16): 122,
             ("acos", np.float32): 119, ("acos", np.float16): 128,
             ("atan", np.float32): 146, ("atan", np.float16): 150}
DOMAIN = {"sin": 10.0, "cos": 10.0, "tan": 1.5, "asin": 1.0, "acos": 1.0, "atan": 20.0}


def run(op, x, count=None, tmp_bytes=0, in_place=False):
    """y = op(x) on `count` elements (all when None) through math_kernel, checked clean."""
    y = np.zeros_like(x)
    op = getattr(asc.adv, op) if isinstance(op, str) else op
    count = x.size if count is None else count
    report = math_kernel[1, rt.current_stream()](x, y, x.size, op, count, tmp_bytes, in_place)
    assert_clean(report)
    return y, report


def v_instructions(report):
    return report.cores[0].pipes["V"].instructions


@pytest.mark.parametrize("name, ulps", [("sin", 0.501), ("cos", 0.501), ("tan", 0.501),
                                        ("asin", 1.46), ("acos", 1.15), ("atan", 0.51)])
def test_every_float16(name, ulps):
    """Every finite half (|x| <= 1 for asin, acos), against float64: the float computation
    rounded once reaches half an ULP; asin and acos compute their near branch in half
    (measured 1.45 and 1.15 ULP)."""
    halves = np.arange(0, 0x7C00, dtype=np.uint16).view(np.float16)
    if name in ("asin", "acos"):
        halves = halves[halves <= 1]
    x = np.concatenate([halves, -halves])
    x = np.concatenate([x, np.zeros(-x.size % 64, np.float16)])
    worst = 0.0
    for part in np.array_split(x, 2):
        y, _ = run(name, part)
        want = REF[name](part.astype(np.float64))
        finite = np.abs(want) <= 65504  # tan's poles in half
        worst = max(worst, ulp_error(y[finite], want[finite], np.float16).max())
    assert worst <= ulps


@pytest.mark.parametrize("name, lo, hi, ulps, atol", [
    ("sin", 1e-4, 0.5, 1.1, 3.5e-8),     # measured 1.04 ULP
    ("sin", 0.5, 3.0, 2.0, 1.2e-7),      # measured 1.95 ULP
    ("sin", 3.0, 65504, None, 1.3e-7),   # near the zeros k pi the ULP error grows: absolute
    ("cos", 1e-4, 0.5, 2.3, 1.4e-7),     # measured 2.25: cos near 1 via sin(x - k pi + pi/2)
    ("cos", 0.5, np.pi, 5.8, 1.9e-7),    # measured 5.64: x - k pi rounds near -2
    ("cos", np.pi, 65504, 2.5, 1.4e-7),  # measured 2.38 ULP
    ("tan", 1e-4, 1.57, 5.1, None),      # measured 4.94 ULP; absolute error grows at the poles
    ("tan", 1.58, 65504, 7.8, None),     # measured 7.60 ULP
    ("asin", 1e-4, 0.5, 3.0, 1.4e-7),    # measured 2.87 ULP
    ("asin", 0.5, 1.0, None, 5.8e-5),    # the x^15 series at 2^-0.5: measured 5.57e-5
    ("acos", 1e-4, 0.5, 1.7, 2e-7),      # measured 1.60 ULP
    ("acos", 0.5, 1.0, None, 5.8e-5),    # measured 5.58e-5
    ("atan", 1e-4, 1e4, None, 5e-6),     # the x^9 series at tan(pi/8): measured 4.86e-6
])
def test_float32_accuracy(name, lo, hi, ulps, atol):
    """What the sequences reach in float32 against float64, 4096 points a band, both signs
    (docs/adv.md)."""
    x = np.geomspace(lo, hi, 4096)
    x = np.concatenate([x, -x]).astype(np.float32)
    y, _ = run(name, x)
    want = REF[name](x.astype(np.float64))
    if atol is not None:
        assert np.abs(y.astype(np.float64) - want).max() <= atol
    if ulps is not None:
        assert ulp_error(y, want, np.float32).max() <= ulps


NAN = float("nan")
INF = float("inf")
SPECIALS = {
    "sin": ([0.0, -0.0, INF, -INF, NAN], [0.0, -0.0, NAN, NAN, NAN]),
    "cos": ([0.0, -0.0, INF, -INF, NAN], [1.0, 1.0, NAN, NAN, NAN]),
    "tan": ([0.0, -0.0, INF, -INF, NAN], [0.0, 0.0, NAN, NAN, NAN]),  # -0 loses its sign
    "asin": ([0.0, -0.0, 1.0, -1.0, 1.5, -2.0, NAN],
             [0.0, -0.0, np.pi / 2, -np.pi / 2, NAN, NAN, NAN]),
    "acos": ([1.0, -1.0, 0.0, -0.0, 1.5, NAN], [-0.0, np.pi, np.pi / 2, np.pi / 2, NAN, NAN]),
    "atan": ([0.0, -0.0, 1.0, -1.0, NAN], [0.0, -0.0, np.pi / 4, -np.pi / 4, NAN]),
}


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name", OPS)
def test_special_values(name, dtype):
    """Zeros (with their sign), infinities, NaN (whose sign is not kept) and the domain edges,
    exactly."""
    given, want = SPECIALS[name]
    x = np.zeros(64, dtype)
    x[:len(given)] = given
    y, _ = run(name, x)
    want = np.array(want).astype(dtype)
    got = y[:len(given)]
    np.testing.assert_array_equal(got, want)
    numbers = ~np.isnan(want)
    assert (np.signbit(got[numbers]) == np.signbit(want[numbers])).all()


@pytest.mark.parametrize("dtype", DTYPES)
def test_atan_clips_at_1e4(dtype):
    """|x| beyond 1e4 (inf too) gives atan(1e4), pi/2 - 1e-4."""
    x = np.zeros(64, dtype)
    x[:4] = [1e4, INF, -INF, 6e4]
    y, _ = run("atan", x)
    assert y[1] == y[0] == -y[2] == y[3]
    assert abs(float(y[0]) - np.arctan(1e4)) <= 2 * np.spacing(dtype(np.pi / 2))


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name", OPS)
def test_chunks_tail_and_temp(name, dtype):
    """A user temp of two chunks' minimum (64-element chunks: 3 and a tail of 8 for 200 of 256
    elements) gives the framework scratch's results (one chunk), the per-chunk sequence, zeros
    beyond count."""
    n, count = 256, 200
    rng = np.random.default_rng(len(name))
    x = rng.uniform(-DOMAIN[name], DOMAIN[name], n).astype(dtype)
    y_user, user = run(name, x, count, 2 * MIN_TEMP[(name, dtype)])
    y_scratch, scratch = run(name, x, count)
    assert y_user.tobytes() == y_scratch.tobytes()
    assert (y_user[count:] == 0).all()
    tol = 2e-3 if dtype == np.float16 else 6e-5
    np.testing.assert_allclose(y_user[:count], REF[name](x[:count].astype(np.float64)),
                               rtol=tol, atol=tol)
    assert v_instructions(user) - v_instructions(scratch) == 3 * PER_CHUNK[(name, dtype)]


@pytest.mark.parametrize("name", ["sin", "cos"])
def test_reuse_source_float(name):
    """is_reuse_source keeps the reduced argument in src: two float areas, not three, so the
    same 768-byte temp holds chunks of 96, not 64 (2 chunks of 192 elements, not 3); same
    results."""
    x = np.linspace(-7, 7, 192).astype(np.float32)
    reuse = functools.partial(getattr(asc.adv, name), is_reuse_source=True)
    y_plain, plain = run(name, x, tmp_bytes=768)
    y_reuse, reused = run(reuse, x, tmp_bytes=768)
    assert y_reuse.tobytes() == y_plain.tobytes()
    assert v_instructions(plain) - v_instructions(reused) == PER_CHUNK[(name, np.float32)]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name", OPS)
def test_temp_too_small(name, dtype):
    need = MIN_TEMP[(name, dtype)]
    with pytest.raises(CodegenError, match=f"{name}\\(\\): the temp buffer holds {need - 32} "
                                           f"bytes; {name} needs at least {need}"):
        run(name, np.ones(64, dtype), 64, need - 32)


@pytest.mark.parametrize("name", OPS)
def test_not_in_place(name):
    """lib/math/<op>.h forbids dst and src to overlap (asin and acos would also compute wrong
    results: they write dst before their last read of src)."""
    with pytest.raises(CodegenError, match=f"{name}\\(\\): dst must not be src: Ascend C's"):
        run(name, np.full(64, 0.5, np.float32), in_place=True)


@pytest.mark.parametrize("op, x, message", [
    (functools.partial(asc.adv.cos, is_reuse_source=True), np.ones(64, np.float16),
     r"cos\(\): is_reuse_source is not supported for float16"),
    (functools.partial(asc.adv.tan, is_reuse_source=1), np.ones(64, np.float32),
     r"tan\(\): is_reuse_source must be a compile-time bool"),
    ("atan", np.ones(64, np.int16),
     r"atan\(\): dst and src must both be float16 or both float32"),
])
def test_argument_errors(op, x, message):
    with pytest.raises(CodegenError, match=message):
        run(op, x)

