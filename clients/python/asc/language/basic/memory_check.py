"""`check_local_memory_ia` and `CheckLocalMemoryIAParam` (asc-api.md 4.4): arm one of the core's
four UB watch registers, so that an access of a chosen kind (scalar, vector or MTE; read or
write) inside the watched range faults, as the chip raises a core exception.

Units (Ascend C's CheckLocalMemoryIA documentation; docs/frontend.md): start_addr and end_addr
count 32-byte blocks (0..65535), and the watched blocks are (start_addr, end_addr]: the blocks
after start_addr up to and including end_addr. is_enable=False clears the register again.
"""
from __future__ import annotations

import inspect

from asc._proto import kernel_pb2
from asc.codegen.builder import require_builder
from asc.language.core.constexpr import ConstExpr
from asc.language.core.dtype import KnownTypes as KT
from asc.language.core.hints import RuntimeInt
from asc.language.core.ir_value import PlainValue, is_runtime_int, to_value
from asc.language.core.types import bind_fields

__all__ = ["CheckLocalMemoryIAParam", "check_local_memory_ia"]

# Field, its default and where it sits in the watch word (proto/kernel.proto, StoreConfigOp
# CHECK_LOCAL_MEMORY): (shift, width in bits).
_FIELDS = (("enable_bit", 0, 40, 2), ("start_addr", 0, 0, 16), ("end_addr", 0, 16, 16),
           ("is_scalar_read", False, 32, 1), ("is_scalar_write", False, 33, 1),
           ("is_vector_read", False, 34, 1), ("is_vector_write", False, 35, 1),
           ("is_mte_read", False, 36, 1), ("is_mte_write", False, 37, 1),
           ("is_enable", False, 42, 1))


class CheckLocalMemoryIAParam:
    """The fields of a local-memory watch register that check_local_memory_ia arms or clears.

    `asc.CheckLocalMemoryIAParam(enable_bit=0, start_addr=0, end_addr=0, is_scalar_read=False,
    is_scalar_write=False, is_vector_read=False, is_vector_write=False, is_mte_read=False,
    is_mte_write=False, is_enable=False)` (asc-api.md 4.4): which register (enable_bit), the
    watched address range, the accesses it watches and whether it is armed; every field may be
    a traced value."""

    __signature__ = inspect.Signature([
        inspect.Parameter(name, inspect.Parameter.POSITIONAL_OR_KEYWORD, default=default,
                          annotation="RuntimeBool" if isinstance(default, bool) else "RuntimeInt")
        for name, default, _, _ in _FIELDS])

    def __init__(self, *args, **kwargs) -> None:
        require_builder("CheckLocalMemoryIAParam")
        values = bind_fields("CheckLocalMemoryIAParam", [f[0] for f in _FIELDS], args, kwargs)
        for name, default, _, _ in _FIELDS:
            value = ConstExpr.unwrap(values.get(name, default))
            if not (isinstance(value, bool) or is_runtime_int(value)):
                raise TypeError(f"CheckLocalMemoryIAParam.{name} must be an int, a bool or a "
                                f"traced integer, got {type(value).__name__}")
            setattr(self, name, value)

    def word(self) -> RuntimeInt:
        """The watch word: a Python int when every field is compile-time, else traced."""
        word = 0
        for name, _, shift, width in _FIELDS:
            value = getattr(self, name)
            mask = (1 << width) - 1
            if isinstance(value, PlainValue):
                word = (to_value(value, KT.uint64) & mask) << shift | word
            else:
                word = (int(value) & mask) << shift | word
        return word


def check_local_memory_ia(check_params: CheckLocalMemoryIAParam) -> None:
    """Arms (is_enable=True) or clears the watch register check_params.enable_bit.

    An armed register reports the watched accesses to its address range as the launch runs."""
    api = "check_local_memory_ia"
    builder = require_builder(api)
    if not isinstance(check_params, CheckLocalMemoryIAParam):
        raise TypeError(f"{api}(): check_params must be an asc.CheckLocalMemoryIAParam, got "
                        f"{type(check_params).__name__}")
    word_id = to_value(check_params.word(), KT.uint64).id
    op = builder.emit("store_config")
    op.kind = kernel_pb2.StoreConfigOp.CHECK_LOCAL_MEMORY
    op.value = word_id
