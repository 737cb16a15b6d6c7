"""The instruction sequences behind asc.adv.digamma and asc.adv.lgamma (math_gamma.py has the
facts and their source): library sub-kernels, traced where the user calls the op, its ops at the
user's line. A PIPE_V barrier follows an instruction exactly where the library has one; `n` is
the library's splitSize of the chunk (compare iterations, bit-mask lengths, mask restores)."""
from asc.language.adv.float_casts import narrow, to_integral, widen
from asc.language.adv.math_trig_ops import sine_formula, tan_formula
from asc.language.basic.mask import set_vector_mask
from asc.language.basic.sync import pipe_barrier
from asc.language.basic.vec import (abs, add, adds, bitwise_and, bitwise_not, cast, compare, div,
                                    duplicate, ln, mul, muls, reciprocal, select, set_cmp_mask,
                                    sub)
from asc.language.core.constexpr import ConstExpr
from asc.language.core.dtype import KnownTypes as KT
from asc.language.core.enums import CMPMODE, PipeID, RoundMode
from asc.language.core.types import BinaryRepeatParams, UnaryRepeatParams
from asc.language.core.utils import static_range
from asc.runtime.jit import jit

_P = 0  # counter mode, mask loaded: one instruction covers the mask's count
_NAN = float("nan")
_INF = float("inf")
_PI = 3.14159265358979323846
# digamma (digamma_common_basic_impl.h)
_MIN_NEG = -8388608.0  # -2^23: every float at or below it is a negative integer
_POS_SERIES = (2.10927960927960927961e-2, 7.57575757575757575758e-3, 4.16666666666666666667e-3,
               3.96825396825396825397e-3, 8.33333333333333333333e-3, 8.33333333333333333333e-2)
_SHIFTS = (1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0)  # the recurrence's x + 1 ... x + 9
_PICOT = (0.00326538085938, 0.0242919921875, 0.053466796875, 0.133377909660, 0.333332300186)
# lgamma (lgamma_common_utils.h): polynomial coefficients, highest power first
_P007 = (0.00358751555905, -0.00547128543258, -0.0446271263063, 0.167317703366,
         -0.0421359799802, -0.655867278576, 0.577215373516)
_P0715 = (0.0458826646209, 0.103739671409, 0.122803635895, 0.127524212003, 0.143216684461,
          0.169343575835, 0.207407936454, 0.27058750391, 0.400685429573, 0.82246696949,
          0.577215671539)
_P153 = (4.95984932058e-05, -0.000220894842641, 0.000541314249858, -0.00120451697148,
         0.00288425176404, -0.00738275796175, 0.0205813199282, -0.067352488637,
         0.322467029095, 0.422784328461)
_P358_NUM = (-748.890319824, -12349.7421875, -41061.375, -48310.6640625)
_P358_DEN = (-259.250976562, -10777.1796875, -92685.046875)
_P58 = (0.000777830660809, -0.00277765537612)
_NEG_ODD = (0.00002427957952022552490234375, -0.001388786011375486850738525390625,
            0.0416667275130748748779296875, -0.4999999701976776123046875)
_NEG_EVEN = (-0.000195746586541645228862762451171875, 0.0083327032625675201416015625,
             -0.16666662693023681640625)
_PI_F = 3.1415927410125732421875  # fPi
_LN_PI = 1.1447298526763916015625
_TINY = 9.99999968266e-20  # below it -lgamma(x) is -ln|x|


# ---- one instruction, then a barrier -----------------------------------------------------------

@jit
def v1(op: ConstExpr, dst, src):
    """dst = op(src)."""
    op(dst, src, _P, 1, UnaryRepeatParams(), False)
    pipe_barrier(PipeID.PIPE_V)


@jit
def vs(op: ConstExpr, dst, src, scalar: ConstExpr):
    """dst = op(src, scalar)."""
    op(dst, src, scalar, _P, 1, UnaryRepeatParams(), False)
    pipe_barrier(PipeID.PIPE_V)


@jit
def vv(op: ConstExpr, dst, src0, src1):
    """dst = op(src0, src1)."""
    op(dst, src0, src1, _P, 1, BinaryRepeatParams(), False)
    pipe_barrier(PipeID.PIPE_V)


@jit
def fill(dst, value: ConstExpr):
    """dst = value."""
    duplicate(dst, value, _P, 1, 1, 8, False)
    pipe_barrier(PipeID.PIPE_V)


