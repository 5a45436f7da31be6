"""Converted code means what Python means, for the defect classes found by running
CPython 3.11's own test modules and TheAlgorithms/Python through `autograph convert`
(issue 21, external measurements): each case of external21_cases.py runs as written,
through `ag.to_graph` and from the module `autograph convert` writes, with the same
outcome (value, or exception type and text).
"""
from __future__ import annotations

import json
import subprocess
import sys
import types
from pathlib import Path

import numpy as np
import pytest

import autograph as ag
from autograph.impl.static import convert_module_source
from tests.autograph import external21_cases as cases
from tests.helpers import assert_same, converted_module, outcome

CASES_FILE = Path(cases.__file__)


@pytest.fixture(scope="module")
def static_module(tmp_path_factory):
    module, _ = converted_module(CASES_FILE, tmp_path_factory.mktemp("external21"),
                                 "external21_cases_converted", register=True)
    yield module
    del sys.modules["external21_cases_converted"]


@pytest.mark.parametrize("fn, args", cases.CASES,
                         ids=[f"{f.__qualname__}{a}" for f, a in cases.CASES])
def test_converted_code_means_what_python_means(fn, args, static_module):
    expected = outcome(fn, args)
    assert outcome(ag.to_graph(fn), args) == expected
    converted = static_module
    for part in fn.__qualname__.split("."):  # a method: through its class
        converted = getattr(converted, part)
    assert outcome(converted, args) == expected


def test_converted_module_has_no_global_it_did_not_write(static_module):
    """`ag__` reaches converted code as a builtin: the module's namespace is the user's,
    and a function remade from converted code with other globals runs as in Python."""
    assert "ag__" not in vars(static_module)
    star: dict = {}
    exec(f"from {static_module.__name__} import *", star)
    assert "ag__" not in star
    for fn in (cases.traceback_has_the_frames_python_has, cases.builtins_read_no_attributes):
        code = getattr(static_module, fn.__name__).__code__
        ns: dict = {"__name__": "elsewhere"}
        ns.update({k: v for k, v in vars(cases).items() if not k.startswith("__")})
        remade = types.FunctionType(code, ns)
        assert outcome(remade, (1,)) == outcome(fn, (1,))
        assert "ag__" not in ns


def test_function_remade_with_empty_globals_finds_the_builtins(static_module):
    """CPython's test_funcattrs: `type(f)(f.__code__, {})` of a converted `len(s)` call."""
    ns: dict = {}
    remade = types.FunctionType(static_module.length_of.__code__, ns)
    assert remade("abc") == cases.length_of("abc") and ns == {}


_FRESH_RUN = """
import json, sys
sys.path.insert(0, {folder!r})
import {module} as m
out = [m.traceback_has_the_frames_python_has(2), m.annotated_names_in_a_try(["4", "y", "quit"]),
       m.zero_argument_super(1), m.for_iterable_lifetime(1), m.length_of("abcd")]
loaded = [name for name in ("autograph.impl.calls", "autograph.impl.api", "gast")
          if name in sys.modules]
print(json.dumps([repr(out), loaded]))
"""


@pytest.mark.parametrize("which", ["original", "converted"])
def test_converted_module_on_python_values_loads_no_compiler(which, tmp_path):
    """A fresh process running `autograph convert` output on Python values gets what the
    original gives without loading the compiler: no trace is being built, so every callee
    runs as written (the start cost of a converted program is its imports only)."""
    module = "external21_fresh"
    text = CASES_FILE.read_text()
    if which == "converted":
        text = convert_module_source(text, str(CASES_FILE))
    (tmp_path / f"{module}.py").write_text(text)
    script = _FRESH_RUN.format(folder=str(tmp_path), module=module)
    run = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                         check=True, cwd=tmp_path)
    out, loaded = json.loads(run.stdout.strip().splitlines()[-1])
    expected = repr([cases.traceback_has_the_frames_python_has(2),
                     cases.annotated_names_in_a_try(["4", "y", "quit"]),
                     cases.zero_argument_super(1), cases.for_iterable_lifetime(1),
                     cases.length_of("abcd")])
    assert out == expected.replace("tests.autograph.external21_cases", module)
    assert loaded == []


def test_written_module_takes_its_fast_paths_only_outside_traces(static_module):
    """The written module calls names inline and stores into lists and dicts as written
    on Python values; traced by ag.function, the same code takes the graph forms and
    equals eager NumPy (and `jit_compile=True`)."""
    x = np.arange(4.0)
    expected = cases.array_item_stores(x)
    for jit in (False, True):
        got = ag.function(static_module.array_item_stores, jit_compile=jit)(x)
        assert_same(got, expected)
    assert_same(static_module.array_item_stores(x), expected)
