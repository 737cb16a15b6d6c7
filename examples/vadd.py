"""Vector add in the style of pyasc's tutorial 01, run on the aicore-sim simulator.

Static LocalTensors carved out of UB by address, GM->UB copies, asc.add, UB->GM copy, with
set_flag/wait_flag between the pipes and a runtime tile loop, on 8 vector cores. Prints PASS/FAIL
and the simulated time; exits non-zero on a mismatch.

    python3 examples/vadd.py [--size N] [--dtype float16|float32] [--cores 8] [--numpy]
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
BUFFER_NUM = 2
TILE_NUM = 8


@asc.jit
def vadd_kernel(x: asc.GlobalAddress, y: asc.GlobalAddress, z: asc.GlobalAddress,
                block_length: int):
    offset = asc.get_block_idx() * block_length
    x_gm = asc.GlobalTensor()
    y_gm = asc.GlobalTensor()
    z_gm = asc.GlobalTensor()
    x_gm.set_global_buffer(x + offset, block_length)
    y_gm.set_global_buffer(y + offset, block_length)
    z_gm.set_global_buffer(z + offset, block_length)

    tile_length = block_length // TILE_NUM // BUFFER_NUM
    data_type = x.dtype
    buffer_size = tile_length * BUFFER_NUM * data_type.sizeof()

    x_local = asc.LocalTensor(data_type, asc.TPosition.VECIN, 0, tile_length * BUFFER_NUM)
    y_local = asc.LocalTensor(data_type, asc.TPosition.VECIN, buffer_size,
                              tile_length * BUFFER_NUM)
    z_local = asc.LocalTensor(data_type, asc.TPosition.VECOUT, buffer_size + buffer_size,
                              tile_length * BUFFER_NUM)

    for i in range(TILE_NUM * BUFFER_NUM):
        buf_id = i % BUFFER_NUM
        asc.data_copy(x_local[buf_id * tile_length:], x_gm[i * tile_length:], tile_length)
        asc.data_copy(y_local[buf_id * tile_length:], y_gm[i * tile_length:], tile_length)
        asc.set_flag(asc.HardEvent.MTE2_V, buf_id)
        asc.wait_flag(asc.HardEvent.MTE2_V, buf_id)
        asc.add(z_local[buf_id * tile_length:], x_local[buf_id * tile_length:],
                y_local[buf_id * tile_length:], tile_length)
        asc.set_flag(asc.HardEvent.V_MTE3, buf_id)
        asc.wait_flag(asc.HardEvent.V_MTE3, buf_id)
        asc.data_copy(z_gm[i * tile_length:], z_local[buf_id * tile_length:], tile_length)
        asc.set_flag(asc.HardEvent.MTE3_MTE2, buf_id)
        asc.wait_flag(asc.HardEvent.MTE3_MTE2, buf_id)


def vadd_launch(x, y, cores=USE_CORE_NUM):
    z = np.zeros_like(x) if isinstance(x, np.ndarray) else x.new_zeros(x.shape)
    total_length = z.size if isinstance(z, np.ndarray) else z.numel()
    block_length = total_length // cores
    report = vadd_kernel[cores, rt.current_stream()](x, y, z, block_length)
    return z, report


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=8 * 2048)
    parser.add_argument("--dtype", default="float16", choices=["float16", "float32"])
    parser.add_argument("--cores", type=int, default=USE_CORE_NUM)
    parser.add_argument("--numpy", action="store_true", help="pass numpy arrays, not torch")
    parser.add_argument("-v", "--soc-version", default=config.Platform.Ascend910B1.value,
                        choices=[p.value for p in config.Platform])
    args = parser.parse_args()

    config.set_platform(config.Backend.Model, config.Platform(args.soc_version))
    rng = np.random.default_rng(2024)
    x_np = rng.uniform(-100, 100, args.size).astype(args.dtype)
    y_np = rng.uniform(-100, 100, args.size).astype(args.dtype)
    if args.numpy:
        x, y = x_np, y_np
    else:
        try:
            import torch
        except ImportError:
            x, y = x_np, y_np
        else:
            x, y = torch.from_numpy(x_np.copy()), torch.from_numpy(y_np.copy())

    z, report = vadd_launch(x, y, args.cores)
    z_np = z if isinstance(z, np.ndarray) else z.numpy()
    expected = x_np + y_np
    ok = np.array_equal(z_np, expected)
    print(f"vadd {args.size} x {args.dtype} on {args.cores} cores "
          f"({'numpy' if isinstance(x, np.ndarray) else 'torch'} inputs, {rt.transport()}): "
          f"{'PASS' if ok else 'FAIL'}")
    print(f"simulated: {report.cycles} cycles, {report.duration_us:.3f} us at "
          f"{report.clock_mhz:.0f} MHz on {report.platform}")
    print(f"checkers ({report.check.level}): {report.check.summary}")
    if not ok:
        bad = np.flatnonzero(z_np != expected)
        print(f"{bad.size} mismatches, first at {bad[0]}: got {z_np[bad[0]]}, "
              f"expected {expected[bad[0]]}")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
