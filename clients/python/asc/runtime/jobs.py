"""Self-contained kernel jobs (docs/jobs.md): a folder any gRPC client can replay.

    <dir>/job.json     what to run: platform, block_dim, the arguments in order, launch options,
                       and what the launch that wrote it reported (cycles, status)
    <dir>/kernel.pb    the kernel's IR, an aicore.ir.v1.Kernel message
    <dir>/argN.npy     the input bytes of buffer argument N, as the array the kernel was given

`write_job` is what the Python frontend calls for each launch when AICORE_SIM_DUMP_IR=DIR is set;
`read_job` loads one back (a job folder, its job.json, or a bare kernel .pb run without
arguments)."""

import json
import os
import re
from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional

import numpy as np

FORMAT = "aicore-job"
FORMAT_VERSION = 1


class JobError(ValueError):
    """A job folder or file that cannot be read: the message names the file and what is wrong."""


@dataclass
class JobArg:
    kind: str                      # "buffer", "int" or "float"
    value: Any = None              # the scalar, for "int" and "float"
    array: Optional[np.ndarray] = None  # the input bytes, for "buffer"
    name: str = ""
    output: bool = True            # buffers: streamed back after the run


@dataclass
class Job:
    kernel_name: str
    kernel_ir: bytes
    platform: str = "Ascend910B1"
    block_dim: int = 1
    args: List[JobArg] = field(default_factory=list)
    options: Dict[str, Any] = field(default_factory=dict)
    recorded: Dict[str, Any] = field(default_factory=dict)
    path: str = ""


def _folder_name(kernel_name: str) -> str:
    safe = re.sub(r"[^A-Za-z0-9_.-]", "_", kernel_name) or "kernel"
    return "_" + safe[1:] if safe.startswith(".") else safe


def claim_folder(root: str, kernel_name: str) -> str:
    """A new folder <root>/<kernel>_<n> (n counts up from 0), created atomically."""
    os.makedirs(root, exist_ok=True)
    base = _folder_name(kernel_name)
    n = 0
    while True:
        path = os.path.join(root, f"{base}_{n}")
        try:
            os.mkdir(path)
            return path
        except FileExistsError:
            n += 1


def write_job(root: str, job: Job) -> str:
    """Writes `job` into a new folder below `root`; returns the folder."""
    folder = claim_folder(root, job.kernel_name)
    with open(os.path.join(folder, "kernel.pb"), "wb") as f:
        f.write(job.kernel_ir)
    args = []
    for i, arg in enumerate(job.args):
        entry: Dict[str, Any] = {"kind": arg.kind}
        if arg.name:
            entry["name"] = arg.name
        if arg.kind == "buffer":
            file = f"arg{i}.npy"
            np.save(os.path.join(folder, file), np.ascontiguousarray(arg.array),
                    allow_pickle=False)
            entry.update(file=file, dtype=str(arg.array.dtype), shape=list(arg.array.shape),
                         bytes=int(arg.array.nbytes), output=bool(arg.output))
        else:
            entry["value"] = arg.value
        args.append(entry)
    document = {
        "format": FORMAT,
        "format_version": FORMAT_VERSION,
        "kernel": job.kernel_name,
        "kernel_file": "kernel.pb",
        "platform": job.platform,
        "block_dim": int(job.block_dim),
        "args": args,
        "options": job.options,
        "recorded": job.recorded,
    }
    with open(os.path.join(folder, "job.json"), "w", encoding="utf-8") as f:
        json.dump(document, f, indent=2, sort_keys=True)
        f.write("\n")
    return folder


def _fail(path: str, what: str) -> JobError:
    return JobError(f"{path}: {what} (the job format is docs/jobs.md)")


def read_job(path: str) -> Job:
    """A job folder, its job.json, or a bare kernel IR file (.pb: no arguments, block_dim 1)."""
    if os.path.isdir(path):
        path = os.path.join(path, "job.json")
    if not os.path.exists(path):
        raise JobError(f"{path}: no such file (give a job folder, its job.json, or a kernel .pb)")
    with open(path, "rb") as f:
        raw = f.read()
    try:
        document = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError):
        document = None
    if not isinstance(document, dict) or document.get("format") != FORMAT:
        # Not a job.json: the bytes are taken as a kernel's IR, for the daemon to judge.
        name = os.path.splitext(os.path.basename(path))[0]
        return Job(kernel_name=name, kernel_ir=raw, path=path)
    version = document.get("format_version")
    if version != FORMAT_VERSION:
        raise _fail(path, f"format_version {version!r}; this tool reads {FORMAT_VERSION}")
    folder = os.path.dirname(os.path.abspath(path))
    kernel_file = os.path.join(folder, str(document.get("kernel_file", "kernel.pb")))
    try:
        with open(kernel_file, "rb") as f:
            ir = f.read()
    except OSError as e:
        raise _fail(path, f"its kernel file {kernel_file} cannot be read: {e.strerror}") from e
    args = []
    for i, entry in enumerate(document.get("args", [])):
        kind = entry.get("kind") if isinstance(entry, dict) else None
        if kind == "buffer":
            file = os.path.join(folder, str(entry.get("file", "")))
            try:
                array = np.load(file, allow_pickle=False)
            except (OSError, ValueError) as e:
                raise _fail(path, f"args[{i}]: {file} is not a readable .npy ({e})") from e
            args.append(JobArg("buffer", array=array, name=entry.get("name", ""),
                               output=bool(entry.get("output", True))))
        elif kind in ("int", "float"):
            value = entry.get("value")
            if kind == "int" and not isinstance(value, int) or \
                    kind == "float" and not isinstance(value, (int, float)):
                raise _fail(path, f"args[{i}]: {kind} argument with value {value!r}")
            args.append(JobArg(kind, value=value, name=entry.get("name", "")))
        else:
            raise _fail(path, f"args[{i}] has kind {kind!r}; expected buffer, int or float")
    block_dim = document.get("block_dim", 1)
    if not isinstance(block_dim, int) or block_dim < 1:
        raise _fail(path, f"block_dim {block_dim!r} is not a positive integer")
    return Job(kernel_name=str(document.get("kernel", "")), kernel_ir=ir,
               platform=str(document.get("platform", "Ascend910B1")), block_dim=block_dim,
               args=args, options=dict(document.get("options", {})),
               recorded=dict(document.get("recorded", {})), path=path)
