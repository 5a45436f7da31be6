"""Generators, `yield from`, `async def`, `await` and async generators nested in a
converted function are left as Python (as top-level ones are); the function around
them is still converted, and `to_code` marks each one with a comment. A generator
advanced by a symbolic loop is a clear error at the user's line. Each case compares
the converted function (`ag.to_graph`, `ag.function`) with the original on the same
inputs."""
from __future__ import annotations

import asyncio
import inspect

import numpy as np
import pytest

import autograph as ag
from tests.helpers import assert_same


def nested_generator(x, n):
    def gen():
        for i in range(n):
            yield x * i
    total = x * 0
    for v in gen():
        total = total + v
    return total


def nested_yield_from(x):
    def inner():
        yield x
        yield x * 2

    def outer():
        yield from inner()
        yield x * 3
    return sum(outer())


def nested_coroutine(x, n):
    async def add(v):
        await asyncio.sleep(0)
        return v + n
    if n > 1:
        x = asyncio.run(add(x))
    return x


def nested_async_generator(x):
    async def agen():
        for i in range(3):
            yield x * i

    async def collect():
        return [v async for v in agen()]
    return sum(asyncio.run(collect()))


def generator_in_branch(x, flag):
    if flag:
        def gen():
            yield x
            yield -x
        x = sum(gen())
    return x


def generator_state_after_python_loop(x):
    def counter():
        k = 0
        while True:
            k += 1
            yield k
    g = counter()
    for _ in range(3):
        x = x + next(g)
    return x, next(g)


CASES = [
    (nested_generator, 4), (nested_yield_from,), (nested_coroutine, 2),
    (nested_coroutine, 1), (nested_async_generator,), (generator_in_branch, True),
    (generator_in_branch, False), (generator_state_after_python_loop,),
]


@pytest.mark.parametrize("case", CASES, ids=lambda c: f"{c[0].__name__}{c[1:]}")
def test_converted_matches_python(case):
    fn, *extra = case
    x = 2.5
    assert ag.to_graph(fn)(x, *extra) == fn(x, *extra)


@pytest.mark.parametrize("case", CASES, ids=lambda c: f"{c[0].__name__}{c[1:]}")
@pytest.mark.parametrize("jit", [False, True])
def test_graph_matches_numpy(case, jit):
    if jit:
        pytest.importorskip("numba")
    fn, *extra = case
    x = np.arange(3.0, dtype=np.float32)
    assert_same(ag.function(fn, jit_compile=jit)(x, *extra), fn(x, *extra))


def test_to_code_marks_each_definition_left_alone():
    code = ag.to_code(nested_async_generator, recursive=False)
    lines = [line.strip() for line in code.splitlines()]
    note_agen = "# `agen` is an async generator: left as Python (AutoGraph does not convert it)"
    assert lines[lines.index("async def agen():") - 1] == note_agen
    assert lines[lines.index("async def collect():") - 1].startswith(
        "# `collect` is an async def (a coroutine): left as Python")
    code = ag.to_code(nested_yield_from, recursive=False)
    assert code.count("is a generator: left as Python") == 2
    # the left-alone bodies are the user's own code, untouched
    assert "yield from inner()" in code and "ag__" not in code.split("def outer")[1].split(
        "return")[0]


def test_converted_function_with_generator_first_keeps_no_marker_docstring():
    def first(x):
        def gen():
            yield x
        return list(gen())
    converted = ag.to_graph(first)
    assert converted.__doc__ is None and converted(3) == [3]
    assert inspect.getdoc(converted) is None


def advance_in_symbolic_loop(x):
    def gen():
        k = 0
        while True:
            k += 1
            yield k
    g = gen()
    s = x * 0
    while np.sum(s) < 20:
        s = s + next(g)  # the line the error names
    return s


def zip_symbolic_with_generator(x):
    def gen():
        for i in range(10):
            yield i
    s = x * 0
    for a, b in zip(x, gen()):
        s = s + a * b  # never reached while tracing
    return s


def _line_of(fn, text: str) -> int:
    lines, first = inspect.getsourcelines(fn)
    return first + next(i for i, line in enumerate(lines) if text in line)


def test_generator_advanced_by_symbolic_loop_is_a_clear_error():
    x = np.arange(3.0)
    advance_in_symbolic_loop(x)  # runs eagerly
    with pytest.raises(ag.ConversionError, match="advances a Python generator") as info:
        ag.function(advance_in_symbolic_loop)(x)
    assert info.value.lineno == _line_of(advance_in_symbolic_loop, "the line the error")
    assert info.value.filename == __file__


def test_generator_zipped_with_symbolic_sequence_is_a_clear_error():
    x = np.arange(3.0)
    zip_symbolic_with_generator(x)  # runs eagerly
    line = _line_of(zip_symbolic_with_generator, "for a, b in zip")
    with pytest.raises(TypeError, match=f"generator is zipped.*:{line}"):
        ag.function(zip_symbolic_with_generator)(x)
