"""pyasc's module layout (asc-api.md section 0): every public module imports at pyasc's path, and
a pyasc name aicore-sim does not implement yet raises a clear NotSupportedError (from the one
list in asc/_unsupported.py), never an AttributeError from inside the frontend."""
import importlib

import pytest

import asc
from asc import _unsupported
from asc.codegen.errors import CodegenError
from asc.runtime.jit import MockTensor

PYASC_PATHS = {
    "asc": ["jit", "CodegenOptions", "CompileOptions", "LaunchOptions", "adv", "basic", "core",
            "fwk"],
    "asc.adv": [], "asc.language.adv": [], "asc.basic": [], "asc.core": [], "asc.fwk": [],
    "asc.runtime.config": ["Backend", "Platform", "KernelType", "set_platform"],
    "asc.lib.runtime": ["current_stream", "device_info"],
    "asc.lib.runtime.support": ["DeviceModuleType", "DeviceInfoType", "CoreType", "MemcpyKind"],
    "asc.lib.host": [],
    "asc.language.core.struct": ["Struct", "Field", "StructField"],
    "asc.language.core.dtype": ["DataType", "KnownTypes"],
    "asc.codegen.errors": ["CodegenError", "UnsupportedSyntaxError"],
    "asc.runtime.jit": ["JITFunction", "MockTensor", "MockValue"],
    "asc.runtime.launcher": ["Launcher", "LaunchOptions"],
    "asc.runtime.compiler": ["Compiler", "CompileOptions"],
}


def _module(path):
    """`asc.core` & co. are attributes (aliases of asc.language.*), the rest real modules."""
    if path in ("asc.adv", "asc.basic", "asc.core", "asc.fwk"):
        return getattr(asc, path.split(".")[1])
    return importlib.import_module(path)


@pytest.mark.parametrize("path", sorted(PYASC_PATHS))
def test_every_pyasc_module_path_exists_with_its_names(path):
    module = _module(path)
    for name in PYASC_PATHS[path]:
        assert hasattr(module, name), f"{path}.{name}"


def test_aliases_are_the_language_modules():
    import asc.language as language
    assert asc.adv is language.adv and asc.core is language.core
    assert asc.basic is language.basic and asc.fwk is language.fwk


@pytest.mark.parametrize("module_name", _unsupported.listed_modules())
def test_no_listed_name_is_also_defined(module_name):
    """Implementing a name must come with deleting it from asc/_unsupported.py."""
    module = importlib.import_module(module_name)
    defined = sorted(n for n in _unsupported.not_yet(module_name) if n in vars(module))
    assert not defined, f"defined in {module_name} and still listed as not supported: {defined}"


@pytest.mark.parametrize("module_name", _unsupported.listed_modules())
def test_every_listed_name_raises_not_supported(module_name):
    module = importlib.import_module(module_name)
    for name in _unsupported.not_yet(module_name):
        with pytest.raises(NotImplementedError,
                           match=f"^not supported by aicore-sim yet: {module_name}.{name}$"):
            getattr(module, name)


def test_vector_names_missing_from_vec_are_listed():
    for name in ("duplicate", "cast", "compare", "select", "whole_reduce_sum", "brcb", "gather"):
        if name not in vars(asc.language.basic):
            assert name in _unsupported.not_yet("asc.language.basic"), name
            assert name in _unsupported.not_yet("asc"), name


def test_from_import_of_a_listed_name_says_not_supported():
    with pytest.raises(_unsupported.NotSupportedError,
                       match="not supported by aicore-sim yet: asc.lib.runtime.launch_kernel"):
        from asc.lib.runtime import launch_kernel  # noqa: F401


def test_names_pyasc_lacks_too_are_still_attribute_errors():
    with pytest.raises(AttributeError, match="module 'asc' has no attribute 'no_such_api'"):
        asc.no_such_api  # noqa: B018
    assert not hasattr(asc.lib.host, "no_such_api")


@asc.jit
def uses_an_unsupported_api(x: asc.GlobalAddress):
    t = asc.LocalTensor(x.dtype, asc.TPosition.VECCALC, 0, 64)
    asc.lib.runtime.current_tick(t)


def test_a_listed_name_in_a_kernel_points_at_the_kernel_line():
    with pytest.raises(CodegenError) as info:
        uses_an_unsupported_api.compile(MockTensor(asc.float32))
    err = info.value
    assert err.filename == __file__
    assert err.line == uses_an_unsupported_api.fn.__code__.co_firstlineno + 3
    text = str(err)
    assert "asc.lib.runtime.current_tick(t)" in text
    assert "NotSupportedError: not supported by aicore-sim yet: asc.lib.runtime.current_tick" \
        in text


def test_the_frontend_positions_are_the_simulators_rows():
    """asc/_isa.py POSITIONS is generated from sim/isa/positions.cc: one row per TPosition,
    named as the enum names it; the frontend's position tables are read from it."""
    from asc import _isa
    from asc.language.core.enums import TPosition
    from asc.language.core.tensor import memory_of
    from asc.language.fwk.tpipe import _POOL_POSITIONS
    assert {p: row[0] for p, row in _isa.POSITIONS.items()} == {p.value: p.name for p in TPosition}
    assert memory_of(TPosition.VECOUT) == _isa.POSITIONS[TPosition.VECOUT][1]
    assert set(_POOL_POSITIONS) == {TPosition(p) for p, row in _isa.POSITIONS.items() if row[3]}
