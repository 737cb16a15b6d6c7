"""Kernels that print: shared by test_debug.py and the daemon parity worker."""
import asc


@asc.jit
def print_kernel(x: asc.GlobalAddress, n: int, scale: float):
    idx = asc.get_block_idx()
    g = asc.GlobalTensor()
    g.set_global_buffer(x + idx * n)
    t = asc.LocalTensor(x.dtype, asc.TPosition.VECIN, 0, n)
    asc.data_copy(t, g, n)
    asc.printf("block %d of %s: n=%u scale=%.2f hex=%x 100%%\n", idx, "print_kernel", n, scale,
               n + 240)
    # No flag: DumpTensor drains every pipe first, as Ascend C's does.
    asc.dump_tensor(t, 7, 8)
    asc.muls(t, t, scale, n)
    asc.dump_tensor(t, 8, 4, asc.ShapeInfo([2, 2]))
