"""What the framework API (TPipe, TQue, TQueBind, TBuf, TBufPool, LocalTensorAuto) emits: queue
and pool declarations, FrameworkOps and sync options; trace-time errors. No simulator needed."""
import inspect
import os

import pytest

import asc
from asc._proto import kernel_pb2
from asc.codegen.errors import CodegenError
from asc.codegen.ir_printer import format_kernel
from asc.runtime.jit import MockTensor, MockValue
from fwk_kernels import (add_auto_kernel, add_framework_kernel, add_static_no_flags_kernel,
                         compute, copy_in, pool_two_stage_kernel)
from ir_walk import walk

FW = kernel_pb2.FrameworkOp
QD = kernel_pb2.QueueDecl
F32 = MockTensor(asc.float32)


def fw_ops(ir, region=None):
    return [(m, op) for kind, m, op in walk(region or ir.body) if kind == "framework"]


def fw_kinds(ir, region=None):
    return [FW.Kind.Name(m.kind) for m, _ in fw_ops(ir, region)]


def line_of(fn, text):
    lines, start = inspect.getsourcelines(fn.fn if hasattr(fn, "fn") else fn)
    for i, line in enumerate(lines):
        if text in line:
            return start + i
    raise AssertionError(text)


def consts(ir):
    return {m.result: (m.int_value if m.WhichOneof("value") == "int_value" else m.float_value)
            for kind, m, _ in walk(ir.body) if kind == "constant"}


def error_of(kernel, *args, **kwargs):
    with pytest.raises(CodegenError) as info:
        kernel.compile(*args, **kwargs)
    return info.value


# ---- tutorial 02 --------------------------------------------------------------------------------

def test_tutorial02_declares_queues_and_emits_the_queue_protocol():
    ir = add_framework_kernel.compile(F32, F32, F32, 4096, buffer_num=2).ir
    assert [(q.id, q.kind, q.name, q.src_position, q.dst_position, q.depth) for q in ir.queues] \
        == [(1, QD.QUEUE, "in_queue_x", kernel_pb2.POS_VECIN, kernel_pb2.POS_VECIN, 2),
            (2, QD.QUEUE, "in_queue_y", kernel_pb2.POS_VECIN, kernel_pb2.POS_VECIN, 2),
            (3, QD.QUEUE, "out_queue_z", kernel_pb2.POS_VECOUT, kernel_pb2.POS_VECOUT, 2)]
    assert ir.queues[0].loc.line == line_of(add_framework_kernel, "in_queue_x = asc.TQue")
    assert not ir.pools
    top = [op.WhichOneof("kind") for op in ir.body.ops]
    first_fw = top.index("framework")
    assert ir.body.ops[first_fw].framework.kind == FW.PIPE_INIT
    assert ir.body.ops[first_fw].loc.line == line_of(add_framework_kernel, "asc.TPipe()")
    assert ir.body.ops[-1].framework.kind == FW.PIPE_DESTROY  # ~TPipe at the end of the kernel
    # init_buffer: (num, len) operands, before the loop
    inits = [(m, op) for m, op in fw_ops(ir) if m.kind == FW.INIT_BUFFER]
    values = consts(ir)
    assert [m.queue for m, _ in inits] == [1, 2, 3]
    assert all(values[m.operands[0]] == 2 and len(m.operands) == 2 for m, _ in inits)
    # the loop body: copy_in, compute, copy_out inlined in program order
    loop = [m for kind, m, _ in walk(ir.body) if kind == "for_op"]
    assert len(loop) == 1
    assert fw_kinds(ir, loop[0].body) == [
        "ALLOC_TENSOR", "ALLOC_TENSOR", "ENQUE", "ENQUE",                       # copy_in
        "DEQUE", "DEQUE", "ALLOC_TENSOR", "ENQUE", "FREE_TENSOR", "FREE_TENSOR",  # compute
        "DEQUE", "FREE_TENSOR"]                                                 # copy_out
    body = fw_ops(ir, loop[0].body)
    assert [m.queue for m, _ in body] == [1, 2, 1, 2, 1, 2, 3, 3, 1, 2, 3, 3]
    # tensors are the op results: the add reads what deque returned, enque passes the address
    alloc_x, enque_x, deque_x = body[0][0], body[2][0], body[4][0]
    assert list(enque_x.operands) == [alloc_x.result]
    add = [m for kind, m, _ in walk(loop[0].body) if kind == "vec_binary"][0]
    assert add.src0.addr == deque_x.result and add.dst.addr == body[6][0].result
    assert add.src0.position == kernel_pb2.POS_VECIN and add.dst.position == kernel_pb2.POS_VECOUT
    assert body[8][0].operands[0] == deque_x.result  # free_tensor(x_local)
    # every framework op carries the line of its call, in the sub-kernel's source
    assert body[0][1].loc.line == line_of(copy_in, "x_local = in_queue_x.alloc_tensor")
    assert body[4][1].loc.line == line_of(compute, "x_local = in_queue_x.deque(dtype)")
    assert os.path.basename(ir.files[body[0][1].loc.file]) == "fwk_kernels.py"
    assert ir.sync.auto_sync and not ir.sync.erase_user_flags
    text = format_kernel(ir)
    assert "queue 1 'in_queue_x'" in text and "alloc_tensor queue=1" in text


