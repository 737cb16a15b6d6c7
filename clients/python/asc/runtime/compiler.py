"""pyasc's compile step, in its two halves: codegen traces one specialization of a kernel into
kernel IR v1 (`trace_module`, run by `JITFunction._run_codegen`), and `Compiler(options).run(mod,
func_name)` turns that module into the `CompiledKernel` a launch runs, applying the compile
options (locations, kernel type, synchronisation), as pyasc's passes do to its MLIR module."""
from __future__ import annotations

import contextlib
import contextvars
import dataclasses
import time
from typing import Any, Dict, List, NamedTuple, Optional, Tuple

from asc._proto import kernel_pb2
from asc.codegen.builder import IRBuilder, activate
from asc.codegen.function_visitor import CodegenOptions, FunctionVisitor
from asc.language.core.dtype import DataType, KnownTypes
from asc.language.core.ir_value import PlainValue
from asc.language.core.tensor import GlobalAddress
from asc.language.fwk import state as fwk_state


@dataclasses.dataclass
class CompileOptions:
    """pyasc's compile options. Any value is accepted here; `Compiler(options)` checks them."""
    debug: bool = False
    strip_loc: bool = False
    verify_sync: bool = False
    print_ir_before_all: bool = False
    run_passes: bool = True
    kernel_type: Any = None
    opt_level: Optional[int] = 3
    auto_sync: Optional[bool] = True
    auto_sync_log: Optional[str] = ""
    bisheng_options: Optional[Tuple[str, ...]] = None
    always_compile: bool = False
    matmul_cube_only: bool = False
    insert_sync: Optional[bool] = None


class ArgSpec(NamedTuple):
    """What the kernel sees of one runtime argument: a GM pointer or a scalar, and its dtype. A
    `Struct` argument is a pointer to its packed bytes (uint8) with `struct` its class."""
    name: str
    kind: str  # "ptr" or "scalar"
    dtype: DataType
    struct: Any = None

    def key(self) -> str:
        if self.struct is not None:
            return f"StructArgType:{self.struct.__module__}.{self.struct.__qualname__}"
        prefix = "PointerArgType" if self.kind == "ptr" else "PlainArgType"
        return f"{prefix}:{self.dtype.name}"


class Specialization(NamedTuple):
    """pyasc's `Specialization`: the runtime arguments' specs and the compile-time values."""
    arg_specs: Tuple[ArgSpec, ...]
    constexprs: Dict[str, Any]


@dataclasses.dataclass
class TracedModule:
    """What codegen produces and the compile step consumes (pyasc's MLIR module): the traced
    kernel IR before the compile options are applied."""
    name: str
    kernel: kernel_pb2.Kernel
    arg_specs: List[ArgSpec]
    auto_tensors: int  # LocalTensorAuto objects the kernel created (insert_sync's default)
    trace_seconds: float


@dataclasses.dataclass
class CompiledKernel:
    name: str
    ir: kernel_pb2.Kernel
    ir_bytes: bytes
    arg_specs: List[ArgSpec]
    trace_seconds: float


def check_compile_options(options: CompileOptions) -> Optional[str]:
    """What is wrong with `options` for pyasc's compile step, or None."""
    from asc.runtime.config import KernelType
    if options.opt_level not in (1, 2, 3):
        return f"opt_level={options.opt_level!r} is not one of 1, 2, 3"
    if options.kernel_type is not None and not isinstance(options.kernel_type, KernelType):
        return (f"kernel_type={options.kernel_type!r} is not an asc.runtime.config.KernelType "
                f"(one of {', '.join(t.name for t in KernelType)})")
    return None


def kernel_type_value(options: CompileOptions) -> int:
    from asc.runtime.config import KernelType
    kernel_type = options.kernel_type  # checked by Compiler: None or a KernelType
    if kernel_type is None:
        kernel_type = KernelType.AIC_ONLY if options.matmul_cube_only else KernelType.AIV_ONLY
    return kernel_type.value


