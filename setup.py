"""Builds the aicore-sim Python distribution (pyproject.toml): the `asc` and `aicore_tools`
packages from clients/python, with the native module `asc._aicore_native` and the generated
`asc/_isa.py` and `asc/_proto/` made by the project's CMake build, which runs first.

The CMake build directory is AICORE_SIM_BUILD_DIR, else `build` (the Makefile's); it is
configured for the interpreter running pip when it does not exist yet. The version is the
repository's VERSION file, as for every other part of the project."""
import glob
import os
import subprocess
import sys
import sysconfig

from setuptools import find_packages, setup
from setuptools.command.build_py import build_py
from setuptools.dist import Distribution

ROOT = os.path.dirname(os.path.abspath(__file__))
SOURCE = os.path.join(ROOT, "clients", "python")
PACKAGES = ["asc", "asc.*", "aicore_tools", "aicore_tools.*"]


def _version():
    with open(os.path.join(ROOT, "VERSION"), encoding="utf-8") as f:
        return f.read().strip()


def _run(cmd):
    print("+ " + " ".join(cmd), flush=True)
    subprocess.run(cmd, check=True)


class CMakeBuildPy(build_py):
    """build_py after the CMake targets that write the package's native and generated files."""

    def run(self):
        build = os.path.abspath(os.environ.get("AICORE_SIM_BUILD_DIR", os.path.join(ROOT, "build")))
        if not os.path.exists(os.path.join(build, "CMakeCache.txt")):
            _run(["cmake", "-S", ROOT, "-B", build, f"-DPython3_EXECUTABLE={sys.executable}"])
        _run(["cmake", "--build", build, "--target", "_aicore_native", "-j",
              str(os.cpu_count() or 1)])
        suffix = sysconfig.get_config_var("EXT_SUFFIX")
        if not glob.glob(os.path.join(SOURCE, "asc", "_aicore_native" + suffix)):
            built = [os.path.basename(p) for p in
                     glob.glob(os.path.join(SOURCE, "asc", "_aicore_native*.so"))]
            raise SystemExit(
                f"the CMake build in {build} made {built or 'no native module'}, but this Python "
                f"({sys.version.split()[0]}) loads _aicore_native{suffix}. Fix: build for this "
                f"Python in its own directory: AICORE_SIM_BUILD_DIR=build-py{sys.version_info[0]}"
                f"{sys.version_info[1]} pip install --no-build-isolation --no-index .")
        # The generated packages (asc._proto) exist only now.
        self.packages = find_packages(SOURCE, include=PACKAGES)
        super().run()


class NativeDistribution(Distribution):
    """A wheel with a compiled module: tagged for this Python and platform, not pure."""

    def has_ext_modules(self):
        return True


setup(
    version=_version(),
    package_dir={"": "clients/python"},
    packages=find_packages(SOURCE, include=PACKAGES),
    package_data={"asc": ["_aicore_native*.so", "py.typed"]},
    cmdclass={"build_py": CMakeBuildPy},
    distclass=NativeDistribution,
    zip_safe=False,
)
