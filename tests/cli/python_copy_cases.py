"""Programs whose functions `autograph convert` gives a Python-values copy beside their
converted form (`impl/module_paths.py`), for tests/cli/test_convert_python_copy.py: the
shapes that decide how the converted form is reached (parameter kinds, `super()`,
declarations, nested functions, decorators, recursion) and the lazy forms the copy
writes as the user did (`assert`, `print` of text, comparison chains, `locals()`,
`eval`). Each function runs on Python values and, where it says so, on NumPy values.
"""
from __future__ import annotations

import functools

import numpy as np

COUNTER = 0
CALLS: list = []


def kinds(a, /, b, *args, c, d=3, **kw):
    """Every parameter kind; `kw` may hold a key named like the positional-only `a`."""
    if a > b:
        total = a - b + d
    else:
        total = b - a - d
    for v in args:
        total = total + v
    return total * c, sorted(kw)


def only_varargs(*args, **kw):
    if args:
        return len(args) + len(kw)
    return -1


def defaults_applied(x, scale=2, *, shift=1):
    y = x * scale
    if y > 3:
        y = y + shift
    return y


class Base:
    def step(self, x):
        return x + 1


class Child(Base):
    def step(self, x):
        if x > 0:
            y = super().step(x) * 2
        else:
            y = super().step(x) - 2
        return y

    def uses_class(self, x):
        if x > 0:
            return __class__.__name__, x
        return "none", -x


def nested_class(x):
    class Inner(Base):
        def step(self, y):
            if y > 1:
                return super().step(y) + 10
            return y
    return Inner().step(x)


def closure(xs, k):
    def scaled(x):
        if x > k:
            return x * k
        return x - k
    out = []
    for x in xs:
        out.append(scaled(x))
    return out


def counter_in_closure(n):
    count = 0

    def bump(by):
        nonlocal count
        if by > 0:
            count += by
        return count
    for i in range(n):
        bump(i)
    return count


def declares_global(n):
    global COUNTER
    for i in range(n):
        if i % 2:
            COUNTER += i
    return COUNTER


def declares_in_a_block(n):
    for i in range(n):
        if i == 2:
            global DECLARED
            DECLARED = i * 10
    return n


def fib(n):
    if n < 2:
        return n
    return fib(n - 1) + fib(n - 2)


def logged(fn):
    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        CALLS.append(fn.__name__)
        return fn(*args, **kwargs)
    return wrapper


@logged
def decorated(x, y=1):
    if x > y:
        return x - y
    return y - x


def introspects(x):
    y = x + 1
    if x > 0:
        z = eval("x + y")
    else:
        z = -1
    return sorted(locals()), z


def handler_names(fail, drop):
    """`except E as e` unbinds `e` at the handler's end (also when the handler deleted
    it): `locals()` after it does not list it, and reading it raises."""
    try:
        if fail:
            raise ValueError(fail)
    except ValueError as e:
        if drop:
            del e
    names = sorted(locals())
    try:
        return names, e  # noqa: F821 (unbound here, as the test wants)
    except UnboundLocalError as err:
        return names, type(err).__name__


def asserts(x):
    if x > 0:
        assert x < 100, f"too big: {x}"
    return x


def prints(x, flag):
    for i in range(2):
        if flag:
            print(f"x={x} i={i}", sep="|")
    return x


def chains(xs, lo, hi):
    n = 0
    for i in range(len(xs)):
        if lo < xs[i] <= hi:
            n += 1
    return n, lo < xs[0] < xs[-1] <= hi


def numeric(x, /, y, *rest, scale=2.0, **extra):
    """Symbolic `if` on NumPy values: the converted form runs in a trace."""
    if np.sum(x) > y:
        out = x * scale
    else:
        out = x - scale
    for r in rest:
        out = out + r
    return out + len(extra)


class Model(Base):
    def __init__(self, w):
        self.w = w

    def step(self, x):
        if np.sum(x) > 0:
            out = x * self.w
        else:
            out = x - self.w
        return out + super().step(0)


def gen(n):
    for i in range(n):
        if i % 2:
            yield i


def runs_off_its_end(xs, out):
    for x in xs:
        if x > 1:
            out.append(x)
