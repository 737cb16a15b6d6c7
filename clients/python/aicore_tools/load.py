"""aicore-load: N concurrent clients, M kernel launches each, against a daemon; prints the
latency percentiles and throughput (docs/tools.md "aicore-load").

A request is one launch: by default of a built-in vadd of 256 float32 elements on one core
(its output is checked), or of the job given with --job. Mode `run` makes it one one-shot Run
stream; mode `session` makes it Malloc, WriteMemory, Launch, ReadMemory and Free in the client's
session (opened once per client). Admission refusals (RESOURCE_EXHAUSTED with a
google.rpc.RetryInfo) are retried, as the runtime's remote transport does.

Exit codes: 0 every request succeeded; 1 some failed; 2 bad arguments or job; 3 no daemon
answers at --target."""

import argparse
import random
import sys
import threading
import time
from collections import Counter
from dataclasses import dataclass
from types import SimpleNamespace
from typing import Callable, Dict, List, Optional

import numpy as np

from aicore_tools import client
from aicore_tools.submit import launch_options
from asc._proto import kernel_pb2 as ir
from asc._proto import report_pb2, simulator_pb2
from asc.runtime.jobs import Job, JobArg, JobError, read_job

EXIT_OK, EXIT_FAILED, EXIT_USAGE, EXIT_UNREACHABLE = 0, 1, 2, 3
SERVICE = "/aicore.service.v1.Simulator/"
# Admission retries (docs/daemon.md "Admission"), the limits of runtime/src/remote_runtime.cc.
MAX_ONE_WAIT_S = 2.0
MAX_BUSY_WAIT_S = 60.0
SHOWN_ERRORS = 5
BUILTIN_ELEMS = 256


# --- the built-in kernel --------------------------------------------------------------------

class _Builder:
    """SSA ids and ops for a straight-line AIV kernel, as tests/daemon/test_kernels.cc builds
    them: every op gets a source line, so a diagnostic can point at it."""

    def __init__(self, name: str, file: str):
        self.kernel = ir.Kernel(version=ir.IR_VERSION_1, name=name,
                                kernel_type=ir.KERNEL_AIV_ONLY, files=[file])
        self.next_id = 1

    def _id(self) -> int:
        self.next_id += 1
        return self.next_id - 1

    def op(self):
        op = self.kernel.body.ops.add()
        op.loc.file = 0
        op.loc.line = len(self.kernel.body.ops)
        return op

    def pointer(self, name: str) -> int:
        p = self.kernel.params.add(name=name, kind=ir.Param.KIND_POINTER, dtype=ir.DT_FLOAT32,
                                   value=self._id())
        return p.value

    def const(self, dtype, value: int) -> int:
        c = self.op().constant
        c.result, c.dtype, c.int_value = self._id(), dtype, value
        return c.result

    @staticmethod
    def tensor(t, space, position, addr: int, count: int) -> None:
        t.space, t.position, t.addr, t.dtype, t.count = space, position, addr, ir.DT_FLOAT32, count

    def copy(self, dst_space, dst_pos, dst, src_space, src_pos, src, count) -> None:
        d = self.op().data_copy
        self.tensor(d.dst, dst_space, dst_pos, dst, count)
        self.tensor(d.src, src_space, src_pos, src, count)
        d.count = count

    def flag(self, event: int, event_id: int) -> None:
        """set_flag then wait_flag: the later pipe waits for the earlier one's result."""
        s = self.op().set_flag
        s.event, s.event_id = event, event_id
        w = self.op().wait_flag
        w.event, w.event_id = event, event_id

    def finish(self) -> bytes:
        self.kernel.num_values = self.next_id - 1
        return self.kernel.SerializeToString()


