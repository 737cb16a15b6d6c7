"""docs/api.md agrees with the code: every public function and class of `asc`, `asc.adv`,
`asc.lib.runtime` and `asc.lib.host` has a row with its current `inspect.signature` text, and
every documented name exists. Enum classes (docs/frontend.md), dtypes and plain constants are not
listed there, so they are not looked for here."""
import enum
import inspect
import os
import re

import asc
import asc.lib.host as host
import asc.lib.runtime as rt

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.abspath(os.path.join(HERE, "..", ".."))
API_MD = os.path.join(REPO, "docs", "api.md")
FRONTEND_MD = os.path.join(REPO, "docs", "frontend.md")

NAMESPACES = {"asc": asc, "asc.adv": asc.adv, "asc.lib.runtime": rt, "asc.lib.host": host}

FIX = "update docs/api.md (one row per name: | `name` | `signature` | summary |)"


def _read(path):
    with open(path, encoding="utf-8") as f:
        return f.read()


# --- the code side -------------------------------------------------------------------------------

def public_callables(module):
    """{name: object}: the public functions and classes `module` exports, without modules,
    enum classes, constants and dtypes (not callable), and typing names a module imported."""
    found = {}
    for name in dir(module):
        if name.startswith("_"):
            continue
        value = getattr(module, name)
        if inspect.ismodule(value) or not callable(value):
            continue
        if isinstance(value, type) and issubclass(value, enum.Enum):
            continue
        if getattr(value, "__module__", "") == "typing":
            continue
        found[name] = value
    return found


def signature_text(value):
    """What docs/api.md shows: `inspect.signature`, else the docstring's first line."""
    try:
        return str(inspect.signature(value))
    except (TypeError, ValueError):
        return inspect.cleandoc(value.__doc__ or "").split("\n")[0]


def exported():
    """{namespace: {name: signature text}}, namespaces without functions left out."""
    out = {}
    for ns, module in NAMESPACES.items():
        names = {name: signature_text(v) for name, v in public_callables(module).items()}
        if names:
            out[ns] = names
    return out


# --- the doc side --------------------------------------------------------------------------------

def split_row(line):
    """The cells of a table row: split at unescaped `|`, then `\\|` read back as `|`."""
    cells = re.split(r"(?<!\\)\|", line.strip())
    assert cells[0] == "" and cells[-1] == "", f"a table row starts and ends with '|': {line!r}"
    return [c.strip().replace("\\|", "|") for c in cells[1:-1]]


def parse_api_doc(text, where="docs/api.md"):
    """{namespace: {name: signature text}} of the tables under each '## `namespace`' heading."""
    docs, ns = {}, None
    for number, line in enumerate(text.split("\n"), 1):
        heading = re.match(r"## `([\w.]+)`\s*$", line)
        if heading:
            ns = heading.group(1)
            assert ns not in docs, f"{where}, line {number}: namespace {ns} has two sections"
            docs[ns] = {}
            continue
        if not line.startswith("|"):
            continue
        cells = split_row(line)
        if cells[0] in ("name", "---"):
            continue
        assert ns is not None, f"{where}, line {number}: a table row before any '## `ns`'"
        assert len(cells) == 3, \
            f"{where}, line {number}: three cells a row (name, signature, summary): {line!r}"
        name, sig, summary = cells
        code = re.fullmatch(r"`([^`]+)`", name), re.fullmatch(r"`([^`]+)`", sig)
        assert all(code), f"{where}, line {number}: name and signature in backticks: {line!r}"
        assert summary, f"{where}, line {number}: {ns}.{code[0].group(1)} has no summary"
        name = code[0].group(1)
        assert name not in docs[ns], f"{where}, line {number}: {ns}.{name} listed twice"
        docs[ns][name] = code[1].group(1)
    return docs


def differences(code, docs):
    """Lines naming each undocumented name, each documented name the code lacks and each
    signature that differs; empty when the doc is current."""
    out = []
    for ns in sorted(set(code) | set(docs)):
        have, doc = code.get(ns, {}), docs.get(ns, {})
        if ns not in docs:
            out.append(f"namespace {ns}: no '## `{ns}`' section")
        if ns not in code:
            out.append(f"namespace {ns}: documented but exports no functions or classes")
        for name in sorted(set(have) - set(doc)):
            out.append(f"{ns}.{name}: not documented; its signature is `{have[name]}`")
        for name in sorted(set(doc) - set(have)):
            out.append(f"{ns}.{name}: documented but {ns} has no such function or class")
        for name in sorted(set(have) & set(doc)):
            if have[name] != doc[name]:
                out.append(f"{ns}.{name}: signature differs: the doc says `{doc[name]}`, the "
                           f"code has `{have[name]}`")
    return out


# --- tests ---------------------------------------------------------------------------------------

def test_introspection_finds_the_api():
    code = exported()
    assert set(code) == {"asc", "asc.adv", "asc.lib.runtime", "asc.lib.host"}, sorted(code)
    for ns, names in {"asc": {"jit", "data_copy", "add", "set_flag", "LocalTensor", "TPipe"},
                      "asc.adv": {"Matmul", "softmax", "TCubeTiling"},
                      "asc.lib.runtime": {"malloc", "memcpy", "Stream"},
                      "asc.lib.host": {"get_ascendc_platform", "MultiCoreMatmulTiling"}}.items():
        assert names <= set(code[ns]), f"{ns}: introspection lacks {sorted(names - set(code[ns]))}"
    for skipped in ("TPosition", "float16", "Optional", "language"):
        assert skipped not in code["asc"] and skipped not in code["asc.lib.runtime"], skipped


def test_api_doc_matches_the_code():
    found = differences(exported(), parse_api_doc(_read(API_MD)))
    assert not found, f"docs/api.md is out of date with the code; {FIX}:\n  " + "\n  ".join(found)


def test_checker_catches_drift():
    """A new name, a removed one, a changed signature and a missing section are all reported."""
    text = "\n".join([
        "## `m`", "", "| name | signature | summary |", "| --- | --- | --- |",
        "| `f` | `(a, b)` | Does f. |", "| `gone` | `()` | Was here. |",
        "| `p` | `(x: 'int \\| None')` | A pipe in a signature. |", ""])
    docs = parse_api_doc(text, "<test>")
    assert docs == {"m": {"f": "(a, b)", "gone": "()", "p": "(x: 'int | None')"}}
    code = {"m": {"f": "(a, b, c=1)", "new": "(x)", "p": "(x: 'int | None')"}, "n": {"g": "()"}}
    assert differences(code, docs) == [
        "m.new: not documented; its signature is `(x)`",
        "m.gone: documented but m has no such function or class",
        "m.f: signature differs: the doc says `(a, b)`, the code has `(a, b, c=1)`",
        "namespace n: no '## `n`' section",
        "n.g: not documented; its signature is `()`",
    ]


def test_frontend_points_to_api_doc():
    text = _read(FRONTEND_MD)
    row = [line for line in text.split("\n") if line.startswith("| basic API |")]
    assert len(row) == 1, "docs/frontend.md: one '| basic API |' row in the API table"
    assert "docs/api.md" in row[0], "docs/frontend.md's basic API row must point to docs/api.md"