def test_depth_is_a_compile_time_parameter_of_the_queue():
    one = add_framework_kernel.compile(F32, F32, F32, 4096, buffer_num=1).ir
    assert [q.depth for q in one.queues] == [1, 1, 1]


# ---- TPipe ---------------------------------------------------------------------------------------

@asc.jit
def two_pipes_kernel(x: asc.GlobalAddress):
    pipe = asc.TPipe()
    other = asc.TPipe()  # second pipe


def test_second_tpipe_is_a_trace_error_naming_the_line():
    err = error_of(two_pipes_kernel, F32)
    assert "TPipe instance is already created, use get_tpipe_ptr() to obtain it" in str(err)
    assert isinstance(err.__cause__, RuntimeError)
    assert err.line == line_of(two_pipes_kernel, "other = asc.TPipe()")


@asc.jit
def pipe_helpers(pipe: asc.TPipe, que: asc.TQue, n):
    same = asc.get_tpipe_ptr()
    same.init_buffer(que, 1, n)
    return same


@asc.jit
def pipe_api_kernel(x: asc.GlobalAddress, n: int):
    pipe = asc.TPipe()
    que = asc.TQue(asc.TPosition.VECCALC, 1)
    tbuf = asc.TBuf(asc.TPosition.VECCALC)
    got = pipe_helpers(pipe, que, n * 4)
    got.init_buffer(buf=tbuf, num=64)
    pipe.init_buffer(buf=tbuf, len=n)
    pipe.init_buffer(tbuf, 96)
    event = pipe.alloc_event_id(event=asc.HardEvent.MTE2_V)
    fetched = pipe.fetch_event_id(event=asc.HardEvent.V_MTE3)
    asc.set_flag(asc.HardEvent.MTE2_V, event)
    asc.wait_flag(event=asc.HardEvent.MTE2_V, event_id=event)
    pipe.release_event_id(id=event, event=asc.HardEvent.MTE2_V)
    pipe.release_event_id(fetched)
    base = pipe.get_base_addr(asc.TPosition.VECIN)
    pipe.destroy()
    pipe.init()
    pipe.reset()


def test_tpipe_methods_and_tpipe_in_sub_kernels():
    ir = pipe_api_kernel.compile(F32, 8).ir
    assert fw_kinds(ir) == ["PIPE_INIT", "INIT_BUFFER", "INIT_BUFFER", "INIT_BUFFER",
                            "INIT_BUFFER", "ALLOC_EVENT_ID", "FETCH_EVENT_ID",
                            "RELEASE_EVENT_ID", "RELEASE_EVENT_ID", "GET_BASE_ADDR",
                            "PIPE_DESTROY", "PIPE_INIT", "PIPE_RESET", "PIPE_DESTROY"]
    ops = [m for m, _ in fw_ops(ir)]
    values = consts(ir)
    # TBuf forms: one buffer (num operand 1) of the byte count given as num= or len=
    tbuf_inits = [m for m in ops if m.kind == FW.INIT_BUFFER and m.queue == 2]
    assert [values[m.operands[0]] for m in tbuf_inits] == [1, 1, 1]
    assert values[tbuf_inits[0].operands[1]] == 64 and values[tbuf_inits[2].operands[1]] == 96
    assert tbuf_inits[1].operands[1] == ir.params[1].value          # len=n (traced)
    alloc, fetch, rel1, rel2, base = ops[5:10]
    assert alloc.event == asc.HardEvent.MTE2_V and fetch.event == asc.HardEvent.V_MTE3
    assert rel1.operands[0] == alloc.result and rel1.event == asc.HardEvent.MTE2_V
    assert rel2.operands[0] == fetch.result and rel2.event == asc.HardEvent.V_S  # default
    assert base.position == kernel_pb2.POS_VECIN and base.result
    sets = [m for kind, m, _ in walk(ir.body) if kind == "set_flag"]
    waits = [m for kind, m, _ in walk(ir.body) if kind == "wait_flag"]
    assert sets[0].event_id == alloc.result and waits[0].event_id == alloc.result


