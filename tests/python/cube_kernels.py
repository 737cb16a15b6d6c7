"""A linear layer C = A x W^T written with raw cube instructions, as pyasc's linear_kernel_direct
does (asc-api.md 10.6): static A1/A2/B2/CO1 tensors, A's K slices copied ND -> NZ into L1, the NZ
weight copied with DataCopyParams, load_data into L0A/L0B, mmad over the K slices (the first
overwrites L0C, the later ones accumulate) and fixpipe out of L0C, with PIPE_ALL barriers between
the stages and no flags.

Layouts (all float16 inputs): A is M x K row-major; W is the N x K weight stored NZ, K panels of
16 (element (j, c) at ((c // 16) * N + j) * 16 + c % 16); C is M x N row-major, float16
(quant=F322F16) or float32 (quant=NoQuant). M, N, K, the tiles and quant are compile-time (one
compilation each): K a multiple of TILE_K; TILE_M, TILE_N and TILE_K multiples of 16, with
TILE_M x TILE_K and TILE_K x TILE_N halves fitting L0A / L0B (64 KiB each), TILE_M x TILE_N
floats fitting L0C (128 KiB), and both halves' slices fitting L1 (512 KiB).
"""
import asc
import asc.runtime.config as config

FRACTAL = 16          # rows and columns of a 16 x 16 b16 fractal
FRACTAL_ELEMS = 256   # elements of one fractal (512 bytes of float16)


