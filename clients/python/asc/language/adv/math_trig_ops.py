"""The instruction sequences behind asc.adv's trigonometric ops (math_trig.py has the facts and
their source): library sub-kernels, traced where the user calls the op, its ops at the user's
line. Each `*_chunk` runs one chunk under the loaded counter mask; sin and cos share the sign
and polynomial, asin and acos the whole asin sequence. A PIPE_V barrier follows an instruction
exactly where the library has one (none after some, two in a row in asin)."""
import struct

from asc.language.adv.float_casts import narrow, to_integral, widen
from asc.language.basic.sync import pipe_barrier
from asc.language.basic.vec import (abs, add, adds, cast, div, maxs, min, mins, mul, muls, sqrt,
                                    sub)
from asc.language.core.constexpr import ConstExpr
from asc.language.core.dtype import KnownTypes as KT
from asc.language.core.enums import PipeID, RoundMode
from asc.language.core.types import BinaryRepeatParams, UnaryRepeatParams
from asc.language.core.utils import static_range
from asc.runtime.jit import jit


def _f32(x):
    """x rounded to float, as the library's `constexpr float` holds it (a half operand is then
    converted from that float, as its static_cast<half> does)."""
    return struct.unpack("f", struct.pack("f", x))[0]


_PLACEHOLDER = 0  # counter mode, mask loaded: one instruction covers the mask's count
_INV_PI = _f32(0.3183098733425140380859375)
_HALF_PI = _f32(1.5707963267948966192313216916398)
_PI_DOWN = _f32(1.57079637050628662109375)  # pi/2 rounded to float
_PI_DOWN_REST = _f32(-0.00000004371139000189375)  # pi/2 - _PI_DOWN
# pi in parts (k * part exact for moderate k); the last part differs between cos and tan.
_PI_PARTS = tuple(_f32(c) for c in (3.140625, 0.0009670257568359375,
                                    6.2771141529083251953125e-7,
                                    1.21644916362129151821136474609375e-10))
_COS_PI_LAST = _f32(-1.0290623200529979163359041220560e-13)
_TAN_PI_LAST = _f32(-1.0291767438275201129727065563201904296875e-13)
# sin(x) = x * P(x^2) on [-pi/2, pi/2]: R0 (highest) .. R3, then 1.
_SIN_P = tuple(_f32(c) for c in (2.604926501e-6, -0.0001980894471, 0.008333049340,
                                 -0.1666665792))
# tan(x) = x (R0 x^2 + R1) x^2 + R2) / ((x + pi/2)(x - pi/2)(x^2 + R3)).
_TAN_P = tuple(_f32(c) for c in (0.0698520831551998762793, -6.8711573651634203789,
                                 61.20362572811089435388, -24.8048928861126769186219))
# asin's Taylor coefficients k0 .. k7 of x, x^3, ..., x^15.
_ASIN_K = tuple(_f32(c) for c in (1.0, 0.16666666666666666666666666666667, 0.075,
                                  0.04464285714285714285714285714286,
                                  0.03038194444444444444444444444444,
                                  0.02237215909090909090909090909091,
                                  0.01735276442307692307692307692308, 0.01396484375))
_ASIN_BOUNDARY = _f32(0.70710678118654752440084436210485)  # 2^-0.5: which branch asin takes
# atan's Taylor coefficients (-1)^k / (2k + 1), k = 0 .. 6.
_ATAN_F = tuple(_f32(c) for c in (1, -0.3333333333333333, 0.2, -0.14285714285714285,
                                  0.1111111111111111, -0.09090909090909091, 0.07692307692307693))
