"""FlashAttention-2 forward on aicore-sim: softmax(scale Q K^T) V per head, in a mixed kernel
(MIX_AIC_1_2) whose cube core runs two asc.adv.Matmuls per KV tile (scores Q K^T, then the
partial P V) and whose two vector cores each keep half the query rows' running softmax with
asc.adv.softmax_flash_v2 (a first call, then is_update for each further tile), rescale their
output by exp_max and divide by the row sums at the end. The three cores meet through GM
workspaces of two slots and cross-core flags (asc-api.md 10.7). Prints PASS/FAIL against
numpy, the simulated cycles and the checkers' summary; exits non-zero on a mismatch.
docs/adv.md describes softmax_flash_v2's instruction sequence.

    python3 examples/flash_attention.py [--heads 2] [--seq 256] [--groups 4]
"""
import argparse
import math
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "clients",
                                "python"))

import numpy as np  # noqa: E402

import asc  # noqa: E402
import asc.lib.host as host  # noqa: E402
import asc.lib.runtime as rt  # noqa: E402
import asc.runtime.config as config  # noqa: E402
from example_report import print_report  # noqa: E402

ROWS = 64  # query rows of a task, 32 per vector core
HALF = ROWS // 2
KV = 128   # keys and values per tile
D = 64     # head dimension
STATE = 8  # a row's float state (sum, max) fills one 32-byte block
EXP = 16   # a row's half exp_max fills one 32-byte block

# Flags of a group, two workspace slots s (one KV tile each), as the attention protocol uses:
#   2s scores ready (cube -> vectors), 2s + 1 probabilities ready (vectors -> cube),
#   4 + 2s partial ready (cube -> vectors), 5 + 2s partial consumed (vectors -> cube).


