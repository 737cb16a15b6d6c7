"""Cube kernels of the tests: the linear layer of asc-api.md 10.6 in raw cube instructions (the
example's, examples/linear_cube.py, imported as a user would) and, below, a matmul through
TPipe/TQue cube positions with tails in every dimension, and a quantising fixpipe per QuantModes.
"""
import asc
import asc.runtime.config as config

# The 10.6 linear layer is the example's (examples/linear_cube.py), imported as users would.
from linear_cube import FRACTAL, accumulate_tile, linear_cube_kernel  # noqa: F401


# ---- A matmul through TPipe/TQue cube positions, tails in every dimension --------------------

@asc.jit
def queue_tile(a_gm, bt_gm, c_tile, q_a1, q_b1, q_a2, q_b2, q_co1, row0, n0, m_act, n_act,
               c_stride: asc.ConstExpr[int], k: asc.ConstExpr[int], tile_k: asc.ConstExpr[int],
               dtype: asc.ConstExpr, quant: asc.ConstExpr):
    """c_tile (m_act rows c_stride elements apart) = A[row0 : row0 + m_act, :] x
    B^T[n0 : n0 + n_act, :]^T, K in slices of tile_k, the last one partial. Both operands are ND in GM (A: M x K, B^T: N x K) and reach L1 by ND -> NZ with
    their panels ceil16(rows) high, so a partial fractal is padded the way mmad reads it."""
    c0 = 32 // dtype.sizeof()  # elements per fractal row: 16 (half), 8 (float)
    m16 = (m_act + 15) // 16 * 16
    n16 = (n_act + 15) // 16 * 16
    c_l0 = q_co1.alloc_tensor(asc.float32)
    for k0 in range(0, k, tile_k):
        kk = tile_k if k - k0 > tile_k else k - k0
        panels = (kk + c0 - 1) // c0
        a1 = q_a1.alloc_tensor(dtype)
        asc.data_copy(a1, a_gm[row0 * k + k0:], asc.Nd2NzParams(1, m_act, kk, 0, k, m16, 1, 0))
        q_a1.enque(a1)
        b1 = q_b1.alloc_tensor(dtype)
        asc.data_copy(b1, bt_gm[n0 * k + k0:], asc.Nd2NzParams(1, n_act, kk, 0, k, n16, 1, 0))
        q_b1.enque(b1)
        a1 = q_a1.deque(dtype)
        a2 = q_a2.alloc_tensor(dtype)
        # L0A, band by band: the band's panels, m16 / 16 fractals apart in L1.
        for band in range(m16 // 16):
            asc.load_data(a2[band * panels * 16 * c0:], a1[band * 16 * c0:],
                          asc.LoadData2DParams(0, panels, m16 // 16, 0, 0, False, 0))
        q_a2.enque(a2)
        q_a1.free_tensor(a1)
        b1 = q_b1.deque(dtype)
        b2 = q_b2.alloc_tensor(dtype)
        asc.load_data(b2, b1, asc.LoadData2DParams(0, panels * n16 // 16, 1, 0, 0, False, 0))
        q_b2.enque(b2)
        q_b1.free_tensor(b1)
        a2 = q_a2.deque(dtype)
        b2 = q_b2.deque(dtype)
        # Accumulating Mmads of fewer than 10 fractals of C need it (ascendc-semantics.md 3.4).
        asc.pipe_barrier(asc.PipeID.PIPE_M)
        asc.mmad(c_l0, a2, b2, asc.MmadParams(m=m_act, n=n_act, k=kk, unit_flag=0,
                                              cmatrix_source=False, cmatrix_init_val=k0 == 0))
        q_a2.free_tensor(a2)
        q_b2.free_tensor(b2)
    q_co1.enque(c_l0)
    c_l0 = q_co1.deque(asc.float32)
    asc.fixpipe(c_tile, c_l0,
                asc.FixpipeParamsV220(n_size=n_act, m_size=m_act, src_stride=m16,
                                      dst_stride=c_stride, quant_pre=quant),
                asc.FixpipeConfig.cfg_row_major())
    q_co1.free_tensor(c_l0)


@asc.jit(matmul_cube_only=True)
def matmul_queue_kernel(a: asc.GlobalAddress, bt: asc.GlobalAddress, c: asc.GlobalAddress,
                        m: asc.ConstExpr[int], n: asc.ConstExpr[int], k: asc.ConstExpr[int],
                        tile_m: asc.ConstExpr[int], tile_n: asc.ConstExpr[int],
                        tile_k: asc.ConstExpr[int], dtype: asc.ConstExpr, quant: asc.ConstExpr):
    """C (M x N) = A (M x K) x B^T (N x K)^T with every operand ND in GM; tiles of tile_m x
    tile_n shared out over the cube cores, each through double-buffered A1/B1/A2/B2 queues and
    a CO1 queue. `dtype` is the inputs' type (float16 or float32); `quant` the fixpipe's
    QuantModes: F322F16 for a float16 C, NoQuant for a float32 one."""
    a_gm, bt_gm, c_gm = asc.GlobalTensor(), asc.GlobalTensor(), asc.GlobalTensor()
    a_gm.set_global_buffer(a)
    bt_gm.set_global_buffer(bt)
    c_gm.set_global_buffer(c)
    pipe = asc.TPipe()
    q_a1 = asc.TQue(asc.TPosition.A1, 2)
    q_b1 = asc.TQue(asc.TPosition.B1, 2)
    q_a2 = asc.TQue(asc.TPosition.A2, 2)
    q_b2 = asc.TQue(asc.TPosition.B2, 2)
    q_co1 = asc.TQue(asc.TPosition.CO1, 1)
    size = dtype.sizeof()
    pipe.init_buffer(q_a1, 2, tile_m * tile_k * size)
    pipe.init_buffer(q_b1, 2, tile_n * tile_k * size)
    pipe.init_buffer(q_a2, 2, tile_m * tile_k * size)
    pipe.init_buffer(q_b2, 2, tile_n * tile_k * size)
    pipe.init_buffer(q_co1, 1, tile_m * tile_n * 4)
    m_tiles = asc.ceildiv(m, tile_m)
    tiles = m_tiles * asc.ceildiv(n, tile_n)
    for tile in asc.range(asc.get_block_idx(), tiles, asc.get_block_num()):
        row0 = (tile % m_tiles) * tile_m
        n0 = (tile // m_tiles) * tile_n
        m_act = tile_m if m - row0 > tile_m else m - row0
        n_act = tile_n if n - n0 > tile_n else n - n0
        queue_tile(a_gm, bt_gm, c_gm[row0 * n + n0:], q_a1, q_b1, q_a2, q_b2, q_co1, row0, n0,
                   m_act, n_act, n, k, tile_k, dtype, quant)


# ---- A quantising fixpipe: one tile, every QuantModes value -----------------------------------

@asc.jit(matmul_cube_only=True, kernel_type=config.KernelType.AIC_ONLY)
def quant_matmul_kernel(a: asc.GlobalAddress, bt: asc.GlobalAddress, c: asc.GlobalAddress,
                        words: asc.GlobalAddress, deq_scalar: int, m: asc.ConstExpr[int],
                        n: asc.ConstExpr[int], k: asc.ConstExpr[int], dtype: asc.ConstExpr,
                        quant: asc.ConstExpr, relu: asc.ConstExpr[bool],
                        form: asc.ConstExpr[str]):
    """C = A (M x K) x B^T (N x K)^T into L0C in one Mmad (int8 inputs give int32, float16 give
    float), then out to GM row-major as c's type per `quant`: the scalar modes take deq_scalar,
    the vector ones a word per column from `words` (copied GM -> L1 for cbuf_workspace).
    `form` "fixpipe" uses fixpipe(...), "data_copy" data_copy(..., DataCopyCO12DstParams) after
    set_fix_pipe_pre_quant_flag, as a C++ kernel writes it."""
    acc = asc.int32 if dtype == asc.int8 else asc.float32
    c0 = 32 // dtype.sizeof()
    m16, n16, panels = (m + 15) // 16 * 16, (n + 15) // 16 * 16, (k + c0 - 1) // c0
    a_gm, bt_gm, c_gm, w_gm = (asc.GlobalTensor(), asc.GlobalTensor(), asc.GlobalTensor(),
                               asc.GlobalTensor())
    a_gm.set_global_buffer(a)
    bt_gm.set_global_buffer(bt)
    c_gm.set_global_buffer(c)
    w_gm.set_global_buffer(words)
    a1 = asc.LocalTensor(dtype, asc.TPosition.A1, 0, m16 * panels * c0)
    b1 = asc.LocalTensor(dtype, asc.TPosition.B1, 128 * 1024, n16 * panels * c0)
    ws = asc.LocalTensor(asc.uint64, asc.TPosition.C1, 256 * 1024, n16)
    a2 = asc.LocalTensor(dtype, asc.TPosition.A2, 0, m16 * panels * c0)
    b2 = asc.LocalTensor(dtype, asc.TPosition.B2, 0, n16 * panels * c0)
    c_l0 = asc.LocalTensor(acc, asc.TPosition.CO1, 0, m16 * n16)
    asc.data_copy(a1, a_gm, asc.Nd2NzParams(1, m, k, 0, k, m16, 1, 0))
    asc.data_copy(b1, bt_gm, asc.Nd2NzParams(1, n, k, 0, k, n16, 1, 0))
    asc.data_copy(ws, w_gm, asc.DataCopyParams(1, n16 * 8 // 32, 0, 0))
    asc.pipe_barrier(asc.PipeID.PIPE_ALL)
    for band in asc.static_range(m16 // 16):
        asc.load_data(a2[band * panels * 16 * c0:], a1[band * 16 * c0:],
                      asc.LoadData2DParams(0, panels, m16 // 16, 0, 0, False, 0))
    asc.load_data(b2, b1, asc.LoadData2DParams(0, panels * n16 // 16, 1, 0, 0, False, 0))
    asc.pipe_barrier(asc.PipeID.PIPE_ALL)
    asc.mmad(c_l0, a2, b2, asc.MmadParams(m=m, n=n, k=k, unit_flag=0, cmatrix_source=False,
                                          cmatrix_init_val=True))
    asc.pipe_barrier(asc.PipeID.PIPE_ALL)
    dst = c_gm
    if form == "data_copy":
        asc.set_fix_pipe_pre_quant_flag(deq_scalar)
        asc.pipe_barrier(asc.PipeID.PIPE_FIX)
        asc.data_copy(dst, c_l0, asc.DataCopyCO12DstParams(n, m, n, m16, quant, int(relu), False,
                                                           True))
    elif quant in (asc.QuantModes.VDEQF16, asc.QuantModes.VQF322B8_PRE, asc.QuantModes.VREQ8):
        asc.fixpipe(dst, c_l0, ws, asc.FixpipeParamsV220(n, m, m16, n, quant, relu_en=relu))
    else:
        asc.fixpipe(dst, c_l0, asc.FixpipeParamsV220(n, m, m16, n, quant, deq_scalar,
                                                     relu_en=relu))
