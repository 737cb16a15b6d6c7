"""The result of a launch as Python objects: attributes and dict-style access over the same data
(`report.cores[0].pipes['V'].busy_cycles == report['cores'][0]['pipes']['V']['busy_cycles']`)."""
from __future__ import annotations

import functools
import math
from typing import Dict, Iterable, List, Optional, Tuple

from asc._proto import report_pb2, soc_config_pb2


class _Record:
    """Attribute record that also reads like a dict (stats are API, seen as nested dicts)."""
    _fields: tuple = ()

    def __getitem__(self, key):
        if key not in self._fields:
            raise KeyError(key)
        return getattr(self, key)

    def __contains__(self, key):
        return key in self._fields

    def keys(self):
        return list(self._fields)

    def items(self):
        return [(k, getattr(self, k)) for k in self._fields]

    def get(self, key, default=None):
        return getattr(self, key) if key in self._fields else default

    def to_dict(self) -> dict:
        return {k: _plain(getattr(self, k)) for k in self._fields}

    def __repr__(self):
        body = ", ".join(f"{k}={getattr(self, k)!r}" for k in self._fields
                         if not isinstance(getattr(self, k), (list, dict)))
        return f"{type(self).__name__}({body})"


def _message_dict(msg) -> dict:
    """A message as nested dicts and lists of plain Python values (ints stay ints)."""
    out = {}
    for field, value in msg.ListFields():
        if field.type == field.TYPE_MESSAGE:
            value = [_message_dict(v) for v in value] if field.label == field.LABEL_REPEATED \
                else _message_dict(value)
        elif field.label == field.LABEL_REPEATED:
            value = list(value)
        out[field.name] = value
    return out


def _plain(v):
    if isinstance(v, _Record):
        return v.to_dict()
    if isinstance(v, list):
        return [_plain(x) for x in v]
    if isinstance(v, dict):
        return {k: _plain(x) for k, x in v.items()}
    return v


class PipeReport(_Record):
    # Every counter of aicore.report.v1.PipeStats, so new statistics appear without code here.
    _fields = tuple(f.name for f in report_pb2.PipeStats.DESCRIPTOR.fields)

    def __init__(self, msg: report_pb2.PipeStats):
        for name in self._fields:
            value = getattr(msg, name)
            setattr(self, name, value if isinstance(value, str) else int(value))


class CoreReport(_Record):
    _fields = ("core", "core_type", "block_idx", "cycles", "queue_full_stall_cycles", "pipes",
               "bound_pipe")

    def __init__(self, msg: report_pb2.CoreStats):
        self.core = int(msg.core)
        self.core_type = msg.core_type
        self.block_idx = int(msg.block_idx)
        self.cycles = int(msg.cycles)
        self.queue_full_stall_cycles = int(msg.queue_full_stall_cycles)
        self.pipes: Dict[str, PipeReport] = {p.pipe: PipeReport(p) for p in msg.pipes}
        # The pipe with the most busy cycles ("" when every one was idle).
        self.bound_pipe = msg.bound_pipe


