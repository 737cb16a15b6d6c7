"""The instruction sequences behind asc.adv's exp, power, xor and axpy (math_arith.py has the
facts and their source): library sub-kernels, traced where the user calls the op, its ops at
the user's line."""
from asc.language.basic.mask import set_mask_count, set_vector_mask
from asc.language.basic.sync import pipe_barrier
from asc.language.basic.reduce import reduce_sum
from asc.language.basic.vec import (abs, add, adds, bitwise_and, bitwise_not, bitwise_or, cast,
                                    compare_scalar, div, duplicate, ln, mul, muls, select,
                                    set_cmp_mask, shift_right, sub)
from asc.language.basic.vec import exp as vec_exp
from asc.language.core.constexpr import ConstExpr
from asc.language.core.dtype import KnownTypes as KT
from asc.language.core.enums import CMPMODE, MaskMode, PipeID, RoundMode, SelMode
from asc.language.core.types import BinaryRepeatParams, UnaryRepeatParams
from asc.language.core.utils import static_range
from asc.runtime.jit import jit

_PLACEHOLDER = 0  # counter mode, mask loaded: one instruction covers the mask's count
_REPEAT_BYTES = 256
_MASK_WORD_BITS = 16  # the masks are combined as uint16 words
_INT_THRESHOLD = 1e-8  # |y - rint(y)| below this: y is an integer
_INF = float("inf")
_NAN = float("nan")
_TO_FLOAT = UnaryRepeatParams(1, 1, 8, 4)
_TO_HALF = UnaryRepeatParams(1, 1, 4, 8)


@jit
def counter_mask(room):
    """The library's per-step reload of the counter mask (float elements)."""
    set_vector_mask(room, dtype=KT.float32, mode=MaskMode.COUNTER)


# ---- exp ---------------------------------------------------------------------------------------

@jit
def exp_chunk(offset, room, dst, src, floor_x, power, res, int_part, inverses: ConstExpr,
              from_half: ConstExpr[bool]):
    """e^x = e^floor(x) * sum over n of frac(x)^n / n!, in float. `res` is the temp's area for
    a half source, else dst; `floor_x` is src itself when the source may be reused."""
    unary = UnaryRepeatParams()
    binary = BinaryRepeatParams()
    here = res
    if not from_half:
        here = dst[offset:]
    counter_mask(room)
    if from_half:
        cast(floor_x, src[offset:], RoundMode.CAST_NONE, _PLACEHOLDER, 1, _TO_FLOAT, False)
    else:
        adds(floor_x, src[offset:], 0.0, _PLACEHOLDER, 1, unary, False)
    pipe_barrier(PipeID.PIPE_V)
    counter_mask(room)
    cast(int_part, floor_x, RoundMode.CAST_FLOOR, _PLACEHOLDER, 1, unary, False)
    pipe_barrier(PipeID.PIPE_V)
    sub(floor_x, floor_x, int_part, _PLACEHOLDER, 1, binary, False)
    pipe_barrier(PipeID.PIPE_V)
    vec_exp(int_part, int_part, _PLACEHOLDER, 1, unary, False)
    pipe_barrier(PipeID.PIPE_V)
    counter_mask(room)
    adds(power, floor_x, 0.0, _PLACEHOLDER, 1, unary, False)
    pipe_barrier(PipeID.PIPE_V)
    adds(here, floor_x, 0.0, _PLACEHOLDER, 1, unary, False)
    pipe_barrier(PipeID.PIPE_V)
    adds(here, here, 1.0, _PLACEHOLDER, 1, unary, False)
    pipe_barrier(PipeID.PIPE_V)
    for i in static_range(len(inverses)):
        mul(power, floor_x, power, _PLACEHOLDER, 1, binary, False)
        pipe_barrier(PipeID.PIPE_V)
        muls(power, power, inverses[i], _PLACEHOLDER, 1, unary, False)
        pipe_barrier(PipeID.PIPE_V)
        add(here, here, power, _PLACEHOLDER, 1, binary, False)
        pipe_barrier(PipeID.PIPE_V)
    mul(here, here, int_part, _PLACEHOLDER, 1, binary, False)
    pipe_barrier(PipeID.PIPE_V)
    if from_half:
        counter_mask(room)
        cast(dst[offset:], res, RoundMode.CAST_NONE, _PLACEHOLDER, 1, _TO_HALF, False)
        pipe_barrier(PipeID.PIPE_V)


