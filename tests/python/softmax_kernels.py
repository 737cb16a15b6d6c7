"""The kernels of the softmax tests: one tile of rows x cols copied in with its ShapeInfo set,
one asc.adv softmax call, the result and the per-row states copied out."""
import asc


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
    tmp = None
    if tmp_bytes > 0:
        tbuf = asc.TBuf(asc.TPosition.VECCALC)
        pipe.init_buffer(tbuf, tmp_bytes)
        tmp = tbuf.get(asc.uint8, tmp_bytes)
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
