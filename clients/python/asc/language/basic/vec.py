"""Vector instructions on UB tensors, count form (asc-api.md 4.5-4.7): binary, unary and
scalar-vector element-wise ops, all issued to PIPE_V.

The op list, the IR kind of each op and the element types it accepts come from the simulator's
instruction table (asc/_isa.py, generated from sim/isa/instructions.def at build time): one API
function per row, so adding an instruction there adds it here.
"""
from asc import _isa
from asc.codegen.builder import require_builder
from asc.language.core.dispatch import Overload, Param, dispatch
from asc.language.core.dtype import KnownTypes as KT
from asc.language.core.ir_value import is_runtime_number, to_value
from asc.language.core.tensor import tensor_ref
from asc.language.basic.common import check_ub, dtypes_text, is_bool, local_tensor, runtime_int


def _number(x) -> bool:
    return is_runtime_number(x)


_number.__name__ = "RuntimeNumber"


def _check_dtypes(api, allowed, **tensors):
    dtypes = {name: t.dtype for name, t in tensors.items()}
    first = next(iter(dtypes.values()))
    if any(d != first for d in dtypes.values()):
        listing = ", ".join(f"{n}={d}" for n, d in dtypes.items())
        raise TypeError(f"{api}(): all operands must have the same dtype, got {listing}")
    if first not in allowed:
        raise TypeError(f"{api}(): dtype {first} is not supported; allowed: "
                        f"{dtypes_text(allowed)}")


def _binary(api, ir_op, kind, allowed):
    def op(dst, src0, src1, *args, **kwargs):
        require_builder(api)

        def count_form(count, is_set_mask=True):
            check_ub(api, dst=dst, src0=src0, src1=src1)
            _check_dtypes(api, allowed, dst=dst, src0=src0, src1=src1)
            refs = [tensor_ref(t) for t in (dst, src0, src1)]
            count_id = to_value(count, KT.int32).id
            ir = require_builder(api).emit(ir_op)
            ir.kind = kind
            ir.dst.CopyFrom(refs[0])
            ir.src0.CopyFrom(refs[1])
            ir.src1.CopyFrom(refs[2])
            ir.count = count_id

        _require_tensors(api, dst=dst, src0=src0, src1=src1)
        dispatch(api, [Overload([Param("count", runtime_int),
                                 Param("is_set_mask", is_bool, True)], count_form)],
                 args, kwargs)
    op.__name__ = op.__qualname__ = api
    op.__doc__ = f"{api}(dst, src0, src1, count): element-wise {api} of the first count elements."
    return op


def _unary(api, ir_op, kind, allowed):
    def op(dst, src, *args, **kwargs):
        require_builder(api)

        def count_form(count):
            check_ub(api, dst=dst, src=src)
            _check_dtypes(api, allowed, dst=dst, src=src)
            refs = [tensor_ref(t) for t in (dst, src)]
            count_id = to_value(count, KT.int32).id
            ir = require_builder(api).emit(ir_op)
            ir.kind = kind
            ir.dst.CopyFrom(refs[0])
            ir.src.CopyFrom(refs[1])
            ir.count = count_id

        _require_tensors(api, dst=dst, src=src)
        dispatch(api, [Overload([Param("count", runtime_int)], count_form)], args, kwargs)
    op.__name__ = op.__qualname__ = api
    op.__doc__ = f"{api}(dst, src, count): element-wise {api} of the first count elements."
    return op


def _scalar(api, ir_op, kind, allowed):
    def op(dst, src, scalar, *args, **kwargs):
        require_builder(api)

        def count_form(count, is_set_mask=True):
            check_ub(api, dst=dst, src=src)
            _check_dtypes(api, allowed, dst=dst, src=src)
            if not _number(scalar):
                raise TypeError(f"{api}(): scalar must be a number or a traced scalar, "
                                f"got {type(scalar).__name__}")
            refs = [tensor_ref(t) for t in (dst, src)]
            # asc-api.md 4.7: the scalar is converted to the tensor dtype first.
            scalar_id = to_value(scalar, src.dtype).id
            count_id = to_value(count, KT.int32).id
            ir = require_builder(api).emit(ir_op)
            ir.kind = kind
            ir.dst.CopyFrom(refs[0])
            ir.src.CopyFrom(refs[1])
            ir.scalar = scalar_id
            ir.count = count_id

        _require_tensors(api, dst=dst, src=src)
        dispatch(api, [Overload([Param("count", runtime_int),
                                 Param("is_set_mask", is_bool, True)], count_form)],
                 args, kwargs)
    op.__name__ = op.__qualname__ = api
    op.__doc__ = f"{api}(dst, src, scalar, count): element-wise {api} with a scalar."
    return op


def _require_tensors(api, **tensors):
    for name, t in tensors.items():
        if not local_tensor(t):
            raise TypeError(f"{api}(): '{name}' must be a LocalTensor, got {type(t).__name__}")


_MAKERS = {"binary": _binary, "unary": _unary, "scalar": _scalar}

__all__ = []
for _api, _ir_op, _kind, _layout, _dtypes, _forms in _isa.VECTOR_OPS:
    globals()[_api] = _MAKERS[_layout](_api, _ir_op, _kind,
                                        tuple(getattr(KT, d) for d in _dtypes))
    __all__.append(_api)
