"""`with` statements in compiled functions: a context manager's __enter__ / __exit__ run
once while tracing, so one around graph operations is allowed only when that means the
same as eager Python (a project manager, contextlib.nullcontext, contextlib.suppress of
an error the operations cannot raise); any other is a ConversionError at the `with`
line. Managers around Python-only code keep Python's meaning. (`with np.errstate(...)`
is a run-time region: test_errstate_region.py.) Each case compares
eager, `ag.function` and `ag.function(jit_compile=True)`."""
from __future__ import annotations

import contextlib
import inspect
import warnings

import numpy as np
import pytest

import autograph as ag
from autograph.errors import ConversionError
from tests.helpers import assert_same

LOG: list = []


@contextlib.contextmanager
def logged(tag):
    LOG.append(("enter", tag))
    yield tag
    LOG.append(("exit", tag))


class Timer:
    def __enter__(self):
        LOG.append("start")
        return self

    def __exit__(self, *exc):
        LOG.append("stop")
        return False


# (numba comes with the dev extra: the jit cases always run)
COMPILERS = [("function", lambda fn: ag.function(fn)),
             ("jit", lambda fn: ag.function(fn, jit_compile=True))]
IDS = [name for name, _ in COMPILERS]
COMPILE = [c for _, c in COMPILERS]


def _line_of(fn, text: str) -> int:
    lines, first = inspect.getsourcelines(fn)
    return first + next(i for i, line in enumerate(lines) if text in line)


# -- allowed: same meaning as eagerly -----------------------------------------------------

def nullcontext_around_ops(x):
    with contextlib.nullcontext(2.0) as k:
        y = x * k
    return y + 1


def tape_around_ops(x):
    with ag.GradientTape() as tape:
        x = tape.watch(x)
        z = np.sum(x * x)
    return z, tape.gradient(z, x)


def suppress_python_error(x, d):
    y = x * 0
    with contextlib.suppress(KeyError):
        y = x + 1
        y = y * d["missing"]
    return y


def suppress_unreachable_error(x, n):
    s = x * 0
    for i in range(n):
        with contextlib.suppress(ZeroDivisionError):
            s = s + x * (6 // (2 - i))
    return s


def managers_around_python_code(x, n):
    LOG.append("call")
    with logged("a"), Timer():
        k = 0
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            for i in range(n):
                k += i
    with np.errstate(all="raise"), contextlib.suppress(ZeroDivisionError):
        k = k / 0
    return x * k


@pytest.mark.parametrize("fn,args", [
    (nullcontext_around_ops, (np.arange(3.0),)),
    (tape_around_ops, (np.arange(3.0),)),
    (suppress_python_error, (np.arange(3.0), {})),
    (suppress_unreachable_error, (np.arange(3.0), 5)),
    (managers_around_python_code, (np.arange(3.0), 4)),
], ids=["nullcontext", "tape", "suppress-python", "suppress-unreachable", "python-only"])
@pytest.mark.parametrize("compile_", COMPILE, ids=IDS)
def test_allowed_managers_match_eager(fn, args, compile_):
    LOG.clear()
    expected = fn(*args)
    eager_log = list(LOG)
    LOG.clear()
    f = compile_(fn)
    assert_same(f(*args), expected)
    assert_same(f(*args), expected)  # the cached graph too
    if eager_log:  # traced once: the managers ran once, as in one eager call
        assert LOG[:len(eager_log)] == eager_log


# -- refused: would act at trace time only ------------------------------------------------

def suppress_run_time_error(x, i):
    y = x[0]
    with contextlib.suppress(IndexError):
        y = x[i]
    return y


def suppress_graph_raise(x):
    y = x * 1
    with contextlib.suppress(ValueError):
        if np.sum(x) > 0:
            raise ValueError("positive")
        y = x + 1
    return y


def catch_warnings_around_ops(x):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        y = np.log(x)
    return y


def user_manager_around_ops(x):
    with Timer():
        y = x * 2
    return y


def generator_manager_around_ops(x):
    with logged("t"):
        y = x * 2
    return y


REFUSED = [
    (suppress_run_time_error, (np.arange(3.0), 5), "with contextlib", "except E: pass"),
    (suppress_graph_raise, (np.arange(3.0),), "with contextlib", "except E: pass"),
    (catch_warnings_around_ops, (np.arange(3.0),), "with warnings", "outside the function"),
    (user_manager_around_ops, (np.arange(3.0),), "with Timer", "outside the function"),
    (generator_manager_around_ops, (np.arange(3.0),), 'with logged("t")',
     "outside the function"),
]


@pytest.mark.parametrize("fn,args,line_text,fix", REFUSED,
                         ids=[r[0].__name__ for r in REFUSED])
@pytest.mark.parametrize("compile_", COMPILE, ids=IDS)
def test_manager_acting_at_run_time_is_refused_at_its_line(fn, args, line_text, fix,
                                                           compile_):
    with pytest.raises(ConversionError) as info:
        compile_(fn)(*args)
    assert info.value.lineno == _line_of(fn, line_text)
    assert "run once while the function is traced" in info.value.message
    assert fix in info.value.message


def test_errstate_around_the_call_matches_eager():
    """The fix the refusal names: the caller's errstate is honoured when the graph runs."""
    def divide(x):
        return x / 0

    x = np.arange(3.0)
    for compile_ in COMPILE:
        f = compile_(divide)
        with np.errstate(all="raise"):
            with pytest.raises(FloatingPointError) as eager:
                divide(x)
            with pytest.raises(FloatingPointError) as graph:
                f(x)
        assert str(graph.value) == str(eager.value)
        with np.errstate(divide="ignore", invalid="ignore"), warnings.catch_warnings():
            warnings.simplefilter("error")
            assert_same(f(x), divide(x))


def test_suppress_written_as_try_matches_eager():
    """The other fix: `try: ... except E: pass` is a graph construct."""
    def pick(x, i):
        y = x[0]
        try:
            y = x[i]
        except IndexError:
            pass
        return y

    x = np.arange(3.0)
    for compile_ in COMPILE:
        f = compile_(pick)
        for i in (1, 5):
            assert_same(f(x, np.int64(i)), pick(x, np.int64(i)))