# ---- masks and selects -------------------------------------------------------------------------

@jit
def compare_to(mask, src, scalar_t, scalar: ConstExpr, mode: ConstExpr, n):
    """mask = src <mode> scalar, through scalar_t; the compare ignores the mask register and
    runs ceil(n * 4 / 256) iterations."""
    fill(scalar_t, scalar)
    compare(mask, src, scalar_t, mode, _P, (n * 4 + 255) // 256, BinaryRepeatParams())
    pipe_barrier(PipeID.PIPE_V)


@jit
def mask_back(n, late: ConstExpr[bool]):
    """The barrier after a bit operation and the mask back to n elements (in the library's
    order: the barrier first unless `late`)."""
    if late:
        set_vector_mask(0, n, dtype=KT.float32)
        pipe_barrier(PipeID.PIPE_V)
    else:
        pipe_barrier(PipeID.PIPE_V)
        set_vector_mask(0, n, dtype=KT.float32)


@jit
def bits_and(dst, src0, src1, n, late: ConstExpr[bool] = False):
    """dst = src0 & src1 over n bits: uint16 words under a mask of ceil(n / 16)."""
    set_vector_mask(0, (n + 15) // 16, dtype=KT.float32)
    bitwise_and(dst.reinterpret_cast(KT.uint16), src0.reinterpret_cast(KT.uint16),
                src1.reinterpret_cast(KT.uint16), _P, 1, BinaryRepeatParams(), False)
    mask_back(n, late)


@jit
def bits_not(dst, src, n, late: ConstExpr[bool] = False):
    """dst = ~src over n bits, as bits_and."""
    set_vector_mask(0, (n + 15) // 16, dtype=KT.float32)
    bitwise_not(dst.reinterpret_cast(KT.uint16), src.reinterpret_cast(KT.uint16), _P, 1,
                UnaryRepeatParams(), False)
    mask_back(n, late)


@jit
def neither(dst, x, y, a, b, n):
    """dst = ~a & ~b over n bits, ~a into x and ~b into y first."""
    set_vector_mask(0, (n + 15) // 16, dtype=KT.float32)
    unary = UnaryRepeatParams()
    bitwise_not(x.reinterpret_cast(KT.uint16), a.reinterpret_cast(KT.uint16), _P, 1, unary, False)
    bitwise_not(y.reinterpret_cast(KT.uint16), b.reinterpret_cast(KT.uint16), _P, 1, unary, False)
    pipe_barrier(PipeID.PIPE_V)
    vv(bitwise_and, dst.reinterpret_cast(KT.uint16), x.reinterpret_cast(KT.uint16),
       y.reinterpret_cast(KT.uint16))
    set_vector_mask(0, n, dtype=KT.float32)


@jit
def select_add(dst, src, mask, tmp, zero_t):
    """dst += src where the mask bit is 1 (else 0: the scalar CMPMASK holds from zero_t)."""
    set_cmp_mask(zero_t)
    pipe_barrier(PipeID.PIPE_V)
    select(tmp, mask, src, 1, BinaryRepeatParams())
    pipe_barrier(PipeID.PIPE_V)
    vv(add, dst, tmp, dst)


@jit
def horner(acc, x, coeffs: ConstExpr):
    """acc = x * P(x), P's coefficients highest power first (LGammaCalcMulAdd)."""
    vs(muls, acc, x, coeffs[0])
    vs(adds, acc, acc, coeffs[1])
    for i in static_range(2, len(coeffs)):
        vv(mul, acc, acc, x)
        vs(adds, acc, acc, coeffs[i])
    vv(mul, acc, acc, x)


# ---- digamma -----------------------------------------------------------------------------------

class DigammaAreas:
    """DigammaParams: areas of `split` floats in the temp (result, tmpCal1..5, tmpScalar), then
    three masks of `split` bytes. A float source has no tmpCal5, and with is_reuse_source its
    tmpCal4 is the source tensor's first `split` floats."""

    def __init__(self, tmp, split, from_half, reuse_src):
        if from_half:
            names = ("result", "c1", "c2", "c3", "c4", "c5", "scalar")
        elif reuse_src is not None:
            names = ("result", "c1", "c2", "c3", "scalar")
            self.c4 = reuse_src
        else:
            names = ("result", "c1", "c2", "c3", "c4", "scalar")
        for i, name in enumerate(names):
            setattr(self, name, tmp[i * split:])
        self.mask = tmp[len(names) * split:].reinterpret_cast(KT.uint8)
        self.mask1 = self.mask[split:]
        self.mask2 = self.mask[2 * split:]


@jit
def dg_select(dst, src, mask, tmp, a: ConstExpr):
    """DigammaSelect: dst += src where the mask bit is 1, tmpScalar zeroed first."""
    fill(a.scalar, 0.0)
    select_add(dst, src, mask, tmp, a.scalar)


@jit
def dg_neg_int_mask(src, a: ConstExpr, n):
    """mask1 = src is an integer in (-2^23, 0) (DigammaGenNegIntMask)."""
    compare_to(a.mask1, src, a.scalar, 0.0, CMPMODE.LT, n)
    compare_to(a.mask2, src, a.scalar, _MIN_NEG, CMPMODE.GT, n)
    bits_and(a.mask1, a.mask1, a.mask2, n)
    to_integral(a.c1, src, RoundMode.CAST_ROUND)
    compare(a.mask2, src, a.c1, CMPMODE.EQ, _P, (n * 4 + 255) // 256, BinaryRepeatParams())
    pipe_barrier(PipeID.PIPE_V)
    bits_and(a.mask1, a.mask1, a.mask2, n)


@jit
def dg_nan_mask(mask, src, a: ConstExpr, n):
    """mask = neither src < 0 nor src >= 0: src is NaN (DigammaGenNanMask)."""
    compare_to(a.mask1, src, a.scalar, 0.0, CMPMODE.LT, n)
    compare_to(a.mask2, src, a.scalar, 0.0, CMPMODE.GE, n)
    neither(mask, a.mask1, a.mask2, a.mask1, a.mask2, n)


@jit
def dg_positive(dst, src, a: ConstExpr):
    """dst = digamma(src), src >= 0: the asymptotic series at w = src + 10 (ln w - 1/2w - seven
    Bernoulli terms in 1/w^2), less 1/src + ... + 1/(src + 9) (DigammaPositive)."""
    c1, c2, ts = a.c1, a.c2, a.scalar
    vs(adds, c1, src, 10.0)
    v1(ln, dst, c1)
    fill(ts, 1.0)
    vv(div, c1, ts, c1)
    vs(muls, c2, c1, 0.5)
    vv(sub, dst, dst, c2)
    mul(c1, c1, c1, _P, 1, BinaryRepeatParams(), False)
    fill(c2, _POS_SERIES[5])
    for i in static_range(6):
        duplicate(ts, _POS_SERIES[i], _P, 1, 1, 8, False)
        vv(mul, c2, c1, c2)
        vv(sub, c2, ts, c2)
    vv(mul, c2, c1, c2)
    vv(sub, dst, dst, c2)
    fill(ts, 1.0)
    div(c1, ts, src, _P, 1, BinaryRepeatParams(), False)
    for i in static_range(9):
        vs(adds, c2, src, _SHIFTS[i])
        vv(div, c2, ts, c2)
        vv(add, c1, c1, c2)
    vv(sub, dst, dst, c1)


@jit
def dg_picot(dst, src, a: ConstExpr, n):
    """dst = -pi cot(pi src) (DigammaNegPicotPix): k = round(2 src), r = pi (src - k/2), t = r +
    r^3 P(r^2) ~ tan r; pi t for odd k, -pi / t for even k."""
    c1, c2, c3, ts = a.c1, a.c2, a.c3, a.scalar
    vv(add, c1, src, src)
    to_integral(c2, c1, RoundMode.CAST_ROUND)
    vv(sub, c1, c1, c2)
    vs(muls, c1, c1, 1.5707963267948966)
    ints = c2.reinterpret_cast(KT.int32)
    cast(ints, c2, RoundMode.CAST_ROUND, _P, 1, UnaryRepeatParams(), False)
    pipe_barrier(PipeID.PIPE_V)
    fill(c3.reinterpret_cast(KT.int32), 1)
    set_vector_mask(0, n * 2, dtype=KT.float32)
    vv(bitwise_and, c2.reinterpret_cast(KT.uint16), c2.reinterpret_cast(KT.uint16),
       c3.reinterpret_cast(KT.uint16))
    set_vector_mask(0, n, dtype=KT.float32)
    cast(c2, ints, RoundMode.CAST_NONE, _P, 1, UnaryRepeatParams(), False)
    compare_to(a.mask1, c2, ts, 0.5, CMPMODE.LT, n)
    compare_to(a.mask2, c2, ts, 0.5, CMPMODE.GE, n)
    vv(mul, c2, c1, c1)
    fill(dst, 0.0093383789065)
    for i in static_range(5):
        vv(mul, dst, dst, c2)
        vs(adds, dst, dst, _PICOT[i])
    vv(mul, dst, dst, c2)
    vv(mul, dst, dst, c1)
    vv(add, c1, dst, c1)
    fill(dst, 0.0)
    dg_select(dst, c1, a.mask2, c3, a)
    fill(ts, -1.0)
    vv(div, c1, ts, c1)
    dg_select(dst, c1, a.mask1, c3, a)
    vs(muls, dst, dst, _PI)


@jit
def dg_negative(dst, src, a: ConstExpr, n):
    """dst = digamma(1 - src) - pi cot(pi src), src < 0 (DigammaNegative)."""
    vs(muls, a.c3, src, -1.0)
    vs(adds, a.c3, a.c3, 1.0)
    dg_positive(dst, a.c3, a)
    dg_picot(a.c4, src, a, n)
    vv(add, dst, dst, a.c4)


@jit
def digamma_chunk(offset, room, dst, src, a: ConstExpr):
    """One chunk of a float source (DigammaComputeImpl): each case computed on every element
    and selected into dst by its mask (NaN at or below -2^23 and at negative integers, NaN
    kept, x >= 0, x < 0)."""
    d = dst[offset:]
    s = src[offset:]
    duplicate(d, 0.0, _P, 1, 1, 8, False)
    duplicate(a.result, _NAN, _P, 1, 1, 8, False)
    compare_to(a.mask, s, a.scalar, _MIN_NEG, CMPMODE.LE, room)
    dg_select(d, a.result, a.mask, a.c3, a)
    dg_neg_int_mask(s, a, room)
    dg_select(d, a.result, a.mask1, a.c3, a)
    dg_nan_mask(a.mask, s, a, room)
    dg_select(d, s, a.mask, a.c3, a)
    compare_to(a.mask, s, a.scalar, 0.0, CMPMODE.GE, room)
    dg_positive(a.result, s, a)
    dg_select(d, a.result, a.mask, a.c3, a)
    compare_to(a.mask, s, a.scalar, 0.0, CMPMODE.LT, room)
    dg_negative(a.result, s, a, room)
    dg_select(d, a.result, a.mask, a.c3, a)


@jit
def dg_positive_half(dst, src, a: ConstExpr):
    """dst = digamma(src) for a half source, src >= 0: ln w - 1/2w - 1/12w^2 - 1/120w^4 -
    1/252w^6 at w = src + 3 (the library's signs), less 1/src + 1/(src + 1) + 1/(src + 2)
    (DigammaPositiveHalf)."""
    c1, c2, ts = a.c1, a.c2, a.scalar
    vs(adds, c1, src, 3.0)
    v1(ln, dst, c1)
    fill(ts, 1.0)
    vv(div, c1, ts, c1)
    vs(muls, ts, c1, 0.5)
    vv(sub, dst, dst, ts)
    vv(mul, c1, c1, c1)
    vs(muls, ts, c1, 0.0833333333333333)
    vv(sub, dst, dst, ts)
    vv(mul, c2, c1, c1)
    vs(muls, ts, c2, 0.0083333333333333)
    vv(sub, dst, dst, ts)
    vv(mul, c2, c2, c1)
    vs(muls, ts, c2, 0.003968253968254)
    vv(sub, dst, dst, ts)
    fill(ts, 1.0)
    div(c1, ts, src, _P, 1, BinaryRepeatParams(), False)
    for i in static_range(2):
        vs(adds, c2, src, _SHIFTS[i])
        vv(div, c2, ts, c2)
        vv(add, c1, c1, c2)
    vv(sub, dst, dst, c1)


@jit
def dg_negative_half(dst, a: ConstExpr):
    """dst = digamma(1 - x) - pi / tan(pi frac(x)) of x in tmpCal5, which becomes 1 - x;
    digamma(1 - x) is kept in tmpCal2 (DigammaNegativeHalf)."""
    fill(a.scalar, 1.0)
    vv(sub, a.c5, a.scalar, a.c5)
    dg_positive_half(dst, a.c5, a)
    vs(adds, a.c2, dst, 0.0)
    vv(sub, dst, dst, a.c3)


@jit
def dg_negative_range(dst, a: ConstExpr, n):
    """dst = digamma(1 - x) - pi cos(pi frac(x)) / sin(-pi x) for x in tmpCal5 (which becomes
    -pi x), -0.0001 <= x < 0: CosCompute and SinCompute with the source reused
    (DigammaNegativeRange)."""
    x, ts = a.c5, a.scalar
    to_integral(ts, x, RoundMode.CAST_FLOOR)
    vv(sub, ts, x, ts)
    vs(muls, ts, ts, _PI)
    sine_formula(a.c3, ts, a.result, a.result[n:], ts, True)
    vs(muls, x, x, -_PI)
    sine_formula(ts, x, a.result, a.result[n:], x, False)
    vs(muls, a.c3, a.c3, _PI)
    vv(div, a.c3, a.c3, ts)
    vv(sub, dst, a.c2, a.c3)


@jit
def digamma_half_chunk(offset, room, dst, src, a: ConstExpr):
    """One chunk of a half source in float (DigammaComputeImpl for half): pi / tan(pi frac(x))
    first (TanCompute over the result area), then the cases selected into tmpCal4 as for float
    with x >= 0, x < -0.0001 and -0.0001 <= x < 0, the last from the source cast again."""
    s = src[offset:]
    widen(a.c5, s)
    to_integral(a.c4, a.c5, RoundMode.CAST_FLOOR)
    vv(sub, a.c4, a.c5, a.c4)
    vs(muls, a.c4, a.c4, _PI)
    x = a.result[3 * room:]
    vs(adds, x, a.c4, 0.0)
    tan_formula(a.scalar, x, a.result, a.result[room:], a.result[2 * room:])
    fill(a.c1, _PI)
    vv(div, a.c3, a.c1, a.scalar)
    duplicate(a.c4, 0.0, _P, 1, 1, 8, False)
    duplicate(a.result, _NAN, _P, 1, 1, 8, False)
    compare_to(a.mask, a.c5, a.scalar, _MIN_NEG, CMPMODE.LE, room)
    dg_select(a.c4, a.result, a.mask, a.c1, a)
    dg_neg_int_mask(a.c5, a, room)
    dg_select(a.c4, a.result, a.mask1, a.c1, a)
    dg_nan_mask(a.mask, a.c5, a, room)
    dg_select(a.c4, a.c5, a.mask, a.c1, a)
    compare_to(a.mask, a.c5, a.scalar, 0.0, CMPMODE.GE, room)
    dg_positive_half(a.result, a.c5, a)
    dg_select(a.c4, a.result, a.mask, a.c1, a)
    compare_to(a.mask, a.c5, a.scalar, -0.0001, CMPMODE.LT, room)
    dg_negative_half(a.result, a)
    dg_select(a.c4, a.result, a.mask, a.c1, a)
    widen(a.c5, s)
    compare_to(a.mask1, a.c5, a.scalar, 0.0, CMPMODE.LT, room)
    compare_to(a.mask2, a.c5, a.scalar, -0.0001, CMPMODE.GE, room)
    bits_and(a.mask, a.mask1, a.mask2, room)
    dg_negative_range(a.result, a, room)
    dg_select(a.c4, a.result, a.mask, a.c1, a)
    narrow(dst[offset:], a.c4)


# ---- lgamma ------------------------------------------------------------------------------------

class LgammaAreas:
    """LGammaFParams: tmp1..tmp6 and tmpScalar, areas of `split` floats, then four masks of
    `split` bytes; with is_reuse_source tmpScalar is the source tensor's first `split` floats
    and the masks follow tmp6."""

    def __init__(self, tmp, split, reuse_src):
        names = ("t1", "t2", "t3", "t4", "t5", "t6")
        if reuse_src is None:
            names += ("scalar",)
        else:
            self.scalar = reuse_src
        for i, name in enumerate(names):
            setattr(self, name, tmp[i * split:])
        self.mask = tmp[len(names) * split:].reinterpret_cast(KT.uint8)
        self.m1, self.m2, self.m3 = (self.mask[k * split:] for k in (1, 2, 3))


@jit
def lg_select(dst, src, mask, a: ConstExpr):
    """LGammaSelect: dst += src where the mask bit is 1 (tmp1 as scratch, tmpScalar zero)."""
    select_add(dst, src, mask, a.t1, a.scalar)


@jit
def lg_range(x, a: ConstExpr, lo: ConstExpr, hi: ConstExpr, n):
    """mask = lo <= x < hi (LGammaGenRangeMask)."""
    compare_to(a.mask, x, a.t1, hi, CMPMODE.LT, n)
    compare_to(a.m1, x, a.t1, lo, CMPMODE.GE, n)
    bits_and(a.mask, a.m1, a.mask, n, True)


@jit
def lg_positive(a: ConstExpr, n):
    """tmp5 = lgamma(x) of x = tmp6 >= 0 (LGammaPositive): by range, -ln(x + x^2 P(x)) below
    0.7, polynomials in 1 - x, x - 2 and x - 3 (a rational one) up to 5.8, Stirling's series
    with ln(x) / 2 from 5.8, x itself at +inf."""
    x = a.t6
    fill(a.t5, 0.0)
    compare_to(a.mask, x, a.t1, 0.7, CMPMODE.LT, n)
    horner(a.t1, x, _P007)
    vv(mul, a.t1, a.t1, x)
    vv(add, a.t1, a.t1, x)
    v1(ln, a.t1, a.t1)
    vs(muls, a.t1, a.t1, -1.0)
    lg_select(a.t5, a.t1, a.mask, a)
    lg_range(x, a, 0.7, 1.5, n)
    vs(muls, a.t1, x, -1.0)
    vs(adds, a.t1, a.t1, 1.0)
    horner(a.t2, a.t1, _P0715)
    lg_select(a.t5, a.t2, a.mask, a)
    lg_range(x, a, 1.5, 3.0, n)
    vs(adds, a.t1, x, -2.0)
    horner(a.t2, a.t1, _P153)
    lg_select(a.t5, a.t2, a.mask, a)
    lg_range(x, a, 3.0, 5.8, n)
    vs(adds, a.t1, x, -3.0)
    horner(a.t2, a.t1, _P358_NUM)
    vs(adds, a.t2, a.t2, -143033.40625)
    horner(a.t3, a.t1, _P358_DEN)
    vs(adds, a.t3, a.t3, -206353.578125)
    vv(div, a.t3, a.t2, a.t3)
    vv(add, a.t3, a.t3, a.t1)
    lg_select(a.t5, a.t3, a.mask, a)
    lg_range(x, a, 5.8, _INF, n)
    v1(ln, a.t1, x)
    vs(muls, a.t1, a.t1, 0.5)
    vs(adds, a.t2, x, -0.5)
    vv(mul, a.t2, a.t2, a.t1)
    v1(reciprocal, a.t3, x)
    vv(mul, a.t4, a.t3, a.t3)
    horner(a.t1, a.t4, _P58)
    vs(adds, a.t1, a.t1, 0.0833332762122)
    vv(mul, a.t1, a.t1, a.t3)
    vs(adds, a.t1, a.t1, 0.91893851757)
    vv(add, a.t1, a.t1, a.t2)
    vv(add, a.t1, a.t1, a.t2)
    vv(sub, a.t1, a.t1, x)
    lg_select(a.t5, a.t1, a.mask, a)
    compare_to(a.mask, x, a.t1, _INF, CMPMODE.GE, n)
    lg_select(a.t5, x, a.mask, a)


@jit
def lg_sin_pi(a: ConstExpr, n):
    """tmp2 = +-sin(pi y) of y = tmp6 (LGammaCalNegTmp1, 2): k = floor(2y + 1/2), r = pi (y -
    k/2), an odd polynomial of r for even k, 1 + r^2 Q(r^2) for odd k (mask: odd, tmpMask1:
    even)."""
    y = a.t6
    vv(add, a.t2, y, y)
    vs(adds, a.t2, a.t2, 0.5)
    to_integral(a.t2, a.t2, RoundMode.CAST_FLOOR)
    vs(muls, a.t3, a.t2, 0.5)
    to_integral(a.t3, a.t3, RoundMode.CAST_FLOOR)
    vs(muls, a.t3, a.t3, 2.0)
    vv(sub, a.t3, a.t2, a.t3)
    compare_to(a.mask, a.t3, a.t1, 0.5, CMPMODE.GE, n)
    bits_not(a.m1, a.mask, n, True)
    vs(muls, a.t2, a.t2, -0.5)
    vv(add, a.t2, a.t2, y)
    vs(muls, a.t2, a.t2, _PI_F)
    vv(mul, a.t3, a.t2, a.t2)
    horner(a.t1, a.t3, _NEG_EVEN)
    vv(mul, a.t1, a.t1, a.t2)
    vv(add, a.t1, a.t1, a.t2)
    fill(a.t2, 0.0)
    lg_select(a.t2, a.t1, a.m1, a)
    horner(a.t1, a.t3, _NEG_ODD)
    vs(adds, a.t1, a.t1, 1.0)
    lg_select(a.t2, a.t1, a.mask, a)


@jit
def lg_negative(a: ConstExpr, n):
    """tmp4 = lgamma(-y) of y = tmp6 > 0 (LGammaNegative): -ln(y) below 1e-19, else ln(pi) -
    ln|y sin(pi y)| - lgamma(y), and +inf at integers and where y sin(pi y) is inf."""
    y = a.t6
    rep = (n * 4 + 255) // 256
    fill(a.t4, 0.0)
    compare_to(a.mask, y, a.t1, _TINY, CMPMODE.LT, n)
    v1(ln, a.t1, y)
    vs(muls, a.t1, a.t1, -1.0)
    lg_select(a.t4, a.t1, a.mask, a)
    lg_sin_pi(a, n)
    v1(abs, a.t1, a.t2)
    vv(mul, a.t3, a.t1, y)
    v1(ln, a.t1, a.t3)
    vs(muls, a.t1, a.t1, -1.0)
    vs(adds, a.t1, a.t1, _LN_PI)
    vs(muls, a.t2, a.t5, -1.0)
    vv(add, a.t2, a.t1, a.t2)
    to_integral(a.t1, y, RoundMode.CAST_FLOOR)
    compare(a.mask, a.t1, y, CMPMODE.NE, _P, rep, BinaryRepeatParams())
    pipe_barrier(PipeID.PIPE_V)
    fill(a.t1, _INF)
    compare(a.m1, a.t3, a.t1, CMPMODE.LT, _P, rep, BinaryRepeatParams())
    pipe_barrier(PipeID.PIPE_V)
    bits_and(a.mask, a.m1, a.mask, n)
    compare_to(a.m1, y, a.t1, _TINY, CMPMODE.GE, n)
    bits_and(a.mask, a.m1, a.mask, n)
    lg_select(a.t4, a.t2, a.mask, a)
    bits_not(a.m1, a.mask, n)
    compare_to(a.mask, y, a.t1, _TINY, CMPMODE.GE, n)
    bits_and(a.m1, a.m1, a.mask, n)
    fill(a.t2, _INF)
    lg_select(a.t4, a.t2, a.m1, a)


@jit
def lgamma_chunk(offset, room, dst, src, a: ConstExpr):
    """One chunk of a float source (LgammaComputeImpl): the x >= 0 and x < 0 masks first, both
    results from |x| (tmp6) selected into dst, then NaN kept."""
    d = dst[offset:]
    s = src[offset:]
    compare_to(a.m2, s, a.t1, 0.0, CMPMODE.GE, room)
    compare_to(a.m3, s, a.t1, 0.0, CMPMODE.LT, room)
    v1(abs, a.t6, s)
    fill(a.scalar, 0.0)
    lg_positive(a, room)
    fill(d, 0.0)
    lg_select(d, a.t5, a.m2, a)
    lg_negative(a, room)
    lg_select(d, a.t4, a.m3, a)
    neither(a.mask, a.mask, a.m1, a.m2, a.m3, room)
    lg_select(d, a.t6, a.mask, a)


class LgammaHalfAreas:
    """LgammaComputeImpl for half: areas of `split` floats (result, x, the x >= 0 and x < 0
    results, a scratch, the zero scalar), four masks of `split` bytes, then six areas for the
    sub-steps (the stack)."""

    def __init__(self, tmp, split):
        for i, name in enumerate(("res", "x", "pos", "neg", "t1", "scalar")):
            setattr(self, name, tmp[i * split:])
        masks = tmp[6 * split:].reinterpret_cast(KT.uint8)
        self.mpos, self.mneg, self.m1, self.m2 = (masks[k * split:] for k in range(4))
        self.stack = tmp[7 * split:]


@jit
def lg_positive_half(dst, x, stack, n):
    """dst = lgamma(x + 4) - ln(x (x + 1) (x + 2) (x + 3)), lgamma(w) ~ ln(2 pi / w) / 2 +
    w (ln(w + 1 / (12 w - 0.1 / w)) - 1) (Lgamma1Compute, LgammaComputePosHalf)."""
    t1 = stack
    t2 = stack[n:]
    t3 = stack[2 * n:]
    t4 = stack[3 * n:]
    vs(adds, t1, x, 4.0)
    fill(dst, 1.0)
    vv(div, dst, dst, t1)
    vs(muls, t2, dst, _PI)
    vs(muls, t2, t2, 2.0)
    v1(ln, t2, t2)
    vs(muls, t2, t2, 0.5)
    vs(muls, t3, dst, -0.1)
    vs(muls, t4, t1, 12.0)
    vv(add, t4, t4, t3)
    fill(dst, 1.0)
    vv(div, t4, dst, t4)
    vv(add, t4, t4, t1)
    v1(ln, t4, t4)
    vs(adds, t4, t4, -1.0)
    vv(mul, t4, t4, t1)
    vv(add, dst, t4, t2)
    pipe_barrier(PipeID.PIPE_V)
    v1(ln, t3, x)
    for i in static_range(3):
        vs(adds, t2, x, _SHIFTS[i])
        v1(ln, t2, t2)
        vv(add, t3, t3, t2)
    vv(sub, dst, dst, t3)


@jit
def lg_negative_half(dst, x, stack, n):
    """dst = ln(pi / |sin(pi frac(x))|) - lgamma(1 - x) (LgammaComputeNegHalf); SinCompute
    over the stack from its third area."""
    t1 = stack
    t2 = stack[n:]
    t7 = stack[2 * n:]  # tmp7, which starts where tmp3 does
    vs(muls, t1, x, -1.0)
    vs(adds, t1, t1, 1.0)
    lg_positive_half(dst, t1, t7, n)
    pipe_barrier(PipeID.PIPE_V)
    vs(muls, dst, dst, -1.0)
    to_integral(t1, x, RoundMode.CAST_FLOOR)
    vv(sub, t1, x, t1)
    vs(muls, t1, t1, _PI)
    sine_formula(t2, t1, t7, t7[n:], t7[2 * n:], False)
    pipe_barrier(PipeID.PIPE_V)
    v1(abs, t2, t2)
    fill(t7, _PI)  # tmp3
    vv(div, t2, t7, t2)
    v1(ln, t2, t2)
    vv(add, dst, dst, t2)


@jit
def lgamma_half_chunk(offset, room, dst, src, a: ConstExpr):
    """One chunk of a half source in float (LgammaComputeImpl for half). Its splitSize is the
    whole chunk in the tail too: the bit operations put the mask back to it, so the NaN step,
    the inf step and the cast to dst run over all `room` (= split) elements."""
    n = room
    fill(a.res, 0.0)
    widen(a.x, src[offset:])
    fill(a.scalar, 0.0)
    lg_positive_half(a.pos, a.x, a.stack, n)
    pipe_barrier(PipeID.PIPE_V)
    compare_to(a.mpos, a.x, a.t1, 0.0, CMPMODE.GE, n)
    pipe_barrier(PipeID.PIPE_V)
    select_add(a.res, a.pos, a.mpos, a.t1, a.scalar)
    pipe_barrier(PipeID.PIPE_V)
    lg_negative_half(a.neg, a.x, a.stack, n)
    pipe_barrier(PipeID.PIPE_V)
    compare_to(a.mneg, a.x, a.t1, 0.0, CMPMODE.LT, n)
    pipe_barrier(PipeID.PIPE_V)
    select_add(a.res, a.neg, a.mneg, a.t1, a.scalar)
    pipe_barrier(PipeID.PIPE_V)
    neither(a.m1, a.m1, a.m2, a.mpos, a.mneg, n)
    select_add(a.res, a.x, a.m1, a.t1, a.scalar)
    pipe_barrier(PipeID.PIPE_V)
    v1(abs, a.x, a.x)
    compare_to(a.m1, a.x, a.t1, 65504.0, CMPMODE.GE, n)
    pipe_barrier(PipeID.PIPE_V)
    bits_not(a.m2, a.m1, n)
    fill(a.scalar, 655040.0)
    set_cmp_mask(a.scalar)
    pipe_barrier(PipeID.PIPE_V)
    select(a.res, a.m2, a.res, 1, BinaryRepeatParams())
    pipe_barrier(PipeID.PIPE_V)
    pipe_barrier(PipeID.PIPE_V)
    cast(dst[offset:], a.res, RoundMode.CAST_NONE, _P, 1, UnaryRepeatParams(1, 1, 4, 8), False)
