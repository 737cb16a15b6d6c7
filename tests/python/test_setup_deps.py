"""The README's promise (issue 45): on a fresh Debian 12, `make run` and `make test` do all the
set-up. Every external program and third-party Python module the build, the tests, the lint and CI
call must come from a Debian package that scripts/setup-deps.sh installs. The programs and modules
are found in the code (Python calls, CMake find_program, shell defaults, Makefile recipes, the C++
tests' shell commands, imports), not listed from memory, so a new tool is checked as soon as it is
called. A CI machine that happens to have a package installed cannot hide a gap from this test."""
import ast
import functools
import glob
import importlib.util
import os
import re
import shutil
import subprocess
import sys

import pytest

from conftest import REPO

SETUP_DEPS = os.path.join(REPO, "scripts", "setup-deps.sh")

# Needed before setup-deps can run: make runs it, git fetched the tree (README, quick start).
PREREQUISITES = {"make": "make", "git": "git"}

# Programs that a tool we call runs on our behalf, which no scan of our own code can see. Each is
# keyed by the text in our code that makes the tool call it.
IMPLICIT = [
    # cpack's DEB generator reads the shared-library dependencies with dpkg-shlibdeps, and checks
    # each installed file's type with `file` first.
    ("packaging/CMakeLists.txt", r"set\(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON\)",
     ["dpkg-shlibdeps", "file", "dpkg-deb"]),
    ("CMakeLists.txt", r"project\([^)]*LANGUAGES CXX", ["c++", "cmake"]),
    (".ci/run", r"make lint", ["clang-format", "clang-tidy-19"]),
    ("Makefile", r"PYTHON \?= /usr/bin/python3", ["/usr/bin/python3"]),
]

# Shell words that are no program to install.
SHELL_WORDS = {"set", "for", "do", "done", "if", "then", "fi", "case", "esac", "echo", "exit",
               "cd", "true", "false", "export", "test", "[", "[[", "local", "read", "while",
               "command", "eval", "exec", "printf", "trap", "wait", "shift", "return", "else"}

PROGRAM = re.compile(r"^[A-Za-z][\w.+-]*$")


def setup_packages():
    done = subprocess.run(["bash", SETUP_DEPS, "--list"], capture_output=True, text=True,
                          timeout=60)
    assert done.returncode == 0, f"{SETUP_DEPS} --list failed: {done.stderr}"
    packages = set(done.stdout.split())
    assert len(packages) > 10, f"{SETUP_DEPS} --list printed too few packages: {done.stdout!r}"
    return packages


def read(path):
    with open(path, encoding="utf-8") as f:
        return f.read()


def rel(path):
    return os.path.relpath(path, REPO)


def files(*patterns):
    found = []
    for pattern in patterns:
        found += glob.glob(os.path.join(REPO, pattern), recursive=True)
    return sorted(p for p in set(found) if os.path.isfile(p) and "/build" not in rel(p)[:12])


def python_sources():
    tools = [p for p in files("clients/python/bin/*") if read(p).startswith("#!")
             and "python" in read(p).splitlines()[0]]
    own = os.path.abspath(__file__)  # this file names programs as test data
    return [p for p in files("tests/**/*.py", "bench/**/*.py", "scripts/*.py", "examples/*.py",
                             "clients/python/asc/**/*.py", "clients/python/aicore_tools/**/*.py")
            if os.path.abspath(p) != own] + tools


