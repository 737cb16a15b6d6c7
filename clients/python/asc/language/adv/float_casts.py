"""The casts the element-wise math sequences share (library sub-kernels): a half source widened
to float and the result narrowed back, and float -> float rounding to an integral value, each
under the loaded counter mask and followed by a PIPE_V barrier, as the library issues them."""
from asc.language.basic.sync import pipe_barrier
from asc.language.basic.vec import cast
from asc.language.core.constexpr import ConstExpr
from asc.language.core.enums import PipeID, RoundMode
from asc.language.core.types import UnaryRepeatParams
from asc.runtime.jit import jit

_PLACEHOLDER = 0  # counter mode, mask loaded


@jit
def widen(dst, src):
    """dst (float) = src (half), exactly."""
    cast(dst, src, RoundMode.CAST_NONE, _PLACEHOLDER, 1, UnaryRepeatParams(1, 1, 8, 4), False)
    pipe_barrier(PipeID.PIPE_V)


@jit
def narrow(dst, src, mode: ConstExpr = RoundMode.CAST_NONE):
    """dst (half) = src (float) rounded by `mode` (CAST_NONE: nearest even)."""
    cast(dst, src, mode, _PLACEHOLDER, 1, UnaryRepeatParams(1, 1, 4, 8), False)
    pipe_barrier(PipeID.PIPE_V)


@jit
def to_integral(dst, src, mode: ConstExpr):
    """dst = src rounded to an integral float by `mode` (v220's float -> float cast)."""
    cast(dst, src, mode, _PLACEHOLDER, 1, UnaryRepeatParams(), False)
    pipe_barrier(PipeID.PIPE_V)
