"""Kernels of the framework tests (TPipe, TQue, TBuf, TBufPool, LocalTensorAuto), written the way
pyasc's tutorial 02, test_vadd and the TBufPool documentation write them."""
import numpy as np

import asc
import asc.lib.runtime as rt

TILE_NUM = 8


# ---- tutorial 02: double-buffered add with copy_in / compute / copy_out sub-kernels -------------

@asc.jit
def copy_in(i, x_gm: asc.GlobalTensor, y_gm: asc.GlobalTensor, in_queue_x: asc.TQue,
            in_queue_y: asc.TQue, tile_length):
    x_local = in_queue_x.alloc_tensor(x_gm.dtype)
    y_local = in_queue_y.alloc_tensor(y_gm.dtype)
    asc.data_copy(x_local, x_gm[i * tile_length:], tile_length)
    asc.data_copy(y_local, y_gm[i * tile_length:], tile_length)
    in_queue_x.enque(x_local)
    in_queue_y.enque(y_local)


@asc.jit
def compute(in_queue_x: asc.TQue, in_queue_y: asc.TQue, out_queue_z: asc.TQue,
            dtype: asc.ConstExpr, tile_length):
    x_local = in_queue_x.deque(dtype)
    y_local = in_queue_y.deque(dtype)
    z_local = out_queue_z.alloc_tensor(dtype)
    asc.add(z_local, x_local, y_local, tile_length)
    out_queue_z.enque(z_local)
    in_queue_x.free_tensor(x_local)
    in_queue_y.free_tensor(y_local)


@asc.jit
def copy_out(i, z_gm: asc.GlobalTensor, out_queue_z: asc.TQue, tile_length):
    z_local = out_queue_z.deque(z_gm.dtype)
    asc.data_copy(z_gm[i * tile_length:], z_local, tile_length)
    out_queue_z.free_tensor(z_local)


@asc.jit
def add_framework_kernel(x: asc.GlobalAddress, y: asc.GlobalAddress, z: asc.GlobalAddress,
                         block_length: int, buffer_num: asc.ConstExpr[int]):
    offset = asc.get_block_idx() * block_length
    x_gm = asc.GlobalTensor()
    y_gm = asc.GlobalTensor()
    z_gm = asc.GlobalTensor()
    x_gm.set_global_buffer(x + offset, block_length)
    y_gm.set_global_buffer(y + offset, block_length)
    z_gm.set_global_buffer(z + offset, block_length)
    tile_length = block_length // TILE_NUM // buffer_num

    pipe = asc.TPipe()
    in_queue_x = asc.TQue(asc.TPosition.VECIN, buffer_num)
    in_queue_y = asc.TQue(asc.TPosition.VECIN, buffer_num)
    out_queue_z = asc.TQue(asc.TPosition.VECOUT, buffer_num)
    pipe.init_buffer(in_queue_x, buffer_num, tile_length * x.dtype.sizeof())
    pipe.init_buffer(que=in_queue_y, num=buffer_num, len=tile_length * y.dtype.sizeof())
    pipe.init_buffer(que=out_queue_z, num=buffer_num, len=tile_length * z.dtype.sizeof())
    for i in range(TILE_NUM * buffer_num):
        copy_in(i, x_gm, y_gm, in_queue_x, in_queue_y, tile_length)
        compute(in_queue_x, in_queue_y, out_queue_z, x.dtype, tile_length)
        copy_out(i, z_gm, out_queue_z, tile_length)


