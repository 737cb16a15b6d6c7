"""Runs a fixed set of kernels and prints, as JSON, a digest of every output, its cycle count and
the hash of the resolved config it ran on.
Used by test_daemon.py in a subprocess (remote transport) and in-process (embedded)."""
import hashlib
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "clients", "python"))
sys.path.insert(0, os.path.join(HERE, "..", "..", "examples"))
sys.path.insert(0, HERE)

import numpy as np  # noqa: E402

import asc.lib.runtime as rt  # noqa: E402
import warnings  # noqa: E402

from asc.runtime.errors import KernelWarning  # noqa: E402
from fwk_kernels import add_static_no_flags_kernel  # noqa: E402
from kernels import elementwise_kernel, run_vadd, run_whole_tile_add  # noqa: E402
from debug_kernels import print_kernel  # noqa: E402


def run_all():
    results = {}
    rng = np.random.default_rng(11)
    for dtype, cores in (("float16", 8), ("float32", 48), ("int32", 2)):
        n = cores * 1024
        x = rng.uniform(-100, 100, n).astype(dtype)
        y = rng.uniform(-100, 100, n).astype(dtype)
        z, report = run_vadd(x, y, cores)
        results[f"vadd-{dtype}-{cores}"] = {"sha": hashlib.sha256(z.tobytes()).hexdigest(),
                                           "cycles": report.cycles,
                                           "config_hash": report.config_hash}
    for op in ("mul", "exp", "adds"):
        x = rng.uniform(0.5, 2, 4 * 512).astype(np.float16)
        y = rng.uniform(0.5, 2, 4 * 512).astype(np.float16)
        z = np.zeros_like(x)
        report = elementwise_kernel[4, rt.current_stream()](x, y, z, 512, 1.5, tile=256, op=op)
        results[f"{op}-float16-4"] = {"sha": hashlib.sha256(z.tobytes()).hexdigest(),
                                      "cycles": report.cycles,
                                      "config_hash": report.config_hash}
    # The checkers' findings travel the same way: a kernel written to race (no flags, no
    # auto_sync), checked at warn, gives the same structured diagnostics on both transports.
    x = rng.uniform(1, 2, 2048).astype(np.float32)
    z = np.zeros_like(x)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", KernelWarning)
        report = add_static_no_flags_kernel[1, rt.current_stream()](x, x, z, n=2048,
                                                                    auto_sync=False, check="warn")
    results["race-diagnostics"] = {"sha": hashlib.sha256(z.tobytes()).hexdigest(),
                                   "cycles": report.cycles, "config_hash": report.config_hash,
                                   "check": report.check.to_dict(),
                                   "diagnostics": [d.to_dict() for d in report.diagnostics]}
    # Struct arguments (a GM copy of the packed bytes) read by scalar-unit loads.
    from test_struct import Shape, Tiling, tiled_fill
    y = np.zeros(16, dtype=np.int32)
    report = tiled_fill[1, rt.current_stream()](
        y, Tiling(used_core_num=3, scale=0.5, shape=Shape(m=4, n=9)))
    results["struct-scalar-access"] = {"sha": hashlib.sha256(y.tobytes()).hexdigest(),
                                       "cycles": report.cycles,
                                       "config_hash": report.config_hash}
    # GM as the device has it, per session: whole-tile tails overrun x, y and z into their
    # allocator blocks, with the same values and GM_OVERRUN warnings on both transports.
    x = rng.uniform(-10, 10, 1000).astype(np.float32)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", KernelWarning)
        z, report = run_whole_tile_add(x, x, 16, check="warn")
    results["tail-overrun"] = {"sha": hashlib.sha256(z.tobytes()).hexdigest(),
                               "cycles": report.cycles, "config_hash": report.config_hash,
                               "check": report.check.to_dict(),
                               "diagnostics": [d.to_dict() for d in report.diagnostics]}
    # printf / dump_tensor output travels in the report: same records, same order, both ways.
    x = np.arange(4 * 64, dtype=np.float32)
    report = print_kernel[4, rt.current_stream()](x, 64, 0.5)
    results["debug-output"] = {"sha": hashlib.sha256(x.tobytes()).hexdigest(),
                               "cycles": report.cycles, "config_hash": report.config_hash,
                               "debug": [d.to_dict() for d in report.debug_output]}
    # Cube kernels on the cube cores: the 10.6 linear layer and the queue matmul with tails.
    import asc
    from cube_kernels import linear_cube_kernel, matmul_queue_kernel
    a = rng.uniform(-1, 1, (128, 256)).astype(np.float16)
    w = rng.uniform(-1, 1, (128, 256)).astype(np.float16)
    w_nz = np.ascontiguousarray(w.reshape(128, 16, 16).transpose(1, 0, 2))
    c = np.zeros((128, 128), np.float16)
    report = linear_cube_kernel[4, rt.current_stream()](a, w_nz, c, 128, 128, 256, 64, 64, 128,
                                                      asc.QuantModes.F322F16)
    results["cube-linear"] = {"sha": hashlib.sha256(c.tobytes()).hexdigest(),
                              "cycles": report.cycles, "config_hash": report.config_hash,
                              "check": report.check.to_dict()}
    a = rng.uniform(-1, 1, (37, 50)).astype(np.float32)
    bt = rng.uniform(-1, 1, (21, 50)).astype(np.float32)
    c = np.zeros((37, 21), np.float32)
    report = matmul_queue_kernel[2, rt.current_stream()](a, bt, c, 37, 21, 50, 32, 32, 32,
                                                       asc.float32, asc.QuantModes.NoQuant)
    results["cube-queues-tails"] = {"sha": hashlib.sha256(c.tobytes()).hexdigest(),
                                    "cycles": report.cycles, "config_hash": report.config_hash,
                                    "check": report.check.to_dict()}
    # A mixed kernel: the cube core hands C's tiles to its two vector cores through GM and
    # mode-2 cross-core flags (tails in M and N), three groups.
    from mixed_kernels import matmul_leaky_kernel
    a = rng.uniform(-1, 1, (200, 64)).astype(np.float16)
    bt = rng.uniform(-1, 1, (144, 64)).astype(np.float16)
    ws = np.zeros(3 * 2 * 64 * 64, np.float16)
    c = np.zeros((200, 144), np.float16)
    report = matmul_leaky_kernel[3, rt.current_stream()](a, bt, ws, c, 200, 144, 64, 64, 64, 32,
                                                       0.125, True)
    results["mixed-handoff"] = {"sha": hashlib.sha256(c.tobytes()).hexdigest(),
                                "cycles": report.cycles, "config_hash": report.config_hash,
                                "check": report.check.to_dict()}
    # asc.adv.Matmul's instruction sequences: transposed float A, bias, tails, 4 cube cores.
    import asc
    from matmul_kernels import matmul_cube_only_kernel
    m, n, k = 77, 100, 40
    a = rng.uniform(-1, 1, (k, m)).astype(np.float32)
    b = rng.uniform(-1, 1, (k, n)).astype(np.float32)
    bias = rng.uniform(-1, 1, (1, n)).astype(np.float32)
    c = np.zeros((m, n), np.float32)
    tiling = asc.adv.TCubeTiling(used_core_num=4, m=m, n=n, k_a=k, k_b=k, single_core_m=48,
                                 single_core_n=64, single_core_k=k, base_m=32, base_n=32,
                                 base_k=16, is_bias=1)
    report = matmul_cube_only_kernel[4, rt.current_stream()](
        a, b, c, bias, tiling, np.zeros(1 << 20, np.uint8), True, False, 0)
    results["adv-matmul"] = {"sha": hashlib.sha256(c.tobytes()).hexdigest(),
                             "cycles": report.cycles, "config_hash": report.config_hash,
                             "check": report.check.to_dict()}
    # The mixed form: vector cores' requests served by their cube core (tutorial 05's kernel).
    from matmul_kernels import matmul_leakyrelu_kernel
    m, n, k = 128, 96, 64
    a = rng.integers(-4, 4, (m, k)).astype(np.float16)
    b = rng.integers(-4, 4, (k, n)).astype(np.float16)
    bias = rng.uniform(-1, 1, (1, n)).astype(np.float32)
    c = np.zeros((m, n), np.float32)
    tiling = asc.adv.TCubeTiling(used_core_num=2, m=m, n=n, k_a=k, k_b=k, single_core_m=64,
                                 single_core_n=n, single_core_k=k, base_m=32, base_n=32,
                                 base_k=32, is_bias=1)
    report = matmul_leakyrelu_kernel[1, rt.current_stream()](
        a, b, c, bias, 0.01, tiling, np.zeros(1 << 24, np.uint8))
    results["adv-matmul-mixed"] = {"sha": hashlib.sha256(c.tobytes()).hexdigest(),
                                   "cycles": report.cycles, "config_hash": report.config_hash,
                                   "check": report.check.to_dict()}
    # iterate_batch through the server: two batches of A against one B.
    from matmul_kernels import matmul_batch_kernel
    m = n = k = 32
    a = rng.uniform(-1, 1, (2 * m, k)).astype(np.float32)
    b = rng.uniform(-1, 1, (k, n)).astype(np.float32)
    c = np.zeros((2 * m, n), np.float32)
    tiling = asc.adv.TCubeTiling(used_core_num=1, m=m, n=n, k_a=k, k_b=k, single_core_m=m,
                                 single_core_n=n, single_core_k=k, base_m=32, base_n=32,
                                 base_k=32)
    report = matmul_batch_kernel[1, rt.current_stream()](a, b, c, tiling,
                                                        np.zeros(1 << 24, np.uint8), 2, 1)
    results["adv-matmul-batch"] = {"sha": hashlib.sha256(c.tobytes()).hexdigest(),
                                   "cycles": report.cycles, "config_hash": report.config_hash,
                                   "check": report.check.to_dict()}
    # the adv library's examples (asc.adv.tanh in gelu, asc.adv.swiglu)
    from gelu import gelu_launch
    from swiglu import swiglu_launch
    x = rng.uniform(-2, 2, 4 * 2048).astype(np.float32)
    y, report = gelu_launch(x, 4, 1024)
    results["example-gelu"] = {"sha": hashlib.sha256(y.tobytes()).hexdigest(),
                               "cycles": report.cycles, "config_hash": report.config_hash,
                               "check": report.check.to_dict()}
    up = rng.uniform(-2, 2, 4 * 2048).astype(np.float16)
    gate = rng.uniform(-2, 2, 4 * 2048).astype(np.float16)
    y, report = swiglu_launch(up, gate, 4, 1024)
    results["example-swiglu"] = {"sha": hashlib.sha256(y.tobytes()).hexdigest(),
                                 "cycles": report.cycles, "config_hash": report.config_hash,
                                 "check": report.check.to_dict()}
    # asc.adv.rmsnorm in the rmsnorm example: basic-block groups and a general-path tail
    from rmsnorm import rmsnorm_launch
    x = rng.standard_normal((2, 37, 320)).astype(np.float32)
    gamma = rng.uniform(0.5, 1.5, 320).astype(np.float32)
    y, report = rmsnorm_launch(x, gamma, max_cores=4)
    results["example-rmsnorm"] = {"sha": hashlib.sha256(y.tobytes()).hexdigest(),
                                  "cycles": report.cycles, "config_hash": report.config_hash,
                                  "check": report.check.to_dict()}
    # asc.adv.softmax_flash_v2 between two Matmuls in the flash attention example
    from flash_attention import D, flash_attention_launch
    q, k, v = (rng.uniform(-1, 1, (1, 256, D)).astype(np.float16) for _ in range(3))
    out, report = flash_attention_launch(q, k, v, 2)
    results["example-flash-attention"] = {"sha": hashlib.sha256(out.tobytes()).hexdigest(),
                                          "cycles": report.cycles,
                                          "config_hash": report.config_hash,
                                          "check": report.check.to_dict()}
    return results


if __name__ == "__main__":
    import asc.runtime.config as config
    config.set_platform(config.Backend.Model)
    out = run_all()
    out["_transport"] = rt.transport()
    print(json.dumps(out))