# ---- xor ---------------------------------------------------------------------------------------

@jit
def xor_chunk(offset, room, dst, src0, src1, tmp):
    """x ^ y = (x | y) & ~(x & y)."""
    binary = BinaryRepeatParams()
    bitwise_and(dst[offset:], src0[offset:], src1[offset:], _PLACEHOLDER, 1, binary, False)
    bitwise_or(tmp, src0[offset:], src1[offset:], _PLACEHOLDER, 1, binary, False)
    pipe_barrier(PipeID.PIPE_V)
    bitwise_not(dst[offset:], dst[offset:], _PLACEHOLDER, 1, UnaryRepeatParams(), False)
    pipe_barrier(PipeID.PIPE_V)
    bitwise_and(dst[offset:], tmp, dst[offset:], _PLACEHOLDER, 1, binary, False)
    pipe_barrier(PipeID.PIPE_V)


# ---- axpy --------------------------------------------------------------------------------------

@jit
def axpy_chunk(offset, room, dst, src, scalar, tmp, split, to_half: ConstExpr[bool]):
    """dst += src * scalar in float from a half source: src (and a half dst) cast into the
    temp's float areas, muls, add, [cast back]."""
    unary = UnaryRepeatParams()
    binary = BinaryRepeatParams()
    cast(tmp, src[offset:], RoundMode.CAST_NONE, _PLACEHOLDER, 1, _TO_FLOAT, False)
    pipe_barrier(PipeID.PIPE_V)
    if to_half:
        acc = tmp[split:]
        cast(acc, dst[offset:], RoundMode.CAST_NONE, _PLACEHOLDER, 1, _TO_FLOAT, False)
        pipe_barrier(PipeID.PIPE_V)
        muls(tmp, tmp, scalar, _PLACEHOLDER, 1, unary, False)
        pipe_barrier(PipeID.PIPE_V)
        add(acc, tmp, acc, _PLACEHOLDER, 1, binary, False)
        pipe_barrier(PipeID.PIPE_V)
        cast(dst[offset:], acc, RoundMode.CAST_NONE, _PLACEHOLDER, 1, _TO_HALF, False)
        pipe_barrier(PipeID.PIPE_V)
    else:
        muls(tmp, tmp, scalar, _PLACEHOLDER, 1, unary, False)
        pipe_barrier(PipeID.PIPE_V)
        add(dst[offset:], tmp, dst[offset:], _PLACEHOLDER, 1, binary, False)
        pipe_barrier(PipeID.PIPE_V)


# ---- power (float) -----------------------------------------------------------------------------

@jit
def power_prologue(scalars):
    """Counter mode, and the two 32-byte blocks CMPMASK loads for the selects: 1.0s, NaNs."""
    set_mask_count()
    set_vector_mask(8, dtype=KT.float32, mode=MaskMode.COUNTER)
    duplicate(scalars, 1.0, _PLACEHOLDER, 1, 1, 8, False)
    duplicate(scalars[8:], _NAN, _PLACEHOLDER, 1, 1, 8, False)


@jit
def combine(op: ConstExpr, dst, a, b, room):
    """dst = a op b over the uint16 words holding `room` mask bits, then the mask back."""
    words = (room + _MASK_WORD_BITS - 1) // _MASK_WORD_BITS
    set_vector_mask(words, dtype=KT.float32, mode=MaskMode.COUNTER)
    op(dst.reinterpret_cast(KT.uint16), a.reinterpret_cast(KT.uint16),
       b.reinterpret_cast(KT.uint16), _PLACEHOLDER, 1, BinaryRepeatParams(), False)


@jit
def select_scalar(dst, bits, src, scalar):
    """dst = bits ? src : scalar[0], the scalar through CMPMASK."""
    set_cmp_mask(scalar)
    pipe_barrier(PipeID.PIPE_V)
    select(dst, bits, src, 1, BinaryRepeatParams())


