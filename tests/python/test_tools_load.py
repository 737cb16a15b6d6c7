"""aicore-load (docs/tools.md "aicore-load"): 32 concurrent clients against one daemon in both
modes finish without errors and print the summary line; a busy daemon's admission refusals are
retried, not counted as errors; an absent daemon, bad arguments and bad jobs get their exit
codes."""
import os
import re
import subprocess
import sys

import grpc
import numpy as np
import pytest

from conftest import REPO
from test_daemon import daemon, running_daemon  # noqa: F401  (the fixture)

from aicore_tools import client, load
from asc._proto import kernel_pb2 as ir

LOAD = os.path.join(REPO, "clients", "python", "bin", "aicore-load")
LAST_LINE = re.compile(r"^requests=(\d+) errors=(\d+) p50_ms=(\d+\.\d\d) p99_ms=(\d+\.\d\d) "
                       r"rps=(\d+\.\d\d)$")


def run_load(*args, timeout=180):
    return subprocess.run([sys.executable, LOAD, *args], capture_output=True, text=True,
                          timeout=timeout)


def summary(done):
    """The last line's figures, and the retries line, of a finished aicore-load."""
    lines = done.stdout.strip().splitlines()
    assert lines, (done.stdout, done.stderr)
    match = LAST_LINE.match(lines[-1])
    assert match, f"last line {lines[-1]!r} is not the summary line"
    requests, errors = int(match.group(1)), int(match.group(2))
    p50, p99, rps = (float(match.group(i)) for i in (3, 4, 5))
    retries = [int(line.split("=", 1)[1]) for line in lines[:-1] if line.startswith("retries=")]
    assert len(retries) == 1, lines
    return dict(requests=requests, errors=errors, p50=p50, p99=p99, rps=rps, retries=retries[0])


@pytest.mark.parametrize("mode", ["run", "session"])
def test_32_clients_finish_every_request(daemon, mode):
    done = run_load("--target", daemon, "--clients", "32", "--requests", "10", "--mode", mode,
                    "--warmup", "1")
    assert done.returncode == 0, done.stderr
    figures = summary(done)
    assert figures["requests"] == 320 and figures["errors"] == 0, figures
    assert 0 < figures["p50"] <= figures["p99"], figures
    assert figures["rps"] > 0, figures
    assert f"against {daemon}: 320 ok, 0 failed" in done.stdout, done.stdout


def spin_kernel(iterations: int) -> bytes:
    """A kernel with no arguments that loops a vector add (tests/daemon/test_kernels.cc's
    SpinKernel): a launch the worker spends milliseconds on, so that the daemon, not the
    clients, is what limits the run."""
    k = ir.Kernel(version=ir.IR_VERSION_1, name="spin", kernel_type=ir.KERNEL_AIV_ONLY,
                  files=["spin.py"])
    ids = iter(range(1, 1000))

    def op(region):
        o = region.ops.add()
        o.loc.file, o.loc.line = 0, len(region.ops)
        return o

    def const(dtype, value):
        c = op(k.body).constant
        c.result, c.dtype, c.int_value = next(ids), dtype, value
        return c.result
    lower, upper, step = (const(ir.DT_INT64, v) for v in (0, iterations, 1))
    src, dst, count = (const(ir.DT_INT32, v) for v in (0, 8192, 2048))
    loop = op(k.body).for_op
    loop.lower, loop.upper, loop.step = lower, upper, step
    loop.induction, loop.dtype = next(ids), ir.DT_INT64
    add = op(loop.body).vec_binary
    add.kind, add.count = ir.VecBinaryOp.ADD, count
    for t, position, addr in ((add.dst, ir.POS_VECOUT, dst), (add.src0, ir.POS_VECIN, src),
                              (add.src1, ir.POS_VECIN, src)):
        t.space, t.position, t.addr, t.dtype, t.count = \
            ir.MEM_UB, position, addr, ir.DT_FLOAT32, count
    op(loop.body).pipe_barrier.pipe = ir.PIPE_V
    k.num_values = next(ids) - 1
    return k.SerializeToString()


