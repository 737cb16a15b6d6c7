"""aicore-farm: run a suite of kernels across daemons, compare cycles with a baseline, write JUnit
(docs/tools.md "aicore-farm").

A suite is a folder. Its cases:
  - job folders (a job.json, docs/jobs.md) anywhere below it: one case each, named
    `<folder>::<kernel>#<n>` (the folder holding the job, relative to the suite; n from the job's
    `<kernel>_<n>` folder name). Runs as one-shot Runs, cached by what determines their cycles.
  - Python scripts (*.py) outside job folders: each runs as a subprocess on one daemon
    (AICORE_SIM_ADDRESS), and every launch it makes is a case `<file>::<kernel>#<n>` (n counts
    that kernel's launches in the script), read from AICORE_SIM_REPORT. A script always runs;
    its launches use the same cache (AICORE_SIM_RESULT_CACHE), by IR, inputs and runtime.

Exit codes: 0 no regression and no failure; 1 a case regressed past --threshold, failed, or a
baseline case is missing; 2 bad arguments, suite or baseline; 3 a daemon cannot be reached."""

import argparse
import concurrent.futures
import hashlib
import json
import os
import re
import signal
import subprocess
import sys
import tempfile
import threading
import time
import xml.etree.ElementTree as ET
from dataclasses import dataclass, field
from typing import Dict, List, Optional, Tuple

from aicore_tools import client
from asc._proto import report_pb2, simulator_pb2
from asc.runtime.jobs import Job, JobError, read_job

EXIT_OK, EXIT_FAILED, EXIT_USAGE, EXIT_UNREACHABLE = 0, 1, 2, 3
BASELINE_FORMAT = "aicore-farm-baseline"
REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))
DEFAULT_SIMD = os.path.join(REPO, "build", "bin", "aicore-simd")


class FarmError(Exception):
    """Bad arguments, suite or baseline: the message says what and where."""


@dataclass
class Outcome:
    name: str
    cycles: Optional[int] = None
    status: str = ""            # the report's status, or "ERROR"
    error: str = ""             # why it failed, when it did
    cached: bool = False
    seconds: float = 0.0
    target: str = ""
    platform: str = ""
    identity: Optional["Identity"] = None  # what the launch ran with, when its report says


@dataclass
class Identity:
    """What a launch was computed with, per platform: the simulator version and a config hash
    (the report's, in the baseline; a hash of the daemon's resolved config, in cache keys)."""
    version: str
    config_hash: str


# ---- suite ----------------------------------------------------------------------------------

@dataclass
class Suite:
    jobs: List[Tuple[str, str]] = field(default_factory=list)  # (case name, job folder)
    scripts: List[Tuple[str, str]] = field(default_factory=list)  # (case name prefix, path)


def discover_all(roots: List[str]) -> Suite:
    """One suite from several folders; with more than one, case names start with each folder's
    own name (`examples/vadd.py::vadd_kernel#0`)."""
    if len(roots) == 1:
        return discover(roots[0])
    names = [os.path.basename(os.path.normpath(r)) for r in roots]
    if len(set(names)) != len(names):
        raise FarmError(f"suites {roots}: two have the same folder name; case names would clash")
    suite = Suite()
    for root, name in zip(roots, names):
        part = discover(root)
        suite.jobs += [(f"{name}/{case}", folder) for case, folder in part.jobs]
        suite.scripts += [(f"{name}/{rel}", path) for rel, path in part.scripts]
    return suite


def discover(root: str) -> Suite:
    if not os.path.isdir(root):
        raise FarmError(f"suite {root}: not a folder (give a folder of kernel scripts or jobs)")
    suite = Suite()
    for folder, dirs, files in os.walk(root):
        dirs.sort()
        if "job.json" in files:
            dirs[:] = []  # a job folder holds no further cases
            rel = os.path.relpath(os.path.dirname(folder), root)
            base = os.path.basename(folder)
            m = re.fullmatch(r"(.*)_(\d+)", base)
            kernel, n = (m.group(1), m.group(2)) if m else (base, "0")
            group = "." if rel == "." else rel
            suite.jobs.append((f"{group}::{kernel}#{n}", folder))
            continue
        dirs[:] = [d for d in dirs if not d.startswith((".", "__"))]
        for f in sorted(files):
            if f.endswith(".py") and not f.startswith(("_", ".")):
                path = os.path.join(folder, f)
                suite.scripts.append((os.path.relpath(path, root), path))
    if not suite.jobs and not suite.scripts:
        raise FarmError(f"suite {root}: no job folders (job.json) and no *.py scripts in it")
    return suite


