"""Per-core system values read at run time (asc-api.md 3.10), so one IR serves every core."""
from __future__ import annotations

from asc._proto import kernel_pb2
from asc.codegen.builder import require_builder
from asc.language.core.dtype import DataType, KnownTypes
from asc.language.core.constexpr import ConstExpr
from asc.language.core.hints import RuntimeInt
from asc.language.core.ir_value import PlainValue, const, is_runtime_int, to_value

__all__ = ["get_block_idx", "get_block_num", "get_sub_block_idx", "get_sub_block_num",
           "ascend_is_aic", "ascend_is_aiv", "get_system_cycle", "get_data_block_size_in_bytes",
           "get_program_counter", "get_icache_preload_status", "get_arch_version", "get_task_ratio",
           "trap"]

_SV = kernel_pb2.SysValueOp


def _sys(api: str, kind: int, dtype: DataType) -> PlainValue:
    builder = require_builder(api)
    op = builder.emit("sys_value")
    result = PlainValue(builder.new_value(), dtype)
    op.result, op.kind, op.dtype = result.id, kind, dtype.to_ir()
    return result


def get_block_idx() -> PlainValue:
    """This core's block index in the launch (int32).

    Ascend C's GetBlockIdx: 0 .. block_num - 1. On a vector core of a MIX_AIC_1_2 kernel the
    vector blocks are counted, 0 .. 2 * core_num - 1 (asc-api.md 1.6)."""
    return _sys("get_block_idx", _SV.BLOCK_IDX, KnownTypes.int32)


def get_block_num() -> PlainValue:
    """The launch's block count (int32, Ascend C's GetBlockNum)."""
    return _sys("get_block_num", _SV.BLOCK_NUM, KnownTypes.int32)


def get_sub_block_idx() -> PlainValue:
    """This vector core's index within its group (int64): 0 or 1 in a mixed kernel."""
    return _sys("get_sub_block_idx", _SV.SUB_BLOCK_IDX, KnownTypes.int64)


def get_sub_block_num() -> PlainValue:
    """Vector cores per group (uint64): 2 in a MIX_AIC_1_2 kernel."""
    return _sys("get_sub_block_num", _SV.SUB_BLOCK_NUM, KnownTypes.uint64)


def ascend_is_aic() -> PlainValue:
    """True (int1) on a cube core (Ascend C's ASCEND_IS_AIC), for a runtime `if`."""
    return _sys("ascend_is_aic", _SV.IS_AIC, KnownTypes.int1)


def ascend_is_aiv() -> PlainValue:
    """True (int1) on a vector core (Ascend C's ASCEND_IS_AIV), for a runtime `if`."""
    return _sys("ascend_is_aiv", _SV.IS_AIV, KnownTypes.int1)


def get_task_ratio() -> PlainValue:
    """Cores of this core's type per group (int64; asc-api.md 10.1).

    2 on a vector core of a MIX_AIC_1_2 kernel, 1 on its cube core and on every core of the
    other kernel types."""
    return _sys("get_task_ratio", _SV.TASK_RATIO, KnownTypes.int64)


def get_system_cycle() -> PlainValue:
    """The 50 MHz system counter (int64, Ascend C's GetSystemCycle).

    Read as cycles * 50 / clock_mhz of the scalar unit's time (docs/frontend.md)."""
    return _sys("get_system_cycle", _SV.SYSTEM_CYCLE, KnownTypes.int64)


def get_data_block_size_in_bytes() -> PlainValue:
    """32, the size of a data block (an int32 constant)."""
    return const(32, KnownTypes.int32, "get_data_block_size_in_bytes")


def get_program_counter() -> PlainValue:
    """The address of this instruction (int64).

    The model lays the decoded program out as one 4-byte instruction per IR op from address
    0."""
    return _sys("get_program_counter", _SV.PROGRAM_COUNTER, KnownTypes.int64)


def get_icache_preload_status() -> PlainValue:
    """0 (idle: any preload is complete), the model having no instruction cache (int64)."""
    return const(0, KnownTypes.int64, "get_icache_preload_status")


def get_arch_version(core_version: RuntimeInt) -> None:
    """Ascend C's GetArchVersion: checks its argument and returns nothing.

    GetArchVersion(uint32_t&) writes the core version into its argument; pyasc passes the
    argument by value, so the kernel's variable is left as it was and nothing is returned. The
    argument must be an integer, as pyasc's conversion to uint32 requires."""
    require_builder("get_arch_version")
    if not is_runtime_int(ConstExpr.unwrap(core_version)):
        raise TypeError("get_arch_version(): core_version must be an int or a traced integer, "
                        f"got {type(core_version).__name__}")
    to_value(core_version, KnownTypes.uint32)


def trap() -> None:
    """Stops the AI Core: the launch fails with a KernelFaultError naming this line."""
    require_builder("trap").emit("trap")
