"""The instruction sequences behind asc.adv's hyperbolic, log and error-function ops
(math_hyperbolic.py has the facts and their source): library sub-kernels, traced where the user
calls the op, its ops at the user's line. Each `*_chunk` runs one chunk under the loaded counter
mask; the steps two ops or both source types share are sub-kernels of their own."""
from asc.language.adv.float_casts import narrow, widen
from asc.language.basic.mask import reset_mask, set_mask_count, set_mask_norm, set_vector_mask
from asc.language.basic.sync import pipe_barrier
from asc.language.basic.vec import (abs, add, adds, cast, div, duplicate, exp, ln, maxs, mins,
                                    mul, muls, sqrt, sub)
from asc.language.core.constexpr import ConstExpr
from asc.language.core.enums import MaskMode, PipeID, RoundMode
from asc.language.core.types import BinaryRepeatParams, UnaryRepeatParams
from asc.runtime.jit import jit

_PLACEHOLDER = 0  # counter mode, mask loaded: one instruction covers the mask's count
_NEG_LN2 = -0.69314718055994530941723212145818  # e^(x - ln2) = e^x / 2
_TINY = 2.168404344971009e-19  # 2^-62: keeps x / (|x| + tiny) finite at 0
_HUGE = 4611686018427387904.0  # 2^62: asinh scales x before taking its sign
_ERF_CLIP = 3.92
_ERFC_CLIP = 10.0
_ERF_P = (0.29639384698e5, 0.50637915060e4, 0.13938061484e4, 0.10162808918e3, 0.75517016694e1,
          0.053443748819)
_ERF_Q = (0.26267224157e5, 0.13243365831e5, 0.30231248150e4, 0.39856963806e3, 0.31212858877e2)
_ERFC_R = (0.1735313680e-7, -0.9856738394e-6, 0.2517003236e-4, -0.3848015171e-3,
           0.5681528564e0, 0.5245623129e1, 0.2107740710e2, 0.4212761755e2, 0.4380524149e2)
_ERFC_S = (0.9349684299e1, 0.3756930664e2, 0.8058268949e2, 0.9155653738e2, 0.4380524152e2)






@jit
def half_exp(dst, src, shifted):
    """dst = e^(src - ln2), the shifted argument in `shifted` (which may be dst)."""
    unary = UnaryRepeatParams()
    adds(shifted, src, _NEG_LN2, _PLACEHOLDER, 1, unary, False)
    pipe_barrier(PipeID.PIPE_V)
    exp(dst, shifted, _PLACEHOLDER, 1, unary, False)
    pipe_barrier(PipeID.PIPE_V)


@jit
def sinh_chunk(offset, room, dst, src, tmp, from_half: ConstExpr[bool]):
    """sinh = e^(x - ln2) - e^(-x - ln2). Float: the negative term in the temp's one area.
    Half: x in float in the first area, the positive term in the second."""
    unary = UnaryRepeatParams()
    binary = BinaryRepeatParams()
    if from_half:
        neg = tmp
        pos = tmp[room:]
        widen(neg, src[offset:])
        half_exp(pos, neg, pos)
        muls(neg, neg, -1.0, _PLACEHOLDER, 1, unary, False)
        pipe_barrier(PipeID.PIPE_V)
        half_exp(neg, neg, neg)
        sub(pos, pos, neg, _PLACEHOLDER, 1, binary, False)
        pipe_barrier(PipeID.PIPE_V)
        narrow(dst[offset:], pos, RoundMode.CAST_NONE)
    else:
        muls(tmp, src[offset:], -1.0, _PLACEHOLDER, 1, unary, False)
        pipe_barrier(PipeID.PIPE_V)
        half_exp(tmp, tmp, tmp)
        half_exp(dst[offset:], src[offset:], dst[offset:])
        sub(dst[offset:], dst[offset:], tmp, _PLACEHOLDER, 1, binary, False)
        pipe_barrier(PipeID.PIPE_V)