_ATAN_CLIP = 10000.0  # tan(pi/2 - 1e-4): beyond it the series' first product overflows
_PI_BY_4 = _f32(0.78539816339744830961566084581988)
_PI_BY_8 = _f32(0.39269908169872415480783042290994)
_TAN_PI_BY_8 = _f32(0.4142135623730950)
# sign(x) = x * big / (|x * big| + tiny), by the source type's range.
_SIGN_FLOAT = (4611686018427387904.0, _f32(2.168404344971009e-19))  # 2^62, 2^-62
_SIGN_HALF = (32768.0, 3.0517578125e-05)  # 2^15, 2^-15


# ---- shared steps ------------------------------------------------------------------------------







@jit
def add_then_mul(acc, z, c: ConstExpr[float]):
    """acc = (acc + c) * z: one Horner step."""
    adds(acc, acc, c, _PLACEHOLDER, 1, UnaryRepeatParams(), False)
    pipe_barrier(PipeID.PIPE_V)
    mul(acc, acc, z, _PLACEHOLDER, 1, BinaryRepeatParams(), False)
    pipe_barrier(PipeID.PIPE_V)


@jit
def less_k_times(x, src, k, kpi, part: ConstExpr[float]):
    """x = src - k * part, the product in kpi."""
    muls(kpi, k, part, _PLACEHOLDER, 1, UnaryRepeatParams(), False)
    pipe_barrier(PipeID.PIPE_V)
    sub(x, src, kpi, _PLACEHOLDER, 1, BinaryRepeatParams(), False)
    pipe_barrier(PipeID.PIPE_V)


@jit
def sign_of(dst, src, den, big: ConstExpr[float], tiny: ConstExpr[float]):
    """dst = src * big / (|src * big| + tiny): +-1, and 0 at 0; den is scratch."""
    unary = UnaryRepeatParams()
    muls(dst, src, big, _PLACEHOLDER, 1, unary, False)
    pipe_barrier(PipeID.PIPE_V)
    abs(den, dst, _PLACEHOLDER, 1, unary, False)
    pipe_barrier(PipeID.PIPE_V)
    adds(den, den, tiny, _PLACEHOLDER, 1, unary, False)
    pipe_barrier(PipeID.PIPE_V)
    div(dst, dst, den, _PLACEHOLDER, 1, BinaryRepeatParams(), False)
    pipe_barrier(PipeID.PIPE_V)


# ---- sin, cos ----------------------------------------------------------------------------------

@jit
def sin_reduce(x, src, k, kpi):
    """k = round(src / pi) (ties away from zero), x = src - k * pi in four parts."""
    muls(k, src, _INV_PI, _PLACEHOLDER, 1, UnaryRepeatParams(), False)
    pipe_barrier(PipeID.PIPE_V)
    to_integral(k, k, RoundMode.CAST_ROUND)
    less_k_times(x, src, k, kpi, _PI_PARTS[0])
    for i in static_range(1, 4):
        less_k_times(x, x, k, kpi, _PI_PARTS[i])


@jit
def cos_reduce(x, src, k, kpi):
    """k = rint(src / pi + 1/2), x = src - k * pi + pi/2 (pi in five parts, pi/2 in two): cos
    of src is sin of x times (-1)^k."""
    unary = UnaryRepeatParams()
    muls(k, src, _INV_PI, _PLACEHOLDER, 1, unary, False)
    pipe_barrier(PipeID.PIPE_V)
    adds(k, k, 0.5, _PLACEHOLDER, 1, unary, False)
    pipe_barrier(PipeID.PIPE_V)
    to_integral(k, k, RoundMode.CAST_RINT)
    less_k_times(x, src, k, kpi, _PI_PARTS[0])
    less_k_times(x, x, k, kpi, _PI_PARTS[1])
    adds(x, x, _PI_DOWN, _PLACEHOLDER, 1, unary, False)
    pipe_barrier(PipeID.PIPE_V)
    less_k_times(x, x, k, kpi, _PI_PARTS[2])
    less_k_times(x, x, k, kpi, _PI_PARTS[3])
    less_k_times(x, x, k, kpi, _COS_PI_LAST)
    adds(x, x, _PI_DOWN_REST, _PLACEHOLDER, 1, unary, False)
    pipe_barrier(PipeID.PIPE_V)