@asc.jit
def traced_position_kernel(x: asc.GlobalAddress, pos: int):
    que = asc.TQue(pos, 1)


@asc.jit
def missing_depth_kernel(x: asc.GlobalAddress):
    que = asc.TQue(asc.TPosition.VECIN)


def test_positions_and_depths_must_be_compile_time():
    err = error_of(traced_position_kernel, F32, 9)
    assert "ConstExpr[int] is required for 'pos' argument, PlainValue was provided" in str(err)
    assert err.line == line_of(traced_position_kernel, "que = asc.TQue(pos, 1)")
    err = error_of(missing_depth_kernel, F32)
    assert "ConstExpr[int] is required for 'depth' argument, NoneType was provided" in str(err)


def test_get_tpipe_ptr_without_pipe_is_an_error():
    @asc.jit
    def k(x: asc.GlobalAddress):
        pipe = asc.get_tpipe_ptr()
    assert "no TPipe" in str(error_of(k, F32))


# ---- queues -------------------------------------------------------------------------------------

@asc.jit
def bind_and_state_kernel(x: asc.GlobalAddress):
    pipe = asc.TPipe()
    que = asc.TQueBind(asc.TPosition.VECIN, asc.TPosition.VECOUT, 1)
    pipe.init_buffer(que, 1, 256)
    t = que.alloc_tensor(asc.float32)
    que.enque(t[8:])
    if que.has_tensor_in_que() and que.get_tensor_count_in_que() == 1:
        u = que.deque(asc.float32)
        que.free_tensor(u)
    v = asc.LocalTensor(asc.float32)
    que.alloc_tensor(v)
    que.enque(v)
    w = asc.LocalTensor(asc.float32)
    que.deque(w)
    que.free_tensor(w)
    if que.vacant_in_que() or que.has_idle_buffer():
        que.free_all_event()


def test_tquebind_state_queries_and_in_place_forms():
    ir = bind_and_state_kernel.compile(F32).ir
    assert [(q.src_position, q.dst_position, q.depth, q.name) for q in ir.queues] == \
        [(kernel_pb2.POS_VECIN, kernel_pb2.POS_VECOUT, 1, "que")]
    ops = fw_ops(ir)
    kinds = [FW.Kind.Name(m.kind) for m, _ in ops]
    assert kinds == ["PIPE_INIT", "INIT_BUFFER", "ALLOC_TENSOR", "ENQUE", "HAS_TENSOR_IN_QUE",
                     "TENSOR_COUNT_IN_QUE", "DEQUE", "FREE_TENSOR", "ALLOC_TENSOR", "ENQUE",
                     "DEQUE", "FREE_TENSOR", "VACANT_IN_QUE", "HAS_IDLE_BUFFER",
                     "FREE_ALL_EVENT", "PIPE_DESTROY"]
    alloc, enque = ops[2][0], ops[3][0]
    assert list(enque.operands) == [alloc.result]  # a view is enqueued by its buffer
    assert ops[8][0].result == ops[9][0].operands[0]  # alloc_tensor(v) then enque(v)
    assert ops[10][0].result == ops[11][0].operands[0]  # deque(w) then free_tensor(w)
    results = {m.kind: m.result for m, _ in ops}
    defs = {}
    for kind, m, _ in walk(ir.body):
        if kind == "scalar_binary":
            defs[m.result] = m
    count_cmp = [m for m in defs.values() if m.lhs == results[FW.TENSOR_COUNT_IN_QUE]][0]
    assert count_cmp.kind == kernel_pb2.ScalarBinaryOp.EQ and count_cmp.dtype == \
        kernel_pb2.DT_INT32
    assert len([1 for kind, _, _ in walk(ir.body) if kind == "if_op"]) == 2