@jit
def cosh_formula(dst, src, grow, other):
    """dst = e^(x - ln2) + 0.25 / e^(x - ln2) in float: the growing term in `grow`, the other
    (and first the shifted argument) in `other`; dst holds the 0.25s (it may be src)."""
    binary = BinaryRepeatParams()
    half_exp(grow, src, other)
    duplicate(dst, 0.25, _PLACEHOLDER, 1, 1, 8, False)
    pipe_barrier(PipeID.PIPE_V)
    div(other, dst, grow, _PLACEHOLDER, 1, binary, False)
    pipe_barrier(PipeID.PIPE_V)
    add(dst, grow, other, _PLACEHOLDER, 1, binary, False)
    pipe_barrier(PipeID.PIPE_V)


@jit
def cosh_chunk(offset, room, dst, src, tmp, from_half: ConstExpr[bool]):
    """Float: the two terms in the temp's two areas. Half: x in float in the third area, where
    the sum lands, rounded to half away from zero."""
    if from_half:
        wide = tmp[2 * room:]
        widen(wide, src[offset:])
        cosh_formula(wide, wide, tmp, tmp[room:])
        narrow(dst[offset:], wide, RoundMode.CAST_ROUND)
    else:
        cosh_formula(dst[offset:], src[offset:], tmp, tmp[room:])


@jit
def sign_of(dst, src, denom):
    """dst = src / (|src| + 2^-62): +-1, or 0 at 0 (the library's sign without a compare)."""
    unary = UnaryRepeatParams()
    abs(denom, src, _PLACEHOLDER, 1, unary, False)
    pipe_barrier(PipeID.PIPE_V)
    adds(denom, denom, _TINY, _PLACEHOLDER, 1, unary, False)
    pipe_barrier(PipeID.PIPE_V)
    div(dst, src, denom, _PLACEHOLDER, 1, BinaryRepeatParams(), False)
    pipe_barrier(PipeID.PIPE_V)


@jit
def asinh_magnitude(dst, mag, src):
    """dst = ln(|x| + sqrt(x^2 + 1)), |x| kept in `mag` (which may be src)."""
    unary = UnaryRepeatParams()
    binary = BinaryRepeatParams()
    abs(mag, src, _PLACEHOLDER, 1, unary, False)
    pipe_barrier(PipeID.PIPE_V)
    mul(dst, mag, mag, _PLACEHOLDER, 1, binary, False)
    pipe_barrier(PipeID.PIPE_V)
    adds(dst, dst, 1.0, _PLACEHOLDER, 1, unary, False)
    pipe_barrier(PipeID.PIPE_V)
    sqrt(dst, dst, _PLACEHOLDER, 1, unary, False)
    pipe_barrier(PipeID.PIPE_V)
    add(dst, dst, mag, _PLACEHOLDER, 1, binary, False)
    pipe_barrier(PipeID.PIPE_V)
    ln(dst, dst, _PLACEHOLDER, 1, unary, False)
    pipe_barrier(PipeID.PIPE_V)


@jit
def asinh_sign(dst, src, denom):
    """dst = the sign of x, from x * 2^62 so that small x still give +-1; the library follows
    it with a second barrier."""
    muls(dst, src, _HUGE, _PLACEHOLDER, 1, UnaryRepeatParams(), False)
    pipe_barrier(PipeID.PIPE_V)
    sign_of(dst, dst, denom)
    pipe_barrier(PipeID.PIPE_V)


