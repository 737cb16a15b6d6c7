"""System pointers and cache control of asc-api.md 4.4 that move no data the model computes with.

- set_sys_workspace / get_sys_workspace and set_hccl_context / get_hccl_context keep a GM address
  for later calls of the same kernel, as the Ascend C globals behind them do. Every core runs the
  same code and sets the same values, so the frontend keeps them while tracing: a `get` returns
  what the last `set` before it gave. They are set at the kernel's top level (a `set` inside a
  runtime loop or if is refused), and a `get` without a `set` reads Ascend C's null pointer at
  run time, with an UNINITIALIZED_READ warning (aicore-sim has no workspace of its own).
- data_cache_clean_and_invalid, data_cache_preload and icache_preload act on the scalar unit's
  data cache and the instruction cache, which the model does not have (its scalar GM accesses
  are costed without a cache): they check their arguments and have no effect, and no cost.
- init_soc_state resets state the model does not keep: no effect.
"""
from __future__ import annotations

import numbers
from typing import Optional

from asc.codegen.builder import require_builder
from asc.codegen.mutable import TracedState
from asc.language.core.constexpr import ConstExpr
from asc.language.core.dtype import KnownTypes as KT
from asc.language.core.enums import CacheLine, DcciDst
from asc.language.core.hints import RuntimeInt
from asc.language.core.ir_value import is_runtime_int
from asc.language.core.tensor import GlobalAddress, GlobalTensor
from asc.language.core.unset_state import unset_state

__all__ = ["set_sys_workspace", "get_sys_workspace", "set_hccl_context", "get_hccl_context",
           "init_soc_state", "data_cache_clean_and_invalid", "data_cache_preload",
           "icache_preload"]

_HCCL_GROUPS = 2  # HCCL contexts by group index (Ascend C's HCCL_GROUP_ID_MAX)


class _Registers(TracedState):
    """The kernel's address registers: set inside a runtime if or loop, a value holds on the
    paths that set it (asc/codegen/mutable.py)."""

    def __init__(self):
        super().__init__("system registers", kernel_wide=True)
        for key in ("workspace",) + tuple(f"hccl{i}" for i in range(_HCCL_GROUPS)):
            self._declare(key, KT.uint64, 0)
            self._declare(key + "_set", KT.int1, False)


def _registers(builder) -> _Registers:
    registers = builder.state.get("system_registers")
    if registers is None:
        registers = builder.state["system_registers"] = _Registers()
    return registers


def _set(api, key, address):
    builder = require_builder(api)
    if not isinstance(address, GlobalAddress):
        raise TypeError(f"{api}(): the address must be a GlobalAddress (a kernel's GM argument), "
                        f"got {type(address).__name__}")
    registers = _registers(builder)
    registers._put(key, address._addr)
    registers._put(key + "_set", True)


def _get(api, key):
    """The address the last set kept; before any set, Ascend C's null pointer, read at run time
    with an UNINITIALIZED_READ warning (an access through it is a GM_OUT_OF_BOUNDS fault). Set
    on some paths only, it is 0 on the others."""
    registers = _registers(require_builder(api))
    if registers._get(key + "_set") is False:
        return GlobalAddress(unset_state(api, KT.uint64), KT.uint8)
    return GlobalAddress(registers._get(key), KT.uint8)


def set_sys_workspace(workspace: GlobalAddress) -> None:
    """Keeps `workspace` (a GlobalAddress) as the kernel's system workspace.

    get_sys_workspace and register_matmul read it later in the same kernel; set inside a
    runtime `if` or loop, it holds on the paths that set it."""
    _set("set_sys_workspace", "workspace", workspace)


def get_sys_workspace() -> GlobalAddress:
    """The workspace set_sys_workspace kept, as a GlobalAddress of uint8.

    Before any set_sys_workspace it reads Ascend C's null pointer at run time, with an
    UNINITIALIZED_READ warning."""
    return _get("get_sys_workspace", "workspace")


def _group(api, index):
    index = ConstExpr.unwrap(index)
    if isinstance(index, bool) or not isinstance(index, numbers.Integral):
        raise TypeError(f"{api}(): index must be a compile-time int in aicore-sim, got "
                        f"{type(index).__name__}")
    if not 0 <= index < _HCCL_GROUPS:
        raise ValueError(f"{api}(): index {index} is not an HCCL group (0..{_HCCL_GROUPS - 1})")
    return int(index)


def set_hccl_context(index: int, context: GlobalAddress) -> None:
    """Keeps `context` (a GlobalAddress) as the HCCL context of group `index` (0 or 1).

    index is a compile-time int in aicore-sim."""
    api = "set_hccl_context"
    _set(api, f"hccl{_group(api, index)}", context)


def get_hccl_context(index: int) -> GlobalAddress:
    """The HCCL context set_hccl_context kept for group `index`, as a GlobalAddress of uint8.

    Before any set it reads Ascend C's null pointer at run time, with an UNINITIALIZED_READ
    warning."""
    api = "get_hccl_context"
    return _get(api, f"hccl{_group(api, index)}")


def init_soc_state() -> None:
    """Resets SoC state the model does not keep: no effect."""
    require_builder("init_soc_state")


def _enum(api, name, value, enum):
    value = ConstExpr.unwrap(value)
    if isinstance(value, bool) or not isinstance(value, int) or value not in iter(enum):
        choices = ", ".join(m.name for m in enum)
        raise TypeError(f"{api}(): {name} must be an asc.{enum.__name__} ({choices}), got "
                        f"{value!r}")


def data_cache_clean_and_invalid(entire_type: CacheLine, dst: GlobalTensor,
                                 dcci_dst: Optional[DcciDst] = None) -> None:
    """Writes back and invalidates scalar data-cache lines: no effect (the model has no cache).

    entire_type is an asc.CacheLine, dcci_dst an asc.DcciDst; the arguments are checked."""
    api = "data_cache_clean_and_invalid"
    require_builder(api)
    _enum(api, "entire_type", entire_type, CacheLine)
    if not isinstance(dst, GlobalTensor):
        raise TypeError(f"{api}(): dst must be a GlobalTensor, got {type(dst).__name__}")
    if dcci_dst is not None:
        _enum(api, "dcci_dst", dcci_dst, DcciDst)


def data_cache_preload(src: GlobalTensor, cache_offset: RuntimeInt) -> None:
    """Preloads a scalar data-cache line: no effect, the model having no such cache."""
    api = "data_cache_preload"
    require_builder(api)
    if not isinstance(src, GlobalTensor):
        raise TypeError(f"{api}(): src must be a GlobalTensor, got {type(src).__name__}")
    if not is_runtime_int(ConstExpr.unwrap(cache_offset)):
        raise TypeError(f"{api}(): cache_offset must be an int or a traced integer, got "
                        f"{type(cache_offset).__name__}")


def icache_preload(pre_fetch_len: RuntimeInt) -> None:
    """Prefetches instructions: no effect, the model having no instruction cache."""
    api = "icache_preload"
    require_builder(api)
    if not is_runtime_int(ConstExpr.unwrap(pre_fetch_len)):
        raise TypeError(f"{api}(): pre_fetch_len must be an int or a traced integer, got "
                        f"{type(pre_fetch_len).__name__}")
