"""Calibration points for UB bank conflicts: the devkit's ND -> NZ bank-conflict best practice
(hardware-910b.md 7.1 row 11; docs/timing-model.md 7c has every figure with its source),
simulated against the times its README measured on Atlas A2.

An 8192 x 8192 half matrix in ND becomes one compact NZ matrix on 48 vector cores (6 row
splits x 8 column splits). Each core pipelines 144 x 128 tiles (the last row of tiles 128
high) through ping-pong buffers: MTE2 brings a tile into UB, `copy` (8 blocks of 32 bytes a
repeat, one repeat per row) scatters each row's 8 C0 blocks into 8 NZ columns dst_c0_stride
blocks apart, MTE3 writes the NZ tile to GM. Case 1 puts the columns 144 blocks apart, a
multiple of the 16 bank groups, so the 8 writes of a repeat queue on one group; Case 2 puts
them 145 apart (one spare row), spreading them over 8 groups. Measured: msprof's Task Duration,
aiv_vec_time, aiv_mte2_time and aiv_mte3_time.

    python3 bench/calibration/nd2nz_banks.py
"""
import argparse
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "clients", "python"))

import numpy as np  # noqa: E402

import asc  # noqa: E402
import asc.lib.runtime as rt  # noqa: E402
import asc.runtime.config as config  # noqa: E402

H = asc.HardEvent
C0 = 16  # halves in a 32-byte block (a C0 column of NZ is one block wide)


