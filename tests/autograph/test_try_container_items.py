"""A `try` or `with np.errstate` traced into a graph whose body, in a symbolic branch,
replaces an attribute through code the converter does not see as an assignment (a
method, a context manager's `__enter__` / `__exit__`): the attribute is carried out of
the `try` node as Python leaves it (autograph/operators/try_containers.py; fuzz seed 459
of graph_try,try_raises raised an internal LeakedTensorError). Each program runs
eagerly, through `ag.function` (also `jit_compile=True`), `ag.to_graph` and the output
of `autograph convert`, and must give eager NumPy's outcome."""
from __future__ import annotations

import numpy as np
import pytest

import autograph as ag
from tests.helpers import converted_module
from tests.autograph.test_try_graph_writes import assert_same_outcome, outcome


class Track:
    def __init__(self):
        self.n = 0

    def __enter__(self):
        self.n = self.n + 1
        return self

    def __exit__(self, kind, value, tb):
        self.n = self.n + (100 if kind is not None else 10)
        return False

    def bump(self, by):
        self.n = self.n + by


def manager_in_a_branch_in_errstate(x):
    # (seed 459) `with track:` in a symbolic branch inside an errstate region: its
    # __enter__ / __exit__ write `track.n`, a value of the region's graph
    track = Track()
    with np.errstate(divide="warn"):
        if x > 0:
            with track:
                pass
    return track.n


def method_in_a_branch_in_try_finally(x):
    t = Track()
    log = 0
    try:
        if x > 0:
            t.bump(3)
    finally:
        log = log + 1
    return t.n, log


def method_in_a_branch_then_an_error(x, xs, k):
    # the handler sees the attribute as the body left it before the index error
    t = Track()
    try:
        if x > 0:
            t.bump(2)
        y = xs[k]
    except IndexError:
        y = -1.0
    return t.n, y


def manager_in_nested_branches_in_a_loop(x, xs):
    t = Track()
    for i in range(3):
        with np.errstate(invalid="ignore"):
            if x > xs[i]:
                if x > 2 * xs[i]:
                    with t:
                        pass
                else:
                    t.bump(5)
    return t.n


XS = np.array([-1.0, 0.5, 2.0, 3.0])
CASES = [
    ("manager_in_a_branch_in_errstate", (np.float64(x),)) for x in (1.0, -1.0)
] + [
    ("method_in_a_branch_in_try_finally", (np.float64(x),)) for x in (1.0, -1.0)
] + [
    ("method_in_a_branch_then_an_error", (np.float64(x), XS, np.int64(k)))
    for x in (1.0, -1.0) for k in (2, 7)
] + [
    ("manager_in_nested_branches_in_a_loop", (np.float64(x), XS)) for x in (-2.0, 0.8, 5.0)
]


@pytest.fixture(scope="module")
def converted(tmp_path_factory):
    return converted_module(__file__, tmp_path_factory.mktemp("converted"),
                            "converted_try_container_items")[0]


@pytest.mark.parametrize("name,args", CASES,
                         ids=[f"{n}-{i}" for i, (n, _) in enumerate(CASES)])
@pytest.mark.parametrize("mode", ["function", "jit", "to_graph", "convert"])
def test_attribute_written_by_a_call_in_a_branch(name, args, mode, capsys, converted):
    fn = globals()[name]
    want = outcome(fn, args, capsys)
    if mode == "convert":
        run = ag.function(getattr(converted, name))
    elif mode == "to_graph":
        run = ag.to_graph(fn)
    else:
        run = ag.function(fn, jit_compile=mode == "jit")
    assert_same_outcome(outcome(run, args, capsys), want)
    if mode == "function":  # a second call runs the graph only
        assert_same_outcome(outcome(run, args, capsys), want)


def test_the_graph_forms_are_used():
    assert "errstate_region(" in ag.to_code(manager_in_a_branch_in_errstate)
    assert "try_graph(" in ag.to_code(method_in_a_branch_then_an_error)
