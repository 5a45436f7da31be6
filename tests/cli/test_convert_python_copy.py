"""The Python-values copy `autograph convert` writes for each function compiles to what
the original compiles to (impl/module_paths.py: the converted form runs in a nested
function beside it), and the written module behaves as the original: on Python values
(differential against the original) and in a trace (against eager NumPy).
"""
from __future__ import annotations

import re
import types
from pathlib import Path

import numpy as np
import pytest

import autograph as ag
from autograph.impl.static import convert_module_source
from tests.cli import python_copy_cases as cases
from tests.helpers import assert_same, converted_module, outcome

ROOT = Path(__file__).resolve().parents[2]
# programs of the tests, examples and benchmarks: every function of each is checked
CORPUS = ["tests/cli/python_copy_cases.py", "tests/autograph/corpus.py",
          "tests/autograph/fidelity_cases.py", "tests/autograph/semantics21_cases.py",
          "tests/autograph/external21_cases.py", "benchmarks/bench_python_values.py",
          "benchmarks/workloads.py"] + \
    sorted(str(p.relative_to(ROOT)) for p in (ROOT / "examples").glob("*.py"))
# What the copy may have that the original has not, besides the nested function's name
# (bound only when the converted form runs): the flags with which the converters
# restructure a `break` / `continue` / `return` (in a loop or a `try`), and the value of
# an item store evaluated before its index (`x[i] = v`: `slices.py`) - plain locals,
# never cells. (A generated name never equals one of the user's.)
GENERATED_LOCAL = re.compile(r"(break|continue|do_return|retval|try_jump|try_return|"
                             r"try_returned|try_error|loop_ended|value)_*\d*$")
# Functions with no copy: the converted body alone runs on Python values too.
_OPTIONS = "a loop given options (ag.set_loop_options) has no inline Python form"
NO_COPY = {("tests/autograph/corpus.py", "while_loop_options"): _OPTIONS,
           ("tests/autograph/corpus.py", "for_with_maximum_iterations"): _OPTIONS}


def _codes(code, out: dict) -> dict:
    """Code objects of the functions in `code` by qualified name (the first one of each
    name: a copy comes before the converted form that repeats its nested functions)."""
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            out.setdefault(const.co_qualname, const)
            _codes(const, out)
    return out


def _differences(path: str) -> list:
    source = (ROOT / path).read_text()
    written = convert_module_source(source, path)
    originals = _codes(compile(source, path, "exec", dont_inherit=True), {})
    copies = _codes(compile(written, path, "exec", dont_inherit=True), {})
    out = []
    for qualname, original in originals.items():
        if original.co_flags & _GENERATOR or qualname.rsplit(".", 1)[-1].startswith("<"):
            continue  # (generators are left as Python; lambdas, comprehensions have none)
        copy = copies[qualname]
        nested = {c.co_name for c in copy.co_consts if isinstance(c, types.CodeType)}
        extra = [n for n in copy.co_varnames if n not in original.co_varnames]
        if extra and extra[-1] in nested and re.search(r"_converted(_\d+)?$", extra[-1]):
            extra.pop()
        problems = [f"extra local {n}" for n in extra if not GENERATED_LOCAL.match(n)
                    and not _handler_name(n, original)]
        problems += [f"local {n} missing" for n in original.co_varnames
                     if n not in copy.co_varnames]
        for field in ("co_cellvars", "co_freevars"):
            if getattr(copy, field) != getattr(original, field):
                problems.append(f"{field} {getattr(copy, field)} != "
                                f"{getattr(original, field)}")
        if problems:
            out.append((path, qualname, problems))
    return out


def _handler_name(name: str, original) -> bool:
    """`e_1`: the name the converted `except E as e` binds first (then `e = e_1`), which
    Python unbinds at the handler's end as it does `e` - never seen after the handler."""
    found = re.fullmatch(r"(.+)_\d+", name)
    return found is not None and found.group(1) in original.co_varnames


_GENERATOR = 0x20 | 0x200  # CO_GENERATOR | CO_ASYNC_GENERATOR


@pytest.mark.parametrize("path", CORPUS)
def test_every_copy_compiles_as_the_original(path):
    """No closure cell, free variable or local the original does not have (but the
    nested function's name and the jump flags above)."""
    found = _differences(path)
    assert {(p, q) for p, q, _ in found} == {k for k in NO_COPY if k[0] == path}, found


