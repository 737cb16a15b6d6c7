"""Mixed AIC + AIV kernels of the tests (MIX_AIC_1_2: group g is cube core g with vector cores
2g and 2g + 1). The cube core computes C = A x B^T tile by tile and hands each tile to its two
vector cores through a GM workspace and mode-2 cross-core flags (asc-api.md 10.7); the vector
cores run a leaky_relu epilogue on half the tile's rows each and write C.

Flags per group, two workspace slots s = 0, 1 (as the attention protocol's pairs):
  s     tile ready: the cube core sets it on PIPE_FIX after the fixpipe into slot s;
  2 + s slot free: both vector cores set it on PIPE_MTE3 once their rows are out, and the cube
        core waits for it before writing slot s again and, at the end, for the last two tiles.
"""
import asc
import asc.runtime.config as config

from cube_kernels import queue_tile


@asc.jit
def tile_place(tile, m: asc.ConstExpr[int], n: asc.ConstExpr[int], tile_m: asc.ConstExpr[int],
               tile_n: asc.ConstExpr[int]):
    """Where tile `tile` of C lies (tiles column-major over M first) and its actual rows and
    columns."""
    m_tiles = asc.ceildiv(m, tile_m)
    row0 = (tile % m_tiles) * tile_m
    n0 = (tile // m_tiles) * tile_n
    m_act = tile_m if m - row0 > tile_m else m - row0
    n_act = tile_n if n - n0 > tile_n else n - n0
    return row0, n0, m_act, n_act


@asc.jit
def cube_side(a_gm, bt_gm, ws_gm, m: asc.ConstExpr[int], n: asc.ConstExpr[int],
              k: asc.ConstExpr[int], tile_m: asc.ConstExpr[int], tile_n: asc.ConstExpr[int],
              tile_k: asc.ConstExpr[int], flags: asc.ConstExpr[bool]):
    pipe = asc.TPipe()
    q_a1 = asc.TQue(asc.TPosition.A1, 2)
    q_b1 = asc.TQue(asc.TPosition.B1, 2)
    q_a2 = asc.TQue(asc.TPosition.A2, 2)
    q_b2 = asc.TQue(asc.TPosition.B2, 2)
    q_co1 = asc.TQue(asc.TPosition.CO1, 1)
    pipe.init_buffer(q_a1, 2, tile_m * tile_k * 2)
    pipe.init_buffer(q_b1, 2, tile_n * tile_k * 2)
    pipe.init_buffer(q_a2, 2, tile_m * tile_k * 2)
    pipe.init_buffer(q_b2, 2, tile_n * tile_k * 2)
    pipe.init_buffer(q_co1, 1, tile_m * tile_n * 4)
    block = asc.get_block_idx()
    blocks = asc.get_block_num()
    tiles = asc.ceildiv(m, tile_m) * asc.ceildiv(n, tile_n)
    for tile in asc.range(block, tiles, blocks):
        j = (tile - block) // blocks
        slot = j % 2
        if flags:
            if j >= 2:
                asc.cross_core_wait_flag(2 + slot, mode_id=0, pipe=asc.PipeID.PIPE_S)
        row0, n0, m_act, n_act = tile_place(tile, m, n, tile_m, tile_n)
        queue_tile(a_gm, bt_gm, ws_gm[(block * 2 + slot) * tile_m * tile_n:], q_a1, q_b1, q_a2,
                   q_b2, q_co1, row0, n0, m_act, n_act, tile_n, k, tile_k, asc.float16,
                   asc.QuantModes.F322F16)
        if flags:
            asc.cross_core_set_flag(slot, mode_id=2, pipe=asc.PipeID.PIPE_FIX)
    if flags:
        # The last two tiles' "slot free" sets are drained before the kernel ends.
        mine = (tiles - block + blocks - 1) // blocks if block < tiles else 0
        first = mine - 2 if mine > 2 else 0
        for j in asc.range(first, mine):
            asc.cross_core_wait_flag(2 + j % 2, mode_id=0, pipe=asc.PipeID.PIPE_S)


@asc.jit
def vector_side(ws_gm, c_gm, m: asc.ConstExpr[int], n: asc.ConstExpr[int],
                tile_m: asc.ConstExpr[int], tile_n: asc.ConstExpr[int], alpha: asc.ConstExpr[float],
                flags: asc.ConstExpr[bool]):
    ub = asc.LocalTensor(asc.float16, asc.TPosition.VECIN, 0, tile_m * tile_n)
    block = asc.get_block_idx() // asc.get_task_ratio()
    blocks = asc.get_block_num()
    half_id = asc.get_sub_block_idx()
    tiles = asc.ceildiv(m, tile_m) * asc.ceildiv(n, tile_n)
    for tile in asc.range(block, tiles, blocks):
        j = (tile - block) // blocks
        slot = j % 2
        row0, n0, m_act, n_act = tile_place(tile, m, n, tile_m, tile_n)
        half = (m_act + 1) // 2
        r0 = half_id * half
        rows = half if m_act - r0 > half else m_act - r0
        if flags:
            asc.cross_core_wait_flag(slot, mode_id=0, pipe=asc.PipeID.PIPE_S)
        asc.data_copy(ub, ws_gm[(block * 2 + slot) * tile_m * tile_n + r0 * tile_n:],
                      asc.DataCopyParams(rows, n_act // 16, (tile_n - n_act) // 16, 0))
        asc.set_flag(asc.HardEvent.MTE2_V, 0)
        asc.wait_flag(asc.HardEvent.MTE2_V, 0)
        asc.leaky_relu(ub, ub, alpha, count=rows * n_act)
        asc.set_flag(asc.HardEvent.V_MTE3, 0)
        asc.wait_flag(asc.HardEvent.V_MTE3, 0)
        asc.data_copy(c_gm[(row0 + r0) * n + n0:], ub,
                      asc.DataCopyParams(rows, n_act // 16, 0, (n - n_act) // 16))
        if flags:
            asc.cross_core_set_flag(2 + slot, mode_id=2, pipe=asc.PipeID.PIPE_MTE3)
        asc.pipe_barrier(asc.PipeID.PIPE_ALL)


@asc.jit(kernel_type=config.KernelType.MIX_AIC_1_2)
def matmul_leaky_kernel(a: asc.GlobalAddress, bt: asc.GlobalAddress, ws: asc.GlobalAddress,
                        c: asc.GlobalAddress, m: asc.ConstExpr[int], n: asc.ConstExpr[int],
                        k: asc.ConstExpr[int], tile_m: asc.ConstExpr[int],
                        tile_n: asc.ConstExpr[int], tile_k: asc.ConstExpr[int],
                        alpha: asc.ConstExpr[float], flags: asc.ConstExpr[bool]):
    """C = leaky_relu(A x B^T): A (M x K) and B (N x K) float16 ND, C (M x N) float16; N a
    multiple of 16; ws holds 2 slots of tile_m x tile_n float16 per group. flags=False drops the
    cross-core flags (a kernel written to exhibit the race it causes)."""
    a_gm, bt_gm, ws_gm, c_gm = asc.GlobalTensor(), asc.GlobalTensor(), asc.GlobalTensor(), \
        asc.GlobalTensor()
    a_gm.set_global_buffer(a)
    bt_gm.set_global_buffer(bt)
    ws_gm.set_global_buffer(ws)
    c_gm.set_global_buffer(c)
    if asc.ascend_is_aic():
        cube_side(a_gm, bt_gm, ws_gm, m, n, k, tile_m, tile_n, tile_k, flags)
    else:
        vector_side(ws_gm, c_gm, m, n, tile_m, tile_n, alpha, flags)


# ---- The attention protocol of asc-api.md 10.7 -------------------------------------------------
# Per task t (one 64-column K/V tile), slot s = t % 2 and its four flags: scores ready 2s, the
# probabilities ready 2s + 1 (both vector cores set it), the partial output ready 4 + 2s, the
# partial consumed 5 + 2s (the cube core waits for it before it reuses the slot).

ROWS = 64  # query rows of the group, 32 per vector core
KV = 64    # K/V rows per task


@asc.jit
def attention_cube(q_gm, k_gm, vt_gm, s_ws, p_ws, o_ws, tasks: asc.ConstExpr[int],
                   d: asc.ConstExpr[int]):
    pipe = asc.TPipe()
    q_a1 = asc.TQue(asc.TPosition.A1, 2)
    q_b1 = asc.TQue(asc.TPosition.B1, 2)
    q_a2 = asc.TQue(asc.TPosition.A2, 2)
    q_b2 = asc.TQue(asc.TPosition.B2, 2)
    q_co1 = asc.TQue(asc.TPosition.CO1, 1)
    pipe.init_buffer(q_a1, 2, ROWS * 64 * 2)
    pipe.init_buffer(q_b1, 2, 64 * 64 * 2)
    pipe.init_buffer(q_a2, 2, ROWS * 64 * 2)
    pipe.init_buffer(q_b2, 2, 64 * 64 * 2)
    pipe.init_buffer(q_co1, 1, ROWS * 64 * 4)
    for t in asc.range(tasks):
        s = t % 2
        if t >= 2:
            asc.cross_core_wait_flag(5 + 2 * s, mode_id=0, pipe=asc.PipeID.PIPE_S)
        # Scores S = Q K_t^T (float16 after the fixpipe), then "scores ready".
        queue_tile(q_gm, k_gm[t * KV * d:], s_ws[s * ROWS * KV:], q_a1, q_b1, q_a2, q_b2, q_co1,
                   0, 0, ROWS, KV, KV, d, d, asc.float16, asc.QuantModes.F322F16)
        asc.cross_core_set_flag(2 * s, mode_id=2, pipe=asc.PipeID.PIPE_FIX)
        asc.cross_core_wait_flag(2 * s + 1, mode_id=0, pipe=asc.PipeID.PIPE_S)
        # The partial output P V_t (float32), then "partial ready".
        queue_tile(p_ws[s * ROWS * KV:], vt_gm[t * d * KV:], o_ws[s * ROWS * d:], q_a1, q_b1,
                   q_a2, q_b2, q_co1, 0, 0, ROWS, d, d, KV, KV, asc.float16,
                   asc.QuantModes.NoQuant)
        asc.cross_core_set_flag(4 + 2 * s, mode_id=2, pipe=asc.PipeID.PIPE_FIX)
    first = tasks - 2 if tasks > 2 else 0
    for t in asc.range(first, tasks):
        asc.cross_core_wait_flag(5 + 2 * (t % 2), mode_id=0, pipe=asc.PipeID.PIPE_S)


@asc.jit
def attention_vector(s_ws, p_ws, o_ws, out_gm, tasks: asc.ConstExpr[int], d: asc.ConstExpr[int],
                     scale: asc.ConstExpr[float]):
    half = ROWS // 2
    r0 = asc.get_sub_block_idx() * half
    s16 = asc.LocalTensor(asc.float16, asc.TPosition.VECIN, 0, half * KV)
    s32 = asc.LocalTensor(asc.float32, asc.TPosition.VECCALC, 8192, half * KV)
    part = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 16384, half * d)
    acc = asc.LocalTensor(asc.float32, asc.TPosition.VECOUT, 32768, half * d)
    red = asc.LocalTensor(asc.float32, asc.TPosition.VECCALC, 49152, 16)
    tmp = asc.LocalTensor(asc.float32, asc.TPosition.VECCALC, 49216, 256)
    asc.duplicate(acc, 0.0, count=half * d)
    for t in asc.range(tasks):
        s = t % 2
        asc.cross_core_wait_flag(2 * s, mode_id=0, pipe=asc.PipeID.PIPE_S)
        asc.data_copy(s16, s_ws[s * ROWS * KV + r0 * KV:], count=half * KV)
        asc.cast(s32, s16, asc.RoundMode.CAST_NONE, half * KV)
        asc.muls(s32, s32, scale, count=half * KV)
        # A softmax per row: subtract the row's max, exponentiate, divide by the row's sum.
        for r in asc.range(half):
            asc.reduce_max(red, s32[r * KV:], tmp, KV)
            asc.adds(s32[r * KV:], s32[r * KV:], -red.get_value(0), count=KV)
        asc.exp(s32, s32, half * KV)
        for r in asc.range(half):
            asc.reduce_sum(red, s32[r * KV:], tmp, KV)
            asc.muls(s32[r * KV:], s32[r * KV:], 1.0 / red.get_value(0), count=KV)
        asc.cast(s16, s32, asc.RoundMode.CAST_RINT, half * KV)
        asc.data_copy(p_ws[s * ROWS * KV + r0 * KV:], s16, count=half * KV)
        asc.cross_core_set_flag(2 * s + 1, mode_id=2, pipe=asc.PipeID.PIPE_MTE3)
        asc.cross_core_wait_flag(4 + 2 * s, mode_id=0, pipe=asc.PipeID.PIPE_S)
        asc.data_copy(part, o_ws[s * ROWS * d + r0 * d:], count=half * d)
        # "Consumed" rides MTE2: it fires once the partial's read has ended.
        asc.cross_core_set_flag(5 + 2 * s, mode_id=2, pipe=asc.PipeID.PIPE_MTE2)
        asc.add(acc, acc, part, count=half * d)
    asc.data_copy(out_gm[r0 * d:], acc, count=half * d)


@asc.jit(kernel_type=config.KernelType.MIX_AIC_1_2)
def attention_protocol_kernel(q: asc.GlobalAddress, k: asc.GlobalAddress, vt: asc.GlobalAddress,
                              s_ws: asc.GlobalAddress, p_ws: asc.GlobalAddress,
                              o_ws: asc.GlobalAddress, out: asc.GlobalAddress,
                              tasks: asc.ConstExpr[int], d: asc.ConstExpr[int],
                              scale: asc.ConstExpr[float]):
    """out (64 x d, float32) = sum over tasks t of softmax(scale Q K_t^T) V_t, one group: Q 64 x d
    and K (tasks * 64 x d) float16 ND, vt the V tiles transposed (tasks x d x 64) float16;
    workspaces of two slots: scores and probabilities 64 x 64 float16, partials 64 x d float32."""
    q_gm, k_gm, vt_gm, s_gm = asc.GlobalTensor(), asc.GlobalTensor(), asc.GlobalTensor(), \
        asc.GlobalTensor()
    p_gm, o_gm, out_gm = asc.GlobalTensor(), asc.GlobalTensor(), asc.GlobalTensor()
    q_gm.set_global_buffer(q)
    k_gm.set_global_buffer(k)
    vt_gm.set_global_buffer(vt)
    s_gm.set_global_buffer(s_ws)
    p_gm.set_global_buffer(p_ws)
    o_gm.set_global_buffer(o_ws)
    out_gm.set_global_buffer(out)
    if asc.ascend_is_aic():
        attention_cube(q_gm, k_gm, vt_gm, s_gm, p_gm, o_gm, tasks, d)
    else:
        attention_vector(s_gm, p_gm, o_gm, out_gm, tasks, d, scale)