@jit
def power_formula(dst, x, y, scalars, t1, t2, t3, m1, m2, m3, int_y, room):
    """x^y = e^(y ln|x|), negated for x < 0 and odd integer y; then 1 where y = 0, x = 1 or
    (x = -1, |y| = inf), and NaN where x < 0 (not -inf) and y is neither integral nor
    infinite. All in float under the loaded mask."""
    unary = UnaryRepeatParams()
    binary = BinaryRepeatParams()
    repeat = (room * 4 + _REPEAT_BYTES - 1) // _REPEAT_BYTES
    pipe_barrier(PipeID.PIPE_V)
    abs(dst, x, _PLACEHOLDER, 1, unary, False)
    pipe_barrier(PipeID.PIPE_V)
    ln(dst, dst, _PLACEHOLDER, 1, unary, False)
    pipe_barrier(PipeID.PIPE_V)
    mul(dst, y, dst, _PLACEHOLDER, 1, binary, False)
    pipe_barrier(PipeID.PIPE_V)
    vec_exp(dst, dst, _PLACEHOLDER, 1, unary, False)
    pipe_barrier(PipeID.PIPE_V)
    # t1 = 1 - 2 * (|rint(y)| mod 2): -1 for odd y, 1 for even
    abs(t1, y, _PLACEHOLDER, 1, unary, False)
    pipe_barrier(PipeID.PIPE_V)
    cast(t1, t1, RoundMode.CAST_RINT, _PLACEHOLDER, 1, unary, False)
    pipe_barrier(PipeID.PIPE_V)
    muls(t2, t1, 0.5, _PLACEHOLDER, 1, unary, False)
    pipe_barrier(PipeID.PIPE_V)
    cast(t2, t2, RoundMode.CAST_FLOOR, _PLACEHOLDER, 1, unary, False)
    pipe_barrier(PipeID.PIPE_V)
    muls(t2, t2, 2.0, _PLACEHOLDER, 1, unary, False)
    pipe_barrier(PipeID.PIPE_V)
    sub(t1, t1, t2, _PLACEHOLDER, 1, binary, False)
    pipe_barrier(PipeID.PIPE_V)
    muls(t1, t1, -2.0, _PLACEHOLDER, 1, unary, False)
    pipe_barrier(PipeID.PIPE_V)
    adds(t1, t1, 1.0, _PLACEHOLDER, 1, unary, False)
    pipe_barrier(PipeID.PIPE_V)
    cast(t1, t1, RoundMode.CAST_RINT, _PLACEHOLDER, 1, unary, False)
    pipe_barrier(PipeID.PIPE_V)
    # m1 = sign bit of x and y integral (int_y kept for the NaN rule)
    shift_right(t2.reinterpret_cast(KT.uint32), x.reinterpret_cast(KT.uint32), 31, _PLACEHOLDER,
                1, unary, False)
    pipe_barrier(PipeID.PIPE_V)
    compare_scalar(m1, t2.reinterpret_cast(KT.int32), 1, CMPMODE.EQ, _PLACEHOLDER, repeat, unary)
    pipe_barrier(PipeID.PIPE_V)
    abs(t2, y, _PLACEHOLDER, 1, unary, False)
    pipe_barrier(PipeID.PIPE_V)
    cast(t3, t2, RoundMode.CAST_RINT, _PLACEHOLDER, 1, unary, False)
    pipe_barrier(PipeID.PIPE_V)
    sub(t3, t2, t3, _PLACEHOLDER, 1, binary, False)
    pipe_barrier(PipeID.PIPE_V)
    abs(t3, t3, _PLACEHOLDER, 1, unary, False)
    pipe_barrier(PipeID.PIPE_V)
    compare_scalar(int_y, t3, _INT_THRESHOLD, CMPMODE.LT, _PLACEHOLDER, repeat, unary)
    pipe_barrier(PipeID.PIPE_V)
    combine(bitwise_and, m1, int_y, m1, room)
    counter_mask(room)
    pipe_barrier(PipeID.PIPE_V)
    select_scalar(t2, m1, t1, scalars)
    pipe_barrier(PipeID.PIPE_V)
    mul(dst, t2, dst, _PLACEHOLDER, 1, binary, False)
    pipe_barrier(PipeID.PIPE_V)
    # m1 = y != 0 and x != 1 and (x != -1 or |y| != inf): elsewhere the result is 1
    abs(t1, y, _PLACEHOLDER, 1, unary, False)
    pipe_barrier(PipeID.PIPE_V)
    compare_scalar(m1, t1, 0.0, CMPMODE.NE, _PLACEHOLDER, repeat, unary)
    pipe_barrier(PipeID.PIPE_V)
    compare_scalar(m2, x, 1.0, CMPMODE.NE, _PLACEHOLDER, repeat, unary)
    pipe_barrier(PipeID.PIPE_V)
    combine(bitwise_and, m1, m2, m1, room)
    counter_mask(room)
    pipe_barrier(PipeID.PIPE_V)
    compare_scalar(m2, x, -1.0, CMPMODE.NE, _PLACEHOLDER, repeat, unary)
    pipe_barrier(PipeID.PIPE_V)
    compare_scalar(m3, t1, _INF, CMPMODE.NE, _PLACEHOLDER, repeat, unary)
    pipe_barrier(PipeID.PIPE_V)
    combine(bitwise_or, m2, m3, m2, room)
    pipe_barrier(PipeID.PIPE_V)
    bitwise_and(m1.reinterpret_cast(KT.uint16), m2.reinterpret_cast(KT.uint16),
                m1.reinterpret_cast(KT.uint16), _PLACEHOLDER, 1, binary, False)
    counter_mask(room)
    pipe_barrier(PipeID.PIPE_V)
    select_scalar(dst, m1, dst, scalars)
    pipe_barrier(PipeID.PIPE_V)
    # m1 = |y| = inf or y integral or x >= 0 or x = -inf: elsewhere NaN
    abs(t1, y, _PLACEHOLDER, 1, unary, False)
    pipe_barrier(PipeID.PIPE_V)
    compare_scalar(m1, t1, _INF, CMPMODE.EQ, _PLACEHOLDER, repeat, unary)
    pipe_barrier(PipeID.PIPE_V)
    combine(bitwise_or, m1, int_y, m1, room)
    counter_mask(room)
    compare_scalar(m2, x, 0.0, CMPMODE.GE, _PLACEHOLDER, repeat, unary)
    compare_scalar(m3, x, -_INF, CMPMODE.EQ, _PLACEHOLDER, repeat, unary)
    pipe_barrier(PipeID.PIPE_V)
    combine(bitwise_or, m2, m3, m2, room)
    pipe_barrier(PipeID.PIPE_V)
    bitwise_or(m1.reinterpret_cast(KT.uint16), m2.reinterpret_cast(KT.uint16),
               m1.reinterpret_cast(KT.uint16), _PLACEHOLDER, 1, binary, False)
    counter_mask(room)
    pipe_barrier(PipeID.PIPE_V)
    select_scalar(dst, m1, dst, scalars[8:])
    pipe_barrier(PipeID.PIPE_V)


