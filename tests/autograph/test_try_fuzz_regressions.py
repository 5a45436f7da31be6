"""Programs the fuzzer (tests/autograph/fuzz_try.py) found wrong, reduced: each runs
eagerly, through `ag.function` (also `jit_compile=True`), `ag.to_graph` and the output of
`autograph convert`, on inputs taking different paths, and the outcome (value with dtype,
shape and kind, or the exception), what `ag.print` printed and what the arguments hold
afterwards must equal eager NumPy's."""
from __future__ import annotations

import numpy as np
import pytest

import autograph as ag
from tests.helpers import converted_module
from tests.autograph.test_try_graph_writes import assert_same_outcome, outcome

pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")


def return_in_a_nested_finally(n, xs):
    # the outer `try` starts its value to return with the structure of the inner one's
    # (a pair), and the inner `try`'s jump code and value stay local to the outer body
    log = 0
    try:
        try:
            log = log + 1
        finally:
            for e in xs:
                if e < xs[n]:
                    return e, log  # noqa: B012 - the construct under test
        log = log + 1
    except LookupError:
        log = 7
    return xs[0], log


def return_in_try_in_loops(n, x, xs):
    # (seed 997) the value to return is "no value yet" before each `try`: the graph form
    # reads its state there, and the symbolic `while` must not carry it unbound (its
    # zero iterations raised UnboundLocalError)
    tlog = 0
    w1 = 0
    while w1 < n:
        w1 += 1
        for _e3 in xs:
            try:
                return x, tlog
            finally:
                tlog = tlog + 3
    return xs[0], tlog


def return_in_handler_continue_in_else(n, k, y, xs):
    # (seed 1487) a `return` ending a handler and a `continue` elsewhere: all jumps are
    # lowered to a jump code (the `try` stayed Python, and the symbolic `if` in its
    # `else` was refused)
    log = 0.0
    for i1 in range(n, k):
        try:
            log = log + xs[i1]
        except ValueError:
            return -1.0
        else:
            if y > log:
                continue
        log = log + 10
    return log


def handler_name_in_nested_errstate(n, x):
    # (seed 1414) the name an inner `except ... as e` binds is no state of the region
    # around it (unbound after its handler), so no loop carries it
    tlog = 0
    for _i1 in range(n):
        with np.errstate(divide="ignore"):
            try:
                tlog = tlog + 1
            except ArithmeticError as e:  # noqa: F841 - the construct under test
                tlog = -1
    else:
        try:
            x = x / 2
        except Exception as e:  # noqa: F841 - the construct under test
            tlog = -2
    return tlog, x


def variable_a_try_reads_written_in_the_other_branch(k, x, y):
    # (seed 4479) `flag` is one cell shared with the `try`'s generated functions: the
    # true branch's write must not be what the false branch is traced with
    flag = x
    tlog = 0
    if y:
        flag = True
    else:
        for _i2 in range(k):
            try:
                if flag:
                    continue
            except ValueError:
                pass
            else:
                tlog = 2
    return 1.0, tlog


def closure_read_in_the_other_branch(x, y):
    # the same class without a `try`: a lambda reads the variable
    flag = x
    tlog = 0
    if y > 0:
        flag = 0.0
    else:
        if (lambda: flag)() > 0:
            tlog = 2
    return tlog


def raises_either_way_then_branches(n, k):
    # (seed 1483) the code after an `if` whose branches both raise never runs, and is
    # not traced (traced with made-up values, a float clashed with an int there)
    a = 2
    if k > 0:
        raise ValueError("r1")
    else:
        a = a % 7
        raise KeyError("r2")
    if (a if n else n) > 1:
        a = a + 1
    return a


def raises_either_way_in_a_branch(n, k, y):
    # (seed 1741) the same inside a branch: the other branch's int meets the variable
    a = 2
    if y > 0:
        if a > k:
            a = n
            raise ValueError("r6")
        else:
            raise ValueError("r7")
    else:
        a = n // 4
    return a, -k


