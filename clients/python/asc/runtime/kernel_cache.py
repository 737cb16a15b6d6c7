"""Compiled kernels on disk, so a second process launches a kernel without tracing it again
(docs/frontend.md "Kernel cache").

The directory is pyasc's: PYASC_CACHE_DIR, else $PYASC_HOME/.pyasc/cache, else ~/.pyasc/cache; an
empty PYASC_CACHE_DIR turns the cache off, as in pyasc. Entries live in its `aicore-sim`
subdirectory, one file per kernel specialization, named by the SHA-256 of everything that decides
the traced IR:

- the frontend: the bytes of every .py file of the `asc` package, the Python version and
  numpy's version;
- the kernel: its module and name, its file's text and first line (the tracer reads the source,
  and the IR records file, line and column), its defaults and annotations, and the value of
  every global or closure name its code names: numbers, strings, enums, dtypes, containers,
  structs by value; @asc.jit sub-kernels the same way, recursively; plain Python functions it
  calls by their bytecode and what they name; the user's classes by what their bodies define;
  the attributes it names of a user module or class (`cfg.TILE`); installed libraries by
  version;
- the launch: the compile and codegen options, the ConstExpr values, the runtime arguments'
  kinds and dtypes (and a struct argument's layout).

A value it cannot describe (an arbitrary object) leaves that kernel
out of the disk cache: it is traced in every process, as before. Writes go to a temporary file
in the same directory and are renamed into place, so a reader sees a whole entry or none; an
entry that does not read back whole (truncated, corrupt, another format) is ignored, and the
kernel traced and written again. Entries hold IR bytes and a JSON header, no pickles.
"""
from __future__ import annotations

import collections
import dataclasses
import enum
import hashlib
import json
import linecache
import marshal
import os
import sys
import types
from typing import List, Optional

import numpy as np

_FORMAT = b"aicore-sim kernel cache 1\n"
_SUBDIR = "aicore-sim"


def cache_dir() -> str:
    """The directory compiled kernels go to, or "" when the cache is off (PYASC_CACHE_DIR set
    to the empty string)."""
    configured = os.environ.get("PYASC_CACHE_DIR")
    if configured is not None:
        return os.path.join(configured, _SUBDIR) if configured else ""
    home = os.environ.get("PYASC_HOME") or os.path.expanduser("~")
    return os.path.join(home, ".pyasc", "cache", _SUBDIR)


class _Uncacheable(Exception):
    """A value the key cannot describe by content: the kernel stays out of the disk cache."""


# ---- the key ----------------------------------------------------------------------------------

_frontend: List[str] = []


def frontend_version() -> str:
    """SHA-256 of the asc package's .py files (paths and bytes), with the Python and numpy
    versions: any change to the frontend, however small, gives new keys. Computed once."""
    if not _frontend:
        root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
        h = hashlib.sha256()
        h.update(f"{sys.implementation.cache_tag} numpy {np.__version__}\n".encode())
        paths = []
        for folder, dirs, files in os.walk(root):
            dirs[:] = sorted(d for d in dirs if d != "__pycache__")
            paths += [os.path.join(folder, f) for f in files if f.endswith(".py")]
        for path in sorted(paths):
            with open(path, "rb") as f:
                data = f.read()
            h.update(f"{os.path.relpath(path, root)} {len(data)}\n".encode())
            h.update(data)
        _frontend.append(h.hexdigest())
    return _frontend[0]


def key(jit_fn, codegen, compile_, constexprs: dict, specs) -> Optional[str]:
    """The disk key of one specialization of `jit_fn`, or None when something the IR depends on
    cannot be described by content."""
    describe = _Describer()
    try:
        parts = [frontend_version(), describe.kernel(jit_fn)]
        for options in (codegen, compile_):
            parts += [f"{f.name}={describe.value(getattr(options, f.name))}"
                      for f in dataclasses.fields(options)]
        parts += [f"constexpr {name}={describe.value(value)}"
                  for name, value in constexprs.items()]
        for spec in specs:
            struct = describe.value(spec.struct) if spec.struct is not None else ""
            parts.append(f"arg {spec.name} {spec.key()} {struct}")
    except Exception:  # noqa: BLE001 - _Uncacheable, or a value that fails to describe itself
        return None
    return hashlib.sha256("\n".join(parts).encode()).hexdigest()