@jit
def power_chunk(offset, room, dst, src0, src1, scalars, work, split, from_half: ConstExpr[bool]):
    """One chunk of x^y. `work` is the float temp after the scalar blocks: a half source's three
    areas (x, y and the result in float) come first, then three float areas and four masks of
    `split` bytes."""
    if from_half:
        x = work
        y = work[split:]
        res = work[2 * split:]
        areas = work[3 * split:]
        cast(x, src0[offset:], RoundMode.CAST_NONE, _PLACEHOLDER, 1, _TO_FLOAT, False)
        cast(y, src1[offset:], RoundMode.CAST_NONE, _PLACEHOLDER, 1, _TO_FLOAT, False)
        pipe_barrier(PipeID.PIPE_V)
        power_areas(res, x, y, scalars, areas, split, room)
        cast(dst[offset:], res, RoundMode.CAST_NONE, _PLACEHOLDER, 1, _TO_HALF, False)
        pipe_barrier(PipeID.PIPE_V)
    else:
        pipe_barrier(PipeID.PIPE_V)
        power_areas(dst[offset:], src0[offset:], src1[offset:], scalars, work, split, room)


@jit
def power_areas(dst, x, y, scalars, areas, split, room):
    """power_formula with its three float areas and four masks carved from `areas`."""
    masks = areas[3 * split:].reinterpret_cast(KT.uint8)
    power_formula(dst, x, y, scalars, areas, areas[split:], areas[2 * split:], masks,
                  masks[split:], masks[2 * split:], masks[3 * split:], room)