def test_the_converted_form_runs_beside_the_copy():
    text = convert_module_source(Path(cases.__file__).read_text(), "cases.py")
    start = text.index("def fib(n):")
    assert text[start:].splitlines()[1:8] == [
        "    if not ag__.tracing_anywhere:", "        if n < 2:", "            return n",
        "        else:", "            return fib(n - 1) + fib(n - 2)",
        "    def fib_converted(n):", "        cond = n < 2"]
    assert "\n    return fib_converted(n)\n" in text[start:]
    start = text.index("def kinds(a, /, b, *args, c, d=3, **kw):")
    assert "    def kinds_converted(a, /, b, *args, c, d, **kw):" in text[start:]
    assert "    return kinds_converted(a, b, *args, c=c, d=d, **kw)" in text[start:]
    # a copy that may run off its end returns there, as running off it does
    start = text.index("def runs_off_its_end(xs, out):")
    assert text[start:].splitlines()[1:7] == [
        "    if not ag__.tracing_anywhere:", "        for x in xs:", "            if x > 1:",
        "                out.append(x)", "        return", "    def runs_off_its_end_converted(xs, out):"]


@pytest.fixture(scope="module")
def written(tmp_path_factory):
    module, _ = converted_module(cases.__file__, tmp_path_factory.mktemp("copy"),
                                 "python_copy_cases_written")
    return module


PYTHON_CALLS = [
    ("kinds", [(5, 2, 7, 1), (1, 4)], [{"c": 2, "a": 9}, {"c": 3, "d": 0}]),
    ("only_varargs", [(1, 2), ()], [{"k": 1}, {}]),
    ("defaults_applied", [(1,), (3, 1), (2,)], [{}, {"shift": 5}, {"scale": 4}]),
    ("nested_class", [(3,), (0,)], [{}, {}]),
    ("closure", [([1, 5, 2], 2)], [{}]),
    ("counter_in_closure", [(5,), (0,)], [{}, {}]),
    ("fib", [(12,), (1,)], [{}, {}]),
    ("decorated", [(5,), (1, 4)], [{}, {}]),
    ("introspects", [(2,), (-1,)], [{}, {}]),
    ("asserts", [(5,), (500,), (-3,)], [{}, {}, {}]),
    ("handler_names", [(1, False), (1, True), (0, False)], [{}, {}, {}]),
    ("chains", [([1, 3, 5], 0, 5), ([4, 2], 1, 3)], [{}, {}]),
    ("gen", [(5,)], [{}]),
]


@pytest.mark.parametrize("name, args, kwargs", PYTHON_CALLS, ids=[c[0] for c in PYTHON_CALLS])
def test_python_values_as_the_original(written, name, args, kwargs):
    original, copy = getattr(cases, name), getattr(written, name)
    for a, k in zip(args, kwargs):
        want = outcome(lambda: _listed(original(*a, **k)), ())
        got = outcome(lambda: _listed(copy(*a, **k)), ())
        assert got == want


def _listed(value):
    return list(value) if isinstance(value, types.GeneratorType) else value


def test_methods_super_and_the_class_cell(written):
    for x in (3, -2):
        assert written.Child().step(x) == cases.Child().step(x)
        assert written.Child().uses_class(x) == cases.Child().uses_class(x)


def test_declarations_reach_the_modules_globals(written):
    assert written.declares_global(5) == cases.declares_global(5) == 4
    assert written.declares_in_a_block(4) == cases.declares_in_a_block(4)
    assert written.DECLARED == cases.DECLARED == 20


def test_decorators_run_as_written(written):
    cases.CALLS.clear()
    written.CALLS.clear()
    written.decorated(3)
    cases.decorated(3)
    assert written.CALLS == cases.CALLS == ["decorated"]
    assert written.decorated.__wrapped__.__name__ == "decorated"


def test_print_as_the_original(written, capsys):
    cases.prints(2, True)
    want = capsys.readouterr().out
    written.prints(2, True)
    assert capsys.readouterr().out == want == "x=2 i=0\nx=2 i=1\n"


def test_an_error_in_the_copy_points_at_the_users_line(written):
    """The copy's lines are the written module's; the error is Python's own."""
    with pytest.raises(AssertionError, match="too big: 500"):
        written.asserts(500)


@pytest.mark.parametrize("jit", [False, True])
def test_traced_as_eager_numpy(written, jit):
    x = np.array([1.0, -2.0, 4.0])
    for y in (0.5, 9.0):
        f = ag.function(lambda x, y: written.numeric(x, y, x, scale=3.0, a=1),
                        jit_compile=jit)
        assert_same(f(x, np.float64(y)), cases.numeric(x, np.float64(y), x, scale=3.0, a=1))
    for w in (2.0, -1.0):
        model, eager = written.Model(w), cases.Model(w)
        g = ag.function(lambda x: model.step(x), jit_compile=jit)
        assert_same(g(x * w), eager.step(x * w))


def test_recursion_in_a_trace(written):
    f = ag.function(lambda x: x * written.fib(10))
    assert_same(f(np.float64(2.0)), np.float64(2.0) * cases.fib(10))


def test_a_copy_that_runs_off_its_end_returns_none(written):
    want, got = [], []
    assert cases.runs_off_its_end([1, 2, 3], want) is None
    assert written.runs_off_its_end([1, 2, 3], got) is None
    assert got == want == [2, 3]
