"""Which pointer arguments a kernel can write: the GM tensors its IR stores to (data copies,
vector and cube ops, fixpipe, scalar set_value with a GM destination), traced back through the
scalar data flow to the kernel parameters their addresses derive from. The launcher uses it to
refuse a read-only output array before the launch and to leave read-only inputs alone.

The analysis is conservative in one direction only: a parameter it names may be written (an
address that merely depends on it); when an address comes from memory (a pointer read out of a
struct) it cannot tell, and says so (`complete` False), and the launcher then checks nothing."""

from typing import Dict, FrozenSet, Set, Tuple

from asc._proto import kernel_pb2

_UNKNOWN = "\0unknown"  # a value read from memory: it may be any address
_RESULT_FIELDS = ("result", "result2", "results")


def _operand_ids(message, skip=_RESULT_FIELDS):
    """The SSA ids a scalar-producing op reads: its integer fields other than its results."""
    for field, value in message.ListFields():
        if field.name in skip or field.type != field.TYPE_UINT32:
            continue
        if field.label == field.LABEL_REPEATED:
            yield from value
        else:
            yield value


def written_params(kernel: kernel_pb2.Kernel) -> Tuple[Set[str], bool]:
    """(names of the pointer parameters the kernel may write, whether the analysis is complete)."""
    deps: Dict[int, FrozenSet[str]] = {}
    for p in kernel.params:
        if p.kind == kernel_pb2.Param.KIND_POINTER:
            deps[p.value] = frozenset([p.name])
    written: Set[str] = set()

    def of(ids) -> FrozenSet[str]:
        out: Set[str] = set()
        for i in ids:
            out |= deps.get(i, frozenset())
        return frozenset(out)

    def define(ids, value: FrozenSet[str]) -> bool:
        changed = False
        for i in ids:
            merged = deps.get(i, frozenset()) | value
            if merged != deps.get(i):
                deps[i] = merged
                changed = True
        return changed

    def walk(region) -> bool:
        changed = False
        for op in region.ops:
            kind = op.WhichOneof("kind")
            m = getattr(op, kind)
            if kind == "for_op":
                changed |= define([m.induction], of([m.lower, m.upper, m.step]))
                changed |= define(m.iter_args, of(m.init) | of(m.yields))
                changed |= walk(m.body)
                changed |= define(m.iter_args, of(m.yields))
                changed |= define(m.results, of(m.iter_args))
                continue
            if kind == "while_op":
                changed |= define(m.iter_args, of(m.init) | of(m.yields))
                changed |= walk(m.body)
                changed |= define(m.results, of(m.yields) | of(m.init))
                continue
            if kind == "if_op":
                changed |= walk(m.then_region)
                changed |= walk(m.else_region)
                changed |= define(m.results, of(m.then_yields) | of(m.else_yields))
                continue
            for field, value in m.ListFields():
                if field.message_type is not None and field.message_type.name == "TensorRef" \
                        and field.name.startswith("dst") and value.space == kernel_pb2.MEM_GM:
                    written.update(deps.get(value.addr, frozenset()))
            results = [v for f, v in m.ListFields() if f.name in ("result", "result2")]
            if results:
                source = frozenset([_UNKNOWN]) if kind == "scalar_load" and \
                    m.src.space == kernel_pb2.MEM_GM else of(_operand_ids(m))
                changed |= define(results, source)
        return changed

    # Loop-carried values settle in a few passes; bounded for safety.
    for _ in range(8):
        if not walk(kernel.body):
            break
    complete = _UNKNOWN not in written
    return {w for w in written if w != _UNKNOWN}, complete
