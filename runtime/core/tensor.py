"""`Tensor`: a symbolic NumPy value inside a graph being traced.

A Tensor has a static `shape` (entries may be `None`) and a NumPy `dtype`. NumPy
calls on it are intercepted through `__array_ufunc__` and `__array_function__` and
recorded as graph nodes; operators and methods delegate to the same NumPy functions,
so `x + 1`, `np.add(x, 1)` and `x.sum()` all record the same node.

`NumpyOperators` holds the operator and method surface and is shared with `Variable`.
"""
from __future__ import annotations

import operator
import sys

import numpy as np

from runtime.core.protocol import TensorProtocol
from runtime.core.operator_calls import OPERATOR, operator_method as _operator
from runtime.core.errors import GraphModeError, where
from runtime.core.known_value import UNKNOWN, known_value
from runtime.core.tensor_checks import (  # noqa: F401 - _graph_mode_error: imported from here
    _LIBRARY_CODE, _check_tracing, _graph_mode_error, _index_trick_name, _library_caller,
)
from runtime.core.tensor_layout import FlatReader, strides as _strides
from runtime.core.tensor_text import (  # noqa: F401 - describing, _fmt_shape: imported from here
    _fmt_shape, _never_equal, _no_sequence_repeat, _text, _text_error, _value_needed,
    recorded_text,
    describing,
)


def _known(t, convert, what: str):
    value = known_value(t, Tensor)
    if value is UNKNOWN:
        raise _graph_mode_error(what, t)
    return convert(value)


def _stands_for_int(value):
    """`value` (int64) stands for the Python int a NumPy scalar's round() gives: weak
    (NEP 50), and returned from the function as that int."""
    value.weak = True
    return value


def _python_index(value, what: str) -> int:
    if isinstance(value, Tensor):
        raise _graph_mode_error(what, value)
    return operator.index(value)


_DEFAULTS = {"axis": None, "dtype": None, "keepdims": False, "ddof": 0}


def _given(**kwargs) -> dict:
    """Only the keyword arguments that differ from NumPy's defaults (short graph listings)."""
    return {k: v for k, v in kwargs.items() if v is not _DEFAULTS[k] and not (
        k in ("keepdims", "ddof") and v == _DEFAULTS[k])}


def _no_out(out) -> dict:
    if out is not None:
        raise TypeError("out= is not supported in graphs: tensors are immutable; use the "
                        "returned value.")
    return {}