def test_in_place_alloc_of_an_outer_tensor_inside_a_loop_is_rejected():
    @asc.jit
    def k(x: asc.GlobalAddress, n: int):
        pipe = asc.TPipe()
        que = asc.TQue(asc.TPosition.VECIN, 1)
        t = asc.LocalTensor(asc.float32)
        for i in range(n):
            que.alloc_tensor(t)
    assert "create the tensor inside it" in str(error_of(k, F32, 2))


# ---- TBuf ---------------------------------------------------------------------------------------

@asc.jit
def tbuf_kernel(x: asc.GlobalAddress, offset: asc.ConstExpr[int]):
    pipe = asc.TPipe()
    calc_buf = asc.TBuf(asc.TPosition.VECCALC)
    pipe.init_buffer(calc_buf, 1024)
    whole = calc_buf.get(asc.int32)
    part = calc_buf.get(asc.int32, 128)
    shifted = calc_buf.get_with_offset(16, offset, asc.float32)
    asc.adds(part, whole, 1, 128)
    asc.abs(shifted, shifted, 16)
    t = calc_buf.alloc_tensor(asc.int32)
    calc_buf.free_tensor(t)


def test_tbuf_get_forms():
    ir = tbuf_kernel.compile(F32, offset=64).ir
    assert [(q.kind, q.name, q.depth) for q in ir.queues] == [(QD.TBUF, "calc_buf", 0)]
    kinds = fw_kinds(ir)
    assert kinds == ["PIPE_INIT", "INIT_BUFFER", "TBUF_GET", "TBUF_GET", "TBUF_GET",
                     "TBUF_GET", "PIPE_DESTROY"]  # free_tensor of a TBuf emits nothing
    gets = [m for m, _ in fw_ops(ir) if m.kind == FW.TBUF_GET]
    values = consts(ir)
    adds = [m for kind, m, _ in walk(ir.body) if kind == "vec_scalar"][0]
    assert adds.dst.addr == gets[1].result and values[adds.dst.count] == 128
    assert adds.src.addr == gets[0].result and adds.src.count == 0  # whole buffer: length only
    vabs = [m for kind, m, _ in walk(ir.body) if kind == "vec_unary"][0]
    offset_add = [m for kind, m, _ in walk(ir.body)
                  if kind == "scalar_binary" and m.result == vabs.dst.addr][0]
    assert {offset_add.lhs, offset_add.rhs} == {gets[2].result,
                                                [k for k, v in values.items() if v == 64][0]}
    assert vabs.dst.dtype == kernel_pb2.DT_FLOAT32 and values[vabs.dst.count] == 16


@pytest.mark.parametrize("offset", [16, 33])
def test_get_with_offset_must_be_32_byte_aligned(offset):
    err = error_of(tbuf_kernel, F32, offset=offset)
    assert "ValueError: buf_offset must be align to 32B." in str(err)
    assert err.line == line_of(tbuf_kernel, "shifted = calc_buf.get_with_offset")


def test_get_with_offset_rejects_a_traced_offset():
    @asc.jit
    def k(x: asc.GlobalAddress, off: int):
        pipe = asc.TPipe()
        b = asc.TBuf(asc.TPosition.VECCALC)
        t = b.get_with_offset(8, off, asc.float32)
    assert "buf_offset must be align to 32B." in str(error_of(k, F32, 32))


# ---- TBufPool -----------------------------------------------------------------------------------

def test_pool_two_stage_ir():
    ir = pool_two_stage_kernel.compile(F32, F32, F32, n=8192).ir
    assert [(p.id, p.name, p.position, p.buf_id_size) for p in ir.pools] == [
        (1, "tbuf_pool0", kernel_pb2.POS_VECCALC, 8), (2, "tbuf_pool1", kernel_pb2.POS_VECCALC, 2),
        (3, "tbuf_pool2", kernel_pb2.POS_VECCALC, 2)]
    names = {q.id: q.name for q in ir.queues}
    ops = [m for m, _ in fw_ops(ir)]
    values = consts(ir)
    setup = [(FW.Kind.Name(m.kind), m.pool, m.sub_pool, m.share_pool, names.get(m.queue),
              [values[o] for o in m.operands])
             for m in ops if m.kind in (FW.INIT_BUF_POOL, FW.POOL_INIT_BUF_POOL,
                                        FW.POOL_INIT_BUFFER, FW.POOL_RESET, FW.PIPE_RESET)]
    assert setup == [
        ("INIT_BUF_POOL", 0, 1, 0, None, [131072]),
        ("POOL_INIT_BUFFER", 1, 0, 0, "src_que0", [1, 65536]),
        ("POOL_INIT_BUF_POOL", 1, 2, 0, None, [65536]),
        ("POOL_INIT_BUF_POOL", 1, 3, 2, None, [65536]),
        ("POOL_INIT_BUFFER", 2, 0, 0, "src_que1", [1, 32768]),
        ("POOL_INIT_BUFFER", 2, 0, 0, "dst_que0", [1, 32768]),
        ("POOL_RESET", 2, 0, 0, None, []),
        ("POOL_INIT_BUFFER", 3, 0, 0, "src_que2", [1, 32768]),
        ("POOL_INIT_BUFFER", 3, 0, 0, "dst_que1", [1, 32768]),
        ("POOL_RESET", 3, 0, 0, None, []),
        ("POOL_RESET", 1, 0, 0, None, []),
        ("PIPE_RESET", 0, 0, 0, None, [])]