class Diagnostic(_Record):
    """One finding: kind (DEADLOCK, RACE, UNINITIALIZED_READ ...), severity (ERROR, WARNING, or
    NOTE for what changes no result), the message (cause, place, fix), where (core, pipe, op,
    file:line), for races the other access of the pair, and the memory range. `cores` lists
    every core that reported it (the findings of several cores at one place merged, the range
    their hull), `other_cores` every other side their pairs name."""
    _fields = ("severity", "kind", "message", "core", "pipe", "op", "file", "line", "column",
               "cycle", "cores", "race", "other_core", "other_cores", "other_pipe", "other_op",
               "other_file", "other_line", "memory", "address_lo", "address_hi")

    def __init__(self, msg: report_pb2.Diagnostic):
        self.severity = report_pb2.Diagnostic.Severity.Name(msg.severity)
        self.kind = report_pb2.Diagnostic.Kind.Name(msg.kind)
        self.message = msg.message
        self.core = int(msg.core)
        self.pipe = msg.pipe
        self.op = msg.op
        self.file = msg.location.file
        self.line = int(msg.location.line)
        self.column = int(msg.location.column)
        self.cycle = int(msg.cycle)
        self.cores = [int(c) for c in msg.cores]
        self.race = msg.race
        self.other_core = int(msg.other_core)
        self.other_cores = [int(c) for c in msg.other_cores]
        self.other_pipe = msg.other_pipe
        self.other_op = msg.other_op
        self.other_file = msg.other_location.file
        self.other_line = int(msg.other_location.line)
        self.memory = msg.memory
        self.address_lo = int(msg.address_lo)
        self.address_hi = int(msg.address_hi)

    def site(self) -> tuple:
        """What makes two findings the same place: reported once per process."""
        return (self.kind, self.race, self.file, self.line, self.other_file, self.other_line,
                self.memory, self.pipe, self.other_pipe)

    def __str__(self):
        return self.text(self.severity)

    def text(self, label: str) -> str:
        """The finding as one line, labelled `[<label> <kind>]`: the launcher labels the findings
        of a launch its check level passed WARNING whatever their severity, since they failed
        nothing (a race is an ERROR only where the level makes it fail the launch)."""
        where = []
        if self.core >= 0:
            where.append(f"core {self.core}")
        if self.pipe:
            where.append(f"pipe {self.pipe}")
        if self.op:
            where.append(self.op)
        if self.file or self.line:
            where.append(f"{self.file}:{self.line}")
        prefix = f"[{label} {self.kind}]"
        # The checkers' messages name their place themselves; others get it in front.
        if not where or (self.file and f"{self.file}:{self.line}" in self.message):
            return f"{prefix} {self.message}"
        return f"{prefix} ({', '.join(where)}) {self.message}"


class CheckReport(_Record):
    """What the checkers found in one launch and how the level judges it: `summary` is
    "0 races, 0 errors, 2 warnings" (then ", 1 note" when there are notes); `failed` means the
    level (strict, strict-all) makes it an exception."""
    _fields = ("level", "races", "errors", "warnings", "notes", "summary", "failed")

    def __init__(self, msg: report_pb2.CheckSummary):
        name = report_pb2.CheckLevel.Name(msg.level)
        self.level = {"CHECK_OFF": "off", "CHECK_WARN": "warn", "CHECK_STRICT": "strict",
                      "CHECK_STRICT_ALL": "strict-all"}.get(name, "warn")
        self.races = int(msg.races)
        self.errors = int(msg.errors)
        self.warnings = int(msg.warnings)
        self.notes = int(msg.notes)
        self.summary = msg.summary
        self.failed = bool(msg.failed)


class TimelineRecord(_Record):
    """One pipe instruction of a launch recorded with `record_timeline`: when the scalar unit
    issued it and when it started and ended executing in its pipe (cycles from the launch's
    first instruction)."""
    _fields = ("core", "block_idx", "pipe", "op", "op_index", "file", "line", "issue_cycle",
               "start_cycle", "end_cycle", "detail")

    def __init__(self, msg: report_pb2.InstrRecord):
        self.core = int(msg.core)
        self.block_idx = int(msg.block_idx)
        self.pipe = msg.pipe
        self.op = msg.op
        self.op_index = int(msg.op_index)
        self.file = msg.location.file
        self.line = int(msg.location.line)
        self.issue_cycle = int(msg.issue_cycle)
        self.start_cycle = int(msg.start_cycle)
        self.end_cycle = int(msg.end_cycle)
        self.detail = msg.detail


class DebugOutput(_Record):
    """One piece of device output (printf, dump_tensor, print_time_stamp, or the note saying
    output was dropped): which core and block printed it, at which cycle, from which line."""
    _fields = ("core", "block_idx", "cycle", "file", "line", "kind", "text")

    def __init__(self, msg: report_pb2.DebugOutput):
        self.core = int(msg.core)
        self.block_idx = int(msg.block_idx)
        self.cycle = int(msg.cycle)
        self.file = msg.location.file
        self.line = int(msg.location.line)
        self.kind = report_pb2.DebugOutput.Kind.Name(msg.kind)
        self.text = msg.text


# Ops that only order pipes: a pipe "executing" one of them does no work.
SYNC_OPS = frozenset({"set_flag", "wait_flag", "pipe_barrier", "barrier"})
# Profiling marks (metrics_prof_start/stop, print_time_stamp): zero-length records on S.
MARK_OPS = frozenset({"metrics_prof_start", "metrics_prof_stop", "print_time_stamp"})

Interval = Tuple[int, int]


def _merge(intervals: List[Interval]) -> List[Interval]:
    merged: List[Interval] = []
    for start, end in sorted(intervals):
        if merged and start <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(merged[-1][1], end))
        else:
            merged.append((start, end))
    return merged


