"""The docs agree with the code: the trace folder tree of docs/traces.md with a real trace, the
enum table of docs/frontend.md with the enum classes `asc` exports, and the docs and frontend
sources pass codespell (allowed words: codespell-allow.txt)."""
import enum
import glob
import os
import re
import shutil
import subprocess

import numpy as np
import pytest

import asc
import asc.lib.runtime as rt

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.abspath(os.path.join(HERE, "..", ".."))
TRACES_MD = os.path.join(REPO, "docs", "traces.md")
FRONTEND_MD = os.path.join(REPO, "docs", "frontend.md")
ALLOW_FILE = os.path.join(HERE, "codespell-allow.txt")

# What each placeholder of the documented tree stands for (docs/traces.md, "Layout").
PLACEHOLDERS = {
    "kernel": r"[A-Za-z0-9_.-]+",
    "n": r"[0-9]+",
    "i": r"[0-9]+",
    "sub": r"veccore[0-9]+|cubecore0",
}


def _read(path):
    with open(path, encoding="utf-8") as f:
        return f.read()


def _block_after(text, marker, path):
    """The lines of the first fenced block after the HTML comment `<!-- marker`."""
    at = text.find("<!-- " + marker)
    assert at >= 0, f"{path}: no '<!-- {marker}' comment; it marks the block this test reads"
    lines = text[at:].split("\n")
    starts = [k for k, line in enumerate(lines) if line.startswith("```")]
    assert len(starts) >= 2, f"{path}: no fenced block after '<!-- {marker}'"
    return lines[starts[0] + 1:starts[1]]


# --- docs/traces.md: the trace folder tree -------------------------------------------------------

class Node:
    def __init__(self, name, is_dir):
        self.name, self.is_dir, self.children = name, is_dir, []


def parse_layout(lines, where="docs/traces.md"):
    """The tree of the layout block: one entry a line, two spaces a level, `/` ends a folder,
    anything after the name is a comment. Returns the root Node (`DIR/` dropped)."""
    root, stack = None, []
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        indent = len(line) - len(line.lstrip(" "))
        assert indent % 2 == 0, f"{where}, layout line {number}: indent by 2 spaces: {line!r}"
        level, name = indent // 2, line.split()[0]
        node = Node(name.rstrip("/"), name.endswith("/"))
        if root is None:
            assert level == 0 and node.is_dir and node.name.startswith("DIR/"), \
                f"{where}, layout line {number}: the tree starts with the folder DIR/...: {line!r}"
            node.name = node.name[len("DIR/"):]
            root, stack = node, [node]
            continue
        assert 1 <= level <= len(stack) and stack[level - 1].is_dir, \
            f"{where}, layout line {number}: not inside a documented folder: {line!r}"
        del stack[level:]
        stack[-1].children.append(node)
        stack.append(node)
    assert root is not None, f"{where}: the layout block is empty"
    return root


def name_regex(pattern, bound):
    """`pattern` with its <placeholders> as regex groups; one already bound in a parent folder
    must take the parent's value, one used twice the same value twice."""
    out, seen = [], set()
    for literal, name in re.findall(r"([^<]*)(?:<([^>]*)>)?", pattern):
        out.append(re.escape(literal))
        if not name:
            continue
        assert name in PLACEHOLDERS, \
            f"docs/traces.md layout: unknown placeholder <{name}> in {pattern!r}; " \
            f"known: {sorted(PLACEHOLDERS)} (add it to PLACEHOLDERS if the doc is right)"
        if name in bound:
            out.append(re.escape(bound[name]))
        elif name in seen:
            out.append(f"(?P={name})")
        else:
            out.append(f"(?P<{name}>{PLACEHOLDERS[name]})")
            seen.add(name)
    return re.compile("".join(out) + r"\Z")


def compare_tree(node, path, bound=None, rel=""):
    """(documented entries matching nothing in `path`, entries of `path` the doc lacks)."""
    bound = dict(bound or {})
    missing, undocumented = [], []
    entries = sorted(os.listdir(path))
    matched = set()
    for child in node.children:
        regex = name_regex(child.name, bound)
        hits = [e for e in entries
                if os.path.isdir(os.path.join(path, e)) == child.is_dir and regex.match(e)]
        if not hits:
            missing.append(rel + child.name + ("/" if child.is_dir else ""))
        for entry in hits:
            matched.add(entry)
            if child.is_dir:
                sub = {**bound, **regex.match(entry).groupdict()}
                m, u = compare_tree(child, os.path.join(path, entry), sub, rel + entry + "/")
                missing += m
                undocumented += u
    undocumented += [rel + e for e in entries if e not in matched]
    return missing, undocumented


