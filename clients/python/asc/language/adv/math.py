"""asc.adv's element-wise math (asc-api.md 6.7, 10.5), each emitted as Ascend C's library
sequence for the A2 vector core (docs/adv.md). Built: tanh.

tanh (CANN 8.1's `impl/math/tanh/tanh_common_impl.h`): the temp buffer seen as float holds
one chunk per step of the computation (two for a half source: its float copy and the clipped
argument; one for float), each its floats / steps rounded down to a multiple of 32. Counter
mode; per chunk [half: cast to float], mins 8.8, maxs -8.8, muls 2, exp, adds -1 into dst, adds
1, div, [half: cast back], a PIPE_V barrier after each; the tail under its own mask.
"""
from asc.language.adv._common import ONE_BLK_SIZE, float_op_args
from asc.language.core.dtype import KnownTypes as KT

__all__ = ["tanh"]

_CHUNK_ELEMENTS = ONE_BLK_SIZE  # a chunk is a multiple of 32 floats


def tanh(dst, src, count=None, temp_buffer=None, is_reuse_source=False):
    """dst = tanh(src) for the first `count` elements (all of src when None), in float
    (module docstring). dst may be src."""
    api = "tanh"
    from_half = getattr(src, "dtype", None) == KT.float16
    count, tmp, split = float_op_args(api, dst, src, count, temp_buffer, is_reuse_source,
                              2 if from_half else 1)
    from asc.codegen.function_visitor import inline_library
    from asc.language.adv import chunks, math_ops
    inline_library(chunks.counter_chunks, math_ops.tanh_chunk, count, split, 0,
                   KT.float32, (dst, src, tmp, split, from_half))

