"""Installing aicore-sim as a user would (issue 24, docs/install.md), from the build `make test`
made: the Python package through pip into a virtual environment, the C++ package through
`cmake --install` and find_package(aicoresim), the .deb through CPack, and the systemd unit
checked offline by systemd-analyze. Each runs a kernel or inspects what a user gets; the tools
come from scripts/setup-deps.sh, so a missing one fails with the package to install."""
import os
import re
import shutil
import subprocess
import sys
import textwrap

import pytest

from conftest import REPO
from test_daemon import running_daemon

BUILD = os.path.abspath(os.environ.get("AICORE_SIM_BUILD_DIR", os.path.join(REPO, "build")))
FIXTURES = os.path.join(REPO, "tests", "install")
with open(os.path.join(REPO, "VERSION"), encoding="utf-8") as _f:
    VERSION = _f.read().strip()

# The vector add of examples/vadd.py as the frontend emitted it (float32; x, y, z, block_length),
# kept as bytes so the runtime's IR compatibility is tested too.
KERNEL_PB = os.path.join(FIXTURES, "vadd_float32.pb")
BLOCKS, BLOCK_LENGTH = 8, 2048


def _tool(name, package):
    path = shutil.which(name)
    if path is None:
        pytest.fail(f"{name} is not installed (Debian package {package}; scripts/setup-deps.sh "
                    "installs it)")
    return path


def _run(cmd, timeout=600, **kwargs):
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, **kwargs)
    assert done.returncode == 0, f"{' '.join(cmd)} failed ({done.returncode}):\n" \
                                 f"{done.stdout[-4000:]}\n{done.stderr[-4000:]}"
    return done


@pytest.fixture(scope="module")
def build_dir():
    if not os.path.exists(os.path.join(BUILD, "CMakeCache.txt")):
        pytest.fail(f"no CMake build in {BUILD}: run `make build` (or set AICORE_SIM_BUILD_DIR)")
    return BUILD


@pytest.fixture(scope="module")
def prefix(build_dir, tmp_path_factory):
    """`cmake --install` of the build into a fresh prefix."""
    root = str(tmp_path_factory.mktemp("prefix"))
    _run([_tool("cmake", "cmake"), "--install", build_dir, "--prefix", root])
    return root


# ---- Python: pip into a virtual environment ------------------------------------------------------

KERNEL_SCRIPT = textwrap.dedent('''\
    """A kernel author's script, run from outside the repository."""
    import numpy as np

    import asc
    import asc.lib.runtime as rt

    print("asc", asc.__version__, asc.__file__)


    @asc.jit
    def scale_kernel(x: asc.GlobalAddress, z: asc.GlobalAddress, n: asc.ConstExpr[int]):
        x_gm = asc.GlobalTensor()
        z_gm = asc.GlobalTensor()
        x_gm.set_global_buffer(x + asc.get_block_idx() * n, n)
        z_gm.set_global_buffer(z + asc.get_block_idx() * n, n)
        t = asc.LocalTensor(x.dtype, asc.TPosition.VECCALC, 0, n)
        asc.data_copy(t, x_gm, n)
        asc.set_flag(asc.HardEvent.MTE2_V, 0)
        asc.wait_flag(asc.HardEvent.MTE2_V, 0)
        asc.muls(t, t, 3.0, n)
        asc.set_flag(asc.HardEvent.V_MTE3, 0)
        asc.wait_flag(asc.HardEvent.V_MTE3, 0)
        asc.data_copy(z_gm, t, n)


    x = np.arange(4 * 1024, dtype=np.float32)
    z = np.zeros_like(x)
    report = scale_kernel[4, rt.current_stream()](x, z, 1024)
    assert report.status == "OK", report
    np.testing.assert_array_equal(z, x * 3)
    print("PASS", report.cycles, "cycles on", rt.transport())
    ''')


