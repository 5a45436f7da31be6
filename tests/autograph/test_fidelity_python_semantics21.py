"""Converted code means what Python means (issue 21, items 2 and 3): each numbered
difference of the issue, run as written, through `ag.to_graph`, and from the module
`autograph convert` writes, with the same outcome (value, or exception type and text).

    2  eval / exec / locals() / vars() see the function's variables
    3  class bodies nested in a converted function are left as Python writes them
    4  callees reading their caller's frame see the user's function and module
    6  exec / compile from converted code inherit no future flags
    7  builtins are looked up when the call runs
    8  unhashable callables, cmp_to_key objects, dead weak references
    9  super() in a module with `import *`; no global `ag__` needed
   10  functions without a source file are called as is, without a warning

plus what makes them so: `ag__.converted(f)` hands back the callee itself when nothing
needs converting, so the user's frame makes the call.
"""
from __future__ import annotations

import builtins
import importlib.util
import collections
import math
import sys
import types
import warnings
from pathlib import Path

import numpy as np
import pytest

import autograph as ag
from autograph.impl import calls
from tests.helpers import converted_module, outcome
from tests.autograph import semantics21_cases as cases

CASES_FILE = Path(cases.__file__)


@pytest.fixture(scope="module")
def static_module(tmp_path_factory):
    module, _ = converted_module(CASES_FILE, tmp_path_factory.mktemp("semantics21"),
                                 "semantics21_cases_converted", register=True)
    yield module
    del sys.modules["semantics21_cases_converted"]


def _outcome(fn, args):
    return outcome(fn, args, warnings_as="error")  # item 10: as under `python -W error`


@pytest.mark.parametrize("fn, args", cases.CASES,
                         ids=[f"{f.__name__}{a}" for f, a in cases.CASES])
def test_converted_code_means_what_python_means(fn, args, static_module):
    expected = _outcome(fn, args)
    assert _outcome(ag.to_graph(fn), args) == expected
    assert _outcome(getattr(static_module, fn.__name__), args) == expected


def test_the_original_outcomes_are_the_interesting_ones():
    # the cases check what they claim: the frame readers all see this module, the class
    # bodies their own names, the exec'd annotation is a class (not a string)
    assert all(cases.frame_readers(1)[:-1]) and cases.frame_readers(1)[5] == "frame_readers"
    assert cases.converted_callees_see_their_caller(1) == \
        ("converted_callees_see_their_caller", True, True, True, 1)
    assert cases.class_body_locals(4)[0] == ["__module__", "__qualname__", "a"]
    assert cases.exec_annotations(1) == {"a": int, "return": str}
    assert cases.closure_mutation_in_methods(3) == (3, [4], 4)


@pytest.mark.parametrize("convert", ["to_graph", "static"])
def test_a_global_shadowing_a_builtin_at_run_time_is_called(convert, static_module):
    module = cases if convert == "to_graph" else static_module
    fn = ag.to_graph(cases.uses_builtins) if convert == "to_graph" else module.uses_builtins
    before = fn([1, 2, 3])
    assert before == cases.uses_builtins([1, 2, 3])
    module.len = lambda xs: 100  # what `globals()["len"] = ...` does
    printed = []
    module.print = printed.append
    try:
        assert fn([1, 2, 3]) == (100, 100, 6)
        if module is cases:
            assert cases.uses_builtins([1, 2, 3]) == (100, 100, 6)
    finally:
        del module.len, module.print
    assert printed == ["100 items"] * (1 + (module is cases))
    assert fn([1, 2, 3]) == before


def test_future_annotations_of_the_user_module_stay(tmp_path):
    source = ("from __future__ import annotations\n\n"
              "def f(x):\n"
              "    def g(a: int) -> str: pass\n"
              "    if x > 0:\n"
              "        return g.__annotations__\n"
              "    return None\n")
    path = tmp_path / "future_user.py"
    path.write_text(source)
    spec = importlib.util.spec_from_file_location("future_user", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    assert ag.to_graph(module.f)(1) == module.f(1) == {"a": "int", "return": "str"}


def test_converted_code_needs_no_global_named_ag():
    fn = ag.to_graph(cases.class_defined_in_a_branch)
    assert "ag__" in fn.__code__.co_freevars and "ag__" not in fn.__globals__
    bare = types.FunctionType(fn.__code__, {"__builtins__": builtins, "__name__": "bare"},
                              None, None, fn.__closure__)
    assert bare(3) == cases.class_defined_in_a_branch(3)
    assert "ag__.converted(len)" in ag.to_code(cases.uses_builtins)  # still readable


def test_classes_made_in_branches_have_the_original_qualified_names():
    def make(x):
        if x > 0:
            class A:
                def m(self):
                    return 1
        else:
            class A:
                pass
        return A
    for x in (1, -1):
        made, original = ag.to_graph(make)(x), make(x)
        assert made.__qualname__ == original.__qualname__ == "test_classes_made_in_branches_" \
            "have_the_original_qualified_names.<locals>.make.<locals>.A"
    assert ag.to_graph(make)(1).m.__qualname__ == make(1).m.__qualname__


def test_nested_class_methods_are_converted_as_their_own_functions():
    # the class body runs as written; its method is converted when converted code calls
    # it, so its `if` on a symbolic value becomes a graph branch
    def make_and_apply(x):
        class Relu:
            def __call__(self, v):
                if v.sum() > 0:
                    return v
                return v * 0.0
        return Relu()(x)
    f = ag.function(make_and_apply)
    for x in (np.array([1.0, 2.0]), np.array([-1.0, -2.0])):
        np.testing.assert_array_equal(f(x), make_and_apply(x))
    assert f.tracing_count == 1


# -- what makes it so: callees that need no conversion are handed back --------------------
def _user(v):
    return v


@pytest.mark.parametrize("callee", [math.pi.__add__, collections.namedtuple, np.sum, np.add,
                                    str, sorted, [].append, "ab".join, warnings.warn,
                                    cases.deprecated])
def test_library_callees_are_called_by_the_user_frame(callee):
    assert calls.converted(callee) is callee


def test_builtins_with_an_overload_give_the_overload():
    import autograph.operators as ops
    from runtime.core import tracing
    tracing.building.append(None)  # a trace is being built (on some thread)
    try:
        assert calls.converted(len) is ops.len_ and calls.converted(range) is ops.range_
        # math.* of a symbolic value runs the math function in the graph (math_calls.py)
        assert calls.converted(math.sqrt).__name__ == "math_sqrt"
    finally:
        tracing.building.pop()
    # with no trace anywhere nothing is symbolic: the overload would be the builtin
    assert calls.converted(len) is len and calls.converted(math.sqrt) is math.sqrt


def test_user_callees_are_converted_and_cached_without_hashing_them():
    first = calls.converted(_user)
    assert first(3) == 3 and calls.converted(_user) is first  # cached on the function
    adder = cases.Adder(1)  # unhashable
    with pytest.raises(TypeError):
        hash(adder)
    assert calls.converted(adder)(2) == adder(2)
    method = calls.converted(cases.Child().describe)
    assert method(1) == cases.Child().describe(1)
