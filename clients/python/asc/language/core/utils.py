"""Compile-time helpers usable both on the host and inside kernels."""
from asc.language.core.constexpr import ConstExpr

__all__ = ["ceildiv", "static_assert", "range", "static_range"]

_builtin_range = range


def ceildiv(x, y):
    """(x + y - 1) // y; plain Python on ints, traced arithmetic on traced scalars."""
    x, y = ConstExpr.unwrap(x), ConstExpr.unwrap(y)
    return (x + y - 1) // y


def static_assert(test, message=None):
    test = ConstExpr.unwrap(test)
    if not isinstance(test, bool):
        raise TypeError("static_assert() needs a compile-time bool")
    if not test:
        if message is None:
            raise ValueError("miss message")
        raise AssertionError(message)


class range:  # noqa: A001 - the name is API (asc.range)
    """`for i in asc.range(...)`: a runtime loop, exactly like the builtin `range` in a kernel."""

    def __init__(self, *bounds):
        if not 1 <= len(bounds) <= 3:
            raise TypeError(f"range expected 1 to 3 arguments, got {len(bounds)}")
        self.bounds = bounds

    def __iter__(self):
        # Host use (outside a kernel) behaves like the builtin.
        return iter(_builtin_range(*self.bounds))


class static_range:  # noqa: N801 - the name is API
    """`for i in asc.static_range(...)`: unrolled at trace time; `i` is a Python int."""

    def __init__(self, *bounds):
        if not 1 <= len(bounds) <= 3:
            raise TypeError(f"static_range expected 1 to 3 arguments, got {len(bounds)}")
        self.bounds = tuple(ConstExpr.unwrap(b) for b in bounds)

    def __iter__(self):
        for b in self.bounds:
            if not isinstance(b, int):
                raise TypeError("static_range bounds must be Python ints, got "
                                f"{type(b).__name__}")
        return iter(_builtin_range(*self.bounds))
