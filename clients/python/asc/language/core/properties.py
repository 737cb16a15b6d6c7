"""`asc.property(...)` constants of the target (CANN values for Ascend910B, asc-api.md 3.3)."""
from __future__ import annotations

from asc.language.core.dtype import DataType, KnownTypes
from asc.language.core.ir_value import PlainValue, const

__all__ = ["property", "DEFAULT_C0_SIZE", "ONE_BLK_SIZE", "TOTAL_L1_SIZE", "TOTAL_L0C_SIZE"]


class Property:
    def __init__(self, name: str, dtype: DataType, value: int):
        self.name = name
        self.dtype = dtype
        self.value = value

    def __repr__(self):
        return f"Property({self.name})"


DEFAULT_C0_SIZE = Property("::AscendC::DEFAULT_C0_SIZE", KnownTypes.int32, 32)
ONE_BLK_SIZE = Property("::AscendC::ONE_BLK_SIZE", KnownTypes.int16, 32)
TOTAL_L1_SIZE = Property("::AscendC::TOTAL_L1_SIZE", KnownTypes.int32, 524160)
TOTAL_L0C_SIZE = Property("::AscendC::TOTAL_L0C_SIZE", KnownTypes.int32, 131072)


def property(prop: Property) -> PlainValue:  # noqa: A001 - the name is API
    """A traced constant of the property's dtype: `asc.property(asc.ONE_BLK_SIZE)`.

    The properties are CANN's values for Ascend910B: DEFAULT_C0_SIZE 32 (int32), ONE_BLK_SIZE
    32 (int16), TOTAL_L1_SIZE 524160 and TOTAL_L0C_SIZE 131072 (int32)."""
    if not isinstance(prop, Property):
        raise TypeError(f"property() expects an asc property, got {type(prop).__name__}")
    return const(prop.value, prop.dtype, "property")
