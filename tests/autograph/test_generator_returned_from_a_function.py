"""A Function that returns a generator, a generator expression, an asynchronous
generator or a coroutine is a clear `TypeError` naming the line that made it: the object
is made once while tracing, and the cached graph would hand that same object to every
call, used up after the first (was: the second call silently gave an empty generator;
one over a symbolic array recursed without end). A generator made and consumed inside
the function, or returned by `ag.to_graph`'s function (no cache), is Python's."""
from __future__ import annotations

import inspect

import numpy as np
import pytest

import autograph as ag


def genexp(n):
    return (2 * i for i in range(n))


def nested_generator(x):
    def gen():
        yield x * 2
        yield x * 3
    return x + 1, gen()


def coroutine(x):
    async def twice():
        return x * 2
    return [twice()]


def async_genexp(xs):
    async def keep(v):
        return v > 0
    return (v for v in xs if await keep(v))


def consumed(x):
    def gen():
        yield x * 2
        yield x * 3
    return sum(gen())


def _line(fn, text):
    lines, first = inspect.getsourcelines(fn)
    return first + next(i for i, line in enumerate(lines) if text in line)


@pytest.mark.parametrize("fn,args,kind,text", [
    (genexp, (3,), "a generator", "return (2 * i"),
    (nested_generator, (np.arange(2.0),), "a generator", "def gen"),
    (coroutine, (np.float64(1.5),), "a coroutine", "async def twice"),
    (async_genexp, ([1, -1, 2],), "an asynchronous generator", "return (v for v"),
])
@pytest.mark.parametrize("jit", [False, True])
def test_returning_one_is_a_clear_error(fn, args, kind, text, jit):
    with pytest.raises(TypeError) as info:
        ag.function(fn, jit_compile=jit)(*args)
    message = str(info.value)
    assert message.startswith(f"{fn.__name__} returns {kind} (at {__file__}:{_line(fn, text)})")
    assert "list(...)" in message


@pytest.mark.parametrize("fn,args", [(genexp, (3,)), (nested_generator, (2.0,))])
def test_to_graph_returns_python_generators(fn, args):
    converted = ag.to_graph(fn)
    for _ in range(2):  # (a new generator on each call, as Python makes)
        want, got = fn(*args), converted(*args)
        if isinstance(want, tuple):
            assert got[0] == want[0]
            want, got = want[1], got[1]
        assert list(got) == list(want) != []


@pytest.mark.parametrize("x", [np.arange(3.0), np.float64(2.0), 4])
def test_consumed_inside_matches_python(x):
    f = ag.function(consumed)
    for _ in range(2):  # (the second call runs the cached graph)
        want, got = consumed(x), f(x)
        assert np.array_equal(got, want) and type(got) is type(want)