def _is_frontend(module_name: str) -> bool:
    return module_name == "asc" or module_name.startswith("asc.")


def _library_version(module_name: str) -> Optional[str]:
    """For a module installed with Python (the standard library, dist- or site-packages) or
    built in: its top package's version (described by name and version, not by content). None
    for the user's own modules."""
    top = module_name.partition(".")[0]
    if top in sys.builtin_module_names:
        return ""
    module = sys.modules.get(module_name) or sys.modules.get(top)
    path = getattr(module, "__file__", None)
    if path is None:
        return None  # `python -c` code, a namespace package: the user's
    path = os.path.abspath(path)
    prefixes = {sys.prefix, sys.base_prefix, sys.exec_prefix}
    installed = any(path.startswith(os.path.join(p, "lib") + os.sep) for p in prefixes) or \
        "-packages" + os.sep in path
    if not installed:
        return None
    return str(getattr(sys.modules.get(top), "__version__", ""))


class _Describer:
    """Turns the values a kernel's IR depends on into text, recursively, once per object."""

    def __init__(self):
        self.done = {}  # id -> description (and the object, kept alive while describing)

    def kernel(self, jit_fn) -> str:
        """A kernel or sub-kernel: the tracer reads its source, so its file's text (and where
        in it the function starts), plus what its code reads."""
        fn = jit_fn.fn
        filename = fn.__code__.co_filename
        lines = _file_lines(filename)
        traced = jit_fn._source  # the source an earlier trace of this object read, if any
        if traced is not None:
            start = traced.first_line - 1
            if "".join(lines[start:start + len(traced.text.splitlines())]) != traced.text:
                raise _Uncacheable(f"{filename} changed since {fn.__qualname__} was traced")
        text = hashlib.sha256("".join(lines).encode()).hexdigest()
        return "\n".join([f"kernel {fn.__module__}.{fn.__qualname__}", filename,
                          f"line {fn.__code__.co_firstlineno} of {len(lines)}, text {text}",
                          self._reads(fn, jit_fn.global_ns())])

    def _reads(self, fn, namespace) -> str:
        """What a function's code reads besides its arguments: its defaults and annotations,
        and the value of every global or closure name its code (nested code included) names;
        through a user module or class, the attributes of it the code names (`cfg.TILE`)."""
        # Closure names are the function's own free variables; a nested comprehension's free
        # variables are the function's locals.
        names = set(fn.__code__.co_freevars)
        for code in _codes(fn.__code__):
            names.update(code.co_names)
        read = {}
        for name in sorted(names):
            if name in namespace:
                read[name] = self.value(namespace[name])
                self._attributes(namespace[name], name, names, read, depth=3)
        return "\n".join([f"defaults {self.value(fn.__defaults__)}",
                          f"kwdefaults {self.value(fn.__kwdefaults__)}",
                          f"annotations {self.value(getattr(fn, '__annotations__', None))}"] +
                         [f"{name}={text}" for name, text in sorted(read.items())])

    def _attributes(self, owner, path, names, read, depth):
        """Attributes of a user module or class that the code may read, named in `names`."""
        if depth == 0 or not isinstance(owner, (types.ModuleType, type)):
            return
        module = owner.__name__ if isinstance(owner, types.ModuleType) else owner.__module__
        if _is_frontend(module) or _library_version(module) is not None:
            return  # the frontend's hash, or the library's version, covers it
        for attr in sorted(names):
            if attr in getattr(owner, "__dict__", {}) and f"{path}.{attr}" not in read:
                value = owner.__dict__[attr]
                read[f"{path}.{attr}"] = self.value(value)
                self._attributes(value, f"{path}.{attr}", names, read, depth - 1)

    def value(self, value) -> str:
        if value is None or isinstance(value, (bool, int, float, complex, str, bytes)):
            return f"{type(value).__name__}:{value!r}"
        known = self.done.get(id(value))
        if known is not None:
            return known[0]
        self.done[id(value)] = ("<recursive>", value)
        text = self._describe(value)
        self.done[id(value)] = (text, value)
        return text

    def _describe(self, value) -> str:
        from asc.language.core.constexpr import ConstExpr
        from asc.language.core.dtype import DataType
        from asc.language.core.struct import Struct
        from asc.runtime.jit import JITFunction
        if isinstance(value, enum.Enum):
            return f"enum {_qualified(type(value))}.{value.name}={self.value(value.value)}"
        if isinstance(value, (tuple, list)):
            return f"{type(value).__name__}({', '.join(self.value(v) for v in value)})"
        if isinstance(value, (set, frozenset)):
            return f"{type(value).__name__}({', '.join(sorted(self.value(v) for v in value))})"
        if isinstance(value, dict):
            items = ", ".join(f"{self.value(k)}: {self.value(v)}" for k, v in value.items())
            return f"dict({items})"
        if isinstance(value, DataType):
            return f"DataType {value.name}"
        if isinstance(value, ConstExpr):
            return f"ConstExpr({self.value(ConstExpr.unwrap(value))})"
        if isinstance(value, (np.generic, np.dtype)):
            return f"numpy {value.dtype if isinstance(value, np.generic) else ''} {value!r}"
        if isinstance(value, np.ndarray):
            data = hashlib.sha256(np.ascontiguousarray(value).view(np.uint8).tobytes())
            return f"ndarray {value.dtype} {value.shape} {data.hexdigest()}"
        if isinstance(value, JITFunction):
            return f"jit {self.kernel(value)}"
        if isinstance(value, types.ModuleType):
            return self._module(value)
        if isinstance(value, type):
            return self._class(value)
        if isinstance(value, types.FunctionType):
            return self._function(value)
        if isinstance(value, (types.BuiltinFunctionType, types.BuiltinMethodType)):
            return f"builtin {getattr(value, '__module__', '')}.{value.__qualname__}"
        if isinstance(value, Struct):
            return f"struct {self.value(type(value))} {value.pack().hex()}"
        if dataclasses.is_dataclass(value):
            fields = ", ".join(f"{f.name}={self.value(getattr(value, f.name))}"
                               for f in dataclasses.fields(value))
            return f"{self.value(type(value))}({fields})"
        # Another object of the frontend or of an installed library (typing.Tuple in a hint):
        # its repr, when that names no address.
        module = type(value).__module__ or ""
        text = repr(value)
        if (_is_frontend(module) or _library_version(module) is not None) and " at 0x" not in text:
            return f"object {self.value(type(value))} {text}"
        raise _Uncacheable(type(value).__qualname__)

    def _module(self, module) -> str:
        name = module.__name__
        if _is_frontend(name):
            return f"module {name}"  # the frontend's hash covers it
        version = _library_version(name)
        # A user module: the names the kernel reads through it are described one by one.
        return f"module {name} {version if version is not None else '(user)'}"

    def _class(self, cls) -> str:
        from asc.language.core.struct import Field, Struct
        name = _qualified(cls)
        if _is_frontend(cls.__module__):
            return f"class {name}"
        version = _library_version(cls.__module__)
        if version is not None:
            return f"class {name} {version}"
        if issubclass(cls, enum.Enum):
            return f"enum class {name} " + ", ".join(self.value(m) for m in cls)
        # A user class: its bases and everything its body defines (methods by their code).
        parts = [f"class {name} bases {self.value(cls.__bases__)}"]
        if issubclass(cls, Struct):
            fields = [f"{f.attr} {f.name} {f.dtype} {self.value(_plain_default(f.default))} "
                      f"{self.value(getattr(f, 'struct_cls', None))}" for f in cls._fields]
            parts.append(f"layout {cls.sizeof()} " + "; ".join(fields))
        for attr, value in cls.__dict__.items():
            if attr in _CLASS_BOOKKEEPING or isinstance(value, Field) or \
                    (issubclass(cls, Struct) and attr in ("_fields", "_ctype")):
                continue
            if isinstance(value, (staticmethod, classmethod)):
                value = value.__func__
            if isinstance(value, property):
                value = (value.fget, value.fset, value.fdel)
            parts.append(f"{attr}={self.value(value)}")
        return "\n".join(parts)

    def _function(self, fn) -> str:
        """A plain function the kernel calls while tracing: its code runs, so its bytecode."""
        module = fn.__module__ or ""
        name = f"{module}.{fn.__qualname__}"
        if _is_frontend(module):
            return f"function {name}"
        version = _library_version(module)
        if version is not None:
            return f"function {name} {version}"
        closure = dict(zip(fn.__code__.co_freevars,
                           [_cell(c) for c in fn.__closure__ or ()]))
        namespace = collections.ChainMap(closure, fn.__globals__)
        code = hashlib.sha256(marshal.dumps(fn.__code__)).hexdigest()
        return "\n".join([f"function {name} code {code}", self._reads(fn, namespace)])


