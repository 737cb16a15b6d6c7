"""Argument conversion of the host tiling methods, as pybind11 does it for pyasc's bindings:
int32 parameters take integers only, enum parameters their enum (here also its int value; a
value that is no member makes the setter fail with -1 rather than raise), overloads bind by
signature."""
from __future__ import annotations

import inspect
from typing import Optional, Sequence, Tuple

INT32_MIN, INT32_MAX = -2 ** 31, 2 ** 31 - 1


def int32(value, name: str) -> int:
    """An int32 argument: an integer (or an object with __index__) that fits."""
    try:
        value = value.__index__()
    except AttributeError:
        raise TypeError(f"{name} must be an integer, got {type(value).__name__}") from None
    if not INT32_MIN <= value <= INT32_MAX:
        raise TypeError(f"{name}={value} does not fit an int32")
    return value


def member(enum_cls, value, name: str):
    """The member of `enum_cls` that `value` is or numbers, else None."""
    if isinstance(value, enum_cls):
        return value
    try:
        return enum_cls(int32(value, name))
    except ValueError:
        return None


def bind(method: str, signatures: Sequence[inspect.Signature], args, kwargs
         ) -> Tuple[int, inspect.BoundArguments]:
    """The first of `signatures` the call binds to (index, bound arguments with defaults)."""
    for i, sig in enumerate(signatures):
        try:
            bound = sig.bind(*args, **kwargs)
        except TypeError:
            continue
        bound.apply_defaults()
        return i, bound
    forms = "\n".join(f"    {i + 1}. {method}{sig}" for i, sig in enumerate(signatures))
    raise TypeError(f"{method}(): incompatible function arguments. The following argument "
                    f"types are supported:\n{forms}")


def signature(*names: str, defaults: Optional[dict] = None) -> inspect.Signature:
    defaults = defaults or {}
    return inspect.Signature([
        inspect.Parameter(n, inspect.Parameter.POSITIONAL_OR_KEYWORD,
                          default=defaults.get(n, inspect.Parameter.empty)) for n in names])
