"""A graph `try` every path of which raises: the body's error is raised on its path
(no handler takes it, or the handler it is handed to raises), and every handler raises
too. Python never runs the code after such a `try`, so the graph must not trace it
either: traced, it read variables no path bound and every call raised
UnboundLocalError, where Python raises the `try`'s own error (fuzz seeds 226 and 1976 of
the union of the try sets). A `try` that stays Python, whose body ends in the user's
error while tracing, is refused as one that finishes is: an operation of its body may
raise first, when the graph runs, what its handler catches."""
from __future__ import annotations

import inspect

import numpy as np
import pytest

import autograph as ag
from tests.helpers import assert_same_outcome, converted_module, outcome

pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")

XS = np.array([1.0, 2.0, 3.0])


def handler_binds_then_raises(xs, i):
    try:
        v = xs[i]
        raise KeyError("after the read")
    except IndexError:
        m = 1.0
        raise ValueError("out of range")  # noqa: B904 - the program under test
    return m + v


def else_raises(xs, i):
    try:
        v = xs[i]
    except IndexError:
        m = 2.0
        raise ValueError("out of range")  # noqa: B904 - the program under test
    else:
        raise KeyError("from the else")
    return m + v


def inside_a_symbolic_branch_of_a_loop(xs, i, s):
    out = 0.0
    for j in range(3):
        if s > j:
            try:
                v = xs[i]
                raise KeyError("after the read")
            except IndexError:
                m = 3.0
                raise ValueError("out of range")  # noqa: B904 - the program under test
            out = out + m + v
        out = out + 1
    return out


def with_finally(xs, i):
    t = 0.0
    try:
        v = xs[i] * 2
        raise KeyError("after the read")
    except IndexError:
        m = 1.0
        raise ValueError("out of range")  # noqa: B904 - the program under test
    finally:
        t = t + 1
    return m + t + v


def handed_to_a_handler_that_raises(xs, i):
    # the body's `raise` is seen while tracing and handed to its handler in Python
    try:
        v = xs[i] + 1
        raise KeyError("after the read")
    except KeyError:
        raise ValueError("from the KeyError handler")  # noqa: B904 - the program under test
    except IndexError:
        m = 4.0
        raise LookupError("out of range")  # noqa: B904 - the program under test
    return m + v


def caught_by_an_outer_try(xs, i):
    try:
        try:
            v = xs[i]
            raise KeyError("after the read")
        except IndexError:
            m = 5.0
            raise ValueError("out of range")  # noqa: B904 - the program under test
        return m + v
    except ValueError:
        return -1.0


CASES = [
    (handler_binds_then_raises, [(XS, np.int64(1)), (XS, np.int64(5))]),
    (else_raises, [(XS, np.int64(1)), (XS, np.int64(5))]),
    (inside_a_symbolic_branch_of_a_loop, [(XS, np.int64(1), np.float64(0.0)),
                                          (XS, np.int64(5), np.float64(2.0)),
                                          (XS, np.int64(1), np.float64(2.0))]),
    (with_finally, [(XS, np.int64(1)), (XS, np.int64(5))]),
    (handed_to_a_handler_that_raises, [(XS, np.int64(1)), (XS, np.int64(5))]),
    (caught_by_an_outer_try, [(XS, np.int64(1)), (XS, np.int64(5))]),
]


@pytest.fixture(scope="module")
def converted(tmp_path_factory):
    return converted_module(__file__, tmp_path_factory.mktemp("converted"),
                            "converted_every_path_raises")[0]


@pytest.mark.parametrize("mode", ["function", "jit", "to_graph", "convert"])
@pytest.mark.parametrize("fn,inputs", CASES, ids=[f.__name__ for f, _ in CASES])
def test_same_as_python(fn, inputs, mode, converted):
    if mode == "convert":
        run = ag.function(getattr(converted, fn.__name__))
    elif mode == "to_graph":
        run = ag.to_graph(fn)
    else:
        run = ag.function(fn, jit_compile=mode == "jit")
    for args in inputs + inputs[:1]:  # (the last call runs an existing trace again)
        assert_same_outcome(outcome(run, args, exact_type=True),
                            outcome(fn, args, exact_type=True), args)


LOG: list = []


def python_try_ends_in_an_error(xs, i):
    try:
        try:  # refused
            v = xs[i]
            raise KeyError("after the read")
        except IndexError:
            raise ValueError("out of range")  # noqa: B904 - the program under test
        finally:
            LOG.append(1)  # (keeps this `try` Python)
        return v
    except ValueError:
        return -1.0


@pytest.mark.parametrize("i", [1, 5])
def test_a_python_try_ending_in_an_error_is_refused_at_its_line(i):
    # on the previous main: IndexError for i=5, where Python returns -1.0
    lines, first = inspect.getsourcelines(python_try_ends_in_an_error)
    line = first + next(k for k, t in enumerate(lines) if "# refused" in t)
    with pytest.raises(ag.ConversionError, match="except IndexError") as info:
        ag.function(python_try_ends_in_an_error)(XS, np.int64(i))
    assert info.value.lineno == line