def builtin_job(elems: int = BUILTIN_ELEMS) -> Job:
    """z = x + y over `elems` float32 on one vector core: two GM->UB copies, one add, one copy
    back, with the flags between the pipes (HardEvent MTE2_V = 4, V_MTE3 = 7)."""
    b = _Builder("load_vadd", "load_vadd.py")
    x, y, z = b.pointer("x"), b.pointer("y"), b.pointer("z")
    tile = elems * 4
    ub_x, ub_y, ub_z = (b.const(ir.DT_INT32, i * tile) for i in range(3))
    count = b.const(ir.DT_INT32, elems)
    event_id = b.const(ir.DT_INT32, 0)
    b.copy(ir.MEM_UB, ir.POS_VECIN, ub_x, ir.MEM_GM, ir.POS_GM, x, count)
    b.copy(ir.MEM_UB, ir.POS_VECIN, ub_y, ir.MEM_GM, ir.POS_GM, y, count)
    b.flag(4, event_id)
    add = b.op().vec_binary
    add.kind = ir.VecBinaryOp.ADD
    b.tensor(add.dst, ir.MEM_UB, ir.POS_VECOUT, ub_z, count)
    b.tensor(add.src0, ir.MEM_UB, ir.POS_VECIN, ub_x, count)
    b.tensor(add.src1, ir.MEM_UB, ir.POS_VECIN, ub_y, count)
    add.count = count
    b.flag(7, event_id)
    b.copy(ir.MEM_GM, ir.POS_GM, z, ir.MEM_UB, ir.POS_VECOUT, ub_z, count)
    rng = np.random.default_rng(7)
    xs = rng.uniform(-100, 100, elems).astype(np.float32)
    ys = rng.uniform(-100, 100, elems).astype(np.float32)
    return Job(kernel_name="load_vadd", kernel_ir=b.finish(), block_dim=1,
               args=[JobArg("buffer", array=xs, name="x", output=False),
                     JobArg("buffer", array=ys, name="y", output=False),
                     JobArg("buffer", array=np.zeros(elems, np.float32), name="z")],
               path="(built-in)")


# --- admission retries ----------------------------------------------------------------------

def _fields(data: bytes):
    """(field number, wire type, value) of a serialized message: enough of the wire format to
    read google.rpc.Status, Any, RetryInfo and Duration, which Debian ships no Python modules
    for."""
    i = 0

    def varint():
        nonlocal i
        shift = value = 0
        while True:
            byte = data[i]
            i += 1
            value |= (byte & 0x7F) << shift
            shift += 7
            if not byte & 0x80:
                return value
    while i < len(data):
        key = varint()
        number, wire = key >> 3, key & 7
        if wire == 0:
            yield number, wire, varint()
        elif wire == 2:
            n = varint()
            yield number, wire, data[i:i + n]
            i += n
        elif wire == 1:
            i += 8
        elif wire == 5:
            i += 4
        else:
            raise ValueError(f"wire type {wire}")


RETRY_INFO_URL = "type.googleapis.com/google.rpc.RetryInfo"


def retry_delay(error) -> Optional[float]:
    """The wait, in seconds, a RESOURCE_EXHAUSTED status asks for in the RetryInfo of its
    grpc-status-details-bin trailer; None for any other status (those are not retried)."""
    import grpc
    if not isinstance(error, grpc.RpcError) or error.code() != grpc.StatusCode.RESOURCE_EXHAUSTED:
        return None
    details = dict(error.trailing_metadata() or ()).get("grpc-status-details-bin")
    if not details:
        return None
    try:
        for number, wire, any_bytes in _fields(details):
            if number != 3 or wire != 2:  # Status.details
                continue
            parts = {n: v for n, w, v in _fields(any_bytes) if w == 2}
            if parts.get(1, b"").decode("utf-8", "replace") != RETRY_INFO_URL:
                continue
            duration = dict((n, v) for n, w, v in _fields(parts.get(2, b"")) if n == 1 and w == 2)
            seconds = nanos = 0
            for n, w, v in _fields(duration.get(1, b"")):
                if w == 0 and n == 1:
                    seconds = v
                elif w == 0 and n == 2:
                    nanos = v
            return seconds + nanos / 1e9
    except (IndexError, ValueError):
        return None  # malformed details: treat as a plain refusal
    return None


