"""SwiGLU with asc.adv.swiglu, in the style of pyasc's swiglu example, on the aicore-sim
simulator: y = up * gate * sigmoid(gate), float32 or float16, rows split across vector cores,
tiles double-buffered through TQues. Checked against a float64 reference (atol 1e-3 in float32,
the example's tolerance; 4e-3 in float16); prints PASS/FAIL and cycles.

    python3 examples/swiglu.py [--size N] [--cores 8] [--tile 1024] [--dtype float32|float16]
"""
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


@asc.jit
def swiglu_kernel(up: asc.GlobalAddress, gate: asc.GlobalAddress, y: asc.GlobalAddress,
                  block_length: int, tile: asc.ConstExpr[int]):
    offset = asc.get_block_idx() * block_length
    up_gm = asc.GlobalTensor()
    gate_gm = asc.GlobalTensor()
    y_gm = asc.GlobalTensor()
    up_gm.set_global_buffer(up + offset, block_length)
    gate_gm.set_global_buffer(gate + offset, block_length)
    y_gm.set_global_buffer(y + offset, block_length)
    dtype = up.dtype
    pipe = asc.TPipe()
    in_up = asc.TQue(asc.TPosition.VECIN, BUFFER_NUM)
    in_gate = asc.TQue(asc.TPosition.VECIN, BUFFER_NUM)
    out_queue = asc.TQue(asc.TPosition.VECOUT, BUFFER_NUM)
    pipe.init_buffer(in_up, BUFFER_NUM, tile * dtype.sizeof())
    pipe.init_buffer(in_gate, BUFFER_NUM, tile * dtype.sizeof())
    pipe.init_buffer(out_queue, BUFFER_NUM, tile * dtype.sizeof())
    for i in range(block_length // tile):
        u = in_up.alloc_tensor(dtype)
        g = in_gate.alloc_tensor(dtype)
        asc.data_copy(u, up_gm[i * tile:], tile)
        asc.data_copy(g, gate_gm[i * tile:], tile)
        in_up.enque(u)
        in_gate.enque(g)
        u = in_up.deque(dtype)
        g = in_gate.deque(dtype)
        out = out_queue.alloc_tensor(dtype)
        asc.adv.swiglu(out, u, g, cal_count=tile)
        out_queue.enque(out)
        in_up.free_tensor(u)
        in_gate.free_tensor(g)
        out = out_queue.deque(dtype)
        asc.data_copy(y_gm[i * tile:], out, tile)
        out_queue.free_tensor(out)


def swiglu_launch(up, gate, cores=8, tile=1024):
    y = np.zeros_like(up)
    report = swiglu_kernel[cores, rt.current_stream()](up, gate, y, up.size // cores, tile)
    return y, report


def reference(up, gate):
    up, gate = up.astype(np.float64), gate.astype(np.float64)
    return up * gate / (1 + np.exp(-gate))


def main():
    parser = elementwise_parser(__doc__)
    parser.add_argument("--dtype", default="float32", choices=["float32", "float16"])
    args = parse_and_set_platform(parser)
    rng = np.random.default_rng(2024)
    up = rng.uniform(-2, 2, args.size).astype(args.dtype)
    gate = rng.uniform(-2, 2, args.size).astype(args.dtype)
    y, report = swiglu_launch(up, gate, args.cores, args.tile)
    atol = 1e-3 if args.dtype == "float32" else 4e-3
    err = np.abs(y.astype(np.float64) - reference(up, gate)).max()
    ok = err <= atol
    print(f"swiglu {args.size} x {args.dtype} on {args.cores} cores ({rt.transport()}): "
          f"{'PASS' if ok else 'FAIL'} (max error {err:.2e}, atol {atol:g})")
    print_report(report)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
