"""Argument checks shared by the basic API modules."""
from asc.language.core.enums import TPosition
from asc.language.core.ir_value import is_runtime_int
from asc.language.core.tensor import GlobalTensor, LocalTensor

UB_POSITIONS = (TPosition.VECIN, TPosition.VECOUT, TPosition.VECCALC)


def runtime_int(x) -> bool:
    return is_runtime_int(x)


runtime_int.__name__ = "RuntimeInt"


def is_bool(x) -> bool:
    return isinstance(x, bool)


is_bool.__name__ = "bool"


def local_tensor(x) -> bool:
    return isinstance(x, LocalTensor)


local_tensor.__name__ = "LocalTensor"


def any_tensor(x) -> bool:
    return isinstance(x, (LocalTensor, GlobalTensor))


any_tensor.__name__ = "LocalTensor | GlobalTensor"


def check_ub(api: str, **tensors) -> None:
    for name, t in tensors.items():
        if t.pos not in UB_POSITIONS:
            raise TypeError(f"{api}(): '{name}' must be a UB tensor (VECIN/VECOUT/VECCALC), "
                            f"got position {t.pos.name}")


def dtypes_text(dtypes) -> str:
    return ", ".join(d.name for d in dtypes)


def require_local_tensors(api: str, **tensors) -> None:
    """Each named argument is a LocalTensor."""
    for name, t in tensors.items():
        if not local_tensor(t):
            raise TypeError(f"{api}(): '{name}' must be a LocalTensor, got {type(t).__name__}")


def check_same_dtype(api: str, allowed, **tensors) -> None:
    """The named tensors share one dtype, and `allowed` has it."""
    dtypes = {name: t.dtype for name, t in tensors.items()}
    first = next(iter(dtypes.values()))
    if any(d != first for d in dtypes.values()):
        listing = ", ".join(f"{n}={d}" for n, d in dtypes.items())
        raise TypeError(f"{api}(): all operands must have the same dtype, got {listing}")
    if first not in allowed:
        raise TypeError(f"{api}(): dtype {first} is not supported; allowed: "
                        f"{dtypes_text(allowed)}")
