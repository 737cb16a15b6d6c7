"""`asc`: pyasc-compatible Python frontend of aicore-sim.

Kernels written for pyasc run unchanged: `@asc.jit` traces the Python body into kernel IR v1 and
`kernel[core_num, stream](args)` runs it on the simulator selected by
`asc.runtime.config.set_platform(config.Backend.Model)`.
"""
from asc import _unsupported
from asc._version import __version__  # noqa: F401
from asc.codegen.function_visitor import CodegenOptions
from asc.language import *  # noqa: F401,F403
from asc.language import __all__ as _language_all
from asc.language import adv, basic, core, fwk  # noqa: F401
from asc.runtime.compiler import CompileOptions
from asc.runtime.jit import JITFunction, jit
from asc.runtime.launcher import LaunchOptions
from asc.runtime.report import LaunchReport

__all__ = ["jit", "JITFunction", "CodegenOptions", "CompileOptions", "LaunchOptions",
           "LaunchReport", "adv", "basic", "core", "fwk"] + list(_language_all)

# pyasc names not implemented yet raise NotSupportedError, not AttributeError (asc/_unsupported.py).
__getattr__ = _unsupported.module_getattr(__name__)
