"""What the compiler emits (kernel IR v1), its errors and its cache; no simulator needed."""
import inspect
import os

import numpy as np
import pytest

import asc
import asc.lib.runtime as rt
from asc._proto import kernel_pb2
from asc.codegen.errors import CodegenError, UnsupportedSyntaxError
from asc.codegen.ir_printer import format_kernel
from asc.runtime.jit import MockTensor, MockValue
from ir_walk import walk
from kernels import vadd_kernel


def kinds(kernel):
    return [k for k, _, _ in walk(kernel.body)]


def line_of(fn, text):
    lines, start = inspect.getsourcelines(fn.fn if hasattr(fn, "fn") else fn)
    for i, line in enumerate(lines):
        if text in line:
            return start + i
    raise AssertionError(text)


def test_tutorial_ir_shape_and_locations():
    ir = vadd_kernel.compile(MockTensor(asc.float16), MockTensor(asc.float16),
                             MockTensor(asc.float16), 2048).ir
    assert ir.version == kernel_pb2.IR_VERSION_1
    assert ir.name == "vadd_kernel" and ir.kernel_type == kernel_pb2.KERNEL_AIV_ONLY
    assert [(p.name, p.kind, p.dtype) for p in ir.params] == [
        ("x", kernel_pb2.Param.KIND_POINTER, kernel_pb2.DT_FLOAT16),
        ("y", kernel_pb2.Param.KIND_POINTER, kernel_pb2.DT_FLOAT16),
        ("z", kernel_pb2.Param.KIND_POINTER, kernel_pb2.DT_FLOAT16),
        ("block_length", kernel_pb2.Param.KIND_SCALAR, kernel_pb2.DT_INT32)]
    top = [op.WhichOneof("kind") for op in ir.body.ops]
    assert top.count("for_op") == 1, "range() loops must not be unrolled"
    body = kinds(ir)
    assert body.count("data_copy") == 3 and body.count("vec_binary") == 1
    assert body.count("set_flag") == 3 and body.count("wait_flag") == 3
    assert os.path.basename(ir.files[0]) == "vadd.py"
    add_line = line_of(vadd_kernel, "asc.add(z_local")
    for kind, msg, op in walk(ir.body):
        assert op.loc.line > 0 and ir.files[op.loc.file].endswith("vadd.py")
        if kind == "vec_binary":
            assert op.loc.line == add_line
            assert msg.kind == kernel_pb2.VecBinaryOp.ADD
            assert msg.dst.space == kernel_pb2.MEM_UB
            assert msg.dst.position == kernel_pb2.POS_VECOUT
            assert msg.src0.position == kernel_pb2.POS_VECIN
        if kind == "set_flag":
            assert msg.event in (4, 7, 19)
    # SSA ids are defined once and within range.
    defined = [p.value for p in ir.params]
    for kind, msg, _ in walk(ir.body):
        for field in ("result", "induction"):
            if hasattr(msg, field) and getattr(msg, field):
                defined.append(getattr(msg, field))
        if kind == "for_op":
            defined += list(msg.iter_args) + list(msg.results)
        if kind == "if_op":
            defined += list(msg.results)
    assert len(defined) == len(set(defined)) and max(defined) <= ir.num_values
    assert "for %" in format_kernel(ir)


def test_strip_loc_and_kernel_type_options():
    @asc.jit(strip_loc=True, kernel_type=asc.runtime.config.KernelType.AIV_ONLY)
    def k(x: asc.GlobalAddress):
        asc.pipe_barrier(asc.PipeID.PIPE_ALL)
    ir = k.compile(MockTensor(asc.float32)).ir
    assert all(op.loc.line == 0 for op in ir.body.ops)
    assert ir.body.ops[-1].pipe_barrier.pipe == kernel_pb2.PIPE_ALL


