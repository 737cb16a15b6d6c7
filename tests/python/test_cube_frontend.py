"""What the cube instructions' frontend emits (issue 16): data_copy's Nd2NzParams and GM <-> L1
forms, load_data, mmad (MmadParams' two field sets and its default-struct quirk, bias tensors)
and fixpipe, the static cube-memory tensors and queues they use, and their trace-time errors.
Kernels compile with `Launcher.run` patched, as pyasc's unit tests do; nothing runs."""
from unittest import mock

import numpy as np
import pytest

import asc
import asc.runtime.config as config
from asc import _unsupported
from asc._proto import kernel_pb2 as ir_pb
from asc.codegen.errors import CodegenError, NotSupportedError
from asc.codegen.ir_printer import format_kernel
from asc.runtime.jit import MockTensor, MockValue
from asc.runtime.launcher import Launcher
from cube_kernels import linear_cube_kernel
from ir_walk import walk

F16, F32 = MockTensor(asc.float16), MockTensor(asc.float32)


@pytest.fixture
def mock_launcher_run():
    with mock.patch.object(Launcher, "run", return_value=None) as run:
        yield run


def setup_function():
    config.set_platform(config.Backend.Model, check=False)


# ---- IR helpers ---------------------------------------------------------------------------------

def launched_ir(run):
    kernel, _, _ = run.call_args.args
    return kernel.ir


def compile_ir(kernel, *args):
    return kernel.compile(*args).ir


def ops_of(ir, kind):
    return [m for k, m, _ in walk(ir.body) if k == kind]


def only(ir, kind):
    found = ops_of(ir, kind)
    assert len(found) == 1, (kind, len(found))
    return found[0]


class Values:
    """SSA id -> what defines it: constants (value, dtype) and the other scalar ops."""

    def __init__(self, ir):
        self.consts, self.defs = {}, {}
        for kind, m, _ in walk(ir.body):
            if kind == "constant":
                value = m.float_value if m.WhichOneof("value") == "float_value" else m.int_value
                self.consts[m.result] = (value, ir_pb.DType.Name(m.dtype))
            elif kind in ("scalar_binary", "scalar_unary", "select", "sys_value"):
                self.defs[m.result] = (kind, m)

    def const(self, value_id):
        assert value_id in self.consts, f"%{value_id} is not a constant"
        return self.consts[value_id]

    def fields(self, msg, names):
        return {name: self.const(getattr(msg, name)) for name in names}

    def defined_by(self, value_id):
        assert value_id in self.defs, f"%{value_id} is not a scalar op's result"
        return self.defs[value_id]


def ref(r):
    return (ir_pb.MemSpace.Name(r.space), ir_pb.Position.Name(r.position),
            ir_pb.DType.Name(r.dtype))


def cause(kernel, *args, **kwargs):
    with pytest.raises(CodegenError) as info:
        kernel.compile(*args, **kwargs)
    return info.value.__cause__, str(info.value)


# ---- the linear layer of asc-api.md 10.6 --------------------------------------------------------

M, N, K, TILE_M, TILE_N, TILE_K = 128, 256, 1024, 64, 64, 512


def linear_ir(run, quant=asc.QuantModes.F322F16, out_dtype=np.float16):
    a = np.zeros((M, K), np.float16)
    w = np.zeros(N * K, np.float16)
    c = np.zeros((M, N), out_dtype)
    linear_cube_kernel[4](a, w, c, M, N, K, TILE_M, TILE_N, TILE_K, quant)
    assert run.call_count == 1
    assert not c.any()  # nothing ran
    return launched_ir(run)


def k_loop(ir):
    """The body of the K-slice loop (the inner runtime loop)."""
    loops = [m for k, m, _ in walk(ir.body) if k == "for_op"]
    assert len(loops) == 2  # the tiles, then the K slices
    return loops[1].body


