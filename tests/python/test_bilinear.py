"""asc.bilinear_interpolation (asc-api.md 4.5): per vertical step, the sum over horizontal steps
of 8 blocks of src0 gathered at byte offsets times src1's scalars, into one 128-lane window of
dst; against a numpy model that rounds each product and each sum to half (the model's choice,
docs/isa.md)."""
import numpy as np
import pytest

import asc
import asc.lib.runtime as rt

H, V = 2, 2
SRC_ELEMS = 128 * H * V


@asc.jit
def bilinear_kernel(x: asc.GlobalAddress, offsets: asc.GlobalAddress, scalars: asc.GlobalAddress,
                    out: asc.GlobalAddress, n_offsets: asc.ConstExpr[int],
                    n_scalars: asc.ConstExpr[int], mask: asc.ConstExpr,
                    repeat_mode: asc.ConstExpr[bool], dst_blk_stride: asc.ConstExpr[int],
                    v_r_offset: asc.ConstExpr[int], n_out: asc.ConstExpr[int]):
    gx, go, gs, gy = asc.GlobalTensor(), asc.GlobalTensor(), asc.GlobalTensor(), asc.GlobalTensor()
    gx.set_global_buffer(x)
    go.set_global_buffer(offsets)
    gs.set_global_buffer(scalars)
    gy.set_global_buffer(out)
    pipe = asc.TPipe()
    q_src = asc.TQue(asc.TPosition.VECIN, 1)
    q_off = asc.TQue(asc.TPosition.VECIN, 1)
    q_scl = asc.TQue(asc.TPosition.VECIN, 1)
    q_dst = asc.TQue(asc.TPosition.VECOUT, 1)
    tmp_buf = asc.TBuf(asc.TPosition.VECCALC)
    pipe.init_buffer(que=q_src, num=1, len=512 * 2)
    pipe.init_buffer(que=q_off, num=1, len=n_offsets * 4)
    pipe.init_buffer(que=q_scl, num=1, len=n_scalars * 2)
    pipe.init_buffer(que=q_dst, num=1, len=n_out * 2)
    pipe.init_buffer(buf=tmp_buf, num=256)
    src = q_src.alloc_tensor(asc.half)
    off = q_off.alloc_tensor(asc.uint32)
    scl = q_scl.alloc_tensor(asc.half)
    asc.data_copy(src, gx, count=512)
    asc.data_copy(off, go, count=n_offsets)
    asc.data_copy(scl, gs, count=n_scalars)
    q_src.enque(src)
    q_off.enque(off)
    q_scl.enque(scl)
    src = q_src.deque(asc.half)
    off = q_off.deque(asc.uint32)
    scl = q_scl.deque(asc.half)
    dst = q_dst.alloc_tensor(asc.half)
    asc.duplicate(dst, 7.0, n_out)
    asc.pipe_barrier(asc.PipeID.PIPE_V)
    tmp = tmp_buf.alloc_tensor(asc.uint8)
    asc.bilinear_interpolation(dst, src, off, scl, mask, 2, repeat_mode, dst_blk_stride,
                               v_r_offset, 2, tmp)
    tmp_buf.free_tensor(tmp)
    q_dst.enque(dst)
    q_src.free_tensor(src)
    q_off.free_tensor(off)
    q_scl.free_tensor(scl)
    dst = q_dst.deque(asc.half)
    asc.data_copy(gy, dst, count=n_out)
    q_dst.free_tensor(dst)


def model(x, offsets, scalars, mask_lanes, repeat_mode, dst_blk_stride, v_r_offset, n_out):
    out = np.full(n_out, 7, dtype=np.float16)
    for v in range(V):
        acc = None
        for h in range(H):
            step = v * H + h
            blocks = [x[offsets[step * 8 + b] // 2:][:16] for b in range(8)]
            vec = np.concatenate(blocks)
            if repeat_mode:
                s = np.repeat(scalars[step * 8:step * 8 + 8], 16)
            else:
                s = np.full(128, scalars[step], dtype=np.float16)
            prod = (vec * s).astype(np.float16)
            acc = prod if acc is None else (acc + prod).astype(np.float16)
        for e in mask_lanes:
            out[v * v_r_offset + (e // 16) * dst_blk_stride * 16 + e % 16] = acc[e]
    return out


def run(offsets, repeat_mode, mask, dst_blk_stride=1, v_r_offset=128, n_out=256):
    rng = np.random.default_rng(8)
    x = rng.uniform(-2, 2, 512).astype(np.float16)
    n_scalars = H * V * (8 if repeat_mode else 1)
    scalars = np.zeros(max(n_scalars, 16), dtype=np.float16)
    scalars[:n_scalars] = rng.uniform(0, 1, n_scalars).astype(np.float16)
    offsets = np.asarray(offsets, dtype=np.uint32)
    out = np.zeros(n_out, dtype=np.float16)
    bilinear_kernel[1, rt.current_stream()](x, offsets, scalars, out, len(offsets),
                                            len(scalars), mask, repeat_mode, dst_blk_stride,
                                            v_r_offset, n_out)
    return x, scalars, out


def test_pyasc_kernel_shape_sums_the_horizontal_steps(device):
    # The shape of pyasc's kernel test: offsets 32 * i, one scalar per step, mask 128:
    # dst[128 v + e] = sum_h src0[128 (2 v + h) + e] * src1[2 v + h].
    offsets = 32 * np.arange(H * V * 8)
    x, scalars, out = run(offsets, False, 128)
    want = model(x, offsets, scalars, range(128), False, 1, 128, 256)
    np.testing.assert_array_equal(out, want)
    exact = [sum(np.float64(x[128 * (2 * v + h) + e]) * np.float64(scalars[2 * v + h])
                 for h in range(H)) for v in range(V) for e in range(128)]
    np.testing.assert_allclose(out.astype(np.float64), exact, rtol=2e-3, atol=2e-3)


def test_gathered_blocks_per_block_scalars_strides_and_a_bit_mask(device):
    # Blocks picked out of order, 8 scalars per step (repeat_mode), dst blocks 2 apart,
    # windows 320 elements apart, and a bit mask: unmasked lanes keep dst's value.
    rng = np.random.default_rng(3)
    offsets = 32 * rng.permutation(32)[:H * V * 8]
    mask = [0xFFFF_0000_00FF_F00F, 0x8000_0000_0000_0001]
    lanes = [e for e in range(128) if (mask[e // 64] >> (e % 64)) & 1]
    x, scalars, out = run(offsets, True, mask, dst_blk_stride=2, v_r_offset=320, n_out=576)
    np.testing.assert_array_equal(out, model(x, offsets, scalars, lanes, True, 2, 320, 576))


def test_partial_continuous_mask(device):
    offsets = 32 * np.arange(H * V * 8)
    x, scalars, out = run(offsets, False, 50)
    np.testing.assert_array_equal(out, model(x, offsets, scalars, range(50), False, 1, 128, 256))


def test_an_offset_past_src0_names_the_entry(device):
    offsets = 32 * np.arange(H * V * 8)
    offsets[5] = 1024  # src0 holds 512 halves: 1024 bytes, so this block lies past its end
    with pytest.raises(Exception, match=r"src0_offset\[5\] = 1024 selects a 32-byte block past "
                                        r"src0's 1024 bytes"):
        run(offsets, False, 128)