def documented_layout():
    return parse_layout(_block_after(_read(TRACES_MD), "trace-layout", TRACES_MD))


def check_trace_folder(trace_root, kernel):
    """The one launch folder under `trace_root` against the documented tree."""
    root = documented_layout()
    launches = os.listdir(trace_root)
    assert len(launches) == 1, f"one launch, one folder under {trace_root}: {launches}"
    match = name_regex(root.name, {}).match(launches[0])
    assert match, f"launch folder {launches[0]!r} does not match docs/traces.md's {root.name!r}"
    assert match.groupdict() == {"kernel": kernel, "n": "0"}, match.groupdict()
    missing, undocumented = compare_tree(root, os.path.join(trace_root, launches[0]),
                                         match.groupdict(), launches[0] + "/")
    assert not missing, f"docs/traces.md documents entries the trace lacks: {missing}"
    assert not undocumented, f"the trace has entries docs/traces.md does not list: {undocumented}"


def test_layout_checker_catches_drift(tmp_path):
    """A file the doc lacks and a documented file that is gone are both reported."""
    root = parse_layout(["DIR/OPPROF_<kernel>_<n>/", "  a.csv   comment", "  simulator/",
                         "    core<i>.<sub>/", "      core<i>.<sub>_x.csv"])
    launch = tmp_path / "OPPROF_k_0"
    (launch / "simulator" / "core0.veccore1").mkdir(parents=True)
    (launch / "simulator" / "core0.veccore1" / "core0.veccore1_x.csv").write_text("")
    (launch / "simulator" / "core1.cubecore0").mkdir()
    (launch / "simulator" / "core1.cubecore0" / "core0.cubecore0_x.csv").write_text("")
    (launch / "b.csv").write_text("")
    missing, undocumented = compare_tree(root, str(launch))
    assert missing == ["a.csv", "simulator/core1.cubecore0/core<i>.<sub>_x.csv"]
    assert undocumented == ["simulator/core1.cubecore0/core0.cubecore0_x.csv", "b.csv"]


def test_traces_md_names_the_opprof_folder():
    text = _read(TRACES_MD)
    stale = re.findall(r"DIR/(?!OPPROF_)[A-Za-z<][^\s`]*", text)
    assert not stale, f"docs/traces.md: trace folders are DIR/OPPROF_<kernel>_<n>/, not {stale}"


def test_vector_trace_matches_documented_layout(device, monkeypatch, tmp_path):
    from kernels import run_vadd
    monkeypatch.setenv("AICORE_SIM_TRACE", str(tmp_path))
    x = np.arange(2 * 2048, dtype=np.float32)
    z, report = run_vadd(x, x, 2)
    assert report.ok and np.array_equal(z, x + x)
    check_trace_folder(str(tmp_path), "vadd_kernel")
    cores = sorted(os.listdir(tmp_path / "OPPROF_vadd_kernel_0" / "simulator"))
    assert cores == ["core0.veccore0", "core0.veccore1", "trace.json"]


def test_cube_trace_matches_documented_layout(device, monkeypatch, tmp_path):
    from linear_cube import linear_cube_kernel, nz_weight
    monkeypatch.setenv("AICORE_SIM_TRACE", str(tmp_path))
    m, n, k = 64, 64, 128
    rng = np.random.default_rng(3)
    a = rng.uniform(-1, 1, (m, k)).astype(np.float16)
    w = rng.uniform(-1, 1, (n, k)).astype(np.float16)
    c = np.zeros((m, n), np.float16)
    report = linear_cube_kernel[1, rt.current_stream()](a, nz_weight(w), c, m, n, k, 64, 64, 128,
                                                        asc.QuantModes.F322F16)
    assert report.status == "OK"
    check_trace_folder(str(tmp_path), "linear_cube_kernel")
    assert "core0.cubecore0" in os.listdir(tmp_path / "OPPROF_linear_cube_kernel_0" / "simulator")


# --- docs/frontend.md: the enum classes ----------------------------------------------------------

def exported_enums():
    """{name: class} of the enum classes `asc` and `asc.adv` export."""
    found = {}
    for module in (asc, asc.adv):
        for name in dir(module):
            value = getattr(module, name)
            if isinstance(value, type) and issubclass(value, enum.Enum) and \
                    value not in (enum.Enum, enum.IntEnum, enum.Flag, enum.IntFlag):
                found[name] = value
    return found