@asc.jit
def pool_misuse_kernel(x: asc.GlobalAddress, case: asc.ConstExpr[str]):
    pipe = asc.TPipe()
    if case == "size":
        big = asc.TBufPool(asc.TPosition.VECCALC, 17)
    if case == "pos":
        bad = asc.TBufPool(asc.TPosition.CO1)
    pool = asc.TBufPool(asc.TPosition.VECCALC)
    l1_pool = asc.TBufPool(asc.TPosition.A1)
    ub_pool = asc.TBufPool(asc.TPosition.VECIN)
    pipe.init_buf_pool(pool, 4096)
    if case == "queue":
        l1_que = asc.TQue(asc.TPosition.B1, 1)
        pool.init_buffer(l1_que, 1, 256)
    if case == "tbuf":
        l1_buf = asc.TBuf(asc.TPosition.A1)
        pool.init_buffer(buf=l1_buf, len=256)
    if case == "sub":
        pool.init_buf_pool(l1_pool, 1024)
    if case == "share":
        pool.init_buf_pool(ub_pool, 1024)
        pipe.init_buf_pool(l1_pool, 1024, ub_pool)


@pytest.mark.parametrize("case,marker,message", [
    ("size", "big = asc.TBufPool", "buf_id_size must be between 1 and 16"),
    ("pos", "bad = asc.TBufPool", "TBufPool position must be one of VECIN, VECOUT, VECCALC"),
    ("queue", "pool.init_buffer(l1_que", "the queue at position B1 is not in the memory of the "
                                         "pool (position VECCALC)"),
    ("tbuf", "pool.init_buffer(buf=l1_buf", "the TBuf at position A1 is not in the memory"),
    ("sub", "pool.init_buf_pool(l1_pool", "the sub-pool at position A1 is not in the memory"),
    ("share", "pipe.init_buf_pool(l1_pool", "the shared pool has position VECIN but the new "
                                            "pool has position A1"),
])
def test_pool_constraints_checked_at_trace_time(case, marker, message):
    err = error_of(pool_misuse_kernel, F32, case=case)
    assert message in str(err)
    assert err.line == line_of(pool_misuse_kernel, marker)


def test_pool_constraints_pass_when_respected():
    ir = pool_misuse_kernel.compile(F32, case="none").ir
    assert [p.buf_id_size for p in ir.pools] == [4, 4, 4]


# ---- LocalTensorAuto and sync options -----------------------------------------------------------

def test_local_tensor_auto_turns_on_insert_sync_and_allocates_at_entry():
    ir = add_auto_kernel.compile(F32, F32, F32, 4096, tile=512).ir
    assert ir.sync.auto_sync and ir.sync.erase_user_flags
    assert [(q.kind, q.src_position, q.name) for q in ir.queues] == [
        (QD.TBUF, kernel_pb2.POS_VECCALC, "x_local"), (QD.TBUF, kernel_pb2.POS_VECCALC, "y_local"),
        (QD.TBUF, kernel_pb2.POS_VECCALC, "z_local")]
    top_fw = [FW.Kind.Name(op.framework.kind) for op in ir.body.ops
              if op.WhichOneof("kind") == "framework"]
    # one buffer per call site, initialised once before the loop (not once per iteration)
    assert top_fw == ["PIPE_INIT"] + ["INIT_BUFFER", "TBUF_GET"] * 3 + ["PIPE_DESTROY"]
    loop = [m for kind, m, _ in walk(ir.body) if kind == "for_op"][0]
    assert fw_kinds(ir, loop.body) == []
    values = consts(ir)
    sizes = [values[m.operands[1]] for m, _ in fw_ops(ir) if m.kind == FW.INIT_BUFFER]
    assert sizes == [2048, 2048, 2048]
    add = [m for kind, m, _ in walk(loop.body) if kind == "vec_binary"][0]
    gets = [m for m, _ in fw_ops(ir) if m.kind == FW.TBUF_GET]
    assert (add.dst.addr, add.src0.addr, add.src1.addr) == \
        (gets[2].result, gets[0].result, gets[1].result)
    assert values[add.dst.count] == 512


