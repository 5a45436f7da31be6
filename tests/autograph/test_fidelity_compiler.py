"""Converted code means exactly what the Python means, on Python values: every function
of `fidelity_cases.py` runs as the original, through `ag.to_graph`, and from the module
`autograph convert` writes for that file - same results (or exception type and
message), same state of the arguments afterwards, same global state. Also: deep
expressions convert, recursion reaches the original's depth, a parameter named like a
generated value works in graph mode, and generated names never collide with the user's.
"""
from __future__ import annotations

import copy
import importlib.util
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

import autograph as ag
from autograph.impl.static import convert_module_source
from tests.autograph import fidelity_cases

CASES_FILE = Path(fidelity_cases.__file__)


def _load(path: Path, name: str):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def static_module(tmp_path_factory):
    out = tmp_path_factory.mktemp("fidelity") / "fidelity_cases_converted.py"
    out.write_text(convert_module_source(CASES_FILE.read_text(), str(CASES_FILE)))
    return _load(out, "fidelity_cases_converted")


def _outcome(fn, args, module):
    args = copy.deepcopy(args)
    module.COUNTER = 0
    try:
        result = ("value", fn(*args))
    except Exception as e:  # noqa: BLE001 - compared as type and message
        result = ("raised", type(e).__name__, str(e))
    return result, args, module.COUNTER


def _same(a, b) -> bool:
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        return type(a) is type(b) and a.dtype == b.dtype and np.array_equal(a, b)
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return type(a) is type(b) and len(a) == len(b) and all(map(_same, a, b))
    if isinstance(a, dict) and isinstance(b, dict):
        return list(a) == list(b) and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, fidelity_cases.Obj) and type(a).__name__ == type(b).__name__:
        return _same(vars(a), vars(b))
    return type(a) is type(b) and a == b


PARAMS = [(name, args) for name, arg_list in fidelity_cases.CASES for args in arg_list]


@pytest.mark.parametrize("name,args", PARAMS, ids=[f"{n}{a!r}"[:60] for n, a in PARAMS])
def test_converted_means_the_same(name, args, static_module):
    original = getattr(fidelity_cases, name)
    expected = _outcome(original, args, fidelity_cases)
    converted = _outcome(ag.to_graph(original), args, fidelity_cases)
    assert _same(converted, expected), (converted, expected)
    static = _outcome(getattr(static_module, name), args, static_module)
    assert _same(static, expected), (static, expected)


def test_late_binding_example_from_the_issue():
    fs = ag.to_graph(fidelity_cases.lambdas_in_for)(3)
    assert fs == [4.0, 4.0, 4.0] == fidelity_cases.lambdas_in_for(3)


def test_locals_never_shows_generated_names():
    generated = {"ag__", "if_true", "if_false", "loop_body", "do_return", "retval_", "break_"}
    for name in ("locals_after_branch", "vars_and_dir"):
        fn = getattr(fidelity_cases, name)
        args = dict(fidelity_cases.CASES)[name][0]
        seen = set(np.ravel(np.array(ag.to_graph(fn)(*args), dtype=object)).tolist()
                   if name == "locals_after_branch" else
                   ag.to_graph(fn)(*args)[0] + ag.to_graph(fn)(*args)[1])
        assert not seen & generated, seen


# -- deep expressions --------------------------------------------------------------------------
def _module_from_source(tmp_path, name: str, source: str):
    path = tmp_path / f"{name}.py"
    path.write_text(source)
    return _load(path, name), path


@pytest.mark.parametrize("terms", [250, 1000])
def test_long_expressions_convert_like_cpython_compiles_them(terms, tmp_path):
    body = " + ".join(f"x * {i}" for i in range(terms))
    source = f"def big(x):\n    if x > 0:\n        return {body}\n    return -({body})\n"
    module, path = _module_from_source(tmp_path, f"deep_expr_{terms}", source)
    limit = sys.getrecursionlimit()
    for x in (2, -1):
        assert ag.to_graph(module.big)(x) == module.big(x)
    assert str(terms - 1) in ag.to_code(module.big)
    static, _ = _module_from_source(tmp_path, f"deep_expr_{terms}_converted",
                                    convert_module_source(source, str(path)))
    assert static.big(3) == module.big(3)
    assert sys.getrecursionlimit() == limit  # raised for the conversion only