class Failed(Exception):
    """One request failed: the text is what the summary lists (gRPC status and daemon text, or
    what was wrong with the result)."""


class Refused(Exception):
    """An admission refusal that ran out of its retry budget."""


@dataclass
class Attempts:
    """The retry budget of one request: its calls share the 60 s of waiting."""
    rng: random.Random
    waited: float = 0.0
    retries: int = 0

    def call(self, fn: Callable):
        import grpc
        for attempt in range(1 << 30):
            try:
                return fn()
            except grpc.RpcError as e:
                hint = retry_delay(e)
                if hint is None:
                    raise Failed(f"{e.code().name}: {e.details() or ''}") from None
                # The hint, doubled per attempt up to 2 s, then between half and all of it, so
                # clients refused together do not come back together.
                grown = min(max(hint, 0.001) * (1 << min(attempt, 8)), MAX_ONE_WAIT_S)
                wait = grown / 2 + self.rng.random() * grown / 2
                if self.waited + wait > MAX_BUSY_WAIT_S:
                    raise Failed(f"RESOURCE_EXHAUSTED after {self.retries} retries over "
                                 f"{self.waited:.1f} s: {e.details() or ''}") from None
                time.sleep(wait)
                self.waited += wait
                self.retries += 1


def _rpc_error_of(failure: client.RunFailed):
    # run_job raises RunFailed `from None`: the gRPC error, with its trailers, stays in
    # __context__.
    import grpc
    context = failure.__context__
    return context if isinstance(context, grpc.RpcError) else None


# --- one client -----------------------------------------------------------------------------

def own_channel(target: str, tls_ca: str = "", spread: bool = True):
    """client.open_channel's channel on a connection of its own. gRPC shares one connection
    between channels of the same target and options (its global subchannel pool), and the daemon
    tells clients apart by connection: without this, N clients would be one client to it, held
    to --max-client-queue. `spread`: round_robin over several daemons (one-shot runs), else
    pick_first (a session lives on one daemon)."""
    import grpc
    options = [("grpc.max_receive_message_length", 64 << 20),
               ("grpc.max_send_message_length", 64 << 20),
               ("grpc.lb_policy_name", "round_robin" if spread else "pick_first"),
               ("grpc.use_local_subchannel_pool", 1)]
    target = client.grpc_target(target)
    if tls_ca:
        with open(tls_ca, "rb") as f:
            credentials = grpc.ssl_channel_credentials(root_certificates=f.read())
        return grpc.secure_channel(target, credentials, options=options)
    return grpc.insecure_channel(target, options=options)


def report_problem(report: report_pb2.LaunchReport) -> str:
    """Why a report is not a success, or "" when it is."""
    if report.status != report_pb2.LaunchReport.OK:
        status = report_pb2.LaunchReport.Status.Name(report.status)
        first = report.diagnostics[0].message if report.diagnostics else "no diagnostic"
        return f"report {status}: {first}"
    if report.check.failed:
        return f"check failed: {report.check.summary}"
    return ""


def check_outputs(job: Job, expected: Optional[np.ndarray], outputs: Dict[int, np.ndarray]):
    if expected is None:
        return
    got = outputs.get(len(job.args) - 1)
    if got is None or not np.array_equal(got, expected):
        raise Failed("wrong result: the built-in vadd's z is not x + y")