# ---- daemons --------------------------------------------------------------------------------

class Daemons:
    """The targets, one channel each, and what each computes with."""

    def __init__(self, targets: List[str], token: str, tls_ca: str):
        self.targets = targets
        self.token = token
        self.channels = {t: client.open_channel(t, tls_ca) for t in targets}
        self._identities: Dict[str, Identity] = {}
        self._lock = threading.Lock()

    def metadata(self):
        return [("authorization", "Bearer " + self.token)] if self.token else None

    def identity(self, platform: str) -> Identity:
        """The simulator version and config of `platform` on the targets; FarmError when they
        disagree (a farm's cases must be comparable), RunFailed when one cannot be reached."""
        with self._lock:
            if platform in self._identities:
                return self._identities[platform]
        import grpc
        from asc._proto import simulator_pb2_grpc
        seen = {}
        for target, channel in self.channels.items():
            stub = simulator_pb2_grpc.SimulatorStub(channel)
            try:
                opened = stub.CreateSession(
                    simulator_pb2.CreateSessionRequest(platform=platform,
                                                       client_name="aicore-farm",
                                                       protocol_version=client.PROTOCOL_VERSION),
                    timeout=30, metadata=self.metadata())
                stub.CloseSession(simulator_pb2.CloseSessionRequest(session_id=opened.session_id),
                                  timeout=30, metadata=self.metadata())
            except grpc.RpcError as e:
                raise client.RunFailed(e.code().name, f"{target}: {e.details()}") from None
            config = hashlib.sha256(opened.config.SerializeToString(deterministic=True))
            seen[target] = Identity(opened.daemon_version, config.hexdigest()[:16])
        if len(set((i.version, i.config_hash) for i in seen.values())) > 1:
            listing = ", ".join(f"{t} {i.version}/{i.config_hash}" for t, i in seen.items())
            raise FarmError(f"the targets disagree on {platform}: {listing}; a farm's daemons "
                            "must run one simulator version and config")
        identity = next(iter(seen.values()))
        with self._lock:
            self._identities[platform] = identity
        return identity

    def close(self):
        for channel in self.channels.values():
            channel.close()


def spawn_daemons(count: int, simd: str, workers: int) -> Tuple[List[subprocess.Popen], List[str]]:
    """`count` local daemons on 127.0.0.1 (port 0), for a farm on one machine (make farm)."""
    if not os.path.exists(simd):
        raise FarmError(f"--spawn: no daemon binary at {simd} (make build, or give --simd PATH)")
    procs, targets = [], []
    for _ in range(count):
        log = tempfile.TemporaryFile(mode="w+")
        proc = subprocess.Popen([simd, "--listen", "127.0.0.1:0", "--workers", str(workers),
                                 "--log-level", "warn"],
                                stdout=subprocess.PIPE, stderr=log, text=True)
        first = proc.stdout.readline().strip()
        if not first.startswith("listening on "):
            proc.kill()
            log.seek(0)
            raise FarmError(f"--spawn: {simd} did not start: {first!r} {log.read()[-500:]}")
        procs.append(proc)
        targets.append(first[len("listening on "):])
    return procs, targets


def stop_daemons(procs: List[subprocess.Popen]) -> None:
    for p in procs:
        if p.poll() is None:
            p.send_signal(signal.SIGTERM)
    for p in procs:
        try:
            p.wait(timeout=30)
        except subprocess.TimeoutExpired:
            p.kill()


# ---- running cases --------------------------------------------------------------------------

def job_key(job: Job, identity: Identity) -> str:
    """Everything that determines a job's report: IR, inputs, launch, platform, simulator."""
    h = hashlib.sha256()
    for part in (job.kernel_ir, job.platform.encode(), str(job.block_dim).encode(),
                 json.dumps(job.options, sort_keys=True).encode(), identity.version.encode(),
                 identity.config_hash.encode()):
        h.update(len(part).to_bytes(8, "little"))
        h.update(part)
    for arg in job.args:
        if arg.kind == "buffer":
            data = arg.array.tobytes()
            h.update(f"buffer {arg.array.dtype} {arg.array.shape} {len(data)}".encode())
            h.update(data)
        else:
            h.update(f"{arg.kind} {arg.value!r}".encode())
    return h.hexdigest()


