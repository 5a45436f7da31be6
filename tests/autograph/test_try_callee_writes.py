"""State a graph `try`'s handler changes through a call - a method, a context manager's
`__enter__` / `__exit__` - rather than by an assignment the converter sees: the change
happens on the handler's path only, when the graph takes it. It was done while tracing
and kept on every path: a method counting in a handler counted on calls where the body
finished (fuzz seed 2801 of graph_try,try_raises; the same on the previous main)."""
from __future__ import annotations

import numpy as np
import pytest

import autograph as ag
from tests.helpers import outcome

pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")


class Counter:
    def __init__(self):
        self.n = 0

    def bump(self):
        self.n = self.n + 1


class Track:
    def __init__(self):
        self.n = 0

    def __enter__(self):
        self.n = self.n + 1
        return self

    def __exit__(self, kind, value, tb):
        self.n = self.n + (100 if kind is not None else 10)
        return False


def method_in_a_handler(x, counter):
    try:
        y = np.linalg.inv(x)
    except np.linalg.LinAlgError:
        counter.bump()
        y = np.zeros((2, 2))
    return y[0, 0]


def manager_in_a_raising_handler(x, track):
    try:
        y = np.linalg.inv(x)
    except np.linalg.LinAlgError:
        with track:
            raise ValueError("singular")  # noqa: B904 - the program under test
    return y[0, 0]


def method_in_the_body_and_the_handler(x, counter):
    try:
        counter.bump()
        y = np.linalg.inv(x)
    except np.linalg.LinAlgError:
        counter.bump()
        counter.bump()
        y = np.ones((2, 2))
    return y[1, 1]


GOOD, BAD = np.eye(2) * 2.0, np.zeros((2, 2))


@pytest.mark.parametrize("fn,holder", [(method_in_a_handler, Counter),
                                       (manager_in_a_raising_handler, Track),
                                       (method_in_the_body_and_the_handler, Counter)])
@pytest.mark.parametrize("jit", [False, True])
def test_the_change_happens_on_the_handlers_path_only(fn, holder, jit):
    run = ag.function(fn, jit_compile=jit)
    mine, theirs = holder(), holder()
    for x in (GOOD, BAD, GOOD, GOOD, BAD):
        assert outcome(run, (x, mine)) == outcome(fn, (x, theirs))
        assert mine.n == theirs.n