def test_pip_install_into_a_venv_imports_asc_anywhere_and_runs_a_kernel(build_dir, tmp_path):
    venv = tmp_path / "venv"
    _run([sys.executable, "-m", "venv", "--system-site-packages", str(venv)])
    python = str(venv / "bin" / "python")
    done = _run([python, "-m", "pip", "install", "--no-build-isolation", "--no-index",
                 "--no-cache-dir", REPO], env=dict(os.environ, AICORE_SIM_BUILD_DIR=build_dir))
    assert f"Successfully installed aicore-sim-{VERSION}" in done.stdout, done.stdout
    away = tmp_path / "away"
    away.mkdir()
    (away / "scale.py").write_text(KERNEL_SCRIPT)
    # No PYTHONPATH and a directory outside the repository: only the venv can supply `asc`.
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "AICORE_SIM_ADDRESS")}
    done = _run([python, "scale.py"], cwd=str(away), env=env)
    lines = done.stdout.splitlines()
    assert lines[0].startswith(f"asc {VERSION} {venv}"), done.stdout
    assert re.fullmatch(r"PASS \d+ cycles on embedded", lines[-1]), done.stdout
    # The package ships its type information and the tools' entry points.
    site = _run([python, "-c", "import asc, os; print(os.path.dirname(asc.__file__))"],
                cwd=str(away), env=env).stdout.strip()
    assert os.path.exists(os.path.join(site, "py.typed"))
    for tool in ("aicore-submit", "aicore-farm", "aicore-load", "aicore-prof",
                 "aicore-calibrate"):
        help_text = _run([str(venv / "bin" / tool), "--help"], cwd=str(away), env=env).stdout
        assert help_text.startswith("usage: " + tool), help_text


# ---- C++: cmake --install and find_package(aicoresim) ------------------------------------------
# tests/daemon/runtime_api_test links the build tree's aicoresim::runtime and aicoresim::proto
# the same way; here they come from an install prefix only.

@pytest.fixture(scope="module")
def consumer(prefix, tmp_path_factory):
    """tests/install/consumer configured and built against the installed package only."""
    out = str(tmp_path_factory.mktemp("consumer"))
    cmake = _tool("cmake", "cmake")
    _run([cmake, "-S", os.path.join(FIXTURES, "consumer"), "-B", out,
          f"-DCMAKE_PREFIX_PATH={prefix}"])
    _run([cmake, "--build", out])
    return os.path.join(out, "vadd_consumer")


def _consume(consumer, env_extra):
    env = {k: v for k, v in os.environ.items() if k != "AICORE_SIM_ADDRESS"}
    env.update(env_extra)
    done = _run([consumer, KERNEL_PB, str(BLOCKS), str(BLOCK_LENGTH)], env=env)
    return done.stdout.splitlines()


def _passed(lines):
    """The cycles of the consumer's PASS line, which the report it parsed gave."""
    assert lines[2] == "kernel vadd_kernel", lines
    found = re.fullmatch(rf"PASS {BLOCKS * BLOCK_LENGTH} elements on {BLOCKS} cores: OK, "
                         r"(\d+) cycles", lines[-1])
    assert found, lines
    return int(found.group(1))


def test_find_package_consumer_launches_the_fixture_kernel_embedded_and_in_the_daemon(
        consumer, prefix):
    lines = _consume(consumer, {})
    assert lines[0] == "transport embedded", lines
    assert lines[1] == f"headers {VERSION} library {VERSION}", lines
    embedded = _passed(lines)

    simd = os.path.join(prefix, "bin", "aicore-simd")
    assert _run([simd, "--version"]).stdout.strip() == f"aicore-simd {VERSION}"
    with running_daemon(simd=simd) as address:
        lines = _consume(consumer, {"AICORE_SIM_ADDRESS": address})
    assert lines[0] == f"transport remote {address}", lines
    assert _passed(lines) == embedded, "the daemon and the embedded simulator disagree on cycles"


def test_the_installed_runtime_exports_only_its_api(prefix):
    lib = os.path.join(prefix, "lib", f"libaicoresim_runtime.so.{VERSION}")
    names = _run([_tool("nm", "binutils"), "-DC", "--defined-only", lib]).stdout.splitlines()
    symbols = [line.split(" ", 2)[2] for line in names if line.count(" ") >= 2]
    assert any("aicore::runtime::Runtime::Create(" in s for s in symbols), symbols
    api = re.compile(r"(.*\baicore::(runtime|ir::v1|report::v1|config::v1)::|"
                     r"(descriptor_table|TableStruct)_(kernel|report|soc_5fconfig)_2eproto)")
    others = [s for s in symbols if not api.match(s)]
    assert not others, f"libaicoresim_runtime exports more than its API: {others[:10]}"
    assert not any("aicore::sim::" in s or s.startswith("grpc::") for s in symbols)
    soname = _run(["objdump", "-p", lib]).stdout
    major, minor = VERSION.split(".")[:2]
    assert re.search(rf"SONAME\s+libaicoresim_runtime\.so\.{major}\.{minor}\b", soname), soname


# ---- the systemd unit ---------------------------------------------------------------------------