# ---- power (int32) -----------------------------------------------------------------------------

_INT_AREAS = 5  # int32 areas of a chunk before the two masks and the scalar block


@jit
def select_by_address(dst, bits, src0, src1, scalar, room):
    """dst = bits ? src0 : src1 (as float bits) in VSEL_TENSOR_TENSOR_MODE: bits' UB address
    goes into CMPMASK through one uint32 of `scalar`, under a mask of 1 then of `room`
    (VselPowerTensorTensor)."""
    set_vector_mask(1, dtype=KT.uint32, mode=MaskMode.COUNTER)
    duplicate(scalar.reinterpret_cast(KT.uint32), bits.get_phy_addr(), _PLACEHOLDER, 1, 1, 8,
              False)
    pipe_barrier(PipeID.PIPE_V)
    set_vector_mask(room, dtype=KT.float32, mode=MaskMode.COUNTER)
    set_cmp_mask(scalar.reinterpret_cast(KT.uint32))  # the library views it as int64: 16 B
    pipe_barrier(PipeID.PIPE_V)
    select(dst.reinterpret_cast(KT.float32), src0.reinterpret_cast(KT.float32),
           src1.reinterpret_cast(KT.float32), repeat_times=1, repeat_params=BinaryRepeatParams(),
           sel_mode=SelMode.VSEL_TENSOR_TENSOR_MODE)


@jit
def is_zero(mask, src, repeat):
    """mask bit e = src[e] == 0 (CompareZeroPositive, CompareIntZero)."""
    compare_scalar(mask, src, 0, CMPMODE.EQ, _PLACEHOLDER, repeat, UnaryRepeatParams())


@jit
def still_to_do(count_of, floats, scalar, room):
    """The sum of `count_of` (int32, cast to float into `floats`) read by the scalar unit: the
    library's loop test (ReduceSumCount, then GetValue)."""
    cast(floats, count_of, RoundMode.CAST_NONE, _PLACEHOLDER, 1, UnaryRepeatParams(), False)
    pipe_barrier(PipeID.PIPE_V)
    reduce_sum(scalar.reinterpret_cast(KT.float32), floats, floats, room)
    set_mask_count()
    set_vector_mask(room, dtype=KT.int32, mode=MaskMode.COUNTER)
    total = scalar.reinterpret_cast(KT.float32).get_value(0)
    pipe_barrier(PipeID.PIPE_V)
    return total


