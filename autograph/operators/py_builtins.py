"""Builtins that work on symbolic values: `len_`, `range_`, `int_`, `float_`, `abs_`,
`min_`, `max_`, `sum_`, `enumerate_`, `zip_`, `isinstance_` (`print_` is in printing.py).

The call converter rewrites `range(n)` to `ag__.range_(n)` (and so on) when the name
is the builtin. On Python values each one *is* the builtin (same result, same errors);
on Tensors it gives the NumPy equivalent, or a `SymbolicIterable` that `for_stmt` turns
into a graph loop over an index.
"""
from __future__ import annotations

import builtins
import operator

import numpy as np

from autograph.operators.conditionals import is_symbolic
from autograph.operators.lists import is_graph_list, list_length, stack
from runtime import GraphModeError
from runtime.core.errors import where
from runtime.ops.shape import symbolic_shape
from runtime.state.checks import check


def _any_symbolic(values) -> bool:
    return any(is_symbolic(v) for v in values)


# -- iterables ----------------------------------------------------------------------------
class SymbolicIterable:
    """Something a symbolic `for` loop walks by index: `length()` items, `get(i)`."""

    def length(self):
        raise NotImplementedError(f"{type(self).__name__} must define length()")

    def get(self, i):
        raise NotImplementedError(f"{type(self).__name__} must define get(i)")

    def static_length(self) -> int | None:
        """The length when it is known while tracing (0: a loop over it never runs)."""
        return None

    def __iter__(self):
        what = "range()" if isinstance(self, SymbolicRange) else "this iterable"
        raise GraphModeError(
            f"The length of {what} is symbolic: it is only known when the graph runs, so "
            f"Python cannot iterate over it{where()} (list(), a comprehension, unpacking and "
            "functions from other modules iterate in Python). Write a `for` statement in "
            "a converted function (AutoGraph makes it a graph loop; append to a list there "
            "to collect items), or use NumPy (np.arange(n) for list(range(n))).")


class _TensorItems(SymbolicIterable):
    def __init__(self, tensor):
        if tensor.ndim == 0:
            raise TypeError("iteration over a 0-d Tensor")
        self.tensor = tensor

    def length(self):
        return len_(self.tensor)

    def static_length(self):
        return self.tensor.shape[0]

    def get(self, i):
        return self.tensor[i]