def test_linear_kernel_is_an_aic_kernel_with_the_stages_in_order(mock_launcher_run):
    ir = linear_ir(mock_launcher_run)
    assert ir.kernel_type == ir_pb.KERNEL_AIC_ONLY
    body = [op.WhichOneof("kind") for op in k_loop(ir).ops]
    stages = [k for k in body if k in ("nd2nz_copy", "data_copy", "pipe_barrier", "load_data_2d",
                                       "mmad", "fixpipe")]
    assert stages == (["nd2nz_copy", "data_copy", "pipe_barrier"] +
                      ["load_data_2d"] * (TILE_M // 16 + 1) +
                      ["pipe_barrier", "mmad", "pipe_barrier"])
    # PIPE_ALL between the stages; the library's PIPE_FIX barrier before the fixpipe into GM
    assert [b.pipe for b in ops_of(ir, "pipe_barrier")].count(ir_pb.PIPE_FIX) == 1
    # one fixpipe per output tile, after the K loop, then a barrier
    tile_ops = [m for k, m, _ in walk(ir.body) if k == "for_op"][0].body.ops
    tile_body = [op.WhichOneof("kind") for op in tile_ops]
    assert tile_body[-3:] == ["pipe_barrier", "fixpipe", "pipe_barrier"]
    assert tile_ops[-3].pipe_barrier.pipe == ir_pb.PIPE_FIX
    assert tile_ops[-1].pipe_barrier.pipe == ir_pb.PIPE_ALL


def test_linear_kernel_copies_a_nd_to_nz_and_w_with_data_copy_params(mock_launcher_run):
    ir = linear_ir(mock_launcher_run)
    v = Values(ir)
    nd2nz = only(ir, "nd2nz_copy")
    assert ref(nd2nz.dst) == ("MEM_L1", "POS_A1", "DT_FLOAT16")
    assert ref(nd2nz.src) == ("MEM_GM", "POS_GM", "DT_FLOAT16")
    assert v.const(nd2nz.dst.addr) == (0, "DT_UINT32")
    assert v.fields(nd2nz, ["nd_num", "d_value", "src_nd_matrix_stride", "src_d_value",
                            "dst_nz_c0_stride", "dst_nz_n_stride", "dst_nz_matrix_stride"]) == {
        "nd_num": (1, "DT_UINT16"), "d_value": (TILE_K, "DT_UINT16"),
        "src_nd_matrix_stride": (0, "DT_UINT16"), "src_d_value": (K, "DT_UINT16"),
        "dst_nz_c0_stride": (TILE_M, "DT_UINT16"), "dst_nz_n_stride": (1, "DT_UINT16"),
        "dst_nz_matrix_stride": (0, "DT_UINT16")}
    kind, cast = v.defined_by(nd2nz.n_value)  # m_act, a runtime value, as uint16
    assert kind == "scalar_unary" and cast.kind == ir_pb.ScalarUnaryOp.CAST
    assert cast.dtype == ir_pb.DT_UINT16 and v.defined_by(cast.operand)[0] == "select"

    copy = only(ir, "data_copy")
    assert ref(copy.dst) == ("MEM_L1", "POS_A1", "DT_FLOAT16")
    assert ref(copy.src) == ("MEM_GM", "POS_GM", "DT_FLOAT16")
    assert copy.params_form and not copy.pad_form
    assert v.const(copy.dst.addr) == (TILE_M * TILE_K * 2, "DT_UINT32")  # cb[byte_off:]
    assert v.const(copy.block_count) == (TILE_K // 16, "DT_UINT16")


def test_linear_kernel_loads_l0a_by_bands_and_l0b_in_one_go(mock_launcher_run):
    ir = linear_ir(mock_launcher_run)
    v = Values(ir)
    loads = ops_of(ir, "load_data_2d")
    a_loads, w_load = loads[:-1], loads[-1]
    for band, load in enumerate(a_loads):
        assert ref(load.dst) == ("MEM_L0A", "POS_A2", "DT_FLOAT16")
        assert ref(load.src) == ("MEM_L1", "POS_A1", "DT_FLOAT16")
        assert v.const(load.dst.addr)[0] == band * (TILE_K // 16) * 512
        assert v.const(load.src.addr)[0] == band * 512
        assert v.fields(load, ["start_index", "repeat_times", "src_stride", "sid", "dst_gap",
                               "if_transpose", "addr_mode"]) == {
            "start_index": (0, "DT_UINT16"), "repeat_times": (TILE_K // 16, "DT_UINT8"),
            "src_stride": (TILE_M // 16, "DT_UINT16"), "sid": (0, "DT_UINT16"),
            "dst_gap": (0, "DT_UINT16"), "if_transpose": (0, "DT_BOOL"),
            "addr_mode": (0, "DT_UINT8")}
    assert ref(w_load.dst) == ("MEM_L0B", "POS_B2", "DT_FLOAT16")
    assert v.const(w_load.src.addr)[0] == TILE_M * TILE_K * 2
    assert v.const(w_load.repeat_times) == (TILE_K * TILE_N // 256, "DT_UINT8")
    assert v.const(w_load.src_stride) == (1, "DT_UINT16")


def test_linear_kernel_mmad_overwrites_on_the_first_k_slice_only(mock_launcher_run):
    ir = linear_ir(mock_launcher_run)
    v = Values(ir)
    mmad = only(ir, "mmad")
    assert ref(mmad.dst) == ("MEM_L0C", "POS_CO1", "DT_FLOAT32")
    assert ref(mmad.fm) == ("MEM_L0A", "POS_A2", "DT_FLOAT16")
    assert ref(mmad.filter) == ("MEM_L0B", "POS_B2", "DT_FLOAT16")
    assert mmad.bias.space == ir_pb.MEM_INVALID and mmad.is_bias == 0
    assert v.fields(mmad, ["k", "unit_flag", "cmatrix_source"]) == {
        "k": (TILE_K, "DT_UINT16"), "unit_flag": (0, "DT_UINT8"),
        "cmatrix_source": (0, "DT_BOOL")}
    assert mmad.k_direction_align == 0
    for name in ("m", "n"):  # m_act, n_act: runtime values as uint16
        kind, cast = v.defined_by(getattr(mmad, name))
        assert kind == "scalar_unary" and cast.dtype == ir_pb.DT_UINT16
    # cmatrix_init_val = (k0 == 0), k0 the K loop's induction variable
    kind, first = v.defined_by(mmad.cmatrix_init_val)
    assert kind == "scalar_binary" and first.kind == ir_pb.ScalarBinaryOp.EQ
    k_loop_op = [m for k, m, _ in walk(ir.body) if k == "for_op"][1]
    assert first.lhs == k_loop_op.induction and v.const(first.rhs)[0] == 0


def test_linear_kernel_fixpipe_f322f16_row_major(mock_launcher_run):
    ir = linear_ir(mock_launcher_run)
    v = Values(ir)
    fix = only(ir, "fixpipe")
    assert ref(fix.dst) == ("MEM_GM", "POS_GM", "DT_FLOAT16")
    assert ref(fix.src) == ("MEM_L0C", "POS_CO1", "DT_FLOAT32")
    assert fix.quant_pre == ir_pb.FixpipeOp.F322F16 and not fix.nz_layout
    assert fix.cbuf_workspace.space == ir_pb.MEM_INVALID
    assert v.fields(fix, ["src_stride", "dst_stride", "deq_scalar", "nd_num", "src_nd_stride",
                          "dst_nd_stride", "relu_en", "unit_flag", "is_channel_split"]) == {
        "src_stride": (TILE_M, "DT_UINT16"), "dst_stride": (N, "DT_UINT32"),
        "deq_scalar": (0, "DT_UINT64"), "nd_num": (1, "DT_UINT16"),
        "src_nd_stride": (0, "DT_UINT16"), "dst_nd_stride": (0, "DT_UINT16"),
        "relu_en": (0, "DT_BOOL"), "unit_flag": (0, "DT_UINT8"),
        "is_channel_split": (0, "DT_BOOL")}
    for name in ("n_size", "m_size"):
        assert v.defined_by(getattr(fix, name))[1].dtype == ir_pb.DT_UINT16


def test_linear_kernel_fixpipe_no_quant_into_float32(mock_launcher_run):
    ir = linear_ir(mock_launcher_run, asc.QuantModes.NoQuant, np.float32)
    fix = only(ir, "fixpipe")
    assert ref(fix.dst) == ("MEM_GM", "POS_GM", "DT_FLOAT32")
    assert fix.quant_pre == ir_pb.FixpipeOp.NO_QUANT and not fix.nz_layout
    assert [op.WhichOneof("kind") for op in k_loop(ir).ops].count("mmad") == 1


def test_each_shape_and_tile_is_its_own_compilation(mock_launcher_run):
    a, w = np.zeros(64 * 512, np.float16), np.zeros(32 * 512, np.float16)
    c = np.zeros(64 * 32, np.float16)
    f16 = asc.QuantModes.F322F16
    before = linear_cube_kernel.compile_count
    linear_cube_kernel[1](a, w, c, 64, 32, 512, 64, 32, 512, f16)
    linear_cube_kernel[1](a, w, c, 64, 32, 512, 64, 32, 512, f16)
    linear_cube_kernel[1](a, w, c, 64, 32, 512, 64, 16, 512, f16)
    assert linear_cube_kernel.compile_count - before == 2
    ir = launched_ir(mock_launcher_run)
    v = Values(ir)
    assert v.const(ops_of(ir, "load_data_2d")[-1].repeat_times)[0] == 512 * 16 // 256


def test_the_printer_shows_cube_ops_as_their_fields(mock_launcher_run):
    text = format_kernel(linear_ir(mock_launcher_run))
    assert "mmad dst=L0C[" in text and "cmatrix_init_val=%" in text
    assert "fixpipe dst=GM[" in text and "quant_pre=F322F16" in text
    assert "nd2nz_copy dst=L1[" in text and "load_data_2d dst=L0A[" in text


# ---- cube memories ------------------------------------------------------------------------------

@asc.jit
def cube_memories_kernel():
    l1 = asc.LocalTensor(asc.uint8, asc.TPosition.A1, 0, 1024 * 1024)
    l0a = asc.LocalTensor(asc.uint8, asc.TPosition.A2, 0, 64 * 1024)
    l0b = asc.LocalTensor(asc.uint8, asc.TPosition.B2, 0, 64 * 1024)
    l0c = asc.LocalTensor(asc.uint8, asc.TPosition.CO1, 0, 128 * 1024)
    b1 = asc.LocalTensor(asc.float16, asc.TPosition.B1, 4096, 256)
    bt = asc.LocalTensor(asc.float32, asc.TPosition.C2, 0, 64)
    c1 = asc.LocalTensor(asc.float32, asc.TPosition.C1, 8192, 64)
    a = l1[96:].reinterpret_cast(asc.float16)
    asc.load_data(l0a.reinterpret_cast(asc.float16)[256:], a[16:], asc.LoadData2DParams())
    asc.load_data(l0b[1024:].reinterpret_cast(asc.float16), b1, asc.LoadData2DParams())
    asc.data_copy(bt, c1, asc.DataCopyParams(1, 8, 0, 0))
    asc.mmad(l0c.reinterpret_cast(asc.float32), l0a.reinterpret_cast(asc.float16),
             l0b.reinterpret_cast(asc.float16), bt, asc.MmadParams(16, 16, 16, unit_flag=0,
                                                                  cmatrix_source=False,
                                                                  cmatrix_init_val=True))


def test_static_cube_tensors_views_and_casts_keep_memory_and_position():
    ir = compile_ir(cube_memories_kernel)
    v = Values(ir)
    a_load, b_load = ops_of(ir, "load_data_2d")
    assert ref(a_load.dst) == ("MEM_L0A", "POS_A2", "DT_FLOAT16")
    assert v.const(a_load.dst.addr)[0] == 512          # 256 half elements
    assert ref(a_load.src) == ("MEM_L1", "POS_A1", "DT_FLOAT16")
    assert v.const(a_load.src.addr)[0] == 96 + 32      # byte view, then 16 halves
    assert v.const(a_load.src.count)[0] == (1024 * 1024 - 96) // 2 - 16
    assert ref(b_load.dst) == ("MEM_L0B", "POS_B2", "DT_FLOAT16")
    assert v.const(b_load.dst.addr)[0] == 1024
    assert v.const(b_load.dst.count)[0] == (64 * 1024 - 1024) // 2
    assert ref(b_load.src) == ("MEM_L1", "POS_B1", "DT_FLOAT16")
    assert v.const(b_load.src.addr)[0] == 4096
    copy = only(ir, "data_copy")
    assert ref(copy.dst) == ("MEM_BT", "POS_C2", "DT_FLOAT32")
    assert ref(copy.src) == ("MEM_L1", "POS_C1", "DT_FLOAT32")
    mmad = only(ir, "mmad")
    assert ref(mmad.dst) == ("MEM_L0C", "POS_CO1", "DT_FLOAT32")
    assert v.const(mmad.dst.count)[0] == 128 * 1024 // 4


def test_co2_has_no_memory_of_its_own():
    @asc.jit
    def co2_tensor_kernel():
        t = asc.LocalTensor(asc.float32, asc.TPosition.CO2, 0, 256)

    @asc.jit
    def co2_queue_kernel():
        q = asc.TQue(asc.TPosition.CO2, 1)

    for kernel in (co2_tensor_kernel, co2_queue_kernel):
        exc, text = cause(kernel)
        assert isinstance(exc, ValueError) and "CO2" in text and "fixpipe writes L0C" in text


@asc.jit(kernel_type=config.KernelType.AIC_ONLY)
def cube_queues_kernel(x: asc.GlobalAddress):
    pipe = asc.TPipe()
    in_a = asc.TQue(asc.TPosition.A1, 2)
    in_b = asc.TQue(asc.TPosition.B1, 1)
    a2 = asc.TQue(asc.TPosition.A2, 1)
    b2 = asc.TQue(asc.TPosition.B2, 1)
    co1 = asc.TQue(asc.TPosition.CO1, 1)
    c1 = asc.TQue(asc.TPosition.C1, 1)
    c2 = asc.TQue(asc.TPosition.C2, 1)
    scratch = asc.TBuf(asc.TPosition.A1)
    pipe.init_buffer(in_a, 2, 4096)
    pipe.init_buffer(in_b, 1, 4096)
    pipe.init_buffer(a2, 1, 4096)
    pipe.init_buffer(b2, 1, 4096)
    pipe.init_buffer(co1, 1, 4096)
    pipe.init_buffer(c1, 1, 4096)
    pipe.init_buffer(c2, 1, 4096)
    pipe.init_buffer(scratch, 2048)
    x_gm = asc.GlobalTensor()
    x_gm.set_global_buffer(x)
    a = in_a.alloc_tensor(asc.float16)
    asc.data_copy(a, x_gm, asc.DataCopyParams(1, 4, 0, 0))
    in_a.enque(a)
    a = in_a.deque(asc.float16)
    l0a = a2.alloc_tensor(asc.float16)
    asc.load_data(l0a, a, asc.LoadData2DParams(0, 2))
    a2.enque(l0a)
    in_a.free_tensor(a)
    c = co1.alloc_tensor(asc.float32)
    asc.data_copy(c1.alloc_tensor(asc.float16), x_gm, 16)
    asc.load_data(b2.alloc_tensor(asc.float16), scratch.get(asc.float16), asc.LoadData2DParams())
    co1.free_tensor(c)


def test_queues_and_tbufs_take_the_cube_positions():
    ir = compile_ir(cube_queues_kernel, F16)
    assert [(ir_pb.Position.Name(q.src_position), q.depth) for q in ir.queues] == [
        ("POS_A1", 2), ("POS_B1", 1), ("POS_A2", 1), ("POS_B2", 1), ("POS_CO1", 1),
        ("POS_C1", 1), ("POS_C2", 1), ("POS_A1", 0)]
    assert ir.queues[-1].kind == ir_pb.QueueDecl.TBUF
    fw = ir_pb.FrameworkOp
    kinds = [fw.Kind.Name(m.kind) for m in ops_of(ir, "framework")]
    assert kinds.count("INIT_BUFFER") == 8 and kinds.count("ALLOC_TENSOR") == 5
    copy, c1_copy = ops_of(ir, "data_copy")
    assert ref(copy.dst) == ("MEM_L1", "POS_A1", "DT_FLOAT16")
    results = {m.result for m in ops_of(ir, "framework") if m.kind == fw.ALLOC_TENSOR}
    assert copy.dst.addr in results
    load, scratch_load = ops_of(ir, "load_data_2d")
    assert ref(load.dst) == ("MEM_L0A", "POS_A2", "DT_FLOAT16")
    assert ref(load.src) == ("MEM_L1", "POS_A1", "DT_FLOAT16")
    assert ref(c1_copy.dst) == ("MEM_L1", "POS_C1", "DT_FLOAT16")
    assert ref(scratch_load.dst) == ("MEM_L0B", "POS_B2", "DT_FLOAT16")
    assert ref(scratch_load.src) == ("MEM_L1", "POS_A1", "DT_FLOAT16")


# ---- data_copy between GM and L1 ----------------------------------------------------------------

@asc.jit
def l1_copies_kernel(x: asc.GlobalAddress, n: int):
    x_gm = asc.GlobalTensor()
    x_gm.set_global_buffer(x)
    a1 = asc.LocalTensor(asc.float16, asc.TPosition.A1, 0, 1024)
    b1 = asc.LocalTensor(asc.float16, asc.TPosition.B1, 2048, 1024)
    c1 = asc.LocalTensor(asc.float16, asc.TPosition.C1, 4096, 1024)
    ub = asc.LocalTensor(asc.float16, asc.TPosition.VECIN, 0, 1024)
    asc.data_copy(a1, x_gm, asc.DataCopyParams(2, 4, 1, 0))
    asc.data_copy(b1, x_gm[n:], n)
    asc.data_copy(c1, x_gm, repeat_params=asc.DataCopyParams())
    asc.data_copy(x_gm, b1, asc.DataCopyParams(1, 2, 0, 0))
    asc.data_copy(ub, x_gm, 64)


def test_data_copy_moves_between_gm_and_l1_in_both_forms():
    ir = compile_ir(l1_copies_kernel, F16, 64)
    v = Values(ir)
    copies = ops_of(ir, "data_copy")
    assert [(ref(c.dst)[1], ref(c.src)[1], c.params_form) for c in copies] == [
        ("POS_A1", "POS_GM", True), ("POS_B1", "POS_GM", False), ("POS_C1", "POS_GM", True),
        ("POS_GM", "POS_B1", True), ("POS_VECIN", "POS_GM", False)]
    first = copies[0]
    assert v.fields(first, ["block_count", "block_len", "src_stride", "dst_stride"]) == {
        "block_count": (2, "DT_UINT16"), "block_len": (4, "DT_UINT16"),
        "src_stride": (1, "DT_UINT16"), "dst_stride": (0, "DT_UINT16")}
    assert copies[1].count == ir.params[1].value  # the runtime count
    assert v.fields(copies[2], ["block_count", "block_len"]) == {
        "block_count": (1, "DT_UINT16"), "block_len": (0, "DT_UINT16")}


def test_data_copy_into_l0_or_out_of_l0c_is_no_data_copy_path():
    @asc.jit
    def into_l0a_kernel(x: asc.GlobalAddress):
        x_gm = asc.GlobalTensor()
        x_gm.set_global_buffer(x)
        asc.data_copy(asc.LocalTensor(asc.float16, asc.TPosition.A2, 0, 256), x_gm, 256)

    exc, text = cause(into_l0a_kernel, F16)
    assert isinstance(exc, TypeError) and \
        "data_copy(): copying from GM to A2 (L0A) is not supported" in text, text


# ---- Nd2NzParams --------------------------------------------------------------------------------

@asc.jit
def nd2nz_kernel(x: asc.GlobalAddress, rows: int, case: asc.ConstExpr[str]):
    x_gm = asc.GlobalTensor()
    x_gm.set_global_buffer(x)
    b1 = asc.LocalTensor(asc.float16, asc.TPosition.B1, 512, 4096)
    if case == "positional":
        asc.data_copy(b1, x_gm[16:], asc.Nd2NzParams(2, rows, 40, 1600, 48, 32, 2, 1024))
    elif case == "keywords":
        asc.data_copy(b1, x_gm, intri_params=asc.Nd2NzParams(
            nd_num=1, n_value=16, d_value=32, src_nd_matrix_stride=0, src_d_value=32,
            dst_nz_c0_stride=16, dst_nz_n_stride=1, dst_nz_matrix_stride=0))
    elif case == "from_ub":
        asc.data_copy(b1, asc.LocalTensor(asc.float16, asc.TPosition.VECIN, 0, 512),
                      asc.Nd2NzParams(1, 16, 32, 0, 32, 16, 1, 0))
    elif case == "to_ub":
        asc.data_copy(asc.LocalTensor(asc.float16, asc.TPosition.VECIN, 0, 512), x_gm,
                      asc.Nd2NzParams(1, 16, 32, 0, 32, 16, 1, 0))
    elif case == "dtypes":
        asc.data_copy(b1.reinterpret_cast(asc.float32), x_gm,
                      asc.Nd2NzParams(1, 16, 32, 0, 32, 16, 1, 0))
    elif case == "missing":
        asc.data_copy(b1, x_gm, asc.Nd2NzParams(1, 16, 32, 0, 32, 16, 1))


def test_nd2nz_copy_fields_are_the_structs_in_order():
    ir = compile_ir(nd2nz_kernel, F16, MockValue(asc.int32), "positional")
    v = Values(ir)
    op = only(ir, "nd2nz_copy")
    assert ref(op.dst) == ("MEM_L1", "POS_B1", "DT_FLOAT16")
    assert v.const(op.dst.addr)[0] == 512
    consts = {name: v.const(getattr(op, name))[0] for name in (
        "nd_num", "d_value", "src_nd_matrix_stride", "src_d_value", "dst_nz_c0_stride",
        "dst_nz_n_stride", "dst_nz_matrix_stride")}
    assert consts == {"nd_num": 2, "d_value": 40, "src_nd_matrix_stride": 1600,
                      "src_d_value": 48, "dst_nz_c0_stride": 32, "dst_nz_n_stride": 2,
                      "dst_nz_matrix_stride": 1024}
    kind, cast = v.defined_by(op.n_value)  # the runtime `rows`
    assert cast.operand == ir.params[1].value and cast.dtype == ir_pb.DT_UINT16
    assert only(compile_ir(nd2nz_kernel, F16, 3, "keywords"), "nd2nz_copy").d_value


# ---- load_data ----------------------------------------------------------------------------------

@asc.jit
def load_data_kernel(x: asc.GlobalAddress, flag: int, start: int, case: asc.ConstExpr[str]):
    x_gm = asc.GlobalTensor()
    x_gm.set_global_buffer(x)
    a1 = asc.LocalTensor(asc.float16, asc.TPosition.A1, 0, 4096)
    a2 = asc.LocalTensor(asc.float16, asc.TPosition.A2, 0, 4096)
    if case == "defaults":
        asc.load_data(a2, a1, asc.LoadData2DParams())
    elif case == "runtime":
        asc.load_data(a2, a1, params=asc.LoadData2DParams(start_index=start, repeat_times=4,
                                                          src_stride=2, dst_gap=1,
                                                          if_transpose=flag, addr_mode=1))
    elif case == "pyasc_ints":  # pyasc's unit test passes if_transpose as 0
        asc.load_data(a2, a1, asc.LoadData2DParams(0, 4, 0, 0, 0, 0, 0))
    elif case == "from_gm":
        asc.load_data(a2, x_gm, asc.LoadData2DParams(repeat_times=2, if_transpose=True))
    elif case == "dst_gm":
        asc.load_data(x_gm, a1, asc.LoadData2DParams())
    elif case == "dtypes":
        asc.load_data(a2.reinterpret_cast(asc.int16), a1, asc.LoadData2DParams())
    elif case == "no_params":
        asc.load_data(a2, a1, asc.DataCopyParams())
    elif case == "v2":
        asc.load_data(a2, a1, asc.LoadData2DParamsV2())


LOAD_FIELDS = ["start_index", "repeat_times", "src_stride", "sid", "dst_gap", "if_transpose",
               "addr_mode"]


def test_load_data_defaults_are_pyasc_s():
    ir = compile_ir(load_data_kernel, F16, 0, 0, "defaults")
    op = only(ir, "load_data_2d")
    assert [c[0] for c in Values(ir).fields(op, LOAD_FIELDS).values()] == [0, 1, 0, 0, 0, 0, 0]


def test_load_data_runtime_fields():
    ir = compile_ir(load_data_kernel, F16, MockValue(asc.int32), MockValue(asc.int32), "runtime")
    v = Values(ir)
    op = only(ir, "load_data_2d")
    kind, transpose = v.defined_by(op.if_transpose)  # a runtime int as C++'s bool: != 0
    assert kind == "scalar_binary" and transpose.kind == ir_pb.ScalarBinaryOp.NE
    assert transpose.lhs == ir.params[1].value and transpose.dtype == ir_pb.DT_INT32
    kind, start = v.defined_by(op.start_index)
    assert start.operand == ir.params[2].value and start.dtype == ir_pb.DT_UINT16
    assert [v.const(getattr(op, f))[0] for f in ("repeat_times", "src_stride", "dst_gap",
                                                   "addr_mode")] == [4, 2, 1, 1]


def test_load_data_pyasc_spellings_and_gm_source():
    ir = compile_ir(load_data_kernel, F16, 0, 0, "pyasc_ints")
    assert Values(ir).const(only(ir, "load_data_2d").if_transpose) == (0, "DT_BOOL")
    ir = compile_ir(load_data_kernel, F16, 0, 0, "from_gm")
    op = only(ir, "load_data_2d")
    assert ref(op.src) == ("MEM_GM", "POS_GM", "DT_FLOAT16")
    assert Values(ir).const(op.if_transpose) == (1, "DT_BOOL")


# ---- mmad and MmadParams ------------------------------------------------------------------------

@asc.jit
def mmad_kernel(m: int, first: int, case: asc.ConstExpr[str]):
    c = asc.LocalTensor(asc.float32, asc.TPosition.CO1, 0, 4096)
    a = asc.LocalTensor(asc.float16, asc.TPosition.A2, 0, 4096)
    b = asc.LocalTensor(asc.float16, asc.TPosition.B2, 0, 4096)
    bt = asc.LocalTensor(asc.float32, asc.TPosition.C2, 256, 64)
    if case == "flags":
        asc.mmad(c, a, b, asc.MmadParams(m, 32, 48, unit_flag=3, cmatrix_source=False,
                                         cmatrix_init_val=first > 0))
    elif case == "flags_keywords":
        asc.mmad(c, a, b, asc.MmadParams(m=16, n=32, k=48, unit_flag=2, cmatrix_source=False,
                                         cmatrix_init_val=False))
    elif case == "six_positional":  # Ascend C's flag constructor; pyasc reads is_bias, fm_offset..
        asc.mmad(c, a, b, asc.MmadParams(16, 32, 48, 2, False, False))
    elif case == "bias_set":
        asc.mmad(c, a, b, asc.MmadParams(16, 32, 48, is_bias=True, fm_offset=0, en_ssparse=False,
                                         en_winograd_a=False, en_winograd_b=False))
    elif case == "default_struct":  # pyasc's test_mmad: m, n, k alone are dropped
        asc.mmad(c, a, b, asc.MmadParams(4, 4, 4))
    elif case == "partial_flags":
        asc.mmad(c, a, b, asc.MmadParams(16, 32, 48, cmatrix_init_val=False))
    elif case == "both_sets":
        asc.mmad(c, a, b, asc.MmadParams(16, 32, 48, is_bias=False, unit_flag=0,
                                         cmatrix_source=False, cmatrix_init_val=True))
    elif case == "flags_and_offset":  # is_bias absent: the flag set wins, fm_offset is dropped
        asc.mmad(c, a, b, asc.MmadParams(16, 32, 48, fm_offset=7, unit_flag=0,
                                         cmatrix_source=True, cmatrix_init_val=True))
    elif case == "bias_table":
        asc.mmad(c, a, b, bt, asc.MmadParams(16, 32, 48, unit_flag=0, cmatrix_source=False,
                                             cmatrix_init_val=False))
    elif case == "bias_keywords":
        asc.mmad(c, a, b, bias=bt,
                 params=asc.MmadParams(16, 32, 48, unit_flag=0, cmatrix_source=False,
                                       cmatrix_init_val=False))
    elif case == "bias_l0c":
        asc.mmad(c, a, b, c, asc.MmadParams(16, 32, 48, unit_flag=0, cmatrix_source=True,
                                           cmatrix_init_val=False))
    elif case == "bias_ub":
        asc.mmad(c, a, b, asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 0, 64),
                 asc.MmadParams(16, 32, 48, unit_flag=0, cmatrix_source=False,
                                cmatrix_init_val=False))
    elif case == "float_m":
        asc.mmad(c, a, b, asc.MmadParams(1.5, 32, 48, unit_flag=0, cmatrix_source=False,
                                         cmatrix_init_val=False))
    elif case == "float_m_default":  # pyasc does not look at fields it drops
        asc.mmad(c, a, b, asc.MmadParams(1.5, 32, 48))
    elif case == "no_params":
        asc.mmad(c, a, b)
    elif case == "bad_dst":
        asc.mmad(3, a, b, asc.MmadParams(16, 32, 48, unit_flag=0, cmatrix_source=False,
                                         cmatrix_init_val=False))


MMAD_FIELDS = ["m", "n", "k", "is_bias", "unit_flag", "cmatrix_source", "cmatrix_init_val",
               "k_direction_align"]


def mmad_of(case, m=16, first=1):
    ir = compile_ir(mmad_kernel, m, first, case)
    return ir, Values(ir), only(ir, "mmad")


def test_mmad_flag_set_with_runtime_values():
    ir, v, op = mmad_of("flags", MockValue(asc.int32), MockValue(asc.int32))
    assert v.fields(op, ["n", "k", "unit_flag", "cmatrix_source"]) == {
        "n": (32, "DT_UINT16"), "k": (48, "DT_UINT16"), "unit_flag": (3, "DT_UINT8"),
        "cmatrix_source": (0, "DT_BOOL")}
    assert v.defined_by(op.m)[1].operand == ir.params[0].value
    kind, first = v.defined_by(op.cmatrix_init_val)
    assert first.kind == ir_pb.ScalarBinaryOp.GT and first.lhs == ir.params[1].value
    assert op.is_bias == 0 and op.k_direction_align == 0
    assert op.bias.space == ir_pb.MEM_INVALID


def test_mmad_flag_set_by_keywords():
    _, v, op = mmad_of("flags_keywords")
    assert v.fields(op, ["m", "n", "k", "unit_flag", "cmatrix_source", "cmatrix_init_val"]) == {
        "m": (16, "DT_UINT16"), "n": (32, "DT_UINT16"), "k": (48, "DT_UINT16"),
        "unit_flag": (2, "DT_UINT8"), "cmatrix_source": (0, "DT_BOOL"),
        "cmatrix_init_val": (0, "DT_BOOL")}


def test_mmad_bias_set_sends_is_bias_and_leaves_the_flags_at_their_defaults():
    _, v, op = mmad_of("bias_set")
    assert v.fields(op, ["m", "n", "k", "is_bias"]) == {
        "m": (16, "DT_UINT16"), "n": (32, "DT_UINT16"), "k": (48, "DT_UINT16"),
        "is_bias": (1, "DT_BOOL")}
    assert (op.unit_flag, op.cmatrix_source, op.cmatrix_init_val) == (0, 0, 0)


@pytest.mark.parametrize("case", ["default_struct", "partial_flags", "both_sets",
                                  "float_m_default", "six_positional"])
def test_mmad_params_outside_both_sets_are_a_default_struct(case):
    """pyasc's quirk (asc-api.md 4.14): every field, m, n and k too, is Ascend C's default."""
    _, _, op = mmad_of(case)
    assert [getattr(op, f) for f in MMAD_FIELDS] == [0] * len(MMAD_FIELDS)


def test_mmad_flag_set_ignores_the_bias_set_s_other_fields():
    _, v, op = mmad_of("flags_and_offset")
    assert v.const(op.cmatrix_source) == (1, "DT_BOOL") and op.is_bias == 0


@pytest.mark.parametrize("case", ["bias_table", "bias_keywords"])
def test_mmad_bias_in_the_bias_table_sets_cmatrix_source(case):
    _, v, op = mmad_of(case)
    assert ref(op.bias) == ("MEM_BT", "POS_C2", "DT_FLOAT32")
    assert v.const(op.bias.addr)[0] == 256
    assert v.const(op.cmatrix_source) == (1, "DT_BOOL")  # params said False
    assert v.const(op.cmatrix_init_val) == (0, "DT_BOOL")


def test_mmad_bias_in_l0c_is_the_accumulator_itself():
    _, v, op = mmad_of("bias_l0c")
    assert op.bias.space == ir_pb.MEM_INVALID and op.cmatrix_source == 0  # params said True
    assert v.const(op.cmatrix_init_val) == (0, "DT_BOOL")


def test_mmad_bias_elsewhere_is_passed_on_for_the_simulator_to_refuse():
    _, _, op = mmad_of("bias_ub")
    assert ref(op.bias) == ("MEM_UB", "POS_VECIN", "DT_FLOAT32") and op.cmatrix_source == 0


# ---- fixpipe ------------------------------------------------------------------------------------

@asc.jit
def fixpipe_kernel(x: asc.GlobalAddress, relu: int, scale: int, case: asc.ConstExpr[str]):
    x_gm = asc.GlobalTensor()
    x_gm.set_global_buffer(x)
    c = asc.LocalTensor(asc.float32, asc.TPosition.CO1, 0, 4096)
    params = asc.FixpipeParamsV220(32, 16, 16, 64)
    if case == "defaults":
        asc.fixpipe(x_gm, c, params)
    elif case == "nz":
        asc.fixpipe(x_gm, c, params, asc.FixpipeConfig.cfg_nz())
    elif case == "constructed":
        asc.fixpipe(x_gm, c, params, config=asc.FixpipeConfig(asc.CO2Layout.NZ))
    elif case == "row_major":
        asc.fixpipe(x_gm, c, params, asc.FixpipeConfig(asc.CO2Layout.ROW_MAJOR))
    elif case == "all_fields":
        asc.fixpipe(x_gm, c, asc.FixpipeParamsV220(
            n_size=32, m_size=16, src_stride=16, dst_stride=64, quant_pre=asc.QuantModes.DEQF16,
            deq_scalar=scale, nd_num=2, src_nd_stride=3, dst_nd_stride=4096, relu_en=relu,
            unit_flag=3, is_channel_split=True), asc.FixpipeConfig.cfg_row_major())
    elif case == "workspace":
        ws = asc.LocalTensor(asc.uint64, asc.TPosition.C1, 1024, 32)
        asc.fixpipe(x_gm, c, ws, asc.FixpipeParamsV220(32, 16, 16, 64,
                                                       asc.QuantModes.VDEQF16))
    elif case == "to_l1":
        asc.fixpipe(asc.LocalTensor(asc.float16, asc.TPosition.A1, 0, 512), c,
                    asc.FixpipeParamsV220(16, 16, 16, 16, asc.QuantModes.F322F16),
                    asc.FixpipeConfig.cfg_nz())
    elif case == "column_major":
        asc.fixpipe(x_gm, c, params, asc.FixpipeConfig(asc.CO2Layout.COLUMN_MAJOR))
    elif case == "uncalled_config":  # pyasc needs the called form
        asc.fixpipe(x_gm, c, params, asc.FixpipeConfig.cfg_nz)
    elif case == "bad_quant":
        asc.FixpipeParamsV220(32, 16, 16, 64, quant_pre=42)
    elif case == "bad_layout":
        asc.FixpipeConfig(5)
    elif case == "missing":
        asc.FixpipeParamsV220(32, 16, 16)
    elif case == "src_gm":
        asc.fixpipe(x_gm, x_gm, params)
    elif case == "scalar_to_gm":
        asc.fixpipe(x_gm, c, asc.FixpipeParamsV220(32, 16, 16, 64, asc.QuantModes.REQ8, scale))
    elif case == "scalar_to_l1":
        asc.fixpipe(asc.LocalTensor(asc.float16, asc.TPosition.A1, 0, 512), c,
                    asc.FixpipeParamsV220(32, 16, 16, 16, asc.QuantModes.DEQF16, scale),
                    asc.FixpipeConfig.cfg_nz())
    elif case in ("chunks_nd", "chunks_nz"):
        ws = asc.LocalTensor(asc.uint64, asc.TPosition.C1, 4096, 320)
        cfg = asc.FixpipeConfig.cfg_nz() if case == "chunks_nz" else \
            asc.FixpipeConfig.cfg_row_major()
        asc.fixpipe(x_gm, c, ws, asc.FixpipeParamsV220(320, 16, 16, 400, asc.QuantModes.VREQ8),
                    cfg)
    elif case == "co12":
        asc.data_copy(x_gm, c, asc.DataCopyCO12DstParams(32, 16, 64, 16, asc.QuantModes.REQ8,
                                                         relu, False, True))
    elif case == "co12_nz_l1":
        asc.data_copy(asc.LocalTensor(asc.float16, asc.TPosition.A1, 0, 512), c,
                      asc.DataCopyCO12DstParams(n_size=16, m_size=16, dst_stride=16,
                                                src_stride=16, quant_pre=asc.QuantModes.F322F16))
    elif case == "co12_vector":
        asc.data_copy(x_gm, c, asc.DataCopyCO12DstParams(32, 16, 64, 16, asc.QuantModes.VREQ8))


FIX_FIELDS = ["n_size", "m_size", "src_stride", "dst_stride", "deq_scalar", "nd_num",
              "src_nd_stride", "dst_nd_stride", "relu_en", "unit_flag", "is_channel_split"]


def fixpipe_of(case, relu=0, scale=0):
    ir = compile_ir(fixpipe_kernel, F16, relu, scale, case)
    return ir, Values(ir), only(ir, "fixpipe")


def test_fixpipe_defaults_are_pyasc_s():
    _, v, op = fixpipe_of("defaults")
    assert ref(op.dst) == ("MEM_GM", "POS_GM", "DT_FLOAT16")
    assert ref(op.src) == ("MEM_L0C", "POS_CO1", "DT_FLOAT32")
    assert [c[0] for c in v.fields(op, FIX_FIELDS).values()] == [32, 16, 16, 64, 0, 1, 0, 0,
                                                                  0, 0, 0]
    assert op.quant_pre == ir_pb.FixpipeOp.NO_QUANT and not op.nz_layout


@pytest.mark.parametrize("case, nz", [("nz", True), ("constructed", True), ("row_major", False),
                                      ("defaults", False)])
def test_fixpipe_config_gives_the_layout(case, nz):
    assert fixpipe_of(case)[2].nz_layout is nz


def test_fixpipe_every_field_and_runtime_values():
    ir, v, op = fixpipe_of("all_fields", MockValue(asc.int32), MockValue(asc.uint64))
    assert op.quant_pre == ir_pb.FixpipeOp.DEQF16
    assert op.deq_scalar == ir.params[2].value  # a uint64 argument as it is
    kind, relu = v.defined_by(op.relu_en)
    assert relu.kind == ir_pb.ScalarBinaryOp.NE and relu.lhs == ir.params[1].value
    assert v.fields(op, ["nd_num", "src_nd_stride", "dst_nd_stride", "unit_flag",
                         "is_channel_split", "dst_stride"]) == {
        "nd_num": (2, "DT_UINT16"), "src_nd_stride": (3, "DT_UINT16"),
        "dst_nd_stride": (4096, "DT_UINT16"), "unit_flag": (3, "DT_UINT8"),
        "is_channel_split": (1, "DT_BOOL"), "dst_stride": (64, "DT_UINT32")}


def test_fixpipe_with_a_quant_vector_workspace_and_into_l1():
    _, v, op = fixpipe_of("workspace")
    assert ref(op.cbuf_workspace) == ("MEM_L1", "POS_C1", "DT_UINT64")
    assert v.const(op.cbuf_workspace.addr)[0] == 1024
    assert op.quant_pre == ir_pb.FixpipeOp.VDEQF16
    _, _, op = fixpipe_of("to_l1")
    assert ref(op.dst) == ("MEM_L1", "POS_A1", "DT_FLOAT16") and op.nz_layout


def sequence(ir):
    """The kinds of the ops that are instructions, in order (constants and scalar math left out)."""
    return [k for k, _, _ in walk(ir.body)
            if k not in ("constant", "scalar_binary", "scalar_unary", "select", "sys_value")]


def test_a_scalar_mode_loads_quant_pre_then_a_fix_barrier_as_the_library_does():
    ir, v, op = fixpipe_of("scalar_to_gm", 0, MockValue(asc.uint64))
    assert sequence(ir) == ["store_config", "pipe_barrier", "fixpipe"]
    store, barrier = ops_of(ir, "store_config")[0], ops_of(ir, "pipe_barrier")[0]
    assert store.kind == ir_pb.StoreConfigOp.SET_FIX_PIPE_PRE_QUANT
    assert store.value == ir.params[2].value  # deq_scalar, the uint64 argument itself
    assert barrier.pipe == ir_pb.PIPE_FIX and op.quant_pre == ir_pb.FixpipeOp.REQ8
    # Into L1 the library writes QUANT_PRE and runs the fixpipe with no barrier.
    ir, _, _ = fixpipe_of("scalar_to_l1", 0, MockValue(asc.uint64))
    assert sequence(ir) == ["store_config", "fixpipe"]
    # Without a quant word: the barrier only (the library's PipeBarrier<PIPE_FIX> into GM).
    assert sequence(fixpipe_of("defaults")[0]) == ["pipe_barrier", "fixpipe"]


@pytest.mark.parametrize("case", ["chunks_nd", "chunks_nz"])
def test_a_vector_mode_past_256_columns_runs_in_the_librarys_chunks(case):
    ir = compile_ir(fixpipe_kernel, F16, 0, 0, case)
    v = Values(ir)
    assert sequence(ir) == ["pipe_barrier", "fixpipe"] * 3
    ops = ops_of(ir, "fixpipe")
    assert [v.const(op.n_size)[0] for op in ops] == [128, 128, 64]
    # L0C (float, 16-row blocks): 8 blocks of 16 x 16 per chunk; the words 128 apart.
    assert [v.const(op.src.addr)[0] for op in ops] == [0, 8 * 16 * 16 * 4, 16 * 16 * 16 * 4]
    assert [v.const(op.cbuf_workspace.addr)[0] for op in ops] == [4096, 4096 + 1024, 4096 + 2048]
    gm = [op.dst.addr for op in ops]
    assert len(set(gm)) == 3, "each chunk writes its own columns"


def test_data_copy_co12_is_one_fixpipe_with_its_fields():
    ir, v, op = fixpipe_of("co12", MockValue(asc.int32))
    assert sequence(ir) == ["fixpipe"]  # the register writes are the kernel's own
    assert op.quant_pre == ir_pb.FixpipeOp.REQ8 and not op.nz_layout
    assert v.fields(op, ["n_size", "m_size", "dst_stride", "src_stride"]) == {
        "n_size": (32, "DT_UINT16"), "m_size": (16, "DT_UINT16"),
        "dst_stride": (64, "DT_UINT32"), "src_stride": (16, "DT_UINT16")}
    assert v.defined_by(op.relu_en)[1].kind == ir_pb.ScalarBinaryOp.NE
    _, _, op = fixpipe_of("co12_nz_l1")
    assert ref(op.dst) == ("MEM_L1", "POS_A1", "DT_FLOAT16") and op.nz_layout


def test_the_candidates_name_the_default_config():
    _, message = cause(fixpipe_kernel, F16, 0, 0, "uncalled_config")
    assert "config: FixpipeConfig = FixpipeConfig.cfg_row_major" in message


# ---- trace-time errors -------------------------------------------------------------------------

ND2NZ, LOAD, MMAD, FIX = (nd2nz_kernel, (F16, 3)), (load_data_kernel, (F16, 0, 0)), \
    (mmad_kernel, (16, 1)), (fixpipe_kernel, (F16, 0, 0))
ERRORS = [  # (kernel and arguments, case, exception, text)
    (ND2NZ, "from_ub", NotSupportedError,
     "not supported by aicore-sim yet: asc.data_copy(dst, src, Nd2NzParams) from UB"),
    (ND2NZ, "to_ub", TypeError, "Nd2NzParams copies GM -> L1"),
    (ND2NZ, "dtypes", TypeError, "same dtype"),
    (ND2NZ, "missing", TypeError, "missing required argument 'dst_nz_matrix_stride'"),
    (LOAD, "dst_gm", TypeError, "load_data(): 'dst' must be a LocalTensor, got GlobalTensor"),
    (LOAD, "dtypes", TypeError, "dst and src must have the same dtype"),
    (LOAD, "no_params", RuntimeError, "No viable candidates were found to dispatch load_data()"),
    (LOAD, "v2", NotSupportedError,
     "not supported by aicore-sim yet: LoadData2DParamsV2: Ascend 910B (Atlas A2) has no"),
    (MMAD, "float_m", TypeError, "MmadParams.m must be an int or a traced scalar, got float"),
    (MMAD, "no_params", RuntimeError, "No viable candidates were found to dispatch mmad()"),
    (MMAD, "bad_dst", TypeError, "mmad(): 'dst' must be a LocalTensor, got int"),
    (FIX, "column_major", NotSupportedError, "CO2Layout.COLUMN_MAJOR"),
    (FIX, "uncalled_config", RuntimeError, "No viable candidates were found to dispatch fixpipe()"),
    (FIX, "bad_quant", TypeError, "FixpipeParamsV220.quant_pre must be an asc.QuantModes"),
    (FIX, "bad_layout", TypeError, "FixpipeConfig(): layout must be a compile-time asc.CO2Layout"),
    (FIX, "missing", TypeError, "missing required argument 'dst_stride'"),
    (FIX, "src_gm", TypeError, "fixpipe(): 'src' must be a LocalTensor, got GlobalTensor"),
    (FIX, "co12_vector", NotSupportedError, "DataCopyCO12DstParams) with QuantModes.VREQ8"),
]


@pytest.mark.parametrize("kernel_args, case, error, text", ERRORS,
                         ids=[f"{row[0][0].__name__}-{row[1]}" for row in ERRORS])
def test_trace_time_errors(kernel_args, case, error, text):
    kernel, args = kernel_args
    exc, message = cause(kernel, *args, case)
    assert isinstance(exc, error) and text in message


# ---- pyasc's own unit-test kernels (python/test/unit/language/basic/test_mm.py, test_fixpipe.py)

@asc.jit
def pyasc_mmad_kernel():
    dst = asc.LocalTensor(dtype=asc.float16, pos=asc.TPosition.VECOUT, addr=0, tile_size=1024)
    fm = asc.LocalTensor(dtype=asc.float16, pos=asc.TPosition.VECIN, addr=0, tile_size=1024)
    filter = asc.LocalTensor(dtype=asc.float16, pos=asc.TPosition.VECIN, addr=0, tile_size=1024)
    bias = asc.LocalTensor(dtype=asc.float16, pos=asc.TPosition.VECIN, addr=0, tile_size=1024)
    params = asc.MmadParams(4, 4, 4)
    asc.mmad(dst, fm, filter, params)
    asc.mmad(dst, fm, filter, bias, params)


@asc.jit
def pyasc_fixpipe_kernel(x):
    dst_gm = asc.GlobalTensor()
    dst_gm.set_global_buffer(x)
    src_local = asc.LocalTensor(dtype=asc.float16, pos=asc.TPosition.VECIN, addr=0, tile_size=512)
    workspace_local = asc.LocalTensor(dtype=asc.uint64, pos=asc.TPosition.VECIN, addr=512,
                                      tile_size=1024)
    params = asc.FixpipeParamsV220(
        n_size=16, m_size=16, src_stride=32, dst_stride=32,
        quant_pre=asc.QuantModes.NoQuant, deq_scalar=0,
        nd_num=1, src_nd_stride=0, dst_nd_stride=0,
        relu_en=False, unit_flag=0, is_channel_split=False
    )
    fixpipe_config = asc.FixpipeConfig(asc.CO2Layout.ROW_MAJOR)
    asc.fixpipe(dst_gm, src_local, params, fixpipe_config)
    asc.fixpipe(dst_gm, src_local, workspace_local, params, fixpipe_config)


@asc.jit
def pyasc_load_data_kernel(x: asc.GlobalAddress) -> None:
    x_local = asc.LocalTensor(dtype=asc.float16, pos=asc.TPosition.VECIN, addr=0, tile_size=512)
    y_local = asc.LocalTensor(dtype=asc.float16, pos=asc.TPosition.VECOUT, addr=0, tile_size=512)
    x_gm = asc.GlobalTensor()
    x_gm.set_global_buffer(x)
    params_2d = asc.LoadData2DParams(0, 4, 0, 0, 0, 0, 0)
    asc.load_data(y_local, x_local, params_2d)
    asc.load_data(x_local, x_gm, params_2d)


def test_pyasc_unit_test_kernels_trace(mock_launcher_run):
    """Positions are not checked while tracing, as in pyasc; the simulator refuses them."""
    pyasc_mmad_kernel[1]()
    pyasc_fixpipe_kernel[1](MockTensor(asc.float16))
    pyasc_load_data_kernel[1](MockTensor(asc.float16))
    assert mock_launcher_run.call_count == 3
    mmads = ops_of(launched_ir_at(mock_launcher_run, 0), "mmad")
    assert [ref(m.dst)[0] for m in mmads] == ["MEM_UB", "MEM_UB"]
    assert [m.bias.space for m in mmads] == [ir_pb.MEM_INVALID, ir_pb.MEM_UB]
    fixpipes = ops_of(launched_ir_at(mock_launcher_run, 1), "fixpipe")
    assert [f.cbuf_workspace.space for f in fixpipes] == [ir_pb.MEM_INVALID, ir_pb.MEM_UB]
    loads = ops_of(launched_ir_at(mock_launcher_run, 2), "load_data_2d")
    assert [ref(ld.src)[0] for ld in loads] == ["MEM_UB", "MEM_GM"]


def launched_ir_at(run, index):
    kernel, _, _ = run.call_args_list[index].args
    return kernel.ir


# ---- the names ----------------------------------------------------------------------------------

def test_the_cube_names_live_where_pyasc_exports_them():
    import asc.language as language
    for name in ("load_data", "mmad", "fixpipe"):
        assert getattr(asc, name) is getattr(language.basic, name) is getattr(language, name)
    for name in ("Nd2NzParams", "LoadData2DParams", "MmadParams", "FixpipeParamsV220",
                 "FixpipeConfig", "LoadData2DParamsV2", "LoadData3DParamsV2",
                 "LoadData3DParamsV2Pro", "LoadDataRepeatParam"):
        assert getattr(asc, name) is getattr(language.core, name) is getattr(language, name)
        assert name not in _unsupported.not_yet("asc")
    with pytest.raises(AttributeError):
        language.basic.MmadParams  # noqa: B018 - pyasc's basic has no structs
    for name in ("sync_all", "cross_core_set_flag", "cross_core_wait_flag"):  # mixed kernels
        assert getattr(asc, name) is getattr(language.basic, name) is getattr(language, name)


def test_the_structs_need_a_kernel():
    for make in (lambda: asc.MmadParams(16, 16, 16), lambda: asc.LoadData2DParams(),
                 lambda: asc.FixpipeConfig.cfg_nz(),
                 lambda: asc.Nd2NzParams(1, 1, 1, 1, 1, 1, 1, 1)):
        with pytest.raises(RuntimeError, match="cannot be called without initialization"):
            make()


# ---- init_const_value and load_data_with_transpose ------------------------------------------------

@asc.jit(matmul_cube_only=True)
def fill_and_transpose_kernel(x: asc.GlobalAddress, rep):
    l1 = asc.LocalTensor(asc.float32, asc.TPosition.A1, 0, 4096)
    l0a = asc.LocalTensor(asc.float32, asc.TPosition.A2, 0, 4096)
    asc.init_const_value(l1, asc.InitConstValueParams(repeat_times=rep, block_num=4, dst_gap=1,
                                                      init_value=np.float16(2.5)))
    asc.load_data_with_transpose(l0a[256:], l1, asc.LoadData2dTransposeParams(
        start_index=1, repeat_times=2, src_stride=3, dst_gap=4, dst_frac_gap=5))


def test_init_const_value_and_transpose_emit_their_fields(mock_launcher_run):
    fill_and_transpose_kernel[1](F32, 3)
    ir = launched_ir(mock_launcher_run)
    values = Values(ir)
    fill = only(ir, "init_const_value")
    assert ref(fill.dst)[:2] == ("MEM_L1", "POS_A1")
    assert values.fields(fill, ["block_num", "dst_gap"]) == {"block_num": (4, "DT_UINT16"),
                                                             "dst_gap": (1, "DT_UINT16")}
    assert values.const(fill.init_value) == (2.5, "DT_FLOAT32")  # converted to dst's type
    kind, _ = values.defined_by(fill.repeat_times)  # the runtime argument, cast to uint16
    assert kind == "scalar_unary"
    load = only(ir, "load_data_transpose")
    assert ref(load.dst)[:2] == ("MEM_L0A", "POS_A2") and ref(load.src)[:2] == ("MEM_L1", "POS_A1")
    assert values.fields(load, ["start_index", "repeat_times", "src_stride", "dst_gap",
                                "dst_frac_gap", "addr_mode"]) == {
        "start_index": (1, "DT_UINT16"), "repeat_times": (2, "DT_UINT8"),
        "src_stride": (3, "DT_UINT16"), "dst_gap": (4, "DT_UINT16"),
        "dst_frac_gap": (5, "DT_UINT16"), "addr_mode": (0, "DT_UINT8")}


@asc.jit(matmul_cube_only=True)
def fill_wrong_struct_kernel(x: asc.GlobalAddress):
    l1 = asc.LocalTensor(asc.float16, asc.TPosition.A1, 0, 4096)
    asc.init_const_value(l1, asc.LoadData2DParams())


def test_init_const_value_takes_its_own_struct(mock_launcher_run):
    with pytest.raises(CodegenError, match="init_const_value"):
        fill_wrong_struct_kernel[1](F16)


# ---- names whose fact is missing: they trace up to the call, which names the fact -----------------

@asc.jit(matmul_cube_only=True)
def open_fact_kernel(x: asc.GlobalAddress, which: asc.ConstExpr[int]):
    l1 = asc.LocalTensor(asc.float16, asc.TPosition.A1, 0, 4096)
    l0a = asc.LocalTensor(asc.float16, asc.TPosition.A2, 0, 4096)
    l0b = asc.LocalTensor(asc.float16, asc.TPosition.B2, 0, 4096)
    l0c = asc.LocalTensor(asc.float32, asc.TPosition.CO1, 0, 4096)
    idx = asc.LocalTensor(asc.uint8, asc.TPosition.A1, 8192, 256)
    g = asc.GlobalTensor()
    g.set_global_buffer(x)
    if which == 0:
        asc.load_image_to_local(l1, asc.LoadImageToLocalParams(4, 4, 0, 0, 4))
    elif which == 1:
        asc.load_data_with_sparse(l0b, l1, idx, asc.LoadData2DParams())
    elif which == 2:
        asc.mmad_with_sparse(l0c, l0a, l0b, asc.MmadParams(16, 16, 16, unit_flag=0,
                                                           cmatrix_source=False,
                                                           cmatrix_init_val=True))
    elif which == 3:
        asc.load_data_with_transpose(l0b, l1, asc.LoadData2dTransposeParamsV2(0, 1, 0, 0, 0, 1))
    else:
        asc.data_copy(l1, g, asc.DataCopyParams(1, 1, 0, 0), asc.DataCopyEnhancedParams())


@pytest.mark.parametrize("which,needs", [
    (0, "asc.load_image_to_local needs the AIPP unit's arithmetic"),
    (1, "asc.load_data_with_sparse needs the index format of the 4:2 structured sparsity"),
    (2, "asc.mmad_with_sparse needs the index format"),
    (3, "LoadData2dTransposeParamsV2 needs what src_frac_gap does on Ascend 910B"),
    (4, "DataCopyEnhancedParams\\) needs what the enhanced fields"),
])
def test_names_with_a_missing_fact_say_which(mock_launcher_run, which, needs):
    with pytest.raises(CodegenError, match="not supported by aicore-sim yet: .*" + needs):
        open_fact_kernel[1](F16, which)
    for name in ("load_image_to_local", "LoadImageToLocalParams", "load_data_with_sparse",
                 "mmad_with_sparse", "LoadData2dTransposeParamsV2", "DataCopyEnhancedParams"):
        assert name not in _unsupported.not_yet("asc")


@asc.jit(matmul_cube_only=True)
def cube_registers_kernel(x: asc.GlobalAddress, on):
    asc.set_hf32_mode(on)
    asc.set_hf32_trans_mode(True)
    asc.set_mm_layout_transform(0)
    asc.set_fix_pipe_pre_quant_flag(0x3F800000)


def test_cube_register_setters_emit_store_config(mock_launcher_run):
    cube_registers_kernel[1](F32, True)
    ir = launched_ir(mock_launcher_run)
    values = Values(ir)
    configs = ops_of(ir, "store_config")
    kinds = [ir_pb.StoreConfigOp.Kind.Name(c.kind) for c in configs]
    assert kinds == ["SET_HF32_MODE", "SET_HF32_TRANS_MODE", "SET_MM_LAYOUT_TRANSFORM",
                     "SET_FIX_PIPE_PRE_QUANT"]
    assert values.const(configs[1].value) == (1, "DT_BOOL")
    assert values.const(configs[2].value) == (0, "DT_BOOL")
    assert values.const(configs[3].value) == (0x3F800000, "DT_UINT64")