def test_the_installed_unit_verifies_and_is_hardened(prefix):
    analyze = _tool("systemd-analyze", "systemd")
    unit = os.path.join(prefix, "lib", "systemd", "system", "aicore-simd.service")
    text = open(unit, encoding="utf-8").read()
    assert f"ExecStart={prefix}/bin/aicore-simd --listen 127.0.0.1:50051" in text, text
    # verify loads the unit as systemd would and checks ExecStart's binary; it reports unknown
    # keys and bad values on stderr while still exiting 0, so any output is a failure.
    done = subprocess.run([analyze, "verify", unit], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0 and not done.stdout.strip() and not done.stderr.strip(), \
        f"systemd-analyze verify: rc {done.returncode}\n{done.stdout}{done.stderr}"
    for setting in ("DynamicUser=yes", "NoNewPrivileges=yes", "ProtectSystem=strict",
                    "StateDirectory=aicore-sim aicore-sim/traces",
                    "--trace-root /var/lib/aicore-sim/traces"):
        assert setting in text, setting
    done = _run([analyze, "security", "--offline=yes", unit])
    level = re.search(r"Overall exposure level for aicore-simd\.service: ([\d.]+) (\w+)",
                      done.stdout)
    assert level and float(level.group(1)) <= 2.0, done.stdout[-2000:]


def test_verify_catches_a_broken_unit(prefix, tmp_path):
    """The check above can fail: a misspelt key is reported."""
    unit = os.path.join(prefix, "lib", "systemd", "system", "aicore-simd.service")
    broken = tmp_path / "aicore-simd.service"
    broken.write_text(open(unit, encoding="utf-8").read().replace("NoNewPrivileges=",
                                                                  "NoNewPrivilege="))
    done = subprocess.run([_tool("systemd-analyze", "systemd"), "verify", str(broken)],
                          capture_output=True, text=True, timeout=120)
    assert "Unknown key" in done.stderr and "NoNewPrivilege" in done.stderr, done.stderr


# ---- the .deb -------------------------------------------------------------------------------------

def test_cpack_builds_a_deb_with_the_daemon_runtime_headers_configs_and_unit(build_dir, tmp_path):
    out = str(tmp_path / "deb")
    _run([_tool("cpack", "cmake"), "-G", "DEB", "--config",
          os.path.join(build_dir, "CPackConfig.cmake"), "-B", out])
    debs = [f for f in os.listdir(out) if f.endswith(".deb")]
    assert debs == [f"aicore-sim_{VERSION}_amd64.deb"], debs
    deb = os.path.join(out, debs[0])
    dpkg_deb = _tool("dpkg-deb", "dpkg")
    listing = _run([dpkg_deb, "--contents", deb]).stdout
    files = {line.split()[5].lstrip(".") for line in listing.splitlines()}
    for path in ("/usr/bin/aicore-simd", "/usr/bin/aicore-submit",
                 f"/usr/lib/libaicoresim_runtime.so.{VERSION}", "/usr/include/aicore/runtime.h",
                 "/usr/include/aicore/version.h", "/usr/include/aicore/proto/report.pb.h",
                 "/usr/share/aicore-sim/proto/report.proto",
                 "/usr/lib/cmake/aicoresim/aicoresimConfig.cmake",
                 "/usr/share/aicore-sim/configs/Ascend910B1.textproto",
                 "/usr/lib/systemd/system/aicore-simd.service",
                 "/usr/lib/python3/dist-packages/asc/__init__.py",
                 "/usr/share/doc/aicore-sim/service.md"):
        assert path in files, f"{path} is not in the .deb:\n{listing}"
    assert not any("__pycache__" in f for f in files)
    info = _run([dpkg_deb, "--field", deb, "Package", "Version", "Depends"]).stdout
    assert "Package: aicore-sim" in info and f"Version: {VERSION}" in info, info
    assert "libgrpc++" in info and "python3-numpy" in info, info
    # The unit inside names the daemon where the package puts it.
    root = tmp_path / "root"
    _run([dpkg_deb, "-x", deb, str(root)])
    unit = (root / "usr/lib/systemd/system/aicore-simd.service").read_text()
    assert "ExecStart=/usr/bin/aicore-simd " in unit, unit
    # Installing byte-compiles the Python package (a user cannot write its bytecode under /usr,
    # so without it every `import asc` compiles the frontend), and removing cleans it up.
    control = tmp_path / "control"
    _run([dpkg_deb, "-e", deb, str(control)])
    for script, command in (("postinst", "py3compile -p aicore-sim"),
                            ("prerm", "py3clean -p aicore-sim")):
        path = control / script
        assert path.exists() and os.access(path, os.X_OK), f"the .deb has no executable {script}"
        assert command in path.read_text(), path.read_text()
        _run(["sh", "-n", str(path)])
