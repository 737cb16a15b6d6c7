"""The type aliases the public API's hints name (asc-api.md 1.9's runtime int, float and number).

The modules of the API write their hints as strings (`from __future__ import annotations`), so
no hint is evaluated while a kernel is traced; `typing.get_type_hints` resolves them against the
defining module, which imports the aliases it names from here. The aliases are not exported from
`asc`.
"""
from __future__ import annotations

from typing import List, Union

from asc.language.core.ir_value import PlainValue

__all__ = ["RuntimeInt", "RuntimeFloat", "RuntimeNumber", "RuntimeBool", "BitMask", "VectorMask"]

# A Python int (or bool) or a traced scalar of any dtype, as pyasc's RuntimeInt.
RuntimeInt = Union[int, PlainValue]
# A Python float or a traced scalar, as pyasc's RuntimeFloat (a Python int does not match).
RuntimeFloat = Union[float, PlainValue]
# A Python number or a traced scalar.
RuntimeNumber = Union[int, float, PlainValue]
# A Python bool or a traced scalar (a runtime condition).
RuntimeBool = Union[bool, PlainValue]
# The two-word vector mask: [bits of elements 0..63, bits of elements 64..127].
BitMask = List[RuntimeInt]
# The `mask` of a vector instruction's mask/repeat forms: a length or a two-word bit mask.
VectorMask = Union[RuntimeInt, BitMask]
