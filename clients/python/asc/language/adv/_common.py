"""What the adv library's element-wise ops share at trace time: compile-time ints, the element
count, and the temp buffer (the user's uint8 tensor or the framework's scratch: docs/adv.md),
and the docstrings of the element-wise ops (`documented`)."""
import inspect
import numbers
from typing import Callable

from asc.codegen.builder import require_builder

from asc.language.basic.common import check_ub, require_local_tensors
from asc.language.core.constexpr import ConstExpr
from asc.language.core.doc_text import fill
from asc.language.core.dtype import KnownTypes as KT
from asc.language.core.enums import TPosition
from asc.language.core.ir_value import is_runtime_int
from asc.language.core.tensor import LocalTensor

# The library's ONE_BLK_SIZE: 32, used by its ops both as bytes and as an element count.
ONE_BLK_SIZE = 32


def static_int(value):
    """`value` as a Python int when it is one at trace time, else None."""
    value = ConstExpr.unwrap(value)
    return value if isinstance(value, numbers.Integral) and not isinstance(value, bool) else None


def element_count(api, count, *tensors):
    """The call's count (all of the first tensor when None), checked against each (name, tensor)
    whose size is known."""
    count = ConstExpr.unwrap(count)
    first = tensors[0][1]
    if count is None:
        count = first._size if static_int(first._size) is not None else first.get_size()
    elif not is_runtime_int(count):
        raise TypeError(f"{api}(): count must be an int, got {type(count).__name__}")
    for name, t in tensors:
        if static_int(count) is not None and static_int(t._size) is not None and count > t._size:
            raise ValueError(f"{api}(): count is {count}, more than {name}'s {t._size} elements")
    return count


def scratch(api, needed):
    """The UB above the TPipe's buffers as a uint8 tensor (Ascend C's PopStackBuffer): (tensor,
    its bytes). The launch faults at the call when fewer than `needed` bytes are left."""
    from asc._proto import kernel_pb2
    from asc.language.fwk.state import emit_framework
    addr, nbytes = emit_framework(api, kernel_pb2.FrameworkOp.STACK_BUFFER,
                                  operands=[(needed, KT.uint32)], results=(KT.uint32, KT.uint32))
    return LocalTensor._from_buffer(KT.uint8, TPosition.VECCALC, addr, nbytes), nbytes


def temp_buffer_of(api, temp_buffer, needed, what, check_user=True):
    """(tensor, bytes) of the op's temp: the user's uint8 UB tensor, checked to hold `needed`
    bytes when its size is known and the library checks it (`check_user`; `what` says why), or
    the framework's scratch."""
    if temp_buffer is None:
        return scratch(api, needed)
    require_local_tensors(api, temp_buffer=temp_buffer)
    check_ub(api, temp_buffer=temp_buffer)
    if temp_buffer.dtype != KT.uint8:
        raise TypeError(f"{api}(): temp_buffer must be uint8, got {temp_buffer.dtype}")
    nbytes = temp_buffer._size if static_int(temp_buffer._size) is not None \
        else temp_buffer.get_size()
    if check_user and static_int(nbytes) is not None and nbytes < needed:
        raise ValueError(f"{api}(): the temp buffer holds {nbytes} bytes; {api} needs at least "
                         f"{needed} ({what})")
    return temp_buffer, nbytes


def float_op_count(api, dst, src, count, is_reuse_source):
    """The checked count of a float16/float32 element-wise op: local UB tensors of one float
    type, a compile-time is_reuse_source."""
    require_builder(api)
    require_local_tensors(api, dst=dst, src=src)
    check_ub(api, dst=dst, src=src)
    if src.dtype not in (KT.float16, KT.float32) or dst.dtype != src.dtype:
        raise TypeError(f"{api}(): dst and src must both be float16 or both float32, got "
                        f"{dst.dtype} and {src.dtype}")
    if not isinstance(ConstExpr.unwrap(is_reuse_source), bool):
        raise TypeError(f"{api}(): is_reuse_source must be a compile-time bool (True or False)")
    return element_count(api, count, ("src", src), ("dst", dst))


def float_chunks(api, temp_buffer, steps, what):
    """(float temp, chunk) of a temp holding `steps` chunks of floats, each a multiple of 32
    (the library's split for tanh and the math list)."""
    temp_buffer, tmp_bytes = temp_buffer_of(api, temp_buffer, steps * ONE_BLK_SIZE * 4, what)
    split = tmp_bytes // 4 // steps // ONE_BLK_SIZE * ONE_BLK_SIZE
    return temp_buffer.reinterpret_cast(KT.float32), split


def float_op_args(api, dst, src, count, temp_buffer, is_reuse_source, steps):
    """(count, float temp, chunk) of a float element-wise op whose temp holds `steps` chunks."""
    count = float_op_count(api, dst, src, count, is_reuse_source)
    tmp, split = float_chunks(api, temp_buffer, steps,
                              f"{steps} chunk(s) of {ONE_BLK_SIZE} floats for {src.dtype}")
    return count, tmp, split


# What the parameters of an element-wise op are (the ops taking dst, src, count, temp_buffer and
# is_reuse_source).
ELEMENTWISE = ("dst and src are UB LocalTensors, both float16 or both float32; count is the "
               "number of elements (all of src when None); temp_buffer is a uint8 UB tensor for "
               "the intermediates (when None, the framework's scratch: the UB above the TPipe's "
               "buffers); is_reuse_source is a compile-time bool, without effect unless said.")

# How an op computed in float rounds: each instruction as docs/isa.md says, a float16 source
# widened exactly and the result narrowed once.
IN_FLOAT = ("Computed in float32 by the library's sequence of vector instructions, each rounding "
            "its result to float32 nearest-even (exp and ln: the host libm's, docs/isa.md); a "
            "float16 source is widened to float32 exactly and the result rounded once to "
            "float16 ")


def documented(summary: str, *paragraphs: str, numerics: str = "",
               args: str = ELEMENTWISE) -> Callable:
    """Gives an adv op its docstring: the one-line summary, the call form (its signature), what
    its arguments are (`args`), the op's own paragraphs, the library sequence it is (docs/adv.md)
    and, for an op that computes values, a 'Numerics:' paragraph."""
    def apply(fn):
        plain = [p.replace(annotation=inspect.Parameter.empty)
                 for p in inspect.signature(fn).parameters.values()]
        form = f"asc.adv.{fn.__name__}{inspect.Signature(plain)}"
        text = [f"{form} (asc-api.md 6.7, 10.5): {args}" if args else form]
        text += list(paragraphs)
        text.append(f"Emitted as CANN 8.1's library sequence for the A2 vector core, with its temp "
                    f"areas, mask settings and PIPE_V barriers (docs/adv.md, \"{fn.__name__}\").")
        if numerics:
            text.append("Numerics: " + numerics)
        fn.__doc__ = "\n\n".join([summary] + [fill(t, 92)
                                              for t in text])
        return fn
    return apply