@jit
def sine_of_reduced(dst, x, k, x2):
    """dst = (-1)^k * x * P(x^2), the sign 4 floor(k/2) - 2k + 1 in dst first; k becomes
    the polynomial, x^2 goes to x2."""
    unary = UnaryRepeatParams()
    binary = BinaryRepeatParams()
    mul(x2, x, x, _PLACEHOLDER, 1, binary, False)
    pipe_barrier(PipeID.PIPE_V)
    muls(dst, k, 0.5, _PLACEHOLDER, 1, unary, False)
    pipe_barrier(PipeID.PIPE_V)
    to_integral(dst, dst, RoundMode.CAST_FLOOR)
    muls(dst, dst, 4.0, _PLACEHOLDER, 1, unary, False)
    pipe_barrier(PipeID.PIPE_V)
    muls(k, k, -2.0, _PLACEHOLDER, 1, unary, False)
    pipe_barrier(PipeID.PIPE_V)
    add(dst, dst, k, _PLACEHOLDER, 1, binary, False)
    pipe_barrier(PipeID.PIPE_V)
    adds(dst, dst, 1.0, _PLACEHOLDER, 1, unary, False)
    pipe_barrier(PipeID.PIPE_V)
    muls(k, x2, _SIN_P[0], _PLACEHOLDER, 1, unary, False)
    pipe_barrier(PipeID.PIPE_V)
    for i in static_range(1, 4):
        add_then_mul(k, x2, _SIN_P[i])
    adds(k, k, 1.0, _PLACEHOLDER, 1, unary, False)
    pipe_barrier(PipeID.PIPE_V)
    mul(k, k, x, _PLACEHOLDER, 1, binary, False)
    pipe_barrier(PipeID.PIPE_V)
    mul(dst, k, dst, _PLACEHOLDER, 1, binary, False)
    pipe_barrier(PipeID.PIPE_V)


@jit
def sine_formula(dst, src, k, kpi, x, is_cos: ConstExpr[bool]):
    """dst = sin(src) or cos(src) in float: the reduced argument in x, cos clamped to [-1, 1]."""
    if is_cos:
        cos_reduce(x, src, k, kpi)
    else:
        sin_reduce(x, src, k, kpi)
    sine_of_reduced(dst, x, k, kpi)
    if is_cos:
        unary = UnaryRepeatParams()
        mins(dst, dst, 1.0, _PLACEHOLDER, 1, unary, False)
        pipe_barrier(PipeID.PIPE_V)
        maxs(dst, dst, -1.0, _PLACEHOLDER, 1, unary, False)
        pipe_barrier(PipeID.PIPE_V)


@jit
def sine_chunk(offset, room, dst, src, tmp, split, is_cos: ConstExpr[bool],
               from_half: ConstExpr[bool], reuse: ConstExpr[bool]):
    """One chunk of sin or cos. The temp's areas of `split` floats: k, k * part (then x^2), x;
    a half source's float copy first; with `reuse` a float source holds x itself."""
    if from_half:
        widen(tmp, src[offset:])
        sine_formula(tmp, tmp, tmp[split:], tmp[2 * split:], tmp[3 * split:], is_cos)
        narrow(dst[offset:], tmp)
    elif reuse:
        sine_formula(dst[offset:], src[offset:], tmp, tmp[split:], src[offset:], is_cos)
    else:
        sine_formula(dst[offset:], src[offset:], tmp, tmp[split:], tmp[2 * split:], is_cos)


# ---- tan ---------------------------------------------------------------------------------------

