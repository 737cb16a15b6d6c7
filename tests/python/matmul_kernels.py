"""Matmul kernels of the tests, written as pyasc's matmul tutorials and tests write them: a
TCubeTiling argument, the block located from the tiling, the Matmul run on the cube core of a
`matmul_cube_only` kernel."""
import asc
import asc.runtime.config as config

# pyasc's tutorial 05 is the example's (examples/matmul_leakyrelu.py), imported as users would.
from matmul_leakyrelu import block_offsets, matmul_leakyrelu_kernel  # noqa: F401


@asc.jit
def make_matmul(a_dtype, b_dtype, c_dtype, is_trans_a: asc.ConstExpr[bool],
                is_trans_b: asc.ConstExpr[bool], config=None):
    return asc.adv.Matmul(
        a=asc.adv.MatmulType(asc.TPosition.GM, asc.CubeFormat.ND, a_dtype, is_trans_a),
        b=asc.adv.MatmulType(asc.TPosition.GM, asc.CubeFormat.ND, b_dtype, is_trans_b),
        c=asc.adv.MatmulType(asc.TPosition.GM, asc.CubeFormat.ND, c_dtype),
        bias=asc.adv.MatmulType(asc.TPosition.GM, asc.CubeFormat.ND, asc.float32),
        matmul_config=config)


@asc.jit(matmul_cube_only=True)
def matmul_cube_only_kernel(a: asc.GlobalAddress, b: asc.GlobalAddress, c: asc.GlobalAddress,
                            bias: asc.GlobalAddress, tiling: asc.adv.TCubeTiling,
                            workspace: asc.GlobalAddress, is_trans_a: asc.ConstExpr[bool],
                            is_trans_b: asc.ConstExpr[bool], en_atomic: asc.ConstExpr[int]):
    """C = A x B (+ bias where tiling.is_bias) with iterate_all, one single-core block per cube
    core, tails through set_tail (pyasc's tutorial 04, with the layout as parameters)."""
    cube_only_block(a, b, c, bias, tiling, workspace, is_trans_a, is_trans_b, en_atomic, False)


@asc.jit(matmul_cube_only=True)
def matmul_mdl_kernel(a: asc.GlobalAddress, b: asc.GlobalAddress, c: asc.GlobalAddress,
                      bias: asc.GlobalAddress, tiling: asc.adv.TCubeTiling,
                      workspace: asc.GlobalAddress, is_trans_a: asc.ConstExpr[bool],
                      is_trans_b: asc.ConstExpr[bool], en_atomic: asc.ConstExpr[int]):
    """matmul_cube_only_kernel with the MDL template (multi-slice L1 copies)."""
    cube_only_block(a, b, c, bias, tiling, workspace, is_trans_a, is_trans_b, en_atomic, True)


@asc.jit
def cube_only_block(a, b, c, bias, tiling, workspace, is_trans_a: asc.ConstExpr[bool],
                    is_trans_b: asc.ConstExpr[bool], en_atomic: asc.ConstExpr[int],
                    mdl: asc.ConstExpr[bool]):
    if asc.ascend_is_aic():
        asc.set_sys_workspace(workspace)
        offset_a, offset_b, offset_c, offset_bias, tail_m, tail_n = block_offsets(
            tiling, is_trans_a, is_trans_b)
        a_global = asc.GlobalTensor()
        b_global = asc.GlobalTensor()
        c_global = asc.GlobalTensor()
        bias_global = asc.GlobalTensor()
        a_global.set_global_buffer(a + offset_a)
        b_global.set_global_buffer(b + offset_b)
        c_global.set_global_buffer(c + offset_c)
        bias_global.set_global_buffer(bias + offset_bias)
        pipe = asc.TPipe()
        cfg = asc.adv.get_mdl_config() if mdl else asc.adv.MatmulConfig()
        matmul = make_matmul(a_global.dtype, b_global.dtype, c_global.dtype, is_trans_a,
                             is_trans_b, cfg)
        asc.adv.register_matmul(pipe, matmul, tiling)
        if asc.get_block_idx() < tiling.used_core_num:
            matmul.set_tensor_a(a_global, is_trans_a)
            matmul.set_tensor_b(b_global, is_trans_b)
            if tiling.is_bias:
                matmul.set_bias(bias_global)
            matmul.set_tail(tail_m, tail_n, tiling.k_a)
            matmul.iterate_all(c_global, en_atomic=en_atomic)
            matmul.end()
        asc.pipe_barrier(asc.PipeID.PIPE_ALL)


