"""`@asc.jit`: the kernel object, its options, launch syntax and the compilation cache."""
from __future__ import annotations

import collections
import dataclasses
import enum
import functools
import inspect
import numbers
import os
from typing import Any, Callable, Dict, Optional, Tuple, Union, overload

from asc import _tracebacks
from asc.codegen.function_visitor import CodegenOptions, check_constexpr
from asc.codegen.source import FunctionSource
from asc.language.core.constexpr import is_constexpr_annotation
from asc.runtime import kernel_cache
from asc.runtime.compiler import (CompiledKernel, Compiler, CompileOptions, Specialization,
                                  TracedModule, trace_module, tracing_with)
from asc.runtime.launcher import Launcher, LaunchOptions, MockTensor, MockValue, convert_arg

__all__ = ["jit", "JITFunction", "MockTensor", "MockValue"]

_CODEGEN_FIELDS = {f.name for f in dataclasses.fields(CodegenOptions)}
_COMPILE_FIELDS = {f.name for f in dataclasses.fields(CompileOptions)}
_CODEGEN_KEY_ORDER = tuple(sorted(_CODEGEN_FIELDS))
_COMPILE_KEY_ORDER = tuple(sorted(_COMPILE_FIELDS))
_LAUNCH_FIELDS = {f.name for f in dataclasses.fields(LaunchOptions)}
# aicore-sim's own options: how to run, not what to compile (not part of the cache key).
_RUN_FIELDS = {"record_timeline", "check", "timing_only"}
_CHECK_LEVELS = ("off", "warn", "strict", "strict-all")
OPTION_NAMES = _CODEGEN_FIELDS | _COMPILE_FIELDS | _LAUNCH_FIELDS | _RUN_FIELDS


def _check_option_names(names) -> None:
    unknown = [n for n in names if n not in OPTION_NAMES]
    if unknown:
        raise RuntimeError(f"The following option names are unknown: {', '.join(unknown)}")


def _constexpr_key(value):
    """A ConstExpr's part of the cache key: its repr, as pyasc keys it, and for an object other
    than a plain value also the object itself. The key then keeps it alive, so a function made
    and dropped in a loop cannot hand its address, and so its repr, to the next one and reuse a
    kernel traced for the first."""
    plain = (numbers.Number, str, bytes, type(None), enum.Enum)
    if isinstance(value, plain) or (isinstance(value, tuple) and
                                    all(isinstance(v, plain) for v in value)):
        return repr(value)
    try:
        hash(value)
    except TypeError:
        return repr(value)
    return repr(value), value