class NumpyOperators:
    """Operators and array methods, all routed through NumPy's dispatch protocols."""

    __array_priority__ = 1000

    # arithmetic
    __add__ = _operator(np.add)
    __radd__ = _operator(np.add, reflected=True)
    __sub__ = _operator(np.subtract)
    __rsub__ = _operator(np.subtract, reflected=True)
    __mul__ = _operator(np.multiply)
    __rmul__ = _operator(np.multiply, reflected=True)
    __truediv__ = _operator(np.true_divide)
    __rtruediv__ = _operator(np.true_divide, reflected=True)
    __floordiv__ = _operator(np.floor_divide)
    __rfloordiv__ = _operator(np.floor_divide, reflected=True)
    __mod__ = _operator(np.remainder)
    __rmod__ = _operator(np.remainder, reflected=True)
    __divmod__ = _operator(np.divmod)
    __rdivmod__ = _operator(np.divmod, reflected=True)
    def __pow__(self, o):
        # like ndarray.__pow__: a Python 2 exponent is computed as np.square
        OPERATOR.active = True
        try:
            return np.square(self) if type(o) in (int, float) and o == 2 else np.power(self, o)
        finally:
            OPERATOR.active = False
    __rpow__ = _operator(np.power, reflected=True)
    __matmul__ = _operator(np.matmul)
    __rmatmul__ = _operator(np.matmul, reflected=True)
    __neg__ = _operator(np.negative)
    __pos__ = _operator(np.positive)
    __abs__ = _operator(np.absolute)
    __invert__ = _operator(np.invert)
    # bitwise / logical
    __and__ = _operator(np.bitwise_and)
    __rand__ = _operator(np.bitwise_and, reflected=True)
    __or__ = _operator(np.bitwise_or)
    __ror__ = _operator(np.bitwise_or, reflected=True)
    __xor__ = _operator(np.bitwise_xor)
    __rxor__ = _operator(np.bitwise_xor, reflected=True)
    __lshift__ = _operator(np.left_shift)
    __rlshift__ = _operator(np.left_shift, reflected=True)
    __rshift__ = _operator(np.right_shift)
    __rrshift__ = _operator(np.right_shift, reflected=True)
    # comparison
    __lt__ = _operator(np.less)
    __le__ = _operator(np.less_equal)
    __gt__ = _operator(np.greater)
    __ge__ = _operator(np.greater_equal)
    __eq__ = _operator(np.equal)
    __ne__ = _operator(np.not_equal)

    __hash__ = object.__hash__

    # methods
    def astype(self, dtype, copy=True): return np.astype(self, dtype)
    def reshape(self, *shape, order="C"):
        if len(shape) == 1 and (isinstance(shape[0], (tuple, list)) or
                                getattr(shape[0], "ndim", 0) == 1):  # x.reshape(t): t's items
            shape = shape[0]
        return np.reshape(self, shape if isinstance(shape, Tensor) else tuple(shape),
                          order=order)
    def transpose(self, *axes):
        if len(axes) == 1 and isinstance(axes[0], (tuple, list)):
            axes = axes[0]
        return np.transpose(self, axes or None)
    @property
    def T(self): return np.transpose(self)
    # methods: same positional order as ndarray's (an `out` must be None)
    def sum(self, axis=None, dtype=None, out=None, keepdims=False):
        return np.sum(self, **_given(axis=axis, dtype=dtype, keepdims=keepdims), **_no_out(out))
    def mean(self, axis=None, dtype=None, out=None, keepdims=False):
        return np.mean(self, **_given(axis=axis, dtype=dtype, keepdims=keepdims), **_no_out(out))
    def prod(self, axis=None, dtype=None, out=None, keepdims=False):
        return np.prod(self, **_given(axis=axis, dtype=dtype, keepdims=keepdims), **_no_out(out))
    def max(self, axis=None, out=None, keepdims=False):
        return np.max(self, **_given(axis=axis, keepdims=keepdims), **_no_out(out))
    def min(self, axis=None, out=None, keepdims=False):
        return np.min(self, **_given(axis=axis, keepdims=keepdims), **_no_out(out))
    def std(self, axis=None, dtype=None, out=None, ddof=0, keepdims=False):
        return np.std(self, **_given(axis=axis, dtype=dtype, ddof=ddof, keepdims=keepdims), **_no_out(out))
    def var(self, axis=None, dtype=None, out=None, ddof=0, keepdims=False):
        return np.var(self, **_given(axis=axis, dtype=dtype, ddof=ddof, keepdims=keepdims), **_no_out(out))
    def any(self, axis=None, out=None, keepdims=False):
        return np.any(self, **_given(axis=axis, keepdims=keepdims), **_no_out(out))
    def all(self, axis=None, out=None, keepdims=False):
        return np.all(self, **_given(axis=axis, keepdims=keepdims), **_no_out(out))
    def argmax(self, axis=None, out=None, keepdims=False):
        return np.argmax(self, **_given(axis=axis, keepdims=keepdims), **_no_out(out))
    def argmin(self, axis=None, out=None, keepdims=False):
        return np.argmin(self, **_given(axis=axis, keepdims=keepdims), **_no_out(out))
    def cumsum(self, axis=None, dtype=None, out=None):
        return np.cumsum(self, **_given(axis=axis, dtype=dtype), **_no_out(out))
    def cumprod(self, axis=None, dtype=None, out=None):
        return np.cumprod(self, **_given(axis=axis, dtype=dtype), **_no_out(out))
    def clip(self, min=None, max=None, out=None): return np.clip(self, min, max, **_no_out(out))
    def dot(self, b, out=None): return np.dot(self, b, **_no_out(out))
    def squeeze(self, axis=None): return np.squeeze(self, **_given(axis=axis))
    def flatten(self, order="C"):  # always a copy in NumPy, never a view (a ravel may be)
        return np.copy(np.ravel(self, order=order))
    def ravel(self, order="C"): return np.ravel(self, order=order)
    def __copy__(self):  # copy.copy / copy.deepcopy of an array: a new array, as NumPy's
        return self.copy()

    def __deepcopy__(self, memo):
        return self.copy()

    def copy(self, order="C"):
        if self.ndim:
            return np.copy(self)
        # 0-d: `x.copy()` keeps x's kind (a NumPy scalar stays one, np.copy would not)
        args = (TensorProtocol.resolve(self),)
        out = TensorProtocol.dispatch_function(np.ndarray.copy, args, {})
        return TensorProtocol.after_function(np.ndarray.copy, args, {}, out)
    def take(self, indices, axis=None, out=None, mode="raise"):
        return np.take(self, indices, **_given(axis=axis), **_no_out(out))
    def round(self, decimals=0, out=None): return np.round(self, decimals, **_no_out(out))
    def argsort(self, axis=-1): return np.argsort(self, axis=axis)
    def repeat(self, repeats, axis=None): return np.repeat(self, repeats, axis=axis)
    def swapaxes(self, axis1, axis2): return np.swapaxes(self, axis1, axis2)
    def conj(self): return np.conjugate(self)
    conjugate = conj
    @property
    def real(self): return np.real(self)
    @property
    def imag(self): return np.imag(self)
    def diagonal(self, offset=0, axis1=0, axis2=1): return np.diagonal(self, offset, axis1, axis2)
    def trace(self, offset=0, axis1=0, axis2=1): return np.trace(self, offset, axis1, axis2)
    @property
    def mT(self): return np.swapaxes(self, -1, -2)
    @property
    def itemsize(self): return self.dtype.itemsize
    @property
    def nbytes(self):
        size = self.size
        if size is None:  # an unknown dim: symbolic while tracing, like x.size
            size = TensorProtocol.symbolic_size(self)
        return None if size is None else size * self.dtype.itemsize
    strides = property(_strides)
    flat = property(FlatReader)


