"""A `try` whose body ends in `return` and whose `finally` jumps (`break` / `continue`
under a condition), in Python loops and symbolic loops: the jump drops the pending
return, as Python runs it. Was: the whole function was left as Python ("`break` inside
`finally` is not supported"), because a `try` whose `return`s had been lowered was never
offered the lowering of its `finally`'s jumps (try_statements._rewrite_blocks). Found by
CPython's test_grammar (test_break_in_finally_after_return,
test_continue_in_finally_after_return) through `autograph convert`. Also a `try` whose
`finally` jumps and that stays Python (a list method in it, or the Python side of a
`with np.errstate` region around its loop): it takes its form without `finally`, the
same in Python, so the loop can lower the jump (try_statements.transform; was the same
refusal, found by the fuzzer, seed 5089 of graph_try,try_writes).

Each case runs eagerly, through `ag.function` (also `jit_compile=True`), `ag.to_graph`
and the output of `autograph convert`, with Python and NumPy inputs."""
from __future__ import annotations

import inspect

import numpy as np
import pytest

import autograph as ag
from tests.helpers import converted_module
from tests.autograph.test_try_graph_jumps import assert_same_outcome, outcome

pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")


def break_after_return_in_while(x):
    for count in [0, 1]:
        count2 = 0
        while count2 < 20:
            count2 += 10
            try:
                return count + count2
            finally:
                if x:
                    break  # noqa: B012 - the construct under test
    return -count, count2


def break_after_return_in_for(x):
    for count in [0, 1]:
        for count2 in [10, 20]:
            try:
                return count + count2
            finally:
                if x:
                    break  # noqa: B012 - the construct under test
    return -count, count2


def continue_after_return_in_while(x):
    count = 0
    while count < 100:
        count += 1
        try:
            return count
        finally:
            if x:
                continue  # noqa: B012 - the construct under test
    return -count


def continue_after_return_in_for(x):
    for count in [0, 1]:
        try:
            return count
        finally:
            if x:
                continue  # noqa: B012 - the construct under test
    return -count


def break_after_return_of_an_operation(x, n):
    i = 0
    s = x * 1.0
    while i < n:
        i += 1
        try:
            s = s + np.sqrt(x)
            return s * i
        finally:
            if s > 3.0:
                break  # noqa: B012 - the construct under test
    return s - i


def continue_after_return_in_a_symbolic_loop(x, n):
    s = x * 1.0
    for i in range(n):
        try:
            s = s + i
            return s
        finally:
            if s < 4.0:
                continue  # noqa: B012 - the construct under test
    return -s


def python_try_whose_finally_continues(xs):
    out = []
    i = 0
    while i < len(xs):
        i += 1
        try:
            out.append(xs[i - 1] * 2)  # (a list method: the `try` stays Python)
            if xs[i - 1] > 5:
                break
        finally:
            if xs[i - 1] < 0:
                continue  # noqa: B012 - the construct under test
        out.append(-1)
    return out, i


def region_around_a_loop_whose_finally_continues(x, n):
    z = x * 0.0
    with np.errstate(divide="ignore"):
        i = 0
        while i < n:
            i += 1
            try:
                if x > 2.0:
                    break
                z = z + x / (i - 2)
            finally:
                z = z + 1
                if z > 3.0:
                    continue  # noqa: B012 - the construct under test
            z = z * 2
    return z, i


PYTHON_ARGS = [(False,), (True,), (0,), (1,)]
NUMBER_CASES = [break_after_return_in_while, break_after_return_in_for,
                continue_after_return_in_while, continue_after_return_in_for]
ARRAY_CASES = [break_after_return_of_an_operation, continue_after_return_in_a_symbolic_loop]
ARRAY_ARGS = [(np.float64(1.0), np.int64(3)), (np.float64(4.0), np.int64(3)),
              (np.float64(0.5), np.int64(0)), (np.float64(2.0), 5), (np.float64(9.0), 2)]


@pytest.fixture(scope="module")
def converted(tmp_path_factory):
    return converted_module(__file__, tmp_path_factory.mktemp("converted"),
                            "converted_return_finally_jump")[0]


def _run(fn, how, converted):
    if how == "convert":
        return getattr(converted, fn.__name__)
    if how == "convert_function":
        return ag.function(getattr(converted, fn.__name__))
    if how == "to_graph":
        return ag.to_graph(fn)
    return ag.function(fn, jit_compile=how == "jit")


HOWS = ["function", "jit", "to_graph", "convert", "convert_function"]


@pytest.mark.parametrize("args", PYTHON_ARGS, ids=str)
@pytest.mark.parametrize("fn", NUMBER_CASES, ids=lambda f: f.__name__)
@pytest.mark.parametrize("how", HOWS)
def test_python_values(fn, args, how, capsys, converted):
    want = outcome(fn, args, capsys)
    assert_same_outcome(outcome(_run(fn, how, converted), args, capsys), want)


@pytest.mark.parametrize("args", ARRAY_ARGS, ids=str)
@pytest.mark.parametrize("fn", ARRAY_CASES, ids=lambda f: f.__name__)
@pytest.mark.parametrize("how", HOWS)
def test_numpy_values(fn, args, how, capsys, converted):
    want = outcome(fn, args, capsys)
    assert_same_outcome(outcome(_run(fn, how, converted), args, capsys), want)


@pytest.mark.parametrize("fn", NUMBER_CASES, ids=lambda f: f.__name__)
def test_a_symbolic_jump_between_two_structures_is_a_clear_error(fn):
    # (a tuple on one path, a number on the other: no graph returns both)
    for x in (np.bool_(False), np.bool_(True)):
        want = fn(x)
        try:
            got = ag.function(fn)(x)
        except ValueError as e:
            assert "return different structures" in str(e) and __file__ in str(e)
        else:
            assert type(got) is type(want) and got == want


@pytest.mark.parametrize("xs", [[], [1, 2], [3, -1, 7, 2], [-2, -3]], ids=str)
@pytest.mark.parametrize("how", HOWS)
def test_a_python_try_whose_finally_continues(xs, how, capsys, converted):
    fn = python_try_whose_finally_continues
    want = outcome(fn, (list(xs),), capsys)
    assert_same_outcome(outcome(_run(fn, how, converted), (list(xs),), capsys), want)


@pytest.mark.parametrize("args", [(1.0, 3), (4.0, 3), (0.5, 0), (2.0, 5)], ids=str)
@pytest.mark.parametrize("how", HOWS)
def test_a_region_around_a_loop_whose_finally_continues(args, how, capsys, converted):
    # (Python numbers: on NumPy values the graph form refuses this `try` for now)
    fn = region_around_a_loop_whose_finally_continues
    want = outcome(fn, args, capsys)
    assert_same_outcome(outcome(_run(fn, how, converted), args, capsys), want)


def test_the_whole_function_is_converted(converted):
    for fn in NUMBER_CASES + ARRAY_CASES + [python_try_whose_finally_continues,
                                            region_around_a_loop_whose_finally_continues]:  # (not left as Python, with a note)
        assert "ag__.autograph_artifact" in inspect.getsource(getattr(converted, fn.__name__))