class Worker:
    """One client thread: its own channel, its own session in mode `session`."""

    def __init__(self, settings, job: Job, options, expected: Optional[np.ndarray], index: int,
                 seed: int):
        self.s = settings
        self.index = index
        self.job = job
        self.options = options
        self.expected = expected
        self.rng = random.Random(seed)
        self.channel = None
        self.session = ""
        self.latencies: List[float] = []
        self.errors: List[str] = []
        self.retries = 0
        self.first_start: Optional[float] = None
        self.last_end: Optional[float] = None

    # Unary calls take and return serialized bytes, so a job's kernel goes to Launch unparsed
    # (for the daemon to judge), as it does in Run.
    def _unary(self, method: str, request: bytes, response_type):
        call = self.channel.unary_unary(SERVICE + method, request_serializer=lambda b: b,
                                        response_deserializer=response_type.FromString)
        return call(request, timeout=self.s.timeout, metadata=self.s.metadata)

    def open(self, attempts: Attempts) -> None:
        if self.s.mode != "session":
            self.channel = own_channel(self.s.target, self.s.tls_ca)
            return
        # A session's calls must all reach the daemon that holds it: of a list of daemons,
        # client i takes the i-th (round the list).
        entries = self.s.target.split(",")
        self.channel = own_channel(entries[self.index % len(entries)].strip(), self.s.tls_ca,
                                   spread=False)
        request = simulator_pb2.CreateSessionRequest(
            platform=self.job.platform, client_name="aicore-load",
            protocol_version=client.PROTOCOL_VERSION, client_version="aicore-load")
        if self.expected is not None:
            request.ir_version = ir.IR_VERSION_1
        response = attempts.call(lambda: self._unary(
            "CreateSession", request.SerializeToString(), simulator_pb2.CreateSessionResponse))
        self.session = response.session_id

    def close(self) -> None:
        if self.channel is None:
            return
        if self.session:
            try:  # best effort: an abandoned session expires on the daemon by itself
                request = simulator_pb2.CloseSessionRequest(session_id=self.session)
                self._unary("CloseSession", request.SerializeToString(),
                            simulator_pb2.CloseSessionResponse)
            except Exception:  # noqa: BLE001
                pass
        self.channel.close()

    def request_run(self, attempts: Attempts) -> None:
        def once():
            try:
                return client.run_job(self.channel, self.job, self.options,
                                      token=self.s.token, timeout=self.s.timeout)
            except client.RunFailed as e:
                error = _rpc_error_of(e)
                if error is None:
                    raise Failed(str(e)) from None
                raise error from None
        result = attempts.call(once)
        problem = report_problem(result.report)
        if problem:
            raise Failed(problem)
        check_outputs(self.job, self.expected, result.outputs)

    def request_session(self, attempts: Attempts) -> None:
        sid = self.session
        addresses: Dict[int, int] = {}
        done = False
        try:
            for index, arg in enumerate(self.job.args):
                if arg.kind != "buffer":
                    continue
                request = simulator_pb2.MallocRequest(session_id=sid,
                                                      bytes=max(int(arg.array.nbytes), 1))
                addresses[index] = attempts.call(lambda: self._unary(
                    "Malloc", request.SerializeToString(), simulator_pb2.MallocResponse)).address
                self._write(attempts, addresses[index], arg.array)
            launch = simulator_pb2.LaunchRequest(session_id=sid, block_dim=self.job.block_dim)
            launch.options.CopyFrom(self.options)
            for index, arg in enumerate(self.job.args):
                if arg.kind == "buffer":
                    launch.args.add(address=addresses[index])
                elif arg.kind == "int":
                    launch.args.add(int_value=int(arg.value))
                else:
                    launch.args.add(float_value=float(arg.value))
            # LaunchRequest.kernel is field 3.
            raw = launch.SerializeToString() + client._length_delimited(3, self.job.kernel_ir)
            response = attempts.call(
                lambda: self._unary("Launch", raw, simulator_pb2.LaunchResponse))
            problem = report_problem(response.report)
            if problem:
                raise Failed(problem)
            outputs = {i: self._read(attempts, addresses[i], self.job.args[i].array)
                       for i in addresses if self.job.args[i].output}
            check_outputs(self.job, self.expected, outputs)
            done = True
        finally:
            for address in addresses.values():
                request = simulator_pb2.FreeRequest(session_id=sid, address=address)
                try:
                    attempts.call(lambda: self._unary("Free", request.SerializeToString(),
                                                      simulator_pb2.FreeResponse))
                except Failed as e:
                    # After an earlier failure, that one is the request's error.
                    if done:
                        raise Failed(f"Free: {e}") from None

    def _write(self, attempts: Attempts, address: int, array: np.ndarray) -> None:
        data = np.ascontiguousarray(array).reshape(-1).view(np.uint8).tobytes()

        def chunks():
            for offset in range(0, max(len(data), 1), client.CHUNK_BYTES):
                yield simulator_pb2.MemoryChunk(session_id=self.session, address=address + offset,
                                                data=data[offset:offset + client.CHUNK_BYTES])
        call = self.channel.stream_unary(
            SERVICE + "WriteMemory",
            request_serializer=simulator_pb2.MemoryChunk.SerializeToString,
            response_deserializer=simulator_pb2.WriteMemoryResponse.FromString)
        attempts.call(lambda: call(chunks(), timeout=self.s.timeout, metadata=self.s.metadata))

    def _read(self, attempts: Attempts, address: int, like: np.ndarray) -> np.ndarray:
        request = simulator_pb2.ReadMemoryRequest(session_id=self.session, address=address,
                                                  bytes=int(like.nbytes))
        call = self.channel.unary_stream(
            SERVICE + "ReadMemory",
            request_serializer=simulator_pb2.ReadMemoryRequest.SerializeToString,
            response_deserializer=simulator_pb2.MemoryChunk.FromString)

        def once():
            out = bytearray(int(like.nbytes))
            for chunk in call(request, timeout=self.s.timeout, metadata=self.s.metadata):
                offset = chunk.address - address
                if offset < 0 or offset + len(chunk.data) > len(out):
                    raise Failed(f"ReadMemory sent {len(chunk.data)} bytes at {chunk.address:#x}, "
                                 f"outside the {len(out)} bytes read at {address:#x}")
                out[offset:offset + len(chunk.data)] = chunk.data
            return out
        out = attempts.call(once)
        return np.frombuffer(bytes(out), dtype=like.dtype).reshape(like.shape)

    def one(self, measured: bool, on_done: Callable[[bool], None]) -> None:
        attempts = Attempts(self.rng)
        start = time.perf_counter()
        try:
            if self.s.mode == "run":
                self.request_run(attempts)
            else:
                self.request_session(attempts)
            ok, text = True, ""
        except Failed as e:
            ok, text = False, str(e)
        except Exception as e:  # noqa: BLE001  (a client bug must not hang the others)
            ok, text = False, f"{type(e).__name__}: {e}"
        end = time.perf_counter()
        if not measured:
            return
        self.retries += attempts.retries
        self.first_start = start if self.first_start is None else self.first_start
        self.last_end = end
        if ok:
            self.latencies.append((end - start) * 1000)
        else:
            self.errors.append(text)
        on_done(ok)

    def run(self, start_line: threading.Barrier, on_done: Callable[[bool], None]) -> None:
        opened = False
        try:
            attempts = Attempts(self.rng)
            try:
                self.open(attempts)
                opened = True
            except Failed as e:
                self.errors.extend([f"CreateSession: {e}"] * self.s.requests)
            except Exception as e:  # noqa: BLE001
                self.errors.extend([f"{type(e).__name__}: {e}"] * self.s.requests)
            if opened:
                for _ in range(self.s.warmup):
                    self.one(False, on_done)
            # Everyone starts the measured requests together, after every warm-up.
            try:
                start_line.wait()
            except threading.BrokenBarrierError:
                pass  # another client died before the start: go on without it
            if not opened:
                for _ in range(self.s.requests):
                    on_done(False)
                return
            for _ in range(self.s.requests):
                self.one(True, on_done)
        except BaseException:
            start_line.abort()
            raise
        finally:
            self.close()


