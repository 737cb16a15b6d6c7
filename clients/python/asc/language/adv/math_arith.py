"""asc.adv's exp, power, xor and axpy (asc-api.md 6.7), each emitted as CANN 8.1's library
sequence for the A2 vector core (docs/adv.md), from `impl/math/<op>/`.

- exp (`exp_common_impl.h`): level 0 is the basic exp instruction over the count. Otherwise
  e^x = e^floor(x) * (1 + f + f^2/2! + ... + f^n/n!), f = x - floor(x), n the Taylor level,
  in float. The temp holds 4 float areas for half (x, f^k/k!, the sum, e^floor(x)), 3 for float
  (no sum: dst holds it), 2 for float with is_reuse_source (src holds x), each its floats / areas
  rounded down to 32 bytes of the source type (8 floats for float, 16 for half). Counter mode,
  the mask reloaded before each step, a PIPE_V barrier after each instruction.
- power (`power_common_impl.h`, `power_float_impl.h`, `power_v220_impl.h`, tensor ^ tensor):
  e^(y ln|x|) in float with the sign and special cases of pow fixed by compares and selects.
  The temp: 256 bytes of select scalars (1.0, NaN), then `chunk` floats per area: 3 (float) or
  6 (half: x, y, the result in float too), and 4 masks of `chunk` bytes; a chunk is
  (bytes - 256) / 4 / 4 (float) or / 7 (half), rounded down to 32.
- xor (`xor_membase_impl.h`): (x | y) & ~(x & y), int16 / uint16, the temp one area of the
  element type.
- axpy (`axpy_common_impl.h`): dst += src * scalar. float: the basic axpy instruction over the
  count. half src: src (and a half dst) cast to float in the temp, muls, add, cast back; the
  scalar rounded to half first.
"""
from __future__ import annotations

import numbers
from typing import Optional

from asc.codegen.builder import require_builder
from asc.language.adv._common import (IN_FLOAT, ONE_BLK_SIZE, documented, element_count,
                                      temp_buffer_of)
from asc.language.basic.common import check_ub, require_local_tensors
from asc.language.core.constexpr import ConstExpr
from asc.language.core.dtype import KnownTypes as KT
from asc.language.core.hints import RuntimeInt, RuntimeNumber
from asc.language.core.ir_value import cast, is_runtime_number, to_value
from asc.language.core.tensor import LocalTensor

__all__ = ["exp", "power", "xor", "axpy"]

_SCALAR_BYTES = 256  # power's select scalars: ONE_REPEAT_BYTE_SIZE
_POWER_AREAS = {KT.float32: 4, KT.float16: 7}  # floats of temp per chunk element
_INT_POWER_AREAS = 6  # int32s of temp per chunk element (TENSOR_TENSOR_INT)
_EXP_AREAS = {(KT.float16, False): 4, (KT.float16, True): 4, (KT.float32, False): 3,
              (KT.float32, True): 2}
_FLOATS = (KT.float16, KT.float32)


def _tensors(api, **tensors):
    require_builder(api)
    require_local_tensors(api, **tensors)
    check_ub(api, **tensors)


def _reuse_flag(api, is_reuse_source):
    flag = ConstExpr.unwrap(is_reuse_source)
    if not isinstance(flag, bool):
        raise TypeError(f"{api}(): is_reuse_source must be a compile-time bool (True or False)")
    return flag


def _same_float(api, **tensors):
    dtypes = [t.dtype for t in tensors.values()]
    if dtypes[0] not in _FLOATS or any(d != dtypes[0] for d in dtypes):
        named = ", ".join(f"{k} {t.dtype}" for k, t in tensors.items())
        raise TypeError(f"{api}(): {', '.join(tensors)} must all be float16 or all float32, "
                        f"got {named}")


def _not_aliased(api, dst, why, **sources):
    for name, src in sources.items():
        if dst is src:
            raise ValueError(f"{api}(): dst must not be {name}: {why}. Pass another dst tensor")


