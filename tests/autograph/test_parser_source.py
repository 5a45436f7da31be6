"""A function's source as the parser reads it (`parser._source_lines`, through
linecache) equals `inspect.getsourcelines` of its code object, for every kind of
definition: decorated, nested, lambdas, async, methods, and the project's own."""
from __future__ import annotations

import functools
import inspect

import numpy as np
import pytest

import autograph as ag
from autograph.pyct import parser
from runtime.frontend import call_path


def decorator(fn):
    @functools.wraps(fn)
    def wrapper(*args):
        return fn(*args)
    return wrapper


@decorator
def decorated(x):
    return x + 1


def outer():
    def nested(x):
        return x * 2
    return nested


square = lambda x: x * x  # noqa: E731


async def coroutine(x):
    return x


class Model:
    @staticmethod
    def helper(x):
        return x

    def forward(self, x,
                bias=0.0):
        return x + bias


FUNCTIONS = [decorated, decorated.__wrapped__, outer(), square, coroutine, Model.helper,
             Model.forward, np.linalg.norm.__wrapped__, call_path.make_entry,
             parser.get_source, parser.parse_function, inspect.getblock]


@pytest.mark.parametrize("fn", FUNCTIONS, ids=lambda f: f.__qualname__)
def test_source_lines_equal_inspects(fn):
    code = fn.__code__
    assert parser._source_lines(code, fn.__globals__) == inspect.getsourcelines(code)


def test_converted_function_from_its_source():
    f = ag.function(Model().forward)
    x = np.arange(3.0)
    np.testing.assert_array_equal(f(x, bias=2.0), Model().forward(x, bias=2.0))
