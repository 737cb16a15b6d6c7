"""Device runtime of the simulator (pyasc's `asc.lib.runtime`).

A thin layer over the native `asc._aicore_native.Runtime`, created lazily for the platform chosen
by `config.set_platform` and re-created when the platform changes. The transport (embedded
simulator or a gRPC daemon via AICORE_SIM_ADDRESS) is the native module's business.
"""
from __future__ import annotations

import ctypes
import os
from typing import TYPE_CHECKING, Any, Dict, List, Optional, Tuple, Union

from asc import _tracebacks, _unsupported
from asc.codegen.errors import NotSupportedError
from asc.lib.runtime.support import (CoreType, DeviceInfoType, DeviceModuleType, MemcpyKind,
                                     Stream)

if TYPE_CHECKING:  # asc.runtime.config imports this module
    from asc.runtime.config import Platform

__all__ = [
    "Stream", "CoreType", "MemcpyKind", "use_model", "use_npu", "is_initialized", "is_available",
    "is_model", "set_soc_version", "get_soc_version", "current_platform", "default_device",
    "current_device", "set_device", "reset_device", "device_count", "current_stream",
    "create_stream", "destroy_stream", "synchronize", "synchronize_device", "malloc", "free",
    "memcpy", "memcpy_h2d", "memcpy_d2h", "copy_data_to_device", "copy_data_from_device",
    "list_platforms", "get_runtime", "transport", "c2c_ctrl_addr", "device_info",
    "DeviceModuleType", "DeviceInfoType", "set_config_overrides", "config_overrides",
]

_DEFAULT_PLATFORM = "Ascend910B1"


class _State:
    platform: str = _DEFAULT_PLATFORM
    device_id: int = 0
    # set_config_overrides: figures over the platform's; AICORE_SIM_CONFIG_OVERRIDES sets them
    # for a whole process (aicore-calibrate's trials).
    overrides: str = os.environ.get("AICORE_SIM_CONFIG_OVERRIDES", "")
    runtime = None            # native Runtime
    runtime_key: Optional[Tuple[str, str]] = None   # (platform, overrides) it was opened with
    streams: dict = {}
    # ((AIC, AIV) counts, (simulator version, config hash)) per (platform, overrides), from _probe.
    core_counts: Dict[Tuple[str, str], tuple] = {}


_state = _State()


def _native():
    try:
        from asc import _aicore_native
    except ImportError as exc:
        raise RuntimeError(
            "Runtime library is not available! The simulator module asc._aicore_native could not "
            f"be imported ({exc}); build it with `make build` (target _aicore_native)") from exc
    return _aicore_native


def get_runtime() -> Any:
    """The native Runtime (asc._aicore_native.Runtime) of the current platform.

    Created on first use, and again when config.set_platform or set_soc_version changes the
    platform or set_config_overrides the figures; reset_device drops it."""
    key = (_state.platform, _state.overrides)
    if _state.runtime is None or _state.runtime_key != key:
        native = _native()
        _state.runtime = None
        _state.runtime_key = None
        _state.streams = {}
        _state.runtime = native.Runtime(_state.platform, _state.overrides)
        _state.runtime_key = key
    return _state.runtime


def _stream_id(stream) -> int:
    if stream is None:
        return 0
    if isinstance(stream, ctypes.c_void_p):
        return int(stream.value or 0)
    return int(stream)


# ---- backend and platform ---------------------------------------------------------------------

def use_model(custom_lib_prefix: Optional[str] = None) -> None:
    """Selects the simulator backend: a no-op, the simulator being the only backend.

    custom_lib_prefix (pyasc's path of the CANN model libraries) is accepted and unused."""


def use_npu(custom_lib_prefix: Optional[str] = None) -> None:
    """Raises RuntimeError: aicore-sim has no NPU backend (use config.Backend.Model)."""
    raise RuntimeError("No NPU backend exists in aicore-sim; use config.Backend.Model (the "
                       "simulator)")


def is_initialized() -> bool:
    """Whether the native runtime has been created (by a launch or get_runtime)."""
    return _state.runtime is not None


def is_available() -> bool:
    """Whether the native runtime library (asc._aicore_native) loads."""
    try:
        _native()
        return True
    except RuntimeError:
        return False


def is_model() -> bool:
    """True: the backend is always the simulator."""
    return True


def set_soc_version(soc_verison: Union[Platform, str]) -> None:  # sic: pyasc's name
    """Selects the SoC platform: a config.Platform or its name (e.g. "Ascend910B1").

    The next launch creates the runtime for it (the parameter's spelling is pyasc's)."""
    _state.platform = getattr(soc_verison, "value", soc_verison)


def get_soc_version() -> Platform:
    """The selected SoC platform as a config.Platform."""
    from asc.runtime.config import Platform
    return Platform(_state.platform)


def current_platform() -> str:
    """The name of the selected SoC platform (Ascend910B1 by default)."""
    return _state.platform


