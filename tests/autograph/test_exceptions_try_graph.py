"""A `try` whose body has graph operations is never silently different from NumPy.

The errors a graph's operations raise when it runs (a singular matrix in
`np.linalg.inv`, a symbolic index out of range, a graph-side `raise`) reach the
handlers (the `try` graph node, tests/autograph/test_try_graph_construct.py). What the
graph form cannot make exact is refused with a ConversionError at the `try`'s line,
which the `try`'s own handlers cannot swallow: a body that writes through attributes
or subscripts (it stays Python) while a handler could catch a graph error, and a graph
handler that reads the caught exception's contents. Handlers only for errors Python
raises while tracing (KeyError, AttributeError, ...), and `try` / `finally` without
handlers, run as in Python. Each allowed case compares `ag.function` (also with
`jit_compile=True`) and `ag.to_graph` with the original."""
from __future__ import annotations

import inspect

import numpy as np
import pytest

import autograph as ag
from tests.helpers import assert_same

TABLE = {"a": 2.0}


def safe_inv(x):
    try:
        y = np.linalg.inv(x)
    except np.linalg.LinAlgError:
        y = np.zeros_like(x)
    return y


def pick(x, i):
    try:
        return x[i]
    except IndexError:
        return -1.0


def catch_all(x):
    try:
        y = np.log(x) / np.sum(x)
    except Exception:
        y = x
    return y


def bare(x):
    try:
        y = np.sqrt(x)
    except:  # noqa: E722 - the construct under test
        y = x
    return y


class Invalid(KeyError):
    """A user error of a type Python-side handlers catch (KeyError)."""


def _checked(x):
    if np.sum(x) > 3:  # symbolic: a graph-side raise
        raise Invalid("too large")
    return x


def graph_raise_of_caught_type(x):
    try:
        y = _checked(x) * 2
    except KeyError:
        y = x
    return y


def nested_inner_refused(x, k):
    try:
        scale = TABLE[k]
        try:
            y = np.linalg.inv(x) * scale
        except ValueError:
            y = x
    except KeyError:
        y = x * 0
    return y


class Box:
    """An object the `try` body writes to."""

    def __init__(self):
        self.value = None


BOX = Box()


def writes_attribute(x):
    try:  # (carried as state of the `try`: test_try_graph_writes.py)
        BOX.value = 1.0
        y = np.linalg.inv(x)
    except np.linalg.LinAlgError:
        y = x
    return y


def reads_caught_message(x):
    try:  # refused
        y = np.linalg.inv(x)
    except np.linalg.LinAlgError as e:
        y = x * len(str(e))
    return y


def appends_to_a_list(x):
    res = []
    try:  # refused
        res.append(np.linalg.inv(x))
    except np.linalg.LinAlgError:
        res.append(x)
    return res


REFUSED = [
    (appends_to_a_list, (np.zeros((2, 2)),)),
    (reads_caught_message, (np.zeros((2, 2)),)),
]

CAUGHT = [
    (safe_inv, (np.zeros((2, 2)),)),
    (writes_attribute, (np.zeros((2, 2)),)),
    (pick, (np.arange(3.0), np.int64(5))),
    (catch_all, (np.arange(3.0),)),
    (bare, (np.arange(3.0),)),
    (graph_raise_of_caught_type, (np.arange(3.0),)),
    (nested_inner_refused, (np.eye(2), "a")),
]


def _try_line(fn) -> int:
    lines, first = inspect.getsourcelines(fn)
    return first + next(i for i, line in enumerate(lines) if "# refused" in line)


@pytest.mark.parametrize("fn,args", CAUGHT, ids=lambda v: getattr(v, "__name__", None))
def test_catchable_graph_errors_reach_the_handlers(fn, args):
    assert_same(ag.function(fn)(*args), fn(*args))
    assert_same(ag.to_graph(fn)(*args), fn(*args))


@pytest.mark.parametrize("fn,args", REFUSED, ids=lambda v: getattr(v, "__name__", None))
def test_what_cannot_be_exact_is_refused_at_the_try(fn, args):
    fn(*args)  # eager Python runs
    ag.to_graph(fn)(*args)  # and so does the converted code on NumPy values
    with pytest.raises(ag.ConversionError, match="graph operations in its body|cannot "
                                                 "run in a graph") as info:
        ag.function(fn)(*args)
    assert info.value.lineno == _try_line(fn)
    assert info.value.filename == __file__


