"""RMSNorm with asc.adv.rmsnorm, in the style of pyasc's rmsnorm example, on the aicore-sim
simulator.

    y = x / sqrt(mean(x^2 over the row) + eps) * gamma

Rows of H values split across vector cores (as many as keep every core busy), each core
taking its rows R at a time (8 for H <= 512, 4 for H <= 1024, else 2) and the rest in one tail
call; an asc.adv.RmsNormTiling built in the kernel for each call; basic_block for the full
groups when H is a multiple of 64 below 2048 and R a multiple of 8, the general path for the
tail; tiles through double-buffered TQues, gamma loaded once per core. Checked against a
float64 reference (atol 1e-3 in float32, the example's tolerance; 4e-3 in float16); prints
PASS/FAIL and cycles.

    python3 examples/rmsnorm.py [--batch 4] [--seq 120] [--hidden 512] [--cores N]
                                [--dtype float32|float16]
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
from asc.lib.runtime.support import DeviceInfoType, DeviceModuleType  # noqa: E402
from example_report import print_report  # noqa: E402

BUFFER_NUM = 2
ROW_ALIGN = 16  # the example rounds main_bs_length_align up to 16 rows
EPS = 1e-6


def rows_per_call(hidden):
    """Fewer rows per call as H grows, to bound the UB a call takes."""
    if hidden <= 512:
        return 8
    if hidden <= 1024:
        return 4
    return 2


def can_use_basic_block(hidden, rows):
    """The basic-block path's rule: H a multiple of 64 below 2048, rows a multiple of 8."""
    return hidden % 64 == 0 and hidden < 2048 and rows % 8 == 0


