"""The `ag__` operators on Python values behave exactly like the Python constructs."""
from __future__ import annotations

import numpy as np
import pytest

from autograph import operators as ag__


def test_and_or_short_circuit_and_return_operands():
    calls = []

    def rhs(v):
        calls.append(v)
        return v
    assert ag__.and_(0, lambda: rhs(1)) == 0 and calls == []
    assert ag__.and_(2, lambda: rhs(3)) == 3
    assert ag__.or_("", lambda: rhs("x")) == "x"
    assert ag__.or_([1], lambda: rhs(9)) == [1] and calls == [3, "x"]
    assert ag__.and_(1, lambda: 2, lambda: 0, lambda: rhs(5)) == 0 and calls == [3, "x"]
    assert ag__.not_([]) is True and ag__.not_(3) is False


def test_if_stmt_python_values():
    assert ag__.if_stmt(True, lambda x: x + 1, None, (1,), ("x",)) == 2
    assert ag__.if_stmt(False, lambda x: x + 1, None, (1,), ("x",)) == 1
    assert ag__.if_stmt(0, None, lambda a, b: (b, a), (1, 2), ("a", "b")) == (2, 1)
    assert ag__.if_stmt([], lambda: 1, lambda: None) is None
    with pytest.raises(ValueError):
        ag__.if_stmt(np.array([1, 2]), lambda: 1, lambda: 2)


def test_if_exp_is_lazy():
    assert ag__.if_exp(True, lambda: 1, lambda: 1 / 0) == 1


def test_while_and_for_python_values():
    assert ag__.while_stmt(lambda i: i < 5, lambda i: i + 2, (0,), ("i",)) == 6
    assert ag__.for_stmt(range(4), lambda x, s: s + x, (0,), ("s",)) == 6
    seen = []

    def body(x, stop):
        seen.append(x)
        return x == 2

    it = iter(range(10))
    assert ag__.for_stmt(it, body, (False,), ("stop",), extra_test=lambda stop: not stop)
    assert seen == [0, 1, 2] and next(it) == 3  # no item consumed after the break


def test_builtins_on_python_values_are_the_builtins():
    assert ag__.range_(3) == range(3) and ag__.len_([1, 2]) == 2
    assert ag__.int_("12") == 12 and ag__.float_("1.5") == 1.5 and ag__.abs_(-2) == 2
    assert ag__.min_(3, 1, 2) == 1 and ag__.max_([3, 1]) == 3 and ag__.sum_([1, 2], 3) == 6
    assert list(ag__.enumerate_("ab", 1)) == [(1, "a"), (2, "b")]
    assert list(ag__.zip_([1, 2], "ab")) == [(1, "a"), (2, "b")]
    with pytest.raises(TypeError):
        ag__.len_(3)


def test_assert_stmt():
    ag__.assert_stmt(True, lambda: 1 / 0)
    with pytest.raises(AssertionError, match="boom"):
        ag__.assert_stmt(False, lambda: "boom")


def test_undefined_and_ld():
    u = ag__.Undefined("y")
    with pytest.raises(UnboundLocalError, match="'y'"):
        ag__.ld(u)
    assert ag__.ld(3) == 3


def test_setitem_and_lists_keep_aliasing():
    xs = [1, 2, 3]
    assert ag__.setitem(xs, 0, 9) is xs and xs == [9, 2, 3]
    a = np.zeros(3)
    assert ag__.setitem(a, slice(1, None), 1.0) is a and a.tolist() == [0.0, 1.0, 1.0]
    assert ag__.list_append(xs, 4) is xs and xs[-1] == 4
    assert ag__.list_pop(xs) == (xs, 4)
