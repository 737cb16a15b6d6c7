"""Types of the device runtime (pyasc's `asc.lib.runtime.support`, asc-api.md 2.3): handle types,
core and memcpy kinds, and the module/info enums of `device_info`.

The enum values are those of CANN's runtime (`rtDeviceModuleType_t`, `rtDeviceInfoType_t`,
`rtMemcpyKind_t`), which pyasc passes straight to the device runtime.
"""
from __future__ import annotations

import ctypes
import enum

from asc import _unsupported

__all__ = ["Stream", "Memory", "Kernel", "Function", "CoreType", "MemcpyKind",
           "DeviceModuleType", "DeviceInfoType"]

# pyasc's handles are opaque pointers; aicore-sim passes device addresses and kernel IR instead,
# but code that builds or type-checks handles with these names keeps working.
Memory = ctypes.c_void_p
Kernel = ctypes.c_void_p
Function = ctypes.c_void_p


class Stream:
    """A stream of the device runtime: the runtime's stream id (pyasc's is a ctypes pointer).

    `int(stream)` is the id; stream 0, the default stream, always exists (current_stream)."""

    def __init__(self, handle: int) -> None:
        self.handle = int(handle)

    def __int__(self):
        return self.handle

    def __index__(self):
        return self.handle

    def __eq__(self, other):
        return isinstance(other, Stream) and other.handle == self.handle

    def __hash__(self):
        return hash(("Stream", self.handle))

    def __repr__(self):
        return f"Stream({self.handle})"


class CoreType(enum.Enum):
    AiCore = "AiCore"
    VectorCore = "VectorCore"
    CubeCore = "CubeCore"
    AiCpu = "AiCpu"


class MemcpyKind(enum.IntEnum):
    RT_MEMCPY_HOST_TO_HOST = 0
    RT_MEMCPY_HOST_TO_DEVICE = 1
    RT_MEMCPY_DEVICE_TO_HOST = 2
    RT_MEMCPY_DEVICE_TO_DEVICE = 3


class DeviceModuleType(enum.IntEnum):
    """The `module_type` of `device_info`: which part of the device is asked about."""
    RT_MODULE_TYPE_SYSTEM = 0
    RT_MODULE_TYPE_AICPU = 1
    RT_MODULE_TYPE_CCPU = 2
    RT_MODULE_TYPE_DCPU = 3
    RT_MODULE_TYPE_AICORE = 4
    RT_MODULE_TYPE_TSCPU = 5
    RT_MODULE_TYPE_PCIE = 6
    RT_MODULE_TYPE_VECTOR_CORE = 7
    RT_MODULE_TYPE_HOST_AICPU = 8


class DeviceInfoType(enum.IntEnum):
    """The `info_type` of `device_info`: which figure of that module is asked for."""
    INFO_TYPE_ENV = 0
    INFO_TYPE_VERSION = 1
    INFO_TYPE_MASTERID = 2
    INFO_TYPE_CORE_NUM = 3
    INFO_TYPE_OS_SCHED = 4
    INFO_TYPE_IN_USED = 5
    INFO_TYPE_ERROR_MAP = 6
    INFO_TYPE_OCCUPY = 7
    INFO_TYPE_ID = 8
    INFO_TYPE_IP = 9
    INFO_TYPE_ENDIAN = 10
    INFO_TYPE_CUBE_NUM = 0x775A5A5A

# pyasc names not implemented yet raise NotSupportedError, not AttributeError (asc/_unsupported.py).
__getattr__ = _unsupported.module_getattr(__name__)