@jit
def less_k_times_all(x, down, up, k, kpi, part: ConstExpr[float]):
    """x, x + pi/2 and x - pi/2 each less k * part (in kpi)."""
    binary = BinaryRepeatParams()
    muls(kpi, k, part, _PLACEHOLDER, 1, UnaryRepeatParams(), False)
    pipe_barrier(PipeID.PIPE_V)
    sub(x, x, kpi, _PLACEHOLDER, 1, binary, False)
    pipe_barrier(PipeID.PIPE_V)
    sub(down, down, kpi, _PLACEHOLDER, 1, binary, False)
    pipe_barrier(PipeID.PIPE_V)
    sub(up, up, kpi, _PLACEHOLDER, 1, binary, False)
    pipe_barrier(PipeID.PIPE_V)


@jit
def tan_formula(dst, x, k, down, up):
    """dst = tan(x) in float, x reduced in place by k = rint(x / pi) to (-pi/2, pi/2); down
    and up become x + pi/2 and x - pi/2; dst serves as k * part first, k as x^2 after."""
    unary = UnaryRepeatParams()
    binary = BinaryRepeatParams()
    muls(k, x, _INV_PI, _PLACEHOLDER, 1, unary, False)
    pipe_barrier(PipeID.PIPE_V)
    to_integral(k, k, RoundMode.CAST_RINT)
    less_k_times(x, x, k, dst, _PI_PARTS[0])
    less_k_times(x, x, k, dst, _PI_PARTS[1])
    adds(down, x, _PI_DOWN, _PLACEHOLDER, 1, unary, False)
    pipe_barrier(PipeID.PIPE_V)
    adds(up, x, -_PI_DOWN, _PLACEHOLDER, 1, unary, False)
    pipe_barrier(PipeID.PIPE_V)
    less_k_times_all(x, down, up, k, dst, _PI_PARTS[2])
    adds(down, down, _PI_DOWN_REST, _PLACEHOLDER, 1, unary, False)
    pipe_barrier(PipeID.PIPE_V)
    adds(up, up, -_PI_DOWN_REST, _PLACEHOLDER, 1, unary, False)
    pipe_barrier(PipeID.PIPE_V)
    less_k_times_all(x, down, up, k, dst, _PI_PARTS[3])
    less_k_times_all(x, down, up, k, dst, _TAN_PI_LAST)
    mul(k, x, x, _PLACEHOLDER, 1, binary, False)
    pipe_barrier(PipeID.PIPE_V)
    muls(dst, k, _TAN_P[0], _PLACEHOLDER, 1, unary, False)
    pipe_barrier(PipeID.PIPE_V)
    add_then_mul(dst, k, _TAN_P[1])
    adds(dst, dst, _TAN_P[2], _PLACEHOLDER, 1, unary, False)
    pipe_barrier(PipeID.PIPE_V)
    mul(dst, dst, x, _PLACEHOLDER, 1, binary, False)
    pipe_barrier(PipeID.PIPE_V)
    adds(k, k, _TAN_P[3], _PLACEHOLDER, 1, unary, False)
    pipe_barrier(PipeID.PIPE_V)
    mul(k, k, down, _PLACEHOLDER, 1, binary, False)
    pipe_barrier(PipeID.PIPE_V)
    mul(k, k, up, _PLACEHOLDER, 1, binary, False)
    pipe_barrier(PipeID.PIPE_V)
    div(dst, dst, k, _PLACEHOLDER, 1, binary, False)
    pipe_barrier(PipeID.PIPE_V)


@jit
def tan_chunk(offset, room, dst, src, tmp, from_half: ConstExpr[bool]):
    """One chunk of tan. The temp's areas of `room` floats (the tail's rounded up to 32): k,
    x + pi/2, x - pi/2, x (a float source copied by adds 0); a half source's float result
    first, its float copy as x."""
    if from_half:
        x = tmp[room:]
        widen(x, src[offset:])
        tan_formula(tmp, x, tmp[2 * room:], tmp[3 * room:], tmp[4 * room:])
        narrow(dst[offset:], tmp)
    else:
        x = tmp[3 * room:]
        adds(x, src[offset:], 0.0, _PLACEHOLDER, 1, UnaryRepeatParams(), False)
        pipe_barrier(PipeID.PIPE_V)
        tan_formula(dst[offset:], x, tmp, tmp[room:], tmp[2 * room:])


