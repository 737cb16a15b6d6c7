"""The kernels of the softmax tests: one tile of rows x cols copied in with its ShapeInfo set,
one asc.adv softmax call, the result and the per-row states copied out."""
import asc
from adv_kernels import temp_buffer


@asc.jit
def softmax_kernel(x: asc.GlobalAddress, y: asc.GlobalAddress, s: asc.GlobalAddress,
                   mx: asc.GlobalAddress, rows: asc.ConstExpr[int], cols: asc.ConstExpr[int],
                   tmp_bytes: asc.ConstExpr[int], in_place: asc.ConstExpr[bool],
                   host_tiling: asc.ConstExpr[bool], tiling_in: asc.adv.SoftmaxTiling,
                   basic_block: asc.ConstExpr[bool]):
    """y = softmax(x) by rows; s and mx the row sums and maxima, one 32-byte block a row.
    tmp_bytes > 0: a temp buffer of that size, else the framework's scratch. host_tiling: the
    tiling argument, else an all-zero SoftmaxTiling built here."""
    n = rows * cols
    state = rows * (32 // s.dtype.sizeof())
    gx = asc.GlobalTensor()
    gy = asc.GlobalTensor()
    gs = asc.GlobalTensor()
    gm = asc.GlobalTensor()
    gx.set_global_buffer(x, n)
    gy.set_global_buffer(y, n)
    gs.set_global_buffer(s, state)
    gm.set_global_buffer(mx, state)
    pipe = asc.TPipe()
    qin = asc.TQue(asc.TPosition.VECIN, 1)
    qout = asc.TQue(asc.TPosition.VECOUT, 1)
    qstate = asc.TQue(asc.TPosition.VECOUT, 2)
    pipe.init_buffer(qin, 1, n * x.dtype.sizeof())
    pipe.init_buffer(qout, 1, n * y.dtype.sizeof())
    pipe.init_buffer(qstate, 2, state * s.dtype.sizeof())
    tmp = temp_buffer(pipe, tmp_bytes)
    src = qin.alloc_tensor(x.dtype)
    asc.data_copy(src, gx, n)
    qin.enque(src)
    src = qin.deque(x.dtype)
    src.set_shape_info(asc.ShapeInfo(asc.array(asc.int32, (rows, cols))))
    dst = qout.alloc_tensor(y.dtype)
    dst.set_shape_info(asc.ShapeInfo(asc.array(asc.int32, (rows, cols))))
    sums = qstate.alloc_tensor(s.dtype)
    maxes = qstate.alloc_tensor(s.dtype)
    # The library's broadcast reads the state of whole 8-row groups (docs/adv.md, softmax).
    asc.duplicate(sums, 0.0, state)
    asc.duplicate(maxes, 0.0, state)
    asc.pipe_barrier(asc.PipeID.PIPE_V)
    tiling = tiling_in
    if not host_tiling:
        tiling = asc.adv.SoftmaxTiling()
    target = dst
    if in_place:
        target = src
    asc.adv.softmax(target, sums, maxes, src, tiling, temp_buffer=tmp, basic_block=basic_block)
    if in_place:
        asc.adds(dst, src, 0.0, n)
    qout.enque(dst)
    qstate.enque(sums)
    qstate.enque(maxes)
    qin.free_tensor(src)
    dst = qout.deque(y.dtype)
    sums = qstate.deque(s.dtype)
    maxes = qstate.deque(s.dtype)
    asc.data_copy(gy, dst, n)
    asc.data_copy(gs, sums, state)
    asc.data_copy(gm, maxes, state)
    qout.free_tensor(dst)
    qstate.free_tensor(sums)
    qstate.free_tensor(maxes)


@asc.jit
def flash_kernel(x: asc.GlobalAddress, x2: asc.GlobalAddress, y: asc.GlobalAddress,
                 y2: asc.GlobalAddress, s: asc.GlobalAddress, mx: asc.GlobalAddress,
                 e: asc.GlobalAddress, rows: asc.ConstExpr[int], cols: asc.ConstExpr[int],
                 tmp_bytes: asc.ConstExpr[int], by_shape_info: asc.ConstExpr[bool],
                 tiling: asc.adv.SoftmaxTiling, config: asc.ConstExpr):
    """Two KV tiles of a flash softmax: y = the first call on x, y2 = the update on x2 with the
    state tensors as both inputs and outputs (as the attention example passes them); s, mx the
    final row sums and maxima, e the update's exp_max. by_shape_info: the rows and columns come
    from a SoftMaxShapeInfo, else from the tensor's ShapeInfo."""
    n = rows * cols
    state = rows * (32 // s.dtype.sizeof())
    exp_n = rows * (32 // e.dtype.sizeof())
    g = (asc.GlobalTensor(), asc.GlobalTensor(), asc.GlobalTensor(), asc.GlobalTensor(),
         asc.GlobalTensor(), asc.GlobalTensor(), asc.GlobalTensor())
    g[0].set_global_buffer(x, n)
    g[1].set_global_buffer(x2, n)
    g[2].set_global_buffer(y, n)
    g[3].set_global_buffer(y2, n)
    g[4].set_global_buffer(s, state)
    g[5].set_global_buffer(mx, state)
    g[6].set_global_buffer(e, exp_n)
    pipe = asc.TPipe()
    qin = asc.TQue(asc.TPosition.VECIN, 2)
    qout = asc.TQue(asc.TPosition.VECOUT, 2)
    qstate = asc.TQue(asc.TPosition.VECOUT, 3)
    pipe.init_buffer(qin, 2, n * x.dtype.sizeof())
    pipe.init_buffer(qout, 2, n * y.dtype.sizeof())
    pipe.init_buffer(qstate, 3, rows * 32)
    tmp = temp_buffer(pipe, tmp_bytes)
    if tmp_bytes > 0:
        # With rows not a multiple of 8 the library reads temp state it never wrote.
        asc.duplicate(tmp.reinterpret_cast(asc.int16), 0, tmp_bytes // 2)
    a = qin.alloc_tensor(x.dtype)
    b = qin.alloc_tensor(x.dtype)
    asc.data_copy(a, g[0], n)
    asc.data_copy(b, g[1], n)
    qin.enque(a)
    qin.enque(b)
    a = qin.deque(x.dtype)
    b = qin.deque(x.dtype)
    info = None
    if by_shape_info:
        info = asc.adv.SoftMaxShapeInfo(rows, cols, rows, cols)
    else:
        a.set_shape_info(asc.ShapeInfo(asc.array(asc.int32, (rows, cols))))
        b.set_shape_info(asc.ShapeInfo(asc.array(asc.int32, (rows, cols))))
    d1 = qout.alloc_tensor(y.dtype)
    d2 = qout.alloc_tensor(y.dtype)
    sums = qstate.alloc_tensor(s.dtype)
    maxes = qstate.alloc_tensor(s.dtype)
    exp_max = qstate.alloc_tensor(e.dtype)
    # The library's broadcast reads the state of whole 8-row groups (docs/adv.md, softmax).
    asc.duplicate(sums, 0.0, state)
    asc.duplicate(maxes, 0.0, state)
    asc.duplicate(exp_max, 0.0, exp_n)
    asc.pipe_barrier(asc.PipeID.PIPE_V)
    asc.adv.softmax_flash_v2(d1, sums, maxes, a, exp_max, sums, maxes, tiling, info,
                             shared_tmp_buffer=tmp, config=config)
    asc.adv.softmax_flash_v2(d2, sums, maxes, b, exp_max, sums, maxes, tiling, info,
                             shared_tmp_buffer=tmp, is_update=True, config=config)
    qout.enque(d1)
    qout.enque(d2)
    qstate.enque(sums)
    qstate.enque(maxes)
    qstate.enque(exp_max)
    qin.free_tensor(a)
    qin.free_tensor(b)
    d1 = qout.deque(y.dtype)
    d2 = qout.deque(y.dtype)
    sums = qstate.deque(s.dtype)
    maxes = qstate.deque(s.dtype)
    exp_max = qstate.deque(e.dtype)
    asc.data_copy(g[2], d1, n)
    asc.data_copy(g[3], d2, n)
    asc.data_copy(g[4], sums, state)
    asc.data_copy(g[5], maxes, state)
    asc.data_copy(g[6], exp_max, exp_n)
    qout.free_tensor(d1)
    qout.free_tensor(d2)
    qstate.free_tensor(sums)
    qstate.free_tensor(maxes)
    qstate.free_tensor(exp_max)
