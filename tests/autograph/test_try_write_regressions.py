"""Programs the fuzzer (tests/autograph/fuzz_try_writes.py) found silently wrong, reduced:
writes into an argument array after a symbolic `if` / loop that carried the array out.
Each runs eagerly, through `ag.function` (twice: the second call runs the graph only,
also `jit_compile=True`) and `ag.to_graph`, on inputs taking different paths, and the
outcome (value or exception) and what the arguments hold afterwards must equal eager
NumPy's."""
from __future__ import annotations

import inspect

import numpy as np
import pytest

import autograph as ag
from tests.autograph.test_try_graph_writes import assert_same_outcome, outcome

pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")


def write_after_a_branch_that_raises(x, y, xs):
    # (seed 2050) the branch that raises wrote the argument first: the `if`'s output is
    # still the argument's array on the path that goes on, so the write after it must
    # reach the argument (it went into a copy, or was refused as path dependent)
    w = 0
    while True:
        w += 1
        if w > 2:
            break
        if y > 0.0:
            xs[0] = x
            raise ValueError("r2")
    xs[1] = x
    return xs[0]


def write_after_a_branch_that_only_could_write(x, y, xs):
    # (seed 1794) the inner `if` is Python (its test is a Python int) and does not
    # write: the symbolic `if` passes the argument through on both paths, and its output
    # is still the argument's array
    a = 1
    if y > 0.0:
        if a > 3:
            xs[2] = x
    if x < 0.0:
        raise ValueError("r2")
    else:
        xs[1] = 0.0
    return y


def write_after_a_try_in_a_branch(n, k, x, y, xs):
    # (seed 2239) the same after a graph `try` / `finally` that may return, in a branch
    a = -2
    if xs[0] > 0.0:
        try:
            xs[k % 4] = -xs[n % 4]
        finally:
            if (x if a // 2 <= -xs[n % 4] else y) == a:
                return -1.5, x  # noqa: B012 - the construct under test
        if k >= x:
            pass
        else:
            xs[n % 4] = x
    return 2.0, y


XS = np.array([1.5, -1.0, 0.0, 0.5])
CASES = [
    ("write_after_a_branch_that_raises", (np.float64(0.5), np.float64(y), XS))
    for y in (-1.0, 1.0)
] + [
    ("write_after_a_branch_that_only_could_write", (np.float64(x), np.float64(y), XS))
    for x in (-0.5, 1.5) for y in (-2.0, 2.0)
] + [
    ("write_after_a_try_in_a_branch",
     (np.int64(n), np.int64(k), np.float64(x), np.float64(-0.5), xs))
    for n, k, x in ((0, 5, 1.0), (3, -3, -0.5), (0, 1, 0.5)) for xs in (XS, -XS)
]


def _copies(args):
    return tuple(a.copy() if isinstance(a, np.ndarray) else a for a in args)


@pytest.mark.parametrize("name,args", CASES, ids=[f"{n}-{i}" for i, (n, _) in enumerate(CASES)])
@pytest.mark.parametrize("mode", ["function", "jit", "to_graph"])
def test_reduced_fuzz_program(name, args, mode, capsys):
    fn = globals()[name]
    with np.errstate(divide="raise", over="ignore", invalid="ignore", under="ignore"):
        want = outcome(fn, _copies(args), capsys)
        if mode == "to_graph":
            run = ag.to_graph(fn)
        else:
            run = ag.function(fn, jit_compile=mode == "jit")
        assert_same_outcome(outcome(run, _copies(args), capsys), want)
        if mode == "function":
            assert_same_outcome(outcome(run, _copies(args), capsys), want)


@pytest.mark.parametrize("name", sorted({n for n, _ in CASES}))
def test_one_graph_serves_every_path(name, capsys):
    # one `ag.function` called on every argument set in turn (the fuzzer's order): the
    # graph traced on the first set must be right on the others
    fn = globals()[name]
    run = ag.function(fn)
    with np.errstate(divide="raise", over="ignore", invalid="ignore", under="ignore"):
        for _, args in [c for c in CASES if c[0] == name]:
            want = outcome(fn, _copies(args), capsys)
            assert_same_outcome(outcome(run, _copies(args), capsys), want)


def list_item_in_a_handler_then_break_in_finally(xs):
    # (seed 1741) the `finally: break` is a handler of everything around the `try`:
    # it read the state where an error passed through from the nested `try` node's
    # results (what its paths give once finished), could not tell it, and the loop was
    # refused into one carrying `cells` as a graph list, whose item write the handler
    # could not trace. Read at the nested `try`'s own operations, the graph is exact.
    a = -2
    cells = [0, 1]
    for _e in xs:
        try:
            a += -3
        except ValueError:
            cells[1] += -5
        finally:
            break  # noqa: B012 - the construct under test
    return a, cells[1]


def list_item_read_in_a_handler_then_break_in_finally(xs):
    a = -2
    cells = [0, 1]
    for _e in xs:
        try:
            a += -3
        except ValueError:
            cells[1] = cells[1] + 1
        finally:
            break  # noqa: B012 - the construct under test
    return a, cells[1]


LIST_CASES = [(name, (xs,)) for name in ("list_item_in_a_handler_then_break_in_finally",
                                         "list_item_read_in_a_handler_then_break_in_finally")
              for xs in (XS, XS[:0], XS[:1])]


@pytest.mark.parametrize("name,args", LIST_CASES,
                         ids=[f"{n}-{i}" for i, (n, _) in enumerate(LIST_CASES)])
@pytest.mark.parametrize("mode", ["function", "jit", "to_graph"])
def test_a_handler_writing_a_list_item_then_break_in_finally(name, args, mode, capsys):
    fn = globals()[name]
    want = outcome(fn, _copies(args), capsys)
    run = ag.to_graph(fn) if mode == "to_graph" else ag.function(fn, jit_compile=mode == "jit")
    assert_same_outcome(outcome(run, _copies(args), capsys), want)


def reads_the_caught_exception_then_break_in_finally(xs):
    a = -2
    cells = [0, 1]
    for _e in xs:
        try:  # refused
            a += -3
        except ValueError as e:
            cells[1] = len(str(e))
        finally:
            break  # noqa: B012 - the construct under test
    return a, cells[1]


def test_a_compiler_error_in_a_handler_is_not_caught_by_the_program():
    # eager NumPy gives a value; the graph cannot trace the handler: a clear error at
    # the `try`, which the `finally: break` (a handler of everything) must not swallow
    fn = reads_the_caught_exception_then_break_in_finally
    lines, first = inspect.getsourcelines(fn)
    line = first + next(i for i, t in enumerate(lines) if "# refused" in t)
    for run in (ag.function(fn), ag.function(fn, jit_compile=True)):
        with pytest.raises(ag.ConversionError, match="reads the caught exception") as caught:
            run(XS.copy())
        assert caught.value.lineno == line
    assert ag.to_graph(fn)(XS.copy()) == fn(XS.copy())  # (no graph: Python's outcome)