# ---- asin, acos --------------------------------------------------------------------------------

@jit
def asin_series(acc, z):
    """acc = k0 + z (k1 + z (... + z k7)) of acc = z."""
    muls(acc, acc, _ASIN_K[7], _PLACEHOLDER, 1, UnaryRepeatParams(), False)
    pipe_barrier(PipeID.PIPE_V)
    for i in static_range(6, 0, -1):
        add_then_mul(acc, z, _ASIN_K[i])
    adds(acc, acc, _ASIN_K[0], _PLACEHOLDER, 1, UnaryRepeatParams(), False)
    pipe_barrier(PipeID.PIPE_V)


@jit
def asin_taylor(dst, x, x2):
    """dst = the series of x (x^2 in x2)."""
    binary = BinaryRepeatParams()
    mul(dst, x, x, _PLACEHOLDER, 1, binary, False)
    mul(x2, x, x, _PLACEHOLDER, 1, binary, False)
    pipe_barrier(PipeID.PIPE_V)
    asin_series(dst, x2)
    mul(dst, dst, x, _PLACEHOLDER, 1, binary, False)
    pipe_barrier(PipeID.PIPE_V)


@jit
def asin_taylor_of_square(dst, z):
    """dst = the series of sqrt(z); z becomes sqrt(z)."""
    unary = UnaryRepeatParams()
    muls(dst, z, 1.0, _PLACEHOLDER, 1, unary, False)
    pipe_barrier(PipeID.PIPE_V)
    asin_series(dst, z)
    sqrt(z, z, _PLACEHOLDER, 1, unary, False)
    pipe_barrier(PipeID.PIPE_V)
    mul(dst, dst, z, _PLACEHOLDER, 1, BinaryRepeatParams(), False)
    pipe_barrier(PipeID.PIPE_V)


@jit
def one_less_square(dst, x):
    """dst = 1 - x^2."""
    unary = UnaryRepeatParams()
    mul(dst, x, x, _PLACEHOLDER, 1, BinaryRepeatParams(), False)
    pipe_barrier(PipeID.PIPE_V)
    muls(dst, dst, -1.0, _PLACEHOLDER, 1, unary, False)
    pipe_barrier(PipeID.PIPE_V)
    adds(dst, dst, 1.0, _PLACEHOLDER, 1, unary, False)
    pipe_barrier(PipeID.PIPE_V)


@jit
def pi_by_2_less(dst):
    """dst = pi/2 - dst."""
    unary = UnaryRepeatParams()
    muls(dst, dst, -1.0, _PLACEHOLDER, 1, unary, False)
    pipe_barrier(PipeID.PIPE_V)
    adds(dst, dst, _HALF_PI, _PLACEHOLDER, 1, unary, False)
    pipe_barrier(PipeID.PIPE_V)


@jit
def near_weight(w, ints, narrow_ints: ConstExpr[bool]):
    """w = 1 where w (|x|) < 2^-0.5 else 0, as -floor(min(w, b) - b) through an integer cast:
    int8 in `ints` for half, int32 in w itself for float."""
    unary = UnaryRepeatParams()
    mins(w, w, _ASIN_BOUNDARY, _PLACEHOLDER, 1, unary, False)
    pipe_barrier(PipeID.PIPE_V)
    adds(w, w, -_ASIN_BOUNDARY, _PLACEHOLDER, 1, unary, False)
    pipe_barrier(PipeID.PIPE_V)
    if narrow_ints:
        small = ints.reinterpret_cast(KT.int8)
        cast(small, w, RoundMode.CAST_FLOOR, _PLACEHOLDER, 1, UnaryRepeatParams(1, 1, 4, 8),
             False)
        pipe_barrier(PipeID.PIPE_V)
        cast(w, small, RoundMode.CAST_NONE, _PLACEHOLDER, 1, UnaryRepeatParams(1, 1, 8, 4),
             False)
        pipe_barrier(PipeID.PIPE_V)
    else:
        wide = w.reinterpret_cast(KT.int32)
        cast(wide, w, RoundMode.CAST_FLOOR, _PLACEHOLDER, 1, unary, False)
        pipe_barrier(PipeID.PIPE_V)
        cast(w, wide, RoundMode.CAST_NONE, _PLACEHOLDER, 1, unary, False)
        pipe_barrier(PipeID.PIPE_V)
        pipe_barrier(PipeID.PIPE_V)
    muls(w, w, -1.0, _PLACEHOLDER, 1, unary, False)
    pipe_barrier(PipeID.PIPE_V)