class Cache:
    """Results by job key, one small JSON file each (safe for concurrent farms)."""

    def __init__(self, folder: Optional[str]):
        self.folder = folder
        if folder:
            os.makedirs(folder, exist_ok=True)

    def get(self, key: str) -> Optional[dict]:
        if not self.folder:
            return None
        try:
            with open(os.path.join(self.folder, key + ".json"), encoding="utf-8") as f:
                return json.load(f)
        except (OSError, ValueError):
            return None

    def put(self, key: str, value: dict) -> None:
        if not self.folder:
            return
        path = os.path.join(self.folder, key + ".json")
        tmp = f"{path}.{os.getpid()}.{threading.get_ident()}.tmp"
        with open(tmp, "w", encoding="utf-8") as f:
            json.dump(value, f)
        os.replace(tmp, path)


def options_of(job: Job) -> simulator_pb2.LaunchOptions:
    options = simulator_pb2.LaunchOptions(timing_only=bool(job.options.get("timing_only")))
    if job.options.get("max_cycles"):
        options.max_cycles = int(job.options["max_cycles"])
    check = job.options.get("check", "")
    if check in client.CHECK_LEVELS:
        options.check = client.CHECK_LEVELS[check]
    return options


def run_job_case(name: str, folder: str, target: str, daemons: Daemons, cache: Cache,
                 timeout: float) -> Outcome:
    start = time.monotonic()
    try:
        job = read_job(folder)
    except JobError as e:
        return Outcome(name, status="ERROR", error=str(e))
    identity = daemons.identity(job.platform)
    key = job_key(job, identity)
    hit = cache.get(key)
    if hit is not None:
        return Outcome(name, cycles=hit["cycles"], status=hit["status"], cached=True,
                       target="cache", platform=job.platform,
                       identity=Identity(hit.get("simulator_version", ""),
                                         hit.get("config_hash", "")))
    try:
        result = client.run_job(daemons.channels[target], job, options_of(job),
                                token=daemons.token, timeout=timeout)
    except client.RunFailed as e:
        if e.unreachable:
            raise
        return Outcome(name, status="ERROR", error=f"{e.code}: {e.message}", target=target,
                       seconds=time.monotonic() - start)
    report = result.report
    status = report_pb2.LaunchReport.Status.Name(report.status)
    if report.check.failed:
        status = "CHECK_FAILED"
    outcome = Outcome(name, cycles=int(report.cycles), status=status, target=target,
                      seconds=time.monotonic() - start, platform=job.platform,
                      identity=Identity(report.simulator_version, report.config_hash))
    if status != "OK":
        outcome.error = report.check.summary or (report.diagnostics[0].message
                                                 if report.diagnostics else status)
    else:
        cache.put(key, {"cycles": outcome.cycles, "status": status, "case": name,
                        "simulator_version": report.simulator_version,
                        "config_hash": report.config_hash})
    return outcome