def programs_in_code():
    """{program: (where it is called, the package named beside it in the code or None)}."""
    found = {}

    def add(name, where, package=None):
        if (PROGRAM.match(name) or name.startswith("/")) and name not in SHELL_WORDS:
            found.setdefault(name, (where, package))

    calls = [
        # shutil.which("x"), _tool("x", "pkg"), missing_tool("x", "pkg"), subprocess.*(["x", ...
        re.compile(r"shutil\.which\(\s*\"([^\"]+)\"()"),
        re.compile(r"_tool\(\s*\"([^\"]+)\"\s*,\s*\"([^\"]+)\""),
        re.compile(r"subprocess\.\w+\(\s*\[\s*\"([^\"]+)\"()"),
    ]
    for path in python_sources():
        text = read(path)
        for pattern in calls:
            for m in pattern.finditer(text):
                add(m.group(1), f"{rel(path)}:{text[:m.start()].count(chr(10)) + 1}",
                    m.group(2) or None)
    for path in files("**/CMakeLists.txt", "**/*.cmake", "**/*.cmake.in"):
        text = read(path)
        for m in re.finditer(r"find_program\(\s*\w+\s+(?:NAMES\s+)?([\w.+-]+)", text):
            add(m.group(1), f"{rel(path)}:{text[:m.start()].count(chr(10)) + 1}")
    for path in files("scripts/*.sh", ".ci/run"):
        text = read(path)
        # `command -v program`, and ${TOOL:-program} defaults of a variable run as a command.
        for m in re.finditer(r"command -v ([\w.+-]+)", text):
            add(m.group(1), f"{rel(path)}:{text[:m.start()].count(chr(10)) + 1}")
        for m in re.finditer(r"\$\{(\w+):-([\w.+-]+)\}", text):
            run = r"(?:^|[;&|(!]|\bthen|\bdo)\s*\"\$" + m.group(1) + r"\"\s"
            if re.search(run, text, re.M):
                add(m.group(2), f"{rel(path)}:{text[:m.start()].count(chr(10)) + 1}")
    makefile = os.path.join(REPO, "Makefile")
    arguments = False  # the previous line ended with a backslash inside a command's arguments
    for number, line in enumerate(read(makefile).splitlines(), 1):
        where = f"Makefile:{number}"
        was_arguments = arguments
        body = line.rstrip()
        arguments = body.endswith("\\") and not re.search(r"(;|&&|\|\||\bdo|\bthen)\s*\\$", body)
        if was_arguments:
            continue
        m = re.match(r"(\w+_(?:CXX|CC))\s*\?=\s*([\w.+-]+)\s*$", line)
        if m:
            add(m.group(2), where)
        if line.startswith("\t"):
            for command in re.split(r";|&&|\|\||\|", line.strip().lstrip("@-")):
                words = command.split()
                if words and not words[0].startswith(("$", "(")) and "=" not in words[0]:
                    add(words[0], where)
    for path in files("tests/**/*.cc"):
        text = read(path)
        if "std::system(" not in text and "popen(" not in text:
            continue
        for m in re.finditer(r"std::string\s+\w+\s*=\s*\"([\w.+-]+)\s", text):
            add(m.group(1), f"{rel(path)}:{text[:m.start()].count(chr(10)) + 1}")
    for path, trigger, programs in IMPLICIT:
        text = read(os.path.join(REPO, path))
        m = re.search(trigger, text)
        assert m, f"{path} no longer matches {trigger!r}: update IMPLICIT in {rel(__file__)}"
        for program in programs:
            add(program, f"{path}:{text[:m.start()].count(chr(10)) + 1} (implicitly)")
    return found


def modules_in_code():
    """{top-level third-party module: (the module imported, where)}, from the Python sources' imports
    (module level and inside functions) and `python3 -m module` calls."""
    local = {os.path.splitext(os.path.basename(p))[0] for p in python_sources()}
    local |= {"asc", "aicore_tools"}
    found = {}
    for path in python_sources():
        text = read(path)
        try:
            tree = ast.parse(text)
        except SyntaxError:
            continue
        for node in ast.walk(tree):
            names = []
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names = [node.module]
            for name in names:
                top = name.split(".")[0]
                if top not in sys.stdlib_module_names and top not in local:
                    found.setdefault(top, (name, f"{rel(path)}:{node.lineno}"))
        for m in re.finditer(r"\"-m\"\s*,\s*\"([\w.]+)\"", text):
            top = m.group(1).split(".")[0]
            if top not in sys.stdlib_module_names and top not in local:
                found.setdefault(top, (m.group(1),
                                       f"{rel(path)}:{text[:m.start()].count(chr(10)) + 1}"))
    return found


def link_chain(path):
    """`path`, then each link it points through, then the file itself."""
    chain = [path]
    while os.path.islink(chain[-1]) and len(chain) < 16:
        chain.append(os.path.join(os.path.dirname(chain[-1]), os.readlink(chain[-1])))
    chain.append(os.path.realpath(path))
    return chain


@functools.lru_cache(maxsize=None)
def owners(path):
    """The Debian packages that installed `path` or a link on its way to the file, first first
    (/usr/bin/c++ -> /etc/alternatives/c++ -> /usr/bin/g++, of the package g++)."""
    found = []
    for p in link_chain(path):
        candidates = [os.path.normpath(p)]
        for a, b in (("/usr/bin/", "/bin/"), ("/bin/", "/usr/bin/"), ("/usr/lib/", "/lib/"),
                     ("/lib/", "/usr/lib/")):
            if candidates[0].startswith(a):
                candidates.append(b + candidates[0][len(a):])
        for c in candidates:
            done = subprocess.run(["dpkg-query", "-S", c], capture_output=True, text=True,
                                  timeout=60)
            if done.returncode == 0:
                # "pkg[:arch]: path", or "pkg1, pkg2: path" for a shared directory.
                names = done.stdout.splitlines()[0].rsplit(": ", 1)[0]
                for name in names.split(", "):
                    if name.split(":")[0] not in found:
                        found.append(name.split(":")[0])
                break
    return tuple(found)