class StateHandle:
    """A Python object standing for graph state, read through `read_value()`: a
    `Variable` (runtime/state/variables.py). The layers below state know one by this
    base class: ops read its value where NumPy would read the array, the printer shows
    its name."""

    __slots__ = ()


class Tensor(NumpyOperators):
    """A symbolic value: output `index` of `node` in `graph` (node None for an input)."""

    __slots__ = ("graph", "node", "index", "static_shape", "dtype", "name", "weak")

    def __init__(self, graph, node, index, shape, dtype, name, weak: bool = False):
        self.graph = graph
        self.node = node
        self.index = index
        # what the graph library reads: a tuple of ints and None (unknown while tracing)
        self.static_shape = shape
        self.dtype = dtype
        self.name = name
        # stands for a Python number (NEP 50 "weak" type); only in dtype-discovery traces
        self.weak = weak

    @property
    def ndim(self) -> int:
        return len(self.static_shape)

    @property
    def shape(self) -> tuple:
        """As `ndarray.shape` in user code: an int where the dimension is known, a symbolic
        int64 scalar (computed when the graph runs, like `tf.shape`) where it is unknown.
        The graph library itself reads `static_shape` (None where unknown)."""
        static = self.static_shape
        if None not in static or _library_caller(sys._getframe(1).f_code):
            return static
        return TensorProtocol.symbolic_shape(self)

    @property
    def size(self):
        """Number of elements: an int when known, a symbolic int64 scalar in user code."""
        n = 1
        if 0 in self.static_shape:
            return 0
        for d in self.static_shape:
            if d is None:
                if _library_caller(sys._getframe(1).f_code):
                    return None
                return TensorProtocol.symbolic_size(self)
            n *= d
        return n

    def __repr__(self) -> str:
        # the symbolic description: for error messages, debuggers and `f"{x!r}"`
        return f"Tensor({self.name}, {self.dtype}{_fmt_shape(self.static_shape)})"

    # -- text and hashing: what NumPy would compute from the value ----------------
    def __str__(self):
        if getattr(_text, "describe", False):
            return repr(self)
        marker = recorded_text(self, None)
        if marker is not None:
            return marker
        raise _text_error(self, "str()")

    def __format__(self, spec):
        if getattr(_text, "describe", False):
            return format(repr(self), spec)
        marker = recorded_text(self, spec)
        if marker is not None:
            return marker
        raise _text_error(self, f"format spec {spec!r}" if spec else "an f-string / format()")

    def __hash__(self):
        # A hash would be one of the object, not of the value NumPy would hash, so `{a, b}`
        # and dict keys would silently differ. (The graph library keys its own bookkeeping
        # by identity: runtime/core/tensor_map.py.)
        raise GraphModeError(
            f"A symbolic Tensor ({self.dtype}{_fmt_shape(self.static_shape)}) is unhashable: set "
            f"members and dict keys need its value, which is only known when the graph "
            f"runs{where()}. Key by a Python value (an index, a name, or a Python int/str "
            "argument), keep the values in a list or an array and compare them with NumPy "
            "(np.unique, np.isin, ==), or pass the values in as Python numbers.")

    # -- operands NumPy scalars treat as Python does ------------------------------
    def __mul__(self, o):
        _no_sequence_repeat(self, o)
        return NumpyOperators.__mul__(self, o)

    def __rmul__(self, o):
        _no_sequence_repeat(self, o)
        return NumpyOperators.__rmul__(self, o)

    def __eq__(self, o):
        if isinstance(o, (str, bytes)) or o is None:
            return _never_equal(self, False, o)
        return NumpyOperators.__eq__(self, o)

    def __ne__(self, o):
        if isinstance(o, (str, bytes)) or o is None:
            return _never_equal(self, True, o)
        return NumpyOperators.__ne__(self, o)

    def __round__(self, ndigits=None):
        # as the NumPy scalar a 0-d value is: round(x) is a Python int (half to even),
        # round(x, n) keeps the dtype; arrays, bools and complex numbers have no __round__
        if self.ndim or self.dtype.kind not in "iuf":
            kind = "ndarray" if self.ndim else self.dtype.type.__name__
            raise TypeError(f"type numpy.{kind} doesn't define __round__ method{where()}; "
                            "use np.round(x, decimals) for an array.")
        if ndigits is not None:
            return np.round(self, _python_index(ndigits, "round() ndigits"))
        check = TensorProtocol.check
        if self.dtype.kind == "f":
            check(np.logical_not(np.isnan(self)), "ValueError", "cannot convert float NaN to integer")
            check(np.logical_not(np.isinf(self)), "OverflowError",
                  "cannot convert float infinity to integer")
            rounded = np.rint(self)
            if self.dtype.itemsize > 2:  # (a float16 always fits)
                check(np.abs(rounded) < 2.0 ** 63, "OverflowError",
                      "round(x) does not fit in int64, which a graph uses for a Python int")
            return _stands_for_int(np.astype(rounded, np.int64))
        if self.dtype == np.uint64:
            check(self < 2 ** 63, "OverflowError",
                  "round(x) does not fit in int64, which a graph uses for a Python int")
        return _stands_for_int(np.astype(self, np.int64))

    # -- ndarray methods that need a concrete value or change the array in place ---
    def item(self, *args):
        raise _value_needed(self, "x.item()", "a Python number",
                            "keep it a NumPy value (x[()], x[i], x.reshape(()))")

    def tolist(self):
        raise _value_needed(self, "x.tolist()", "a Python list",
                            "keep it an array (index it, or np.split / np.unstack it)")

    def fill(self, value):
        # in place, as ndarray.fill: aliases and views of the array see it (views.py)
        _check_tracing(self)
        TensorProtocol.write_item(self, Ellipsis, value, TensorProtocol.index_update)

    def sort(self, axis=-1, kind=None, order=None):
        if order is not None:
            raise TypeError(f"x.sort(order=...) needs a structured array{where()}; graphs "
                            "have none.")
        _check_tracing(self)
        current = TensorProtocol.resolve(self)
        TensorProtocol.write_array(self, np.sort(current, axis=axis, **({"kind": kind} if kind else {})),
                    "sort array")

    def view(self, dtype=None, type=None):
        if type is None and dtype is not None and np.dtype(dtype) != self.dtype and \
                np.dtype(dtype).itemsize == self.dtype.itemsize and \
                "O" not in (np.dtype(dtype).kind, self.dtype.kind):
            # the same item size: each element's bytes read as `dtype`, whatever the layout
            args = (TensorProtocol.resolve(self), dtype)
            out = TensorProtocol.dispatch_function(np.ndarray.view, args, {})
            return TensorProtocol.after_function(np.ndarray.view, args, {}, out)
        if type is not None or (dtype is not None and np.dtype(dtype) != self.dtype):
            raise TypeError(
                f"x.view(dtype) to a dtype of another item size on a symbolic Tensor is not "
                f"supported{where()}: how NumPy regroups the bytes depends on the memory "
                "layout, which a graph does not keep. Use x.astype(dtype) to convert the "
                "values, or view as a dtype of the same item size.")
        return self[...]  # basic indexing: a view that writes through (views.py)

    def __dlpack__(self, *args, **kwargs):
        # np.from_dlpack(x) asks x for its buffer, which a symbolic value does not have yet
        raise TypeError(
            f"np.from_dlpack (and other DLPack consumers) is not supported on a symbolic "
            f"Tensor{where()}: it has no memory to share while tracing. Inside a decorated "
            "function the value already is an array: use it (or np.asarray(x)) directly.")

    def __dlpack_device__(self):
        return self.__dlpack__()

    # -- NumPy protocols --------------------------------------------------------
    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        _check_tracing(self)
        dispatch_ufunc = TensorProtocol.dispatch_ufunc
        if kwargs.get("out") is not None and method == "__call__":
            written = TensorProtocol.ufunc_into(ufunc, inputs, kwargs, dispatch_ufunc)
            if written is not None:
                return written
        if method == "at":  # writes into inputs[0]: the array itself, not its current value
            return dispatch_ufunc(ufunc, method, inputs, kwargs)
        return dispatch_ufunc(ufunc, method, TensorProtocol.resolve_args(inputs), kwargs)

    def __array_function__(self, func, types, args, kwargs):
        _check_tracing(self)
        args = TensorProtocol.resolve_args(args)
        result = TensorProtocol.dispatch_function(func, args, kwargs)
        return TensorProtocol.after_function(func, args, kwargs, result)

    def __array__(self, dtype=None, copy=None):
        trick = _index_trick_name(sys._getframe(1))
        if trick is not None:
            raise GraphModeError(
                f"`{trick}[...]` with a symbolic item{where()} needs AutoGraph: NumPy builds "
                "it from concrete arrays. Enable conversion (ag.function(..., "
                "autograph=True), the default), or write np.column_stack / np.concatenate.")
        raise _graph_mode_error("a concrete NumPy array (np.asarray / np.array)", self)

    def __getitem__(self, index):
        return TensorProtocol.getitem(TensorProtocol.resolve(self),
                                      TensorProtocol.resolve_index(index))

    def __setitem__(self, index, value):
        _check_tracing(self)
        # NumPy writes in place: every alias and view of this array sees the new value
        # (runtime/state/views.py); the Tensor object itself stays an immutable graph value
        TensorProtocol.write_item(self, index, value, TensorProtocol.index_update)

    # -- Python conversions that need a concrete value ---------------------------
    # (a value computed from constants only is known while tracing: known_value.py)
    def __bool__(self):
        return _known(self, bool, "a Python bool (in `if`, `while`, `and`/`or` or `not`)")

    def __index__(self):
        return _known(self, operator.index, "a Python int or index")

    def __int__(self):
        return _known(self, int, "a Python int")

    def __float__(self):
        return _known(self, float, "a Python float")

    def __len__(self):
        if self.dtype == object:
            raise GraphModeError(
                f"{self!r} is a list built inside a symbolic loop: NumPy cannot look inside "
                f"it{where()}. Stack it with runtime.list_stack(xs) (AutoGraph rewrites "
                "np.stack(xs) on such lists to that) and index the stacked array.")
        if self.ndim == 0:
            raise TypeError("len() of a 0-d Tensor")
        if self.static_shape[0] is None:
            raise _graph_mode_error(
                "len() (its first dimension is unknown; x.shape[0] is its symbolic length)",
                self)
        return self.static_shape[0]

    def __iter__(self):
        n = len(self)
        return (self[i] for i in range(n))