def launch_params(total_rows, hidden, max_cores):
    """(cores, elements per core, rows per core): rows spread so that no core is idle."""
    cores = max(1, min(total_rows, max_cores))
    per_core = -(-total_rows // cores)
    cores = -(-total_rows // per_core)
    return cores, per_core * hidden, per_core


@asc.jit(kernel_type=config.KernelType.AIV_ONLY)
def rmsnorm_kernel(x: asc.GlobalAddress, y: asc.GlobalAddress, gamma: asc.GlobalAddress,
                   block_length: asc.ConstExpr[int], hidden: asc.ConstExpr[int],
                   eps: asc.ConstExpr[float], rows_per_core: asc.ConstExpr[int],
                   max_rows: asc.ConstExpr[int], use_basic_block: asc.ConstExpr[bool]):
    offset = asc.get_block_idx() * block_length
    x_gm, y_gm, gamma_gm = asc.GlobalTensor(), asc.GlobalTensor(), asc.GlobalTensor()
    x_gm.set_global_buffer(x + offset)
    y_gm.set_global_buffer(y + offset)
    gamma_gm.set_global_buffer(gamma)
    pipe = asc.TPipe()
    in_queue = asc.TQue(asc.TPosition.VECIN, 1)
    out_queue = asc.TQue(asc.TPosition.VECOUT, 1)
    gamma_buf = asc.TBuf(asc.TPosition.VECCALC)
    aligned_rows = (max_rows + ROW_ALIGN - 1) // ROW_ALIGN * ROW_ALIGN
    chunk = max_rows * hidden
    size = x_gm.dtype.sizeof()
    init_buffers(pipe, in_queue, out_queue, gamma_buf, chunk * size, hidden * size)
    gamma_local = gamma_buf.get(gamma_gm.dtype, len=hidden)
    load_gamma(gamma_gm, gamma_local, hidden)
    full_groups, rem_rows = rows_per_core // max_rows, rows_per_core % max_rows
    for i in asc.range(full_groups):
        tiling = make_tiling(max_rows, hidden, chunk, aligned_rows)
        process(in_queue, out_queue, x_gm, y_gm, gamma_local, eps, tiling, i * chunk, chunk,
                use_basic_block)
    if rem_rows > 0:
        rem_bsh = rem_rows * hidden
        rem_aligned = (rem_rows + ROW_ALIGN - 1) // ROW_ALIGN * ROW_ALIGN
        tiling = asc.adv.RmsNormTiling(
            b_length=1, s_length=rem_rows, h_length=hidden, original_h_length=hidden,
            reciprocal_of_h_length=1.0 / float(hidden), main_bsh_length=rem_bsh,
            main_bs_length=rem_rows, main_bs_length_align=rem_aligned, loop_round=1,
            input_tail_pos=rem_bsh, tail_bsh_length=0, tail_bs_length=0)
        process(in_queue, out_queue, x_gm, y_gm, gamma_local, eps, tiling,
                full_groups * chunk, rem_bsh, False)


@asc.jit
def process(in_queue, out_queue, x_gm, y_gm, gamma_local, eps: asc.ConstExpr[float], tiling,
            off, count: asc.ConstExpr[int], basic: asc.ConstExpr[bool]):
    """One call: copy `count` elements in at `off`, rmsnorm them, copy them out."""
    x_local = in_queue.alloc_tensor(x_gm.dtype)
    asc.data_copy(x_local, x_gm[off:], count=count)
    in_queue.enque(x_local)
    x_local = in_queue.deque(x_gm.dtype)
    y_local = out_queue.alloc_tensor(y_gm.dtype)
    asc.adv.rmsnorm(y_local, x_local, gamma_local, eps, tiling, basic_block=basic)
    in_queue.free_tensor(x_local)
    out_queue.enque(y_local)
    y_local = out_queue.deque(y_gm.dtype)
    asc.data_copy(y_gm[off:], y_local, count=count)
    out_queue.free_tensor(y_local)


@asc.jit
def init_buffers(pipe, in_queue, out_queue, gamma_buf, buf_len: asc.ConstExpr[int],
                 gamma_len: asc.ConstExpr[int]):
    pipe.init_buffer(que=in_queue, num=BUFFER_NUM, len=buf_len)
    pipe.init_buffer(que=out_queue, num=BUFFER_NUM, len=buf_len)
    pipe.init_buffer(buf=gamma_buf, len=gamma_len)


@asc.jit
def make_tiling(rows: asc.ConstExpr[int], hidden: asc.ConstExpr[int],
                bsh: asc.ConstExpr[int], aligned_rows: asc.ConstExpr[int]):
    """A one-group tiling of `rows` rows, as the example builds it."""
    return asc.adv.RmsNormTiling(
        b_length=1, s_length=rows, h_length=hidden, original_h_length=hidden,
        reciprocal_of_h_length=1.0 / float(hidden), main_bsh_length=bsh, main_bs_length=rows,
        main_bs_length_align=aligned_rows, loop_round=1, input_tail_pos=bsh,
        tail_bsh_length=0, tail_bs_length=0)


@asc.jit
def load_gamma(gamma_gm, gamma_local, hidden: asc.ConstExpr[int]):
    asc.data_copy(gamma_local, gamma_gm, count=hidden)
    asc.set_flag(asc.HardEvent.MTE2_V)
    asc.wait_flag(asc.HardEvent.MTE2_V)


def rmsnorm_launch(x, gamma, eps=EPS, max_cores=None):
    """y (shaped as x) and the launch report; x's rows padded with zero rows to whole cores."""
    hidden = gamma.shape[0]
    total_rows = x.size // hidden
    if max_cores is None:
        max_cores = max(1, rt.device_info(DeviceModuleType.RT_MODULE_TYPE_VECTOR_CORE,
                                          DeviceInfoType.INFO_TYPE_CORE_NUM))
    cores, block_length, per_core = launch_params(total_rows, hidden, max_cores)
    x_pad = np.zeros(cores * block_length, x.dtype)
    x_pad[:x.size] = x.reshape(-1)
    y_pad = np.zeros_like(x_pad)
    max_rows = rows_per_call(hidden)
    report = rmsnorm_kernel[cores, rt.current_stream()](
        x_pad, y_pad, gamma, block_length, hidden, eps, per_core, max_rows,
        can_use_basic_block(hidden, max_rows))
    return y_pad[:x.size].reshape(x.shape), report


def reference(x, gamma, eps=EPS):
    x = x.astype(np.float64)
    return x / np.sqrt(np.mean(x * x, axis=-1, keepdims=True) + eps) * gamma.astype(np.float64)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--batch", type=int, default=4)
    parser.add_argument("--seq", type=int, default=120)
    parser.add_argument("--hidden", type=int, default=512)
    parser.add_argument("--cores", type=int, default=None,
                        help="at most this many cores (default: the SoC's vector cores)")
    parser.add_argument("--dtype", default="float32", choices=["float32", "float16"])
    parser.add_argument("-v", "--soc-version", default=config.Platform.Ascend910B1.value,
                        choices=[p.value for p in config.Platform])
    args = parser.parse_args()
    if args.hidden * np.dtype(args.dtype).itemsize % 32:
        parser.error("--hidden must fill whole 32-byte blocks (8 float32 or 16 float16 values)")
    config.set_platform(config.Backend.Model, config.Platform(args.soc_version))
    rng = np.random.default_rng(2024)
    x = rng.standard_normal((args.batch, args.seq, args.hidden)).astype(args.dtype)
    gamma = rng.uniform(0.5, 1.5, args.hidden).astype(args.dtype)
    y, report = rmsnorm_launch(x, gamma, max_cores=args.cores)
    atol = 1e-3 if args.dtype == "float32" else 4e-3
    err = np.abs(y.astype(np.float64) - reference(x, gamma)).max()
    ok = err <= atol
    rows = args.batch * args.seq
    print(f"rmsnorm {args.batch}x{args.seq}x{args.hidden} {args.dtype} ({rows} rows) on "
          f"{report.block_dim} cores, {rows_per_call(args.hidden)} rows a call "
          f"({rt.transport()}): {'PASS' if ok else 'FAIL'} (max error {err:.2e}, atol {atol:g})")
    print_report(report)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