@asc.jit
def nd2nz_tile(x_gm: asc.GlobalTensor, z_gm: asc.GlobalTensor, nd: asc.LocalTensor,
               nz: asc.LocalTensor, total_m: asc.ConstExpr[int], total_n: asc.ConstExpr[int],
               tile_h: asc.ConstExpr[int], tile_w: asc.ConstExpr[int],
               vec_len: asc.ConstExpr[int], c0_stride: asc.ConstExpr[int], tile_row: int,
               tile_col: int, event: asc.ConstExpr[int]):
    """One tile through one buffer pair, with the source's flags on event id `event`."""
    row0 = tile_row * tile_h
    col0 = tile_col * tile_w
    rows = total_m - row0
    if rows > tile_h:
        rows = tile_h
    asc.wait_flag(H.V_MTE2, event)
    asc.data_copy(nd, x_gm[row0 * total_n + col0:],
                  asc.DataCopyParams(rows, tile_w // C0, (total_n - tile_w) // C0, 0))
    asc.set_flag(H.MTE2_V, event)
    asc.wait_flag(H.MTE2_V, event)
    asc.wait_flag(H.MTE3_V, event)
    # Repeat r reads row r of the tile (tile_w / C0 blocks on) and writes its blocks one C0
    # column apart, one block down per repeat.
    params = asc.CopyRepeatParams(c0_stride, 1, 1, tile_w // C0)
    for k in asc.static_range(tile_w // vec_len):
        asc.copy(nz[k * (vec_len // C0) * c0_stride * C0:], nd[k * vec_len:], vec_len, rows,
                 params)
    asc.set_flag(H.V_MTE2, event)
    asc.set_flag(H.V_MTE3, event)
    asc.wait_flag(H.V_MTE3, event)
    out_block = row0 + col0 // C0 * total_m
    asc.data_copy(z_gm[out_block * C0:], nz,
                  asc.DataCopyParams(tile_w // C0, rows, c0_stride - rows, total_m - rows))
    asc.set_flag(H.MTE3_V, event)


@asc.jit
def nd2nz_banks(x: asc.GlobalAddress, z: asc.GlobalAddress, total_m: asc.ConstExpr[int],
                total_n: asc.ConstExpr[int], tile_h: asc.ConstExpr[int],
                tile_w: asc.ConstExpr[int], vec_len: asc.ConstExpr[int],
                row_splits: asc.ConstExpr[int], col_splits: asc.ConstExpr[int],
                c0_stride: asc.ConstExpr[int]):
    """The source's KernelNd2Nz on row_splits x col_splits cores, dst_c0_stride c0_stride."""
    row_tiles = (total_m + tile_h - 1) // tile_h
    cols_per_split = total_n // tile_w // col_splits
    nd_bytes = tile_h * tile_w * 2
    # The NZ tile spans its 8 columns; Case 2 (a stride past tile_h) keeps one more block.
    nz_blocks = tile_h + (tile_w // C0 - 1) * c0_stride + (1 if c0_stride != tile_h else 0)
    nz_bytes = nz_blocks * C0 * 2
    x_gm = asc.GlobalTensor()
    x_gm.set_global_buffer(x, total_m * total_n)
    z_gm = asc.GlobalTensor()
    z_gm.set_global_buffer(z, total_m * total_n)
    # UB holds [nd ping | nd pong | nz ping | nz pong], as in the source.
    nd_ping = asc.LocalTensor(asc.float16, asc.TPosition.VECIN, 0, tile_h * tile_w)
    nd_pong = asc.LocalTensor(asc.float16, asc.TPosition.VECIN, nd_bytes, tile_h * tile_w)
    nz_ping = asc.LocalTensor(asc.float16, asc.TPosition.VECOUT, 2 * nd_bytes, nz_blocks * C0)
    nz_pong = asc.LocalTensor(asc.float16, asc.TPosition.VECOUT, 2 * nd_bytes + nz_bytes,
                              nz_blocks * C0)
    block = asc.get_block_idx()
    if block < row_splits * col_splits:
        row_split = block // col_splits
        col_split = block % col_splits
        base = row_tiles // row_splits
        extra = row_tiles % row_splits
        first = row_split * base + row_split
        count = base + 1
        if row_split >= extra:
            first = row_split * base + extra
            count = base
        tiles = count * cols_per_split
        for b in asc.static_range(2):
            asc.set_flag(H.V_MTE2, b)
            asc.set_flag(H.MTE3_V, b)
        # Even tiles use the ping buffers and event 0, odd ones the pong buffers and event 1.
        for pair in range(0, tiles, 2):
            for b in asc.static_range(2):
                i = pair + b
                if i < tiles:
                    tile_row = first + i // cols_per_split
                    tile_col = col_split * cols_per_split + i % cols_per_split
                    if b == 0:
                        nd2nz_tile(x_gm, z_gm, nd_ping, nz_ping, total_m, total_n, tile_h,
                                   tile_w, vec_len, c0_stride, tile_row, tile_col, 0)
                    else:
                        nd2nz_tile(x_gm, z_gm, nd_pong, nz_pong, total_m, total_n, tile_h,
                                   tile_w, vec_len, c0_stride, tile_row, tile_col, 1)
        for b in asc.static_range(2):
            asc.wait_flag(H.V_MTE2, b)
            asc.wait_flag(H.MTE3_V, b)
    asc.pipe_barrier(asc.PipeID.PIPE_ALL)


def nz_of(x, total_m, total_n):
    """numpy's compact NZ of an ND matrix: C0 column j holds rows 0..M-1 of columns 16j..16j+15."""
    return np.ascontiguousarray(x.reshape(total_m, total_n // C0, C0).transpose(1, 0, 2)).ravel()


# (id, what, dst_c0_stride, measured Task Duration, aiv_vec, aiv_mte2, aiv_mte3 us), Atlas A2.
CASES = [
    ("ND2NZ-1", "C0 columns 144 blocks apart (8-way group conflict)", 144, 151.42, 47.790,
     113.856, 76.760),
    ("ND2NZ-2", "C0 columns 145 blocks apart (one spare row)", 145, 144.00, 7.133, 115.405,
     76.532),
]
SHAPE = dict(total_m=8192, total_n=8192, tile_h=144, tile_w=128, vec_len=128, row_splits=6,
             col_splits=8)


def busiest_us(report, pipe):
    return max((c.pipes[pipe].busy_cycles for c in report.cores if pipe in c.pipes),
               default=0) / report.clock_mhz


def nd2nz_inputs():
    """The input matrix and numpy's NZ of it (the same on every call)."""
    m, n = SHAPE["total_m"], SHAPE["total_n"]
    x = np.random.default_rng(11).uniform(-8, 8, m * n).astype(np.float16)
    return x, nz_of(x, m, n)


def simulate_case(case, inputs=None):
    """One case at full size, its NZ matrix checked against numpy's: a dict with sim_us (Task
    Duration), pipes (busy us of the busiest core per pipe), wall_s and check."""
    rt.reset_device()  # a fresh device: the figure does not depend on earlier points
    cid, _, stride = case[:3]
    config.set_platform(config.Backend.Model, config.Platform.Ascend910B1)
    x, want = inputs if inputs is not None else nd2nz_inputs()
    z = np.zeros_like(x)
    cores = SHAPE["row_splits"] * SHAPE["col_splits"]
    start = time.perf_counter()
    report = nd2nz_banks[cores, rt.current_stream()](x, z, c0_stride=stride, **SHAPE)
    wall = time.perf_counter() - start
    check = "" if np.array_equal(z, want) else \
        f"the NZ matrix differs from numpy's in {np.count_nonzero(z != want)} elements"
    names = sorted({name for core in report.cores for name in core.pipes})
    return dict(sim_us=report.duration_us, pipes={name: busiest_us(report, name)
                                                  for name in names},
                bound=report.bound_pipe, wall_s=wall, check=check)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.parse_args()
    config.set_platform(config.Backend.Model, config.Platform.Ascend910B1)
    inputs = nd2nz_inputs()
    cores = SHAPE["row_splits"] * SHAPE["col_splits"]
    print("UB bank conflicts (hardware-910b.md 7.1 row 11; the ND2NZ bank-conflict best "
          f"practice), Ascend910B1, {cores} vector cores, {rt.transport()} simulator")
    print(f"{'id':8s} {'case':52s} {'sim us':>7s} {'meas':>7s} {'error':>7s} "
          f"{'vec':>6s} {'meas':>6s} {'mte2':>6s} {'meas':>6s} {'mte3':>6s} {'meas':>6s} "
          f"{'wall s':>6s}")
    errors = []
    for case in CASES:
        cid, what, _, task, vec, mte2, mte3 = case
        r = simulate_case(case, inputs)
        if r["check"]:
            print(f"{cid}: FAIL, {r['check']}")
            return 1
        err = (r["sim_us"] - task) / task * 100
        errors.append(abs(err))
        p = r["pipes"]
        print(f"{cid:8s} {what:52s} {r['sim_us']:7.1f} {task:7.1f} {err:+6.1f}% "
              f"{p.get('V', 0):6.1f} {vec:6.1f} {p.get('MTE2', 0):6.1f} {mte2:6.1f} "
              f"{p.get('MTE3', 0):6.1f} {mte3:6.1f} {r['wall_s']:6.1f}")
    print(f"bank conflicts: MAPE {sum(errors) / len(errors):.1f}% over {len(errors)} points "
          "(printed, not fitted)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
