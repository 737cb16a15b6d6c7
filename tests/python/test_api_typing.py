"""The public `asc` API is documented and typed (issue 23): every public function and class of
`asc`, `asc.adv`, `asc.lib.runtime` and `asc.lib.host` (as tests/python/test_api_docs.py
enumerates them) has a docstring whose first line is a one-sentence summary, and type hints on its
named parameters and return; an API whose one signature hides several call forms declares them as
typing overloads; every op that computes values states its numerics (how it rounds); docs/api.md's
summaries are the docstrings' first lines; and the package ships py.typed (PEP 561)."""
import dataclasses
import importlib.resources
import inspect
import re
import typing

import asc
import asc.runtime.config as config
from asc import _isa
from asc.language.basic import vec_docs
from asc.language.core import hints

from test_api_docs import API_MD, NAMESPACES, _read, parse_api_doc, public_callables

_EMPTY = inspect.Parameter.empty
_VARIADIC = (inspect.Parameter.VAR_POSITIONAL, inspect.Parameter.VAR_KEYWORD)

# Functions whose *args are the API itself (a format's values), so there are no forms to declare.
VARIADIC_BY_NATURE = {"asc.printf": "the values of the format string, any number of them"}

# Words a numerics paragraph uses to say how a result rounds (or that it does not).
ROUNDING = re.compile(r"round|exact|wrap|saturat|truncat|nearest", re.IGNORECASE)

# Modules of asc.adv whose functions compute values (the element-wise math, activation,
# normalisation, quantisation and softmax); the Matmul stack, tiling and sort helpers move data.
ADV_COMPUTING = re.compile(r"asc\.language\.adv\.(math\w*|activation|normalization|quant|"
                           r"softmax\w*)$")
# Basic modules whose functions compute values, and hand-written basic ops that do.
BASIC_COMPUTING_MODULES = {"asc.language.basic.reduce", "asc.language.basic.scalar"}
BASIC_COMPUTING = {"mmad", "fixpipe", "repeat_reduce_sum"}


def all_public():
    """[(qualified name, object)] of every public callable of the four namespaces."""
    return [(f"{ns}.{name}", value) for ns, module in NAMESPACES.items()
            for name, value in sorted(public_callables(module).items())]


def own_doc(value):
    """The docstring `value` declares itself: a class's own, not an inherited one or the one
    dataclasses generates from the signature."""
    if not isinstance(value, type):
        return value.__doc__
    doc = value.__dict__.get("__doc__")
    if dataclasses.is_dataclass(value) and doc is not None:
        generated = value.__name__ + str(inspect.signature(value)).replace(" -> None", "")
        if doc == generated:
            return None
    return doc


def docstring_problems(name, value):
    """Why the docstring of `value` does not do: none, or a first line that is not a one-line
    sentence followed by a blank line."""
    doc = own_doc(value)
    if not doc or not doc.strip():
        return [f"{name}: no docstring"]
    lines = inspect.cleandoc(doc).split("\n")
    out = []
    if not lines[0].endswith("."):
        out.append(f"{name}: the first line is not a one-sentence summary ending in '.': "
                   f"{lines[0]!r}")
    if len(lines) > 1 and lines[1].strip():
        out.append(f"{name}: the summary is more than one line (a blank line must follow it): "
                   f"{lines[1].strip()!r}")
    return out


def _namespace():
    """Names a string hint may use beyond its module's globals: typing, the aliases and the
    public API (an annotation names a class another module defines)."""
    scope = dict(vars(typing))
    scope.update(vars(hints))
    for module in NAMESPACES.values():
        scope.update(public_callables(module))
    scope.update({name: getattr(asc, name) for name in dir(asc) if not name.startswith("_")})
    scope.update({name: getattr(config, name) for name in dir(config) if not name.startswith("_")})
    return scope


def hint_problems(name, value, scope=None):
    """The named parameters (not self/cls, not *args/**kwargs) and the return of `value` without
    a type hint, and hints that do not resolve. Classes are checked by their constructor's
    signature, which returns the instance."""
    try:
        sig = inspect.signature(value)
    except (TypeError, ValueError):
        return []
    missing = [p.name for p in sig.parameters.values()
               if p.name not in ("self", "cls") and p.kind not in _VARIADIC
               and p.annotation is _EMPTY]
    if not isinstance(value, type) and sig.return_annotation is inspect.Signature.empty:
        missing.append("return")
    out = [f"{name}: no type hint for {', '.join(missing)}"] if missing else []
    target = value
    if isinstance(value, type):
        init = value.__dict__.get("__init__")
        target = init if inspect.isfunction(init) and "__signature__" not in value.__dict__ \
            else None
    if target is not None:
        try:
            typing.get_type_hints(target, localns=scope if scope is not None else _namespace())
        except Exception as exc:  # any failure to evaluate a hint
            out.append(f"{name}: a type hint does not resolve: {type(exc).__name__}: {exc}")
    return out


