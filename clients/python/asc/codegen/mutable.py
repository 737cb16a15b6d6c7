"""Trace-time objects whose traced fields change in place (a Matmul's operands, shapes and tails).

On the chip such an object is a C++ object whose members the scalar unit updates, so a setter
called inside a runtime `if` or loop takes effect only on the paths that ran it. The tracer
reproduces that in SSA: every runtime if yields the fields its branches changed, and every
runtime loop carries the fields of the objects alive before it (function_visitor.py). A field
keeps its dtype for life; its value is a Python number or a traced scalar of that dtype.
"""
from typing import Dict, List, Tuple

from asc.codegen.builder import require_builder

Snapshot = Dict[str, object]


class TracedState:
    """Base of objects with mutable traced fields; declare every field in __init__ with
    `_declare(name, dtype, initial)` before the first runtime region."""

    def __init__(self, api: str, kernel_wide: bool = False):
        builder = require_builder(api)
        self._state_dtypes: Dict[str, object] = {}  # name -> DataType
        self._state: Snapshot = {}
        # The regions open at creation: the object (and its SSA values) is alive while they are.
        # A kernel-wide object (its initial values constants) lives in every region.
        regions = builder._regions[:1] if kernel_wide else builder._regions
        self._regions = tuple(id(r) for r in regions)
        builder.state.setdefault("mutables", []).append(self)

    def _declare(self, name: str, dtype, initial) -> None:
        self._state_dtypes[name] = dtype
        self._state[name] = initial

    def _get(self, name: str):
        return self._state[name]

    def _put(self, name: str, value) -> None:
        from asc.language.core.ir_value import PlainValue, to_value
        if name not in self._state_dtypes:
            raise KeyError(f"internal: {type(self).__name__} has no state field {name!r}")
        if isinstance(value, PlainValue) and value.dtype != self._state_dtypes[name]:
            value = to_value(value, self._state_dtypes[name])
        self._state[name] = value

    # ---- the tracer's side ----------------------------------------------------------------------

    def _ir_snapshot(self) -> Snapshot:
        return dict(self._state)

    def _ir_restore(self, snapshot: Snapshot) -> None:
        self._state = dict(snapshot)

    def _ir_changed(self, a: Snapshot, b: Snapshot) -> List[str]:
        """Fields whose values differ between two snapshots."""
        from asc.language.core.ir_value import PlainValue
        out = []
        for name in self._state_dtypes:
            x, y = a[name], b[name]
            same = x is y or (not isinstance(x, PlainValue) and not isinstance(y, PlainValue)
                              and type(x) is type(y) and x == y)
            if not same:
                out.append(name)
        return out

    def _ir_dtype(self, name: str):
        return self._state_dtypes[name]


def live_objects() -> List[TracedState]:
    """The objects created in the regions open now (those of closed regions are out of
    scope)."""
    builder = require_builder("runtime region")
    open_regions = tuple(id(r) for r in builder._regions)
    return [obj for obj in builder.state.get("mutables", ())
            if open_regions[:len(obj._regions)] == obj._regions]


def carried_fields(objects) -> List[Tuple[TracedState, str]]:
    """Every (object, field) a runtime loop carries."""
    return [(obj, name) for obj in objects for name in obj._state_dtypes]