# --- the command ----------------------------------------------------------------------------

def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="aicore-load",
        description="Load an aicore-simd daemon: --clients concurrent clients (threads, each "
                    "with its own gRPC channel) each issue --requests requests, one kernel "
                    "launch each, and the latencies and throughput are printed. The last line "
                    "is 'requests=N errors=E p50_ms=X p99_ms=Y rps=Z'.",
        epilog="A request: mode run, one one-shot Run stream (inputs in, report and outputs "
               "back); mode session, Malloc + WriteMemory per buffer, Launch, ReadMemory per "
               "output, Free, in the client's session (CreateSession once per client). "
               "RESOURCE_EXHAUSTED refusals carrying a RetryInfo (the daemon's admission) are "
               "retried after the suggested delay (jittered, at most 2 s a wait and 60 s a "
               "request) and counted as retries, not errors; any other gRPC error, a report "
               "that is not OK or fails its check, or a wrong built-in result fails the "
               "request. p50/p99: latencies of the successful requests, retry waits included; "
               "rps: successful requests per second from the first measured request's start "
               "to the last one's end. Exit codes: 0 no request failed; "
               "1 some request failed (the first distinct errors are printed on stderr); 2 bad "
               "arguments or an unreadable job; 3 no daemon answers at --target. "
               "Docs: docs/tools.md.")
    p.add_argument("--target", required=True, metavar="HOST:PORT",
                   help="the daemon's address (aicore-simd --listen); also dns:///NAME:PORT or "
                        "IP:PORT,IP:PORT,...: mode run spreads each client's Runs over them "
                        "round-robin, mode session puts client i on the i-th")
    p.add_argument("--clients", type=int, default=1, metavar="N",
                   help="concurrent clients, each a thread with its own channel (default 1)")
    p.add_argument("--requests", type=int, default=10, metavar="M",
                   help="measured requests per client (default 10)")
    p.add_argument("--job", metavar="FILE",
                   help="launch this job (a job folder, its job.json, or a kernel .pb; "
                        "docs/jobs.md) instead of the built-in 256-element float32 vadd")
    p.add_argument("--mode", choices=("run", "session"), default="run",
                   help="run: one-shot Run streams; session: a session per client and "
                        "Malloc/WriteMemory/Launch/ReadMemory/Free per request (default run)")
    p.add_argument("--warmup", type=int, default=0, metavar="K",
                   help="unmeasured requests per client before the measured ones (default 0)")
    p.add_argument("--timeout", type=float, default=120, metavar="SECONDS",
                   help="deadline of each call (a Run stream, or each session call); admission "
                        "waits come on top (default 120)")
    client.add_connection_options(p)
    return p