@asc.jit
def accumulate_tile(a_gm, w_gm, a_l1, w_l1, a_l0, w_l0, c_l0, row0, n0, m_act, n_act,
                    n: asc.ConstExpr[int], k: asc.ConstExpr[int], tile_m: asc.ConstExpr[int],
                    tile_n: asc.ConstExpr[int], tile_k: asc.ConstExpr[int]):
    """c_l0 = A[row0 : row0 + m_act, :] x W[n0 : n0 + n_act, :]^T, one K slice at a time."""
    panels = tile_k // FRACTAL  # K panels of 16 columns in one slice
    for k0 in range(0, k, tile_k):
        first = k0 == 0
        # A's slice, m_act x tile_k, lands in L1 as panels of tile_m rows x 16 columns.
        asc.data_copy(a_l1, a_gm[row0 * k + k0:],
                      asc.Nd2NzParams(1, m_act, tile_k, 0, k, tile_m, 1, 0))
        # W's slice: one chunk of n_act rows (16 K values each) per K panel.
        asc.data_copy(w_l1, w_gm[(k0 // FRACTAL) * n * FRACTAL + n0 * FRACTAL:],
                      asc.DataCopyParams(panels, n_act, n - n_act, tile_n - n_act))
        asc.pipe_barrier(asc.PipeID.PIPE_ALL)
        # L0A: per 16-row band, its panels' fractals one after the other.
        for band in asc.static_range(tile_m // FRACTAL):
            asc.load_data(a_l0[band * panels * FRACTAL_ELEMS:], a_l1[band * FRACTAL_ELEMS:],
                          asc.LoadData2DParams(0, panels, tile_m // FRACTAL, 0, 0, False, 0))
        asc.load_data(w_l0, w_l1,
                      asc.LoadData2DParams(0, tile_k * tile_n // FRACTAL_ELEMS, 1, 0, 0, False, 0))
        asc.pipe_barrier(asc.PipeID.PIPE_ALL)
        asc.mmad(c_l0, a_l0, w_l0,
                 asc.MmadParams(m=m_act, n=n_act, k=tile_k, unit_flag=0, cmatrix_source=False,
                                cmatrix_init_val=first))
        asc.pipe_barrier(asc.PipeID.PIPE_ALL)


@asc.jit(matmul_cube_only=True, kernel_type=config.KernelType.AIC_ONLY)
def linear_cube_kernel(a: asc.GlobalAddress, w: asc.GlobalAddress, c: asc.GlobalAddress,
                       m: asc.ConstExpr[int], n: asc.ConstExpr[int], k: asc.ConstExpr[int],
                       tile_m: asc.ConstExpr[int], tile_n: asc.ConstExpr[int],
                       tile_k: asc.ConstExpr[int], quant: asc.ConstExpr):
    """C's tiles, tile_m x tile_n each, shared out over the cube cores. `quant` is the fixpipe's
    asc.QuantModes: F322F16 for a float16 C (pyasc's example), NoQuant for a float32 C."""
    if asc.ascend_is_aic():
        a_gm, w_gm, c_gm = asc.GlobalTensor(), asc.GlobalTensor(), asc.GlobalTensor()
        a_gm.set_global_buffer(a)
        w_gm.set_global_buffer(w)
        c_gm.set_global_buffer(c)
        l1 = asc.LocalTensor(asc.uint8, asc.TPosition.A1, 0, 1024 * 1024)
        l0a = asc.LocalTensor(asc.uint8, asc.TPosition.A2, 0, 64 * 1024)
        l0b = asc.LocalTensor(asc.uint8, asc.TPosition.B2, 0, 64 * 1024)
        l0c = asc.LocalTensor(asc.uint8, asc.TPosition.CO1, 0, 128 * 1024)
        a_l1 = l1.reinterpret_cast(asc.float16)
        w_l1 = l1[tile_m * tile_k * asc.float16.sizeof():].reinterpret_cast(asc.float16)
        a_l0 = l0a.reinterpret_cast(asc.float16)
        w_l0 = l0b.reinterpret_cast(asc.float16)
        c_l0 = l0c.reinterpret_cast(asc.float32)
        m_tiles = asc.ceildiv(m, tile_m)
        tiles = m_tiles * asc.ceildiv(n, tile_n)
        for tile in asc.range(asc.get_block_idx(), tiles, asc.get_block_num()):
            row0 = (tile % m_tiles) * tile_m
            n0 = (tile // m_tiles) * tile_n
            m_act = tile_m if m - row0 > tile_m else m - row0
            n_act = tile_n if n - n0 > tile_n else n - n0
            accumulate_tile(a_gm, w_gm, a_l1, w_l1, a_l0, w_l0, c_l0, row0, n0, m_act, n_act,
                            n, k, tile_m, tile_n, tile_k)
            # src_stride: one 16-column band of L0C is tile_m rows high.
            asc.fixpipe(c_gm[row0 * n + n0:], c_l0,
                        asc.FixpipeParamsV220(n_size=n_act, m_size=m_act, src_stride=tile_m,
                                              dst_stride=n, quant_pre=quant),
                        asc.FixpipeConfig.cfg_row_major())
            asc.pipe_barrier(asc.PipeID.PIPE_ALL)



# ---- A matmul through TPipe/TQue cube positions, tails in every dimension --------------------

@asc.jit
def queue_tile(a_gm, bt_gm, c_gm, q_a1, q_b1, q_a2, q_b2, q_co1, row0, n0, m_act, n_act,
               n: asc.ConstExpr[int], k: asc.ConstExpr[int], tile_k: asc.ConstExpr[int],
               dtype: asc.ConstExpr, quant: asc.ConstExpr):
    """C[row0 : row0 + m_act, n0 : n0 + n_act] = A x B^T, K in slices of tile_k, the last one
    partial. Both operands are ND in GM (A: M x K, B^T: N x K) and reach L1 by ND -> NZ with
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
    asc.fixpipe(c_gm[row0 * n + n0:], c_l0,
                asc.FixpipeParamsV220(n_size=n_act, m_size=m_act, src_stride=m16, dst_stride=n,
                                      quant_pre=quant),
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
        queue_tile(a_gm, bt_gm, c_gm, q_a1, q_b1, q_a2, q_b2, q_co1, row0, n0, m_act, n_act,
                   n, k, tile_k, dtype, quant)


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
