"""Backend and platform selection (pyasc's `asc.runtime.config`, asc-api.md 2.1-2.2)."""
from enum import Enum
from typing import Optional, Union

from asc.lib import runtime as rt

__all__ = ["Backend", "Platform", "KernelType", "set_platform"]


class Backend(Enum):
    Model = "Model"
    NPU = "NPU"


class Platform(Enum):
    Ascend910B1 = "Ascend910B1"
    Ascend910B2 = "Ascend910B2"
    Ascend910B2C = "Ascend910B2C"
    Ascend910B3 = "Ascend910B3"
    Ascend910B4 = "Ascend910B4"
    Ascend910B4_1 = "Ascend910B4-1"
    Ascend910_9362 = "Ascend910_9362"
    Ascend910_9372 = "Ascend910_9372"
    Ascend910_9381 = "Ascend910_9381"
    Ascend910_9382 = "Ascend910_9382"
    Ascend910_9391 = "Ascend910_9391"
    Ascend910_9392 = "Ascend910_9392"


class KernelType(Enum):
    AIV_ONLY = 0
    AIC_ONLY = 1
    MIX_AIV_HARD_SYNC = 2
    MIX_AIC_HARD_SYNC = 3
    MIX_AIV_1_0 = 4
    MIX_AIC_1_0 = 5
    MIX_AIC_1_1 = 6
    MIX_AIC_1_2 = 7


def set_platform(backend: Union[Backend, str], soc_version: Optional[Platform] = None,
                 device_id: Optional[int] = None, check: bool = True) -> None:
    """Select the simulator (Backend.Model) for `soc_version` (default Ascend910B1).

    The native runtime is created lazily on first use and re-created when the platform changes.
    With `check`, fail now if the simulator module or the platform's config is missing.
    """
    backend = Backend(backend)
    if backend is Backend.NPU:
        raise RuntimeError("Backend.NPU is not available: aicore-sim has no NPU runtime. Use "
                           "config.set_platform(config.Backend.Model) to run on the simulator.")
    platform = Platform.Ascend910B1 if soc_version is None else Platform(
        getattr(soc_version, "value", soc_version))
    rt.use_model()
    if check:
        if not rt.is_available():
            # pyasc's text (a test matches on it), then what to do in aicore-sim.
            raise RuntimeError(
                "Runtime library is not available! Please export LD_LIBRARY_PATH="
                f"$ASCEND_HOME_PATH/tools/simulator/{platform.value}/lib:$LD_LIBRARY_PATH. In "
                "aicore-sim the simulator is the module asc._aicore_native: build it with "
                "`make build` (target _aicore_native)")
        known = rt.list_platforms()
        if platform.value not in known:
            raise RuntimeError(f"Platform {platform.value} has no simulator config; available: "
                               f"{', '.join(known)}")
    rt.set_soc_version(platform)
    if device_id is not None:
        rt.set_device(device_id)
