"""Programs showing the defect classes that running CPython's test modules and a large
body of algorithm code through `autograph convert` revealed (issue 21, external
measurements). Each runs as written, through `ag.to_graph` and from a module written by
`autograph convert`; test_fidelity_external21.py compares the outcomes.
"""
import math
import sys

import numpy as np


# -- a converted callee is called by its caller's frame (no wrapper frame between) --------
def _raises(n):
    raise ValueError(n)


def _callers_name():
    return sys._getframe(1).f_code.co_name


def traceback_has_the_frames_python_has(x):
    try:
        _raises(x)
    except ValueError as e:
        tb = e.__traceback__
    names = []
    while tb is not None:
        names.append(tb.tb_frame.f_code.co_name)
        tb = tb.tb_next
    return names[-1], len(names), _callers_name()


# -- builtins called on an object never read its attributes through `__getattribute__` -----
class Watched:
    """Records every attribute read that goes through `__getattribute__` (Python's
    builtins look the special methods up on the type, never through it)."""

    def __init__(self):
        object.__setattr__(self, "reads", [])

    def __getattribute__(self, name):
        object.__getattribute__(self, "reads").append(name)
        return object.__getattribute__(self, name)

    def __len__(self):
        return 2

    def __int__(self):
        return 7

    def __float__(self):
        return 7.5

    def __index__(self):
        return 2

    def __complex__(self):
        return 1j

    def __abs__(self):
        return 3

    def __bool__(self):
        return True

    def __iter__(self):
        return iter([4, 5])

    def __floor__(self):
        return 1

    def __round__(self, n=None):
        return 0


def builtins_read_no_attributes(x):
    w = Watched()
    got = [len(w), int(w), float(w), complex(w), abs(w), bool(w), math.floor(w),
           round(w), sum(w, x), max(w), min(w), list(enumerate(w)), list(zip(w, w)),
           list(range(w)), isinstance(w, int)]
    return got, object.__getattribute__(w, "reads")


# -- int / float / complex / bool take exactly the builtin's arguments ----------------------
def number_constructors_with_other_arguments(case):
    calls = [lambda: int(x=1.2), lambda: int(x="100", base=2), lambda: int(base=10),
             lambda: int("100", base=2), lambda: int(), lambda: float(x=1),
             lambda: float(), lambda: complex(1, None), lambda: complex(imag=2),
             lambda: complex(real=1, imag=None), lambda: bool(x=1), lambda: bool(),
             lambda: int(1, 2, 3)]
    return calls[case]()


# -- super() in a def nested in a method names that def's own first parameter --------------
class Base:
    def who(self):
        return "Base"


class Derived(Base):
    def who(self, x):
        def without_parameters():
            return super().who()

        def with_its_own(other):
            return super().who() + str(other is self)

        out = [with_its_own(self)]
        try:
            out.append(without_parameters())
        except RuntimeError as e:
            out.append(str(e))
        if x > 0:
            out.append(super().who())
        return out


def super_in_nested_defs(x):
    return Derived().who(x)


# -- an annotated assignment in a `try` inside a loop with `break` / `continue` -------------
def _read_numbers(words, note):
    k = 0
    while True:
        word: str = words[k]
        k += 1
        if word in {"exit", "quit"}:
            break
        try:
            number: int = int(word)
        except ValueError:
            note("not a number")
            continue
        note(number * 2)


def annotated_names_in_a_try(words):
    out = []
    _read_numbers(words, out.append)
    return out


# -- the iterable of a `for` lives as long as in Python (the loop's own reference only) -----
class Freed:
    """Notes in `log` when it is freed; iterating it gives 1, 2 (or raises if `broken`)."""

    def __init__(self, log, broken=False):
        self.log, self.broken = log, broken

    def __iter__(self):
        if self.broken:
            raise TypeError("not iterable today")
        return iter([1, 2])

    def __del__(self):
        self.log.append("freed")


def _closing(log):
    try:
        yield 1
        yield 2
    finally:
        log.append("closed")


def for_iterable_lifetime(stop_at):
    log = []
    for x in Freed(log):  # (Python holds only the list iterator: freed at once)
        log.append(x)
    log.append("after first")
    for x in _closing(log):  # (the generator is closed when the loop drops it)
        log.append(x)
        if x == stop_at:
            break
    log.append("after second")
    try:
        for x in Freed(log, broken=True):
            log.append(x)
    except TypeError as e:
        log.append(str(e))
    log.append("after third")
    return log


# -- zero-argument super() reads what Python's reads: a deleted first argument, a -----------
# -- comprehension's iterator ----------------------------------------------------------------
class Zero(Base):
    def who(self, x):
        def deleted(y):
            del y
            super()

        out = []
        try:
            deleted(self)
        except RuntimeError as e:
            out.append(str(e))
        try:
            out.append([super().who() for _ in range(1)])
        except TypeError as e:
            out.append(str(e))
        if x > 0:
            out.append(super().who())  # (moved into a branch function: still this one's)
        del self
        try:
            out.append(super().who())
        except RuntimeError as e:
            out.append(str(e))
        return out


def zero_argument_super(x):
    return Zero().who(x)



def length_of(s):
    return len(s)


# -- the written module's inline calls of names and subscript stores -------------------------
class Recorded:
    """Records each item store (an object that is neither a list nor a dict)."""

    def __init__(self):
        self.stores = []

    def __setitem__(self, key, value):
        self.stores.append((key, value))


def _twice(v):
    return 2 * v


def calls_and_item_stores(n):
    xs, d, r = [0] * 3, {}, Recorded()
    for i in range(n):
        xs[i % 3] = _twice(i)
        xs[i % 3] += 1
        d[str(i)] = len(xs) + i
        r[i] = abs(-i)
    squares = [v * v for v in map(_twice, range(n))]
    try:
        xs[7] = 1
    except IndexError as e:
        squares.append(str(e))
    return xs, d, r.stores, squares


def array_item_stores(x):
    """Traced by ag.function from the written module: stores into an array and calls."""
    y = x.copy()
    for i in range(3):
        y[i] = _twice(y[i]) + len(y)
    return y


class StoreLog(dict):
    """A dict that records each item store made into it."""

    def __setitem__(self, key, value):
        self.setdefault("log", []).append(key)
        super().__setitem__(key, value)


def nested_item_stores(n):
    """`a[i][j] = v` writes the inner container in place and stores nothing into the
    outer one (a list in a tuple, a dict subclass that counts its stores), as Python."""
    d = StoreLog()
    dict.__setitem__(d, "a", [0] * 3)
    for i in range(n):
        d["a"][i % 3] += i
    t = ([0, 0], "x")
    t[0][1] = n
    grid = np.zeros((2, 3))
    grid[1][2] = n
    arrays = {"w": np.zeros(3)}
    arrays["w"][n % 3] += 2.0
    return dict(d), t, grid.tolist(), arrays["w"].tolist()


CASES = [
    (annotated_names_in_a_try, (["1", "x", "3", "exit"],)),
    (annotated_names_in_a_try, (["quit"],)),
    (super_in_nested_defs, (1,)), (super_in_nested_defs, (-1,)),
    (zero_argument_super, (1,)), (zero_argument_super, (-1,)),
    (for_iterable_lifetime, (1,)), (for_iterable_lifetime, (5,)),
    (calls_and_item_stores, (0,)), (calls_and_item_stores, (5,)),
    (nested_item_stores, (0,)), (nested_item_stores, (4,)),
    *[(number_constructors_with_other_arguments, (k,)) for k in range(13)],
    (builtins_read_no_attributes, (1,)),
    (traceback_has_the_frames_python_has, (3,)),
]
