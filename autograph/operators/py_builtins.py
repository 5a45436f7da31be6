"""Builtins that work on symbolic values: `len_`, `range_`, `int_`, `float_`, `complex_`,
`bool_`, `index_` (operator.index), `abs_`, `min_`, `max_`, `sum_`, `enumerate_`, `zip_`,
`isinstance_` (`print_` is in printing.py).

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
from autograph.operators.lists import array_, is_graph_list, list_length, stack
from autograph.operators.zip_unrolled import numbers_only, zip_unrolled
from runtime import GraphModeError
from runtime.core.errors import where
from runtime.core.known_value import UNKNOWN, known_value
from runtime.core.tensor import Tensor
from runtime.ops.indexing import getitem
from runtime.ops.shape import symbolic_shape
from runtime.ops.ufuncs import python_number
from runtime.control_flow.cond import cond
from runtime.control_flow.path_kinds import may_be_python_number
from runtime.control_flow.lists import items_stand_for_numbers
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

    def python_length(self) -> int | None:
        """The number of items when it is known while tracing (None if not)."""
        return None

    def __iter__(self):
        n = self.python_length()
        if n is not None:  # a known length: Python walks it (comprehensions, unpacking)
            return (self.get(i) for i in range(n))
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

    def python_length(self):
        n = self.tensor.shape[0]
        return n if isinstance(n, int) else None

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
        item = self.start + i * self.step
        if isinstance(item, Tensor) and not item.weak:
            # range() yields Python ints (also from NumPy bounds): weak, exact (NEP 50)
            item = python_number(np.astype(item, np.int64))
        return item


class _Enumerate(SymbolicIterable):
    def __init__(self, inner: SymbolicIterable, start):
        self.inner, self.start = inner, start

    def length(self):
        return self.inner.length()

    def static_length(self):
        return self.inner.static_length()

    def python_length(self):
        return self.inner.python_length()

    def get(self, i):
        index = self.start + i
        if isinstance(index, Tensor) and not index.weak:
            # enumerate() counts in Python ints: weak (NEP 50), so `acc + i` keeps acc's dtype
            index = python_number(np.astype(index, np.int64))
        return (index, self.inner.get(i))


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

    def python_length(self):
        lengths = [x.python_length() for x in self.inners]
        return None if None in lengths else min(lengths)

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
        if not numbers_only(seq):
            raise TypeError(
                f"a {type(seq).__name__} of Python values that are not numbers is zipped with "
                f"a symbolic sequence of unknown length{where()}: the loop runs in the graph, "
                "where such items cannot be picked by the loop's index. Give the array a "
                "known length (an input_signature without None there), or loop over the "
                "Python sequence: `for i, name in enumerate(names): v = x[i]`.")
        # (a list holding symbolic values: the graph array NumPy would make of it)
        self.seq = array_(np.asarray, seq) if isinstance(seq, (list, tuple)) else np.asarray(seq)

    def length(self):
        return len(self.seq)

    def static_length(self):
        return len(self.seq)

    def python_length(self):
        return len(self.seq)

    def get(self, i):
        if is_symbolic(i):  # the graph reads the constant array at a symbolic index
            return getitem(self.seq, i)
        return self.seq[i]


def symbolic_iterable(x) -> SymbolicIterable:
    if isinstance(x, SymbolicIterable):
        return x
    if is_symbolic(x):
        return _TensorItems(x)
    return _PythonItems(x)


# -- the builtins ------------------------------------------------------------------------
def len_(x, /):
    if is_graph_list(x):  # a list appended to in a symbolic loop
        return list_length(x)
    if is_symbolic(x):
        if x.ndim == 0:
            raise TypeError(f"len() of a 0-d Tensor {x!r}")
        if x.shape[0] is not None:
            return x.shape[0]
        return _dynamic_dim(x, 0)
    if issubclass(type(x), SymbolicIterable):
        return x.length()

    return list_length(x)


def _dynamic_dim(x, axis: int):
    return symbolic_shape(x)[axis]  # as x.shape[axis]: weak, like the int len() gives


def range_(*args):
    if not _any_symbolic(args) or not 1 <= len(args) <= 3:
        return builtins.range(*args)
    args = tuple(_known_or_symbolic(a) for a in args)
    if not _any_symbolic(args):  # bounds computed from constants: Python's range
        return builtins.range(*args)
    args = tuple(_range_arg(a) for a in args)
    if len(args) == 1:
        return SymbolicRange(0, args[0], 1)
    if len(args) == 2:
        return SymbolicRange(args[0], args[1], 1)
    if is_symbolic(args[2]):
        check(args[2] != 0, "ValueError", "range() arg 3 must not be zero")
    return SymbolicRange(*args)


def _known_or_symbolic(a):
    """A symbolic `a` computed from constants alone as its NumPy value (known_value.py)."""
    if not is_symbolic(a):
        return a
    value = known_value(a, Tensor)
    return a if value is UNKNOWN else value


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


def enumerate_(iterable, start=0):
    if is_symbolic(iterable) or issubclass(type(iterable), SymbolicIterable) or \
            is_symbolic(start):
        return _Enumerate(symbolic_iterable(iterable), start)
    return builtins.enumerate(iterable, start)


def zip_(*xs, **kwargs):
    if not kwargs and any(is_symbolic(x) or issubclass(type(x), SymbolicIterable) for x in xs):
        unrolled = zip_unrolled(xs)
        if unrolled is not None:
            return unrolled
        return _Zip([symbolic_iterable(x) for x in xs])
    return builtins.zip(*xs, **kwargs)


# -- int(), float(), complex(), bool(), operator.index() of an array ------------------------
# NumPy 2's rules: int/float/complex take a 0-d array only (any other shape is a TypeError),
# bool takes a size-1 array of any shape, operator.index a 0-d integer array. The shape is
# known while tracing, so those errors are raised there, with the message NumPy gives; what
# depends on the value (NaN, infinity, an int beyond int64) is a check when the graph runs.
_SCALAR_ONLY = "only 0-dimensional arrays can be converted to Python scalars"
_INT64 = np.iinfo(np.int64)


def _scalar_only(x, name: str) -> None:
    if x.dtype == object:
        raise TypeError(f"{name}() argument must not be a list built in a symbolic loop"
                        f"{where()}: stack it first (np.stack(xs))")
    if x.ndim:
        raise TypeError(f"{_SCALAR_ONLY}{where()}")


# int_ / float_ / complex_ / bool_ take exactly what they are given: any other call
# than one symbolic argument is the builtin's own (its errors and their messages too)
def int_(*args, **kwargs):
    """`int(x)`: a 0-d array truncated toward zero. Python's int is exact while the graph
    holds int64: a value beyond int64 is an OverflowError, never a wrapped number."""
    if len(args) != 1 or kwargs or not is_symbolic(args[0]):
        return builtins.int(*args, **kwargs)
    x = args[0]
    _scalar_only(x, "int")
    kind = x.dtype.kind
    if kind == "c":
        raise TypeError("int() argument must be a string, a bytes-like object or a real "
                        f"number, not 'complex'{where()}")
    if kind == "f":
        check(~np.isnan(x), "ValueError", "cannot convert float NaN to integer")
        check(~np.isinf(x), "OverflowError", "cannot convert float infinity to integer")
        x = np.trunc(x)
        # 2**63 is the first float past int64 (float(int64 max) rounds up to it)
        check((x >= float(_INT64.min)) & (x < 2.0 ** 63), "OverflowError",
              "int() of a float beyond the int64 range: Python's int would hold it exactly, "
              "the graph holds int64. Keep it a float (or np.float64) here")
    elif kind == "u" and x.dtype.itemsize == 8:
        check(x <= np.uint64(_INT64.max), "OverflowError",
              "int() of a uint64 beyond the int64 range: Python's int would hold it exactly, "
              "the graph holds int64. Keep it a np.uint64 here")
    return _python_number(np.astype(x, np.int64))


def _python_number(value):
    """`value` standing for the Python number int() / float() / bool() give (weak, NEP 50:
    returned from the function as that Python number)."""
    if isinstance(value, Tensor) and not value.weak:
        return python_number(value)
    return value


def float_(*args, **kwargs):
    """`float(x)`: a 0-d real array as float64."""
    if len(args) != 1 or kwargs or not is_symbolic(args[0]):
        return builtins.float(*args, **kwargs)
    x = args[0]
    _scalar_only(x, "float")
    if x.dtype.kind == "c":
        raise TypeError(f"float() argument must be a string or a real number, not 'complex'"
                        f"{where()}")
    return _python_number(np.astype(x, np.float64))


def complex_(*args, **kwargs):
    """`complex(x)`: a 0-d array as complex128 (`complex(re, im)` of arrays likewise)."""
    if not any(is_symbolic(a) for a in args) and \
            not any(is_symbolic(a) for a in kwargs.values()):
        return builtins.complex(*args, **kwargs)
    return _symbolic_complex(*args, **kwargs)


def _symbolic_complex(real=0, imag=None):
    if imag is None and not is_symbolic(real):  # complex(1, None): Python's TypeError
        return builtins.complex(real, imag)
    parts = [p for p in (real, imag) if is_symbolic(p)]
    for p in parts:
        _scalar_only(p, "complex")
    if imag is None:
        return _python_number(np.astype(real, np.complex128))
    if any(p.dtype.kind == "c" for p in (real, imag) if hasattr(p, "dtype")) or \
            isinstance(real, complex) or isinstance(imag, complex):
        return _python_number(np.astype(real, np.complex128) +
                              np.astype(imag, np.complex128) * 1j)
    return _python_number(np.astype(real, np.float64) + np.astype(imag, np.float64) * 1j)


def bool_(*args, **kwargs):
    """`bool(x)`: the truth of a size-1 array of any shape (ValueError for other sizes, as
    NumPy says; checked when the graph runs if the size is only known then), standing for
    the Python bool `bool` gives (weak: returned from the function as a bool)."""
    if len(args) != 1 or kwargs or not is_symbolic(args[0]):
        return builtins.bool(*args, **kwargs)
    x = args[0]
    return _python_number(_truth_of(x))


def _truth_of(x):
    if x.dtype == object:
        return len_(x) != 0  # a list built in a symbolic loop: true when not empty
    empty = ("The truth value of an empty array is ambiguous. Use `array.size > 0` to "
             "check that an array is not empty.")
    many = ("The truth value of an array with more than one element is ambiguous. Use "
            "a.any() or a.all()")
    if x.ndim == 0:
        return np.not_equal(x, 0)
    dims = x.shape
    if None not in dims:
        size = int(np.prod(dims))
        if size != 1:
            raise ValueError(f"{many if size else empty}{where()}")
        return np.not_equal(np.reshape(x, ()), 0)
    size = np.size(x)
    check(size != 0, "ValueError", empty)
    check(size <= 1, "ValueError", many)
    return np.any(x)


def index_(x, /):
    """`operator.index(x)`: a 0-d integer array (TypeError for any other, as NumPy)."""
    if not is_symbolic(x):
        return operator.index(x)
    if x.ndim or x.dtype.kind not in "iu":
        raise TypeError(f"only integer scalar arrays can be converted to a scalar index"
                        f"{where()}")
    return int_(x)  # the Python int operator.index gives


def isinstance_(obj, classinfo, /) -> bool:
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


def abs_(x, /):
    return builtins.abs(x)  # (a value standing for a Python number: Python's abs)


def _extremum(py, reduce, pairwise, args, kwargs):
    if kwargs or not args:
        return py(*args, **kwargs)
    if len(args) == 1:
        (x,) = args
        if is_symbolic(x):
            return reduce(x, axis=0)
        if issubclass(type(x), (str, bytes, dict, set, frozenset)):
            return py(x)
        items = list(x)  # a generator or list of symbolic values (`max(v * 2 for v in x)`)
        if not _any_symbolic(items):
            return py(items)
        if not items:
            return py(items)  # Python's ValueError for an empty sequence
        args = tuple(items)
    if _any_symbolic(args):
        out = args[0]
        for a in args[1:]:
            out = pairwise(out, a)
        return out
    return py(*args)


def _keeps_unless(better):
    """Python's pairwise rule: the item so far stays unless the next one is `better`
    (so a NaN met later never replaces it, and one met first stays)."""
    def pick(out, item):
        # (the comparison's truth, as Python takes it: ValueError for several elements)
        take = bool_(better(item, out))
        numbers = may_be_python_number(out) + may_be_python_number(item)
        kinds = {(v if isinstance(v, Tensor) else np.asarray(v)).dtype.kind for v in (out, item)}
        if numbers and not (numbers == 2 and len(kinds) == 2):
            # the item itself, of its own kind (`max(i, 2)`: a Python int)
            return cond(take, lambda: item, lambda: out)
        chosen = np.where(take, item, out)  # (an int beside a float: a float, as NumPy)
        chosen = chosen[()] if np.ndim(chosen) == 0 else chosen
        if numbers == 2 and isinstance(chosen, Tensor) and all(
                type(v) in (bool, int, float) or isinstance(v, Tensor) and v.weak
                for v in (out, item)):
            chosen.weak = True  # (a Python float, also where Python picks the int)
        return chosen
    return pick




def min_(*args, **kwargs):
    return _extremum(builtins.min, np.min, _keeps_unless(np.less), args, kwargs)


def max_(*args, **kwargs):
    return _extremum(builtins.max, np.max, _keeps_unless(np.greater), args, kwargs)


def sum_(x, /, start=0):
    numbers = False
    if is_graph_list(x):  # a list appended to in a symbolic loop: sum of its items
        numbers = type(start) in (bool, int, float, complex) and items_stand_for_numbers(x)
        x = stack(x)
    if numbers and x.ndim == 1:  # Python numbers added up: a Python number
        return python_number(np.sum(x, axis=0) + start)
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
    "bool": "bool_", "complex": "complex_",
    "set": "set_",  # set_: autograph/operators/graph_sets.py
}