@documented("Element-wise dst = e^src: the basic exp at level 0, else a Taylor sequence.",
            "count is required here; taylor_expand_level is a compile-time int 0 .. 255. "
            "Level 0 is the basic exp "
            "instruction over the count (no temp). Level n computes e^floor(x) * (1 + f + "
            "f^2/2! + ... + f^n/n!), f = x - floor(x), in float32. With is_reuse_source "
            "(float32) x is kept in src, which is overwritten, and dst must not be src; "
            "otherwise dst may be src. Not the basic asc.exp instruction, which stays as it is.",
            numerics="level 0 as the basic exp: the host libm's expf in float32, a float16 "
            "result rounded once (nearest-even). Level n: " + IN_FLOAT[0].lower() + IN_FLOAT[1:]
            + "(CAST_NONE: nearest-even); floor is a CAST_FLOOR float -> float cast. Worst "
            "error against float64 (docs/adv.md): float32 5.29 ULP at level 10 (the float "
            "roundings of the sum and product), 9952 ULP at level 5 on [-1, 1]; float16 0.50 "
            "ULP at level 10, 1.59 at level 5. At level >= 1 +-inf gives NaN.")
def exp(dst: LocalTensor, src: LocalTensor, count: RuntimeInt, taylor_expand_level: int,
        temp_buffer: Optional[LocalTensor] = None, is_reuse_source: bool = False) -> None:
    api = "exp"
    _tensors(api, dst=dst, src=src)
    _same_float(api, dst=dst, src=src)
    reuse = _reuse_flag(api, is_reuse_source)
    level = ConstExpr.unwrap(taylor_expand_level)
    if isinstance(level, bool) or not isinstance(level, numbers.Integral) or not 0 <= level < 256:
        raise TypeError(f"{api}(): taylor_expand_level must be a compile-time int in 0..255 (the "
                        f"library's uint8 template argument), got {taylor_expand_level!r}")
    count = element_count(api, count, ("src", src), ("dst", dst))
    from asc.codegen.function_visitor import inline_library
    from asc.language.basic.vec import exp as vec_exp
    if level == 0:
        temp_buffer_of(api, temp_buffer, 0, "none: level 0 is the basic exp")
        vec_exp(dst, src, count)
        return
    from_half = src.dtype == KT.float16
    if reuse and not from_half:
        _not_aliased(api, dst, "with is_reuse_source the sequence copies each chunk of src to "
                     "src's start, over the results already in dst", src=src)
    areas = _EXP_AREAS[(src.dtype, reuse)]
    align = ONE_BLK_SIZE // src.dtype.sizeof()
    tmp, nbytes = temp_buffer_of(api, temp_buffer, areas * align * 4,
                                 f"{areas} areas of {align} floats for {src.dtype}")
    tmp = tmp.reinterpret_cast(KT.float32)
    split = nbytes // 4 // areas // align * align
    if from_half:
        floor_x, power_x, res, int_part = tmp, tmp[split:], tmp[2 * split:], tmp[3 * split:]
    elif reuse:
        floor_x, power_x, res, int_part = src, tmp, None, tmp[split:]
    else:
        floor_x, power_x, res, int_part = tmp, tmp[split:], None, tmp[2 * split:]
    inverses = tuple(1.0 / i for i in range(2, level + 1))
    from asc.language.adv import chunks, math_arith_ops
    inline_library(chunks.counter_chunks, math_arith_ops.exp_chunk, count, split, 1, KT.float32,
                   (dst, src, floor_x, power_x, res, int_part, inverses, from_half))


@documented("Element-wise dst = src0 ^ src1: float16, float32 or int32 tensors.",
            "pyasc's tensor ^ tensor form (a scalar operand is an error). float: e^(y ln|x|) "
            "with pow's signs and special cases fixed by compares and selects; dst may be a "
            "source for float16, not for float32. int32: binary exponentiation, a loop whose "
            "turns the scalar unit decides from reduce_sums of what is left; dst may be src1, "
            "not src0.",
            numerics="float: " + IN_FLOAT[0].lower() + IN_FLOAT[1:] + "(CAST_NONE: "
            "nearest-even). The rounding of ln|x| is multiplied by y, so the error grows with "
            "the result's exponent: worst against float64 (docs/adv.md) float32 8.4 ULP, "
            "float16 0.50 ULP. A NaN operand gives 1 where IEEE gives NaN (the chip's NE "
            "compare is false for NaN). int32: exact integer products, wrapping as int32 "
            "multiplies do; a negative exponent gives trunc(1 / x^|y|).")
