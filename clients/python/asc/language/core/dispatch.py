"""Overload resolution shared by every overloaded API (asc-api.md 1.9).

Candidates are tried in order: positional arguments fill parameters left to right, keywords must
name a remaining parameter, each value must pass the parameter's check, missing parameters need a
default. The first candidate that binds is called with keyword arguments.
"""
from __future__ import annotations

import inspect
import types
import typing
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

REQUIRED = object()


class Param:
    """One parameter of a call form: its name, the check a value must pass, its default, the
    type name messages show and the type hint (a string) the form's overload declares (the type
    name unless given)."""

    def __init__(self, name: str, check: Callable[[Any], bool], default: Any = REQUIRED,
                 type_name: str = "", hint: str = ""):
        self.name = name
        self.check = check
        self.default = default
        self.type_name = type_name or getattr(check, "__name__", "value")
        self.hint = hint or self.type_name

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


def _overload_stub(*args, **kwargs):
    """A call form of an overloaded API, as `typing.get_overloads` lists it; never called."""
    raise NotImplementedError("an overload declaration is not callable")


def form_signature(params: Sequence[Param], lead: Sequence[Tuple[str, str]] = (),
                   returns: str = "None") -> inspect.Signature:
    """The signature of one call form: the `lead` (name, hint) parameters every form shares,
    then `params`; hints and the return are strings, as the API modules write theirs."""
    kind = inspect.Parameter.POSITIONAL_OR_KEYWORD
    out = [inspect.Parameter(name, kind, annotation=hint) for name, hint in lead]
    for p in params:
        default = inspect.Parameter.empty if p.default is REQUIRED else p.default
        out.append(inspect.Parameter(p.name, kind, default=default, annotation=p.hint))
    return inspect.Signature(out, return_annotation=returns)


def set_forms(fn: Callable, lead: Sequence[Tuple[str, str]],
              param_lists: Sequence[Sequence[Param]], returns: str = "None") -> Callable:
    """Records the call forms of an API whose one signature hides them (`fn._forms`, inspect
    signatures: the `lead` parameters, then each list), for its overload declarations and its
    docstring; returns `fn`."""
    fn._forms = [form_signature(p, lead, returns) for p in param_lists]
    return fn


def declare_overloads(fn: Callable, signatures: Sequence[inspect.Signature],
                      namespace: Optional[Dict[str, Any]] = None) -> None:
    """Registers each signature as a `typing.overload` of `fn` (typing.get_overloads(fn) lists
    them, in order), for APIs whose call forms one `(*args, **kwargs)` signature hides. The stubs
    resolve their hints against `fn`'s module plus `namespace`."""
    from asc.language.core import hints
    scope = dict(vars(typing))
    scope.update(vars(hints))
    scope.update(fn.__globals__)
    scope.update(namespace or {})
    for number, sig in enumerate(signatures, 1):
        # typing keys overloads by module, qualified name and first line: one line each.
        code = _overload_stub.__code__.replace(co_name=fn.__name__, co_firstlineno=number)
        stub = types.FunctionType(code, scope, fn.__name__)
        stub.__qualname__, stub.__module__ = fn.__qualname__, fn.__module__
        stub.__doc__ = None
        stub.__signature__ = sig
        stub.__annotations__ = {p.name: p.annotation for p in sig.parameters.values()
                                if p.annotation is not inspect.Parameter.empty}
        if sig.return_annotation is not inspect.Signature.empty:
            stub.__annotations__["return"] = sig.return_annotation
        typing.overload(stub)


def forms_text(api: str, signatures: Sequence[inspect.Signature]) -> str:
    """The call forms as a docstring lists them: one `api(params)` a line, without hints (forms
    that differ in their hints only, as a mask given as an int or as two words, are one line)."""
    lines = []
    for sig in signatures:
        line = f"    {api}{_unhinted(sig)}"
        if line not in lines:
            lines.append(line)
    return "\n".join(lines)


def _unhinted(sig: inspect.Signature) -> str:
    """`sig` as inspect prints it, without hints. Forms of plain parameters are written here
    directly: rebuilding each as an unhinted Signature cost `import asc` about 2 ms."""
    params = sig.parameters.values()
    if all(p.kind is p.POSITIONAL_OR_KEYWORD for p in params):
        return "(" + ", ".join(p.name if p.default is p.empty else f"{p.name}={p.default!r}"
                               for p in params) + ")"
    return str(inspect.Signature([p.replace(annotation=inspect.Parameter.empty)
                                  for p in params]))