def _intersect(a: List[Interval], b: List[Interval]) -> List[Interval]:
    out, i, j = [], 0, 0
    while i < len(a) and j < len(b):
        start, end = max(a[i][0], b[j][0]), min(a[i][1], b[j][1])
        if start < end:
            out.append((start, end))
        if a[i][1] < b[j][1]:
            i += 1
        else:
            j += 1
    return out


# The fields of LaunchReport a launch does not read; the summary message leaves them out.
_DEFERRED_FIELDS = ("cores", "timeline", "config")
_summary = []


def _summary_class():
    """LaunchReport without _DEFERRED_FIELDS, made once from report.proto's own descriptors in a
    private pool: parsing it skips those fields' bytes. None if this protobuf cannot build it
    (then the whole message is parsed, as before)."""
    if not _summary:
        try:
            from google.protobuf import descriptor_pb2, descriptor_pool, message_factory
            pool = descriptor_pool.DescriptorPool()
            for module in (soc_config_pb2, report_pb2):  # report.proto imports soc_config.proto
                file_proto = descriptor_pb2.FileDescriptorProto()
                module.DESCRIPTOR.CopyToProto(file_proto)
                for message in file_proto.message_type:
                    if message.name == "LaunchReport":
                        kept = [f for f in message.field if f.name not in _DEFERRED_FIELDS]
                        del message.field[:]
                        message.field.extend(kept)
                pool.Add(file_proto)
            descriptor = pool.FindMessageTypeByName(report_pb2.LaunchReport.DESCRIPTOR.full_name)
            if hasattr(message_factory, "GetMessageClass"):
                _summary.append(message_factory.GetMessageClass(descriptor))
            else:
                _summary.append(message_factory.MessageFactory(pool).GetPrototype(descriptor))
        except Exception:  # noqa: BLE001 - an older or newer protobuf: parse everything
            _summary.append(None)
    return _summary[0]


