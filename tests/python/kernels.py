"""Kernels shared by the tests (and by the daemon parity subprocess), in pyasc tutorial style."""
import numpy as np

import asc
import asc.lib.runtime as rt

# The tutorial-01 vector add is the example users run first (examples/vadd.py); the tests use
# that very kernel so the example cannot drift from what is tested.
from vadd import vadd_kernel, vadd_launch as run_vadd  # noqa: E402,F401


BINARY = {"add": asc.add, "sub": asc.sub, "mul": asc.mul, "div": asc.div, "max": asc.max,
          "min": asc.min}
UNARY = {"abs": asc.abs, "exp": asc.exp, "ln": asc.ln, "sqrt": asc.sqrt, "relu": asc.relu,
         "rsqrt": asc.rsqrt, "reciprocal": asc.reciprocal}
SCALAR = {"adds": asc.adds, "muls": asc.muls}


@asc.jit
def elementwise_kernel(x: asc.GlobalAddress, y: asc.GlobalAddress, z: asc.GlobalAddress,
                       block_length: int, scalar, tile: asc.ConstExpr[int],
                       op: asc.ConstExpr[str]):
    """One tile loop applying `op` (a binary, unary or scalar op chosen at compile time)."""
    x_gm = asc.GlobalTensor()
    y_gm = asc.GlobalTensor()
    z_gm = asc.GlobalTensor()
    x_gm.set_global_buffer(x + asc.get_block_idx() * block_length)
    y_gm.set_global_buffer(y + asc.get_block_idx() * block_length)
    z_gm.set_global_buffer(z + asc.get_block_idx() * block_length)
    nbytes = tile * x.dtype.sizeof()
    x_local = asc.LocalTensor(x.dtype, asc.TPosition.VECIN, 0, tile)
    y_local = asc.LocalTensor(y.dtype, asc.TPosition.VECIN, nbytes, tile)
    z_local = asc.LocalTensor(z.dtype, asc.TPosition.VECOUT, 2 * nbytes, tile)
    for i in asc.range(block_length // tile):
        asc.data_copy(x_local, x_gm[i * tile:], tile)
        if op in BINARY:
            asc.data_copy(y_local, y_gm[i * tile:], count=tile)
        asc.set_flag(asc.HardEvent.MTE2_V, 0)
        asc.wait_flag(asc.HardEvent.MTE2_V, 0)
        if op in BINARY:
            BINARY[op](z_local, x_local, y_local, tile)
        elif op in UNARY:
            UNARY[op](z_local, x_local, count=tile)
        else:
            SCALAR[op](z_local, x_local, scalar, tile)
        asc.set_flag(asc.HardEvent.V_MTE3, 0)
        asc.wait_flag(asc.HardEvent.V_MTE3, 0)
        asc.data_copy(z_gm[i * tile:], z_local, tile)
        asc.set_flag(asc.HardEvent.MTE3_MTE2, 0)
        asc.wait_flag(asc.HardEvent.MTE3_MTE2, 0)


@asc.jit
def store_scalar(out: asc.GlobalAddress, slot, value):
    """Sub-kernel: out[slot * 8] += value, through one 32-byte int32 block of UB (the IR has no
    scalar store, so results leave the core as `adds` on a zero block)."""
    gm = asc.GlobalTensor()
    gm.set_global_buffer(out + slot * 8)
    block = asc.LocalTensor(asc.int32, asc.TPosition.VECCALC, 0, 8)
    asc.data_copy(block, gm, 8)
    asc.set_flag(asc.HardEvent.MTE2_V, 0)
    asc.wait_flag(asc.HardEvent.MTE2_V, 0)
    asc.adds(block, block, value, 8)
    asc.set_flag(asc.HardEvent.V_MTE3, 0)
    asc.wait_flag(asc.HardEvent.V_MTE3, 0)
    asc.data_copy(gm, block, 8)
    asc.set_flag(asc.HardEvent.MTE3_MTE2, 0)
    asc.wait_flag(asc.HardEvent.MTE3_MTE2, 0)


def scalar_slots(n):
    """Host buffer for `store_scalar`: n slots of one 32-byte block each."""
    return np.zeros(n * 8, dtype=np.int32)


def read_slots(buf):
    return [int(v) for v in buf[::8]]


# ---- pyasc's whole-tile tail: every core moves one full tile, past the tensor's end ----------

TAIL_TILE = 512


@asc.jit
def whole_tile_add_kernel(x: asc.GlobalAddress, y: asc.GlobalAddress, z: asc.GlobalAddress,
                          block_length: int):
    """As pyasc's own multi-core tests write it: core i starts at i * block_length and copies a
    whole TAIL_TILE in, adds, and copies the whole tile out, whatever the tensor's length; the
    last cores read and write past the end of x, y and z (mapped memory on the chip)."""
    offset = asc.get_block_idx() * block_length
    x_gm = asc.GlobalTensor()
    y_gm = asc.GlobalTensor()
    z_gm = asc.GlobalTensor()
    x_gm.set_global_buffer(x + offset, TAIL_TILE)
    y_gm.set_global_buffer(y + offset, TAIL_TILE)
    z_gm.set_global_buffer(z + offset, TAIL_TILE)
    pipe = asc.TPipe()
    in_x = asc.TQue(asc.TPosition.VECIN, 1)
    in_y = asc.TQue(asc.TPosition.VECIN, 1)
    out_z = asc.TQue(asc.TPosition.VECOUT, 1)
    pipe.init_buffer(in_x, 1, TAIL_TILE * x.dtype.sizeof())
    pipe.init_buffer(in_y, 1, TAIL_TILE * y.dtype.sizeof())
    pipe.init_buffer(out_z, 1, TAIL_TILE * z.dtype.sizeof())
    x_local = in_x.alloc_tensor(x.dtype)
    y_local = in_y.alloc_tensor(y.dtype)
    asc.data_copy(x_local, x_gm, TAIL_TILE)
    asc.data_copy(y_local, y_gm, TAIL_TILE)
    in_x.enque(x_local)
    in_y.enque(y_local)
    x_in = in_x.deque(x.dtype)
    y_in = in_y.deque(y.dtype)
    z_local = out_z.alloc_tensor(z.dtype)
    asc.add(z_local, x_in, y_in, TAIL_TILE)
    out_z.enque(z_local)
    in_x.free_tensor(x_in)
    in_y.free_tensor(y_in)
    z_out = out_z.deque(z.dtype)
    asc.data_copy(z_gm, z_out, TAIL_TILE)
    out_z.free_tensor(z_out)


def run_whole_tile_add(x, y, cores, **options):
    """z = x + y on `cores` cores, block_length rounded up to 8 elements (32 bytes)."""
    z = np.zeros_like(x)
    block_length = (x.size + cores - 1) // cores
    block_length = (block_length + 7) // 8 * 8
    report = whole_tile_add_kernel[cores, rt.current_stream()](x, y, z, block_length, **options)
    return z, report
