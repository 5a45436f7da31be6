"""`ag.to_code` output pinned per construct (tests/autograph/golden/<name>.txt).

Regenerate after an intended change with:  AG_UPDATE_GOLDEN=1 pytest tests/autograph/test_golden.py
"""
from __future__ import annotations

import os

import numpy as np
import pytest

import autograph as ag

GOLDEN = os.path.join(os.path.dirname(__file__), "golden")


def helper(v):
    return v + 1


def if_else(x):
    if x > 0:
        y = x
    else:
        y = -x
    return y


def if_elif_else(x):
    if x > 0:
        s = 1
    elif x < 0:
        s = -1
    else:
        s = 0
    return s


def if_without_else(x):
    if x > 0:
        x = x * 2
    return x


def early_return(x):
    if x > 0:
        return x
    x = x - 1
    return x * 2


def conditional_expression(x):
    return x if x > 0 else -x


def boolean_operators(x, y):
    if x > 0 and (y > 0 or not x > 5):
        return 1
    return 0


def chained_comparison(x):
    return 0 < x < 1


def while_loop(n):
    i = 0
    s = 0
    while i < n:
        s += i
        i += 1
    return s


def while_break(n):
    i = 0
    while i < n:
        if i * i > 30:
            break
        i += 1
    return i


def while_else(n):
    i = 0
    while i < n:
        if i == 3:
            break
        i += 1
    else:
        i = -1
    return i


def for_range(n):
    s = 0
    for i in range(n):
        s += i
    return s


def for_continue(xs):
    s = 0
    for x in xs:
        if x < 0:
            continue
        s += x
    return s


def for_enumerate_tuple_target(xs):
    best = 0
    for i, x in enumerate(xs):
        if x > best:
            best = i
    return best


def nested_loops_early_return(m, t):
    for i in range(len(m)):
        for j in range(len(m[i])):
            if m[i, j] > t:
                return i * 100 + j
    return -1


def assert_statement(x):
    assert x > 0, "x must be positive"
    return x


def list_append(n):
    out = []
    for i in range(n):
        out.append(i)
    return np.stack(out)


def subscript_assignment(x, n):
    for i in range(n):
        x[i] = x[i] * 2
    return x


def calls(x):
    y = helper(x)
    return np.sum(y) + len(x)


def possibly_undefined(x, flag):
    if flag:
        y = x
    return y


COUNT = 0


def global_statement(x):
    global COUNT
    if x > 0:
        COUNT += 1
    return COUNT


class Counter:
    def __init__(self):
        self.count = 0

    def step(self, x):
        if x > 0:
            self.count += 1
        return self.count


class Account:
    def __init__(self, balance):
        self.balance = balance

    def withdraw(self, amount):
        if amount > self.balance:
            return False
        self.balance -= amount
        return True


def global_in_returning_branch(x):
    global COUNT
    if x > 0:
        COUNT += 1
        return 1
    return 0


def attribute_created_in_branch(box, x):
    if x > 0:
        box.v = x
    return box


def loop_options(n):
    i = 0
    while i < n:
        ag.set_loop_options(maximum_iterations=10)
        i += 1
    return i


def nested_function(x):
    def inner(v):
        if v > 0:
            return v
        return 0
    return inner(x)


def lambda_with_ternary(x):
    f = lambda v: v if v > 0 else 0  # noqa: E731
    return f(x)


def match_statement(x, mode):
    match mode:
        case "relu":
            if x < 0:
                return 0.0
        case [k, *_] if k > 1:
            x = x * k
    return x


CASES = [
    if_else, if_elif_else, if_without_else, early_return, conditional_expression,
    boolean_operators, chained_comparison, while_loop, while_break, while_else, for_range,
    for_continue, for_enumerate_tuple_target, nested_loops_early_return, assert_statement,
    list_append, subscript_assignment, calls, possibly_undefined, global_statement,
    Counter.step, Account.withdraw, global_in_returning_branch, attribute_created_in_branch,
    loop_options, nested_function, lambda_with_ternary, match_statement,
]


@pytest.mark.parametrize("fn", CASES, ids=lambda f: f.__name__)
def test_to_code_golden(fn):
    code = ag.to_code(fn, recursive=False) + "\n"
    path = os.path.join(GOLDEN, f"{fn.__name__}.txt")
    if os.environ.get("AG_UPDATE_GOLDEN") or not os.path.exists(path):
        with open(path, "w") as f:
            f.write(code)
    with open(path) as f:
        assert code == f.read()
    compile(code, path, "exec")  # the printed code is valid Python


def make_caller(fn):
    def calls_closure(x):
        return fn(x) + helper(x) + np.abs(x) + len(x)
    return calls_closure


def test_to_code_golden_recursive_calls():
    """Which calls go through `ag__.converted` (closure and global names) and which stay
    direct (attributes of modules, builtins), with the callees listed after."""
    code = ag.to_code(make_caller(np.sin)) + "\n"
    path = os.path.join(GOLDEN, "calls_recursive.txt")
    if os.environ.get("AG_UPDATE_GOLDEN") or not os.path.exists(path):
        with open(path, "w") as f:
            f.write(code)
    with open(path) as f:
        assert code == f.read()


def test_to_code_recursive_includes_callees():
    code = ag.to_code(calls)
    assert "def helper(v):" in code and "def calls(x):" in code
    assert "def helper" not in ag.to_code(calls, recursive=False)
