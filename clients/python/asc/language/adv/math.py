"""asc.adv's element-wise math (asc-api.md 6.7, 10.5), each emitted as Ascend C's library
sequence for the A2 vector core (docs/adv.md). Built: tanh.

tanh (CANN 8.1's `impl/math/tanh/tanh_common_impl.h`): the temp buffer seen as float holds
one chunk per step of the computation (two for a half source: its float copy and the clipped
argument; one for float), each its floats / steps rounded down to a multiple of 32. Counter
mode; per chunk [half: cast to float], mins 8.8, maxs -8.8, muls 2, exp, adds -1 into dst, adds
1, div, [half: cast back], a PIPE_V barrier after each; the tail under its own mask.
"""
from asc.codegen.builder import require_builder
from asc.language.adv._common import ONE_BLK_SIZE, element_count, temp_buffer_of
from asc.language.basic.common import check_ub, require_local_tensors
from asc.language.core.constexpr import ConstExpr
from asc.language.core.dtype import KnownTypes as KT

__all__ = ["tanh"]

_CHUNK_ELEMENTS = ONE_BLK_SIZE  # a chunk is a multiple of 32 floats


def _args(api, dst, src, count, temp_buffer, is_reuse_source, steps):
    """The checked (count, float temp, chunk) of an element-wise op whose float temp holds
    `steps` chunks."""
    require_builder(api)
    require_local_tensors(api, dst=dst, src=src)
    check_ub(api, dst=dst, src=src)
    if src.dtype not in (KT.float16, KT.float32) or dst.dtype != src.dtype:
        raise TypeError(f"{api}(): dst and src must both be float16 or both float32, got "
                        f"{dst.dtype} and {src.dtype}")
    if not isinstance(ConstExpr.unwrap(is_reuse_source), bool):
        raise TypeError(f"{api}(): is_reuse_source must be a compile-time bool")
    count = element_count(api, count, ("src", src), ("dst", dst))
    temp_buffer, tmp_bytes = temp_buffer_of(
        api, temp_buffer, steps * _CHUNK_ELEMENTS * 4,
        f"{steps} chunk(s) of {_CHUNK_ELEMENTS} floats for {src.dtype}")
    split = tmp_bytes // 4 // steps // _CHUNK_ELEMENTS * _CHUNK_ELEMENTS
    return count, temp_buffer.reinterpret_cast(KT.float32), split


def tanh(dst, src, count=None, temp_buffer=None, is_reuse_source=False):
    """dst = tanh(src) for the first `count` elements (all of src when None), in float
    (module docstring). dst may be src."""
    api = "tanh"
    from_half = getattr(src, "dtype", None) == KT.float16
    count, tmp, split = _args(api, dst, src, count, temp_buffer, is_reuse_source,
                              2 if from_half else 1)
    from asc.codegen.function_visitor import inline_library
    from asc.language.adv import chunks, math_ops
    inline_library(chunks.counter_chunks, math_ops.tanh_chunk, count, split, 0,
                   KT.float32, (dst, src, tmp, split, from_half))