def test_global_address_arithmetic_is_typed():
    @asc.jit
    def k(x: asc.GlobalAddress, n: int):
        g = asc.GlobalTensor()
        g.set_global_buffer(x + n)
        asc.data_copy(asc.LocalTensor(x.dtype, asc.TPosition.VECIN, 0, 8), g[3:], 8)
    ir = k.compile(MockTensor(asc.float32), 5).ir
    consts = {m.result: m for kind, m, _ in walk(ir.body) if kind == "constant"}
    sizes = [consts[m.rhs].int_value for kind, m, _ in walk(ir.body)
             if kind == "scalar_binary" and m.kind == m.MUL and m.rhs in consts]
    assert 4 in sizes                                    # n * sizeof(float32)
    adds = [consts[m.rhs].int_value for kind, m, _ in walk(ir.body)
            if kind == "scalar_binary" and m.kind == m.ADD and m.rhs in consts]
    assert 12 in adds                                    # [3:] on float32 = +12 bytes
    copy = [m for kind, m, _ in walk(ir.body) if kind == "data_copy"][0]
    assert copy.src.space == kernel_pb2.MEM_GM and copy.dst.space == kernel_pb2.MEM_UB


def test_scalar_is_converted_to_tensor_dtype():
    @asc.jit
    def k(x: asc.GlobalAddress, s: int):
        t = asc.LocalTensor(x.dtype, asc.TPosition.VECCALC, 0, 16)
        asc.adds(t, t, s, 16)
        asc.muls(t, t, 2.7, 16)
    ir = k.compile(MockTensor(asc.int16), 3).ir
    casts = [m for kind, m, _ in walk(ir.body) if kind == "scalar_unary" and m.kind == m.CAST]
    assert any(m.src_dtype == kernel_pb2.DT_INT32 and m.dtype == kernel_pb2.DT_INT16
               for m in casts)
    consts = {m.result: m for kind, m, _ in walk(ir.body) if kind == "constant"}
    muls = [m for kind, m, _ in walk(ir.body) if kind == "vec_scalar" and m.kind == m.MULS][0]
    assert consts[muls.scalar].dtype == kernel_pb2.DT_INT16
    assert consts[muls.scalar].int_value == 2


def test_loop_carried_values_become_iter_args():
    @asc.jit
    def k(x: asc.GlobalAddress, n: int):
        acc = n * 2
        local = 0
        for i in range(n):
            acc = acc + i
            tmp = i * 3  # noqa: F841 - local to the loop
        asc.adds(asc.LocalTensor(asc.int32, asc.TPosition.VECCALC, 0, 8),
                 asc.LocalTensor(asc.int32, asc.TPosition.VECCALC, 0, 8), acc + local, 8)
    ir = k.compile(MockTensor(asc.int32), 4).ir
    loop = [m for kind, m, _ in walk(ir.body) if kind == "for_op"][0]
    assert len(loop.init) == len(loop.iter_args) == len(loop.yields) == len(loop.results) == 1
    assert loop.dtype == kernel_pb2.DT_INT32


def test_static_range_and_static_if_unroll():
    @asc.jit
    def k(x: asc.GlobalAddress, n: asc.ConstExpr[int], flag: asc.ConstExpr[bool]):
        t = asc.LocalTensor(x.dtype, asc.TPosition.VECCALC, 0, 64)
        for i in asc.static_range(n):
            asc.adds(t[i * 8:], t, i, 8)
        if flag:
            asc.exp(t, t, 64)
        else:
            asc.ln(t, t, 64)
    ir = k.compile(MockTensor(asc.float32), n=3, flag=True).ir
    ks = kinds(ir)
    assert "for_op" not in ks and "if_op" not in ks
    assert ks.count("vec_scalar") == 3 and ks.count("vec_unary") == 1
    assert [m.kind for kind, m, _ in walk(ir.body) if kind == "vec_unary"] == \
        [kernel_pb2.VecUnaryOp.EXP]


def test_runtime_if_yields():
    @asc.jit
    def k(x: asc.GlobalAddress, a: int):
        v = 0
        if a > 2:
            v = a * 2
        asc.adds(asc.LocalTensor(asc.int32, asc.TPosition.VECCALC, 0, 8),
                 asc.LocalTensor(asc.int32, asc.TPosition.VECCALC, 0, 8), v, 8)
    ir = k.compile(MockTensor(asc.int32), 1).ir
    if_op = [m for kind, m, _ in walk(ir.body) if kind == "if_op"][0]
    assert len(if_op.results) == len(if_op.then_yields) == len(if_op.else_yields) == 1


