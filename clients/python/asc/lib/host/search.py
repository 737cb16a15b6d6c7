"""The tiling search behind `get_tiling`: pure functions from a problem (shape, element sizes,
buffer budgets, the caller's fixed values) to block grid, per-block and base sizes.

Two stages, each a scan of a small candidate set ranked by a tuple (docs/host_tiling.md has the
rules and why):
1. grid: per-block sizes single_m/n/k and the grid m_dim x n_dim (x k_dim with split-K) they give;
   most blocks (never more than `dim`), then no partial blocks, then sizes that are multiples of
   large base blocks, then the least data per block.
2. base: base_m/n/k inside one block; no partial base blocks (unless that needs more than twice
   the fewest mmads), then the fewest mmads (base blocks x K steps), the largest and squarest
   base block; every budget of `fits` holds.
3. L1 steps: stepKa / stepKb (base_k slices per GM -> L1 copy) and depthA1 / depthB1 (one or two
   such slots), ranked as the simulator's Matmul runs them: double-buffered slots for every
   operand copied more than once, then the fewest GM -> L1 copies (K whole in one chunk of each
   operand keeps the operand whose block index holds in L1), then the least L1.
4. probe (when get_tiling is given a probe, docs/host_tiling.md): for a block of at most
   PROBE_MMADS mmads, the best PROBE_BASES base blocks of stage 2 and the best one whose steps
   hold K whole, each with its stage-3 steps, are simulated on one block; the fastest wins,
   and within PROBE_TIE of it one holding K whole (MDL's residency and MTE2 preload need it).
"""
from __future__ import annotations

from dataclasses import dataclass
from math import gcd
from typing import Callable, List, Optional, Sequence, Tuple

__all__ = ["Problem", "Budget", "Result", "TilingError", "Probe", "solve", "fits", "l1_steps",
           "c0", "k_align", "k_min_align", "round_up", "ceil_div"]

M_ALIGN = 16  # rows of a fractal: base_m and the L0 row padding
ACC_BYTES = 4  # L0C accumulates f32 (f16/bf16/f32 inputs) or int32 (int8/int4 inputs)
DB_L0 = 2  # L0A and L0B are double buffered (db_l0a = db_l0b = 2); L0C is not (db_l0c = 1)
UB_SHARE = 4  # a search-chosen base block destined for UB takes at most 1/4 of the UB budget
GRANULE = 256  # per-block sizes are also tried as multiples of 32, 64, ... up to this
SPREAD = 2  # no partial base blocks is preferred while it costs at most 2x the fewest mmads
PROBE_BASES = 3  # stage 4 simulates the best few base blocks of stage 2 ...
PROBE_MMADS = 1024  # ... of a block of at most this many mmads (larger ones: rules alone)
PROBE_SPREAD = 4  # ... and a K-whole candidate of at most 4x the first one's mmads
PROBE_TIE = 0.02  # within 2% of the fastest, a candidate holding K whole in L1 is preferred


class TilingError(Exception):
    """No tiling satisfies the constraints (get_tiling returns -1); the message says why."""