@asc.jit(matmul_cube_only=True)
def matmul_iterate_kernel(a: asc.GlobalAddress, b: asc.GlobalAddress, c: asc.GlobalAddress,
                          blocks: asc.GlobalAddress, tiling: asc.adv.TCubeTiling,
                          workspace: asc.GlobalAddress, sequential: asc.ConstExpr[bool]):
    """The iterate() loop on the cube core: each base block into its place in C, or (sequential)
    densely into `blocks`, block `count` at count * base_m * base_n, base_n elements a row."""
    if asc.ascend_is_aic():
        offset_a, offset_b, offset_c, offset_bias, tail_m, tail_n = block_offsets(
            tiling, False, False)
        a_global = asc.GlobalTensor()
        b_global = asc.GlobalTensor()
        c_global = asc.GlobalTensor()
        blocks_global = asc.GlobalTensor()
        a_global.set_global_buffer(a + offset_a)
        b_global.set_global_buffer(b + offset_b)
        c_global.set_global_buffer(c + offset_c)
        blocks_global.set_global_buffer(blocks)
        pipe = asc.TPipe()
        matmul = asc.adv.Matmul(
            asc.adv.MatmulType(asc.TPosition.GM, asc.CubeFormat.ND, a_global.dtype),
            asc.adv.MatmulType(asc.TPosition.GM, asc.CubeFormat.ND, b_global.dtype),
            asc.adv.MatmulType(asc.TPosition.GM, asc.CubeFormat.ND, c_global.dtype))
        asc.adv.register_matmul(pipe, workspace, matmul)
        matmul.init(tiling)  # what register_matmul does when given the tiling
        matmul.set_tensor_a(a_global)
        matmul.set_tensor_b(b_global)
        matmul.set_tail(tail_m, tail_n)
        with matmul.iterate() as count:
            if sequential:
                matmul.get_tensor_c(blocks_global[count * tiling.base_m * tiling.base_n:],
                                    en_sequential_write=True)
            else:
                matmul.get_tensor_c(c_global)
        matmul.end()


