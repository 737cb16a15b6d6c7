"""aicore-submit: run one job on a daemon and print its report (docs/tools.md).

Exit codes: 0 the kernel ran and its report is OK; 1 it ran, but faulted, deadlocked, hit its
cycle limit or failed its check; 2 the job or the command line is wrong; 3 the daemon refused or
failed the run (its gRPC status and text are printed), or could not be reached."""

import argparse
import json
import os
import sys

import numpy as np

from aicore_tools import client
from asc._proto import report_pb2, simulator_pb2
from asc.runtime.jobs import JobError, read_job

EXIT_OK, EXIT_KERNEL, EXIT_USAGE, EXIT_DAEMON = 0, 1, 2, 3


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="aicore-submit",
        description="Run one kernel job (a folder written by AICORE_SIM_DUMP_IR, its job.json, "
                    "or a bare kernel .pb) on an aicore-simd daemon and print its report.",
        epilog="Exit codes: 0 OK; 1 the kernel's report is not OK; 2 bad job or arguments; "
               "3 the daemon refused the run or could not be reached. Job format: docs/jobs.md.")
    p.add_argument("job", metavar="FILE", help="job folder, job.json, or kernel .pb")
    p.add_argument("--target", required=True, metavar="HOST:PORT",
                   help="the daemon's address (aicore-simd --listen); also dns:///NAME:PORT or "
                        "IP:PORT,IP:PORT,... for several (the run goes to one of them)")
    p.add_argument("--platform", help="override the job's platform (e.g. Ascend910B1)")
    p.add_argument("--block-dim", type=int, help="override the job's block_dim")
    p.add_argument("--check", choices=sorted(client.CHECK_LEVELS),
                   help="check level (default: the job's, else the daemon's --check)")
    p.add_argument("--max-cycles", type=int, help="cycle cap (default: the job's)")
    p.add_argument("--timing-only", action="store_true",
                   help="skip the element math no scalar read needs (docs/timing_only.md)")
    p.add_argument("--timeout", type=float, default=600, metavar="SECONDS",
                   help="client deadline for the whole run (default 600)")
    p.add_argument("--out", metavar="DIR",
                   help="write each output buffer as DIR/argN.npy")
    p.add_argument("--json", action="store_true",
                   help="print the whole LaunchReport as JSON instead of the summary")
    client.add_connection_options(p)
    return p


def launch_options(job, args) -> simulator_pb2.LaunchOptions:
    options = simulator_pb2.LaunchOptions()
    max_cycles = args.max_cycles if args.max_cycles is not None else job.options.get("max_cycles")
    if max_cycles:
        options.max_cycles = int(max_cycles)
    check = args.check or job.options.get("check", "")
    if check:
        if check not in client.CHECK_LEVELS:
            raise JobError(f"{job.path}: options.check {check!r} is not one of "
                           f"{', '.join(sorted(client.CHECK_LEVELS))}")
        options.check = client.CHECK_LEVELS[check]
    options.timing_only = bool(args.timing_only or job.options.get("timing_only", False))
    return options


def summary(report: report_pb2.LaunchReport, job) -> str:
    status = report_pb2.LaunchReport.Status.Name(report.status)
    lines = [f"kernel {report.kernel_name} on {report.platform}, block_dim {report.block_dim}: "
             f"{status}",
             f"  cycles {report.cycles} ({report.duration_us:.2f} us at "
             f"{report.clock_mhz:.0f} MHz), {report.simulated_instructions} instructions, "
             f"bound pipe {report.bound_pipe or '-'}"]
    if report.check.summary:
        lines.append(f"  check: {report.check.summary}")
    for d in list(report.diagnostics)[:5]:
        lines.append(f"  {d.message}")
    recorded = job.recorded.get("cycles")
    if recorded is not None:
        same = "same as" if int(recorded) == report.cycles else "recorded run:"
        lines.append(f"  {same} {recorded} cycles when the job was written")
    lines.append(f"  simulator {report.simulator_version}, config {report.config_hash[:12]}")
    return "\n".join(lines)


def main(argv=None) -> int:
    args = parser().parse_args(argv)
    try:
        job = read_job(args.job)
        if args.platform:
            job.platform = args.platform
        if args.block_dim is not None:
            if args.block_dim < 1:
                raise JobError(f"--block-dim {args.block_dim}: must be at least 1")
            job.block_dim = args.block_dim
        options = launch_options(job, args)
        token = client.token_from(args.token_file)
    except (JobError, OSError, ValueError) as e:
        client.eprint(f"aicore-submit: {e}")
        return EXIT_USAGE

    bar = None
    on_progress = None
    if not args.no_progress and sys.stderr.isatty():
        from tqdm import tqdm
        options.progress_interval_ms = 200
        bar = tqdm(total=None, unit=" cycles", unit_scale=True, desc=job.kernel_name,
                   file=sys.stderr, leave=False)

        def on_progress(p):
            bar.update(p.cycle - bar.n)
            bar.set_postfix_str(f"blocks {p.blocks_done}/{p.block_dim}")
    try:
        channel = client.open_channel(args.target, args.tls_ca)
    except (ValueError, OSError) as e:
        client.eprint(f"aicore-submit: {e}")
        return EXIT_USAGE
    try:
        result = client.run_job(channel, job, options, token=token, timeout=args.timeout,
                                on_progress=on_progress)
    except client.RunFailed as e:
        if e.unreachable:
            client.eprint(f"aicore-submit: no daemon answers at {args.target} ({e.message}); "
                          "is aicore-simd running there, and is --target its --listen address?")
        else:
            client.eprint(f"aicore-submit: the daemon at {args.target} answered {e.code}: "
                          f"{e.message}")
        return EXIT_DAEMON
    finally:
        if bar is not None:
            bar.close()
        channel.close()

    report = result.report
    if args.out:
        os.makedirs(args.out, exist_ok=True)
        for index, array in result.outputs.items():
            np.save(os.path.join(args.out, f"arg{index}.npy"), array, allow_pickle=False)
    if args.json:
        from google.protobuf import json_format
        print(json.dumps(json_format.MessageToDict(report, preserving_proto_field_name=True),
                         indent=2, sort_keys=True))
    else:
        print(summary(report, job))
    ok = report.status == report_pb2.LaunchReport.OK and not report.check.failed
    return EXIT_OK if ok else EXIT_KERNEL


if __name__ == "__main__":
    sys.exit(main())