@jit
def asinh_chunk(offset, room, dst, src, tmp, from_half: ConstExpr[bool]):
    """asinh = sign(x) * ln(|x| + sqrt(x^2 + 1)) in three float areas of `room` each: |x| then
    the sign, the sign's denominator, the magnitude. Half converts x twice, as the library."""
    binary = BinaryRepeatParams()
    mag = tmp
    denom = tmp[room:]
    value = tmp[2 * room:]
    if from_half:
        widen(mag, src[offset:])
        asinh_magnitude(value, mag, mag)
        widen(mag, src[offset:])
        asinh_sign(mag, mag, denom)
        mul(value, value, mag, _PLACEHOLDER, 1, binary, False)
        pipe_barrier(PipeID.PIPE_V)
        narrow(dst[offset:], value, RoundMode.CAST_NONE)
    else:
        asinh_magnitude(value, mag, src[offset:])
        asinh_sign(mag, src[offset:], denom)
        mul(dst[offset:], value, mag, _PLACEHOLDER, 1, binary, False)
        pipe_barrier(PipeID.PIPE_V)


@jit
def acosh_formula(dst, src, work, ratio):
    """dst = ln((x + sqrt(x^2 - 1)) * (t / t)) with t = x + sqrt(x^2 - 1) in `work`; t / t in
    `ratio` (1, or NaN where t is inf)."""
    unary = UnaryRepeatParams()
    binary = BinaryRepeatParams()
    mul(work, src, src, _PLACEHOLDER, 1, binary, False)
    pipe_barrier(PipeID.PIPE_V)
    adds(work, work, -1.0, _PLACEHOLDER, 1, unary, False)
    pipe_barrier(PipeID.PIPE_V)
    sqrt(work, work, _PLACEHOLDER, 1, unary, False)
    pipe_barrier(PipeID.PIPE_V)
    add(work, src, work, _PLACEHOLDER, 1, binary, False)
    pipe_barrier(PipeID.PIPE_V)
    div(ratio, work, work, _PLACEHOLDER, 1, binary, False)
    pipe_barrier(PipeID.PIPE_V)
    mul(work, work, ratio, _PLACEHOLDER, 1, binary, False)
    pipe_barrier(PipeID.PIPE_V)
    ln(dst, work, _PLACEHOLDER, 1, unary, False)
    pipe_barrier(PipeID.PIPE_V)


@jit
def acosh_chunk(offset, room, dst, src, tmp, from_half: ConstExpr[bool]):
    """Float: t in the temp's one area, t / t in dst. Half: x in float in the first area (then
    t / t), t and the result in the second."""
    if from_half:
        wide = tmp
        work = tmp[room:]
        widen(wide, src[offset:])
        acosh_formula(work, wide, work, wide)
        narrow(dst[offset:], work, RoundMode.CAST_NONE)
    else:
        acosh_formula(dst[offset:], src[offset:], tmp, dst[offset:])


@jit
def atanh_formula(dst, src, plus):
    """dst = 0.5 * ln((1 + x) / (1 - x)), 1 + x in `plus`; dst may be src."""
    unary = UnaryRepeatParams()
    adds(plus, src, 1.0, _PLACEHOLDER, 1, unary, False)
    pipe_barrier(PipeID.PIPE_V)
    muls(dst, src, -1.0, _PLACEHOLDER, 1, unary, False)
    pipe_barrier(PipeID.PIPE_V)
    adds(dst, dst, 1.0, _PLACEHOLDER, 1, unary, False)
    pipe_barrier(PipeID.PIPE_V)
    div(dst, plus, dst, _PLACEHOLDER, 1, BinaryRepeatParams(), False)
    pipe_barrier(PipeID.PIPE_V)
    ln(dst, dst, _PLACEHOLDER, 1, unary, False)
    pipe_barrier(PipeID.PIPE_V)
    muls(dst, dst, 0.5, _PLACEHOLDER, 1, unary, False)
    pipe_barrier(PipeID.PIPE_V)


@jit
def atanh_chunk(offset, room, dst, src, tmp, from_half: ConstExpr[bool]):
    """Float: 1 + x in the temp's one area. Half: x in float in the first area, where the
    result forms, 1 + x in the second; the library's last cast has no barrier after it."""
    if from_half:
        wide = tmp
        widen(wide, src[offset:])
        atanh_formula(wide, wide, tmp[room:])
        cast(dst[offset:], wide, RoundMode.CAST_NONE, _PLACEHOLDER, 1,
             UnaryRepeatParams(1, 1, 4, 8), False)
    else:
        atanh_formula(dst[offset:], src[offset:], tmp)


