"""The pyasc names aicore-sim does not implement yet: the one list behind every public module's
`__getattr__` (docs/frontend.md, "Not supported yet").

Accessing a listed name raises `NotSupportedError("not supported by aicore-sim yet: NAME")`
instead of an AttributeError (inside a traced kernel it arrives as a CodegenError at the kernel
line). A module's `__getattr__` only runs for names the module does not define, so implementing a
name makes it win automatically; delete it here when you do (tests/python/test_layout.py fails
while a listed name is also defined).
"""
from typing import Dict, FrozenSet, Tuple

from asc import _tracebacks
from asc.codegen.errors import NotSupportedError

# Module -> names, as pyasc lays them out (asc-api.md section 0; sections in brackets).
_NOT_YET: Dict[str, str] = {
    # [3.7-3.9, 4.1-4.2 parameter structs, 4.12]
    # [4.2-4.4, 4.13-4.16, 3.10] movement, sync, control, scalar, cube, debug, system (every
    # vector instruction of 4.4-4.12 is implemented)
    # [6] high-level API: all of 6.5-6.7 and 10.5 is implemented
    # [2.3] launch plumbing and profiling of the device runtime
    "asc.lib.runtime": """
    check_device_handle free_mem register_device_binary_kernel
    unregister_device_binary_kernel register_function launch_kernel magic_elf_value
    msprof_task_type set_pro_switch current_tick acl_init acl_finalize npu_utils
    call_print_interface
    """,
    "asc.lib.runtime.support": """
    MemoryType MallocPolicy MsprofTaskType ProfilingCommandHandle
    """,
}

# pyasc flattens core, basic and fwk into `asc` and `asc.language`.
_FLATTENED: Dict[str, Tuple[str, ...]] = {
    "asc": ("asc.language.core", "asc.language.basic", "asc.language.fwk"),
    "asc.language": ("asc.language.core", "asc.language.basic", "asc.language.fwk"),
}


def not_yet(module: str) -> FrozenSet[str]:
    """The listed names of `module`, including those flattened into it."""
    names = set(_NOT_YET.get(module, "").split())
    for part in _FLATTENED.get(module, ()):
        names.update(_NOT_YET.get(part, "").split())
    return frozenset(names)


def listed_modules() -> Tuple[str, ...]:
    return tuple(_NOT_YET) + tuple(_FLATTENED)


def module_getattr(module: str):
    """A module-level `__getattr__` for `module`: listed names raise NotSupportedError, others
    the usual AttributeError."""
    names = not_yet(module)

    def __getattr__(name: str):
        if name in names:
            raise _tracebacks.hide_internals(NotSupportedError(f"{module}.{name}"))
        raise AttributeError(f"module {module!r} has no attribute {name!r}")

    return __getattr__
