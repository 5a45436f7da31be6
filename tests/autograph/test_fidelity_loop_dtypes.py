"""Python-number loop variables get the dtype eager NumPy gives them, also when another
loop variable types them only in a later iteration (the dtype discovery reaches a
fixpoint): graph vs eager NumPy, value, dtype and shape."""
import numpy as np
import pytest

import autograph as ag
from tests.helpers import assert_same


def typed_late(a, b):
    r = 1
    s = 0
    for _ in a:
        r += s
        for j in b:
            s += j
    return r, s


def chain_of_three(a, b):
    x = 1
    y = 0
    z = 0
    for _ in a:
        x += y
        y += z
        for j in b:
            z += j
    return x, y, z


def while_outer(a, n):
    r = 1
    s = 0
    i = 0
    while i < n:
        r += s
        for j in a:
            s += j
        i += 1
    return r, s


def with_early_return(a, b):
    r = 1
    s = 0
    for _ in a:
        r += s
        if r > 100:
            return r
        for j in b:
            s += j
    return r


def bool_flag(a):
    seen = False
    s = 0
    for j in a:
        seen = seen | (s > 0)
        s = s + j
    return seen, s


def float_from_int(a, b):
    total = 0
    acc = 0.0
    for _ in a:
        total = total + acc
        for j in b:
            acc = acc + j
    return total, acc


def int64_widens_later(a, k):
    r = 0
    u = 0
    for j in a:
        u = u + k + r
        r = r + j
    return u, r


def int64_widens_later_with_return(a, k):
    r = 0
    u = 0
    for j in a:
        u = u + k + r
        if u > 100:
            return u
        r = r + j
    return u


def _arrays(dtype):
    return np.arange(3, dtype=dtype), np.array([1, 2], dtype=dtype)


@pytest.mark.parametrize("dtype", [np.int32, np.int8, np.uint8, np.uint16, np.float32,
                                   np.int64, np.float64])
@pytest.mark.parametrize("fn", [typed_late, chain_of_three, with_early_return, float_from_int])
def test_loop_variable_typed_in_a_later_iteration(fn, dtype):
    a, b = _arrays(dtype)
    assert_same(ag.function(fn)(a, b), fn(a, b))


@pytest.mark.parametrize("dtype", [np.int32, np.int16, np.float32])
def test_while_loop_around_a_typing_for_loop(dtype):
    a = np.array([1, 2], dtype)
    for n in (np.int64(0), np.int64(1), np.int64(3)):
        # the Python number the loop starts from comes back as the typed value the loop
        # makes, also after no iteration (docs/sharp_bits.md): value and dtype checked
        assert_same(ag.function(while_outer)(a, n), while_outer(a, n), )


def test_bool_loop_variable():
    a = np.array([1, 2, 0], np.int32)
    assert_same(ag.function(bool_flag)(a), bool_flag(a))


@pytest.mark.parametrize("fn", [int64_widens_later, int64_widens_later_with_return])
def test_strong_int64_widens_an_int8_variable(fn):
    # `r` is a NumPy int64 from the first iteration on, so NumPy makes `u` int64 in the
    # second (int8 + int64); a Python int `r` would have kept it int8
    a = np.array([1, 2, 3], np.int64)
    k = np.int8(5)
    assert_same(ag.function(fn)(a, k), fn(a, k))


def test_to_graph_agrees_with_python_on_plain_values():
    a, b = _arrays(np.int32)
    assert_same(ag.to_graph(typed_late)(list(a), list(b)), typed_late(list(a), list(b)))