@asc.jit
def auto_shape_kernel(x: asc.GlobalAddress, n: int, m: int, inner: asc.ConstExpr[bool]):
    a = asc.LocalTensorAuto(x.dtype, (2, n))          # kernel argument: sized at entry
    for i in range(m):
        if inner:
            b = asc.LocalTensorAuto(x.dtype, i + 8)   # computed in the loop: cannot be hoisted
        asc.abs(a, a, n)


def test_local_tensor_auto_dynamic_shapes():
    ir = auto_shape_kernel.compile(F32, 8, 2, inner=False).ir
    init = [m for m, _ in fw_ops(ir) if m.kind == FW.INIT_BUFFER][0]
    prologue_defined = set()
    for op in ir.body.ops:
        kind = op.WhichOneof("kind")
        if kind == "for_op":
            break
        msg = getattr(op, kind)
        prologue_defined.add(getattr(msg, "result", 0))
    assert init.operands[1] in prologue_defined  # 2 * n * 4 computed before the body
    err = error_of(auto_shape_kernel, F32, 8, 2, inner=True)
    assert "known at kernel entry" in str(err)
    assert err.line == line_of(auto_shape_kernel, "b = asc.LocalTensorAuto(x.dtype, i + 8)")


@pytest.mark.parametrize("options,auto,erase", [
    ({}, True, False),
    ({"auto_sync": False}, False, False),
    ({"insert_sync": True}, True, True),
    ({"insert_sync": True, "auto_sync": False}, True, True),
    ({"insert_sync": False}, True, False),
])
def test_sync_options_of_a_kernel_without_auto_tensors(options, auto, erase):
    ir = add_static_no_flags_kernel.compile(F32, F32, F32, n=256, **options).ir
    assert (ir.sync.auto_sync, ir.sync.erase_user_flags) == (auto, erase)
    assert not ir.queues  # a kernel without framework objects has no TPipe
    assert fw_kinds(ir) == []


@pytest.mark.parametrize("options,auto,erase", [
    ({}, True, True),
    ({"insert_sync": False}, True, False),
    ({"insert_sync": False, "auto_sync": False}, False, False),
])
def test_sync_options_with_auto_tensors(options, auto, erase):
    ir = add_auto_kernel.compile(F32, F32, F32, 4096, tile=512, **options).ir
    assert (ir.sync.auto_sync, ir.sync.erase_user_flags) == (auto, erase)


def test_sync_options_are_part_of_the_cache_key():
    @asc.jit
    def k(x: asc.GlobalAddress):
        asc.pipe_barrier(asc.PipeID.PIPE_V)
    base = k.compile(F32)
    assert k.compile(F32, auto_sync=True) is base
    no_auto = k.compile(F32, auto_sync=False)
    insert = k.compile(F32, insert_sync=True)
    assert no_auto is not base and insert is not base and insert is not no_auto
    assert k.compile_count == 3
    assert k.compile(F32, insert_sync=True) is insert
    assert k.compile(F32, record_timeline=True) is base  # a run option, not a compile option

    @asc.jit(insert_sync=False)
    def k2(x: asc.GlobalAddress):
        asc.LocalTensorAuto(asc.float32, 64)
    assert not k2.compile(F32).ir.sync.erase_user_flags
    assert k2.compile(F32, insert_sync=None).ir.sync.erase_user_flags


def test_local_tensor_auto_with_explicit_pipe_shares_it():
    @asc.jit
    def k(x: asc.GlobalAddress):
        t = asc.LocalTensorAuto(asc.float32, 64)
        pipe = asc.TPipe()          # adopts the implicit pipe: no second PIPE_INIT
        que = asc.TQue(asc.TPosition.VECOUT, 1)
        pipe.init_buffer(que, 1, 256)
        assert asc.get_tpipe_ptr() is pipe
    ir = k.compile(F32).ir
    assert fw_kinds(ir).count("PIPE_INIT") == 1


