"""Compile-time helpers usable both on the host and inside kernels."""
from __future__ import annotations

from typing import Iterator, Optional, Sequence

from asc.language.core.constexpr import ConstExpr
from asc.language.core.hints import RuntimeInt, RuntimeNumber

__all__ = ["ceildiv", "static_assert", "inline", "range", "static_range"]

_builtin_range = range


def ceildiv(x: RuntimeInt, y: RuntimeInt) -> RuntimeInt:
    """(x + y - 1) // y; plain Python on ints, traced arithmetic on traced scalars.

    Usable on the host and in kernels. On traced integers the division truncates toward zero,
    as traced `//` does (asc-api.md 1.4), so the result is the ceiling for positive operands."""
    x, y = ConstExpr.unwrap(x), ConstExpr.unwrap(y)
    return (x + y - 1) // y


def static_assert(test: bool, message: Optional[str] = None) -> None:
    """Fails the trace when the compile-time bool `test` is False.

    `asc.static_assert(test, message=None)`: raises AssertionError(message), or ValueError when
    no message is given (pyasc's "miss message"); a traced (runtime) `test` is a TypeError."""
    test = ConstExpr.unwrap(test)
    if not isinstance(test, bool):
        raise TypeError("static_assert() needs a compile-time bool")
    if not test:
        if message is None:
            raise ValueError("miss message")
        raise AssertionError(message)


def _strip_cpp_comments(code: str) -> str:
    out, i = [], 0
    while i < len(code):
        if code.startswith("//", i):
            end = code.find("\n", i)
            i = len(code) if end < 0 else end
        elif code.startswith("/*", i):
            end = code.find("*/", i + 2)
            i = len(code) if end < 0 else end + 2
        else:
            out.append(code[i])
            i += 1
    return "".join(out)


def inline(code: str, args: Optional[Sequence[RuntimeNumber]] = None,
           before_function: bool = False) -> None:
    """pyasc's inline Ascend C: accepted only when the code does nothing (blanks, comments, `;`).

    pyasc emits `code` verbatim into the generated Ascend C. aicore-sim runs kernel IR, not
    compiled C++, so only code that does nothing (blank, comments, empty statements) is accepted;
    any other code is refused at its line (docs/frontend.md, "What the frontend refuses"). args
    (numbers, traced scalars or GlobalAddresses) are checked; before_function is unused."""
    from asc.codegen.builder import require_builder
    from asc.language.core.ir_value import is_runtime_number
    from asc.language.core.tensor import GlobalAddress
    require_builder("inline")
    if not isinstance(code, str):
        raise TypeError(f"inline(): code must be a str, got {type(code).__name__}")
    for arg in args or ():
        value = ConstExpr.unwrap(arg)
        if not (is_runtime_number(value) or isinstance(value, GlobalAddress)):
            raise TypeError(f"inline(): args must be numbers, traced scalars or GlobalAddresses, "
                            f"got {type(arg).__name__}")
    if _strip_cpp_comments(code).replace(";", "").strip():
        raise RuntimeError("inline(): aicore-sim cannot run verbatim C++: it executes kernel IR, "
                           "not compiled Ascend C. Write the code with asc API calls instead "
                           "(code that only declares constants can be Python constants)")


class range:  # noqa: A001 - the name is API (asc.range)
    """`for i in asc.range(...)`: a runtime loop, exactly like the builtin `range` in a kernel.

    One to three bounds (start=0, step=1 by default), Python ints or traced scalars converted
    to int32; the loop variable is an int32 traced scalar (asc-api.md 1.3). On the host it
    iterates as the builtin."""

    def __init__(self, *bounds: RuntimeInt) -> None:
        if not 1 <= len(bounds) <= 3:
            raise TypeError(f"range expected 1 to 3 arguments, got {len(bounds)}")
        self.bounds = bounds

    def __iter__(self) -> Iterator[int]:
        # Host use (outside a kernel) behaves like the builtin.
        return iter(_builtin_range(*self.bounds))


class static_range:  # noqa: N801 - the name is API
    """`for i in asc.static_range(...)`: unrolled at trace time; `i` is a Python int.

    One to three bounds, which must be Python ints (or ConstExpr payloads) when the loop is
    entered; a traced bound is a TypeError naming the kernel parameter to annotate."""

    def __init__(self, *bounds: int) -> None:
        if not 1 <= len(bounds) <= 3:
            raise TypeError(f"static_range expected 1 to 3 arguments, got {len(bounds)}")
        self.bounds = tuple(ConstExpr.unwrap(b) for b in bounds)

    def __iter__(self) -> Iterator[int]:
        roles = _BOUND_NAMES[len(self.bounds)]
        for role, b in zip(roles, self.bounds):
            if not isinstance(b, int):
                raise _bound_error(role, b)
        return iter(_builtin_range(*self.bounds))


# The bounds of range(...) by argument count, as Python names them.
_BOUND_NAMES = {1: ("stop",), 2: ("start", "stop"), 3: ("start", "stop", "step")}


def _bound_error(role: str, bound) -> TypeError:
    from asc.language.core.constexpr import kernel_parameter_of
    from asc.language.core.ir_value import PlainValue
    if isinstance(bound, PlainValue):
        exc = TypeError(f"static_range bounds must be Python ints, but '{role}' is a runtime "
                        "value")
        param = kernel_parameter_of(bound)
        made = (f"annotate kernel parameter `{param}: asc.ConstExpr[int]`" if param is not None
                else "compute it from Python ints or ConstExpr parameters")
        exc.hint = (f"static_range unrolls at compile time: {made}, or use range(...) for a "
                    "runtime loop")
    else:
        exc = TypeError(f"static_range bounds must be Python ints, but '{role}' is a "
                        f"{type(bound).__name__}: {bound!r}")
        exc.hint = f"pass an int for '{role}'"
    return exc
