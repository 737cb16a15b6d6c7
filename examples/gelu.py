"""GELU with the tanh approximation, in the style of pyasc's gelu example, on the aicore-sim
simulator.

    gelu(x) = 0.5 * x * (1 + tanh(sqrt(2 / pi) * (x + 0.044715 * x^3)))

Rows of float32 split across vector cores, tiles double-buffered through TQues. Two forms of
the tanh: `asc.adv.tanh` (the library's sequence, in place, framework scratch), or `--basic`,
written in basic ops through the identity 0.5 * (1 + tanh(u)) = 1 / (1 + exp(-2u)). Checked
against a float64 reference (atol 1e-3, the example's tolerance); prints PASS/FAIL and cycles.

    python3 examples/gelu.py [--size N] [--cores 8] [--tile 1024] [--basic]
"""
import math
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "clients",
                                "python"))

import numpy as np  # noqa: E402

import asc  # noqa: E402
import asc.lib.runtime as rt  # noqa: E402
from example_report import (elementwise_parser, parse_and_set_platform,  # noqa: E402
                            print_report)

BUFFER_NUM = 2
SQRT_2_OVER_PI = math.sqrt(2.0 / math.pi)


@asc.jit
def gelu_tile(y, x, t, tile: asc.ConstExpr[int], basic: asc.ConstExpr[bool]):
    """y = gelu(x) on one tile; t: a float scratch tile."""
    asc.mul(t, x, x, tile)
    asc.pipe_barrier(asc.PipeID.PIPE_V)
    asc.mul(t, t, x, tile)
    asc.pipe_barrier(asc.PipeID.PIPE_V)
    asc.muls(t, t, 0.044715, tile)
    asc.pipe_barrier(asc.PipeID.PIPE_V)
    asc.add(t, t, x, tile)
    asc.pipe_barrier(asc.PipeID.PIPE_V)
    if basic:
        asc.muls(t, t, -2.0 * SQRT_2_OVER_PI, tile)
        asc.pipe_barrier(asc.PipeID.PIPE_V)
        asc.exp(t, t, tile)
        asc.pipe_barrier(asc.PipeID.PIPE_V)
        asc.adds(t, t, 1.0, tile)
        asc.pipe_barrier(asc.PipeID.PIPE_V)
        asc.div(y, x, t, tile)
    else:
        asc.muls(t, t, SQRT_2_OVER_PI, tile)
        asc.pipe_barrier(asc.PipeID.PIPE_V)
        asc.adv.tanh(t, t, count=tile)
        asc.adds(t, t, 1.0, tile)
        asc.pipe_barrier(asc.PipeID.PIPE_V)
        asc.mul(y, x, t, tile)
        asc.pipe_barrier(asc.PipeID.PIPE_V)
        asc.muls(y, y, 0.5, tile)


@asc.jit
def gelu_kernel(x: asc.GlobalAddress, y: asc.GlobalAddress, block_length: int,
                tile: asc.ConstExpr[int], basic: asc.ConstExpr[bool]):
    offset = asc.get_block_idx() * block_length
    x_gm = asc.GlobalTensor()
    y_gm = asc.GlobalTensor()
    x_gm.set_global_buffer(x + offset, block_length)
    y_gm.set_global_buffer(y + offset, block_length)
    pipe = asc.TPipe()
    in_queue = asc.TQue(asc.TPosition.VECIN, BUFFER_NUM)
    out_queue = asc.TQue(asc.TPosition.VECOUT, BUFFER_NUM)
    scratch = asc.TBuf(asc.TPosition.VECCALC)
    pipe.init_buffer(in_queue, BUFFER_NUM, tile * 4)
    pipe.init_buffer(out_queue, BUFFER_NUM, tile * 4)
    pipe.init_buffer(scratch, tile * 4)
    t = scratch.get(asc.float32)
    for i in range(block_length // tile):
        x_local = in_queue.alloc_tensor(asc.float32)
        asc.data_copy(x_local, x_gm[i * tile:], tile)
        in_queue.enque(x_local)
        x_local = in_queue.deque(asc.float32)
        y_local = out_queue.alloc_tensor(asc.float32)
        gelu_tile(y_local, x_local, t, tile, basic)
        out_queue.enque(y_local)
        in_queue.free_tensor(x_local)
        y_local = out_queue.deque(asc.float32)
        asc.data_copy(y_gm[i * tile:], y_local, tile)
        out_queue.free_tensor(y_local)


def gelu_launch(x, cores=8, tile=1024, basic=False):
    y = np.zeros_like(x)
    report = gelu_kernel[cores, rt.current_stream()](x, y, x.size // cores, tile, basic)
    return y, report


def reference(x):
    x = x.astype(np.float64)
    return 0.5 * x * (1 + np.tanh(SQRT_2_OVER_PI * (x + 0.044715 * x ** 3)))


def main():
    parser = elementwise_parser(__doc__, "elements (float32)")
    parser.add_argument("--basic", action="store_true",
                        help="tanh in basic ops instead of asc.adv.tanh")
    args = parse_and_set_platform(parser)
    x = np.random.default_rng(2024).uniform(-2, 2, args.size).astype(np.float32)
    y, report = gelu_launch(x, args.cores, args.tile, args.basic)
    err = np.abs(y.astype(np.float64) - reference(x)).max()
    ok = err <= 1e-3
    form = "basic ops" if args.basic else "asc.adv.tanh"
    print(f"gelu {args.size} x float32 on {args.cores} cores ({form}, {rt.transport()}): "
          f"{'PASS' if ok else 'FAIL'} (max error {err:.2e}, atol 1e-3)")
    print_report(report)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
