"""The texts of frontend messages users meet first (docs/frontend.md, "Error messages"): pyasc's
exception type and text, the user's line, a hint in the user's terms (the parameter to annotate,
the API to use, the module that has a name), and no frontend or inspect frames."""
import inspect
import os
import subprocess
import sys
import textwrap

import pytest

import asc
from asc.codegen.errors import CodegenError
from asc.runtime.jit import MockTensor
from conftest import REPO

PACKAGE_DIR = os.path.join(REPO, "clients", "python", "asc")

HEADER = """\
import asc
from asc.runtime.jit import MockTensor
F32 = MockTensor(asc.float32)
"""


def _stderr(tmp_path, body):
    """Run `body` as the user's script; its stderr (it must die of the error)."""
    script = tmp_path / "user_kernel.py"
    script.write_text(HEADER + textwrap.dedent(body))
    env = dict(os.environ, PYTHONPATH=os.path.join(REPO, "clients", "python"))
    env.pop("AICORE_SIM_DEBUG_FRONTEND", None)
    proc = subprocess.run([sys.executable, str(script)], env=env, capture_output=True, text=True,
                          timeout=120)
    assert proc.returncode == 1, proc.stderr
    for internal in (PACKAGE_DIR, os.path.abspath(inspect.__file__)):  # no frontend frames
        assert f'File "{internal}' not in proc.stderr
    return str(script), proc.stderr.splitlines()


def _kernel_block(script, err, line, source, caret):
    """The lines of a tracing error after the traceback's user frame."""
    at = err.index(f'asc.codegen.errors.CodegenError: File "{script}", line {line}')
    assert err[at + 1:at + 3] == [f"    {source}", f"    {caret}^"]
    return err[at + 3:]


def test_depth_without_constexpr_names_the_parameter_to_annotate(tmp_path):
    script, err = _stderr(tmp_path, """
        @asc.jit
        def kernel(x: asc.GlobalAddress, n: int):
            pipe = asc.TPipe()
            que = asc.TQue(asc.TPosition.VECIN, n)

        kernel.compile(F32, 2)
        """)
    assert _kernel_block(script, err, 8, "que = asc.TQue(asc.TPosition.VECIN, n)", "      ") == [
        "RuntimeError: ConstExpr[int] is required for 'depth' argument, PlainValue was provided",
        "hint: 'depth' must be a compile-time value: annotate kernel parameter "
        "`n: asc.ConstExpr[int]`",
    ]


def test_depth_computed_at_run_time_says_so():
    @asc.jit
    def kernel(x: asc.GlobalAddress, n: int):
        pipe = asc.TPipe()
        que = asc.TQue(asc.TPosition.VECIN, n + 1)

    with pytest.raises(CodegenError) as info:
        kernel.compile(MockTensor(asc.float32), 2)
    assert "PlainValue(" not in str(info.value)
    assert info.value.hint == ("'depth' must be a compile-time value: compute it from Python "
                               "values or parameters annotated `asc.ConstExpr[int]`")


def test_constexpr_argument_of_the_wrong_type_keeps_pyasc_text_and_hints():
    @asc.jit
    def kernel(x: asc.GlobalAddress, tile: asc.ConstExpr[int]):
        pass

    with pytest.raises(RuntimeError) as info:
        kernel.compile(MockTensor(asc.float32), tile="64")
    assert str(info.value) == ("ConstExpr[int] is required for 'tile' argument, str was "
                               "provided: '64'")
    assert info.value.__notes__ == [
        "hint: pass a Python int for 'tile' (or a kernel parameter annotated "
        "`asc.ConstExpr[int]`)"]