def overload_problems(name, value, scope=None):
    """A public function whose signature takes *args or **kwargs must declare its call forms as
    typing overloads, each of them fully hinted."""
    if isinstance(value, type) or name in VARIADIC_BY_NATURE:
        return []
    try:
        params = inspect.signature(value).parameters.values()
    except (TypeError, ValueError):
        return []
    if not any(p.kind in _VARIADIC for p in params):
        return []
    forms = typing.get_overloads(value)
    if not forms:
        return [f"{name}: takes *args/**kwargs but declares no call forms (typing.overload)"]
    out = []
    for number, form in enumerate(forms, 1):
        out += [problem.replace(name, f"{name} (overload {number})", 1)
                for problem in hint_problems(name, form, scope)]
    return out


def numerics_problems(name, value):
    """The docstring of an op that computes values has a 'Numerics:' paragraph that says how it
    rounds."""
    doc = inspect.cleandoc(own_doc(value) or "")
    paragraphs = [p for p in doc.split("\n\n") if p.startswith("Numerics:")]
    if not paragraphs:
        return [f"{name}: computes values, but its docstring has no 'Numerics:' paragraph"]
    if not ROUNDING.search(paragraphs[0]):
        return [f"{name}: its 'Numerics:' paragraph does not say how results round"]
    return []


def _report(problems, what):
    return f"{len(problems)} {what}:\n  " + "\n  ".join(problems)


# --- the API -------------------------------------------------------------------------------------

def test_every_public_callable_has_a_docstring():
    problems = [p for name, value in all_public() for p in docstring_problems(name, value)]
    assert not problems, _report(problems, "public callables need a docstring whose first line "
                                           "is a one-sentence summary")


def test_every_named_parameter_and_return_has_a_type_hint():
    scope = _namespace()
    problems = [p for name, value in all_public() for p in hint_problems(name, value, scope)]
    assert not problems, _report(problems, "hints missing or broken (write them as the module's "
                                           "other hints, `from __future__ import annotations`)")


def test_apis_with_several_call_forms_declare_them():
    scope = _namespace()
    problems = [p for name, value in all_public() for p in overload_problems(name, value, scope)]
    assert not problems, _report(problems, "call forms undeclared or unhinted")


def test_the_listed_forms_are_the_dispatched_ones():
    """Every vector instruction's overloads are the forms its docstring lists."""
    for api, *_ in _isa.VECTOR_OPS:
        fn = getattr(asc, api)
        for form in typing.get_overloads(fn):
            plain = [p.replace(annotation=_EMPTY)
                     for p in inspect.signature(form).parameters.values()]
            assert f"{api}{inspect.Signature(plain)}" in fn.__doc__, (api, form)


def _computing_ops():
    """(name, object) of the public ops that compute values: the instruction table's rows of a
    value layout (vec_docs.VALUE_LAYOUTS), the computing basic ops and the adv library's."""
    table = {api for api, _op, _kind, layout, _dtypes, _forms in _isa.VECTOR_OPS
             if layout in vec_docs.VALUE_LAYOUTS}
    out = []
    for name, value in all_public():
        ns, _, short = name.rpartition(".")
        module = getattr(value, "__module__", "")
        if ns == "asc" and (short in table or short in BASIC_COMPUTING or
                            module in BASIC_COMPUTING_MODULES):
            out.append((name, value))
        elif ns == "asc.adv" and ADV_COMPUTING.match(module) and not isinstance(value, type):
            out.append((name, value))
    return out


def test_every_op_that_computes_values_states_its_rounding():
    ops = _computing_ops()
    assert len(ops) > 80, f"too few value-computing ops found: {[n for n, _ in ops]}"
    problems = [p for name, value in ops for p in numerics_problems(name, value)]
    assert not problems, _report(problems, "ops do not state their numerics")


def test_vector_docs_cover_the_instruction_table():
    rows = {api for api, *_ in _isa.VECTOR_OPS}
    assert set(vec_docs.OPS) == rows, \
        f"asc/language/basic/vec_docs.py OPS differs from the instruction table: missing " \
        f"{sorted(rows - set(vec_docs.OPS))}, extra {sorted(set(vec_docs.OPS) - rows)}"
    assert set(vec_docs.ISA_NUMERICS) == rows