@jit
def far_weight(w):
    """w = 1 - w: the other branch's weight."""
    unary = UnaryRepeatParams()
    muls(w, w, -1.0, _PLACEHOLDER, 1, unary, False)
    pipe_barrier(PipeID.PIPE_V)
    adds(w, w, 1.0, _PLACEHOLDER, 1, unary, False)
    pipe_barrier(PipeID.PIPE_V)


@jit
def asin_float(dst, src, near, far):
    """dst = asin(src) of a float source: series(|x|) where |x| < 2^-0.5, else pi/2 -
    series(sqrt(1 - x^2)), the sign of x restored; dst must not be src."""
    binary = BinaryRepeatParams()
    one_less_square(far, src)
    sqrt(dst, far, _PLACEHOLDER, 1, UnaryRepeatParams(), False)
    pipe_barrier(PipeID.PIPE_V)
    asin_taylor(far, dst, near)
    pipe_barrier(PipeID.PIPE_V)
    pi_by_2_less(far)
    mul(near, src, src, _PLACEHOLDER, 1, binary, False)
    pipe_barrier(PipeID.PIPE_V)
    asin_taylor_of_square(dst, near)
    pipe_barrier(PipeID.PIPE_V)
    near_weight(near, near, False)
    mul(dst, dst, near, _PLACEHOLDER, 1, binary, False)
    pipe_barrier(PipeID.PIPE_V)
    far_weight(near)
    mul(far, far, near, _PLACEHOLDER, 1, binary, False)
    pipe_barrier(PipeID.PIPE_V)
    add(dst, dst, far, _PLACEHOLDER, 1, binary, False)
    pipe_barrier(PipeID.PIPE_V)
    sign_of(far, src, near, _SIGN_FLOAT[0], _SIGN_FLOAT[1])
    pipe_barrier(PipeID.PIPE_V)
    mul(dst, dst, far, _PLACEHOLDER, 1, binary, False)
    pipe_barrier(PipeID.PIPE_V)


@jit
def asin_half(dst, src, far, wide, near, ax):
    """dst = asin(src) of a half source, and the float result in `far`: the far branch in
    float, the near one (series of |x|), the weights and the sign in half; dst must not be
    src."""
    binary = BinaryRepeatParams()
    widen(wide, src)
    one_less_square(wide, wide)
    asin_taylor_of_square(far, wide)
    pipe_barrier(PipeID.PIPE_V)
    pi_by_2_less(far)
    abs(ax, src, _PLACEHOLDER, 1, UnaryRepeatParams(), False)
    pipe_barrier(PipeID.PIPE_V)
    asin_taylor(dst, ax, near)
    pipe_barrier(PipeID.PIPE_V)
    near_weight(ax, near, True)
    mul(dst, dst, ax, _PLACEHOLDER, 1, binary, False)
    pipe_barrier(PipeID.PIPE_V)
    far_weight(ax)
    widen(wide, ax)
    mul(far, far, wide, _PLACEHOLDER, 1, binary, False)
    pipe_barrier(PipeID.PIPE_V)
    widen(wide, dst)
    add(far, wide, far, _PLACEHOLDER, 1, binary, False)
    pipe_barrier(PipeID.PIPE_V)
    sign_of(near, src, ax, _SIGN_HALF[0], _SIGN_HALF[1])
    pipe_barrier(PipeID.PIPE_V)
    widen(wide, near)
    mul(far, far, wide, _PLACEHOLDER, 1, binary, False)
    pipe_barrier(PipeID.PIPE_V)
    narrow(dst, far)


