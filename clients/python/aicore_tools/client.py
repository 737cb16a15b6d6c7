"""A job's one-shot Run on a daemon over gRPC (proto/simulator.proto), shared by the tools."""

import os
import sys
from dataclasses import dataclass, field
from typing import Callable, Dict, Optional

import numpy as np

from asc._proto import report_pb2, simulator_pb2
from asc.runtime.jobs import Job

# The service protocol these tools speak (proto/protocol_version.h).
PROTOCOL_VERSION = 1
RUN_METHOD = "/aicore.service.v1.Simulator/Run"
CHUNK_BYTES = 1 << 20

CHECK_LEVELS = {"off": report_pb2.CHECK_OFF, "warn": report_pb2.CHECK_WARN,
                "strict": report_pb2.CHECK_STRICT, "strict-all": report_pb2.CHECK_STRICT_ALL}


class RunFailed(RuntimeError):
    """The daemon refused or failed the run: `code` is the gRPC status name, the message the
    daemon's own text."""

    def __init__(self, code: str, message: str):
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message

    @property
    def unreachable(self) -> bool:
        """No daemon answered (gRPC's own UNAVAILABLE, not a daemon's refusal)."""
        text = self.message.lower()
        return self.code == "UNAVAILABLE" and ("failed to connect" in text or
                                               "connections to all backends failing" in text)


@dataclass
class RunResult:
    report: report_pb2.LaunchReport
    outputs: Dict[int, np.ndarray] = field(default_factory=dict)  # by argument index


def _varint(n: int) -> bytes:
    out = bytearray()
    while True:
        byte = n & 0x7F
        n >>= 7
        if n:
            out.append(byte | 0x80)
        else:
            out.append(byte)
            return bytes(out)


def _length_delimited(field_number: int, payload: bytes) -> bytes:
    return _varint(field_number << 3 | 2) + _varint(len(payload)) + payload


def header_request(job: Job, options: simulator_pb2.LaunchOptions) -> bytes:
    """The Run stream's first message, serialized. The kernel goes in as the job's bytes,
    unparsed: a malformed kernel is for the daemon to refuse, with its own message."""
    header = simulator_pb2.RunHeader(platform=job.platform, block_dim=job.block_dim,
                                     protocol_version=PROTOCOL_VERSION)
    header.options.CopyFrom(options)
    for arg in job.args:
        if arg.kind == "buffer":
            header.args.add(buffer_bytes=int(arg.array.nbytes), output=arg.output)
        elif arg.kind == "int":
            header.args.add(int_value=int(arg.value))
        else:
            header.args.add(float_value=float(arg.value))
    # RunHeader.kernel is field 2, RunRequest.header field 1.
    header_bytes = header.SerializeToString() + _length_delimited(2, job.kernel_ir)
    return _length_delimited(1, header_bytes)


def _requests(job: Job, options: simulator_pb2.LaunchOptions):
    yield header_request(job, options)
    for index, arg in enumerate(job.args):
        if arg.kind != "buffer":
            continue
        data = np.ascontiguousarray(arg.array).reshape(-1).view(np.uint8).tobytes()
        for offset in range(0, len(data), CHUNK_BYTES):
            chunk = simulator_pb2.RunRequest()
            chunk.chunk.arg_index = index
            chunk.chunk.offset = offset
            chunk.chunk.data = data[offset:offset + CHUNK_BYTES]
            yield chunk.SerializeToString()


def grpc_target(target: str) -> str:
    """HOST:PORT, dns:///NAME:PORT, or a comma-separated list of IPv4 HOST:PORTs (gRPC's ipv4:
    scheme: one channel over all of them)."""
    if "," not in target:
        return target
    entries = [e.strip() for e in target.split(",")]
    for e in entries:
        host, _, port = e.rpartition(":")
        parts = host.split(".")
        if not (port.isdigit() and len(parts) == 4 and all(p.isdigit() for p in parts)):
            raise ValueError(f"--target {target}: {e!r} is not an IPv4 HOST:PORT; a list takes "
                             "IPv4 addresses, or give dns:///NAME:PORT for a name with several "
                             "records")
    return "ipv4:" + ",".join(entries)


