"""`MatmulConfigParams` (asc-api.md 7.3): the MatmulConfig choices a tiling must agree with."""
from __future__ import annotations

from asc.lib.host._args import int32
from asc.lib.host.enums import MatrixTraverse, ScheduleType

__all__ = ["MatmulConfigParams"]


class MatmulConfigParams:
    """The MatmulConfig choices a host tiling must agree with (matmul_tiling::MatmulConfigParams).

    A plain holder with read/write attributes of the constructor's names: `mm_config_type` 0 =
    NORM, 1 = MDL template, `enable_l1_cache_ub`, `schedule_type`, `traverse`,
    `en_vec_nd2nz`."""

    def __init__(self, mm_config_type: int = 1, enable_l1_cache_ub: bool = False,
                 schedule_type: ScheduleType = ScheduleType.INNER_PRODUCT,
                 traverse: MatrixTraverse = MatrixTraverse.NOSET,
                 en_vec_nd2nz: bool = False) -> None:
        self.mm_config_type = mm_config_type
        self.enable_l1_cache_ub = enable_l1_cache_ub
        self.schedule_type = schedule_type
        self.traverse = traverse
        self.en_vec_nd2nz = en_vec_nd2nz

    # Typed like the pybind11 fields: an int, two bools and two enums.
    def __setattr__(self, name, value):
        if name == "mm_config_type":
            value = int32(value, name)
        elif name in ("enable_l1_cache_ub", "en_vec_nd2nz"):
            value = bool(value)
        elif name == "schedule_type":
            value = ScheduleType(int32(value, name))
        elif name == "traverse":
            value = MatrixTraverse(int32(value, name))
        else:
            raise AttributeError(f"MatmulConfigParams has no attribute {name!r}")
        object.__setattr__(self, name, value)

    def __eq__(self, other):
        return isinstance(other, MatmulConfigParams) and vars(self) == vars(other)

    __hash__ = None

    def __repr__(self):
        return (f"MatmulConfigParams(mm_config_type={self.mm_config_type}, "
                f"enable_l1_cache_ub={self.enable_l1_cache_ub}, "
                f"schedule_type={self.schedule_type.name}, traverse={self.traverse.name}, "
                f"en_vec_nd2nz={self.en_vec_nd2nz})")