def test_vector_numerics_are_docs_isa_md():
    """The simulator's numerics each instruction's docstring quotes are docs/isa.md's column
    (generated from sim/isa/instructions.def)."""
    text = _read(API_MD.replace("api.md", "isa.md"))
    cells = {}
    for line in text.split("\n"):
        if line.startswith("| `"):
            row = [c.strip() for c in re.split(r"(?<!\\)\|", line.strip())[1:-1]]
            cells[row[0].strip("`")] = row[-1]
    wrong = [f"{api}: docs/isa.md says {cells.get(api)!r}, vec_docs.py {numerics!r}"
             for api, numerics in vec_docs.ISA_NUMERICS.items() if cells.get(api) != numerics]
    assert not wrong, "update ISA_NUMERICS in asc/language/basic/vec_docs.py:\n  " + \
        "\n  ".join(wrong)
    for api in vec_docs.ISA_NUMERICS:
        doc = " ".join(getattr(asc, api).__doc__.split())
        assert vec_docs.ISA_NUMERICS[api] in doc, api


def test_api_doc_summaries_are_the_docstrings():
    """docs/api.md's summary of each name is the first line of its docstring."""
    docs = {}
    for line in _read(API_MD).split("\n"):
        if line.startswith("## `"):
            ns = line[4:].rstrip().rstrip("`")
        elif line.startswith("| `"):
            cells = [c.strip().replace("\\|", "|")
                     for c in re.split(r"(?<!\\)\|", line.strip())[1:-1]]
            docs[f"{ns}.{cells[0].strip('`')}"] = cells[2]
    assert parse_api_doc(_read(API_MD))  # the same table test_api_docs reads
    wrong = []
    for name, value in all_public():
        summary = inspect.cleandoc(own_doc(value) or "").split("\n")[0]
        if name in docs and docs[name] != summary:
            wrong.append(f"{name}: docs/api.md says {docs[name]!r}, the docstring {summary!r}")
    assert not wrong, _report(wrong, "summaries of docs/api.md differ from the docstrings")


def test_asc_ships_py_typed():
    marker = importlib.resources.files("asc").joinpath("py.typed")
    assert marker.is_file(), "asc has no py.typed: type checkers would ignore its hints (PEP 561)"


# --- the checks themselves -----------------------------------------------------------------------

def test_checks_catch_what_is_missing():
    def bare(a, b=1, *rest):
        pass

    def typed(a: int, *rest: int, **kw: int) -> None:
        """Does it."""

    def two_lines(a: int) -> None:
        """Does it
        over two lines."""

    def broken(a: int) -> None:
        """Does it."""
    broken.__annotations__["a"] = "NoSuchType"  # a hint naming nothing

    def overloaded(*args, **kwargs) -> None:
        """Dispatches.

        Numerics: the sum is computed."""

    assert docstring_problems("m.bare", bare) == ["m.bare: no docstring"]
    assert docstring_problems("m.typed", typed) == []
    assert docstring_problems("m.two_lines", two_lines) == [
        "m.two_lines: the first line is not a one-sentence summary ending in '.': 'Does it'",
        "m.two_lines: the summary is more than one line (a blank line must follow it): "
        "'over two lines.'"]
    assert hint_problems("m.bare", bare) == ["m.bare: no type hint for a, b, return"]
    assert hint_problems("m.typed", typed) == []
    assert hint_problems("m.broken", broken)[0].startswith(
        "m.broken: a type hint does not resolve: NameError")
    assert overload_problems("m.overloaded", overloaded) == [
        "m.overloaded: takes *args/**kwargs but declares no call forms (typing.overload)"]
    assert overload_problems("m.typed", typed) == [
        "m.typed: takes *args/**kwargs but declares no call forms (typing.overload)"]
    assert numerics_problems("m.overloaded", overloaded) == [
        "m.overloaded: its 'Numerics:' paragraph does not say how results round"]
    assert numerics_problems("m.typed", typed) == [
        "m.typed: computes values, but its docstring has no 'Numerics:' paragraph"]


def test_overload_check_reads_the_declared_forms():
    @typing.overload
    def dispatched(x: int) -> None: ...

    @typing.overload
    def dispatched(x: int, y) -> None: ...

    def dispatched(*args, **kwargs) -> None:
        """Dispatches."""

    assert overload_problems("m.dispatched", dispatched) == [
        "m.dispatched (overload 2): no type hint for y"]
