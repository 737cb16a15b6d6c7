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