# ---- LocalTensor bookkeeping, ShapeInfo, asc.array ----------------------------------------------

@asc.jit
def bookkeeping_kernel(x: asc.GlobalAddress, n: int):
    pipe = asc.TPipe()
    que = asc.TQue(asc.TPosition.VECCALC, 1)
    pipe.init_buffer(que, 1, 1024)
    t = que.alloc_tensor(asc.float32)
    static = asc.LocalTensor(asc.int16, asc.TPosition.VECIN, 64, 100)
    assert static.get_length() == 200 and static.get_size() == 100
    assert static[10:].get_length() == 180 and static[10:].get_size() == 90
    assert static.get_position() == asc.TPosition.VECIN
    as_bytes = static.reinterpret_cast(asc.uint8)
    assert as_bytes.get_size() == 200 and as_bytes.dtype == asc.uint8
    assert static.reinterpret_cast(asc.int16) is static
    static.set_user_tag(7)
    assert static.get_user_tag() == 7
    static.set_size(50)
    assert static.get_length() == 100
    static.set_buffer_len(64)
    assert static.get_size() == 32
    other = asc.LocalTensor(asc.float32)
    other.set_addr_with_offset(t, 16)
    info = asc.ShapeInfo(asc.array(asc.int32, (4, 64)))
    assert (info.shape(0) == 4 and info.shape(1) == 64) and asc.get_shape_size(info) == 256
    arr = asc.array(asc.int32, 3, 5)
    arr[1] = 9
    assert (len(arr) == 3 and arr[0] == 5) and arr[1] == 9
    t.set_shape_info(info)
    assert t.get_shape_info() is info
    asc.adds(t, t, t.get_length(), 8)              # traced: the alloc's buffer length
    asc.adds(t, t, t[n:].get_size(), 8)            # traced: (len - n * 4) / 4
    asc.adds(other, other, other.get_length(), 8)  # len - 64
    asc.muls(t, t, t.get_phy_addr(2), 8)
    asc.adds(t, t, static.get_phy_addr(), 8)


def test_local_tensor_bookkeeping():
    ir = bookkeeping_kernel.compile(F32, 4).ir
    alloc = [m for m, _ in fw_ops(ir) if m.kind == FW.ALLOC_TENSOR][0]
    scalars = [m for kind, m, _ in walk(ir.body) if kind == "vec_scalar"]
    assert scalars[0].scalar != alloc.result2  # converted to float32 first
    casts = {m.result: m for kind, m, _ in walk(ir.body) if kind == "scalar_unary"}
    assert casts[scalars[0].scalar].operand == alloc.result2
    assert scalars[2].dst.addr != alloc.result  # other = t[16:]
    phy = casts[casts[scalars[3].scalar].operand]
    assert phy.dtype == kernel_pb2.DT_UINT64
    values = consts(ir)
    assert values[casts[scalars[4].scalar].operand] == 64  # the static tensor's address


def test_compile_time_assert_and_static_if_on_constexpr():
    @asc.jit
    def k(x: asc.GlobalAddress, y: asc.GlobalAddress, flag: asc.ConstExpr[bool]):
        assert x.dtype == y.dtype, "dtypes differ"
        if flag:
            asc.TQue(asc.TPosition.VECIN, 1)
    assert len(k.compile(F32, F32, flag=True).ir.queues) == 1
    assert len(k.compile(F32, F32, flag=False).ir.queues) == 0
    err = error_of(k, F32, MockTensor(asc.float16), flag=True)
    assert "AssertionError: dtypes differ" in str(err)


def test_mock_scalar_drives_runtime_loop_over_queues():
    @asc.jit
    def k(x: asc.GlobalAddress, n):
        pipe = asc.TPipe()
        que = asc.TQue(asc.TPosition.VECIN, 2)
        pipe.init_buffer(que, 2, 128)
        for i in asc.range(n):
            t = que.alloc_tensor(asc.float32)
            que.enque(t)
            que.free_tensor(que.deque(asc.float32))
        for j in asc.static_range(2):
            que.free_tensor(que.alloc_tensor(asc.float32))
    ir = k.compile(F32, MockValue(asc.int32)).ir
    assert fw_kinds(ir).count("ALLOC_TENSOR") == 3