def open_channel(target: str, tls_ca: str = ""):
    """One channel to the daemon, or to several (grpc_target): one-shot Runs carry no state, so
    gRPC's round_robin policy sends each call to the next daemon."""
    import grpc
    target = grpc_target(target)
    limit = [("grpc.max_receive_message_length", 64 << 20),
             ("grpc.max_send_message_length", 64 << 20),
             ("grpc.lb_policy_name", "round_robin")]
    if tls_ca:
        with open(tls_ca, "rb") as f:
            credentials = grpc.ssl_channel_credentials(root_certificates=f.read())
        return grpc.secure_channel(target, credentials, options=limit)
    return grpc.insecure_channel(target, options=limit)


def run_job(channel, job: Job, options: simulator_pb2.LaunchOptions, token: str = "",
            timeout: Optional[float] = None,
            on_progress: Optional[Callable[[simulator_pb2.LaunchProgress], None]] = None,
            ) -> RunResult:
    """Runs `job` through one Run stream; raises RunFailed with the daemon's status."""
    import grpc
    call = channel.stream_stream(RUN_METHOD, request_serializer=lambda b: b,
                                 response_deserializer=simulator_pb2.RunResponse.FromString)
    metadata = [("authorization", "Bearer " + token)] if token else None
    buffers: Dict[int, bytearray] = {i: bytearray(int(a.array.nbytes))
                                     for i, a in enumerate(job.args)
                                     if a.kind == "buffer" and a.output}
    report = None
    try:
        for response in call(_requests(job, options), timeout=timeout, metadata=metadata):
            part = response.WhichOneof("part")
            if part == "progress":
                if on_progress is not None:
                    on_progress(response.progress)
            elif part == "report":
                report = response.report
            elif part == "chunk":
                c = response.chunk
                target = buffers.get(c.arg_index)
                if target is None or c.offset + len(c.data) > len(target):
                    raise RunFailed("INTERNAL", f"the daemon sent an output chunk for "
                                    f"args[{c.arg_index}] at {c.offset} that fits no output")
                target[c.offset:c.offset + len(c.data)] = c.data
    except grpc.RpcError as e:
        raise RunFailed(e.code().name, e.details() or "") from None
    if report is None:
        raise RunFailed("INTERNAL", "the Run stream ended without a report")
    outputs = {}
    for index, data in buffers.items():
        like = job.args[index].array
        outputs[index] = np.frombuffer(bytes(data), dtype=like.dtype).reshape(like.shape)
    return RunResult(report, outputs)


def add_connection_options(parser) -> None:
    """The options every tool shares, with one wording: --token-file, --tls-ca, --no-progress."""
    parser.add_argument("--token-file", default="", metavar="FILE",
                        help="bearer token file (NAME:TOKEN lines; default: AICORE_SIM_TOKEN)")
    parser.add_argument("--tls-ca", default=os.environ.get("AICORE_SIM_TLS_CA", ""),
                        metavar="FILE",
                        help="trust this CA for TLS (default: AICORE_SIM_TLS_CA; none: plaintext)")
    parser.add_argument("--no-progress", action="store_true",
                        help="no progress bar (there is none unless stderr is a terminal)")


def token_from(token_file: str) -> str:
    """The bearer token: --token-file's first token, else AICORE_SIM_TOKEN."""
    if token_file:
        with open(token_file, encoding="utf-8") as f:
            for line in f:
                line = line.strip()
                if line and not line.startswith("#"):
                    return line.split(":", 1)[-1] if ":" in line else line
        raise ValueError(f"{token_file} holds no token")
    return os.environ.get("AICORE_SIM_TOKEN", "")


def eprint(*parts) -> None:
    print(*parts, file=sys.stderr)