def key_error_handler(x, k):
    try:
        s = TABLE[k] * x
    except KeyError as e:
        s = x * len(e.args)
    return s


def finally_only(x):
    try:
        y = x + 1
    finally:
        z = 2
    return y * z


def python_errors_while_tracing(x, cfg):
    try:
        y = np.exp(x)
        scale = cfg["scale"]
    except (KeyError, TypeError):
        scale = 0.5
    return y * scale


def graph_ops_in_handler_and_finally(x, k):
    try:
        scale = TABLE[k]
    except Exception:
        scale = np.sum(x)
    finally:
        x = x + 1
    return x * scale


def in_symbolic_branch(x, k):
    if np.sum(x) > 1:
        try:
            y = x * TABLE[k]
        except KeyError as e:
            y = x * len(e.args)
    else:
        y = -x
    return y


def in_symbolic_while(x, k):
    s = x * 0
    while np.sum(s) < 10:
        try:
            s = s + x * TABLE[k]
        except KeyError:
            s = s + x
        finally:
            s = s + 0.5
    return s


def finally_in_symbolic_for(x):
    s = x * 0
    for v in x:
        try:
            s = s + v
        finally:
            s = s * 2
    return s


def python_break_in_try_in_loop(x, k):
    s = x * 0
    for i in range(3):
        try:
            if k == "stop" and i == 1:
                break
            s = s + x
        finally:
            s = s + 1
    return s


ALLOWED = [
    (key_error_handler, (np.ones(2), "a")),
    (key_error_handler, (np.ones(2), "b")),
    (finally_only, (np.ones(2),)),
    (python_errors_while_tracing, (np.ones(2), {"scale": 3.0})),
    (python_errors_while_tracing, (np.ones(2), {})),
    (graph_ops_in_handler_and_finally, (np.arange(3.0), "a")),
    (graph_ops_in_handler_and_finally, (np.arange(3.0), "b")),
    (in_symbolic_branch, (np.arange(3.0), "a")),
    (in_symbolic_branch, (np.arange(3.0), "b")),
    (in_symbolic_branch, (np.zeros(3), "a")),
    (in_symbolic_while, (np.ones(2), "a")),
    (in_symbolic_while, (np.ones(2), "z")),
    (finally_in_symbolic_for, (np.arange(3.0),)),
    (python_break_in_try_in_loop, (np.ones(2), "stop")),
    (python_break_in_try_in_loop, (np.ones(2), "go")),
]


@pytest.mark.parametrize("fn,args", ALLOWED, ids=lambda v: getattr(v, "__name__", None))
@pytest.mark.parametrize("jit", [False, True])
def test_python_side_handlers_match_numpy(fn, args, jit):
    if jit:
        pytest.importorskip("numba")
    assert_same(ag.function(fn, jit_compile=jit)(*args), fn(*args))
    assert_same(ag.to_graph(fn)(*args), fn(*args))


def test_converted_code_on_numpy_values_catches_as_python():
    x = np.zeros((2, 2))
    assert_same(ag.to_graph(safe_inv)(x), safe_inv(x))
    assert ag.to_graph(pick)(np.arange(3.0), 7) == pick(np.arange(3.0), 7)


def test_to_code_shows_the_guard():
    code = ag.to_code(appends_to_a_list, recursive=False)
    assert "with ag__.try_stmt(lambda: (np.linalg.LinAlgError,)) as try_:" in code
    assert "with try_.body():" in code
    assert "ag__.try_graph(" in ag.to_code(safe_inv, recursive=False)


def appends_in_a_try(x):
    results = []
    for v in x:
        try:
            if v < 0:
                raise ValueError("negative")
            results.append(np.sqrt(v))
        except ValueError:
            results.append(0.0)
    return results


def test_a_condition_in_a_try_that_stays_python_names_why():
    """`results.append` keeps this `try` Python; the error at the symbolic `if` says so
    (it used to claim that a graph cannot catch exceptions, which it can)."""
    with pytest.raises(ag.ConversionError) as info:
        ag.function(appends_in_a_try)(np.array([4.0, -1.0]))
    text = str(info.value)
    assert "xs.append(v)" in text and "cannot catch" not in text
    assert f"test_exceptions_try_graph.py:{appends_in_a_try.__code__.co_firstlineno + 4}" \
        in text