@jit
def clip(dst, src, mid, bound: ConstExpr[float]):
    """dst = max(min(src, bound), -bound), min(src, bound) in `mid`."""
    unary = UnaryRepeatParams()
    mins(mid, src, bound, _PLACEHOLDER, 1, unary, False)
    pipe_barrier(PipeID.PIPE_V)
    maxs(dst, mid, -bound, _PLACEHOLDER, 1, unary, False)
    pipe_barrier(PipeID.PIPE_V)


@jit
def horner_step(acc, prod, z, c: ConstExpr[float]):
    """acc = z * acc + c, the product in `prod`."""
    mul(prod, z, acc, _PLACEHOLDER, 1, BinaryRepeatParams(), False)
    pipe_barrier(PipeID.PIPE_V)
    adds(acc, prod, c, _PLACEHOLDER, 1, UnaryRepeatParams(), False)
    pipe_barrier(PipeID.PIPE_V)


@jit
def erf_formula(dst, x, src, tmp, room):
    """dst = P(x) / Q(x) of x = src clipped to [-3.92, 3.92] (in `x`, then Q's scratch): x^2,
    P(x) and Q(x) in the temp's first three areas."""
    unary = UnaryRepeatParams()
    binary = BinaryRepeatParams()
    square = tmp
    p = tmp[room:]
    q = tmp[2 * room:]
    clip(x, src, square, _ERF_CLIP)
    mul(square, x, x, _PLACEHOLDER, 1, binary, False)
    pipe_barrier(PipeID.PIPE_V)
    muls(p, square, _ERF_P[5], _PLACEHOLDER, 1, unary, False)
    pipe_barrier(PipeID.PIPE_V)
    adds(q, p, _ERF_P[4], _PLACEHOLDER, 1, unary, False)
    pipe_barrier(PipeID.PIPE_V)
    horner_step(q, p, square, _ERF_P[3])
    horner_step(q, p, square, _ERF_P[2])
    horner_step(q, p, square, _ERF_P[1])
    horner_step(q, p, square, _ERF_P[0])
    mul(p, x, q, _PLACEHOLDER, 1, binary, False)
    pipe_barrier(PipeID.PIPE_V)
    adds(q, square, _ERF_Q[4], _PLACEHOLDER, 1, unary, False)
    pipe_barrier(PipeID.PIPE_V)
    horner_step(q, x, square, _ERF_Q[3])
    horner_step(q, x, square, _ERF_Q[2])
    horner_step(q, x, square, _ERF_Q[1])
    horner_step(q, x, square, _ERF_Q[0])
    div(dst, p, q, _PLACEHOLDER, 1, binary, False)
    pipe_barrier(PipeID.PIPE_V)


@jit
def erf_chunk(offset, room, dst, src, tmp, from_half: ConstExpr[bool]):
    """Float: the clipped x in dst. Half: x in float in the fourth area, the quotient in the
    first, rounded to half away from zero."""
    if from_half:
        wide = tmp[3 * room:]
        widen(wide, src[offset:])
        erf_formula(tmp, wide, wide, tmp, room)
        narrow(dst[offset:], tmp, RoundMode.CAST_ROUND)
    else:
        erf_formula(dst[offset:], dst[offset:], src[offset:], tmp, room)