# What every class body has: not the user's definitions.
_CLASS_BOOKKEEPING = frozenset({"__module__", "__qualname__", "__doc__", "__dict__",
                                "__weakref__", "__dataclass_fields__", "__dataclass_params__"})


def _cell(cell):
    try:
        return cell.cell_contents
    except ValueError:  # not filled yet
        return None


def _file_lines(filename: str) -> List[str]:
    """The file's current lines, as the tracer reads them (linecache, checked against the
    file)."""
    linecache.checkcache(filename)
    lines = linecache.getlines(filename)
    if not lines:
        raise _Uncacheable(f"no source for {filename}")
    return lines


def _qualified(cls) -> str:
    return f"{cls.__module__}.{cls.__qualname__}"


def _plain_default(default):
    """A struct field's default, or None for 'required' (a private sentinel object)."""
    plain = (type(None), bool, int, float, str, enum.Enum)
    return default if isinstance(default, plain) else None


def _codes(code):
    """`code` and every code object nested in it (inner functions, comprehensions)."""
    yield code
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            yield from _codes(const)


# ---- entries ----------------------------------------------------------------------------------

def load(digest: str, specs):
    """The CompiledKernel stored under `digest`, or None when there is none or it does not read
    back whole (it is then traced and written again)."""
    from asc._proto import kernel_pb2
    from asc.runtime.compiler import CompiledKernel
    folder = cache_dir()
    if not folder:
        return None
    try:
        with open(os.path.join(folder, digest + ".kernel"), "rb") as f:
            data = f.read()
        if not data.startswith(_FORMAT):
            return None
        header_end = data.index(b"\n", len(_FORMAT))
        header = json.loads(data[len(_FORMAT):header_end])
        ir_bytes = data[header_end + 1:]
        if header["key"] != digest or len(ir_bytes) != header["ir_size"] or \
                hashlib.sha256(ir_bytes).hexdigest() != header["ir_sha256"]:
            return None
        ir = kernel_pb2.Kernel.FromString(ir_bytes)
        return CompiledKernel(str(header["name"]), ir, ir_bytes, list(specs),
                              float(header["trace_seconds"]))
    except Exception:  # noqa: BLE001 - a missing or damaged entry is a miss, never an error
        return None


def store(digest: str, compiled) -> None:
    """Writes `compiled` under `digest`: to a temporary file in the cache directory, renamed
    over the entry, so readers and concurrent writers never see half a file. A directory that
    cannot be written leaves the kernel uncached."""
    folder = cache_dir()
    if not folder or not isinstance(compiled.ir_bytes, bytes):
        return
    import tempfile  # here, not at import: it brings shutil, bz2 and lzma, tens of ms
    header = {"key": digest, "name": compiled.name, "ir_size": len(compiled.ir_bytes),
              "ir_sha256": hashlib.sha256(compiled.ir_bytes).hexdigest(),
              "trace_seconds": float(compiled.trace_seconds)}
    tmp = None
    try:
        os.makedirs(folder, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=".tmp-", suffix=".kernel", dir=folder)
        with os.fdopen(fd, "wb") as f:
            f.write(_FORMAT + json.dumps(header, sort_keys=True).encode() + b"\n")
            f.write(compiled.ir_bytes)
        os.replace(tmp, os.path.join(folder, digest + ".kernel"))
        tmp = None
    except (OSError, TypeError, ValueError):
        pass
    finally:
        if tmp is not None:
            try:
                os.unlink(tmp)
            except OSError:
                pass