def test_static_range_names_the_bound_and_the_way_out(tmp_path):
    script, err = _stderr(tmp_path, """
        @asc.jit
        def kernel(x: asc.GlobalAddress, n: int):
            for i in asc.static_range(0, n):
                pass

        kernel.compile(F32, 2)
        """)
    assert _kernel_block(script, err, 7, "for i in asc.static_range(0, n):", "") == [
        "TypeError: static_range bounds must be Python ints, but 'stop' is a runtime value",
        "hint: static_range unrolls at compile time: annotate kernel parameter "
        "`n: asc.ConstExpr[int]`, or use range(...) for a runtime loop",
    ]


def test_static_range_step_of_the_wrong_type():
    @asc.jit
    def kernel(x: asc.GlobalAddress):
        for i in asc.static_range(0, 4, 1.5):
            pass

    with pytest.raises(CodegenError) as info:
        kernel.compile(MockTensor(asc.float32))
    assert ("TypeError: static_range bounds must be Python ints, but 'step' is a float: 1.5"
            in str(info.value))


def test_wrong_argument_count_names_the_kernel_and_its_signature(tmp_path):
    script, err = _stderr(tmp_path, """
        @asc.jit
        def kernel(x: asc.GlobalAddress, n: int):
            pass

        kernel.compile(F32)
        """)
    assert err == [
        "Traceback (most recent call last):",
        f'  File "{script}", line 9, in <module>',
        "    kernel.compile(F32)",
        "TypeError: missing a required argument: 'n'",
        "hint: kernel kernel(x: asc.GlobalAddress, n: int) (user_kernel.py:6) needs an argument "
        "for each parameter",
    ]


def test_too_many_arguments_at_launch(tmp_path):
    _, err = _stderr(tmp_path, """
        @asc.jit
        def scale(x: asc.GlobalAddress, k: asc.ConstExpr[int]):
            pass

        scale[1](F32, 2, 3)
        """)
    assert err[-3:] == [
        "    scale[1](F32, 2, 3)",
        "TypeError: too many positional arguments",
        "hint: kernel scale(x: asc.GlobalAddress, k: asc.ConstExpr[int]) (user_kernel.py:6) "
        "needs an argument for each parameter",
    ]


def test_print_points_to_printf(tmp_path):
    script, err = _stderr(tmp_path, """
        @asc.jit
        def kernel(x: asc.GlobalAddress, n: int):
            print(n)

        kernel.compile(F32, 2)
        """)
    assert _kernel_block(script, err, 7, "print(n)", "") == [
        "NameError: print is not defined",
        "hint: kernels print with asc.printf (pyasc's device print), e.g. "
        'asc.printf("x = %d\\n", x)',
    ]


def test_other_python_builtins_list_the_visible_ones():
    @asc.jit
    def kernel(x: asc.GlobalAddress):
        y = abs(-1)

    with pytest.raises(CodegenError) as info:
        kernel.compile(MockTensor(asc.float32))
    assert "NameError: abs is not defined" in str(info.value)
    assert info.value.hint.startswith("Python's abs is not visible in a kernel; its builtins are "
                                      "dict, float, int")


PAD_TO_A1 = """
    @asc.jit
    def kernel(x: asc.GlobalAddress):
        pipe = asc.TPipe()
        que = asc.TQue(asc.TPosition.A1, 1)
        pipe.init_buffer(que=que, num=1, len=1024)
        t = que.alloc_tensor(asc.float32)
        g = asc.GlobalTensor()
        g.set_global_buffer(x)
        asc.data_copy_pad(t, g, asc.DataCopyExtParams(1, 64, 0, 0, 0),
                          asc.DataCopyPadExtParams(asc.float32, False, 0, 0, 0))

    kernel.compile(F32)
    """


def test_copy_paths_are_named_by_position_not_by_ir_enum(tmp_path):
    script, err = _stderr(tmp_path, PAD_TO_A1)
    assert _kernel_block(script, err, 13, "asc.data_copy_pad(t, g, asc.DataCopyExtParams(1, 64, "
                                          "0, 0, 0),", "") == [
        "TypeError: data_copy_pad(): copying from GM to A1 (L1) is not supported",
        "hint: data_copy_pad copies GM -> UB (VECIN/VECOUT/VECCALC) with pad params and UB -> GM "
        "without; use data_copy for GM -> L1 (A1/B1)",
    ]
    assert not any("MEM_" in line or "POS_" in line for line in err)