def percentile(values: List[float], q: float) -> float:
    return float(np.percentile(values, q)) if values else 0.0


def probe(settings) -> Optional[str]:
    """None if a daemon answers at the target (any answer, even a refusal), else gRPC's text.
    The daemon's grpc.health.v1 Check: an empty HealthCheckRequest, the answer not parsed."""
    import grpc
    try:
        channel = client.open_channel(settings.target, settings.tls_ca)
    except OSError as e:
        raise ValueError(f"--tls-ca {settings.tls_ca}: {e.strerror}") from None
    call = channel.unary_unary("/grpc.health.v1.Health/Check", request_serializer=lambda b: b,
                               response_deserializer=lambda b: b)
    try:
        call(b"", timeout=min(settings.timeout, 20), metadata=settings.metadata)
        return None
    except grpc.RpcError as e:
        failure = client.RunFailed(e.code().name, e.details() or "")
        if failure.unreachable or e.code() == grpc.StatusCode.DEADLINE_EXCEEDED:
            return failure.message
        return None
    finally:
        channel.close()


def main(argv=None) -> int:
    args = parser().parse_args(argv)
    try:
        for name in ("clients", "requests"):
            if getattr(args, name) < 1:
                raise ValueError(f"--{name} {getattr(args, name)}: must be at least 1")
        if args.warmup < 0:
            raise ValueError(f"--warmup {args.warmup}: must be 0 or more")
        if not args.timeout > 0:
            raise ValueError(f"--timeout {args.timeout}: must be more than 0 seconds")
        client.grpc_target(args.target)
        if args.job:
            job, expected = read_job(args.job), None
        else:
            job = builtin_job()
            expected = job.args[0].array + job.args[1].array
        options = launch_options(job, SimpleNamespace(max_cycles=None, check=None,
                                                      timing_only=False))
        token = client.token_from(args.token_file)
    except (JobError, OSError, ValueError) as e:
        client.eprint(f"aicore-load: {e}")
        return EXIT_USAGE
    settings = SimpleNamespace(target=args.target, tls_ca=args.tls_ca, timeout=args.timeout,
                               mode=args.mode, requests=args.requests, warmup=args.warmup,
                               token=token,
                               metadata=[("authorization", "Bearer " + token)] if token else None)
    try:
        unreachable = probe(settings)
    except ValueError as e:
        client.eprint(f"aicore-load: {e}")
        return EXIT_USAGE
    if unreachable is not None:
        client.eprint(f"aicore-load: no daemon answers at {args.target} ({unreachable}); is "
                      "aicore-simd running there, and is --target its --listen address?")
        return EXIT_UNREACHABLE

    total = args.clients * args.requests
    bar = None
    if not args.no_progress and sys.stderr.isatty():
        from tqdm import tqdm
        bar = tqdm(total=total, unit=" req", desc="aicore-load", file=sys.stderr, leave=False)
    lock = threading.Lock()
    failed = [0]

    def on_done(ok: bool) -> None:
        if bar is None:
            return
        with lock:
            failed[0] += not ok
            bar.update(1)
            if failed[0]:
                bar.set_postfix_str(f"errors {failed[0]}")

    seed = random.SystemRandom().randrange(1 << 30)
    workers = [Worker(settings, job, options, expected, i, seed + i)
               for i in range(args.clients)]
    start_line = threading.Barrier(args.clients)
    threads = [threading.Thread(target=w.run, args=(start_line, on_done), daemon=True,
                                name=f"aicore-load-{i}") for i, w in enumerate(workers)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    if bar is not None:
        bar.close()

    latencies = [v for w in workers for v in w.latencies]
    errors = [e for w in workers for e in w.errors]
    retries = sum(w.retries for w in workers)
    starts = [w.first_start for w in workers if w.first_start is not None]
    ends = [w.last_end for w in workers if w.last_end is not None]
    wall = max(ends) - min(starts) if starts and ends else 0.0
    rps = len(latencies) / wall if wall > 0 else 0.0
    p50, p99 = percentile(latencies, 50), percentile(latencies, 99)

    if errors:
        client.eprint(f"aicore-load: {len(errors)} of {total} requests failed; first errors:")
        for text, n in Counter(errors).most_common()[:SHOWN_ERRORS]:
            client.eprint(f"  {n} x {text}")
    kernel = job.kernel_name + ("" if args.job else " (built-in)")
    print(f"aicore-load: {args.clients} clients x {args.requests} requests, mode {args.mode}, "
          f"kernel {kernel}, against {args.target}: {len(latencies)} ok, {len(errors)} failed "
          f"in {wall:.2f} s")
    if latencies:
        print(f"  latency ms: min {min(latencies):.2f}, p50 {p50:.2f}, "
              f"p90 {percentile(latencies, 90):.2f}, p99 {p99:.2f}, max {max(latencies):.2f}")
    print(f"retries={retries}")
    print(f"requests={total} errors={len(errors)} p50_ms={p50:.2f} p99_ms={p99:.2f} rps={rps:.2f}")
    return EXIT_FAILED if errors else EXIT_OK


if __name__ == "__main__":
    sys.exit(main())
