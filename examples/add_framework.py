"""Vector add in the style of pyasc's tutorial 02, run on the aicore-sim simulator.

TPipe and TQues instead of hand-placed tensors: copy_in / compute / copy_out sub-kernels pass
tensors through VECIN and VECOUT queues, whose events order MTE2, V and MTE3. Runs with one and
with two buffers per queue (BUFFER_NUM) and prints the simulated cycles of each and how long the
three pipes of core 0 were busy at the same time (the point of double buffering).

    python3 examples/add_framework.py [--size N] [--dtype float16|float32] [--cores 8]
"""
import argparse
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "clients",
                                "python"))

import numpy as np  # noqa: E402

import asc  # noqa: E402
import asc.lib.runtime as rt  # noqa: E402
import asc.runtime.config as config  # noqa: E402

USE_CORE_NUM = 8
TILE_NUM = 8


@asc.jit
def copy_in(i, x_gm, y_gm, in_queue_x, in_queue_y, tile_length):
    x_local = in_queue_x.alloc_tensor(x_gm.dtype)
    y_local = in_queue_y.alloc_tensor(y_gm.dtype)
    asc.data_copy(x_local, x_gm[i * tile_length:], tile_length)
    asc.data_copy(y_local, y_gm[i * tile_length:], tile_length)
    in_queue_x.enque(x_local)
    in_queue_y.enque(y_local)


@asc.jit
def compute(in_queue_x, in_queue_y, out_queue_z, dtype: asc.ConstExpr, tile_length):
    x_local = in_queue_x.deque(dtype)
    y_local = in_queue_y.deque(dtype)
    z_local = out_queue_z.alloc_tensor(dtype)
    asc.add(z_local, x_local, y_local, tile_length)
    out_queue_z.enque(z_local)
    in_queue_x.free_tensor(x_local)
    in_queue_y.free_tensor(y_local)


@asc.jit
def copy_out(i, z_gm, out_queue_z, tile_length):
    z_local = out_queue_z.deque(z_gm.dtype)
    asc.data_copy(z_gm[i * tile_length:], z_local, tile_length)
    out_queue_z.free_tensor(z_local)


@asc.jit
def add_kernel(x: asc.GlobalAddress, y: asc.GlobalAddress, z: asc.GlobalAddress,
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
    pipe.init_buffer(que=in_queue_x, num=buffer_num, len=tile_length * x.dtype.sizeof())
    pipe.init_buffer(que=in_queue_y, num=buffer_num, len=tile_length * y.dtype.sizeof())
    pipe.init_buffer(que=out_queue_z, num=buffer_num, len=tile_length * z.dtype.sizeof())
    for i in range(TILE_NUM * buffer_num):
        copy_in(i, x_gm, y_gm, in_queue_x, in_queue_y, tile_length)
        compute(in_queue_x, in_queue_y, out_queue_z, x.dtype, tile_length)
        copy_out(i, z_gm, out_queue_z, tile_length)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=8 * 16 * 2048)
    parser.add_argument("--dtype", default="float16", choices=["float16", "float32"])
    parser.add_argument("--cores", type=int, default=USE_CORE_NUM)
    args = parser.parse_args()

    config.set_platform(config.Backend.Model)
    rng = np.random.default_rng(2024)
    x = rng.uniform(-100, 100, args.size).astype(args.dtype)
    y = rng.uniform(-100, 100, args.size).astype(args.dtype)
    status = 0
    for buffer_num in (1, 2):
        z = np.zeros_like(x)
        report = add_kernel[args.cores, rt.current_stream()](
            x, y, z, args.size // args.cores, buffer_num=buffer_num, record_timeline=True)
        ok = np.array_equal(z, x + y)
        status |= not ok
        overlap = report.concurrent_intervals(("MTE2", "V", "MTE3"), core=0)
        print(f"BUFFER_NUM={buffer_num}: {'PASS' if ok else 'FAIL'}, {report.cycles} cycles "
              f"({report.duration_us:.3f} us); MTE2, V and MTE3 of core 0 busy together for "
              f"{sum(e - s for s, e in overlap)} cycles; checkers: {report.check.summary}")
    return status


if __name__ == "__main__":
    sys.exit(main())
