"""The SoC description the host tiling works from (pyasc's `PlatformAscendC`,
`PlatformAscendCManager`, `get_ascendc_platform`; asc-api.md 7.1).

Nothing here is a table of SoCs: core counts and buffer sizes come from the simulator's runtime
for the SoC asked for, the way `asc.lib.runtime.device_info` gets its counts (every launch report
carries the resolved SoC config; one empty launch per SoC and runtime reads it). Only when that
config lacks a buffer size does the Ascend 910B figure below stand in (docs/host_tiling.md).
"""
from __future__ import annotations

import enum
from typing import Dict, Optional, Tuple

__all__ = ["CoreMemType", "PlatformAscendC", "PlatformAscendCManager", "get_ascendc_platform"]


class CoreMemType(enum.IntEnum):
    """`platform_ascendc::CoreMemType` as CANN's GetCoreMemSize page numbers it."""
    L0_A = 0
    L0_B = 1
    L0_C = 2
    L1 = 3
    L2 = 4
    UB = 5
    HBM = 6
    FB = 7
    BT = 8
    RESERVED = 9


# SocConfig.memory field -> CoreMemType.
_MEMORY_FIELDS = {
    CoreMemType.L0_A: "l0a_bytes", CoreMemType.L0_B: "l0b_bytes", CoreMemType.L0_C: "l0c_bytes",
    CoreMemType.L1: "l1_bytes", CoreMemType.L2: "l2_bytes", CoreMemType.UB: "ub_bytes",
    CoreMemType.HBM: "hbm_bytes", CoreMemType.FB: "fb_bytes", CoreMemType.BT: "bt_bytes",
}

# Used only for a buffer the runtime's config does not state: the Ascend 910B (dav-c220) sizes
# in bytes (docs/host_tiling.md gives the sources). L2, HBM and FB have no stand-in (0).
_FALLBACK_910B = {
    CoreMemType.L1: 524288, CoreMemType.L0_A: 65536, CoreMemType.L0_B: 65536,
    CoreMemType.L0_C: 131072, CoreMemType.UB: 196608, CoreMemType.BT: 1024,
}


class PlatformAscendC:
    """One SoC: its cube-core (AIC) and vector-core (AIV) counts and its buffer sizes.

    Opaque in pyasc; the methods are named after CANN's `platform_ascendc::PlatformAscendC`.
    Obtain it from `get_ascendc_platform()` or `PlatformAscendCManager.get_instance()`.
    """

    def __init__(self, soc_version: str, aic: int, aiv: int, memory: Dict[CoreMemType, int]):
        self._soc_version = str(soc_version)
        self._aic = int(aic)
        self._aiv = int(aiv)
        self._memory = {t: int(memory.get(t, 0)) for t in CoreMemType if t != CoreMemType.RESERVED}

    def get_soc_version(self) -> str:
        """The SoC name (an `asc.runtime.config.Platform` value, e.g. "Ascend910B1")."""
        return self._soc_version

    def get_core_num(self) -> int:
        """CANN's GetCoreNum: on this cube/vector separated architecture, the AIV count."""
        return self._aiv

    def get_core_num_aic(self) -> int:
        """Cube cores (AIC)."""
        return self._aic

    def get_core_num_aiv(self) -> int:
        """Vector cores (AIV)."""
        return self._aiv

    def get_core_mem_size(self, mem_type) -> int:
        """Bytes of one buffer (`CoreMemType` member, its value or its name), per core for the
        core-local ones (UB per AIV; L1, L0A/B/C, BT, FB per AIC). CANN's C++ API returns the
        size through an out-parameter; here it is the return value."""
        if isinstance(mem_type, str):
            try:
                kind = CoreMemType[mem_type]
            except KeyError:
                raise ValueError(f"unknown memory type {mem_type!r}; one of "
                                 f"{', '.join(t.name for t in _MEMORY_FIELDS)}") from None
        else:
            kind = CoreMemType(int(mem_type))
        if kind not in _MEMORY_FIELDS:
            raise ValueError(f"CoreMemType.{kind.name} is not a memory")
        return self._memory[kind]

    def __eq__(self, other):
        return (isinstance(other, PlatformAscendC) and other._soc_version == self._soc_version
                and other._aic == self._aic and other._aiv == self._aiv
                and other._memory == self._memory)

    def __hash__(self):
        return hash((self._soc_version, self._aic, self._aiv))

    def __repr__(self):
        mem = ", ".join(f"{t.name}={self._memory[t]}" for t in _MEMORY_FIELDS if self._memory[t])
        return (f"PlatformAscendC({self._soc_version}: {self._aic} AIC, {self._aiv} AIV, "
                f"{mem})")