@jit
def power_int_chunk(offset, room, dst, src0, src1, work, split):
    """One chunk of x^y for int32 (CANN's CommonPowerI): |y| by binary exponentiation in a bulk
    loop (squares while |y| >> i is not 0), the rest of |y| in a fine loop (one multiply by x
    a turn), each loop ending when a reduce_sum of what is left reads 0; negative y gives
    trunc(1 / x^|y|), then 0 where x^|y| was 0. `work` (int32): five areas of `split`, then
    the two masks and a 32-byte scalar block."""
    unary = UnaryRepeatParams()
    binary = BinaryRepeatParams()
    x = src0[offset:]
    y = src1[offset:]
    out = dst[offset:]
    exp_left = work
    abs_exp = work[split:]
    done_exp = work[2 * split:]
    t1 = work[3 * split:]
    t2 = work[4 * split:]
    neg = work[5 * split:].reinterpret_cast(KT.uint8)
    mask = neg[split:]
    scalar = neg[2 * split:]
    repeat = (room * 4 + _REPEAT_BYTES - 1) // _REPEAT_BYTES
    pipe_barrier(PipeID.PIPE_V)
    # |y|, y < 0 kept in neg; out = 1 where y = 0 else x; done_exp = 0 where y = 0 else 1
    cast(t1.reinterpret_cast(KT.float32), y, RoundMode.CAST_NONE, _PLACEHOLDER, 1, unary, False)
    pipe_barrier(PipeID.PIPE_V)
    compare_scalar(neg, t1.reinterpret_cast(KT.float32), 0.0, CMPMODE.LT, _PLACEHOLDER, repeat,
                   unary)
    pipe_barrier(PipeID.PIPE_V)
    muls(t1, y, -1, _PLACEHOLDER, 1, unary, False)
    pipe_barrier(PipeID.PIPE_V)
    select_by_address(exp_left, neg, t1, y, scalar, room)
    pipe_barrier(PipeID.PIPE_V)
    muls(abs_exp, exp_left, 1, _PLACEHOLDER, 1, unary, False)
    pipe_barrier(PipeID.PIPE_V)
    is_zero(mask, abs_exp, repeat)
    duplicate(done_exp, 0, _PLACEHOLDER, 1, 1, 8, False)
    pipe_barrier(PipeID.PIPE_V)
    duplicate(t2, 1, _PLACEHOLDER, 1, 1, 8, False)
    pipe_barrier(PipeID.PIPE_V)
    select_by_address(done_exp, mask, done_exp, t2, scalar, room)
    select_by_address(out, mask, t2, x, scalar, room)
    shift_right(exp_left, exp_left, 1, _PLACEHOLDER, 1, unary, False)
    pipe_barrier(PipeID.PIPE_V)
    is_zero(mask, exp_left, repeat)
    pipe_barrier(PipeID.PIPE_V)
    # bulk: square out and double done_exp while |y| >> i is not 0
    left = 1.0
    while left != 0.0:
        left = still_to_do(exp_left, t1.reinterpret_cast(KT.float32), scalar, room)
        if left != 0.0:
            mul(t1, out, out, _PLACEHOLDER, 1, binary, False)
            muls(t2, done_exp, 2, _PLACEHOLDER, 1, unary, False)
            pipe_barrier(PipeID.PIPE_V)
            select_by_address(out, mask, out, t1, scalar, room)
            select_by_address(done_exp, mask, done_exp, t2, scalar, room)
            shift_right(exp_left, exp_left, 1, _PLACEHOLDER, 1, unary, False)
            pipe_barrier(PipeID.PIPE_V)
            is_zero(mask, exp_left, repeat)
        pipe_barrier(PipeID.PIPE_V)
    # fine: multiply by x while done_exp < |y|
    sub(done_exp, abs_exp, done_exp, _PLACEHOLDER, 1, binary, False)
    pipe_barrier(PipeID.PIPE_V)
    is_zero(mask, done_exp, repeat)
    pipe_barrier(PipeID.PIPE_V)
    left = 1.0
    while left != 0.0:
        left = still_to_do(done_exp, t1.reinterpret_cast(KT.float32), scalar, room)
        if left != 0.0:
            mul(t1, out, x, _PLACEHOLDER, 1, binary, False)
            adds(t2, done_exp, -1, _PLACEHOLDER, 1, unary, False)
            pipe_barrier(PipeID.PIPE_V)
            select_by_address(out, mask, out, t1, scalar, room)
            select_by_address(done_exp, mask, done_exp, t2, scalar, room)
            pipe_barrier(PipeID.PIPE_V)
            is_zero(mask, done_exp, repeat)
        pipe_barrier(PipeID.PIPE_V)
    # negative y: trunc(1 / x^|y|); then 0 where x^|y| is 0
    is_zero(mask, out, repeat)
    as_float = abs_exp.reinterpret_cast(KT.float32)
    ones = exp_left.reinterpret_cast(KT.float32)
    cast(as_float, out, RoundMode.CAST_NONE, _PLACEHOLDER, 1, unary, False)
    duplicate(ones, 1.0, _PLACEHOLDER, 1, 1, 8, False)
    pipe_barrier(PipeID.PIPE_V)
    div(as_float, ones, as_float, _PLACEHOLDER, 1, binary, False)
    pipe_barrier(PipeID.PIPE_V)
    cast(t1, as_float, RoundMode.CAST_TRUNC, _PLACEHOLDER, 1, unary, False)
    pipe_barrier(PipeID.PIPE_V)
    select_by_address(out, neg, t1, out, scalar, room)
    duplicate(t2, 0, _PLACEHOLDER, 1, 1, 8, False)
    pipe_barrier(PipeID.PIPE_V)
    select_by_address(out, mask, t2, out, scalar, room)
    pipe_barrier(PipeID.PIPE_V)