@pytest.mark.parametrize("mode", ["run", "session"])
def test_a_busy_daemons_refusals_are_retried_not_failed(tmp_path, mode):
    spin = tmp_path / "spin.pb"
    spin.write_bytes(spin_kernel(400))
    # One worker and one queued job: most of 32 clients' launches are refused at first,
    # RetryInfo and all.
    with running_daemon("--workers", "1", "--max-queue", "1") as target:
        done = run_load("--target", target, "--clients", "32", "--requests", "10",
                        "--mode", mode, "--job", str(spin))
    assert done.returncode == 0, done.stderr
    figures = summary(done)
    assert figures["requests"] == 320 and figures["errors"] == 0, figures
    assert figures["retries"] > 0, figures


def dump_vadd(tmp_path, monkeypatch):
    from kernels import run_vadd
    monkeypatch.setenv("AICORE_SIM_DUMP_IR", str(tmp_path / "jobs"))
    x = np.arange(4 * 1024).astype(np.float16)
    run_vadd(x, x, 4)
    (folder,) = os.listdir(tmp_path / "jobs")
    return str(tmp_path / "jobs" / folder)


@pytest.mark.parametrize("mode", ["run", "session"])
def test_a_job_folder_is_the_request(device, tmp_path, monkeypatch, daemon, mode):
    folder = dump_vadd(tmp_path, monkeypatch)
    done = run_load("--target", daemon, "--clients", "3", "--requests", "4", "--mode", mode,
                    "--job", folder)
    assert done.returncode == 0, done.stderr
    assert summary(done)["requests"] == 12 and summary(done)["errors"] == 0
    assert "kernel vadd_kernel," in done.stdout, done.stdout


@pytest.mark.parametrize("mode", ["run", "session"])
def test_failed_requests_exit_1_and_show_the_daemons_text(tmp_path, daemon, mode):
    junk = tmp_path / "junk.pb"
    junk.write_bytes(np.random.default_rng(3).integers(0, 256, 2048, dtype=np.uint8).tobytes())
    done = run_load("--target", daemon, "--clients", "2", "--requests", "3", "--mode", mode,
                    "--job", str(junk))
    assert done.returncode == 1, (done.stdout, done.stderr)
    figures = summary(done)
    assert figures["requests"] == 6 and figures["errors"] == 6, figures
    assert "6 of 6 requests failed" in done.stderr, done.stderr
    assert "INVALID_ARGUMENT" in done.stderr and "not a valid serialized message" in done.stderr


def test_an_unreachable_daemon_exits_3_naming_the_address():
    done = run_load("--target", "127.0.0.1:1", "--clients", "4", "--requests", "2",
                    "--timeout", "20")
    assert done.returncode == 3, (done.stdout, done.stderr)
    assert "no daemon answers at 127.0.0.1:1" in done.stderr, done.stderr
    assert not LAST_LINE.search(done.stdout)


@pytest.mark.parametrize("args, says", [
    (["--clients", "0"], "--clients 0"),
    (["--requests", "-1"], "--requests -1"),
    (["--warmup", "-2"], "--warmup -2"),
    (["--timeout", "0"], "--timeout 0"),
    (["--mode", "stream"], "invalid choice: 'stream'"),
    (["--clients", "many"], "invalid int value: 'many'"),
    (["--job", "/nonexistent/job"], "/nonexistent/job"),
    (["--token-file", "/nonexistent/tokens"], "/nonexistent/tokens"),
    (["--tls-ca", "/nonexistent/ca.pem"], "/nonexistent/ca.pem"),
    (["--target", "1.2.3.4:5,not-an-ip:6"], "not an IPv4 HOST:PORT"),
])
def test_bad_arguments_exit_2_before_any_daemon(args, says):
    base = [] if "--target" in args else ["--target", "127.0.0.1:1"]
    done = run_load(*base, *args)
    assert done.returncode == 2, (done.stdout, done.stderr)
    assert says in done.stderr, done.stderr