@jit
def asin_chunk(offset, room, dst, src, tmp, split, is_acos: ConstExpr[bool],
               from_half: ConstExpr[bool]):
    """One chunk of asin or acos (acos = pi/2 - asin, from asin's float result). The temp in
    areas of `split` elements of the source type (four of them; float uses two); a half source
    uses two float areas, then two half ones."""
    unary = UnaryRepeatParams()
    if from_half:
        floats = tmp.reinterpret_cast(KT.float32)
        asin_half(dst[offset:], src[offset:], floats, floats[split:], tmp[4 * split:],
                  tmp[5 * split:])
        if is_acos:
            pipe_barrier(PipeID.PIPE_V)
            adds(floats, floats, -_HALF_PI, _PLACEHOLDER, 1, unary, False)
            pipe_barrier(PipeID.PIPE_V)
            muls(floats, floats, -1.0, _PLACEHOLDER, 1, unary, False)
            pipe_barrier(PipeID.PIPE_V)
            cast(dst[offset:], floats, RoundMode.CAST_NONE, _PLACEHOLDER, 1,
                 UnaryRepeatParams(1, 1, 4, 8), False)
    else:
        asin_float(dst[offset:], src[offset:], tmp, tmp[split:])
        if is_acos:
            pipe_barrier(PipeID.PIPE_V)
            adds(dst[offset:], dst[offset:], -_HALF_PI, _PLACEHOLDER, 1, unary, False)
            pipe_barrier(PipeID.PIPE_V)
            muls(dst[offset:], dst[offset:], -1.0, _PLACEHOLDER, 1, unary, False)


# ---- atan --------------------------------------------------------------------------------------

@jit
def atan_taylor(dst, x, x2, terms: ConstExpr[int]):
    """dst = x (1 + x^2 (-1/3 + x^2 (1/5 ...))) up to x^(2 terms + 1), x^2 in x2; no barrier
    after the last multiply."""
    binary = BinaryRepeatParams()
    mul(x2, x, x, _PLACEHOLDER, 1, binary, False)
    mul(dst, x, x, _PLACEHOLDER, 1, binary, False)
    pipe_barrier(PipeID.PIPE_V)
    muls(dst, dst, _ATAN_F[terms], _PLACEHOLDER, 1, UnaryRepeatParams(), False)
    pipe_barrier(PipeID.PIPE_V)
    for i in static_range(terms - 1, 0, -1):
        add_then_mul(dst, x2, _ATAN_F[i])
    adds(dst, dst, _ATAN_F[0], _PLACEHOLDER, 1, UnaryRepeatParams(), False)
    pipe_barrier(PipeID.PIPE_V)
    mul(dst, dst, x, _PLACEHOLDER, 1, binary, False)


@jit
def atan_shift(dst, x, diff, t: ConstExpr[float]):
    """dst = |(x - t) / (1 + x t)|, x - t in diff: atan(x) = atan(t) + atan(dst)."""
    unary = UnaryRepeatParams()
    muls(dst, x, t, _PLACEHOLDER, 1, unary, False)
    pipe_barrier(PipeID.PIPE_V)
    adds(dst, dst, 1.0, _PLACEHOLDER, 1, unary, False)
    adds(diff, x, -t, _PLACEHOLDER, 1, unary, False)
    pipe_barrier(PipeID.PIPE_V)
    div(dst, diff, dst, _PLACEHOLDER, 1, BinaryRepeatParams(), False)
    pipe_barrier(PipeID.PIPE_V)
    abs(dst, dst, _PLACEHOLDER, 1, unary, False)
    pipe_barrier(PipeID.PIPE_V)