class SymbolicRange(SymbolicIterable):
    def __init__(self, start, stop, step):
        if not is_symbolic(step) and step == 0:
            raise ValueError("range() arg 3 must not be zero")
        self.start, self.stop, self.step = start, stop, step

    def length(self):
        return np.maximum(-((self.start - self.stop) // self.step), 0)

    def get(self, i):
        return self.start + i * self.step


class _Enumerate(SymbolicIterable):
    def __init__(self, inner: SymbolicIterable, start):
        self.inner, self.start = inner, start

    def length(self):
        return self.inner.length()

    def static_length(self):
        return self.inner.static_length()

    def get(self, i):
        return (self.start + i, self.inner.get(i))


class _Zip(SymbolicIterable):
    def __init__(self, inners: list):
        self.inners = inners

    def length(self):
        n = self.inners[0].length()
        for other in self.inners[1:]:
            n = np.minimum(n, other.length())
        return n

    def static_length(self):
        lengths = [x.static_length() for x in self.inners]
        return 0 if 0 in lengths else None

    def get(self, i):
        return tuple(x.get(i) for x in self.inners)


class _PythonItems(SymbolicIterable):
    """A Python sequence zipped with a symbolic one (indexed with a symbolic index)."""

    def __init__(self, seq):
        if hasattr(type(seq), "__next__"):  # a generator, another one-pass iterator
            raise TypeError(
                f"a {type(seq).__name__} is zipped with a symbolic sequence{where()}: the "
                "symbolic loop reads every sequence by index, and a one-pass iterator has "
                "none. Make it a list first (`list(...)`, or `list(itertools.islice(gen, "
                "n))` for an endless generator), or loop over Python values.")
        self.seq = np.asarray(seq)

    def length(self):
        return len(self.seq)

    def static_length(self):
        return len(self.seq)

    def get(self, i):
        return self.seq[i]


def symbolic_iterable(x) -> SymbolicIterable:
    if isinstance(x, SymbolicIterable):
        return x
    if is_symbolic(x):
        return _TensorItems(x)
    return _PythonItems(x)


# -- the builtins ------------------------------------------------------------------------
def len_(x):
    if is_graph_list(x):  # a list appended to in a symbolic loop
        return list_length(x)
    if is_symbolic(x):
        if x.ndim == 0:
            raise TypeError(f"len() of a 0-d Tensor {x!r}")
        if x.shape[0] is not None:
            return x.shape[0]
        return _dynamic_dim(x, 0)
    if isinstance(x, SymbolicIterable):
        return x.length()

    return list_length(x)


def _dynamic_dim(x, axis: int):
    return symbolic_shape(x)[axis]  # as x.shape[axis]: weak, like the int len() gives


def range_(*args):
    if not _any_symbolic(args) or not 1 <= len(args) <= 3:
        return builtins.range(*args)
    args = tuple(_range_arg(a) for a in args)
    if len(args) == 1:
        return SymbolicRange(0, args[0], 1)
    if len(args) == 2:
        return SymbolicRange(args[0], args[1], 1)
    if is_symbolic(args[2]):
        check(args[2] != 0, "ValueError", "range() arg 3 must not be zero")
    return SymbolicRange(*args)


def _range_arg(a):
    """What `range` accepts (`operator.index`): an integer scalar, as Python says."""
    if not is_symbolic(a):
        return operator.index(a)
    if a.ndim == 0 and a.dtype.kind in "iu":
        return a
    if a.ndim:
        msg = "only integer scalar arrays can be converted to a scalar index"
    else:
        msg = f"'numpy.{a.dtype.type.__name__}' object cannot be interpreted as an integer"

    raise TypeError(f"{msg}{where()}")


def enumerate_(x, start=0):
    if is_symbolic(x) or isinstance(x, SymbolicIterable) or is_symbolic(start):
        return _Enumerate(symbolic_iterable(x), start)
    return builtins.enumerate(x, start)


def zip_(*xs, **kwargs):
    if not kwargs and any(is_symbolic(x) or isinstance(x, SymbolicIterable) for x in xs):
        return _Zip([symbolic_iterable(x) for x in xs])
    return builtins.zip(*xs, **kwargs)


def int_(x=0, *args):
    if is_symbolic(x) and not args:
        if np.issubdtype(x.dtype, np.floating):
            x = np.trunc(x)
        return np.astype(x, np.int64)
    return builtins.int(x, *args)


def float_(x=0.0):
    if is_symbolic(x):
        return np.astype(x, np.float64)
    return builtins.float(x)


def isinstance_(obj, classinfo) -> bool:
    """`isinstance` answered for the value NumPy would have: a symbolic array is an
    `np.ndarray`, a 0-d one the NumPy scalar of its dtype (`np.float64` is a `float`,
    `np.int64` is not an `int`), a graph list a `list`."""
    if not is_symbolic(obj) or builtins.isinstance(obj, classinfo):
        return builtins.isinstance(obj, classinfo)
    if obj.dtype == object:
        eager = list
    elif obj.ndim:
        eager = np.ndarray
    elif obj.weak:  # stands for a Python number
        eager = {"b": bool, "i": int, "u": int, "f": float}.get(obj.dtype.kind, complex)
    else:
        eager = obj.dtype.type
    return builtins.issubclass(eager, classinfo)


def abs_(x):
    if is_symbolic(x):
        return np.abs(x)
    return builtins.abs(x)


def _extremum(py, reduce, pairwise, args, kwargs):
    if kwargs or not args:
        return py(*args, **kwargs)
    if len(args) == 1:
        (x,) = args
        if is_symbolic(x):
            return reduce(x, axis=0)
        return py(x)
    if _any_symbolic(args):
        out = args[0]
        for a in args[1:]:
            out = pairwise(out, a)
        return out
    return py(*args)


def min_(*args, **kwargs):
    return _extremum(builtins.min, np.min, np.minimum, args, kwargs)


def max_(*args, **kwargs):
    return _extremum(builtins.max, np.max, np.maximum, args, kwargs)


def sum_(x, start=0):
    if is_graph_list(x):  # a list appended to in a symbolic loop: sum of its items
        x = stack(x)
    if is_symbolic(x):
        # Python adds start + x[0] + x[1] + ...: the items' dtype meets start's (a Python
        # number is weak, NEP 50), where np.sum alone would widen int32 to int64
        dtype = np.result_type(x.dtype, start.dtype if hasattr(start, "dtype") else start)
        return np.sum(x, axis=0, dtype=dtype) + start
    return builtins.sum(x, start)


BUILTIN_OVERRIDES = {
    "len": "len_", "range": "range_", "int": "int_", "float": "float_", "abs": "abs_",
    "min": "min_", "max": "max_", "sum": "sum_", "enumerate": "enumerate_", "zip": "zip_",
    "isinstance": "isinstance_", "print": "print_",  # print_: autograph/operators/printing.py
    "next": "next_",  # next_: autograph/operators/generators.py
}
