"""Overload resolution shared by every overloaded API (asc-api.md 1.9).

Candidates are tried in order: positional arguments fill parameters left to right, keywords must
name a remaining parameter, each value must pass the parameter's check, missing parameters need a
default. The first candidate that binds is called with keyword arguments.
"""
from __future__ import annotations

from typing import Any, Callable, List, Sequence, Tuple

REQUIRED = object()


class Param:
    def __init__(self, name: str, check: Callable[[Any], bool], default=REQUIRED,
                 type_name: str = ""):
        self.name = name
        self.check = check
        self.default = default
        self.type_name = type_name or getattr(check, "__name__", "value")

    def describe(self) -> str:
        if self.default is REQUIRED:
            return f"{self.name}: {self.type_name}"
        return f"{self.name}: {self.type_name} = {self.default!r}"


def of_type(*types):
    """A check accepting instances of `types` (named after them for error messages)."""
    def check(x):
        return isinstance(x, types)
    check.__name__ = " | ".join(t.__name__ for t in types)
    return check


class Overload:
    def __init__(self, params: Sequence[Param], fn: Callable):
        self.params = list(params)
        self.fn = fn

    def bind(self, args: Tuple, kwargs: dict):
        if len(args) > len(self.params):
            return None
        bound = {}
        for param, value in zip(self.params, args):
            bound[param.name] = value
        for name, value in kwargs.items():
            names = [p.name for p in self.params]
            if name not in names or name in bound:
                return None
            bound[name] = value
        for param in self.params:
            if param.name in bound:
                if not param.check(bound[param.name]):
                    return None
            elif param.default is REQUIRED:
                return None
            else:
                bound[param.name] = param.default
        return bound

    def describe(self, api: str) -> str:
        return f"{api}(" + ", ".join(p.describe() for p in self.params) + ")"


def dispatch(api: str, overloads: List[Overload], args: Tuple, kwargs: dict):
    for overload in overloads:
        bound = overload.bind(args, kwargs)
        if bound is not None:
            return overload.fn(**bound)
    given = ", ".join([type(a).__name__ for a in args] +
                      [f"{k}={type(v).__name__}" for k, v in kwargs.items()])
    candidates = "\n  ".join(o.describe(api) for o in overloads)
    raise RuntimeError(f"No viable candidates were found to dispatch {api}() with arguments "
                       f"({given}). Candidates:\n  {candidates}")