def set_config_overrides(text: str = "") -> None:
    """Runs the next launches on the platform's figures changed by `text` (aicore-sim only).

    For trials and fits of the timing model without a new process.
    `text` is in the platform file's text format (aicore.config.v1.SocDescription), figures only,
    e.g. ``'mte2 { fixed_cycles: 300 }'``; "" returns to the platform's own figures. The next
    launch opens a fresh device with them (device memory and streams of the previous one are
    gone, as after reset_device), embedded or on the daemon of AICORE_SIM_ADDRESS; each launch
    report's config_hash names the figures it ran on. A malformed text, an unknown field or a bad
    value raises RuntimeError naming "config overrides" and the field, at that launch.
    See docs/timing-model.md "Config overrides"."""
    if not isinstance(text, str):
        raise TypeError(f"set_config_overrides expects the overrides as text (str), got "
                        f"{type(text).__name__}")
    _state.overrides = text


def config_overrides() -> str:
    """The figures set by set_config_overrides ("" when the platform's own are in use)."""
    return _state.overrides


def list_platforms() -> List[str]:
    """The names of the SoC platforms the native runtime knows."""
    return list(_native().list_platforms())


def transport() -> str:
    """How the runtime reaches the simulator: embedded, or a gRPC daemon (AICORE_SIM_ADDRESS)."""
    return get_runtime().transport


# ---- devices ----------------------------------------------------------------------------------

def default_device() -> int:
    """0, the simulator's only device."""
    return 0


def current_device() -> int:
    """The selected device id: always 0."""
    return _state.device_id


def set_device(device_id: int) -> None:
    """Selects device 0; any other id raises RuntimeError (the simulator has one device)."""
    if int(device_id) != 0:
        raise RuntimeError(f"device {device_id} does not exist: the simulator has one device (0)")
    _state.device_id = 0


def reset_device(device_id: Optional[int] = None) -> None:
    """Drops the runtime, its streams and the cached core counts; the next use starts afresh."""
    _state.runtime = None
    _state.runtime_key = None
    _state.streams = {}
    _state.core_counts = {}


def device_count() -> int:
    """1: the simulator has one device."""
    return 1


def device_info(module_type: Union[DeviceModuleType, int], info_type: Union[DeviceInfoType, int],
                device_id: Optional[int] = None) -> int:
    """pyasc's device query, answered with the core counts of the selected platform.

    `(RT_MODULE_TYPE_AICORE, INFO_TYPE_CORE_NUM)` is the AIC (cube core) count,
    `(RT_MODULE_TYPE_VECTOR_CORE, INFO_TYPE_CORE_NUM)` the AIV (vector core) count, both read
    from the runtime's own SoC config; any other query raises NotSupportedError."""
    if device_id is not None:
        set_device(device_id)
    module = DeviceModuleType(int(module_type))
    info = DeviceInfoType(int(info_type))
    if info is DeviceInfoType.INFO_TYPE_CORE_NUM:
        cube, vector = _core_counts()
        if module is DeviceModuleType.RT_MODULE_TYPE_AICORE:
            return cube
        if module is DeviceModuleType.RT_MODULE_TYPE_VECTOR_CORE:
            return vector
    err = NotSupportedError(f"device_info({module.name}, {info.name})")
    err.add_note("hint: the simulator answers INFO_TYPE_CORE_NUM of RT_MODULE_TYPE_AICORE and "
                 "RT_MODULE_TYPE_VECTOR_CORE")
    raise _tracebacks.hide_internals(err)


def _core_counts() -> Tuple[int, int]:
    """The platform's (AIC, AIV) counts from the runtime itself. The native Runtime has no
    config query, but every launch report carries the resolved SoC config it ran on, so one
    launch of an empty kernel per platform asks the very runtime (embedded, or the daemon of
    AICORE_SIM_ADDRESS, honouring AICORE_SIM_CONFIG_DIR) that later launches use."""
    return _probe()[0]


def _runtime_identity() -> Tuple[str, str]:
    """(simulator version, resolved config hash) of the current platform's runtime: what, with
    a kernel and its inputs, decides a launch's result (the farm's result cache keys on it)."""
    return _probe()[1]


def _probe():
    """((AIC, AIV), (version, config hash)) of the current platform, from one launch of an empty
    kernel per platform (see _core_counts)."""
    key = (_state.platform, _state.overrides)
    found = _state.core_counts.get(key)
    if found is None:
        from asc.codegen.builder import IRBuilder
        from asc.runtime.report import LaunchReport
        probe = IRBuilder("aicore_sim_device_info").finish()
        raw = get_runtime().launch(probe.SerializeToString(), 1, [], check="off")
        report = LaunchReport.from_bytes(raw)
        config = report.config
        found = ((int(config["cube_cores"]), int(config["vector_cores"])),
                 (report.proto.simulator_version, report.config_hash))
        _state.core_counts[key] = found
    return found