@jit
def atan_formula(dst, src, tmp, split):
    """dst = atan(src) in float: the least of four series over |x| clipped to 1e4 (direct; from
    tan(pi/8); from 1 by (x - 1) / (x + 1); from 1 then tan(pi/8)), the sign of x restored. The
    temp's areas of `split` floats: scratch, the clipped x, |x|, scratch, the square."""
    unary = UnaryRepeatParams()
    binary = BinaryRepeatParams()
    work = tmp
    clip = tmp[split:]
    ax = tmp[2 * split:]
    work2 = tmp[3 * split:]
    square = tmp[4 * split:]
    mins(clip, src, _ATAN_CLIP, _PLACEHOLDER, 1, unary, False)
    pipe_barrier(PipeID.PIPE_V)
    maxs(clip, clip, -_ATAN_CLIP, _PLACEHOLDER, 1, unary, False)
    pipe_barrier(PipeID.PIPE_V)
    abs(ax, clip, _PLACEHOLDER, 1, unary, False)
    pipe_barrier(PipeID.PIPE_V)
    atan_taylor(dst, ax, square, 4)
    atan_shift(work, ax, work2, _TAN_PI_BY_8)
    atan_taylor(work2, work, square, 4)
    pipe_barrier(PipeID.PIPE_V)
    adds(work2, work2, _PI_BY_8, _PLACEHOLDER, 1, unary, False)
    pipe_barrier(PipeID.PIPE_V)
    min(dst, dst, work2, _PLACEHOLDER, 1, binary, False)
    adds(work2, ax, 1.0, _PLACEHOLDER, 1, unary, False)
    adds(work, ax, -1.0, _PLACEHOLDER, 1, unary, False)
    pipe_barrier(PipeID.PIPE_V)
    div(work, work, work2, _PLACEHOLDER, 1, binary, False)
    pipe_barrier(PipeID.PIPE_V)
    abs(work, work, _PLACEHOLDER, 1, unary, False)
    pipe_barrier(PipeID.PIPE_V)
    atan_taylor(work2, work, square, 4)
    pipe_barrier(PipeID.PIPE_V)
    adds(work2, work2, _PI_BY_4, _PLACEHOLDER, 1, unary, False)
    pipe_barrier(PipeID.PIPE_V)
    min(dst, dst, work2, _PLACEHOLDER, 1, binary, False)
    atan_shift(work2, work, square, _TAN_PI_BY_8)
    atan_taylor(work, work2, square, 6)
    pipe_barrier(PipeID.PIPE_V)
    adds(work, work, _PI_BY_8, _PLACEHOLDER, 1, unary, False)
    pipe_barrier(PipeID.PIPE_V)
    adds(work, work, _PI_BY_4, _PLACEHOLDER, 1, unary, False)
    pipe_barrier(PipeID.PIPE_V)
    min(dst, dst, work, _PLACEHOLDER, 1, binary, False)
    pipe_barrier(PipeID.PIPE_V)
    sign_of(work, clip, work2, _SIGN_FLOAT[0], _SIGN_FLOAT[1])
    mul(dst, dst, work, _PLACEHOLDER, 1, binary, False)
    pipe_barrier(PipeID.PIPE_V)


@jit
def atan_chunk(offset, room, dst, src, tmp, split, from_half: ConstExpr[bool]):
    """One chunk of atan; a half source goes through float in the temp's sixth area."""
    if from_half:
        wide = tmp[5 * split:]
        widen(wide, src[offset:])
        atan_formula(wide, wide, tmp, split)
        narrow(dst[offset:], wide)
    else:
        atan_formula(dst[offset:], src[offset:], tmp, split)
