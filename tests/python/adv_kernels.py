"""The kernel of the adv library's element-wise tests: one tile copied in, one asc.adv call, the
tile copied out, through TQues as pyasc's examples write it."""
import numpy as np

import asc


@asc.jit
def temp_buffer(pipe, tmp_bytes: asc.ConstExpr[int]):
    """A uint8 temp buffer of tmp_bytes from its own TBuf, or None (the library then takes the
    framework's scratch) when tmp_bytes is 0."""
    tmp = None
    if tmp_bytes > 0:
        tbuf = asc.TBuf(asc.TPosition.VECCALC)
        pipe.init_buffer(tbuf, tmp_bytes)
        tmp = tbuf.get(asc.uint8, tmp_bytes)
    return tmp


@asc.jit
def adv_kernel(x: asc.GlobalAddress, y: asc.GlobalAddress, n: asc.ConstExpr[int],
               op: asc.ConstExpr[str], count, scale: float, offset: float,
               tmp_bytes: asc.ConstExpr[int], config: asc.ConstExpr, reserve: asc.ConstExpr[int],
               in_place: asc.ConstExpr[bool]):
    """y[:n] = op(x[:n]) on `count` elements, the rest zero. tmp_bytes > 0: a temp buffer of that
    size, else the framework's scratch; `reserve` bytes of UB taken first leave the scratch less;
    in_place: the op writes src, then src is copied to dst."""
    gx = asc.GlobalTensor()
    gy = asc.GlobalTensor()
    gx.set_global_buffer(x, n)
    gy.set_global_buffer(y, n)
    pipe = asc.TPipe()
    qin = asc.TQue(asc.TPosition.VECIN, 1)
    qout = asc.TQue(asc.TPosition.VECOUT, 1)
    pipe.init_buffer(qin, 1, n * x.dtype.sizeof())
    pipe.init_buffer(qout, 1, n * y.dtype.sizeof())
    if reserve > 0:
        filler = asc.TBuf(asc.TPosition.VECCALC)
        pipe.init_buffer(filler, reserve)
    tmp = temp_buffer(pipe, tmp_bytes)
    src = qin.alloc_tensor(x.dtype)
    asc.data_copy(src, gx, n)
    qin.enque(src)
    src = qin.deque(x.dtype)
    dst = qout.alloc_tensor(y.dtype)
    asc.duplicate(dst.reinterpret_cast(asc.int16), 0, n * y.dtype.sizeof() // 2)
    asc.pipe_barrier(asc.PipeID.PIPE_V)
    target = dst
    if in_place:
        target = src
    if op == "quant":
        asc.adv.quant(dst, src, scale, offset, count, temp_buffer=tmp, config=config)
    elif op == "tanh":
        asc.adv.tanh(target, src, count, tmp)
    if in_place:
        asc.adds(dst, src, 0.0, n)
    qout.enque(dst)
    qin.free_tensor(src)
    dst = qout.deque(y.dtype)
    asc.data_copy(gy, dst, n)
    qout.free_tensor(dst)


def assert_clean(report):
    assert report.status == "OK"
    assert (report.check.races, report.check.errors, report.check.warnings) == (0, 0, 0), \
        report.check.summary


@asc.jit
def adv_binary_kernel(x0: asc.GlobalAddress, x1: asc.GlobalAddress, y: asc.GlobalAddress,
                      n: asc.ConstExpr[int], op: asc.ConstExpr, count, scalar: float,
                      tmp_bytes: asc.ConstExpr[int]):
    """y[:n] = op(x0, x1) on `count` elements, the rest zero (tmp_bytes as adv_kernel's): op
    "swiglu" with the runtime `scalar` as its beta, else `op(dst, src0, src1, count,
    temp_buffer)`. y may have its own dtype."""
    g0 = asc.GlobalTensor()
    g1 = asc.GlobalTensor()
    gy = asc.GlobalTensor()
    g0.set_global_buffer(x0, n)
    g1.set_global_buffer(x1, n)
    gy.set_global_buffer(y, n)
    pipe = asc.TPipe()
    qin = asc.TQue(asc.TPosition.VECIN, 2)
    qout = asc.TQue(asc.TPosition.VECOUT, 1)
    pipe.init_buffer(qin, 2, n * x0.dtype.sizeof())
    pipe.init_buffer(qout, 1, n * y.dtype.sizeof())
    tmp = temp_buffer(pipe, tmp_bytes)
    a = qin.alloc_tensor(x0.dtype)
    b = qin.alloc_tensor(x1.dtype)
    asc.data_copy(a, g0, n)
    asc.data_copy(b, g1, n)
    qin.enque(a)
    qin.enque(b)
    a = qin.deque(x0.dtype)
    b = qin.deque(x1.dtype)
    dst = qout.alloc_tensor(y.dtype)
    asc.duplicate(dst.reinterpret_cast(asc.int16), 0, n * y.dtype.sizeof() // 2)
    asc.pipe_barrier(asc.PipeID.PIPE_V)
    if op == "swiglu":
        asc.adv.swiglu(dst, a, b, scalar, shared_tmp_buffer=tmp, cal_count=count)
    else:
        op(dst, a, b, count, tmp)
    qout.enque(dst)
    qin.free_tensor(a)
    qin.free_tensor(b)
    dst = qout.deque(y.dtype)
    asc.data_copy(gy, dst, n)
    qout.free_tensor(dst)


@asc.jit
def math_kernel(x: asc.GlobalAddress, y: asc.GlobalAddress, n: asc.ConstExpr[int],
                op: asc.ConstExpr, count, tmp_bytes: asc.ConstExpr[int],
                in_place: asc.ConstExpr[bool]):
    """y[:n] = op(x[:n]) on `count` elements, the rest zero: `op(dst, src, count, temp_buffer)`
    is an element-wise asc.adv call (a functools.partial binds its other arguments). tmp_bytes
    > 0: a temp buffer of that size, else the framework's scratch; in_place: op writes src."""
    gx = asc.GlobalTensor()
    gy = asc.GlobalTensor()
    gx.set_global_buffer(x, n)
    gy.set_global_buffer(y, n)
    pipe = asc.TPipe()
    qin = asc.TQue(asc.TPosition.VECIN, 1)
    qout = asc.TQue(asc.TPosition.VECOUT, 1)
    pipe.init_buffer(qin, 1, n * x.dtype.sizeof())
    pipe.init_buffer(qout, 1, n * y.dtype.sizeof())
    tmp = temp_buffer(pipe, tmp_bytes)
    src = qin.alloc_tensor(x.dtype)
    asc.data_copy(src, gx, n)
    qin.enque(src)
    src = qin.deque(x.dtype)
    dst = qout.alloc_tensor(y.dtype)
    asc.duplicate(dst.reinterpret_cast(asc.int16), 0, n * y.dtype.sizeof() // 2)
    asc.pipe_barrier(asc.PipeID.PIPE_V)
    if in_place:
        op(src, src, count, tmp)
        asc.pipe_barrier(asc.PipeID.PIPE_V)
        asc.data_copy(dst, src, n)
    else:
        op(dst, src, count, tmp)
    qout.enque(dst)
    qin.free_tensor(src)
    dst = qout.deque(y.dtype)
    asc.data_copy(gy, dst, n)
    qout.free_tensor(dst)


def ulp_error(got, want, dtype):
    """|got - want| in units of the last place of want in dtype."""
    want = np.asarray(want, np.float64)
    spacing = np.spacing(np.abs(want).astype(dtype)).astype(np.float64)
    return np.abs(got.astype(np.float64) - want) / spacing