@pytest.mark.parametrize("dst,src,message,hint", [
    ("asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 0, 256)",
     "asc.LocalTensor(asc.float32, asc.TPosition.A1, 0, 256)",
     "data_copy(): copying from A1 (L1) to VECIN (UB) is not supported",
     "on A2 the vector and cube cores exchange data through GM"),
    ("asc.LocalTensor(asc.float32, asc.TPosition.A2, 0, 256)", "g",
     "data_copy(): copying from GM to A2 (L0A) is not supported", "asc.load_data"),
    ("asc.LocalTensor(asc.float32, asc.TPosition.VECOUT, 0, 256)",
     "asc.LocalTensor(asc.float32, asc.TPosition.CO1, 0, 256)",
     "data_copy(): copying from CO1 (L0C) to VECOUT (UB) is not supported", "asc.fixpipe"),
])
def test_data_copy_without_a_path_says_which_api_has_one(tmp_path, dst, src, message, hint):
    path = tmp_path / "copy_kernel.py"
    path.write_text(textwrap.dedent(f"""
        import asc

        @asc.jit
        def kernel(x: asc.GlobalAddress):
            g = asc.GlobalTensor()
            g.set_global_buffer(x)
            asc.data_copy({dst}, {src}, 256)
        """))
    namespace = {"__name__": "copy_kernel", "__file__": str(path)}
    exec(compile(path.read_text(), str(path), "exec"), namespace)
    with pytest.raises(CodegenError) as info:
        namespace["kernel"].compile(MockTensor(asc.float32))
    assert f"TypeError: {message}" in str(info.value)
    assert hint in info.value.hint
    assert "MEM_" not in str(info.value)


def test_ub_to_l1_is_a_gap_of_aicore_sim():
    @asc.jit
    def kernel(x: asc.GlobalAddress):
        a = asc.LocalTensor(asc.float32, asc.TPosition.A1, 0, 256)
        u = asc.LocalTensor(asc.float32, asc.TPosition.VECOUT, 0, 256)
        asc.data_copy(a, u, 256)

    with pytest.raises(CodegenError) as info:
        kernel.compile(MockTensor(asc.float32))
    assert "not supported by aicore-sim yet" in str(info.value)


def test_import_from_the_wrong_module_names_the_right_one(tmp_path):
    script, err = _stderr(tmp_path, """
        from asc.lib.host import TCubeTiling
        """)
    host = os.path.join(PACKAGE_DIR, "lib", "host", "__init__.py")
    assert err == [
        "Traceback (most recent call last):",
        f'  File "{script}", line 5, in <module>',
        "    from asc.lib.host import TCubeTiling",
        f"ImportError: cannot import name 'TCubeTiling' from 'asc.lib.host' ({host})",
        "hint: TCubeTiling is not in asc.lib.host; write asc.adv.TCubeTiling",
    ]


def test_attribute_of_the_wrong_module_names_the_right_one():
    import asc.lib.host as host
    assert not hasattr(host, "TCubeTiling")
    with pytest.raises(AttributeError) as info:
        host.TCubeTiling  # noqa: B018 - the access is the test
    assert info.value.__notes__ == ["hint: TCubeTiling is not in asc.lib.host; write "
                                    "asc.adv.TCubeTiling"]
    with pytest.raises(ImportError) as info:
        from asc import MultiCoreMatmulTiling  # noqa: F401
    assert "from asc.lib.host import MultiCoreMatmulTiling" in info.value.__notes__[0]
    with pytest.raises(ImportError) as info:
        from asc import no_such_name  # noqa: F401
    assert not getattr(info.value, "__notes__", None)
