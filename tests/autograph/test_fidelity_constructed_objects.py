"""Objects a traced function makes of a user's class: the `__init__` is converted (as
the class's methods are), so the arrays it makes are arrays of the trace and in-place
writes into them (`self.m += v`, `s.m[0] = v`) land as NumPy lands them; and the object
is made as `type.__call__` makes it (`__new__`, abstract classes, an `__init__` that
returns a value, metaclasses, dataclasses, exceptions). Eager against ag.function (also
jit_compile=True) and ag.to_graph."""
from __future__ import annotations

import abc
import dataclasses
import warnings

import numpy as np
import pytest

import autograph as ag
from tests.helpers import assert_same, outcome


class Accumulator:
    def __init__(self, n, scale=1.0):
        self.total = np.zeros(n)
        self.scale = scale
        self.steps = 0

    def add(self, v):
        self.total += v * self.scale
        self.steps += 1


class Child(Accumulator):
    def __init__(self, n):
        super().__init__(n, scale=2.0)
        self.extra = np.ones(n)


def accumulate_twice(x):
    acc = Accumulator(x.shape[0])
    acc.add(x)
    acc.add(x * 3)
    return acc.total, acc.steps


def through_a_subclass(x):
    c = Child(x.shape[0])
    c.add(x)
    c.extra[1] = x[0]
    c.extra *= 2
    return c.total, c.extra


def alias_taken_before_the_write(x):
    acc = Accumulator(x.shape[0])
    before = acc.total
    acc.add(x)
    return before, acc.total  # the same array: both show the write


def in_a_symbolic_branch(x):
    acc = Accumulator(x.shape[0])
    if np.sum(x) > 0:
        acc.total = acc.total + x
    else:
        acc.total[0] = -1.0
    return acc.total


class WithNew:
    made = 0

    def __new__(cls, n):
        WithNew.made += 1
        return super().__new__(cls)

    def __init__(self, n):
        self.v = np.full(n, 2.0)


def with_new(x):
    WithNew.made = 0
    w = WithNew(x.shape[0])
    w.v += x
    return w.v, WithNew.made


class Other:
    def __init__(self, *args):
        self.v = np.zeros(1)


class Swapped:
    def __new__(cls, n):
        return Other()  # not an instance: Python does not call Swapped.__init__

    def __init__(self, n):
        raise AssertionError("not called")


def new_returns_another_class(x):
    o = Swapped(3)
    o.v += x[0]
    return o.v


class ReturnsValue:
    def __init__(self):
        self.v = 1
        return 5  # noqa: PLE0101 - Python's TypeError is what is compared


def init_returns_a_value(x):
    return ReturnsValue().v + x


class Abstract(abc.ABC):
    def __init__(self):
        self.v = np.zeros(2)

    @abc.abstractmethod
    def step(self):
        ...


def abstract_class(x):
    return Abstract().v + x


class Meta(type):
    def __call__(cls, *args):
        obj = super().__call__(*args)
        obj.tagged = True
        return obj


class WithMeta(metaclass=Meta):
    def __init__(self, n):
        self.v = np.zeros(n)


def with_a_metaclass(x):
    w = WithMeta(x.shape[0])
    w.v = w.v + x
    return w.v, w.tagged


@dataclasses.dataclass
class Point:
    x: float
    y: float = 0.0


def a_dataclass(x):
    p = Point(x[0], y=x[1])
    return p.x + p.y, repr(Point(1.0)), dataclasses.astuple(p)[1]


class Problem(ValueError):
    def __init__(self, what):
        super().__init__(f"problem: {what}")
        self.what = what


def an_exception_class(x):
    try:
        raise Problem("big")
    except Problem as e:
        return x * 2, e.what, str(e)


class NoInit:
    pass


def a_class_without_init(x):
    n = NoInit()
    n.v = x + 1
    return n.v


def a_class_without_init_given_arguments(x):
    return NoInit(1)


class Slotted:
    __slots__ = ("v",)

    def __init__(self, n):
        self.v = np.zeros(n)


def slotted(x):
    s = Slotted(x.shape[0])
    s.v += x
    return s.v


CASES = [accumulate_twice, through_a_subclass, alias_taken_before_the_write,
         in_a_symbolic_branch, with_new, new_returns_another_class, init_returns_a_value,
         abstract_class, with_a_metaclass, a_dataclass, an_exception_class,
         a_class_without_init, a_class_without_init_given_arguments, slotted]


def _same_outcome(got, want):
    assert got[0] == want[0], (got, want)
    if want[0] == "raised":
        assert got[1:] == want[1:]
    else:
        assert_same(got[1], want[1])


@pytest.mark.parametrize("fn", CASES, ids=[f.__name__ for f in CASES])
@pytest.mark.parametrize("mode", ["function", "jit", "to_graph"])
def test_objects_made_in_a_trace_behave_as_in_python(fn, mode):
    make = {"function": ag.function, "to_graph": ag.to_graph,
            "jit": lambda f: ag.function(f, jit_compile=True)}[mode]
    for x in (np.array([1.0, 2.0, 3.0]), np.array([-4.0, 0.5, 1.0])):
        want = outcome(fn, (x.copy(),))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ag.JitFallbackWarning)
            got = outcome(make(fn), (x.copy(),))
        _same_outcome(got, want)


def test_the_in_place_writes_are_the_reason():
    """The first cases wrote into an array `__init__` made with NumPy; before `__init__`
    was converted, that array was not one of the trace and the write was refused."""
    x = np.array([1.0, 2.0, 3.0])
    total, steps = ag.function(accumulate_twice)(x)
    np.testing.assert_array_equal(total, 4 * x)
    assert steps == 2