@asc.jit(matmul_cube_only=True, kernel_type=config.KernelType.AIC_ONLY)
def matmul_static_kernel(a: asc.GlobalAddress, b: asc.GlobalAddress, c: asc.GlobalAddress,
                         workspace: asc.GlobalAddress, m: asc.ConstExpr[int],
                         n: asc.ConstExpr[int], k: asc.ConstExpr[int],
                         m_tile: asc.ConstExpr[int], n_tile: asc.ConstExpr[int],
                         base_m: asc.ConstExpr[int], base_n: asc.ConstExpr[int],
                         mode: asc.ConstExpr, unit_flag: asc.ConstExpr):
    """A constant tiling (pyasc's linear example): the Matmul's config carries the single-core
    and base shapes, no TCubeTiling; each cube core walks m_tile x n_tile tiles grid-stride,
    set_org_shape before each, set_tail for the partial ones. `unit_flag` (True or False)
    overrides the template's en_unit_flag; None keeps it."""
    cfg = asc.adv.get_mm_config(asc.adv.MatmulShapeParams(m_tile, n_tile, k, base_m, base_n, 32),
                                asc.adv.MatmulFuncParams(enable_kdim_reorder_load=False), mode)
    if unit_flag is not None:
        cfg = cfg.replace(en_unit_flag=unit_flag)
    if asc.ascend_is_aic():
        pipe = asc.TPipe()
        matmul = asc.adv.Matmul(
            asc.adv.MatmulType(asc.TPosition.GM, asc.CubeFormat.ND, asc.float16),
            asc.adv.MatmulType(asc.TPosition.GM, asc.CubeFormat.ND, asc.float16, True),
            asc.adv.MatmulType(asc.TPosition.GM, asc.CubeFormat.ND, asc.float16),
            matmul_config=cfg)
        asc.adv.register_matmul(pipe, workspace, matmul)
        m_tiles = (m + m_tile - 1) // m_tile
        tiles = m_tiles * ((n + n_tile - 1) // n_tile)
        for tile in asc.range(asc.get_block_idx(), tiles, asc.get_block_num()):
            row0 = tile % m_tiles * m_tile
            col0 = tile // m_tiles * n_tile
            a_global = asc.GlobalTensor()
            b_global = asc.GlobalTensor()
            c_global = asc.GlobalTensor()
            a_global.set_global_buffer(a + row0 * k)
            b_global.set_global_buffer(b + col0 * k)
            c_global.set_global_buffer(c + row0 * n + col0)
            matmul.set_org_shape(m, n, k, k)
            matmul.set_tensor_a(a_global, False)
            matmul.set_tensor_b(b_global, True)
            rows = m - row0
            cols = n - col0
            matmul.set_tail(m_tile if rows > m_tile else rows, n_tile if cols > n_tile else cols)
            matmul.iterate_all(c_global)
        matmul.end()


# ---- mixed kernels: the cube core serves its vector cores (pyasc's tutorials 03 and 05) ------

@asc.jit
def matmul_mix_kernel(a: asc.GlobalAddress, b: asc.GlobalAddress, c: asc.GlobalAddress,
                      tiling: asc.adv.TCubeTiling, workspace: asc.GlobalAddress):
    """Each vector core asks its cube core for its single-core block of C with iterate_all."""
    mix_block(a, b, c, tiling, workspace, 0)


@asc.jit
def matmul_share_kernel(a: asc.GlobalAddress, b: asc.GlobalAddress, c: asc.GlobalAddress,
                        tiling: asc.adv.TCubeTiling, workspace: asc.GlobalAddress,
                        share: asc.ConstExpr[int]):
    """Ascend C's IBShare cases: as matmul_mix_kernel, `share` 1 (A), 2 (B) or 3 (both) with
    the IBShare template and that operand's MatmulType ib_share (aicore-sim's extension)."""
    mix_block(a, b, c, tiling, workspace, share)


@asc.jit
def mix_block(a, b, c, tiling, workspace, share: asc.ConstExpr[int]):
    """The vector cores' iterate_all of their blocks; `share` 0: pyasc's default config."""
    asc.set_sys_workspace(workspace)
    offset_a, offset_b, offset_c, offset_bias, tail_m, tail_n = block_offsets(tiling, False,
                                                                              False)
    a_global = asc.GlobalTensor()
    b_global = asc.GlobalTensor()
    c_global = asc.GlobalTensor()
    a_global.set_global_buffer(a + offset_a)
    b_global.set_global_buffer(b + offset_b)
    c_global.set_global_buffer(c + offset_c)
    pipe = asc.TPipe()
    cfg = asc.adv.get_ib_share_norm_config() if share else asc.adv.MatmulConfig()
    matmul = asc.adv.Matmul(
        a=asc.adv.MatmulType(asc.TPosition.GM, asc.CubeFormat.ND, a_global.dtype, False,
                             asc.LayoutMode.NONE, share & 1 != 0),
        b=asc.adv.MatmulType(asc.TPosition.GM, asc.CubeFormat.ND, b_global.dtype, False,
                             asc.LayoutMode.NONE, share & 2 != 0),
        c=asc.adv.MatmulType(asc.TPosition.GM, asc.CubeFormat.ND, c_global.dtype),
        matmul_config=cfg)
    asc.adv.register_matmul(pipe, matmul, tiling)
    if asc.get_block_idx() < tiling.used_core_num:
        matmul.set_tensor_a(a_global, False)
        matmul.set_tensor_b(b_global, False)
        matmul.set_tail(tail_m, tail_n)
        matmul.iterate_all(c_global)
        matmul.end()
    asc.pipe_barrier(asc.PipeID.PIPE_ALL)


@asc.jit
def matmul_batch_kernel(a: asc.GlobalAddress, b: asc.GlobalAddress, c: asc.GlobalAddress,
                        tiling: asc.adv.TCubeTiling, workspace: asc.GlobalAddress,
                        batch_a: asc.ConstExpr[int], batch_b: asc.ConstExpr[int]):
    """iterate_batch in a mixed kernel (pyasc's generalization test): NORMAL layouts, the
    batches back to back; the first vector core of the launch asks for them all."""
    asc.set_sys_workspace(workspace)
    tiling.share_l1_size = asc.property(asc.TOTAL_L1_SIZE)
    tiling.share_l0c_size = asc.property(asc.TOTAL_L0C_SIZE)
    a_global = asc.GlobalTensor()
    b_global = asc.GlobalTensor()
    c_global = asc.GlobalTensor()
    a_global.set_global_buffer(a)
    b_global.set_global_buffer(b)
    c_global.set_global_buffer(c)
    pipe = asc.TPipe()
    matmul = asc.adv.Matmul(
        a=asc.adv.MatmulType(asc.TPosition.GM, asc.CubeFormat.ND, a_global.dtype, False,
                             asc.LayoutMode.NORMAL),
        b=asc.adv.MatmulType(asc.TPosition.GM, asc.CubeFormat.ND, b_global.dtype, False,
                             asc.LayoutMode.NORMAL),
        c=asc.adv.MatmulType(asc.TPosition.GM, asc.CubeFormat.ND, c_global.dtype, False,
                             asc.LayoutMode.NORMAL))
    asc.adv.register_matmul(pipe, matmul, tiling)
    if asc.get_block_idx() == 0:
        matmul.set_tensor_a(a_global)
        matmul.set_tensor_b(b_global)
        matmul.iterate_batch(c_global, batch_a, batch_b, False)
    asc.pipe_barrier(asc.PipeID.PIPE_ALL)


@asc.jit(matmul_cube_only=True)
def matmul_batch_cube_kernel(a: asc.GlobalAddress, b: asc.GlobalAddress, c: asc.GlobalAddress,
                             tiling: asc.adv.TCubeTiling, batch_a: asc.ConstExpr[int],
                             batch_b: asc.ConstExpr[int]):
    """The cube-only form: set_batch_num, then iterate_batch(c, en_partial_sum, en_atomic,
    en_sequential_write)."""
    if asc.ascend_is_aic():
        a_global = asc.GlobalTensor()
        b_global = asc.GlobalTensor()
        c_global = asc.GlobalTensor()
        a_global.set_global_buffer(a)
        b_global.set_global_buffer(b)
        c_global.set_global_buffer(c)
        pipe = asc.TPipe()
        matmul = asc.adv.Matmul(
            asc.adv.MatmulType(asc.TPosition.GM, asc.CubeFormat.ND, a_global.dtype, False,
                               asc.LayoutMode.NORMAL),
            asc.adv.MatmulType(asc.TPosition.GM, asc.CubeFormat.ND, b_global.dtype, False,
                               asc.LayoutMode.NORMAL),
            asc.adv.MatmulType(asc.TPosition.GM, asc.CubeFormat.ND, c_global.dtype))
        asc.adv.register_matmul(pipe, matmul, tiling)
        matmul.set_tensor_a(a_global)
        matmul.set_tensor_b(b_global)
        matmul.set_batch_num(batch_a, batch_b)
        matmul.iterate_batch(c_global, False, 0, False)
        matmul.end()


@asc.jit
def matmul_quant_kernel(a: asc.GlobalAddress, b: asc.GlobalAddress, c: asc.GlobalAddress,
                        tiling: asc.adv.TCubeTiling, workspace: asc.GlobalAddress,
                        quant_vector: asc.GlobalAddress, quant_scalar: int,
                        per_column: asc.ConstExpr[bool]):
    """int8 x int8 -> half, dequantised by one quant word or a word per column (pyasc's
    quant generalization test, with its shapes from the tiling set explicitly)."""
    asc.set_sys_workspace(workspace)
    offset_a, offset_b, offset_c, offset_bias, tail_m, tail_n = block_offsets(tiling, False,
                                                                              False)
    a_global = asc.GlobalTensor()
    b_global = asc.GlobalTensor()
    c_global = asc.GlobalTensor()
    quant_global = asc.GlobalTensor()
    a_global.set_global_buffer(a + offset_a)
    b_global.set_global_buffer(b + offset_b)
    c_global.set_global_buffer(c + offset_c)
    quant_global.set_global_buffer(quant_vector + offset_bias)
    matmul = asc.adv.Matmul(
        a=asc.adv.MatmulType(asc.TPosition.GM, asc.CubeFormat.ND, a_global.dtype),
        b=asc.adv.MatmulType(asc.TPosition.GM, asc.CubeFormat.ND, b_global.dtype),
        c=asc.adv.MatmulType(asc.TPosition.GM, asc.CubeFormat.ND, c_global.dtype))
    pipe = asc.TPipe()
    asc.adv.register_matmul(pipe, matmul, tiling)
    if asc.get_block_idx() < tiling.used_core_num:
        matmul.set_org_shape(tiling.m, tiling.n, tiling.k_a)
        matmul.set_single_shape(tail_m, tail_n, tiling.single_core_k)
        matmul.set_tensor_a(a_global)
        matmul.set_tensor_b(b_global)
        if per_column:
            matmul.set_quant_vector(quant_global)
        else:
            matmul.set_quant_scalar(quant_scalar)
        matmul.iterate_all(c_global)
        matmul.end()
    asc.pipe_barrier(asc.PipeID.PIPE_ALL)


@asc.jit(matmul_cube_only=True)
def matmul_constant_kernel(a: asc.GlobalAddress, b: asc.GlobalAddress, c: asc.GlobalAddress,
                           tiling: asc.adv.TCubeTiling, value: float,
                           which: asc.ConstExpr[str]):
    """C = A x B with one operand a constant (`which` is "a" or "b"), on one cube core."""
    if asc.ascend_is_aic():
        a_global = asc.GlobalTensor()
        b_global = asc.GlobalTensor()
        c_global = asc.GlobalTensor()
        a_global.set_global_buffer(a)
        b_global.set_global_buffer(b)
        c_global.set_global_buffer(c)
        pipe = asc.TPipe()
        matmul = make_matmul(a_global.dtype, b_global.dtype, c_global.dtype, False, False)
        asc.adv.register_matmul(pipe, matmul, tiling)
        if which == "a":
            matmul.set_tensor_a(value)
            matmul.set_tensor_b(b_global)
        else:
            matmul.set_tensor_a(a_global)
            matmul.set_tensor_b(value)
        matmul.disable_bias()
        matmul.iterate_all(c_global)
        matmul.end()


@asc.jit
def matmul_async_kernel(a: asc.GlobalAddress, b: asc.GlobalAddress, c: asc.GlobalAddress,
                        d: asc.GlobalAddress, tiling: asc.adv.TCubeTiling,
                        workspace: asc.GlobalAddress, results: asc.GlobalAddress,
                        mode: asc.ConstExpr[str]):
    """get_tensor_c's other forms on the vector cores, each block brought to UB and copied out
    to `d` at its place: "async" (into UB, sync=False, then wait_get_tensor_c), "both" (C in GM
    at its place and the block in UB: optional_tensor), "workspace" (no destination: the block
    in the Matmul's workspace `results`, read back through UB)."""
    asc.set_sys_workspace(workspace)
    offset_a, offset_b, offset_c, offset_bias, tail_m, tail_n = block_offsets(tiling, False,
                                                                              False)
    a_global = asc.GlobalTensor()
    b_global = asc.GlobalTensor()
    c_global = asc.GlobalTensor()
    d_global = asc.GlobalTensor()
    a_global.set_global_buffer(a + offset_a)
    b_global.set_global_buffer(b + offset_b)
    c_global.set_global_buffer(c + offset_c)
    d_global.set_global_buffer(d + offset_c)
    pipe = asc.TPipe()
    in_queue = asc.TQue(asc.TPosition.VECIN, 1)
    pipe.init_buffer(que=in_queue, num=1, len=tiling.base_m * tiling.base_n * 4)
    matmul = asc.adv.Matmul(
        a=asc.adv.MatmulType(asc.TPosition.GM, asc.CubeFormat.ND, a_global.dtype),
        b=asc.adv.MatmulType(asc.TPosition.GM, asc.CubeFormat.ND, b_global.dtype),
        c=asc.adv.MatmulType(asc.TPosition.VECCALC, asc.CubeFormat.ND, asc.float32))
    asc.adv.register_matmul(pipe, matmul, tiling)
    matmul.set_tensor_a(a_global)
    matmul.set_tensor_b(b_global)
    if mode == "workspace":
        matmul.set_workspace(results + asc.get_block_idx() * tiling.single_core_m *
                             tiling.single_core_n)
    with matmul.iterate(sync=mode != "async") as count:
        block = in_queue.alloc_tensor(asc.float32)
        if mode == "async":
            matmul.get_tensor_c(block, en_sequential_write=True, sync=False)
            matmul.wait_get_tensor_c()
        elif mode == "both":
            matmul.get_tensor_c(c_global, optional_tensor=block)
        else:
            held = matmul.get_tensor_c(sync=False)
            matmul.wait_get_tensor_c()
            asc.data_copy(block, held, tiling.base_m * tiling.base_n)
        in_queue.enque(block)
        block = in_queue.deque(asc.float32)
        round_m = tiling.single_core_m // tiling.base_m
        start = count % round_m * tiling.base_m * tiling.n + count // round_m * tiling.base_n
        asc.data_copy(d_global[start:], block, repeat_params=asc.DataCopyParams(
            block_count=tiling.base_m, block_len=tiling.base_n * 4 // 32, src_stride=0,
            dst_stride=(tiling.n - tiling.base_n) * 4 // 32))
        in_queue.free_tensor(block)
    matmul.end()


@asc.jit(matmul_cube_only=True)
def matmul_n_batch_kernel(a: asc.GlobalAddress, b: asc.GlobalAddress, results: asc.GlobalAddress,
                          c: asc.GlobalAddress, tiling: asc.adv.TCubeTiling,
                          batch_loop: asc.ConstExpr[int], batch_a: asc.ConstExpr[int],
                          batch_b: asc.ConstExpr[int]):
    """iterate_n_batch into the Matmul's workspace, then each group's C matrices taken with
    get_batch_tensor_c: the first group's first element copied to `c` by the scalar unit."""
    cfg = asc.adv.get_normal_config(batch_loop=True)
    if asc.ascend_is_aic():
        a_global = asc.GlobalTensor()
        b_global = asc.GlobalTensor()
        c_global = asc.GlobalTensor()
        a_global.set_global_buffer(a)
        b_global.set_global_buffer(b)
        c_global.set_global_buffer(c)
        pipe = asc.TPipe()
        matmul = asc.adv.Matmul(
            asc.adv.MatmulType(asc.TPosition.GM, asc.CubeFormat.ND, a_global.dtype, False,
                               asc.LayoutMode.NORMAL),
            asc.adv.MatmulType(asc.TPosition.GM, asc.CubeFormat.ND, b_global.dtype, False,
                               asc.LayoutMode.NORMAL),
            asc.adv.MatmulType(asc.TPosition.GM, asc.CubeFormat.ND, asc.float32),
            matmul_config=cfg)
        asc.adv.register_matmul(pipe, matmul, tiling)
        matmul.set_tensor_a(a_global)
        matmul.set_tensor_b(b_global)
        matmul.set_workspace(results)
        matmul.iterate_n_batch(batch_loop, batch_a, batch_b, False)
        for group in asc.static_range(batch_loop):
            taken = matmul.get_batch_tensor_c(batch_a, batch_b)
            asc.pipe_barrier(asc.PipeID.PIPE_ALL)
            c_global.set_value(group, taken.get_value(0))
        matmul.end()


@asc.jit
def matmul_ub_a_kernel(a: asc.GlobalAddress, b: asc.GlobalAddress, c: asc.GlobalAddress,
                       tiling: asc.adv.TCubeTiling, workspace: asc.GlobalAddress):
    """A from the vector core's UB: each vector core loads its rows of A into UB, scales them by
    2 on the vector unit, and hands the UB tensor to the Matmul (it reaches the cube core
    through the workspace's UB mirror)."""
    asc.set_sys_workspace(workspace)
    offset_a, offset_b, offset_c, offset_bias, tail_m, tail_n = block_offsets(tiling, False,
                                                                              False)
    a_global = asc.GlobalTensor()
    b_global = asc.GlobalTensor()
    c_global = asc.GlobalTensor()
    a_global.set_global_buffer(a + offset_a)
    b_global.set_global_buffer(b + offset_b)
    c_global.set_global_buffer(c + offset_c)
    pipe = asc.TPipe()
    a_queue = asc.TQue(asc.TPosition.VECIN, 1)
    pipe.init_buffer(que=a_queue, num=1, len=tiling.single_core_m * tiling.k_a * 2)
    matmul = asc.adv.Matmul(
        a=asc.adv.MatmulType(asc.TPosition.VECCALC, asc.CubeFormat.ND, asc.float16),
        b=asc.adv.MatmulType(asc.TPosition.GM, asc.CubeFormat.ND, asc.float16),
        c=asc.adv.MatmulType(asc.TPosition.GM, asc.CubeFormat.ND, asc.float32))
    asc.adv.register_matmul(pipe, matmul, tiling)
    a_local = a_queue.alloc_tensor(asc.float16)
    asc.data_copy(a_local, a_global, tiling.single_core_m * tiling.k_a)
    a_queue.enque(a_local)
    a_local = a_queue.deque(asc.float16)
    asc.muls(a_local, a_local, 2.0, count=tiling.single_core_m * tiling.k_a)
    matmul.set_tensor_a(a_local)
    matmul.set_tensor_b(b_global)
    matmul.iterate_all(c_global)
    a_queue.free_tensor(a_local)
    matmul.end()


@asc.jit(matmul_cube_only=True)
def matmul_nz_weight_kernel(x: asc.GlobalAddress, w: asc.GlobalAddress, y: asc.GlobalAddress,
                            tiling: asc.adv.TCubeTiling):
    """y (half) = x @ W^T with W prepacked as NZ (pyasc's linear example): each cube core's
    column block starts n_offset * 16 elements into the packed weight."""
    if asc.ascend_is_aic():
        offset_a, offset_b, offset_c, offset_bias, tail_m, tail_n = block_offsets(
            tiling, False, False)
        x_global = asc.GlobalTensor()
        w_global = asc.GlobalTensor()
        y_global = asc.GlobalTensor()
        x_global.set_global_buffer(x + offset_a)
        w_global.set_global_buffer(w + offset_b * 16)
        y_global.set_global_buffer(y + offset_c)
        pipe = asc.TPipe()
        matmul = asc.adv.Matmul(
            asc.adv.MatmulType(asc.TPosition.GM, asc.CubeFormat.ND, asc.float16),
            asc.adv.MatmulType(asc.TPosition.GM, asc.CubeFormat.NZ, asc.float16, True),
            asc.adv.MatmulType(asc.TPosition.GM, asc.CubeFormat.ND, asc.float16),
            asc.adv.MatmulType(asc.TPosition.GM, asc.CubeFormat.ND, asc.float32))
        asc.adv.register_matmul(pipe, matmul, tiling)
        if asc.get_block_idx() < tiling.used_core_num:
            matmul.set_org_shape(tiling.m, tiling.n, tiling.k_a, tiling.k_b)
            matmul.set_tensor_a(x_global, False)
            matmul.set_tensor_b(w_global, True)
            matmul.set_tail(tail_m, tail_n)
            matmul.iterate_all(y_global)
            matmul.end()


@asc.jit(matmul_cube_only=True)
def matmul_hf32_kernel(a: asc.GlobalAddress, b: asc.GlobalAddress, c: asc.GlobalAddress,
                       tiling: asc.adv.TCubeTiling, hf32: asc.ConstExpr[bool]):
    """A float Matmul with set_hf32(hf32) before it (one cube core)."""
    if asc.ascend_is_aic():
        a_global = asc.GlobalTensor()
        b_global = asc.GlobalTensor()
        c_global = asc.GlobalTensor()
        a_global.set_global_buffer(a)
        b_global.set_global_buffer(b)
        c_global.set_global_buffer(c)
        pipe = asc.TPipe()
        matmul = make_matmul(asc.float32, asc.float32, asc.float32, False, False)
        asc.adv.register_matmul(pipe, matmul, tiling)
        matmul.set_hf32(hf32)
        matmul.set_tensor_a(a_global)
        matmul.set_tensor_b(b_global)
        matmul.iterate_all(c_global)
        matmul.set_hf32(False)
        matmul.end()


@asc.jit(kernel_type=config.KernelType.MIX_AIC_1_2)
def matmul_dual_master_kernel(a: asc.GlobalAddress, b: asc.GlobalAddress, c: asc.GlobalAddress,
                              tiling: asc.adv.TCubeTiling):
    """enable_mix_dual_master (pyasc's attention example): in a mixed kernel the Matmul runs on
    the cube core that calls it; the vector cores of the group do their own work (here none)."""
    cfg = asc.adv.MatmulConfig(enable_get_tensor_c=False, enable_set_bias=False,
                               iterate_mode=asc.IterateMode.ITERATE_MODE_ALL,
                               enable_mix_dual_master=True)
    pipe = asc.TPipe()
    matmul = asc.adv.Matmul(
        asc.adv.MatmulType(asc.TPosition.GM, asc.CubeFormat.ND, asc.float16),
        asc.adv.MatmulType(asc.TPosition.GM, asc.CubeFormat.ND, asc.float16, True),
        asc.adv.MatmulType(asc.TPosition.GM, asc.CubeFormat.ND, asc.float16),
        matmul_config=cfg)
    asc.adv.register_matmul(pipe, matmul, tiling)
    if asc.ascend_is_aic():
        a_global = asc.GlobalTensor()
        b_global = asc.GlobalTensor()
        c_global = asc.GlobalTensor()
        a_global.set_global_buffer(a)
        b_global.set_global_buffer(b)
        c_global.set_global_buffer(c)
        matmul.set_org_shape(tiling.m, tiling.n, tiling.k_a, tiling.k_b)
        matmul.set_tensor_a(a_global, False)
        matmul.set_tensor_b(b_global, True)
        matmul.set_tail(tiling.m, tiling.n, -1)
        matmul.iterate_all(c_global, en_atomic=0, sync=True, en_sequential_write=False,
                           wait_iterate_all=False, fake_msg=False)
        matmul.end()


@asc.jit(matmul_cube_only=True, kernel_type=config.KernelType.AIC_ONLY)
def matmul_runtime_tiling_kernel(a: asc.GlobalAddress, b: asc.GlobalAddress,
                                 c: asc.GlobalAddress, workspace: asc.GlobalAddress,
                                 tiling: asc.adv.TCubeTiling, policy: asc.ConstExpr[int]):
    """matmul_static_kernel's Matmul with the same sizes from a TCubeTiling argument (one tile
    per cube core): the comparison for the constant tiling; `policy` its MatmulPolicy."""
    if asc.ascend_is_aic():
        pipe = asc.TPipe()
        matmul = asc.adv.Matmul(
            asc.adv.MatmulType(asc.TPosition.GM, asc.CubeFormat.ND, asc.float16),
            asc.adv.MatmulType(asc.TPosition.GM, asc.CubeFormat.ND, asc.float16, True),
            asc.adv.MatmulType(asc.TPosition.GM, asc.CubeFormat.ND, asc.float16),
            matmul_config=asc.adv.get_mm_config(asc.MatmulConfigMode.CONFIG_MDL),
            matmul_policy=policy)
        asc.adv.register_matmul(pipe, workspace, matmul, tiling)
        a_global = asc.GlobalTensor()
        b_global = asc.GlobalTensor()
        c_global = asc.GlobalTensor()
        a_global.set_global_buffer(a)
        b_global.set_global_buffer(b)
        c_global.set_global_buffer(c)
        matmul.set_org_shape(tiling.m, tiling.n, tiling.k_a, tiling.k_b)
        matmul.set_tensor_a(a_global, False)
        matmul.set_tensor_b(b_global, True)
        matmul.iterate_all(c_global)
        matmul.end()