def ceil_div(a: int, b: int) -> int:
    return -(-a // b)


def round_up(a: int, b: int) -> int:
    return ceil_div(a, b) * b


def mmads_of(sm: int, sn: int, sk: int, bm: int, bn: int, bk: int) -> int:
    """Mmads of one sm x sn x sk block in bm x bn x bk base blocks: base blocks x K slices."""
    return ceil_div(sm, bm) * ceil_div(sn, bn) * ceil_div(sk, bk)


def _lcm(a: int, b: int) -> int:
    return a * b // gcd(a, b)


def c0(bits: int) -> int:
    """Elements in one 32-byte block: 16 for f16, 8 for f32, 32 for int8, 64 for int4."""
    return 256 // bits


def k_align(a_bits: int, b_bits: int) -> int:
    """Step of a search-chosen base_k (and of a split K): 16 for 16/32-bit inputs, else C0."""
    return max(M_ALIGN, c0(a_bits), c0(b_bits))


def k_min_align(a_bits: int, b_bits: int) -> int:
    """What a fixed base_k must be a multiple of: the C0 of both inputs (8 for f32)."""
    return max(c0(a_bits), c0(b_bits))


@dataclass(frozen=True)
class Budget:
    """Bytes each buffer may use (set_buffer_space applied)."""
    l1: int
    l0a: int
    l0b: int
    l0c: int
    ub: int
    bt: int


@dataclass(frozen=True)
class Problem:
    m: int
    n: int
    k: int
    a_bits: int
    b_bits: int
    c_bytes: int
    c_in_ub: bool = False
    bias: bool = False
    multi_core: bool = True  # False: one block covering the whole shape
    n_first: bool = False  # the iteration order (set_traverse FIRSTN): N-blocks inner
    dim: int = 1
    split_k: bool = False
    fixed_base: Tuple[int, int, int] = (-1, -1, -1)
    fixed_single: Tuple[int, int, int] = (-1, -1, -1)
    single_range: Tuple[int, int, int, int, int, int] = (-1,) * 6  # max m n k, min m n k
    align_split: Tuple[int, int, int] = (-1, -1, -1)
    base_range: Tuple[int, int, int, int, int, int] = (-1,) * 6  # max m n k, min m n k
    multi_load: bool = True  # the kernel's template copies a chunk at once (MDL), else a slice


@dataclass(frozen=True)
class Result:
    single_m: int
    single_n: int
    single_k: int
    m_dim: int
    n_dim: int
    k_dim: int
    base_m: int
    base_n: int
    base_k: int
    depth_a1: int
    depth_b1: int
    step_ka: int = 1
    step_kb: int = 1

    @property
    def used_core_num(self) -> int:
        return self.m_dim * self.n_dim * self.k_dim

    @property
    def mmads(self) -> int:
        """Mmads of one block: base blocks x K slices."""
        return mmads_of(self.single_m, self.single_n, self.single_k, self.base_m, self.base_n,
                        self.base_k)

    @property
    def k_whole(self) -> bool:
        """Both operands' L1 chunks hold the block's whole K (operand residency, preload)."""
        k_iter = ceil_div(self.single_k, self.base_k)
        return self.step_ka >= k_iter and self.step_kb >= k_iter


# Simulated cycles of one block of a candidate tiling (stage 4), None when it cannot say.
Probe = Callable[[Result], Optional[float]]


# ---- budgets --------------------------------------------------------------------------------

def fits(p: Problem, budget: Budget, bm: int, bn: int, bk: int,
         ub_limit: Optional[int] = None) -> Optional[Tuple[int, int]]:
    """(depth_a1, depth_b1) when base block bm x bn x bk fits every buffer, else None.

    Rows pad to 16 and K to `k_align` in L0/L1 (the fractal shapes, whichever operand is
    transposed): L0A 2*bm*bk*sizeof(A), L0B 2*bn*bk*sizeof(B), L0C bm*bn*4, the bias table
    bn*4, UB (C in UB) bm*bn*sizeof(C), L1 depth*(A tile) + depth*(B tile) + bias row with
    depth 2 when that fits, else 1.
    """
    pm, pn = round_up(bm, M_ALIGN), round_up(bn, M_ALIGN)
    pk = round_up(bk, k_align(p.a_bits, p.b_bits))
    a_tile = pm * pk * p.a_bits // 8
    b_tile = pn * pk * p.b_bits // 8
    if DB_L0 * a_tile > budget.l0a or DB_L0 * b_tile > budget.l0b:
        return None
    if pm * pn * ACC_BYTES > budget.l0c:
        return None
    bias_row = pn * ACC_BYTES if p.bias else 0
    if bias_row > budget.bt:
        return None
    if p.c_in_ub and bm * bn * p.c_bytes > (budget.ub if ub_limit is None else ub_limit):
        return None
    for depth in (2, 1):
        if depth * (a_tile + b_tile) + bias_row <= budget.l1:
            return depth, depth
    return None


# ---- stage 1: the grid ----------------------------------------------------------------------

def _in_range(value: int, full: int, hi: int, lo: int) -> bool:
    """`value` within [lo, hi] (-1 = no bound); the lower bound is waived for a block that
    covers all of `full` (it cannot be larger)."""
    return (hi <= 0 or value <= hi) and (lo <= 0 or value >= lo or value >= full)


def _singles(full: int, align: int, parts: int, fixed: int) -> List[int]:
    """Per-block sizes for splitting `full` into 1..parts blocks (the last block takes the
    rest): each part rounded up to `align` and to each coarser granule up to GRANULE, so a
    block can be a multiple of a large base block."""
    if fixed > 0:
        return [fixed]
    granules = [align]
    while granules[-1] * 2 <= GRANULE:
        granules.append(granules[-1] * 2)
    out = []
    for d in range(1, min(parts, ceil_div(full, align)) + 1):
        for g in granules:
            s = min(round_up(ceil_div(full, d), g), full)
            if s not in out:
                out.append(s)
    return out


def _granule(size: int, full: int) -> int:
    """The largest of 16, 32, ... GRANULE dividing a per-block size (GRANULE for a block
    covering the whole axis: any base size up to it fits)."""
    if size >= full:
        return GRANULE
    g, candidate = 0, M_ALIGN
    while candidate <= GRANULE and size % candidate == 0:
        g, candidate = candidate, candidate * 2
    return g


def _grid_candidates(p: Problem) -> List[Tuple[int, int, int]]:
    """(single_m, single_n, single_k) candidates, best first."""
    if not p.multi_core:
        return [(p.m, p.n, p.k)]
    fbm, fbn, fbk = p.fixed_base
    am, an, ak = (a if a > 0 else 1 for a in p.align_split)
    am = _lcm(am, fbm if fbm > 0 else M_ALIGN)
    an = _lcm(an, fbn if fbn > 0 else max(M_ALIGN, c0(p.b_bits)))
    ak = _lcm(ak, fbk if fbk > 0 else k_align(p.a_bits, p.b_bits))
    fsm, fsn, fsk = p.fixed_single
    sms = _singles(p.m, am, p.dim, fsm)
    sns = _singles(p.n, an, p.dim, fsn)
    sks = _singles(p.k, ak, p.dim, fsk) if p.split_k or fsk > 0 else [p.k]
    max_m, max_n, max_k, min_m, min_n, min_k = p.single_range
    ranked = []
    for sm in sms:
        md = ceil_div(p.m, sm)
        for sn in sns:
            nd = ceil_div(p.n, sn)
            if md * nd > p.dim:
                continue
            for sk in sks:
                kd = ceil_div(p.k, sk)
                used = md * nd * kd
                if used > p.dim:
                    continue
                in_range = (_in_range(sm, p.m, max_m, min_m) and _in_range(sn, p.n, max_n, min_n)
                            and _in_range(sk, p.k, max_k, min_k))
                partial = bool(p.m % sm or p.n % sn or p.k % sk)
                granule = min(_granule(sm, p.m), _granule(sn, p.n))
                volume = sk * (sm * p.a_bits + sn * p.b_bits) // 8 + sm * sn * p.c_bytes
                ranked.append(((not in_range, -used, partial, -granule, volume, md, kd),
                               (sm, sn, sk)))
    ranked.sort()
    return [c for _, c in ranked]


# ---- stage 2: the base block ----------------------------------------------------------------

def _steps(hi: int, step: int, fixed: int, lo_max: Tuple[int, int], extra: int = 0) -> List[int]:
    """Base-size candidates up to `hi`: the fixed value, else multiples of `step` (plus `extra`)
    narrowed by set_split_range's (max, min) when that leaves any."""
    if fixed > 0:
        return [fixed]
    values = list(range(step, hi + 1, step))
    if extra and extra <= hi and extra not in values:
        values.append(extra)
    mx, mn = lo_max
    narrowed = [v for v in values if (mx <= 0 or v <= mx) and (mn <= 0 or v >= mn)]
    return sorted(narrowed or values)


def _best_k(p: Problem, budget: Budget, bm: int, bn: int, hi: int, step: int, fixed: int,
            lo_max: Tuple[int, int], ub_limit: Optional[int]):
    """The largest legal base_k up to `hi` (or the fixed one): (bk, depths) or None. The L0A,
    L0B and L1 (depth 2, else 1) limits solved for bk, as multiples of `step`; a maximum from
    set_split_range caps it, a minimum is moot (the largest is taken)."""
    if fixed > 0:
        depths = fits(p, budget, bm, bn, fixed, ub_limit)
        return None if depths is None else (fixed, depths)
    mx = lo_max[0]
    pm, pn = round_up(bm, M_ALIGN), round_up(bn, M_ALIGN)
    cap = min(hi, budget.l0a * 8 // (DB_L0 * pm * p.a_bits),
              budget.l0b * 8 // (DB_L0 * pn * p.b_bits))
    if mx > 0 and mx >= step:
        cap = min(cap, mx)
    free_l1 = budget.l1 - (pn * ACC_BYTES if p.bias else 0)
    for depth in (2, 1):
        bk = min(cap, free_l1 * 8 // (depth * (pm * p.a_bits + pn * p.b_bits))) // step * step
        if bk < step:
            continue
        depths = fits(p, budget, bm, bn, bk, ub_limit)
        if depths is not None:
            return bk, depths
    return None


def _bases(p: Problem, budget: Budget, sm: int, sn: int, sk: int):
    """Every legal (bm, bn, bk, depth_a1, depth_b1) for one block of sm x sn x sk, best first,
    or a reason string when there is none."""
    fbm, fbn, fbk = p.fixed_base
    bn_align = c0(p.b_bits)
    kmin = k_min_align(p.a_bits, p.b_bits)
    hi_m, hi_n = round_up(sm, M_ALIGN), round_up(sn, bn_align)
    if fbm > 0 and (fbm % M_ALIGN or fbm > hi_m):
        return f"base_m={fbm} must be a multiple of {M_ALIGN} and at most {hi_m} " \
               f"(single_core_m={sm} rounded up to {M_ALIGN})"
    if fbn > 0 and (fbn % bn_align or fbn > hi_n):
        return f"base_n={fbn} must be a multiple of {bn_align} and at most {hi_n} " \
               f"(single_core_n={sn} rounded up to C0={bn_align})"
    if fbk > 0 and (fbk % kmin or fbk > round_up(sk, kmin)):
        return f"base_k={fbk} must be a multiple of {kmin} and at most {round_up(sk, kmin)} " \
               f"(single_core_k={sk} rounded up to {kmin})"
    mx_m, mx_n, mx_k, mn_m, mn_n, mn_k = p.base_range
    kstep = k_align(p.a_bits, p.b_bits)
    hi_k = round_up(sk, kstep)
    # Larger rows than L0A/L0C hold with the smallest partner sizes cannot fit: stop there.
    cap_m = min(budget.l0a * 8 // (DB_L0 * kstep * p.a_bits),
                budget.l0c // (M_ALIGN * ACC_BYTES)) // M_ALIGN * M_ALIGN
    cap_n = min(budget.l0b * 8 // (DB_L0 * kstep * p.b_bits),
                budget.l0c // (M_ALIGN * ACC_BYTES)) // M_ALIGN * M_ALIGN
    ms = _steps(min(hi_m, cap_m), M_ALIGN, fbm, (mx_m, mn_m))
    # base_n: multiples of 16 (whole L0C fractals) plus the exact C0-rounded width of a narrow
    # block (f32 B: 8, 24, ...), so a block narrower than 16 still fits in one base block.
    ns = _steps(min(hi_n, max(cap_n, bn_align)), max(M_ALIGN, bn_align), fbn, (mx_n, mn_n),
                extra=hi_n)
    limits = [None]
    if p.c_in_ub and fbm <= 0 and fbn <= 0:
        limits = [budget.ub // UB_SHARE, None]
    for ub_limit in limits:
        legal = []
        for bm in ms:
            for bn in ns:
                found = _best_k(p, budget, bm, bn, hi_k, kstep, fbk, (mx_k, mn_k), ub_limit)
                if found is not None:
                    legal.append((bm, bn) + found)
        if not legal:
            continue

        def mmads(option):
            bm, bn, bk, _ = option
            return mmads_of(sm, sn, sk, bm, bn, bk)

        fewest = min(mmads(option) for option in legal)

        def rank(option):
            bm, bn, _, _ = option
            partial = (bm < sm and sm % bm != 0) + (bn < sn and sn % bn != 0)
            count = mmads(option)
            return (count > SPREAD * fewest, partial, count, -bm * bn, bm + bn, -bm)

        return [(bm, bn, bk, da, db) for bm, bn, bk, (da, db) in sorted(legal, key=rank)]
    return (f"no base block fits the buffers for a {sm} x {sn} x {sk} block "
            f"(L1 {budget.l1}, L0A {budget.l0a}, L0B {budget.l0b}, L0C {budget.l0c}, "
            f"UB {budget.ub}, BT {budget.bt} bytes)")


# ---- stage 3: L1 steps ----------------------------------------------------------------------

def _l1_loads(p: Problem, sm: int, sn: int, bm: int, bn: int, k_iter: int, step_a: int,
              step_b: int) -> Tuple[int, int]:
    """GM -> L1 copies of A and of B in one block's Matmul with these steps: per base block one
    per chunk of each operand (under Norm, one per slice of it); K whole in one chunk of each,
    an operand is copied again only when its base-block index changes (the inner index's
    operand every block, unless there is only one)."""
    blocks_m, blocks_n = ceil_div(sm, bm), ceil_div(sn, bn)
    blocks = blocks_m * blocks_n
    # Norm copies each chunk one base_k slice at a time.
    per_a = 1 if p.multi_load else step_a
    per_b = 1 if p.multi_load else step_b
    if step_a >= k_iter and step_b >= k_iter:
        if not p.multi_load:
            per_a = per_b = k_iter
        if p.n_first:
            return blocks_m * per_a, (blocks if blocks_n > 1 else 1) * per_b
        return (blocks if blocks_m > 1 else 1) * per_a, blocks_n * per_b
    return (blocks * ceil_div(k_iter, step_a) * per_a, blocks * ceil_div(k_iter, step_b) * per_b)


def l1_steps(p: Problem, budget: Budget, sm: int, sn: int, sk: int, bm: int, bn: int,
              bk: int) -> Tuple[int, int, int, int]:
    """(step_ka, step_kb, depth_a1, depth_b1): the steps (powers of two up to, and, the K
    slices of a block) and slot counts that fit L1 (stage 3 of the module comment)."""
    pm, pn = round_up(bm, M_ALIGN), round_up(bn, M_ALIGN)
    pk = round_up(bk, k_align(p.a_bits, p.b_bits))
    a_tile = pm * pk * p.a_bits // 8
    b_tile = pn * pk * p.b_bits // 8
    free = budget.l1 - (pn * ACC_BYTES if p.bias else 0)
    k_iter = ceil_div(sk, bk)
    steps = sorted({s for s in (1 << i for i in range(k_iter.bit_length())) if s <= k_iter} |
                   {k_iter})
    best = None
    for sa in steps:
        for sb in steps:
            loads_a, loads_b = _l1_loads(p, sm, sn, bm, bn, k_iter, sa, sb)
            for slots_a in (2, 1):
                for slots_b in (2, 1):
                    used = slots_a * sa * a_tile + slots_b * sb * b_tile
                    if used > free:
                        continue
                    # One slot stalls the next copy of an operand until its last L0 load.
                    single = (slots_a == 1 and loads_a > 1) + (slots_b == 1 and loads_b > 1)
                    rank = (single, loads_a + loads_b, used)
                    if best is None or rank < best[0]:
                        best = (rank, (sa, sb, slots_a * sa, slots_b * sb))
    return best[1] if best is not None else (1, 1, 1, 1)


def _shortlist(p: Problem, budget: Budget, sm: int, sn: int, sk: int,
               bases: List[Tuple[int, int, int, int, int]]) -> List[Result]:
    """Stage 4's candidates, the rules' choice first: the best PROBE_BASES base blocks, then
    the best whose steps hold K whole if none of those does (at most PROBE_SPREAD x the first's
    mmads), each with its stage-3 steps."""
    def result(base):
        bm, bn, bk, _, _ = base
        step_a, step_b, da, db = l1_steps(p, budget, sm, sn, sk, bm, bn, bk)
        return Result(sm, sn, sk, ceil_div(p.m, sm), ceil_div(p.n, sn), ceil_div(p.k, sk),
                      bm, bn, bk, da, db, step_a, step_b)

    chosen = [result(base) for base in bases[:PROBE_BASES]]
    if not any(c.k_whole for c in chosen):
        for base in bases[PROBE_BASES:]:
            bm, bn, bk, _, _ = base
            if mmads_of(sm, sn, sk, bm, bn, bk) > PROBE_SPREAD * chosen[0].mmads:
                continue
            candidate = result(base)
            if candidate.k_whole:
                chosen.append(candidate)
                break
    return chosen


def _fastest(candidates: List[Result], probe: Probe) -> Result:
    """The candidate the probe simulates fastest; within PROBE_TIE of it, one holding K whole
    first. The rules' choice (the first) when the probe cannot time every candidate."""
    times = []
    for candidate in candidates:
        cycles = probe(candidate)
        if cycles is None:
            return candidates[0]
        times.append(cycles)
    best = min(times)
    ranked = sorted(range(len(candidates)), key=lambda i: (
        times[i] > best * (1 + PROBE_TIE), not candidates[i].k_whole, times[i], i))
    return candidates[ranked[0]]


def solve(p: Problem, budget: Budget, probe: Optional[Probe] = None) -> Result:
    """The tiling of `p` within `budget`; TilingError when there is none. With `probe`, stage
    4 picks among the best candidates of a small block by their simulated cycles."""
    for name, v in (("m", p.m), ("n", p.n), ("k", p.k)):
        if v <= 0:
            raise TilingError(f"shape {name}={v} is not set")
    if p.multi_core and p.dim < 1:
        raise TilingError(f"dim={p.dim}")
    grids: Sequence[Tuple[int, int, int]] = _grid_candidates(p)
    if not grids:
        fsm, fsn, fsk = p.fixed_single
        raise TilingError(f"single shape ({fsm}, {fsn}, {fsk}) needs more blocks than "
                          f"dim={p.dim} allows for shape ({p.m}, {p.n}, {p.k})")
    reason = ""
    for sm, sn, sk in grids:
        bases = _bases(p, budget, sm, sn, sk)
        if isinstance(bases, str):
            reason = reason or bases
            continue
        probed = probe is not None and mmads_of(sm, sn, sk, *bases[0][:3]) <= PROBE_MMADS
        candidates = _shortlist(p, budget, sm, sn, sk, bases if probed else bases[:1])
        return candidates[0] if len(candidates) == 1 else _fastest(candidates, probe)
    raise TilingError(reason)
