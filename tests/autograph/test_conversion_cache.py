"""The compiled-code cache: converted code is shared by every function made by one `def`
(same code object), so it must not depend on closure values, on globals that may be
rebound, or on which file the `def` is in."""
from __future__ import annotations

import importlib.util
import types

import numpy as np
import autograph as ag
from autograph.impl import api as impl


def helper(x):
    if x > 0:
        return x
    return -x


def make(fn):
    def f(x):
        return fn(x)
    return f


def test_closures_of_one_def_holding_numpy_and_user_functions():
    assert ag.function(make(np.abs))(np.float64(-2.0)) == 2.0
    assert ag.function(make(helper))(np.float64(-2.0)) == 2.0   # helper is converted
    assert ag.to_graph(make(helper))(-3.0) == 3.0
    assert "ag__.converted(fn)(x)" in ag.to_code(make(np.abs))


def test_closure_cell_rebound_after_conversion():
    fn = np.abs

    def f(x):
        return fn(x)
    g = ag.function(f)
    assert g(np.float64(-2.0)) == 2.0
    fn = helper  # noqa: F841  (read through the cell)
    assert g(np.float32(-4.0)) == 4.0  # a new signature: traced again, helper converted


_rebindable = np.abs


def _calls_global(x):
    return _rebindable(x)


def test_global_rebound_after_conversion():
    global _rebindable
    g = ag.function(_calls_global)
    assert g(np.float64(-2.0)) == 2.0
    try:
        _rebindable = helper
        assert g(np.float32(-4.0)) == 4.0
    finally:
        _rebindable = np.abs


def test_builtin_shadowed_by_an_enclosing_local():
    def f(xs):
        def inner(ys):
            return len(ys)
        len = lambda ys: 7  # noqa: E731, F841 - a local of f, read by inner
        return inner(xs)
    assert ag.to_graph(f)([1, 2]) == 7


def test_same_code_with_other_globals_is_converted_again():
    def f(x):
        return np.sum(x) + len(x)
    fake_np = types.SimpleNamespace(sum=lambda x: 100)
    other = types.FunctionType(f.__code__, {"np": fake_np, "len": lambda x: 1000}, "f")
    assert ag.to_graph(f)([1, 2]) == 5
    assert ag.to_graph(other)([1, 2]) == 1100   # not the code specialized for numpy/len
    assert ag.to_graph(f)([1, 2]) == 5


def _load(path, name):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_identical_defs_in_two_files(tmp_path):
    paths = []
    for k in range(2):
        path = tmp_path / f"ag_same_{k}.py"
        path.write_text("def f(x):\n    if x > 0:\n        return x\n    return 0\n")
        paths.append(str(path))
    fa, fb = (_load(p, f"ag_same_{k}").f for k, p in enumerate(paths))
    assert fa.__code__ == fb.__code__  # code objects compare equal across files
    impl._reset_caches()
    ga, gb = ag.to_graph(fa), ag.to_graph(fb)
    assert ga.__code__.co_filename == paths[0]
    assert gb.__code__.co_filename == paths[1]
    assert ga(3) == 3 and gb(-1) == 0
