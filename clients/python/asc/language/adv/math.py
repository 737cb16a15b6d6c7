"""asc.adv's element-wise math (asc-api.md 6.7, 10.5), each emitted as Ascend C's library
sequence for the A2 vector core (docs/adv.md). Built: tanh.

tanh (CANN 8.1's `impl/math/tanh/tanh_common_impl.h`): the temp buffer seen as float holds
one chunk per step of the computation (two for a half source: its float copy and the clipped
argument; one for float), each its floats / steps rounded down to a multiple of 32. Counter
mode; per chunk [half: cast to float], mins 8.8, maxs -8.8, muls 2, exp, adds -1 into dst, adds
1, div, [half: cast back], a PIPE_V barrier after each; the tail under its own mask.
"""
from __future__ import annotations

from typing import Optional

from asc.language.adv._common import IN_FLOAT, ONE_BLK_SIZE, documented, float_op_args
from asc.language.core.dtype import KnownTypes as KT
from asc.language.core.hints import RuntimeInt
from asc.language.core.tensor import LocalTensor

__all__ = ["tanh"]

_CHUNK_ELEMENTS = ONE_BLK_SIZE  # a chunk is a multiple of 32 floats


@documented("Element-wise dst = tanh(src), as (e^2x - 1) / (e^2x + 1) of x clipped to +-8.8.",
            "dst may be src (gelu's example calls it so).",
            numerics=IN_FLOAT + "(CAST_NONE: nearest-even). Worst error against float64 "
            "(docs/adv.md): float32 2.24 ULP for |x| >= 0.5, up to 4087 ULP but under 1.3e-7 "
            "absolute nearer 0 (e^2x - 1 cancels); float16 0.50 ULP.")
def tanh(dst: LocalTensor, src: LocalTensor, count: Optional[RuntimeInt] = None,
         temp_buffer: Optional[LocalTensor] = None, is_reuse_source: bool = False) -> None:
    api = "tanh"
    from_half = getattr(src, "dtype", None) == KT.float16
    count, tmp, split = float_op_args(api, dst, src, count, temp_buffer, is_reuse_source,
                              2 if from_half else 1)
    from asc.codegen.function_visitor import inline_library
    from asc.language.adv import chunks, math_ops
    inline_library(chunks.counter_chunks, math_ops.tanh_chunk, count, split, 0,
                   KT.float32, (dst, src, tmp, split, from_half))