@jit
def erfc_formula(dst, sign, tmp, room):
    """dst = 1 - s + s * e^(-z^2) * R(z) / S(z), z = |x| and s = sign(x) of the clipped x in
    `sign` (replaced by s), five float areas: z, min(z, 10) (unused after), R/S's products
    and quotient, R(z), S's products."""
    unary = UnaryRepeatParams()
    binary = BinaryRepeatParams()
    z = tmp
    ceiling = tmp[room:]
    ratio = tmp[2 * room:]
    r = tmp[3 * room:]
    prod = tmp[4 * room:]
    sign_of(sign, sign, z)
    mins(ceiling, z, _ERFC_CLIP, _PLACEHOLDER, 1, unary, False)
    pipe_barrier(PipeID.PIPE_V)
    muls(ratio, z, _ERFC_R[0], _PLACEHOLDER, 1, unary, False)
    pipe_barrier(PipeID.PIPE_V)
    adds(r, ratio, _ERFC_R[1], _PLACEHOLDER, 1, unary, False)
    pipe_barrier(PipeID.PIPE_V)
    horner_step(r, ratio, z, _ERFC_R[2])
    horner_step(r, ratio, z, _ERFC_R[3])
    horner_step(r, ratio, z, _ERFC_R[4])
    horner_step(r, ratio, z, _ERFC_R[5])
    horner_step(r, ratio, z, _ERFC_R[6])
    horner_step(r, ratio, z, _ERFC_R[7])
    horner_step(r, ratio, z, _ERFC_R[8])
    adds(ratio, z, _ERFC_S[0], _PLACEHOLDER, 1, unary, False)
    pipe_barrier(PipeID.PIPE_V)
    horner_step(ratio, prod, z, _ERFC_S[1])
    horner_step(ratio, prod, z, _ERFC_S[2])
    horner_step(ratio, prod, z, _ERFC_S[3])
    horner_step(ratio, prod, z, _ERFC_S[4])
    div(ratio, r, ratio, _PLACEHOLDER, 1, binary, False)
    pipe_barrier(PipeID.PIPE_V)
    mul(z, z, z, _PLACEHOLDER, 1, binary, False)
    pipe_barrier(PipeID.PIPE_V)
    muls(z, z, -1.0, _PLACEHOLDER, 1, unary, False)
    pipe_barrier(PipeID.PIPE_V)
    exp(z, z, _PLACEHOLDER, 1, unary, False)
    pipe_barrier(PipeID.PIPE_V)
    mul(ratio, z, ratio, _PLACEHOLDER, 1, binary, False)
    pipe_barrier(PipeID.PIPE_V)
    muls(ceiling, sign, -1.0, _PLACEHOLDER, 1, unary, False)
    pipe_barrier(PipeID.PIPE_V)
    adds(ceiling, ceiling, 1.0, _PLACEHOLDER, 1, unary, False)
    pipe_barrier(PipeID.PIPE_V)
    mul(ratio, ratio, sign, _PLACEHOLDER, 1, binary, False)
    pipe_barrier(PipeID.PIPE_V)
    add(dst, ratio, ceiling, _PLACEHOLDER, 1, binary, False)
    pipe_barrier(PipeID.PIPE_V)


@jit
def erfc_chunk(offset, room, dst, src, tmp, from_half: ConstExpr[bool]):
    """Float: the clipped x, then its sign, in dst. Half: x in float in the sixth area (its
    clip and sign there), the result in the first, rounded to half away from zero."""
    if from_half:
        wide = tmp[5 * room:]
        widen(wide, src[offset:])
        clip(wide, wide, tmp, _ERFC_CLIP)
        erfc_formula(tmp, wide, tmp, room)
        narrow(dst[offset:], tmp, RoundMode.CAST_ROUND)
    else:
        clip(dst[offset:], src[offset:], dst[offset:], _ERFC_CLIP)
        erfc_formula(dst[offset:], dst[offset:], tmp, room)


@jit
def log_all(dst, src, count, mask_dtype: ConstExpr):
    """dst = ln(src): the whole count under one counter mask, no temp, no barrier."""
    set_mask_count()
    set_vector_mask(count, dtype=mask_dtype, mode=MaskMode.COUNTER)
    ln(dst, src, _PLACEHOLDER, 1, UnaryRepeatParams(), False)
    set_mask_norm()
    reset_mask()
