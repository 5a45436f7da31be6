"""An `await` inside a generator expression (`(f(i) for i in xs if await g(i))`, legal in
a regular function since Python 3.7: the expression is an asynchronous generator) runs
as Python, as every generator does, and the function around it is converted. Was: the
whole function was refused ("`await` cannot be converted"), so `autograph convert` left
it as Python (impl/conversion._check_supported). Found by CPython's test_asyncgen
(test_async_gen_expression_02) through `autograph convert`. Each case compares the
items the asynchronous generator gives, from the original, `ag.to_graph` and the output
of `autograph convert`, and inside an `ag.function` that consumes it (one that returns
it is a clear error: test_generator_returned_from_a_function.py)."""
from __future__ import annotations

import asyncio
import inspect

import pytest

import autograph as ag
from tests.helpers import converted_module


async def keep(n):
    await asyncio.sleep(0)
    return n % 3 != 0


def doubled_kept(xs, scale):
    total = scale * 2
    return (v * total for v in xs if await keep(v))


def kept_after_a_branch(xs, scale):
    if scale > 1:
        scale = scale - 1
    return (v + scale async for v in _agen(xs) if await keep(v))


async def _agen(xs):
    for v in xs:
        yield v


def _collect(gen) -> list:
    async def run():
        return [v async for v in gen]
    return asyncio.run(run())


@pytest.fixture(scope="module")
def converted(tmp_path_factory):
    return converted_module(__file__, tmp_path_factory.mktemp("converted"),
                            "converted_async_genexp")[0]


ARGS = [([1, 2, 3, 4], 1), ([], 5), ([3, 6, 7], 2.5)]


@pytest.mark.parametrize("args", ARGS, ids=str)
@pytest.mark.parametrize("fn", [doubled_kept, kept_after_a_branch], ids=lambda f: f.__name__)
@pytest.mark.parametrize("how", ["to_graph", "convert"])
def test_items_match_python(fn, args, how, converted):
    run = ag.to_graph(fn) if how == "to_graph" else getattr(converted, fn.__name__)
    want = _collect(fn(*args))
    got = _collect(run(*args))
    assert got == want and [type(v) for v in got] == [type(v) for v in want]


def test_the_function_is_converted(converted):
    for fn in (doubled_kept, kept_after_a_branch):
        assert "ag__." in ag.to_code(fn)
        assert "ag__." in inspect.getsource(getattr(converted, fn.__name__))


def consumed_inside(xs):
    async def run():
        return [v async for v in doubled_kept(xs, 1)]
    return asyncio.run(run())


@pytest.mark.parametrize("xs", [[1, 2, 3, 4], []], ids=str)
@pytest.mark.parametrize("how", ["function", "jit"])
def test_consumed_inside_a_graph_function(xs, how):
    want = consumed_inside(xs)
    got = ag.function(consumed_inside, jit_compile=how == "jit")(xs)
    assert got == want and [type(v) for v in got] == [type(v) for v in want]