def power(dst: LocalTensor, src0: LocalTensor, src1: LocalTensor,
          count: Optional[RuntimeInt] = None, temp_buffer: Optional[LocalTensor] = None,
          is_reuse_source: bool = False) -> None:
    api = "power"
    for name, arg in (("src0", src0), ("src1", src1)):
        if is_runtime_number(arg):
            raise TypeError(f"{api}(): {name} must be a LocalTensor: pyasc's power is tensor ^ "
                            f"tensor (Ascend C's scalar forms are not part of its API)")
    _tensors(api, dst=dst, src0=src0, src1=src1)
    if src0.dtype == KT.int32:
        _power_int(api, dst, src0, src1, count, temp_buffer, is_reuse_source)
        return
    _same_float(api, dst=dst, src0=src0, src1=src1)
    _reuse_flag(api, is_reuse_source)
    count = element_count(api, count, ("src0", src0), ("src1", src1), ("dst", dst))
    from_half = src0.dtype == KT.float16
    if not from_half:
        _not_aliased(api, dst, "the float sequence writes dst first and reads the sources "
                     "after", src0=src0, src1=src1)
    areas = _POWER_AREAS[src0.dtype]
    tmp, nbytes = temp_buffer_of(api, temp_buffer, _SCALAR_BYTES + areas * ONE_BLK_SIZE * 4,
                                 f"{_SCALAR_BYTES} bytes of scalars and {areas} chunks of 32 "
                                 f"floats for {src0.dtype}")
    split = (nbytes - _SCALAR_BYTES) // 4 // areas // ONE_BLK_SIZE * ONE_BLK_SIZE
    floats = tmp.reinterpret_cast(KT.float32)
    scalars, work = floats, floats[_SCALAR_BYTES // 4:]
    from asc.codegen.function_visitor import inline_library
    from asc.language.adv import chunks, math_arith_ops
    inline_library(math_arith_ops.power_prologue, scalars)
    inline_library(chunks.counter_chunks, math_arith_ops.power_chunk, count, split, 1,
                   src0.dtype, (dst, src0, src1, scalars, work, split, from_half))


def _power_int(api, dst, src0, src1, count, temp_buffer, is_reuse_source):
    """int32 x^y as CANN's CommonPowerI: the temp as int32, six areas of a chunk (five int32
    areas, two bit masks and a scalar block in the sixth)."""
    if src1.dtype != KT.int32 or dst.dtype != KT.int32:
        raise TypeError(f"{api}(): dst, src0 and src1 must all be int32, got {dst.dtype}, "
                        f"{src0.dtype} and {src1.dtype}")
    _reuse_flag(api, is_reuse_source)
    count = element_count(api, count, ("src0", src0), ("src1", src1), ("dst", dst))
    _not_aliased(api, dst, "the int sequence writes dst and multiplies by src0 after",
                 src0=src0)
    tmp, nbytes = temp_buffer_of(api, temp_buffer, _INT_POWER_AREAS * ONE_BLK_SIZE * 4,
                                 f"{_INT_POWER_AREAS} chunks of 32 int32")
    split = nbytes // 4 // _INT_POWER_AREAS // ONE_BLK_SIZE * ONE_BLK_SIZE
    from asc.codegen.function_visitor import inline_library
    from asc.language.adv import chunks, math_arith_ops
    inline_library(chunks.counter_chunks, math_arith_ops.power_int_chunk, count, split, 1,
                   KT.int32, (dst, src0, src1, tmp.reinterpret_cast(KT.int32), split))


@documented("Element-wise dst = src0 XOR src1, bit by bit, for int16 or uint16.",
            "Computed as (x | y) & ~(x & y). dst must not be src0 or src1 (its first and writes "
            "dst while its or reads the sources, with no barrier between).",
            numerics="exact (bits).")
def xor(dst: LocalTensor, src0: LocalTensor, src1: LocalTensor, count: Optional[RuntimeInt] = None,
        temp_buffer: Optional[LocalTensor] = None, is_reuse_source: bool = False) -> None:
    api = "xor"
    _tensors(api, dst=dst, src0=src0, src1=src1)
    if src0.dtype not in (KT.int16, KT.uint16) or src1.dtype != src0.dtype \
            or dst.dtype != src0.dtype:
        raise TypeError(f"{api}(): dst, src0 and src1 must all be int16 or all uint16 (Ascend "
                        f"C's Xor), got {dst.dtype}, {src0.dtype} and {src1.dtype}")
    _reuse_flag(api, is_reuse_source)
    count = element_count(api, count, ("src0", src0), ("src1", src1), ("dst", dst))
    _not_aliased(api, dst, "the sequence's first and writes dst while its or reads the sources, "
                 "with no barrier between", src0=src0, src1=src1)
    esize = src0.dtype.sizeof()
    tmp, nbytes = temp_buffer_of(api, temp_buffer, ONE_BLK_SIZE * esize,
                                 f"one chunk of 32 {src0.dtype} elements")
    split = nbytes // esize // ONE_BLK_SIZE * ONE_BLK_SIZE
    from asc.codegen.function_visitor import inline_library
    from asc.language.adv import chunks, math_arith_ops
    inline_library(chunks.counter_chunks, math_arith_ops.xor_chunk, count, split, ONE_BLK_SIZE,
                   src0.dtype, (dst, src0, src1, tmp.reinterpret_cast(src0.dtype)))


def _half_scalar(scalar):
    """The scalar as Ascend C passes it for a half source: rounded to half, then widened."""
    scalar = ConstExpr.unwrap(scalar)
    if isinstance(scalar, numbers.Real):
        import numpy as np
        return float(np.float16(scalar))
    return cast(to_value(scalar, KT.float16), KT.float32)


@documented("Element-wise dst = dst + src * scalar, the product rounded before the add.",
            "(src, dst) is float16 / float16, float16 / float32 or float32 / float32; scalar is "
            "a number or a traced scalar. float32: the basic axpy instruction (no temp). "
            "float16 src: src (and a float16 dst) cast to float32 in the temp, muls, add, cast "
            "back. dst may be src for the same-type pairs.",
            numerics="float32: the product rounded to float32 nearest-even, then the sum "
            "(two roundings, the basic axpy). float16 src: the scalar is rounded to float16 "
            "first (nearest-even: 0.1 multiplies as 0.0999755859375), the product and the sum "
            "are rounded to float32, and a float16 dst is rounded once at the end (CAST_NONE, "
            "nearest-even). Bit-exact against a numpy model of these roundings (docs/adv.md).")
def axpy(dst: LocalTensor, src: LocalTensor, scalar: RuntimeNumber,
         count: Optional[RuntimeInt] = None, temp_buffer: Optional[LocalTensor] = None,
         is_reuse_source: bool = False) -> None:
    api = "axpy"
    _tensors(api, dst=dst, src=src)
    pairs = ((KT.float16, KT.float16), (KT.float16, KT.float32), (KT.float32, KT.float32))
    if (src.dtype, dst.dtype) not in pairs:
        raise TypeError(f"{api}(): (src, dst) must be float16 / float16, float16 / float32 or "
                        f"float32 / float32 (Ascend C's Axpy), got {src.dtype} / {dst.dtype}")
    if not is_runtime_number(scalar):
        raise TypeError(f"{api}(): scalar must be a number or a traced scalar, got "
                        f"{type(scalar).__name__}")
    _reuse_flag(api, is_reuse_source)
    count = element_count(api, count, ("src", src), ("dst", dst))
    if src.dtype == KT.float32:
        temp_buffer_of(api, temp_buffer, 0, "none: float is the basic axpy")
        from asc.language.basic.vec import axpy as vec_axpy
        vec_axpy(dst, src, scalar, count)
        return
    to_half = dst.dtype == KT.float16
    areas = 2 if to_half else 1
    tmp, nbytes = temp_buffer_of(api, temp_buffer, areas * ONE_BLK_SIZE * 4,
                                 f"{areas} chunk(s) of 32 floats for a {dst.dtype} dst")
    split = nbytes // 4 // areas // ONE_BLK_SIZE * ONE_BLK_SIZE
    from asc.codegen.function_visitor import inline_library
    from asc.language.adv import chunks, math_arith_ops
    inline_library(chunks.counter_chunks, math_arith_ops.axpy_chunk, count, split, ONE_BLK_SIZE,
                   dst.dtype, (dst, src, _half_scalar(scalar), tmp.reinterpret_cast(KT.float32),
                               split, to_half))