def test_a_missing_target_or_unknown_job_format_exits_2(tmp_path):
    assert run_load("--clients", "2").returncode == 2
    folder = tmp_path / "job"
    folder.mkdir()
    (folder / "job.json").write_text('{"format": "aicore-job", "format_version": 99}')
    done = run_load("--target", "127.0.0.1:1", "--job", str(folder))
    assert done.returncode == 2 and "format_version 99" in done.stderr, done.stderr


def test_help_documents_every_option_and_the_exit_codes():
    done = run_load("--help")
    assert done.returncode == 0
    text = " ".join(done.stdout.split())
    for option in ("--target", "--clients", "--requests", "--job", "--mode", "--warmup",
                   "--timeout", "--token-file", "--tls-ca", "--no-progress"):
        assert option in text
    assert "Exit codes: 0" in text and "3 no daemon answers" in text, text
    assert "requests=N errors=E p50_ms=X p99_ms=Y rps=Z" in text


class FakeRpcError(grpc.RpcError):
    """A failed call's error, as far as retry_delay looks at it."""

    def __init__(self, code, trailers):
        self._code, self._trailers = code, trailers

    def code(self):
        return self._code

    def trailing_metadata(self):
        return self._trailers

    def details(self):
        return "busy"


def status_details(seconds: int, nanos: int, type_url: str) -> bytes:
    from google.protobuf import duration_pb2
    duration = duration_pb2.Duration(seconds=seconds, nanos=nanos).SerializeToString()
    retry_info = client._length_delimited(1, duration)
    any_msg = client._length_delimited(1, type_url.encode()) + \
        client._length_delimited(2, retry_info)
    # google.rpc.Status: code 8 (varint field 1), a message, then the Any as field 3.
    return b"\x08\x08" + client._length_delimited(2, b"busy") + \
        client._length_delimited(3, any_msg)


def test_retry_delay_reads_the_retry_info_of_a_refusal():
    busy = grpc.StatusCode.RESOURCE_EXHAUSTED
    details = status_details(1, 250_000_000, load.RETRY_INFO_URL)
    trailers = (("grpc-status-details-bin", details),)
    assert load.retry_delay(FakeRpcError(busy, trailers)) == pytest.approx(1.25)
    # No RetryInfo, another detail, or another status: not an admission refusal.
    assert load.retry_delay(FakeRpcError(busy, ())) is None
    other = status_details(1, 0, "type.googleapis.com/google.rpc.DebugInfo")
    assert load.retry_delay(FakeRpcError(busy, (("grpc-status-details-bin", other),))) is None
    assert load.retry_delay(FakeRpcError(grpc.StatusCode.UNAVAILABLE, trailers)) is None
    assert load.retry_delay(FakeRpcError(busy, (("grpc-status-details-bin", b"\x0a\xff"),))) \
        is None


def test_retries_wait_bounded_and_give_up_past_the_budget(monkeypatch):
    waits = []
    monkeypatch.setattr(load.time, "sleep", waits.append)
    trailers = (("grpc-status-details-bin",
                 status_details(5, 0, load.RETRY_INFO_URL)),)

    def refuse():
        raise FakeRpcError(grpc.StatusCode.RESOURCE_EXHAUSTED, trailers)
    attempts = load.Attempts(load.random.Random(1))
    with pytest.raises(load.Failed, match="RESOURCE_EXHAUSTED after"):
        attempts.call(refuse)
    assert waits and all(1.0 <= w <= load.MAX_ONE_WAIT_S for w in waits), waits
    assert sum(waits) <= load.MAX_BUSY_WAIT_S < sum(waits) + load.MAX_ONE_WAIT_S
    assert attempts.retries == len(waits)


def test_the_builtin_kernels_result_is_checked():
    job = load.builtin_job(16)
    expected = job.args[0].array + job.args[1].array
    load.check_outputs(job, expected, {2: expected.copy()})
    with pytest.raises(load.Failed, match="not x \\+ y"):
        load.check_outputs(job, expected, {2: expected + 1})