# -- recursion depth ---------------------------------------------------------------------------
def countdown(n):
    if n == 0:
        return 0
    return 1 + countdown(n - 1)


def count_with_loop(n):
    s = 0
    if n > 0:
        for _ in range(1):
            s += 1 + count_with_loop(n - 1)
    return s


def _max_depth(fn) -> int:
    lo, hi = 1, 4000
    while lo < hi:
        mid = (lo + hi + 1) // 2
        try:
            fn(mid)
            lo = mid
        except RecursionError:
            hi = mid - 1
    return lo


@pytest.mark.parametrize("fn", [countdown, count_with_loop])
def test_converted_recursion_reaches_the_original_depth(fn):
    limit = sys.getrecursionlimit()
    original, converted = _max_depth(fn), _max_depth(ag.to_graph(fn))
    assert converted >= original * 0.95, (original, converted)
    assert sys.getrecursionlimit() == limit
    with pytest.raises(RecursionError):  # unbounded recursion still ends the same way
        ag.to_graph(fn)(10 ** 6)
    assert sys.getrecursionlimit() == limit


def test_recursion_through_a_cache_in_convert_output_reaches_the_original_depth(static_module):
    # `autograph convert` output calls itself through functools.cache: `ag__.converted` runs
    # the wrapper as is but still counts the level
    limit = sys.getrecursionlimit()
    original = _max_depth(fidelity_cases.cached_chain)
    converted = _max_depth(static_module.cached_chain)
    assert converted >= original * 0.95, (original, converted)
    assert sys.getrecursionlimit() == limit


def test_recursion_room_is_shared_safely_between_threads():
    import threading

    limit = sys.getrecursionlimit()
    converted = ag.to_graph(countdown)
    for depth, expected in ((900, 900), (5000, "RecursionError")):
        out: list = []

        def run(depth=depth, out=out):
            try:
                out.append(converted(depth))
            except RecursionError:
                out.append("RecursionError")
        threads = [threading.Thread(target=run) for _ in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert out == [expected] * 4
        assert sys.getrecursionlimit() == limit


# -- generated names ---------------------------------------------------------------------------
def scaled(v1, x, a1, c2):
    if x > 0:
        y = x * v1 + a1
    else:
        y = x - c2
    return y


def test_parameters_named_like_graph_values_trace():
    f = ag.function(scaled)
    for x in (np.float64(1.5), np.float64(-1.5)):
        args = (np.float64(2.0), x, np.float64(0.5), np.float64(3.0))
        assert f(*args) == scaled(*args)


def test_generated_identifiers_avoid_every_user_name(tmp_path):
    source = textwrap.dedent("""
        def f(ag__, if_true, loop_body, retval_, do_return, break_, itr, ag__converted):
            total = 0
            for i in range(ag__):
                if i == if_true:
                    break
                total += loop_body + retval_ + do_return + itr + ag__converted
            return total
    """)
    module, _ = _module_from_source(tmp_path, "names_clash", source)
    args = (5, 3, 1, 2, 3, 4, 5, 6)
    assert ag.to_graph(module.f)(*args) == module.f(*args)
    code = ag.to_code(module.f)
    assert "ag___1.for_stmt" in code and "def f(ag__, if_true, loop_body" in code


# -- what functions made by converted code look like ---------------------------------------
def makes_functions(n):
    fs = []
    for i in range(n):
        def g(v):
            return v + i
        fs.append(g)
        if i > 0:
            fs.append(lambda: i)

            class Local:
                def method(self):
                    return i
            fs.append(Local.method)
    return [h.__qualname__ for h in fs]


def test_functions_made_in_generated_code_keep_their_qualified_names():
    assert ag.to_graph(makes_functions)(3) == makes_functions(3)
    assert "makes_functions.<locals>.Local.method" in makes_functions(2)
