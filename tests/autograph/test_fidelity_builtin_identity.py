"""A builtin reached through a variable, an argument or a container means what the
builtin called by name means in converted code (`fn = range; fn(n)` with a symbolic `n`
is a graph loop like `range(n)`): graph vs eager NumPy, converted vs Python."""
import builtins

import numpy as np
import pytest

import autograph as ag
from tests.helpers import assert_same


def loop_over(n, fn):
    s = 0
    for i in fn(n):
        s += i
    return s


def local_alias(x):
    f = len
    r = range
    total = x[0] * 0
    for i in r(f(x)):
        total = total + x[i]
    return total


def through_a_dict(x, n):
    ops = {"abs": abs, "int": int, "float": float}
    return ops["abs"](x), ops["int"](n), ops["float"](n)


def reductions(x, which):
    return which(x)


def pairs(x, y, fn):
    s = x[0] * 0
    for a, b in fn(x, y):
        s = s + a * b
    return s


def counted(x, fn):
    s = x[0] * 0
    for i, v in fn(x):
        s = s + i * v
    return s


def printed(x, p):
    p("x is", x, [x[0]])
    return x


@pytest.mark.parametrize("n", [np.int32(3), np.int64(0), np.int64(5)])
def test_range_through_an_argument(n):
    assert_same(ag.function(loop_over)(n, range), loop_over(n, range))
    assert_same(ag.to_graph(loop_over)(int(n), range), loop_over(int(n), range))


def test_builtins_bound_to_locals():
    for x in (np.arange(4, dtype=np.float32), np.array([2, -1], np.int32)):
        assert_same(ag.function(local_alias)(x), local_alias(x))


def test_builtins_kept_in_a_dict():
    x, n = np.array([-1.5, 2.0], np.float32), np.float32(2.7)
    assert_same(ag.function(through_a_dict)(x, n), through_a_dict(x, n))


@pytest.mark.parametrize("which", [builtins.min, builtins.max, builtins.sum, builtins.len,
                                   builtins.abs])
def test_reductions_through_an_argument(which):
    x = np.array([3, -1, 2], np.float32)
    if which is builtins.abs:
        x = np.float32(-4)
    assert_same(ag.function(reductions)(x, which), reductions(x, which))


def test_zip_and_enumerate_through_an_argument():
    x, y = np.arange(3, dtype=np.float64), np.array([2.0, 1.0, 5.0])
    assert_same(ag.function(pairs)(x, y, zip), pairs(x, y, zip))
    assert_same(ag.function(counted)(x, enumerate), counted(x, enumerate))


def test_print_through_an_argument_prints_every_call(capsys):
    f = ag.function(printed)
    f(np.arange(2), print)
    capsys.readouterr()
    for x in (np.arange(2), np.arange(3, 5)):
        f(x, print)
    got = capsys.readouterr().out
    for x in (np.arange(2), np.arange(3, 5)):
        printed(x, print)
    assert got == capsys.readouterr().out


def test_python_values_keep_python_behaviour():
    with pytest.raises(ValueError) as py:
        through_a_dict(1.0, "x")
    with pytest.raises(ValueError) as conv:
        ag.to_graph(through_a_dict)(1.0, "x")
    assert str(conv.value) == str(py.value)


def _outcome(thunk):
    try:
        return ("value", thunk())
    except Exception as e:  # noqa: BLE001 - compared by type
        return ("error", type(e))


def keyword_calls():
    e, s = enumerate, sum
    return [_outcome(lambda: int(x=1)), _outcome(lambda: float(x="1.5")),
            _outcome(lambda: bool(x=1)), _outcome(lambda: abs(x=-1)),
            _outcome(lambda: len(obj=[1])), _outcome(lambda: isinstance(obj=1, classinfo=int)),
            _outcome(lambda: list(e(iterable="ab", start=1))),
            _outcome(lambda: s([1, 2], start=3)), _outcome(lambda: s(iterable=[1])),
            _outcome(lambda: int("11", base=2)), _outcome(lambda: complex(real=1, imag=2))]


def test_builtin_replacements_take_exactly_the_builtins_parameters():
    expected = keyword_calls()
    assert ("error", TypeError) in expected
    assert ag.to_graph(keyword_calls)() == expected
    assert ag.function(keyword_calls)() == expected