@asc.jit
def cube_side(q_gm, k_gm, v_gm, s_ws, p_ws, o_ws, qk, pv, group, groups, tasks, tiles,
              seq: asc.ConstExpr[int]):
    """For each of this group's tasks (a head and 64 query rows) and each KV tile: the scores
    into slot s, then the partial P V from the probabilities the vector cores wrote there."""
    slot_scores = s_ws[group * 2 * ROWS * KV:]
    slot_probs = p_ws[group * 2 * ROWS * KV:]
    slot_parts = o_ws[group * 2 * ROWS * D:]
    step = 0
    for task in asc.range(group, tasks, groups):
        head = task // (seq // ROWS)
        q_rows = head * seq * D + task % (seq // ROWS) * ROWS * D
        for t in asc.range(tiles):
            s = step % 2
            if step >= 2:
                asc.cross_core_wait_flag(5 + 2 * s, mode_id=0, pipe=asc.PipeID.PIPE_S)
            kv_rows = head * seq * D + t * KV * D
            qk.set_tensor_a(q_gm[q_rows:], False)
            qk.set_tensor_b(k_gm[kv_rows:], True)
            qk.iterate_all(slot_scores[s * ROWS * KV:], en_atomic=0, sync=True,
                           en_sequential_write=False, wait_iterate_all=False, fake_msg=False)
            asc.cross_core_set_flag(2 * s, mode_id=2, pipe=asc.PipeID.PIPE_FIX)
            asc.cross_core_wait_flag(2 * s + 1, mode_id=0, pipe=asc.PipeID.PIPE_S)
            pv.set_tensor_a(slot_probs[s * ROWS * KV:], False)
            pv.set_tensor_b(v_gm[kv_rows:], False)
            pv.iterate_all(slot_parts[s * ROWS * D:], en_atomic=0, sync=True,
                           en_sequential_write=False, wait_iterate_all=False, fake_msg=False)
            asc.cross_core_set_flag(4 + 2 * s, mode_id=2, pipe=asc.PipeID.PIPE_FIX)
            step += 1
    first = step - 2 if step > 2 else 0
    for j in asc.range(first, step):
        asc.cross_core_wait_flag(5 + 2 * (j % 2), mode_id=0, pipe=asc.PipeID.PIPE_S)
    qk.end()
    pv.end()


@asc.jit
def rescale_rows(acc, state, state_blocks: asc.ConstExpr[int], name: asc.ConstExpr[str]):
    """acc (HALF rows of D floats) (op) each row's first state value, op mul or div: one
    instruction, a row a repeat, the state's block read with block stride 0."""
    params = asc.BinaryRepeatParams(1, 1, 0, D // 8, D // 8, state_blocks)
    if name == "mul":
        asc.mul(acc, acc, state, D, HALF, params)
    else:
        asc.div(acc, acc, state, D, HALF, params)


@asc.jit
def vector_side(s_ws, p_ws, o_ws, out_gm, pipe, group, groups, tasks, tiles,
                seq: asc.ConstExpr[int], scale: asc.ConstExpr[float],
                sm_tiling: asc.adv.SoftmaxTiling):
    """This vector core's half of each task's rows: the running softmax over the KV tiles with
    softmax_flash_v2, the output rescaled by exp_max as each partial arrives."""
    r0 = asc.get_sub_block_idx() * HALF
    slot_scores = s_ws[group * 2 * ROWS * KV:]
    slot_probs = p_ws[group * 2 * ROWS * KV:]
    slot_parts = o_ws[group * 2 * ROWS * D:]
    buf = asc.TBuf(asc.TPosition.VECCALC)
    pipe.init_buffer(buf=buf, len=(2 * HALF * KV * 2 + 3 * HALF * D * 4 + 2 * HALF * STATE * 4
                                   + 2 * HALF * EXP * 2))
    scores = buf.get_with_offset(HALF * KV, 0, asc.float16)
    probs = buf.get_with_offset(HALF * KV, HALF * KV * 2, asc.float16)
    part = buf.get_with_offset(HALF * D, 2 * HALF * KV * 2, asc.float32)
    acc = buf.get_with_offset(HALF * D, 2 * HALF * KV * 2 + HALF * D * 4, asc.float32)
    sums = buf.get_with_offset(HALF * STATE, 2 * HALF * KV * 2 + 2 * HALF * D * 4, asc.float32)
    maxes = buf.get_with_offset(HALF * STATE, 2 * HALF * KV * 2 + 2 * HALF * D * 4
                                + HALF * STATE * 4, asc.float32)
    exp_max = buf.get_with_offset(HALF * EXP, 2 * HALF * KV * 2 + 2 * HALF * D * 4
                                  + 2 * HALF * STATE * 4, asc.float16)
    exp_wide = buf.get_with_offset(HALF * EXP, 2 * HALF * KV * 2 + 2 * HALF * D * 4
                                   + 2 * HALF * STATE * 4 + HALF * EXP * 2, asc.float32)
    shape = asc.adv.SoftMaxShapeInfo(HALF, KV, HALF, KV)
    step = 0
    for task in asc.range(group, tasks, groups):
        head = task // (seq // ROWS)
        out_rows = head * seq * D + task % (seq // ROWS) * ROWS * D + r0 * D
        for t in asc.range(tiles):
            s = step % 2
            asc.cross_core_wait_flag(2 * s, mode_id=0, pipe=asc.PipeID.PIPE_S)
            asc.data_copy(scores, slot_scores[s * ROWS * KV + r0 * KV:], count=HALF * KV)
            asc.set_flag(asc.HardEvent.MTE2_V, 0)
            asc.wait_flag(asc.HardEvent.MTE2_V, 0)
            asc.muls(scores, scores, scale, count=HALF * KV)
            asc.pipe_barrier(asc.PipeID.PIPE_V)
            if t == 0:
                asc.adv.softmax_flash_v2(probs, sums, maxes, scores, exp_max, sums, maxes,
                                         sm_tiling, shape)
            else:
                asc.adv.softmax_flash_v2(probs, sums, maxes, scores, exp_max, sums, maxes,
                                         sm_tiling, shape, is_update=True)
            asc.set_flag(asc.HardEvent.V_MTE3, 0)
            asc.wait_flag(asc.HardEvent.V_MTE3, 0)
            asc.data_copy(slot_probs[s * ROWS * KV + r0 * KV:], probs, count=HALF * KV)
            asc.cross_core_set_flag(2 * s + 1, mode_id=2, pipe=asc.PipeID.PIPE_MTE3)
            asc.cross_core_wait_flag(4 + 2 * s, mode_id=0, pipe=asc.PipeID.PIPE_S)
            asc.data_copy(part, slot_parts[s * ROWS * D + r0 * D:], count=HALF * D)
            asc.cross_core_set_flag(5 + 2 * s, mode_id=2, pipe=asc.PipeID.PIPE_MTE2)
            asc.set_flag(asc.HardEvent.MTE2_V, 1)
            asc.wait_flag(asc.HardEvent.MTE2_V, 1)
            if t == 0:
                asc.adds(acc, part, 0.0, count=HALF * D)
            else:
                asc.cast(exp_wide, exp_max, asc.RoundMode.CAST_NONE, HALF * EXP)
                asc.pipe_barrier(asc.PipeID.PIPE_V)
                rescale_rows(acc, exp_wide, EXP // 8, "mul")
                asc.pipe_barrier(asc.PipeID.PIPE_V)
                asc.add(acc, acc, part, count=HALF * D)
            asc.pipe_barrier(asc.PipeID.PIPE_V)
            step += 1
        rescale_rows(acc, sums, STATE // 8, "div")
        asc.set_flag(asc.HardEvent.V_MTE3, 1)
        asc.wait_flag(asc.HardEvent.V_MTE3, 1)
        asc.data_copy(out_gm[out_rows:], acc, count=HALF * D)
        asc.set_flag(asc.HardEvent.MTE3_V, 0)
        asc.wait_flag(asc.HardEvent.MTE3_V, 0)


@asc.jit(kernel_type=config.KernelType.MIX_AIC_1_2)
def flash_attention_kernel(q: asc.GlobalAddress, k: asc.GlobalAddress, v: asc.GlobalAddress,
                           out: asc.GlobalAddress, s_ws: asc.GlobalAddress,
                           p_ws: asc.GlobalAddress, o_ws: asc.GlobalAddress,
                           qk_tiling: asc.adv.TCubeTiling, pv_tiling: asc.adv.TCubeTiling,
                           sm_tiling: asc.adv.SoftmaxTiling, heads: asc.ConstExpr[int],
                           seq: asc.ConstExpr[int], scale: asc.ConstExpr[float]):
    """out[h] = softmax(scale q[h] k[h]^T) v[h] for each head h: q, k, v (heads, seq, D) float16,
    out float32; the workspaces hold two slots per group."""
    q_gm, k_gm, v_gm, out_gm = (asc.GlobalTensor(), asc.GlobalTensor(), asc.GlobalTensor(),
                                asc.GlobalTensor())
    s_gm, p_gm, o_gm = asc.GlobalTensor(), asc.GlobalTensor(), asc.GlobalTensor()
    q_gm.set_global_buffer(q)
    k_gm.set_global_buffer(k)
    v_gm.set_global_buffer(v)
    out_gm.set_global_buffer(out)
    s_gm.set_global_buffer(s_ws)
    p_gm.set_global_buffer(p_ws)
    o_gm.set_global_buffer(o_ws)
    cfg = asc.adv.MatmulConfig(enable_get_tensor_c=False, enable_set_bias=False,
                               iterate_mode=asc.IterateMode.ITERATE_MODE_ALL,
                               enable_mix_dual_master=True)
    pipe = asc.TPipe()
    qk = asc.adv.Matmul(asc.adv.MatmulType(asc.TPosition.GM, asc.CubeFormat.ND, asc.float16),
                        asc.adv.MatmulType(asc.TPosition.GM, asc.CubeFormat.ND, asc.float16,
                                           True),
                        asc.adv.MatmulType(asc.TPosition.GM, asc.CubeFormat.ND, asc.float16),
                        matmul_config=cfg)
    pv = asc.adv.Matmul(asc.adv.MatmulType(asc.TPosition.GM, asc.CubeFormat.ND, asc.float16),
                        asc.adv.MatmulType(asc.TPosition.GM, asc.CubeFormat.ND, asc.float16),
                        asc.adv.MatmulType(asc.TPosition.GM, asc.CubeFormat.ND, asc.float32),
                        matmul_config=cfg)
    asc.adv.register_matmul(pipe, qk, qk_tiling)
    asc.adv.register_matmul(pipe, pv, pv_tiling)
    group = asc.get_block_idx() // asc.get_task_ratio()
    groups = asc.get_block_num()
    tasks = heads * (seq // ROWS)
    tiles = seq // KV
    if asc.ascend_is_aic():
        cube_side(q_gm, k_gm, v_gm, s_gm, p_gm, o_gm, qk, pv, group, groups, tasks, tiles, seq)
    else:
        vector_side(s_gm, p_gm, o_gm, out_gm, pipe, group, groups, tasks, tiles, seq, scale,
                    sm_tiling)


def matmul_tiling(m, n, k, b_transposed, c_type):
    """A one-core host tiling of an (m x k) x (k x n) product, A and B float16 in GM."""
    api = host.MultiCoreMatmulTiling(host.get_ascendc_platform())
    api.set_a_type(host.TPosition.GM, host.CubeFormat.ND, host.DataType.DT_FLOAT16, False)
    api.set_b_type(host.TPosition.GM, host.CubeFormat.ND, host.DataType.DT_FLOAT16, b_transposed)
    api.set_c_type(host.TPosition.GM, host.CubeFormat.ND, c_type)
    api.set_dim(1)
    api.set_org_shape(m, n, k)
    api.set_shape(m, n, k)
    api.enable_bias(False)
    api.set_buffer_space(-1, -1, -1)
    tiling = asc.adv.TCubeTiling()
    if api.get_tiling(tiling) != 0:
        raise SystemExit(f"no Matmul tiling for {m}x{n}x{k}")
    return tiling


def softmax_tiling(rows, cols):
    """The flash softmax's tiling for one vector core's rows of a KV tile: one pass."""
    return asc.adv.SoftmaxTiling(
        src_m=rows, src_k=cols, src_size=rows * cols, out_max_m=rows, out_max_k=STATE,
        out_max_size=rows * STATE, split_m=rows, split_k=cols, split_size=rows * cols,
        reduce_m=rows, reduce_k=STATE, reduce_size=rows * STATE, range_m=1, tail_m=0,
        tail_split_size=0, tail_reduce_size=0)


def reference(q, k, v, scale):
    """Attention in float64 from the float16 inputs."""
    s = np.einsum("hqd,hkd->hqk", q.astype(np.float64), k.astype(np.float64)) * scale
    p = np.exp(s - s.max(axis=2, keepdims=True))
    return np.einsum("hqk,hkd->hqd", p / p.sum(axis=2, keepdims=True), v.astype(np.float64))


def flash_attention_launch(q, k, v, groups):
    """out (heads, seq, D) float32 and the report of one launch on `groups` groups; q, k, v
    (heads, seq, D) float16 with seq a multiple of KV."""
    heads, seq, _ = q.shape
    out = np.zeros((heads, seq, D), np.float32)
    s_ws = np.zeros(groups * 2 * ROWS * KV, np.float16)
    p_ws = np.zeros(groups * 2 * ROWS * KV, np.float16)
    o_ws = np.zeros(groups * 2 * ROWS * D, np.float32)
    report = flash_attention_kernel[groups, rt.current_stream()](
        q, k, v, out, s_ws, p_ws, o_ws,
        matmul_tiling(ROWS, KV, D, True, host.DataType.DT_FLOAT16),
        matmul_tiling(ROWS, D, KV, False, host.DataType.DT_FLOAT), softmax_tiling(HALF, KV),
        heads, seq, 1.0 / math.sqrt(D))
    return out, report


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--heads", type=int, default=2)
    parser.add_argument("--seq", type=int, default=256, help=f"a multiple of {KV}")
    parser.add_argument("--groups", type=int, default=4, help="AIC + 2 AIV groups")
    parser.add_argument("-v", "--soc-version", default=config.Platform.Ascend910B1.value,
                        choices=[p.value for p in config.Platform])
    args = parser.parse_args()
    if args.seq % KV or args.seq <= 0:
        parser.error(f"--seq must be a positive multiple of {KV}")
    if args.heads <= 0 or args.groups <= 0:
        parser.error("--heads and --groups must be positive")
    config.set_platform(config.Backend.Model, config.Platform(args.soc_version))
    heads, seq, groups = args.heads, args.seq, args.groups
    rng = np.random.default_rng(0)
    q, k, v = (rng.uniform(-1, 1, (heads, seq, D)).astype(np.float16) for _ in range(3))
    out, report = flash_attention_launch(q, k, v, groups)
    want = reference(q, k, v, 1.0 / math.sqrt(D))
    err = float(np.abs(out - want).max())
    ok = np.allclose(out, want, rtol=1e-2, atol=1e-2)
    print(f"flash attention, {heads} heads x {seq} rows x {D} float16, {seq // KV} KV tiles of "
          f"{KV}, on {groups} AIC+2AIV groups ({rt.transport()}): "
          f"{'PASS' if ok else 'FAIL'} (worst error {err:.2e})")
    print_report(report)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