def c2c_ctrl_addr() -> int:
    """pyasc's C2C control address: a fixed constant here (0xe7ffe8064000)."""
    return 255086295400448


# ---- streams ----------------------------------------------------------------------------------

def current_stream(device_id: Optional[int] = None) -> Stream:
    """The default stream, Stream(0), which always exists."""
    return Stream(0)


def create_stream(priority: int = 0) -> Stream:
    """A new stream of the runtime (priority is accepted and unused)."""
    return Stream(get_runtime().create_stream())


def destroy_stream(stream_handle: Union[Stream, int, ctypes.c_void_p]) -> None:
    """Destroys the stream."""
    get_runtime().destroy_stream(_stream_id(stream_handle))


def synchronize(stream_handle: Union[Stream, int, ctypes.c_void_p, None] = None,
                timeout: int = 0) -> None:
    """Waits until the stream (the default stream when None) has finished its launches.

    timeout is accepted and unused."""
    get_runtime().synchronize(_stream_id(stream_handle))


def synchronize_device() -> None:
    """Waits until the default stream has finished its launches."""
    get_runtime().synchronize(0)


# ---- memory -----------------------------------------------------------------------------------

def malloc(size: int, memory_type: Any = None, policy: Any = None) -> int:
    """Allocates `size` bytes of device memory (GM) and returns the device address.

    memory_type and policy (pyasc's CANN options) are accepted and unused."""
    return get_runtime().malloc(int(size))


def free(mem_handle: Union[int, ctypes.c_void_p]) -> None:
    """Frees a device allocation made by malloc."""
    get_runtime().free(int(mem_handle))


def memcpy_h2d(dst_addr: int, data: Any) -> None:
    """Copies a host buffer (anything with the buffer protocol) to device address `dst_addr`."""
    get_runtime().memcpy_h2d(int(dst_addr), data)


def memcpy_d2h(dst: Any, src_addr: int) -> None:
    """Fills the writable host buffer `dst` (len(dst) bytes) from device address `src_addr`."""
    get_runtime().memcpy_d2h(dst, int(src_addr))


def _host_view(handle, nbytes: int, writable: bool):
    if isinstance(handle, ctypes.c_void_p):
        handle = handle.value
    if isinstance(handle, int):
        return (ctypes.c_char * nbytes).from_address(handle)
    view = memoryview(handle).cast("B")
    if writable and view.readonly:
        raise ValueError("destination host buffer is read-only")
    return view[:nbytes]


def memcpy(mem_dst_handle: Any, dst_nbytes: int, mem_src_handle: Any, src_nbytes: int,
           kind: Union[MemcpyKind, int]) -> None:
    """Copies min(dst_nbytes, src_nbytes) bytes in the direction `kind` (a MemcpyKind).

    pyasc's memcpy: device sides are device addresses; host sides may be raw addresses (int or
    ctypes.c_void_p) or buffers (anything with the buffer protocol; writable as a destination).
    DEVICE_TO_DEVICE goes through a host staging buffer."""
    kind = MemcpyKind(int(kind))
    nbytes = min(int(dst_nbytes), int(src_nbytes))
    # The runtime reads and writes the host buffers themselves: no copy on the way.
    if kind == MemcpyKind.RT_MEMCPY_HOST_TO_DEVICE:
        memcpy_h2d(int(mem_dst_handle), _host_view(mem_src_handle, nbytes, False))
    elif kind == MemcpyKind.RT_MEMCPY_DEVICE_TO_HOST:
        memcpy_d2h(_host_view(mem_dst_handle, nbytes, True), int(mem_src_handle))
    elif kind == MemcpyKind.RT_MEMCPY_DEVICE_TO_DEVICE:
        staging = bytearray(nbytes)
        memcpy_d2h(staging, int(mem_src_handle))
        memcpy_h2d(int(mem_dst_handle), staging)
    else:
        ctypes.memmove(_host_view(mem_dst_handle, nbytes, True),
                       bytes(_host_view(mem_src_handle, nbytes, False)), nbytes)


def copy_data_to_device(src_mem_handle: Any, nbytes: int) -> int:
    """Allocates `nbytes` on the device, copies the host buffer there and returns the address."""
    addr = malloc(nbytes)
    memcpy(addr, nbytes, src_mem_handle, nbytes, MemcpyKind.RT_MEMCPY_HOST_TO_DEVICE)
    return addr


def copy_data_from_device(mem_dst_handle: Any, mem_src_handle: Union[int, ctypes.c_void_p],
                          nbytes: int) -> None:
    """Copies `nbytes` from device address `mem_src_handle` to the host buffer `mem_dst_handle`."""
    memcpy(mem_dst_handle, nbytes, mem_src_handle, nbytes, MemcpyKind.RT_MEMCPY_DEVICE_TO_HOST)

# pyasc names not implemented yet raise NotSupportedError, not AttributeError (asc/_unsupported.py).
__getattr__ = _unsupported.module_getattr(__name__)