def run_script(rel: str, path: str, target: str, timeout: float, token: str,
               tls_ca: str, cache: Optional[str] = None) -> List[Outcome]:
    """Runs the script at `path`; its cases are named `<rel>::<kernel>#<n>`."""
    """Runs one script against `target`; one outcome per launch, or one ERROR for the script."""
    start = time.monotonic()
    with tempfile.TemporaryDirectory() as tmp:
        report_file = os.path.join(tmp, "reports.jsonl")
        env = dict(os.environ, AICORE_SIM_ADDRESS=target, AICORE_SIM_REPORT=report_file,
                   PYTHONPATH=os.pathsep.join(
                       [os.path.join(REPO, "clients", "python"),
                        os.environ.get("PYTHONPATH", "")]).rstrip(os.pathsep))
        env.pop("AICORE_SIM_DUMP_IR", None)
        env.pop("AICORE_SIM_RESULT_CACHE", None)
        if cache:
            # The script still runs; its launches whose result is known are not simulated.
            env["AICORE_SIM_RESULT_CACHE"] = cache
        if token:
            env["AICORE_SIM_TOKEN"] = token
        if tls_ca:
            env["AICORE_SIM_TLS_CA"] = tls_ca
        script = os.path.abspath(path)
        try:
            done = subprocess.run([sys.executable, script], cwd=os.path.dirname(script),
                                  env=env, capture_output=True, text=True, timeout=timeout)
        except subprocess.TimeoutExpired:
            return [Outcome(rel, status="ERROR", error=f"timed out after {timeout:.0f} s",
                            target=target)]
        records = []
        if os.path.exists(report_file):
            with open(report_file, encoding="utf-8") as f:
                records = [json.loads(line) for line in f if line.strip()]
    seconds = time.monotonic() - start
    if done.returncode != 0:
        tail = (done.stderr or done.stdout).strip().splitlines()[-3:]
        return [Outcome(rel, status="ERROR", target=target, seconds=seconds,
                        error=f"exit code {done.returncode}: " + " | ".join(tail))]
    counts: Dict[str, int] = {}
    outcomes = []
    for r in records:
        kernel = r.get("kernel", "kernel")
        n = counts.get(kernel, 0)
        counts[kernel] = n + 1
        outcomes.append(Outcome(f"{rel}::{kernel}#{n}", cycles=int(r.get("cycles", 0)),
                                status=r.get("status", ""), target=target,
                                cached=bool(r.get("from_cache")),
                                platform=r.get("platform", ""),
                                identity=Identity(r.get("simulator_version", ""),
                                                  r.get("config_hash", "")),
                                seconds=seconds / max(len(records), 1)))
    if not outcomes:
        # A helper module of the suite's scripts, say: no case (a script whose launches vanish
        # shows as its baseline cases MISSING).
        client.eprint(f"note: {rel} launched no kernel")
    return outcomes


# ---- baseline, table, JUnit -----------------------------------------------------------------

def load_baseline(path: str) -> dict:
    try:
        with open(path, encoding="utf-8") as f:
            data = json.load(f)
    except OSError as e:
        raise FarmError(f"--baseline {path}: {e.strerror} (write one with --update-baseline)")
    except ValueError as e:
        raise FarmError(f"--baseline {path}: not JSON ({e})")
    if not isinstance(data, dict) or data.get("format") != BASELINE_FORMAT or \
            not isinstance(data.get("cases"), dict):
        raise FarmError(f"--baseline {path}: not an {BASELINE_FORMAT} file (its 'format' key "
                        "and a 'cases' object of case name to cycles)")
    return data


def compare(outcomes: List[Outcome], baseline: Optional[dict], threshold: float):
    """Rows (name, before, now, change %, verdict) and the missing baseline cases."""
    cases = baseline["cases"] if baseline else {}
    rows = []
    for o in sorted(outcomes, key=lambda o: o.name):
        before = cases.get(o.name)
        if o.status != "OK":
            verdict = "FAILED"
        elif before is None:
            verdict = "new"
        else:
            change = 100.0 * (o.cycles - before) / before if before else 0.0
            verdict = "regressed" if change > threshold else \
                "improved" if change < -threshold else "unchanged"
        change = None if before is None or o.cycles is None or not before else \
            100.0 * (o.cycles - before) / before
        rows.append((o, before, change, verdict))
    names = {o.name for o in outcomes}
    missing = sorted(n for n in cases if n not in names)
    return rows, missing


def print_table(rows, missing, threshold: float, out) -> None:
    shown = [r for r in rows if r[3] != "unchanged" or (r[2] is not None and r[2] != 0.0)]
    if shown:
        width = max(len(r[0].name) for r in shown)
        print(f"{'case':<{width}}  {'baseline':>10}  {'now':>10}  {'change':>8}  verdict",
              file=out)
        for o, before, change, verdict in shown:
            b = "-" if before is None else str(before)
            n = "-" if o.cycles is None else str(o.cycles)
            c = "" if change is None else f"{change:+.1f}%"
            extra = f"  ({o.error})" if o.error else ""
            print(f"{o.name:<{width}}  {b:>10}  {n:>10}  {c:>8}  {verdict}{extra}", file=out)
    for name in missing:
        print(f"{name}: in the baseline, not in this run (MISSING)", file=out)
    counts: Dict[str, int] = {}
    for r in rows:
        counts[r[3]] = counts.get(r[3], 0) + 1
    cached = sum(1 for r in rows if r[0].cached)
    summary = ", ".join(f"{v} {k}" for k, v in sorted(counts.items()))
    print(f"{len(rows)} cases: {summary}; {cached} from the result cache; threshold "
          f"{threshold:g}%" + (f"; {len(missing)} missing" if missing else ""), file=out)