def documented_enums():
    """{name: [members]} of the enum table of docs/frontend.md."""
    text = _read(FRONTEND_MD)
    at = text.find("<!-- enum-table")
    assert at >= 0, "docs/frontend.md: no '<!-- enum-table' comment before the enum table"
    rows = {}
    for line in text[at:].split("\n")[1:]:
        if not line.startswith("|"):
            break
        cells = [c.strip() for c in line.strip("|").split("|")]
        assert len(cells) == 2, f"docs/frontend.md enum table: two cells a row: {line!r}"
        if cells[0] in ("class", "---"):
            continue
        name = cells[0].strip("`")
        assert name not in rows, f"docs/frontend.md enum table: {name} listed twice"
        rows[name] = [m.strip() for m in cells[1].split(",")]
    return rows


def test_enum_table_lists_every_exported_enum():
    exported, documented = exported_enums(), documented_enums()
    assert {"TPosition", "HardEvent", "PipeID", "MaskMode", "CacheMode", "RoundMode"} <= \
        set(exported), "the introspection found too little; is asc importable?"
    assert sorted(set(exported) - set(documented)) == [], \
        "enum classes asc exports but docs/frontend.md's enum table lacks"
    assert sorted(set(documented) - set(exported)) == [], \
        "enum classes docs/frontend.md's enum table lists but asc does not export"
    for name, cls in exported.items():
        assert documented[name] == list(cls.__members__), \
            f"docs/frontend.md enum table, {name}: members differ from asc.{name}'s"


# --- docs/frontend.md -> docs/report.md, py.typed ------------------------------------------------

def test_frontend_points_to_report_doc():
    assert "docs/report.md" in _read(FRONTEND_MD)
    assert "summary()" in _read(os.path.join(REPO, "docs", "report.md"))


def test_asc_is_marked_typed():
    marker = os.path.join(REPO, "clients", "python", "asc", "py.typed")
    assert os.path.isfile(marker), f"{marker} is missing (the PEP 561 marker)"
    assert os.path.getsize(marker) == 0


# --- codespell -----------------------------------------------------------------------------------

def spelling_targets():
    # Our texts: the docs, the Python, and the C++ whose strings become the simulator's,
    # daemon's and runtime's messages.
    patterns = ["docs/*.md", "README.md", "clients/python/asc/**/*.py",
                "clients/python/aicore_tools/*.py", "sim/**/*.cc", "sim/**/*.h", "src/**/*.cc",
                "src/**/*.h", "runtime/**/*.cc", "runtime/**/*.h", "proto/*.proto"]
    files = []
    for pattern in patterns:
        files += sorted(glob.glob(os.path.join(REPO, pattern), recursive=True))
    return files


def allowed_words():
    words = []
    for line in _read(ALLOW_FILE).splitlines():
        word = line.split("#", 1)[0].strip()
        if word:
            assert word == word.lower() and " " not in word, \
                f"{ALLOW_FILE}: one lower-case word a line, got {word!r}"
            words.append(word)
    return words


def test_codespell_finds_no_typos():
    exe = shutil.which("codespell")
    if exe is None:
        pytest.fail("codespell is not installed, although scripts/setup-deps.sh lists it: run "
                    "`make deps` (or apt-get install -y --no-install-recommends codespell)")
    files = spelling_targets()
    assert len(files) > 20, f"too few files to spell-check under {REPO}: {files}"
    # Unfiltered, so that an allowed word nothing flags any more shows up as stale.
    run = subprocess.run([exe, *files], capture_output=True, text=True, timeout=120)
    assert run.returncode in (0, 65), f"codespell failed ({run.returncode}): {run.stderr}"
    allowed = set(allowed_words())
    findings, used = [], set()
    for line in run.stdout.splitlines():
        found = re.match(r"(.*?):(\d+): (\S+) ==>", line)
        assert found, f"unexpected codespell output: {line!r}"
        word = found.group(3).lower()
        if word in allowed:
            used.add(word)
        else:
            findings.append(line.replace(REPO + os.sep, "", 1))
    assert not findings, "typos (fix them, or allow a right word in codespell-allow.txt):\n" + \
        "\n".join(findings)
    assert not sorted(allowed - used), \
        f"{ALLOW_FILE}: words nothing flags any more, delete them: {sorted(allowed - used)}"