class LaunchReport(_Record):
    """The result of a launch: its status, cycles, statistics, diagnostics and SoC config.

    Status, total cycles and microseconds, per-core/per-pipe statistics, diagnostics, and the
    resolved SoC config the launch ran on (`config`, a nested dict of aicore.config.v1.SocConfig
    with its field names) with `config_hash`, which is equal for equal figures (docs/report.md)."""
    _fields = ("status", "kernel_name", "platform", "block_dim", "cycles", "duration_us",
               "clock_mhz", "simulated_instructions", "cores", "diagnostics", "timeline",
               "config", "config_hash", "check", "debug_output", "bound_pipe", "timing_only",
               "simulator_version")

    def __init__(self, msg: report_pb2.LaunchReport):
        self.proto = msg
        self._read(msg)

    @classmethod
    def from_bytes(cls, data: bytes) -> "LaunchReport":
        """The report of a serialized aicore.report.v1.LaunchReport. Only the summary is parsed
        now: the per-core statistics, the timeline and the SoC config (most of the bytes) are
        parsed when `proto`, `cores`, `timeline` or `config` is first read."""
        summary_class = _summary_class()
        if summary_class is None:
            return cls(report_pb2.LaunchReport.FromString(data))
        report = cls.__new__(cls)
        report._data = data
        report._read(summary_class.FromString(data))
        return report

    def _read(self, msg) -> None:
        """The fields every launch reads, from the full message or its summary."""
        self._summary = msg
        self.status = report_pb2.LaunchReport.Status.Name(msg.status)
        self.kernel_name = msg.kernel_name
        self.platform = msg.platform
        self.block_dim = int(msg.block_dim)
        self.cycles = int(msg.cycles)
        self.duration_us = float(msg.duration_us)
        self.clock_mhz = float(msg.clock_mhz)
        self.simulated_instructions = int(msg.simulated_instructions)
        self.config_hash = msg.config_hash
        self.check = CheckReport(msg.check)
        # The bound pipe of the core that ran longest: what bounds the launch.
        self.bound_pipe = msg.bound_pipe
        # A timing-only launch (run option timing_only): the full run's cycles, but the output
        # arrays were not written (docs/timing_only.md).
        self.timing_only = bool(msg.timing_only)
        # The simulator (the repository's VERSION) that computed the report.
        self.simulator_version = msg.simulator_version

    # What the launch itself does not read becomes Python objects on first read: parsing the SoC
    # config and building the per-core records for every launch cost more than the rest of a
    # small launch's Python side (docs/performance.md, "Launch path"). Each is built once.

    @functools.cached_property
    def proto(self) -> report_pb2.LaunchReport:
        """The whole aicore.report.v1.LaunchReport message."""
        return report_pb2.LaunchReport.FromString(self._data)

    @functools.cached_property
    def cores(self) -> List[CoreReport]:
        """Per-core statistics, one CoreReport per core that ran a block."""
        return [CoreReport(c) for c in self.proto.cores]

    @functools.cached_property
    def diagnostics(self) -> List[Diagnostic]:
        """The checkers' and the simulator's findings, one Diagnostic each."""
        return [Diagnostic(d) for d in self._summary.diagnostics]

    @functools.cached_property
    def timeline(self) -> List[TimelineRecord]:
        """One record per pipe instruction; empty unless the launch recorded it.

        The jit option record_timeline or AICORE_SIM_TIMELINE asks for it."""
        return [TimelineRecord(r) for r in self.proto.timeline]

    @functools.cached_property
    def config(self) -> dict:
        """The resolved SoC config the launch ran on, as nested dicts of its field names."""
        return _message_dict(self.proto.config)

    @functools.cached_property
    def debug_output(self) -> List[DebugOutput]:
        """printf / dump_tensor output by core, then cycle (what the launcher prints)."""
        return [DebugOutput(d) for d in self._summary.debug_output]

    @property
    def debug_text(self) -> str:
        """The device output as the host prints it after the launch."""
        return "".join(d.text for d in self.debug_output)

    @property
    def ok(self) -> bool:
        return self.status == "OK"

    def pipe_busy_cycles(self, pipe: str) -> int:
        """Sum over cores of one pipe's busy cycles."""
        return sum(c.pipes[pipe].busy_cycles for c in self.cores if pipe in c.pipes)

    def pipe_intervals(self, core: Optional[int] = None, include_sync: bool = False,
                       merged: bool = False) -> Dict[str, List[Interval]]:
        """Per pipe, the [start_cycle, end_cycle) intervals of its instructions on `core` (every
        core when None), sorted; flag and barrier ops are left out unless `include_sync`. With
        `merged`, overlapping intervals of a pipe are joined (the pipe's busy periods)."""
        out: Dict[str, List[Interval]] = {}
        for r in self.timeline:
            if core is not None and r.core != core:
                continue
            if r.op in MARK_OPS or (not include_sync and r.op in SYNC_OPS):
                continue
            out.setdefault(r.pipe, []).append((r.start_cycle, r.end_cycle))
        return {p: (_merge(v) if merged else sorted(v)) for p, v in out.items()}

    def concurrent_intervals(self, pipes: Iterable[str], core: int) -> List[Interval]:
        """Periods of `core` during which every pipe of `pipes` executes an instruction (flag and
        barrier ops excluded)."""
        per_pipe = self.pipe_intervals(core, merged=True)
        result: Optional[List[Interval]] = None
        for pipe in pipes:
            busy = per_pipe.get(pipe, [])
            result = busy if result is None else _intersect(result, busy)
        return result or []

    def summary(self) -> str:
        """One line: kernel, platform, block_dim, status, total cycles and microseconds, as
        "vadd_kernel on Ascend910B1 x8: OK, 9177 cycles, 4.961 us" (microseconds with three
        decimals). The pipe table is `str(report)` / `table()`."""
        return (f"{self.kernel_name} on {self.platform} x{self.block_dim}: {self.status}, "
                f"{self.cycles} cycles, {self.duration_us:.3f} us")

    def table(self, per_core: bool = False) -> str:
        """The report as text: the header line, then one row per pipe aggregated over the cores
        of one type (a value that differs between cores is shown "min-max"), or with `per_core`
        one block per core; diagnostics follow. Columns are described in docs/report.md."""
        lines = [self._header()]
        if per_core:
            for core in self.cores:
                lines.append("")
                lines.append(f"core {core.core} ({core.core_type}, block {core.block_idx}): "
                             f"{core.cycles} cycles, bound {core.bound_pipe or '-'}, "
                             f"queue-full stall {core.queue_full_stall_cycles}")
                # The block line names the core; its rows drop the "cores" column.
                rows = [_pipe_row(p.pipe, core.core_type, [p], self.cycles)
                        for p in core.pipes.values()]
                lines.extend(_layout(rows, with_cores=False))
        elif self.cores:
            groups: Dict[Tuple[str, str], List[PipeReport]] = {}
            for core in self.cores:  # report order: a core type's pipes in their own order
                for pipe in core.pipes.values():
                    groups.setdefault((core.core_type, pipe.pipe), []).append(pipe)
            rows = [_pipe_row(pipe, ctype, stats, self.cycles)
                    for (ctype, pipe), stats in groups.items()]
            lines.extend(_layout(rows))
        shown = self.diagnostics[:_TABLE_DIAGNOSTICS]
        lines.extend(str(d) for d in shown)
        if len(self.diagnostics) > len(shown):
            lines.append(f"... {len(self.diagnostics) - len(shown)} more diagnostics "
                         f"(report.diagnostics)")
        return "\n".join(lines)

    def _header(self) -> str:
        parts = [f"{self.kernel_name or '?'} on {self.platform or '?'}: {self.status}",
                 f"block_dim {self.block_dim}",
                 f"{self.cycles} cycles ({format_us(self.duration_us)} us"
                 f" at {self.clock_mhz:g} MHz)",
                 f"bound {self.bound_pipe or '-'}"]
        if self.check.summary:
            parts.append(f"check {self.check.level}: {self.check.summary}"
                         + (" (failed)" if self.check.failed else ""))
        if self.timing_only:
            parts.append("timing-only")
        return ", ".join(parts)

    def __str__(self):
        return self.table()

    def __repr__(self):
        return (f"<LaunchReport {self.kernel_name} on {self.platform} x{self.block_dim}: "
                f"{self.status}, {self.cycles} cycles>")


