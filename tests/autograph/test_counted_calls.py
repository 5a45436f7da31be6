"""A converted function counts its own calls for the recursion room only while a trace is
being built (it switches code when the first trace starts and the last one ends): the
count works in traces that start after the function was converted, and outside traces
the function recurses as Python does, also when it was converted inside a trace and
while another thread traces."""
from __future__ import annotations

import sys
import threading

import numpy as np
import pytest

import autograph as ag
from runtime.core.errors import TracingRecursionError


def factorial(n):
    if n <= 1:
        return np.int64(1)
    return n * factorial(n - 1)


def countdown(n):
    if n == 0:
        return 0
    return 1 + countdown(n - 1)


def deepest(fn) -> int:
    """The largest n for which fn(n) returns (it raises RecursionError beyond)."""
    lo, hi = 0, 100_000
    while lo < hi:
        mid = (lo + hi + 1) // 2
        try:
            fn(mid)
            lo = mid
        except RecursionError:
            hi = mid - 1
    return lo


@pytest.fixture
def low_limit():
    """A low recursion limit, so that the room made for a trace (a multiple of it) is
    spent quickly."""
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(400)
    try:
        yield 400
    finally:
        sys.setrecursionlimit(limit)


def test_a_function_converted_before_a_trace_counts_its_calls_in_it(low_limit):
    converted = ag.to_graph(factorial)
    assert converted(6) == factorial(6)  # converted and run outside any trace first
    with pytest.raises(TracingRecursionError, match="Write it as a loop"):
        ag.function(factorial)(np.int64(5))  # its counted code explains the error
    assert sys.getrecursionlimit() == low_limit
    assert converted(6) == factorial(6) and sys.getrecursionlimit() == low_limit


def test_a_function_converted_in_a_trace_recurses_as_python_after_it():
    f = ag.function(scaled_countdown)  # `countdown` is converted while this traces
    assert f(np.float64(2.0), 30) == scaled_countdown(np.float64(2.0), 30)
    limit = sys.getrecursionlimit()
    converted = ag.to_graph(countdown)  # the one the trace made
    assert converted(200) == countdown(200)
    assert 0 <= deepest(countdown) - deepest(converted) <= 1
    assert sys.getrecursionlimit() == limit


def scaled_countdown(x, n):
    return x * countdown(n)


def test_recursion_outside_traces_while_another_thread_traces():
    converted = ag.to_graph(countdown)
    limit = sys.getrecursionlimit()
    stop = threading.Event()
    traced: list = []

    def trace_repeatedly():  # each call a new trace: traces start and end all along
        while not stop.is_set() and len(traced) < 500:
            x = np.float64(len(traced))
            traced.append(ag.function(scaled_countdown)(x, 40) == scaled_countdown(x, 40))

    thread = threading.Thread(target=trace_repeatedly)
    thread.start()
    try:
        results = [converted(n) for n in range(0, 600, 7)]
    finally:
        stop.set()
        thread.join()
    assert results == [countdown(n) for n in range(0, 600, 7)]
    assert traced and all(traced)
    assert sys.getrecursionlimit() == limit