def test_constexpr_specialization_and_cache():
    @asc.jit
    def k(x: asc.GlobalAddress, n: int, tile: asc.ConstExpr[int]):
        t = asc.LocalTensor(x.dtype, asc.TPosition.VECIN, 0, tile)
        asc.abs(t, t, tile)

    a = k.compile(MockTensor(asc.float16), 1, tile=64)
    assert k.compile_count == 1
    assert k.compile(MockTensor(asc.float16), 99, tile=64) is a  # scalar values are not keys
    assert k.compile(MockTensor(asc.float16), 99, asc.ConstExpr(64)) is a
    assert k.compile_count == 1
    b = k.compile(MockTensor(asc.float16), 1, tile=128)
    c = k.compile(MockTensor(asc.float32), 1, tile=64)
    assert k.compile_count == 3 and b is not a and c is not a
    assert b.ir_bytes != a.ir_bytes and c.ir_bytes != a.ir_bytes
    k.compile(MockTensor(asc.float16), 1, tile=64, always_compile=True)
    assert k.compile_count == 4
    with pytest.raises(RuntimeError, match=r"ConstExpr\[int\] is required for 'tile' argument, "
                                           r"str was provided"):
        k.compile(MockTensor(asc.float16), 1, tile="64")


def test_scalar_argument_kinds():
    @asc.jit
    def k(a, b, c, d, e):
        pass
    ir = k.compile(True, 3, 1.5, np.float16(2), np.int64(4)).ir
    assert [p.dtype for p in ir.params] == [kernel_pb2.DT_INT8, kernel_pb2.DT_INT32,
                                            kernel_pb2.DT_FLOAT32, kernel_pb2.DT_FLOAT16,
                                            kernel_pb2.DT_INT64]
    assert all(p.kind == kernel_pb2.Param.KIND_SCALAR for p in ir.params)


def _error_of(fn, *args, **kwargs):
    with pytest.raises(CodegenError) as info:
        fn.compile(*args, **kwargs)
    return info.value


@pytest.mark.parametrize("body,marker,cls", [
    ("    while n > 0:\n        n = n - 1\n", "while n > 0", UnsupportedSyntaxError),
    ("    f = lambda v: v\n", "lambda", UnsupportedSyntaxError),
    ("    for i in range(n):\n        break\n", "break", UnsupportedSyntaxError),
    ("    try:\n        pass\n    except Exception:\n        pass\n", "try:",
     UnsupportedSyntaxError),
    ("    ok = 0 < n < 4\n", "0 < n < 4", UnsupportedSyntaxError),
    ("    ok = n > 1 and n > 2 and n > 3\n", "n > 1 and", UnsupportedSyntaxError),
    ("    for i in range(n):\n        return\n", "return", UnsupportedSyntaxError),
    ("    xs = [v for v in range(3)]\n", "xs = [v", UnsupportedSyntaxError),
    ("    for v in [1, 2]:\n        pass\n", "[1, 2]", UnsupportedSyntaxError),
    ("    assert n > 0\n", "assert n > 0", UnsupportedSyntaxError),
    ("    print(n)\n", "print(n)", CodegenError),
    ("    if n > 1:\n        fresh = n\n    y = fresh\n", "y = fresh", CodegenError),
])
def test_unsupported_syntax_reports_the_line(tmp_path, body, marker, cls):
    src = "import asc\n\n@asc.jit\ndef bad(x: asc.GlobalAddress, n: int):\n" + body
    path = tmp_path / "bad_kernel.py"
    path.write_text(src)
    namespace = {"__name__": "bad_kernel", "__file__": str(path)}
    exec(compile(src, str(path), "exec"), namespace)
    err = _error_of(namespace["bad"], MockTensor(asc.float32), 3)
    assert isinstance(err, cls)
    expected_line = next(i + 1 for i, line in enumerate(src.splitlines()) if marker in line)
    assert err.line == expected_line
    text = str(err)
    assert f"bad_kernel.py\", line {expected_line}" in text
    assert marker in text and "^" in text


def test_api_errors_are_wrapped_with_source_excerpt():
    @asc.jit
    def k(x: asc.GlobalAddress, y: asc.GlobalAddress):
        a = asc.LocalTensor(x.dtype, asc.TPosition.VECIN, 0, 64)
        b = asc.LocalTensor(y.dtype, asc.TPosition.VECIN, 256, 64)
        asc.add(a, a, b, 64)
    err = _error_of(k, MockTensor(asc.float16), MockTensor(asc.float32))
    assert err.line == line_of(k, "asc.add(a, a, b, 64)")
    assert "TypeError" in str(err) and "asc.add(a, a, b, 64)" in str(err)
    assert isinstance(err.__cause__, TypeError)