def write_junit(path: str, rows, missing, threshold: float) -> None:
    suite = ET.Element("testsuite", name="aicore-farm", tests=str(len(rows) + len(missing)))
    failures = errors = 0
    for o, before, change, verdict in rows:
        file_part, _, case_part = o.name.partition("::")
        case = ET.SubElement(suite, "testcase", classname=file_part, name=case_part or file_part,
                             time=f"{o.seconds:.3f}")
        props = ET.SubElement(case, "properties")
        ET.SubElement(props, "property", name="cycles", value=str(o.cycles))
        ET.SubElement(props, "property", name="baseline", value=str(before))
        ET.SubElement(props, "property", name="target", value=o.target)
        if verdict == "FAILED":
            errors += 1
            ET.SubElement(case, "error", message=f"{o.name}: {o.status}").text = o.error
        elif verdict == "regressed":
            failures += 1
            ET.SubElement(case, "failure",
                          message=f"{o.name}: {o.cycles} cycles against the baseline's {before} "
                                  f"({change:+.1f}%, over the {threshold:g}% threshold)")
    for name in missing:
        failures += 1
        file_part, _, case_part = name.partition("::")
        case = ET.SubElement(suite, "testcase", classname=file_part, name=case_part or file_part)
        ET.SubElement(case, "failure", message=f"{name}: in the baseline, not in this run")
    suite.set("failures", str(failures))
    suite.set("errors", str(errors))
    ET.ElementTree(suite).write(path, encoding="utf-8", xml_declaration=True)


def write_baseline(path: str, outcomes: List[Outcome], identities: Dict[str, Identity]) -> None:
    cases = {o.name: o.cycles for o in sorted(outcomes, key=lambda o: o.name) if o.status == "OK"}
    data = {"format": BASELINE_FORMAT,
            "simulator_version": sorted({i.version for i in identities.values()}),
            "config_hashes": {p: i.config_hash for p, i in sorted(identities.items())},
            "cases": cases}
    with open(path, "w", encoding="utf-8") as f:
        json.dump(data, f, indent=1, sort_keys=True)
        f.write("\n")


# ---- command line ---------------------------------------------------------------------------

def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="aicore-farm",
        description="Run a suite of kernels across aicore-simd daemons and compare their cycles "
                    "with a baseline.",
        epilog="Exit codes: 0 no regression or failure; 1 a case regressed, failed or is "
               "missing; 2 bad arguments, suite or baseline; 3 a daemon cannot be reached. "
               "See docs/tools.md.")
    sub = p.add_subparsers(dest="command", required=True)
    r = sub.add_parser("run", help="run a suite", description=__doc__,
                       formatter_class=argparse.RawDescriptionHelpFormatter)
    r.add_argument("suite", metavar="SUITE", nargs="+",
                   help="folder(s) of kernel scripts and/or job folders")
    where = r.add_mutually_exclusive_group(required=True)
    where.add_argument("--targets", metavar="A,B,C", help="daemons, HOST:PORT comma-separated")
    where.add_argument("--spawn", type=int, metavar="N",
                       help="start N local daemons on 127.0.0.1 for this run, stop them after")
    r.add_argument("--simd", default=DEFAULT_SIMD, metavar="PATH",
                   help="daemon binary for --spawn (default: the build's)")
    r.add_argument("--per-target", type=int, default=2, metavar="K",
                   help="cases in flight per daemon (default 2, the daemon's default workers)")
    r.add_argument("--baseline", metavar="FILE",
                   help="JSON of case name to cycles (format aicore-farm-baseline)")
    r.add_argument("--update-baseline", action="store_true",
                   help="write this run's cycles to --baseline (after comparing)")
    r.add_argument("--threshold", type=float, default=2.0, metavar="PCT",
                   help="a case regresses when its cycles grow by more than PCT percent "
                        "(default 2)")
    r.add_argument("--junit", metavar="FILE", help="write JUnit XML of every case")
    r.add_argument("--cache", metavar="DIR",
                   default=os.path.join(os.path.expanduser("~"), ".cache", "aicore-farm"),
                   help="result cache of job cases (default ~/.cache/aicore-farm)")
    r.add_argument("--no-cache", action="store_true", help="neither read nor write the cache")
    r.add_argument("--timeout", type=float, default=900, metavar="SECONDS",
                   help="per job run or script (default 900)")
    client.add_connection_options(r)
    return p