def errstate_around_a_try_whose_finally_returns(n, x, xs):
    # (seed 5241) the region's body holds a `try` whose `finally` returns: lowered
    # first, the `with` was refused as if it were not written alone; and `xs`, written in
    # the `try` and passed through the `if` unchanged, is still the argument's array
    tlog = 0
    with np.errstate(divide="ignore"):
        try:
            xs[0] = x
        finally:
            tlog = tlog + 1
            if (xs[2] + x) < -3:
                return tlog, xs[0]  # noqa: B012 - the construct under test
        tlog = (tlog + 60 // (1 - n)) % 1009
    return tlog, xs[1]


def divide_in_a_nested_branch_then_raise(n, x):
    # (seed 7484) a branch computes, then raises: the division whose result the raise
    # makes useless still runs first (its error comes first, as eagerly)
    b = 1
    if x > 0:
        if x < -5:
            b = b + 2
        else:
            b = (b + 60 // n) % 1009
        raise ValueError("bad r2")
    return b


def write_after_a_branch_that_keeps_the_array(xs, x):
    # (from seed 5241) `xs = xs` on a path: afterwards the name is still the argument's
    # array, so the write reaches the caller
    xs[1] = x
    if x > 0:
        xs = xs
    xs[0] = 7.0
    return x


def write_after_a_loop_that_keeps_the_array(xs, n):
    # the same through a symbolic loop that leaves `xs` alone
    xs[1] = 2.0
    k = 0
    while k < n:
        xs = xs
        k += 1
    xs[0] = 7.0
    return k


class Cell:
    def __init__(self):
        self.v = 0.0


def alias_kept_by_an_attribute_in_loops(x, xs):
    # (seed 5245) `cell.v = x` in a `try` in a symbolic loop, then `x` rebound: the
    # attribute keeps the array of its iteration (a loop variable that takes another's
    # value is not that variable's array passed through)
    cell = Cell()
    tlog = 0
    for _ in (0, 3):
        for i3, e4 in enumerate(xs):
            try:
                cell.v = x
            except ZeroDivisionError:
                tlog = tlog + 1
            finally:
                tlog = tlog + 3
                if (xs[i3] + e4) >= 100:
                    continue  # noqa: B012 - the construct under test
            x = x + 1.25
    return cell.v, tlog



def continue_in_finally_after_a_break(x, n, xs):
    # (seed 1788) a `finally` that may `continue` sees the error of the body or its
    # `break`: on the error path the body's jump code is 0 (no jump left the body), so
    # the graph knows it (it named the generated 'try_jump_1' in a refusal)
    t = 0.0
    w = 0
    while w < 3:
        w += 1
        if x > 0:
            try:
                if n > 2:
                    break
                t += xs[n + w]
            finally:
                if n > 1:
                    continue  # noqa: B012 - the construct under test
        t += 10
    return t


def finally_raises_over_the_body_error(k):
    # (seed 480) the body's error passes through `finally`, whose own index error
    # replaces it: the operations a handler traced before its re-raise run first (the
    # graph dropped them as unused and raised the body's error)
    t = 0
    try:
        t = int(np.array([3, 5, 7])[4])
    finally:
        t = t + int(np.array([3, 5, 7])[k])
    return t


def read_from_an_earlier_iteration(x, xs):
    # (seed 1788, reduced further) `w` is bound only by an earlier iteration of the
    # Python loop when the symbolic `if` takes it: passed in unbound (`Undefined`), not
    # read (UnboundLocalError where Python reads nothing)
    t = 0.0
    for i in range(3):
        if x > xs[i]:
            if i > 0:
                t = t + w  # noqa: F821 - bound by the previous iteration
            w = x * 2
        else:
            w = x - 1  # noqa: F841 - read by the next iteration
    return t


XS = np.array([-1.0, -2.0, -2.0, 3.0])
CASES = [
    ("return_in_a_nested_finally", (np.int64(n), XS)) for n in (1, 3, 7)
] + [
    ("return_in_try_in_loops", (np.int64(n), np.float64(1.5), XS)) for n in (2, 0)
] + [
    ("return_in_handler_continue_in_else", (np.int64(0), np.int64(k), np.float64(y), XS))
    for k in (0, 4, 9) for y in (-5.0, 0.0, 20.0)
] + [
    ("handler_name_in_nested_errstate", (np.int64(n), np.float64(3.0))) for n in (0, 2)
] + [
    ("variable_a_try_reads_written_in_the_other_branch",
     (np.int64(3), np.float64(x), np.float64(y))) for x in (0.0, 1.0) for y in (0.0, 1.0)
] + [
    ("errstate_around_a_try_whose_finally_returns", (np.int64(n), np.float64(x), XS))
    for n in (1, 2) for x in (0.0, -9.0)
] + [
    ("alias_kept_by_an_attribute_in_loops", (x, XS)) for x in (np.float64(0.0), np.zeros(2))
] + [
    ("continue_in_finally_after_a_break", (np.float64(x), np.int64(n), XS))
    for x, n in ((1.0, 0), (1.0, 1), (1.0, 2), (1.0, 3), (-1.0, 1))
] + [
    ("finally_raises_over_the_body_error", (np.int64(k),)) for k in (1, 5)
]
NO_TRY = [
    ("write_after_a_loop_that_keeps_the_array", (XS, np.int64(n))) for n in (0, 2)
] + [
    ("divide_in_a_nested_branch_then_raise", (np.int64(n), np.float64(x)))
    for n in (0, 3) for x in (-1.0, 2.0)
] + [
    ("write_after_a_branch_that_keeps_the_array", (XS, np.float64(x))) for x in (-1.0, 2.0)
] + [
    ("closure_read_in_the_other_branch", (np.float64(x), np.float64(y)))
    for x in (0.0, 1.0) for y in (-1.0, 1.0)
] + [
    ("raises_either_way_then_branches", (np.int64(n), np.int64(k))) for n in (0, 3)
    for k in (-1, 2)
] + [
    ("raises_either_way_in_a_branch", (np.int64(9), np.int64(k), np.float64(y)))
    for k in (1, 5) for y in (-1.0, 2.0)
] + [
    ("read_from_an_earlier_iteration", (np.float64(x), XS)) for x in (-3.0, -1.5, 5.0)
]


@pytest.fixture(scope="module")
def converted(tmp_path_factory):
    return converted_module(__file__, tmp_path_factory.mktemp("converted"),
                            "converted_try_fuzz_regressions")[0]


def _copies(args):
    return tuple(a.copy() if isinstance(a, np.ndarray) else a for a in args)


@pytest.mark.parametrize("name,args", CASES + NO_TRY,
                         ids=[f"{n}-{i}" for i, (n, _) in enumerate(CASES + NO_TRY)])
@pytest.mark.parametrize("mode", ["function", "jit", "to_graph", "convert"])
def test_reduced_fuzz_program(name, args, mode, capsys, converted):
    fn = globals()[name]
    with np.errstate(divide="raise", over="ignore", invalid="ignore", under="ignore"):
        want = outcome(fn, _copies(args), capsys)
        if mode == "convert":
            run = ag.function(getattr(converted, name))
        elif mode == "to_graph":
            run = ag.to_graph(fn)
        else:
            run = ag.function(fn, jit_compile=mode == "jit")
        assert_same_outcome(outcome(run, _copies(args), capsys), want)
        if mode == "function":  # a second call runs the graph only
            assert_same_outcome(outcome(run, _copies(args), capsys), want)


def test_the_graph_form_is_used():
    for name in {n for n, _ in CASES}:
        assert "try_graph(" in ag.to_code(globals()[name]), name
