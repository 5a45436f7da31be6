"""Shared test helpers: compare graph results with eager NumPy (value, dtype, shape)."""
from __future__ import annotations

import numpy as np

from runtime.exec.interpreter import run_graph
from runtime.core.structure import flatten


def assert_same(actual, expected, rtol=1e-6):
    """Same structure, and per leaf the same value, dtype and shape - and the same kind:
    a Python number where Python gives one, a NumPy scalar where NumPy gives one."""
    a_leaves, a_tree = flatten(actual)
    e_leaves, e_tree = flatten(expected)
    assert a_tree == e_tree, f"structure {a_tree} != {e_tree}"
    for a, e in zip(a_leaves, e_leaves):
        if isinstance(e, (np.ndarray, np.generic)):
            scalar = isinstance(e, np.generic)
            assert isinstance(a, np.generic if scalar else np.ndarray), \
                f"{a!r} != {e!r}: NumPy gives {'a NumPy scalar' if scalar else 'an array'}"
            a_arr, e_arr = np.asarray(a), np.asarray(e)
            assert a_arr.dtype == e_arr.dtype, f"dtype {a_arr.dtype} != {e_arr.dtype}"
            assert a_arr.shape == e_arr.shape, f"shape {a_arr.shape} != {e_arr.shape}"
            if e_arr.dtype.kind in "fc":
                np.testing.assert_allclose(a_arr, e_arr, rtol=rtol, equal_nan=True)
            else:
                np.testing.assert_array_equal(a_arr, e_arr)
        else:
            assert type(a) is type(e) and a == e, f"{a!r} != {e!r}"


def check_three_ways(fn, *args, rtol=1e-6):
    """Graph (generated code) vs eager NumPy vs the reference interpreter; verifier too."""
    import runtime

    f = runtime.function(fn)
    expected = fn(*args)
    actual = f(*args)
    assert_same(actual, expected, rtol)
    cf = f.get_concrete_function(*args)
    cf.graph.verify()
    assert_interpreter_agrees(cf, args, actual)
    return f


def assert_interpreter_agrees(cf, args, actual):
    """The reference interpreter gives what the generated code gave, leaf by leaf."""
    from runtime.frontend.signature import has_aliases, key_of, mark_aliases
    from runtime.core.tensor import Tensor

    leaves: list = []
    key = tuple(key_of(a, leaves) for a in args)
    if has_aliases(leaves):  # one array passed twice is one graph input
        _, leaves = mark_aliases(key, leaves)
    interpreted = iter(run_graph(cf.graph, leaves))
    for out_leaf, got in zip(cf._out_leaves, flatten(actual)[0]):
        if isinstance(out_leaf, Tensor):
            assert_same(next(interpreted), got)


def converted_module(source_file, directory, name: str, *, register: bool = False):
    """`source_file` as `autograph convert` writes it (to `directory`/`name`.py), imported;
    returns (module, text). `register`: the module is also put in `sys.modules` under
    `name` (dataclasses and pickling look a class's module up there); the caller removes
    it."""
    import importlib.util
    import sys
    from pathlib import Path

    from autograph.impl.static import convert_module_source

    text = convert_module_source(Path(source_file).read_text(), str(source_file))
    path = Path(directory) / f"{name}.py"
    path.write_text(text)
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    if register:
        sys.modules[name] = module
    spec.loader.exec_module(module)
    return module, text


def outcome(fn, args, *, warnings_as: str | None = None, exact_type: bool = False):
    """("value", fn(*args)) or ("raised", type name, message): what a differential test
    compares. `warnings_as` "error" / "ignore": warnings are turned into exceptions (as
    under `python -W error`) or hidden while it runs. `exact_type`: the exception's class
    instead of its name (two classes may share a name)."""
    import warnings

    with warnings.catch_warnings():
        if warnings_as is not None:
            warnings.simplefilter(warnings_as)
        try:
            return "value", fn(*args)
        except Exception as e:  # noqa: BLE001 - compared as type and message
            return "raised", type(e) if exact_type else type(e).__name__, str(e)


def assert_same_outcome(got, want, context=None) -> None:
    """Two `outcome`s agree: the same exception (type and message), or values equal by
    `assert_same` (type, dtype, shape and value)."""
    assert got[0] == want[0], (context, got, want)
    if want[0] == "value":
        assert_same(got[1], want[1])
    else:
        assert got[1:] == want[1:], (context, got, want)


MODES = ("function", "jit", "to_graph", "convert")


def run_in_mode(fn, mode: str, converted=None):
    """`fn` as one of the differential tests' four ways of running it: `ag.function`,
    with `jit_compile=True`, `ag.to_graph`, or `ag.function` of the function of the same
    name in `converted` (the test module as `autograph convert` writes it:
    `converted_module`)."""
    import autograph as ag

    if mode == "convert":
        return ag.function(getattr(converted, fn.__name__))
    if mode == "to_graph":
        return ag.to_graph(fn)
    return ag.function(fn, jit_compile=mode == "jit")


def assert_same_in_mode(fn, inputs: list, mode: str, converted=None) -> None:
    """`fn` run one of the four ways (`run_in_mode`) gives Python's outcome on each of
    `inputs`, the first again last (an existing trace run again)."""
    run = run_in_mode(fn, mode, converted)
    for args in inputs + inputs[:1]:
        assert_same_outcome(outcome(run, args, exact_type=True),
                            outcome(fn, args, exact_type=True), args)