# -- aliasing and views (runtime/state/views.py): in-place operators write through -------------


def _in_place_operator(name: str, op: str):
    binary = getattr(NumpyOperators, f"__{name}__")

    def method(self, other):
        # `b += v` is in place in NumPy: names aliasing b (and b's base) see the result
        resolve = TensorProtocol.resolve
        result = binary(resolve(self), resolve(other))
        if self.weak or self.ndim == 0:  # a Python / NumPy scalar: `+=` rebinds the name
            return result
        return TensorProtocol.in_place(self, result, op)
    method.__name__ = f"__i{name}__"
    return method


for _name, _op in (("add", "+="), ("sub", "-="), ("mul", "*="), ("truediv", "/="),
                   ("floordiv", "//="), ("mod", "%="), ("pow", "**="), ("matmul", "@="),
                   ("and", "&="), ("or", "|="), ("xor", "^="), ("lshift", "<<="),
                   ("rshift", ">>=")):
    setattr(Tensor, f"__i{_name}__", _in_place_operator(_name, _op))
del _name, _op


def _view_property(name: str) -> property:
    """`x.T[i] = v`, converted to `x.T = ag__.setitem(x.T, i, v)`: the write already went
    through the view into x, so assigning the view back is a no-op (anything else is an
    error, as for ndarray)."""
    prop = getattr(NumpyOperators, name)

    def set_view(self, value):
        if not TensorProtocol.holds_view_of(value, self):
            raise AttributeError(f"property '{name}' of 'Tensor' object has no setter")
    return property(prop.fget, set_view)


Tensor.T = _view_property("T")
Tensor.mT = _view_property("mT")
