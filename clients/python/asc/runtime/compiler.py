"""Compile one specialization of a kernel: trace its body into kernel IR v1."""
from __future__ import annotations

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


@dataclasses.dataclass(frozen=True)
class CompileOptions:
    debug: bool = False
    strip_loc: bool = False
    verify_sync: bool = False
    print_ir_before_all: bool = False
    run_passes: bool = True
    kernel_type: Any = None
    opt_level: int = 3
    auto_sync: bool = True
    auto_sync_log: str = ""
    bisheng_options: Optional[Tuple[str, ...]] = None
    always_compile: bool = False
    matmul_cube_only: bool = False
    insert_sync: Optional[bool] = None

    def __post_init__(self):
        if self.opt_level not in (1, 2, 3):
            raise ValueError(f"opt_level must be 1, 2 or 3, got {self.opt_level!r}")


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


@dataclasses.dataclass
class CompiledKernel:
    name: str
    ir: kernel_pb2.Kernel
    ir_bytes: bytes
    arg_specs: List[ArgSpec]
    trace_seconds: float


def kernel_type_value(compile_options: CompileOptions) -> int:
    from asc.runtime.config import KernelType
    kernel_type = compile_options.kernel_type
    if kernel_type is None:
        kernel_type = KernelType.AIC_ONLY if compile_options.matmul_cube_only else \
            KernelType.AIV_ONLY
    return KernelType(getattr(kernel_type, "value", kernel_type)).value


class Compiler:
    """pyasc's compile step: `Compiler(options).run(...)` turns one specialization of a kernel
    into a `CompiledKernel`. pyasc lowers a traced MLIR module to a device binary here; in
    aicore-sim tracing produces the kernel IR the simulator runs, so `run` traces."""

    def __init__(self, options: Optional[CompileOptions] = None):
        self.options = CompileOptions() if options is None else options

    def run(self, jit_fn, arg_specs: List[ArgSpec], constexprs: Optional[Dict[str, Any]] = None,
            codegen_options: Optional[CodegenOptions] = None) -> CompiledKernel:
        """Trace `jit_fn` (a JITFunction) for runtime arguments `arg_specs` and compile-time
        values `constexprs` (parameter name -> value)."""
        return compile_kernel(jit_fn, list(arg_specs), dict(constexprs or {}),
                              codegen_options or CodegenOptions(), self.options)


def compile_kernel(jit_fn, arg_specs: List[ArgSpec], constexprs: Dict[str, Any],
                   codegen_options: CodegenOptions,
                   compile_options: CompileOptions) -> CompiledKernel:
    start = time.perf_counter()
    builder = IRBuilder(jit_fn.__name__, kernel_type_value(compile_options),
                        strip_loc=compile_options.strip_loc)
    source = jit_fn.source
    with activate(builder):
        builder.set_loc(source.filename, source.fdef.lineno)
        scope: Dict[str, Any] = {}
        specs = {s.name: s for s in arg_specs}
        for name in jit_fn.signature.parameters:
            if name in constexprs:
                scope[name] = constexprs[name]
            elif name in specs:
                scope[name] = _bind_param(builder, specs[name])
        FunctionVisitor(builder, source, scope, jit_fn.global_ns(), codegen_options,
                        is_kernel=True).run()
        fwk_state.finish_kernel(builder)
        _set_sync_options(builder, compile_options)
        kernel = builder.finish()
    if compile_options.print_ir_before_all:
        print(kernel)
    return CompiledKernel(jit_fn.__name__, kernel, kernel.SerializeToString(), list(arg_specs),
                          time.perf_counter() - start)


def _set_sync_options(builder: IRBuilder, options: CompileOptions) -> None:
    """asc-api.md 1.1: `insert_sync` None means "on iff the kernel creates a LocalTensorAuto";
    when on, the user's set_flag/wait_flag are dropped and every sync is inserted (which implies
    auto_sync). `auto_sync` alone completes the user's syncs without dropping any."""
    state = builder.state.get("fwk")
    uses_auto = state is not None and state.auto_tensors > 0
    insert = uses_auto if options.insert_sync is None else bool(options.insert_sync)
    builder.kernel.sync.erase_user_flags = insert
    builder.kernel.sync.auto_sync = bool(options.auto_sync) or insert


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