class Compiler:
    """pyasc's compile step: `Compiler(options)` checks the options (pyasc's RuntimeError
    "Please check input compile option" for an opt_level outside 1-3 or a kernel_type that is no
    KernelType), and `run(mod, func_name)` turns a traced module into a `CompiledKernel`. pyasc
    lowers its MLIR module to a device binary here; aicore-sim's device runs kernel IR, so the
    compile step applies the options to the IR and serialises it."""

    def __init__(self, options: Optional[CompileOptions] = None):
        self.options = CompileOptions() if options is None else options
        problem = check_compile_options(self.options)
        if problem is not None:
            raise RuntimeError(f"Please check input compile option: {problem}")

    def run(self, mod: TracedModule, func_name: str) -> CompiledKernel:
        """`mod` as `JITFunction._run_codegen` returns it; `func_name` names the kernel."""
        if not isinstance(mod, TracedModule):
            raise TypeError("Compiler.run(mod, func_name): mod must be the module "
                            "JITFunction._run_codegen(spec, options) returns, got "
                            f"{type(mod).__name__}")
        options = self.options
        kernel = kernel_pb2.Kernel()
        kernel.CopyFrom(mod.kernel)
        kernel.name = func_name
        kernel.kernel_type = kernel_type_value(options)
        if options.kernel_type is None and mod.kernel.kernel_type == kernel_pb2.KERNEL_MIX_AIC_1_2:
            # A Matmul served by the cube core made the kernel mixed while tracing (6.2).
            kernel.kernel_type = kernel_pb2.KERNEL_MIX_AIC_1_2
        if options.strip_loc:
            _strip_locations(kernel)
        # asc-api.md 1.1: insert_sync None means "on iff the kernel creates a LocalTensorAuto";
        # when on, the user's set_flag/wait_flag are dropped and every sync is inserted (which
        # implies auto_sync). auto_sync alone completes the user's syncs without dropping any.
        insert = mod.auto_tensors > 0 if options.insert_sync is None else bool(options.insert_sync)
        kernel.sync.erase_user_flags = insert
        kernel.sync.auto_sync = bool(options.auto_sync) or insert
        if options.print_ir_before_all:
            print(kernel)
        return CompiledKernel(func_name, kernel, kernel.SerializeToString(), list(mod.arg_specs),
                              mod.trace_seconds)


def _strip_locations(message) -> None:
    """strip_loc: no op, queue or pool keeps its source location, and no file is named."""
    if message.DESCRIPTOR.name == "Kernel":
        message.ClearField("files")
    for field, value in message.ListFields():
        if field.message_type is None:
            continue
        if field.name == "loc":
            message.ClearField("loc")
        elif field.label == field.LABEL_REPEATED:
            for item in value:
                _strip_locations(item)
        else:
            _strip_locations(value)


# The compile options of the kernel being traced: the body needs to know its kernel type (a
# Matmul serves its vector cores only in a mixed kernel; sync_all's sequences differ per type).
_TRACE_COMPILE_OPTIONS: contextvars.ContextVar = contextvars.ContextVar(
    "aicore_sim_trace_compile_options", default=None)


@contextlib.contextmanager
def tracing_with(options: "CompileOptions"):
    token = _TRACE_COMPILE_OPTIONS.set(options)
    try:
        yield
    finally:
        _TRACE_COMPILE_OPTIONS.reset(token)


def trace_module(jit_fn, spec: Specialization, codegen_options: CodegenOptions) -> TracedModule:
    """Trace `jit_fn` (a JITFunction) for one specialization: pyasc's codegen."""
    start = time.perf_counter()
    builder = IRBuilder(jit_fn.__name__)
    compile_options = _TRACE_COMPILE_OPTIONS.get() or CompileOptions()
    builder.kernel.kernel_type = kernel_type_value(compile_options)
    builder.state["compile_options"] = compile_options
    source = jit_fn.source
    with activate(builder):
        builder.set_loc(source.filename, source.fdef.lineno)
        scope: Dict[str, Any] = {}
        specs = {s.name: s for s in spec.arg_specs}
        for name in jit_fn.signature.parameters:
            if name in spec.constexprs:
                scope[name] = spec.constexprs[name]
            elif name in specs:
                scope[name] = _bind_param(builder, specs[name])
        FunctionVisitor(builder, source, scope, jit_fn.global_ns(), codegen_options,
                        is_kernel=True).run()
        # What library objects leave open to the kernel's end (a Matmul client's QUIT).
        for close in reversed(builder.state.get("kernel_closers", [])):
            close()
        fwk_state.finish_kernel(builder)
        state = builder.state.get("fwk")
        kernel = builder.finish()
    return TracedModule(jit_fn.__name__, kernel, list(spec.arg_specs),
                        state.auto_tensors if state is not None else 0,
                        time.perf_counter() - start)


def _bind_param(builder: IRBuilder, spec: ArgSpec):
    param = builder.kernel.params.add()
    param.name = spec.name
    param.value = builder.new_value()
    if spec.kind == "ptr":
        param.kind = kernel_pb2.Param.KIND_POINTER
        param.dtype = spec.dtype.to_ir()
        if spec.struct is not None:
            # pyasc's kernel copies a struct argument into a local struct at entry.
            return spec.struct._load(PlainValue(param.value, KnownTypes.uint64))
        return GlobalAddress(PlainValue(param.value, KnownTypes.uint64), spec.dtype)
    param.kind = kernel_pb2.Param.KIND_SCALAR
    param.dtype = spec.dtype.to_ir()
    return PlainValue(param.value, spec.dtype)