# Diagnostics listed under the table; the rest are counted.
_TABLE_DIAGNOSTICS = 5
# The table's columns: title, and whether the column is left-aligned.
TABLE_COLUMNS = (("pipe", True), ("cores", True), ("instr", False), ("busy%", False),
                 ("busy", False), ("wait", False), ("qfull", False), ("bw", False),
                 ("bank", False), ("bytes", False))


def format_us(us: float) -> str:
    """Microseconds to three significant digits, never in exponent form: 0.0123, 4.96, 49.6,
    496, 4961."""
    if us <= 0:
        return "0"
    digits = max(0, 2 - math.floor(math.log10(us)))
    return f"{us:.{digits}f}"


def _span(values: List[int], fmt=str, blank_zero: bool = False) -> str:
    """One value, or "min-max" over cores that differ; "-" when every value is zero and zero
    means "not applicable" for the column."""
    lo, hi = min(values), max(values)
    if blank_zero and hi == 0:
        return "-"
    return fmt(lo) if fmt(lo) == fmt(hi) else f"{fmt(lo)}-{fmt(hi)}"


def _pipe_row(pipe: str, core_type: str, stats: List["PipeReport"], cycles: int) -> List[str]:
    def percent(busy: int) -> str:
        return f"{100.0 * busy / cycles:.1f}" if cycles else "-"
    return [pipe, f"{core_type} {len(stats)}",
            _span([s.instructions for s in stats]),
            _span([s.busy_cycles for s in stats], percent),
            _span([s.busy_cycles for s in stats]),
            _span([s.wait_flag_cycles for s in stats]),
            _span([s.queue_full_stall_cycles for s in stats], blank_zero=True),
            _span([s.bandwidth_stall_cycles for s in stats], blank_zero=True),
            _span([s.bank_conflict_cycles for s in stats], blank_zero=True),
            _span([s.bytes for s in stats], blank_zero=True)]


def _layout(rows: List[List[str]], with_cores: bool = True) -> List[str]:
    """The column titles and rows, each column as wide as its widest cell."""
    keep = [i for i, (title, _) in enumerate(TABLE_COLUMNS) if with_cores or title != "cores"]
    columns = [TABLE_COLUMNS[i] for i in keep]
    table = [[title for title, _ in columns]] + [[r[i] for i in keep] for r in rows]
    widths = [max(len(r[i]) for r in table) for i in range(len(columns))]
    out = []
    for row in table:
        cells = [c.ljust(w) if left else c.rjust(w)
                 for c, w, (_, left) in zip(row, widths, columns)]
        out.append("  ".join(cells).rstrip())
    return out