class JITFunction:
    """A kernel: launch with `kernel[core_num](...)` or `kernel[core_num, stream](...)`.

    A launch runs pyasc's three steps, each a method tests may patch as pyasc's suites do:
    `_run_codegen(spec, options)` traces the body into a module, `_run_compiler(mod, options)`
    turns it into a CompiledKernel (cached per specialization), `_run_launcher(kernel, options,
    runtime_args)` runs it. The compile and launch steps are the classes `compiler` and
    `launcher`."""

    compiler = Compiler
    launcher = Launcher

    def __init__(self, fn: Callable[..., Any], **options: Any) -> None:
        _check_option_names(options)
        self.fn = fn
        self.signature = inspect.signature(fn)
        # Every parameter positional-or-keyword: a call with one positional argument each binds
        # them in order (_prepare's fast path).
        self._plain_params = all(p.kind is p.POSITIONAL_OR_KEYWORD
                                 for p in self.signature.parameters.values())
        conflicts = [p for p in self.signature.parameters if p in OPTION_NAMES]
        if conflicts:
            raise RuntimeError("The following argument names conflict with JIT configuration "
                               f"options: {', '.join(conflicts)}")
        self.options = dict(options)
        self.cache: Dict[Tuple, CompiledKernel] = {}
        self.compile_count = 0
        self._source: Optional[FunctionSource] = None
        self._launch_options = LaunchOptions()
        self._run_options: Dict[str, Any] = {}
        self._check = ""
        functools.update_wrapper(self, fn)

    # ---- source and names visible to the body -------------------------------------------------

    @property
    def source(self) -> FunctionSource:
        if self._source is None:
            self._source = FunctionSource(self.fn)
        return self._source

    def global_ns(self):
        """Module globals plus the function's closure (read at trace time)."""
        closure = {}
        if self.fn.__closure__:
            for name, cell in zip(self.fn.__code__.co_freevars, self.fn.__closure__):
                try:
                    closure[name] = cell.cell_contents
                except ValueError:  # cell not yet filled
                    pass
        return collections.ChainMap(closure, self.fn.__globals__)

    # ---- calling ------------------------------------------------------------------------------

    def __call__(self, *args, **kwargs):
        """Without subscripting, the undecorated Python function runs (pyasc behaviour)."""
        return self.fn(*args, **kwargs)

    def __getitem__(self, launch_options) -> "_BoundLaunch":
        try:
            if isinstance(launch_options, numbers.Integral):
                options = LaunchOptions(core_num=int(launch_options))
            else:
                options = LaunchOptions(*launch_options)
        except TypeError:
            raise TypeError("Parse user launch options failed") from None
        self._launch_options = options
        return _BoundLaunch(self, options)

    def __repr__(self):
        return f"JITFunction({self.fn.__module__}:{self.fn.__qualname__})"

    # ---- compilation --------------------------------------------------------------------------

    def _split_options(self, kwargs) -> Tuple[CodegenOptions, CompileOptions, dict]:
        options = dict(self.options)
        call_args = {}
        for key, value in kwargs.items():
            if key in _CODEGEN_FIELDS or key in _COMPILE_FIELDS or key in _RUN_FIELDS:
                options[key] = value
            else:
                call_args[key] = value
        self._run_options = {k: v for k, v in options.items() if k in _RUN_FIELDS}
        codegen = CodegenOptions(**{k: v for k, v in options.items() if k in _CODEGEN_FIELDS})
        compile_ = CompileOptions(**{k: v for k, v in options.items() if k in _COMPILE_FIELDS})
        # Launch option names given to jit() are left over as arguments (and fail binding).
        for key, value in options.items():
            if key in _LAUNCH_FIELDS:
                call_args.setdefault(key, value)
        return codegen, compile_, call_args

    def _prepare(self, args, kwargs):
        codegen, compile_, call_args = self._split_options(kwargs)
        params = self.signature.parameters
        if not call_args and len(args) == len(params) and self._plain_params:
            arguments = zip(params, args)  # what bind() gives, without its cost per launch
        else:
            arguments = self.signature.bind(*args, **call_args).arguments.items()  # no defaults
        constexprs: Dict[str, Any] = {}
        host_args = []
        for name, value in arguments:
            param = params[name]
            if param.kind in (param.VAR_POSITIONAL, param.VAR_KEYWORD):
                raise TypeError("kernels cannot take *args or **kwargs")
            if is_constexpr_annotation(param.annotation):
                constexprs[name] = check_constexpr(name, param.annotation, value)
            else:
                host_args.append(convert_arg(name, value, self.fn.__name__))
        return codegen, compile_, constexprs, host_args

    def _compiled(self, codegen, compile_, constexprs, host_args) -> Optional[CompiledKernel]:
        specs = [a.spec for a in host_args]
        # The fields read one by one: dataclasses.asdict deep-copies every value, a tenth of a
        # warm launch's Python time.
        key = (self.fn.__module__, self.fn.__qualname__,
               tuple((k, getattr(codegen, k)) for k in _CODEGEN_KEY_ORDER),
               tuple((k, repr(getattr(compile_, k))) for k in _COMPILE_KEY_ORDER),
               tuple((k, _constexpr_key(v)) for k, v in constexprs.items()),
               tuple((s.name, s.key()) for s in specs))
        compiled = None if compile_.always_compile else self.cache.get(key)
        if compiled is None:
            disk_key = self._disk_key(codegen, compile_, constexprs, specs)
            compiled = kernel_cache.load(disk_key, specs) if disk_key else None
            if compiled is None:
                with tracing_with(compile_):
                    mod = self._run_codegen(Specialization(tuple(specs), dict(constexprs)),
                                            codegen)
                compiled = self._run_compiler(mod, compile_)
                self.compile_count += 1
                if disk_key and isinstance(compiled, CompiledKernel):
                    kernel_cache.store(disk_key, compiled)
            if compiled is not None:  # a patched _run_compiler returns None: nothing to keep
                self.cache[key] = compiled
        return compiled

    def _disk_key(self, codegen, compile_, constexprs, specs) -> Optional[str]:
        """The kernel cache's key (asc/runtime/kernel_cache.py), or None to trace without it:
        the cache is off, `always_compile` asks for a trace, `print_ir_before_all` for the IR
        printed while compiling, or pyasc's compile steps are replaced (a test's patch or a
        subclass's own steps must run, and their product must not be kept)."""
        if compile_.always_compile or compile_.print_ir_before_all or \
                not kernel_cache.cache_dir():
            return None
        steps = (getattr(self._run_codegen, "__func__", None),
                 getattr(self._run_compiler, "__func__", None), self.compiler)
        if steps != _PLAIN_STEPS:
            return None
        return kernel_cache.key(self, codegen, compile_, constexprs, specs)

    # ---- pyasc's three steps ------------------------------------------------------------------

    def _run_codegen(self, spec: Specialization, options: CodegenOptions) -> TracedModule:
        """Trace the kernel body for `spec` (runtime argument specs and ConstExpr values)."""
        return trace_module(self, spec, options)

    def _run_compiler(self, mod: TracedModule, options: CompileOptions) -> CompiledKernel:
        """pyasc's compile step: checks `options` (RuntimeError "Please check input compile
        option ...") and applies them to the traced module."""
        return self.compiler(options).run(mod, self.fn.__name__)

    def _run_launcher(self, kernel: CompiledKernel, options: LaunchOptions, runtime_args):
        """Run `kernel` on `options.core_num` cores; returns the LaunchReport."""
        launcher = self.launcher(options, record_timeline=self._record_timeline(),
                                 check=self._check, timing_only=self._timing_only())
        return launcher.run(kernel, self.fn.__name__, list(runtime_args))

    def compile(self, *args, **kwargs) -> CompiledKernel:
        """Trace (or fetch from the cache) the specialization for these arguments; no launch.
        Arguments may be real values or MockTensor/MockValue placeholders."""
        __tracebackhide__ = True  # noqa: F841 - read by pytest
        try:
            codegen, compile_, constexprs, host_args = self._prepare(args, kwargs)
            return self._compiled(codegen, compile_, constexprs, host_args)
        except Exception as exc:  # noqa: BLE001 - shown as the user's error, not our frames
            _tracebacks.hide_internals(exc)
            raise

    def _launch(self, options: LaunchOptions, args, kwargs):
        if not isinstance(options.core_num, int) or options.core_num <= 0:
            raise ValueError("Core number should be large than 0")
        codegen, compile_, constexprs, host_args = self._prepare(args, kwargs)
        self._check = self._check_level(compile_)
        compiled = self._compiled(codegen, compile_, constexprs, host_args)
        if os.environ.get("DRY_RUN"):
            return None
        # The one call per launch that touches the device (tests patch it, or Launcher.run).
        return self._run_launcher(compiled, options, tuple(host_args))

    def _record_timeline(self) -> bool:
        record = self._run_options.get("record_timeline")
        if record is None:
            record = os.environ.get("AICORE_SIM_TIMELINE", "") not in ("", "0")
        return bool(record)

    def _timing_only(self) -> bool:
        """`timing_only=` wins, else AICORE_SIM_TIMING_ONLY (docs/timing_only.md)."""
        timing = self._run_options.get("timing_only")
        if timing is None:
            timing = os.environ.get("AICORE_SIM_TIMING_ONLY", "") not in ("", "0")
        return bool(timing)

    def _check_level(self, compile_: CompileOptions) -> str:
        """`check=` wins; pyasc's verify_sync=True means strict; else AICORE_SIM_CHECK."""
        level = self._run_options.get("check")
        if level is None:
            return "strict" if compile_.verify_sync else ""
        if level not in _CHECK_LEVELS:
            raise ValueError(f"check={level!r} is not one of {', '.join(_CHECK_LEVELS)}")
        return level