def run(args) -> int:
    if args.update_baseline and not args.baseline:
        raise FarmError("--update-baseline needs --baseline FILE to write")
    if args.per_target < 1:
        raise FarmError(f"--per-target {args.per_target}: must be at least 1")
    suite = discover_all(args.suite)
    baseline = load_baseline(args.baseline) if args.baseline and not (
        args.update_baseline and not os.path.exists(args.baseline)) else None
    token = client.token_from(args.token_file)
    procs: List[subprocess.Popen] = []
    if args.spawn is not None:
        if args.spawn < 1:
            raise FarmError(f"--spawn {args.spawn}: must be at least 1")
        procs, targets = spawn_daemons(args.spawn, args.simd, args.per_target)
    else:
        targets = [t.strip() for t in args.targets.split(",") if t.strip()]
        if not targets:
            raise FarmError(f"--targets {args.targets!r}: no HOST:PORT in it")
    daemons = Daemons(targets, token, args.tls_ca)
    cache = Cache(None if args.no_cache else args.cache)
    outcomes: List[Outcome] = []
    try:
        work = [("job", name, folder) for name, folder in suite.jobs] + \
               [("script", rel, path) for rel, path in suite.scripts]
        bar = None
        if not args.no_progress and sys.stderr.isatty():
            from tqdm import tqdm
            bar = tqdm(total=len(work), unit=" cases", file=sys.stderr, leave=False)
        pool_size = len(targets) * args.per_target
        with concurrent.futures.ThreadPoolExecutor(pool_size) as pool:
            futures = []
            for i, (kind, name, folder) in enumerate(work):
                target = targets[i % len(targets)]
                if kind == "job":
                    futures.append(pool.submit(lambda n=name, f=folder, t=target: [
                        run_job_case(n, f, t, daemons, cache, args.timeout)]))
                else:
                    script_cache = os.path.join(cache.folder, "launches") if cache.folder \
                        else None
                    futures.append(pool.submit(run_script, name, folder, target,
                                               args.timeout, token, args.tls_ca, script_cache))
            for future in concurrent.futures.as_completed(futures):
                outcomes.extend(future.result())
                if bar is not None:
                    bar.update(1)
        if bar is not None:
            bar.close()
        # What the reports say the cases ran with (the daemons' probe only keys the cache).
        identities: Dict[str, Identity] = {}
        for o in outcomes:
            if o.identity is not None and o.identity.version and o.platform:
                identities.setdefault(o.platform, o.identity)
    finally:
        daemons.close()
        stop_daemons(procs)

    rows, missing = compare(outcomes, baseline, args.threshold)
    if baseline and identities:
        versions = sorted({i.version for i in identities.values()})
        if baseline.get("simulator_version") and baseline["simulator_version"] != versions:
            print(f"note: the baseline was made with simulator {baseline['simulator_version']}, "
                  f"this run used {versions}", file=sys.stderr)
        for platform, identity in sorted(identities.items()):
            made = baseline.get("config_hashes", {}).get(platform)
            if made and made != identity.config_hash:
                print(f"note: the baseline's {platform} config was {made}, this run's is "
                      f"{identity.config_hash}: cycle changes may come from the config",
                      file=sys.stderr)
    print_table(rows, missing, args.threshold, sys.stdout)
    if args.junit:
        write_junit(args.junit, rows, missing, args.threshold)
    failed = any(r[3] in ("FAILED", "regressed") for r in rows) or bool(missing)
    if args.update_baseline:
        broken = sum(1 for r in rows if r[3] == "FAILED")
        if broken:
            print(f"the baseline {args.baseline} was not written: {broken} cases failed",
                  file=sys.stderr)
            return EXIT_FAILED
        write_baseline(args.baseline, outcomes, identities)
        print(f"wrote the baseline {args.baseline} ({len(outcomes)} cases)")
        return EXIT_OK
    return EXIT_FAILED if failed else EXIT_OK


def main(argv=None) -> int:
    args = parser().parse_args(argv)
    try:
        return run(args)
    except (FarmError, ValueError, OSError) as e:
        client.eprint(f"aicore-farm: {e}")
        return EXIT_USAGE
    except client.RunFailed as e:
        client.eprint(f"aicore-farm: a daemon cannot be reached ({e.code}: {e.message})")
        return EXIT_UNREACHABLE


if __name__ == "__main__":
    sys.exit(main())
