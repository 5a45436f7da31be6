"""Bugs the fuzzer's object features found (fuzz_objects.py), each as a differential test:
plain Python/NumPy vs `ag.function` (and `jit_compile=True`) over several calls on fresh,
identical objects - results, the objects' state and the globals after every call.

- a write into an array held in a container (`self.cache['m'][i] = v`, `rows[0][i] = v`,
  `c[1][i] = v`) was left to NumPy, which cannot take a symbolic value;
- a write into an array of a closure cell or global declared `nonlocal` / `global`
  (`buf[i] = v`) was left to NumPy too;
- a `functools.wraps` wrapper's own globals and closure cells were not state: the state
  walk followed `__wrapped__` to the inner function, so a record the wrapper appended to
  happened on the first call only and a symbolic value it stored escaped;
- a symbolic `if` / loop that replaces an item of a closure's dict is traced again to
  carry it; an array written in the first attempt kept, as its value, an output of the
  discarded attempt (a graph that failed verification);
- an `assert` whose test is a Python value, false, inside a branch of a symbolic `if`
  raised while tracing, so every call failed, also those taking the other branch;
- an array made by `np.array([...])` / `np.asarray([...])` while tracing stayed a NumPy
  array: a symbolic write through a view or alias of it was lost.
"""
from __future__ import annotations

import functools
import warnings

import numpy as np
import pytest

import autograph as ag

MODES = [{}, {"jit_compile": True}]
CALLS = [(1, 2.0), (2, 0.5), (3, -1.5), (1, 1.5)]


def _same(a, b) -> bool:
    if isinstance(a, (list, tuple)):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    return np.shape(a) == np.shape(b) and np.allclose(a, b, rtol=1e-12, atol=0)


def _run(options, make, observe):
    """Python and ag.function on identical fresh objects: results and state per call."""
    plain, graph = make(), make()
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="jit_compile")
        f = ag.function(graph[0], **options)
        for i, x in CALLS:
            want = plain[0](i, x)
            got = f(np.int64(i), np.float64(x))
            assert _same(want, got), (want, got)
            assert _same(observe(plain), observe(graph)), (observe(plain), observe(graph))


class Model:
    def __init__(self):
        self.cache = {"m": np.zeros(4)}
        self.rows = [np.zeros(4), np.ones(4)]

    def step(self, i, x):
        self.cache["m"][i] = x
        self.cache["m"][0] += x
        if x > 1:
            self.rows[1][i] = self.cache["m"][i] * 2
        grid = np.zeros((2, 4))
        grid[1][i] = x
        return grid.sum() + self.rows[1].sum()


@pytest.mark.parametrize("options", MODES)
def test_write_into_an_array_held_in_a_container(options):
    def make():
        m = Model()
        return m.step, m

    _run(options, make, lambda made: [made[1].cache, made[1].rows])


def _factory():
    buf = np.zeros(4)

    def step(i, x):
        nonlocal buf
        buf[i] = x
        if x > 1:
            buf[0] += x
        return buf.sum()

    return step, lambda: buf.copy()


@pytest.mark.parametrize("options", MODES)
def test_write_into_an_array_of_a_nonlocal_cell(options):
    _run(options, _factory, lambda made: made[1]())


GRID = np.zeros(4)


def _write_global(i, x):
    global GRID
    GRID[i] = x
    return GRID.sum()


@pytest.mark.parametrize("options", MODES)
def test_write_into_an_array_of_a_declared_global(options):
    GRID[:] = 0.0
    plain = [_write_global(i, x) for i, x in CALLS]
    seen = GRID.copy()
    GRID[:] = 0.0
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="jit_compile")
        f = ag.function(_write_global, **options)
        got = [f(np.int64(i), np.float64(x)) for i, x in CALLS]
    assert _same(plain, got) and _same(seen, GRID), (plain, got, seen, GRID)


RECORD: list = []


def _recording(tag, scale):
    def decorate(f):
        @functools.wraps(f)
        def wrapper(i, x):
            RECORD.append((tag, x * scale))
            return f(i, x) * scale
        return wrapper
    return decorate


@_recording("a", 2.0)
def _double(i, x):
    return x + i


@_recording("b", 3.0)
def _shift(i, x):
    return x - i


@pytest.mark.parametrize("options", MODES)
def test_a_wraps_decorator_records_every_call(options):
    RECORD.clear()
    want = [(fn(i, x)) for i, x in CALLS for fn in (_double, _shift)]
    expected = list(RECORD)
    RECORD.clear()
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="jit_compile")
        fs = [ag.function(_double, **options), ag.function(_shift, **options)]
        got = [f(np.int64(i), np.float64(x)) for i, x in CALLS for f in fs]
    assert _same(want, got)
    assert [t for t, _ in RECORD] == [t for t, _ in expected]
    assert _same([v for _, v in RECORD], [v for _, v in expected])
    assert all(isinstance(v, np.generic) for _, v in RECORD)   # no symbolic value left


def _created(kind):
    def step(i, x):
        c = (np.array([1.0, 2.0, 0.5, -1.0]) if kind == "array" else
             np.asarray([1.0, 2.0, 0.5, -1.0]))
        r = c[1:3]
        r[0] = x
        alias = c
        alias[i] += x
        return c * np.array([1.0, 3.0, 9.0, 27.0])
    return step


@pytest.mark.parametrize("options", MODES)
@pytest.mark.parametrize("kind", ["array", "asarray"])
def test_writes_through_views_of_an_array_made_from_a_list(kind, options):
    _run(options, lambda: (_created(kind),), lambda made: [])


def _box_and_array(loop):
    box = {"a": 0.0}

    def step(i, x):
        c = np.zeros(4)
        if x > 1.0:
            if loop:
                for j in range(i):
                    box["a"] = box["a"] * 0.5 + x
                    c[j] = x + j
            else:
                box["a"] = 1.5
                c[i] = x
        return c

    return step, box


@pytest.mark.parametrize("options", MODES)
@pytest.mark.parametrize("loop", [False, True])
def test_array_write_next_to_a_closure_dict_item_in_a_symbolic_block(loop, options):
    _run(options, lambda: _box_and_array(loop), lambda made: made[1])


def _assert_in_branch(i, x):
    a = 1
    if x > (2 and i):
        assert a > 2, "check"
        a = a + 1
    else:
        return -x
    return a * x


@pytest.mark.parametrize("options", MODES)
@pytest.mark.parametrize("i, x", [(1, 0.5), (1, 5.0), (0, -1.0)])
def test_a_false_python_assert_in_a_symbolic_branch_fails_when_it_runs(i, x, options):
    def outcome(fn, *args):
        try:
            return fn(*args)
        except AssertionError as e:
            return ("AssertionError", str(e).split("\n")[0])  # (pytest adds lines)

    want = outcome(_assert_in_branch, i, x)
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="jit_compile")
        got = outcome(ag.function(_assert_in_branch, **options), np.int64(i), np.float64(x))
    assert want == got if isinstance(want, tuple) else _same(want, got), (want, got)
