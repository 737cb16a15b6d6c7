"""Frontend errors print as one short block: the user's file, line and source line, pyasc's
exception type and text, a hint; no frontend frames unless AICORE_SIM_DEBUG_FRONTEND=1."""
import os
import subprocess
import sys
import textwrap

import pytest

import asc
from asc.codegen.errors import CodegenError, NotSupportedError
from conftest import REPO

PACKAGE_DIR = os.path.join(REPO, "clients", "python", "asc")

KERNEL_SCRIPT = """
import asc
from asc.runtime.jit import MockTensor

@asc.jit
def kernel(x: asc.GlobalAddress):
    t = asc.LocalTensor(asc.float32, asc.TPosition.VECCALC, 0, 64)
    asc.load_image_to_local(t, asc.LoadImageToLocalParams())

kernel.compile(MockTensor(asc.float32))
"""

HOST_SCRIPT = """
import asc.lib.runtime as rt

rt.register_function()
"""


def _run(tmp_path, source, debug=False):
    script = tmp_path / "user_kernel.py"
    script.write_text(textwrap.dedent(source))
    env = dict(os.environ, PYTHONPATH=os.path.join(REPO, "clients", "python"))
    env.pop("AICORE_SIM_DEBUG_FRONTEND", None)
    if debug:
        env["AICORE_SIM_DEBUG_FRONTEND"] = "1"
    proc = subprocess.run([sys.executable, str(script)], env=env, capture_output=True, text=True,
                          timeout=120)
    assert proc.returncode == 1
    return str(script), proc.stderr


def test_kernel_error_is_one_block_at_the_kernel_line(tmp_path):
    script, err = _run(tmp_path, KERNEL_SCRIPT)
    assert err.splitlines() == [
        "Traceback (most recent call last):",
        f'  File "{script}", line 10, in <module>',
        "    kernel.compile(MockTensor(asc.float32))",
        f'asc.codegen.errors.CodegenError: File "{script}", line 8',
        "    asc.load_image_to_local(t, asc.LoadImageToLocalParams())",
        "    ^",
        "NotSupportedError: not supported by aicore-sim yet: asc.load_image_to_local needs the "
        "AIPP unit's arithmetic (its colour-space conversion, data-type conversion, padding and "
        "cropping of a GM image on its way to L1)",
        "hint: aicore-sim does not implement this part of pyasc yet; docs/frontend.md lists what "
        "runs on the simulator",
    ]


def test_attribute_time_error_is_one_block_at_the_users_line(tmp_path):
    script, err = _run(tmp_path, HOST_SCRIPT)
    assert f'File "{script}", line 4, in <module>' in err
    assert "rt.register_function()" in err
    assert ("asc.codegen.errors.NotSupportedError: not supported by aicore-sim yet: "
            "asc.lib.runtime.register_function") in err
    assert "hint: " in err
    assert PACKAGE_DIR not in err


def test_debug_variable_shows_the_frontends_frames(tmp_path):
    _, err = _run(tmp_path, KERNEL_SCRIPT, debug=True)
    assert os.path.join(PACKAGE_DIR, "codegen", "function_visitor.py") in err
    assert "The above exception was the direct cause" in err


def test_codegen_error_formats_its_hint():
    err = CodegenError("TypeError: bad", "k.py", 3, 4, "    asc.add(x)\n", hint="pass tensors")
    assert str(err) == 'File "k.py", line 3\n    asc.add(x)\n    ^\nTypeError: bad\nhint: pass tensors'
    assert str(CodegenError("plain")) == "plain"


def test_wrapped_error_keeps_its_cause_for_programs():
    @asc.jit
    def kernel():
        asc.lib.runtime.current_tick()

    with pytest.raises(CodegenError) as info:
        kernel.compile()
    assert isinstance(info.value.__cause__, NotSupportedError)
    assert info.value.hint and "docs/frontend.md" in info.value.hint
    tb = info.value.__traceback__
    while tb is not None:  # the frontend's frames are gone, the boundary's aside
        path = tb.tb_frame.f_code.co_filename
        assert not path.startswith(PACKAGE_DIR) or path.endswith(os.path.join("runtime", "jit.py"))
        tb = tb.tb_next
