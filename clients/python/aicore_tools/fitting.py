"""What fitting timing figures needs, shared by aicore-calibrate and bench/calibration/fit.py:
the parameters (figures of the preset by their field path), config overrides that set them
(docs/timing-model.md "Config overrides"), and a bounded derivative-free minimiser."""
import math
from dataclasses import dataclass
from typing import Callable, Dict, List, Sequence, Tuple


@dataclass(frozen=True)
class Param:
    path: str          # the figure's field path in a platform description: "gm.latency_cycles"
    low: float         # bounds, as factors of the figure's starting value
    high: float
    integer: bool = False  # an integer field (cycles, bytes): trials are rounded


# The figures aicore-calibrate fits by default: those the public calibration set constrains
# (docs/timing-model.md 7d).
DEFAULT_PARAMS = (
    Param("gm.hbm_read_bytes_per_second", 0.5, 2.0),
    Param("gm.hbm_transfer_overhead_ns", 0.25, 4.0),
    Param("gm.hbm_write_bytes_per_second", 0.5, 2.0),
    Param("mte2.core_bytes_per_cycle", 0.5, 4.0),
    Param("mte2.fixed_cycles", 0.25, 4.0),
    Param("mte3.core_bytes_per_cycle", 0.5, 4.0),
    Param("cube_mte2.core_bytes_per_cycle", 0.5, 6.0),
    Param("cube_mte2.fixed_cycles", 0.25, 4.0),
)


def field_lines(text: str) -> List[Tuple[List[str], str, int]]:
    """(enclosing blocks, field, line index) of every `field: value` line of a config's text."""
    found: List[Tuple[List[str], str, int]] = []
    stack: List[str] = []
    for i, line in enumerate(text.splitlines()):
        body = line.split("#", 1)[0].strip()
        if body.endswith("{"):
            stack.append(body[:-1].strip())
        elif body == "}":
            stack.pop()
        elif ":" in body:
            found.append((list(stack), body.split(":", 1)[0].strip(), i))
    return found


def number_text(value: float, integer: bool) -> str:
    return str(int(round(value))) if integer else f"{value:.6g}"


def overrides_text(values: Dict[str, Tuple[float, bool]]) -> str:
    """Config overrides setting each path to its value: {"gm.latency_cycles": (400, True)}.
    Fields of one block go into one `name { ... }` (text format allows a block once)."""
    tree: dict = {}
    for path, (value, integer) in sorted(values.items()):
        *blocks, name = path.split(".")
        node = tree
        for b in blocks:
            node = node.setdefault(b, {})
        node[name] = number_text(value, integer)

    def render(node):
        return " ".join(f"{k} {{ {render(v)} }}" if isinstance(v, dict) else f"{k}: {v}"
                        for k, v in node.items())
    return render(tree)


def log_error(simulated: Sequence[float], measured: Sequence[float]) -> float:
    """Mean squared log ratio of simulated to measured: symmetric in too fast and too slow, and
    near MAPE's ranking of fits for errors of tens of percent."""
    logs = [math.log(s / m) for s, m in zip(simulated, measured)]
    return sum(v * v for v in logs) / len(logs)


def minimise(cost: Callable[[Dict[str, float]], float], params: Sequence[Param],
             defaults: Dict[str, float], start: Dict[str, float],
             max_evals: int) -> Dict[str, float]:
    """`start` with `params` moved to minimise `cost(values)`: SciPy's bounded Nelder-Mead in
    factors of `defaults` (derivative-free, since simulated times are step functions of the
    figures at cycle granularity), at most `max_evals` evaluations, each distinct trial costed
    once."""
    import numpy as np
    from scipy.optimize import minimize

    x0 = np.array([start[p.path] / defaults[p.path] for p in params])
    seen: Dict[tuple, float] = {}

    def trial(x):
        key = tuple(round(float(v), 6) for v in x)
        if key not in seen:
            values = dict(start)
            for p, factor in zip(params, key):
                values[p.path] = defaults[p.path] * factor
            seen[key] = cost(values)
        return seen[key]

    # A simplex of 10 % steps: large enough to see past cycle-granular plateaus.
    simplex = [x0] + [x0 * np.where(np.arange(len(params)) == i, 1.1, 1.0)
                      for i in range(len(params))]
    best = minimize(trial, x0, method="Nelder-Mead", bounds=[(p.low, p.high) for p in params],
                    options=dict(maxfev=max_evals, xatol=1e-3, fatol=1e-6,
                                 initial_simplex=np.array(simplex)))
    fitted = dict(start)
    for p, factor in zip(params, best.x):
        fitted[p.path] = defaults[p.path] * float(factor)
    return fitted
