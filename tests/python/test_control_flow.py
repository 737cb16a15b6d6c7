"""Traced scalar arithmetic, runtime if/for with carried values, static unrolling, sub-kernels.
Results leave the kernel through `store_scalar` (kernels.py)."""
import numpy as np
import pytest

import asc
import asc.lib.runtime as rt
from kernels import read_slots, scalar_slots, store_scalar


def _c_div(a, b):
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b >= 0) else -q


@asc.jit
def arith_kernel(out: asc.GlobalAddress, a: int, b: int):
    store_scalar(out, 0, a // b)
    store_scalar(out, 1, a % b)
    store_scalar(out, 2, a / b)          # integer / truncates too
    store_scalar(out, 3, -a)
    store_scalar(out, 4, a * b + 1)
    store_scalar(out, 5, 7 // b)         # Python left operand takes the traced dtype
    store_scalar(out, 6, 7 % b)
    store_scalar(out, 7, a if a > 0 else -a)
    store_scalar(out, 8, (a << 2) + (a >> 1))
    store_scalar(out, 9, (a & 0xFF) ^ (b | 1))
    store_scalar(out, 10, 1.9 + a)       # float folded to int32: 1 + a
    store_scalar(out, 11, asc.ceildiv(a, 4))
    store_scalar(out, 12, (a > b) + 1)   # 1-bit comparison promoted to int32


@pytest.mark.parametrize("a,b", [(-7, 2), (7, -2), (-7, -2), (9, 4), (-9, 4), (0, 3)])
def test_traced_int_arithmetic_is_c_like(device, a, b):
    out = scalar_slots(13)
    arith_kernel[1, rt.current_stream()](out, a, b)
    expected = [_c_div(a, b), a - _c_div(a, b) * b, _c_div(a, b), -a, a * b + 1, _c_div(7, b),
                7 - _c_div(7, b) * b, abs(a), (a << 2) + (a >> 1), (a & 0xFF) ^ (b | 1), 1 + a,
                _c_div(a + 3, 4), int(a > b) + 1]
    assert read_slots(out) == expected


@asc.jit
def compare_kernel(out: asc.GlobalAddress, a: int, b: int):
    ans = 0
    if a > b:
        ans += 1
    store_scalar(out, 0, ans)
    if (a > 0) and (b > 0):
        both = 1
    else:
        both = 0
    store_scalar(out, 1, both)           # assigned on both paths: visible after the if
    if (a == b) or (a == 0):
        store_scalar(out, 2, 1)
    if not (a < b):
        store_scalar(out, 3, 1)
    if a < 0:
        sign = -1
    elif a == 0:
        sign = 0
    else:
        sign = 1
    store_scalar(out, 4, sign)


@pytest.mark.parametrize("a,b", [(3, 2), (2, 3), (0, 5), (-4, -4), (5, 5)])
def test_runtime_if(device, a, b):
    out = scalar_slots(5)
    compare_kernel[1, rt.current_stream()](out, a, b)
    sign = (a > 0) - (a < 0)
    assert read_slots(out) == [int(a > b), int(a > 0 and b > 0), int(a == b or a == 0),
                               int(not a < b), sign]


@asc.jit
def loop_kernel(out: asc.GlobalAddress, n: int, step: int):
    total = 0                            # Python int carried through the loop (promoted)
    count = n - n                        # traced int32 carried
    for i in range(n):
        total = total + i
        if i % 3 == 0:
            count += 1
    store_scalar(out, 0, total)
    store_scalar(out, 1, count)
    acc = n * 0 + 1
    for i in asc.range(1, n, step):
        for j in range(2):
            acc = (acc * 3 + i + j) % 1000
    store_scalar(out, 2, acc)
    down = 0
    for k in range(n, 0, -2):           # negative static step
        down = down * 10 + k
    store_scalar(out, 3, down)
    unrolled = n * 0
    for s in asc.static_range(4):
        unrolled = unrolled + s * n
    store_scalar(out, 4, unrolled)


@pytest.mark.parametrize("n,step", [(0, 1), (1, 1), (7, 2), (10, 3)])
def test_runtime_for_with_carried_values(device, n, step):
    out = scalar_slots(5)
    loop_kernel[1, rt.current_stream()](out, n, step)
    acc = 1
    for i in range(1, n, step):
        for j in range(2):
            acc = (acc * 3 + i + j) % 1000
    down = 0
    for k in range(n, 0, -2):
        down = down * 10 + k
    assert read_slots(out) == [sum(range(n)), len(range(0, n, 3)), acc, down, 6 * n]


@asc.jit
def tensor_carry_kernel(src: asc.GlobalAddress, dst: asc.GlobalAddress, tiles: int):
    """A GlobalTensor re-assigned inside a runtime loop is carried (its address is loop state)."""
    src_gm = asc.GlobalTensor()
    src_gm.set_global_buffer(src)
    dst_gm = asc.GlobalTensor()
    dst_gm.set_global_buffer(dst)
    ub = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 0, 8)
    for _ in range(tiles):
        asc.data_copy(ub, src_gm, 8)
        asc.set_flag(asc.HardEvent.MTE2_MTE3, 0)
        asc.wait_flag(asc.HardEvent.MTE2_MTE3, 0)
        asc.data_copy(dst_gm, ub, 8)
        asc.set_flag(asc.HardEvent.MTE3_MTE2, 0)
        asc.wait_flag(asc.HardEvent.MTE3_MTE2, 0)
        src_gm = src_gm[16:]
        dst_gm = dst_gm[8:]


def test_tensor_carried_through_loop(device):
    src = np.arange(64, dtype=np.float32)
    dst = np.zeros(32, dtype=np.float32)
    tensor_carry_kernel[1, rt.current_stream()](src, dst, 4)
    assert np.array_equal(dst, src.reshape(4, 16)[:, :8].reshape(-1))


@asc.jit
def split(n, parts: asc.ConstExpr[int] = 2, scale=1):
    chunk = n // parts
    return chunk * scale, n - chunk * parts


@asc.jit
def subkernel_kernel(out: asc.GlobalAddress, n: int):
    chunk, rest = split(n)
    store_scalar(out, 0, chunk)
    store_scalar(out, 1, rest)
    pair = split(n, 3, scale=10)
    store_scalar(out, 2, pair[0])
    store_scalar(out, 3, pair[1])


def test_subkernel_constexpr_defaults_and_tuple_return(device):
    out = scalar_slots(4)
    subkernel_kernel[1, rt.current_stream()](out, 17)
    assert read_slots(out) == [8, 1, 50, 2]
