"""asc.adv.concat and asc.adv.extract (asc-api.md 6.7): the helpers around `asc.sort`, as CANN 8.1
has them for the A2 vector core (`__CCE_AICORE__ >= 220` in
`basic_api/inner_interface/inner_kernel_operator_proposal_intf.cppm`; docs/adv.md).

On A2, sort32 takes the values and their uint32 indices as two tensors and writes 8-byte
structures: the value at byte 0 (a half value's bytes 2-3 zero), the index at byte 4. So
- Concat emits no instruction: `concatLocal = srcLocal`, the dst handle becomes src (Ascend C
  takes it by reference, so the caller's dst sees src's buffer afterwards);
- Extract is two gather_masks in normal mode (vreducev2, 256 bytes an iteration, src0 repeat
  stride 8 blocks) with a PIPE_V barrier between them: the values by built-in pattern 1 (float:
  the even 4-byte words) or 3 (half: the first half of every 4), `repeat_time` iterations; the
  indices as uint32 by pattern 2 (the odd words), `repeat_time` iterations for float and twice
  that for half. An iteration holds 32 structures, so a half extract reads 512 * repeat_time
  bytes of src for the indices and writes 64 * repeat_time of them, twice the values.
"""
from __future__ import annotations

from asc.codegen.builder import require_builder
from asc.language.adv._common import static_int
from asc.language.basic.common import check_ub, require_local_tensors, runtime_int
from asc.language.core.dtype import KnownTypes as KT
from asc.language.core.hints import RuntimeInt
from asc.language.core.tensor import LocalTensor
from asc.language.core.types import GatherMaskParams

__all__ = ["concat", "extract"]

_MAX_REPEAT = 255  # the library's ASCENDC_CHECK_VALUE_RANGE(repeatTimes, 0, 255)
_REPEAT_BLOCKS = 8  # DEFAULT_REPEAT_STRIDE: one iteration is 8 blocks of 32 bytes further on


def _repeat(api, repeat_time):
    if not runtime_int(repeat_time):
        raise TypeError(f"{api}(): repeat_time must be an int or a traced integer, got "
                        f"{type(repeat_time).__name__}")
    value = static_int(repeat_time)
    if value is not None and not 0 <= value <= _MAX_REPEAT:
        raise ValueError(f"{api}(): repeat_time must be 0..{_MAX_REPEAT}, got {value}")
    return repeat_time


def _values(api, **tensors):
    require_local_tensors(api, **tensors)
    check_ub(api, **tensors)
    for name, t in tensors.items():
        if t.dtype not in (KT.float16, KT.float32):
            raise TypeError(f"{api}(): {name} must be float16 or float32, got {t.dtype}")
    dtypes = {t.dtype for t in tensors.values()}
    if len(dtypes) > 1:
        names = ", ".join(f"{n} {t.dtype}" for n, t in tensors.items())
        raise TypeError(f"{api}(): the tensors must have one dtype, got {names}")


def concat(dst: LocalTensor, src: LocalTensor, tmp: LocalTensor, repeat_time: RuntimeInt) -> None:
    """Prepares values for asc.sort: on A2, dst becomes src (no instruction).

    `asc.adv.concat(dst, src, tmp, repeat_time)` (asc-api.md 6.7, Ascend C's Concat): the
    library's Concat is `concatLocal = srcLocal` for A2, which takes dst by reference, so the
    caller's dst tensor is rebound to src's buffer; tmp is not used. dst, src and tmp are float16
    or float32 UB tensors of one dtype; repeat_time is 0..255. A dst made outside a runtime loop or
    `if` cannot be concatenated inside it (the rebinding would leak out)."""
    api = "concat"
    require_builder(api)
    _values(api, dst=dst, src=src, tmp=tmp)
    _repeat(api, repeat_time)
    dst._bind(src, api)


def extract(dst_value: LocalTensor, dst_index: LocalTensor, src: LocalTensor,
            repeat_time: RuntimeInt) -> None:
    """Splits sorted 8-byte structures into their values and their uint32 indices.

    `asc.adv.extract(dst_value, dst_index, src, repeat_time)` (asc-api.md 6.7, Ascend C's
    Extract): two gather_masks in normal mode with a PIPE_V barrier between them, 32 structures an
    iteration: the values (float16 or float32, src's dtype) by built-in pattern 1 (float) or 3
    (half), the indices (dst_index uint32) by pattern 2. For float16 the index gather runs
    2 * repeat_time iterations: 64 * repeat_time indices for 32 * repeat_time values, the second
    half being whatever follows the structures (docs/adv.md, "concat, extract")."""
    api = "extract"
    require_builder(api)
    _values(api, dst_value=dst_value, src=src)
    require_local_tensors(api, dst_index=dst_index)
    check_ub(api, dst_index=dst_index)
    if dst_index.dtype != KT.uint32:
        raise TypeError(f"{api}(): dst_index must be uint32, got {dst_index.dtype}")
    repeat_time = _repeat(api, repeat_time)
    from asc.language.basic.sync import pipe_barrier
    from asc.language.basic.vec import gather_mask
    from asc.language.core.enums import PipeID
    half = src.dtype == KT.float16
    gather_mask(dst_value, src, 3 if half else 1, False, 0,
                GatherMaskParams(1, repeat_time, _REPEAT_BLOCKS, 0))
    pipe_barrier(PipeID.PIPE_V)
    gather_mask(dst_index, src.reinterpret_cast(KT.uint32), 2, False, 0,
                GatherMaskParams(1, repeat_time * 2 if half else repeat_time, _REPEAT_BLOCKS, 0))