# pyasc's compile steps as this module defines them: the kernel cache stands in for them only.
_PLAIN_STEPS = (JITFunction._run_codegen, JITFunction._run_compiler, Compiler)


class _BoundLaunch:
    """`kernel[core_num, stream]`: calling it compiles (or reuses) and launches."""

    def __init__(self, fn: JITFunction, options: LaunchOptions):
        self.fn = fn
        self.options = options

    def __call__(self, *args, **kwargs):
        __tracebackhide__ = True  # noqa: F841 - read by pytest
        try:
            return self.fn._launch(self.options, args, kwargs)
        except Exception as exc:  # noqa: BLE001 - shown as the user's error, not our frames
            _tracebacks.hide_internals(exc)
            raise


@overload
def jit(fn: Callable[..., Any]) -> JITFunction: ...


@overload
def jit(fn: None = None, **options: Any) -> Callable[[Callable[..., Any]], JITFunction]: ...


def jit(fn: Optional[Callable[..., Any]] = None,
        **options: Any) -> Union[JITFunction, Callable[[Callable[..., Any]], JITFunction]]:
    """Makes a kernel of a Python function: `@asc.jit` or `@asc.jit(**options)`.

    The options are the fields of CodegenOptions, CompileOptions and LaunchOptions (asc-api.md
    1.1); any other name is a RuntimeError. Launch the result as `kernel[core_num](args)` or
    `kernel[core_num, stream](args)`: the body is traced into kernel IR once per specialization
    and run on the simulator."""
    if fn is not None:
        if not callable(fn):
            raise TypeError("asc.jit expects a function")
        return JITFunction(fn, **options)
    _check_option_names(options)
    return lambda f: JITFunction(f, **options)
