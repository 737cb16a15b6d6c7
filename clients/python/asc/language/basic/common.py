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


def unsupported_dtype(api: str, dtype, allowed) -> TypeError:
    """`api`(): dtype X is not supported, with a hint naming the kernel's pointer arguments of
    that dtype when there are any: an unsupported dtype usually comes from the host array passed
    (a float64 numpy array), which the message then names with the conversion to make."""
    err = TypeError(f"{api}(): dtype {dtype} is not supported; allowed: {dtypes_text(allowed)}")
    from asc.codegen.builder import current_builder
    from asc._proto import kernel_pb2
    builder = current_builder()
    if builder is None:
        return err
    wire = getattr(dtype, "to_ir", lambda: None)()
    names = [p.name for p in builder.kernel.params
             if p.kind == kernel_pb2.Param.KIND_POINTER and wire is not None and p.dtype == wire]
    if names:
        args = ("argument " if len(names) == 1 else "arguments ") + \
            ", ".join(f"'{n}'" for n in names)
        example = f"{names[0]}.astype(np.float32)" if str(dtype) == "float64" else \
            f"{names[0]}.astype(<one of: {dtypes_text(allowed)}>)"
        # The visitor prints it as the block's `hint:` line (CodegenError.hint).
        err.hint = (f"{dtype} comes from the kernel's {args} (the host array's dtype); "
                    f"pass an array of a supported dtype, e.g. {example}")
    return err


def check_same_dtype(api: str, allowed, **tensors) -> None:
    """The named tensors share one dtype, and `allowed` has it."""
    dtypes = {name: t.dtype for name, t in tensors.items()}
    first = next(iter(dtypes.values()))
    if any(d != first for d in dtypes.values()):
        listing = ", ".join(f"{n}={d}" for n, d in dtypes.items())
        raise TypeError(f"{api}(): all operands must have the same dtype, got {listing}")
    if first not in allowed:
        raise unsupported_dtype(api, first, allowed)
