"""The pyasc names aicore-sim does not implement yet: the one list behind every public module's
`__getattr__` (docs/frontend.md, "Not supported yet").

Accessing a listed name raises `NotSupportedError("not supported by aicore-sim yet: NAME")`
instead of an AttributeError (inside a traced kernel it arrives as a CodegenError at the kernel
line). A module's `__getattr__` only runs for names the module does not define, so implementing a
name makes it win automatically; delete it here when you do (tests/python/test_layout.py fails
while a listed name is also defined).
"""
import dis
import sys
from typing import Dict, FrozenSet, List, Optional, Tuple

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


# The public modules a name asked of the wrong one is looked up in: (name users write it under,
# module that holds it, how to import from it).
_HOMES = (
    ("asc", "asc", "from asc import {name}"),
    ("asc.adv", "asc.language.adv", "asc.adv.{name}"),
    ("asc.lib.host", "asc.lib.host", "from asc.lib.host import {name}"),
    ("asc.lib.runtime", "asc.lib.runtime", "from asc.lib.runtime import {name}"),
    ("asc.runtime.config", "asc.runtime.config", "from asc.runtime.config import {name}"),
)
_IMPORT_FROM = dis.opmap["IMPORT_FROM"]


def _home_hint(module: str, name: str) -> Optional[str]:
    """Where `name` really is, among the public modules already imported (a hint must not import
    the runtime)."""
    homes: List[str] = []
    for public, real, spelling in _HOMES:
        held = sys.modules.get(real)
        if real == module or held is None or name not in getattr(held, "__all__", ()):
            continue
        homes.append(spelling.format(name=name))
    if not homes:
        return None
    return f"{name} is not in {module}; write {' or '.join(homes)}"


def _importing(frame) -> bool:
    """Whether `frame` is running `from MODULE import NAME` (Python's IMPORT_FROM discards an
    AttributeError's text, so that statement gets an ImportError of its own)."""
    code = frame.f_code.co_code
    return 0 <= frame.f_lasti < len(code) and code[frame.f_lasti] == _IMPORT_FROM


def module_getattr(module: str):
    """A module-level `__getattr__` for `module`: listed names raise NotSupportedError, others
    the usual AttributeError (an ImportError in `from module import name`), with a hint naming
    the module that has the name, if one has."""
    names = not_yet(module)

    def __getattr__(name: str):
        if name in names:
            raise _tracebacks.hide_internals(NotSupportedError(f"{module}.{name}"))
        hint = None if name.startswith("__") else _home_hint(module, name)
        if hint is None:
            raise AttributeError(f"module {module!r} has no attribute {name!r}")
        if _importing(sys._getframe(1)):
            held = sys.modules.get(module)
            exc: Exception = ImportError(
                f"cannot import name {name!r} from {module!r} "
                f"({getattr(held, '__file__', 'unknown location')})",
                name=module, path=getattr(held, "__file__", None))
        else:
            exc = AttributeError(f"module {module!r} has no attribute {name!r}")
        exc.add_note(f"hint: {hint}")
        raise _tracebacks.hide_internals(exc)

    return __getattr__
