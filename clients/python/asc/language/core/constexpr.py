"""`asc.ConstExpr`: marks compile-time kernel parameters and wraps compile-time values."""
from typing import Any


class _ConstExprMeta(type):
    def __getitem__(cls, item):
        # `ConstExpr[int]` / `ConstExpr[int, float]`: remember the accepted types so the JIT can
        # check the argument; typing.get_origin() of the result is ConstExpr.
        types = item if isinstance(item, tuple) else (item,)
        return _ConstExprAlias(types)


class ConstExpr(metaclass=_ConstExprMeta):
    """A compile-time value: substituted as a plain Python object while tracing."""

    def __init__(self, value: Any):
        self.value = value.value if isinstance(value, ConstExpr) else value

    def __repr__(self):
        return f"ConstExpr({self.value!r})"

    def __eq__(self, other):
        return ConstExpr.unwrap(other) == self.value

    def __hash__(self):
        return hash(self.value)

    @staticmethod
    def unwrap(x: Any) -> Any:
        return x.value if isinstance(x, ConstExpr) else x


class _ConstExprAlias:
    """`ConstExpr[T...]`; behaves like a typing generic alias for `typing.get_origin`."""

    def __init__(self, types):
        self.__origin__ = ConstExpr
        self.__args__ = tuple(types)

    def __repr__(self):
        names = ", ".join(getattr(t, "__name__", repr(t)) for t in self.__args__)
        return f"ConstExpr[{names}]"

    def __eq__(self, other):
        return isinstance(other, _ConstExprAlias) and other.__args__ == self.__args__

    def __hash__(self):
        return hash(self.__args__)


def is_constexpr_annotation(annotation: Any) -> bool:
    return annotation is ConstExpr or isinstance(annotation, _ConstExprAlias) or \
        getattr(annotation, "__origin__", None) is ConstExpr


def constexpr_types(annotation: Any):
    """The accepted types of a ConstExpr annotation (empty tuple: anything)."""
    if isinstance(annotation, _ConstExprAlias):
        return annotation.__args__
    return ()


def kernel_parameter_of(value: Any):
    """The name of the runtime kernel parameter `value` is (unchanged), or None: hints name the
    parameter to annotate. The kernel's visitor records them in builder.state."""
    from asc.codegen.builder import current_builder
    from asc.language.core.ir_value import PlainValue
    builder = current_builder()
    if builder is None or not isinstance(value, PlainValue):
        return None
    return builder.state.get("kernel_params", {}).get(value.id)


def required_error(name: str, value: Any, types=(int,)) -> RuntimeError:
    """pyasc's error for a non-compile-time value where it needs a ConstExpr, with a hint naming
    the kernel parameter to annotate. A traced value's internal repr is left out."""
    from asc.language.core.ir_value import PlainValue
    names = ", ".join(getattr(t, "__name__", repr(t)) for t in types)
    payload = ConstExpr.unwrap(value)
    text = (f"ConstExpr[{names}] is required for '{name}' argument, "
            f"{type(payload).__name__} was provided")
    if isinstance(payload, PlainValue):
        param = kernel_parameter_of(payload)
        if param is not None:
            hint = (f"'{name}' must be a compile-time value: annotate kernel parameter "
                    f"`{param}: asc.ConstExpr[{names}]`")
        else:
            hint = (f"'{name}' must be a compile-time value: compute it from Python values or "
                    f"parameters annotated `asc.ConstExpr[{names}]`")
    else:
        text += f": {payload!r}"
        hint = (f"pass a Python {names} for '{name}' (or a kernel parameter annotated "
                f"`asc.ConstExpr[{names}]`)")
    exc = RuntimeError(text)
    exc.hint = hint
    # Shown under the message when raised outside a kernel (a CodegenError shows it itself).
    exc.add_note(f"hint: {hint}")
    return exc