@functools.lru_cache(maxsize=None)
def is_essential(package):
    done = subprocess.run(["dpkg-query", "-W", "-f=${Essential}", package], capture_output=True,
                          text=True, timeout=60)
    return done.stdout.strip() == "yes"


def judge(what, path, packages):
    """None if `path` comes from a package setup-deps installs (or an Essential one), else the
    problem, naming the package to add."""
    found = owners(path)
    if not found:
        return (f"{what} is {path}, which no Debian package installed: the build and tests may "
                "only use Debian's")
    if any(p in packages or is_essential(p) for p in found):
        return None
    return (f"{what} comes from the Debian package {found[0]}, which scripts/setup-deps.sh does "
            f"not install: add {found[0]} to its PACKAGES")


def gaps(programs, modules, packages):
    """One line per program or module that setup-deps does not provide, saying what to add."""
    problems = []
    for name, (where, named) in sorted(programs.items()):
        if name in PREREQUISITES:
            continue
        path = shutil.which(name) if not name.startswith("/") else \
            (name if os.path.exists(name) else None)
        if path is None:
            hint = (f"Debian package {named}" if named
                    else f"find its package with `apt-file search bin/{name}`")
            problems.append(f"{name} (called at {where}) is not installed: add its package "
                            f"to PACKAGES in scripts/setup-deps.sh ({hint})")
            continue
        problem = judge(f"{name} (called at {where})", path, packages)
        if problem:
            problems.append(problem)
    for top, (name, where) in sorted(modules.items()):
        what = f"Python module {name} (imported at {where})"
        spec = importlib.util.find_spec(top)
        if spec is not None and spec.origin in (None, "namespace") and name != top:
            # A namespace package (google) spans several packages: judge the module imported.
            spec = importlib.util.find_spec(name)
        if spec is None or not (spec.origin or spec.submodule_search_locations):
            problems.append(f"{what} is not installed: add its Debian package (python3-"
                            f"{top.lower()}?) to PACKAGES in scripts/setup-deps.sh")
            continue
        path = spec.origin if spec.origin not in (None, "namespace") \
            else list(spec.submodule_search_locations)[0]
        problem = judge(what, path, packages)
        if problem:
            problems.append(problem)
    return problems


@pytest.fixture(scope="module")
def found():
    if shutil.which("dpkg-query") is None:
        pytest.fail("dpkg-query is missing: this check (and setup-deps) needs a Debian system")
    return programs_in_code(), modules_in_code(), setup_packages()


def test_the_scan_finds_the_tools_we_know_of(found):
    # The scan itself can fail: these are called today, so it must see them.
    programs, modules, _ = found
    for name in ("cpack", "dpkg-deb", "file", "dpkg-shlibdeps", "systemd-analyze", "openssl",
                 "protoc", "grpc_python_plugin", "clang-format", "clang-tidy-19", "clang++-19",
                 "yamllint", "codespell", "docker-compose", "nm", "cmake", "ctest"):
        assert name in programs, f"the scan no longer finds {name}: {sorted(programs)}"
    for name in ("numpy", "pytest", "grpc", "google", "torch", "yaml", "kubernetes", "tqdm",
                 "pip"):
        assert name in modules, f"the scan no longer finds module {name}: {sorted(modules)}"


def test_setup_deps_installs_every_program_and_module_called(found):
    problems = gaps(*found)
    assert not problems, "scripts/setup-deps.sh misses what the build and tests call:\n  " + \
        "\n  ".join(problems)


def test_a_package_left_out_of_setup_deps_is_named():
    # Removing `file` from the list fails the check, naming the program and its package.
    programs = {"file": ("packaging/CMakeLists.txt (implicitly)", None)}
    packages = setup_packages() - {"file"}
    problems = gaps(programs, {}, packages)
    assert len(problems) == 1, problems
    assert problems[0].startswith("file (called at packaging/CMakeLists.txt") and \
        "the Debian package file," in problems[0] and "add file to its PACKAGES" in problems[0], \
        problems[0]


def test_a_program_that_is_not_installed_is_named():
    problems = gaps({"no-such-tool-xyz": ("here:1", "some-package")}, {}, setup_packages())
    assert problems == ["no-such-tool-xyz (called at here:1) is not installed: add its package "
                        "to PACKAGES in scripts/setup-deps.sh (Debian package some-package)"]