@pytest.mark.parametrize("dtype,op", [(asc.int16, asc.div), (asc.int8, asc.add),
                                      (asc.uint32, asc.max), (asc.int32, asc.exp)])
def test_vector_dtype_checks(dtype, op):
    @asc.jit
    def k(x: asc.GlobalAddress, which: asc.ConstExpr):
        t = asc.LocalTensor(x.dtype, asc.TPosition.VECCALC, 0, 64)
        if which is asc.exp:
            which(t, t, 64)
        else:
            which(t, t, t, 64)
    with pytest.raises(CodegenError, match="TypeError"):
        k.compile(MockTensor(dtype), which=op)


def test_capture_exceptions_false_raises_the_original():
    @asc.jit(capture_exceptions=False)
    def k(x: asc.GlobalAddress):
        asc.add(1, 2, 3, 4)
    with pytest.raises(TypeError):
        k.compile(MockTensor(asc.float16))


def test_dispatch_error_lists_candidates():
    @asc.jit
    def k(x: asc.GlobalAddress):
        t = asc.LocalTensor(x.dtype, asc.TPosition.VECCALC, 0, 64)
        asc.data_copy(t, t, 1.5)
    with pytest.raises(CodegenError, match="No viable candidates were found to dispatch "
                                           "data_copy"):
        k.compile(MockTensor(asc.float32))


def test_loop_carried_dtype_change_is_rejected():
    @asc.jit
    def k(x: asc.GlobalAddress, n: int, f: float):
        acc = n * 1
        for i in range(n):
            acc = f * 2.0
    with pytest.raises(CodegenError, match="changes dtype"):
        k.compile(MockTensor(asc.float32), 1, 1.0)


def test_option_and_launch_errors():
    with pytest.raises(RuntimeError, match="The following option names are unknown: bogus"):
        asc.jit(bogus=1)
    with pytest.raises(RuntimeError, match="The following argument names conflict with JIT "
                                           "configuration options: debug"):
        @asc.jit
        def k1(debug):
            pass

    @asc.jit
    def k(x: asc.GlobalAddress):
        pass
    with pytest.raises(ValueError, match="Core number should be large than 0"):
        k[0](np.zeros(8, np.float32))
    with pytest.raises(TypeError, match="Parse user launch options failed"):
        k[1, 2, 3]
    with pytest.raises(TypeError, match="Argument type in JIT function is not supported: str$"):
        k[1]("hello")
    with pytest.raises(RuntimeError, match="Please check input compile option: opt_level=7"):
        k.compile(MockTensor(asc.float32), opt_level=7)


def test_plain_call_runs_python_and_dry_run(monkeypatch):
    @asc.jit
    def k(x):
        return "python"
    assert k(1) == "python"
    monkeypatch.setenv("DRY_RUN", "1")

    @asc.jit
    def k2(x: asc.GlobalAddress):
        asc.pipe_barrier(asc.PipeID.PIPE_V)
    assert k2[1, rt.current_stream()](np.zeros(8, np.float32)) is None
    assert k2.compile_count == 1


def test_kernel_must_not_return_a_value():
    @asc.jit
    def k(x: asc.GlobalAddress):
        return 1
    with pytest.raises(CodegenError, match="must not return"):
        k.compile(MockTensor(asc.float32))


def test_mock_value_and_block_num():
    @asc.jit
    def k(x: asc.GlobalAddress, n):
        t = asc.LocalTensor(x.dtype, asc.TPosition.VECCALC, 0, 64)
        asc.adds(t, t, n + asc.get_block_num(), 64)
    ir = k.compile(MockTensor(asc.int32), MockValue(asc.int32)).ir
    assert "sys_value" in kinds(ir)


def test_rebinding_outer_global_tensor_inside_loop_is_rejected():
    @asc.jit
    def k(x: asc.GlobalAddress, n: int):
        g = asc.GlobalTensor()
        for i in range(n):
            g.set_global_buffer(x + i)
    with pytest.raises(CodegenError, match="set_global_buffer"):
        k.compile(MockTensor(asc.float32), 2)