# soc name -> (id of the runtime it was read from, platform).
_cache: Dict[str, Tuple[int, PlatformAscendC]] = {}


def _probe_config(runtime) -> dict:
    """The resolved SoC config `runtime` launches with: the report of one empty launch."""
    from asc.codegen.builder import IRBuilder
    from asc.runtime.report import LaunchReport
    probe = IRBuilder("aicore_sim_platform_info").finish()
    raw = runtime.launch(probe.SerializeToString(), 1, [], check="off")
    return LaunchReport.from_bytes(raw).config


def _memory_of(config: dict) -> Dict[CoreMemType, int]:
    stated = config.get("memory", {})
    memory = {}
    for kind, field in _MEMORY_FIELDS.items():
        value = int(stated.get(field, 0))
        memory[kind] = value if value > 0 else _FALLBACK_910B.get(kind, 0)
    return memory


def _platform(soc_version: str) -> PlatformAscendC:
    import asc.lib.runtime as rt
    from asc.lib.runtime.support import DeviceInfoType, DeviceModuleType
    if soc_version == rt.current_platform():
        # The runtime later launches use; its counts through device_info (cached there).
        runtime = rt.get_runtime()
        cached = _cache.get(soc_version)
        if cached is not None and cached[0] == id(runtime):
            return cached[1]
        aic = rt.device_info(DeviceModuleType.RT_MODULE_TYPE_AICORE,
                             DeviceInfoType.INFO_TYPE_CORE_NUM)
        aiv = rt.device_info(DeviceModuleType.RT_MODULE_TYPE_VECTOR_CORE,
                             DeviceInfoType.INFO_TYPE_CORE_NUM)
        platform = PlatformAscendC(soc_version, aic, aiv, _memory_of(_probe_config(runtime)))
        _cache[soc_version] = (id(runtime), platform)
        return platform
    # Another SoC: ask a runtime of its own, leaving the current one (and its memory) alone.
    cached = _cache.get(soc_version)
    if cached is not None and cached[0] == 0:
        return cached[1]
    known = rt.list_platforms()
    if soc_version not in known:
        raise ValueError(f"unknown SoC {soc_version!r}: the simulator has configs for "
                         f"{', '.join(known)}")
    config = _probe_config(rt._native().Runtime(soc_version))
    platform = PlatformAscendC(soc_version, config["cube_cores"], config["vector_cores"],
                               _memory_of(config))
    _cache[soc_version] = (0, platform)
    return platform


class PlatformAscendCManager:
    """Hands out `PlatformAscendC` objects (pyasc's static `get_instance`)."""

    def __init__(self):
        raise TypeError("PlatformAscendCManager has only static methods; call "
                        "PlatformAscendCManager.get_instance()")

    @staticmethod
    def get_instance(soc_version: Optional[str] = None) -> PlatformAscendC:
        """The SoC named `soc_version` (a Platform value such as "Ascend910B1", or the Platform
        member), else the one `asc.runtime.config.set_platform` chose. CANN keeps one instance
        per process; here there is one per SoC, so switching platforms is seen."""
        import asc.lib.runtime as rt
        if soc_version is None:
            soc_version = rt.current_platform()
        soc_version = getattr(soc_version, "value", soc_version)
        if not isinstance(soc_version, str):
            raise TypeError(f"soc_version must be a str, got {type(soc_version).__name__}")
        return _platform(soc_version)


def get_ascendc_platform() -> PlatformAscendC:
    """The platform of the SoC `config.set_platform` recorded (default Ascend910B1)."""
    import asc.lib.runtime as rt
    return PlatformAscendCManager.get_instance(rt.get_soc_version().value)