def run_add_framework(x, y, cores, buffer_num, **options):
    z = np.zeros_like(x)
    report = add_framework_kernel[cores, rt.current_stream()](
        x, y, z, x.size // cores, buffer_num=buffer_num, **options)
    return z, report


# ---- the TBufPool two-stage example of the pyasc documentation (seed 000) ----------------------

@asc.jit
def pool_init(pipe: asc.TPipe, tbuf_pool0: asc.TBufPool, tbuf_pool1: asc.TBufPool,
              tbuf_pool2: asc.TBufPool, src_que0: asc.TQue, n):
    pipe.init_buf_pool(tbuf_pool0, 131072)
    tbuf_pool0.init_buffer(que=src_que0, num=1, len=65536)  # Total src0
    tbuf_pool0.init_buf_pool(tbuf_pool1, 65536)
    tbuf_pool0.init_buf_pool(tbuf_pool2, 65536, tbuf_pool1)


@asc.jit
def pool_stage(src0_gm, src1_gm, dst_gm, src_que0, src_que, dst_que, n, subtract: asc.ConstExpr):
    a = src_que0.alloc_tensor(src0_gm.dtype)
    b = src_que.alloc_tensor(src1_gm.dtype)
    asc.data_copy(a, src0_gm, n)
    asc.data_copy(b, src1_gm, n)
    src_que0.enque(a)
    src_que.enque(b)
    a = src_que0.deque(src0_gm.dtype)
    b = src_que.deque(src1_gm.dtype)
    c = dst_que.alloc_tensor(dst_gm.dtype)
    if subtract:
        asc.sub(c, a, b, n)
    else:
        asc.add(c, a, b, n)
    dst_que.enque(c)
    src_que0.free_tensor(a)
    src_que.free_tensor(b)
    c = dst_que.deque(dst_gm.dtype)
    asc.data_copy(dst_gm, c, n)
    dst_que.free_tensor(c)


@asc.jit
def pool_two_stage_kernel(src0: asc.GlobalAddress, src1: asc.GlobalAddress,
                          dst: asc.GlobalAddress, n: asc.ConstExpr[int]):
    src0_global = asc.GlobalTensor()
    src1_global = asc.GlobalTensor()
    dst_global = asc.GlobalTensor()
    src0_global.set_global_buffer(src0)
    src1_global.set_global_buffer(src1)
    dst_global.set_global_buffer(dst)
    pipe = asc.TPipe()
    tbuf_pool0 = asc.TBufPool(asc.TPosition.VECCALC, 8)
    tbuf_pool1 = asc.TBufPool(asc.TPosition.VECCALC, 2)
    tbuf_pool2 = asc.TBufPool(asc.TPosition.VECCALC, 2)
    src_que0 = asc.TQue(asc.TPosition.VECIN, 1)
    src_que1 = asc.TQue(asc.TPosition.VECIN, 1)
    src_que2 = asc.TQue(asc.TPosition.VECIN, 1)
    dst_que0 = asc.TQue(asc.TPosition.VECOUT, 1)
    dst_que1 = asc.TQue(asc.TPosition.VECOUT, 1)
    pool_init(pipe, tbuf_pool0, tbuf_pool1, tbuf_pool2, src_que0, n)
    # stage 1: tbuf_pool1 holds the stage's queues
    tbuf_pool1.init_buffer(que=src_que1, num=1, len=32768)
    tbuf_pool1.init_buffer(que=dst_que0, num=1, len=32768)
    pool_stage(src0_global, src1_global, dst_global, src_que0, src_que1, dst_que0, n, False)
    tbuf_pool1.reset()
    # stage 2: tbuf_pool2 reuses tbuf_pool1's memory
    tbuf_pool2.init_buffer(src_que2, num=1, len=32768)
    tbuf_pool2.init_buffer(dst_que1, num=1, len=32768)
    pool_stage(src0_global, src1_global, dst_global[n:], src_que0, src_que2, dst_que1, n, True)
    tbuf_pool2.reset()
    tbuf_pool0.reset()
    pipe.reset()


# ---- tutorial 01 with every set_flag/wait_flag removed -----------------------------------------

@asc.jit
def add_static_no_flags_kernel(x: asc.GlobalAddress, y: asc.GlobalAddress,
                               z: asc.GlobalAddress, n: asc.ConstExpr[int]):
    x_gm = asc.GlobalTensor()
    y_gm = asc.GlobalTensor()
    z_gm = asc.GlobalTensor()
    x_gm.set_global_buffer(x + asc.get_block_idx() * n, n)
    y_gm.set_global_buffer(y + asc.get_block_idx() * n, n)
    z_gm.set_global_buffer(z + asc.get_block_idx() * n, n)
    nbytes = n * x.dtype.sizeof()
    x_local = asc.LocalTensor(x.dtype, asc.TPosition.VECIN, 0, n)
    y_local = asc.LocalTensor(x.dtype, asc.TPosition.VECIN, nbytes, n)
    z_local = asc.LocalTensor(x.dtype, asc.TPosition.VECOUT, 2 * nbytes, n)
    asc.data_copy(x_local, x_gm, n)
    asc.data_copy(y_local, y_gm, n)
    asc.add(z_local, x_local, y_local, n)
    asc.data_copy(z_gm, z_local, n)


# ---- LocalTensorAuto (pyasc's insert_sync/test_vadd style) -------------------------------------

@asc.jit
def auto_copy_in(x_gm, y_gm, x_local, y_local, offset, tile: asc.ConstExpr[int]):
    asc.data_copy(x_local, x_gm[offset:], tile)
    asc.data_copy(y_local, y_gm[offset:], tile)


@asc.jit
def auto_compute(x_local, y_local, tile: asc.ConstExpr[int]):
    z_local = asc.LocalTensorAuto(x_local.dtype, tile)
    asc.add(z_local, x_local, y_local, tile)
    return z_local, tile


@asc.jit
def add_auto_kernel(x: asc.GlobalAddress, y: asc.GlobalAddress, z: asc.GlobalAddress,
                    block_length: int, tile: asc.ConstExpr[int]):
    offset = asc.get_block_idx() * block_length
    x_gm = asc.GlobalTensor()
    y_gm = asc.GlobalTensor()
    z_gm = asc.GlobalTensor()
    x_gm.set_global_buffer(x + offset)
    y_gm.set_global_buffer(y + offset)
    z_gm.set_global_buffer(z + offset)
    for i in asc.range(block_length // tile):
        x_local = asc.LocalTensorAuto(x.dtype, tile)
        y_local = asc.LocalTensorAuto(y.dtype, (1, tile))
        auto_copy_in(x_gm, y_gm, x_local, y_local, i * tile, tile)
        z_local, count = auto_compute(x_local, y_local, tile)
        asc.data_copy(z_gm[i * tile:], z_local, count)
