"""`Tensor`: a symbolic NumPy value inside a graph being traced.

A Tensor has a static `shape` (entries may be `None`) and a NumPy `dtype`. NumPy
calls on it are intercepted through `__array_ufunc__` and `__array_function__` and
recorded as graph nodes; operators and methods delegate to the same NumPy functions,
so `x + 1`, `np.add(x, 1)` and `x.sum()` all record the same node.

`NumpyOperators` holds the operator and method surface and is shared with `Variable`.
"""
from __future__ import annotations

import numpy as np

from runtime.errors import GraphModeError, where


def _check_tracing(t) -> None:
    from runtime import tracing

    if not tracing.in_graph_mode():
        raise ValueError(
            f"{t!r} is a symbolic value of a trace that has finished: it cannot be computed "
            "with outside that trace (it leaked out through a Python side effect such as a "
            "global list, or was read from a graph's nodes). Return values from the function "
            "instead of storing symbolic Tensors outside it.")


def _graph_mode_error(what: str, t) -> GraphModeError:
    return GraphModeError(
        f"Using a symbolic Tensor ({t.dtype}{_fmt_shape(t.shape)}) as {what} is not allowed: its "
        f"value is only known when the graph runs{where()}. Let AutoGraph convert the Python "
        "control flow (ag.function(..., autograph=True), the default), or write it with "
        "runtime.cond / runtime.while_loop. If AutoGraph is already on, this code was left "
        "as Python: functions from installed packages, ag.do_not_convert functions and "
        "methods called by a list/dict/ndarray method name (`obj.add(x)`, `obj.sum()`) are "
        "not converted (ag.to_code(fn) shows what was); decorate such a method with "
        "@ag.function to have it converted and traced inline."
    )


def _fmt_shape(shape) -> str:
    return "[" + ",".join("?" if d is None else str(d) for d in shape) + "]"


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
    def __add__(self, o): return np.add(self, o)
    def __radd__(self, o): return np.add(o, self)
    def __sub__(self, o): return np.subtract(self, o)
    def __rsub__(self, o): return np.subtract(o, self)
    def __mul__(self, o): return np.multiply(self, o)
    def __rmul__(self, o): return np.multiply(o, self)
    def __truediv__(self, o): return np.true_divide(self, o)
    def __rtruediv__(self, o): return np.true_divide(o, self)
    def __floordiv__(self, o): return np.floor_divide(self, o)
    def __rfloordiv__(self, o): return np.floor_divide(o, self)
    def __mod__(self, o): return np.remainder(self, o)
    def __rmod__(self, o): return np.remainder(o, self)
    def __divmod__(self, o): return np.divmod(self, o)
    def __rdivmod__(self, o): return np.divmod(o, self)
    def __pow__(self, o):
        # like ndarray.__pow__: a Python 2 exponent is computed as np.square
        return np.square(self) if type(o) in (int, float) and o == 2 else np.power(self, o)
    def __rpow__(self, o): return np.power(o, self)
    def __matmul__(self, o): return np.matmul(self, o)
    def __rmatmul__(self, o): return np.matmul(o, self)
    def __neg__(self): return np.negative(self)
    def __pos__(self): return np.positive(self)
    def __abs__(self): return np.absolute(self)
    def __invert__(self): return np.invert(self)
    # bitwise / logical
    def __and__(self, o): return np.bitwise_and(self, o)
    def __rand__(self, o): return np.bitwise_and(o, self)
    def __or__(self, o): return np.bitwise_or(self, o)
    def __ror__(self, o): return np.bitwise_or(o, self)
    def __xor__(self, o): return np.bitwise_xor(self, o)
    def __rxor__(self, o): return np.bitwise_xor(o, self)
    def __lshift__(self, o): return np.left_shift(self, o)
    def __rlshift__(self, o): return np.left_shift(o, self)
    def __rshift__(self, o): return np.right_shift(self, o)
    def __rrshift__(self, o): return np.right_shift(o, self)
    # comparison
    def __lt__(self, o): return np.less(self, o)
    def __le__(self, o): return np.less_equal(self, o)
    def __gt__(self, o): return np.greater(self, o)
    def __ge__(self, o): return np.greater_equal(self, o)
    def __eq__(self, o): return np.equal(self, o)
    def __ne__(self, o): return np.not_equal(self, o)

    __hash__ = object.__hash__

    # methods
    def astype(self, dtype, copy=True): return np.astype(self, dtype)
    def reshape(self, *shape, order="C"):
        if len(shape) == 1 and isinstance(shape[0], (tuple, list)):
            shape = shape[0]
        return np.reshape(self, tuple(shape), order=order)
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
    def flatten(self, order="C"):  # always a copy in NumPy, never a view
        return forget(np.reshape(self, (-1,), order=order))
    def ravel(self, order="C"): return np.reshape(self, (-1,), order=order)
    def copy(self, order="C"): return np.copy(self)
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
        return None if size is None else size * self.dtype.itemsize


class Tensor(NumpyOperators):
    """A symbolic value: output `index` of `node` in `graph` (node None for an input)."""

    __slots__ = ("graph", "node", "index", "shape", "dtype", "name", "weak")

    def __init__(self, graph, node, index, shape, dtype, name, weak: bool = False):
        self.graph = graph
        self.node = node
        self.index = index
        self.shape = shape
        self.dtype = dtype
        self.name = name
        # stands for a Python number (NEP 50 "weak" type); only in dtype-discovery traces
        self.weak = weak

    @property
    def ndim(self) -> int:
        return len(self.shape)

    @property
    def size(self):
        n = 1
        for d in self.shape:
            if d is None:
                return None
            n *= d
        return n

    def __repr__(self) -> str:
        return f"Tensor({self.name}, {self.dtype}{_fmt_shape(self.shape)})"

    __str__ = __repr__

    # -- NumPy protocols --------------------------------------------------------
    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        from runtime.ops.ufuncs import dispatch_ufunc

        _check_tracing(self)
        return dispatch_ufunc(ufunc, method, resolve_args(inputs), kwargs)

    def __array_function__(self, func, types, args, kwargs):
        from runtime.ops.functions import dispatch_function

        _check_tracing(self)
        args = resolve_args(args)
        return after_function(func, args, kwargs, dispatch_function(func, args, kwargs))

    def __array__(self, dtype=None, copy=None):
        raise _graph_mode_error("a concrete NumPy array (np.asarray / np.array)", self)

    def __getitem__(self, index):
        from runtime.ops.indexing import getitem

        return getitem(resolve(self), _resolve_index(index))

    def __setitem__(self, index, value):
        from runtime.ops.indexing import index_update

        _check_tracing(self)
        # NumPy writes in place: every alias and view of this array sees the new value
        # (runtime/views.py); the Tensor object itself stays an immutable graph value
        write_item(self, index, value, index_update)

    # -- Python conversions that need a concrete value ---------------------------
    def __bool__(self):
        raise _graph_mode_error("a Python bool (in `if`, `while`, `and`/`or` or `not`)", self)

    def __index__(self):
        raise _graph_mode_error("a Python int or index", self)

    def __int__(self):
        raise _graph_mode_error("a Python int", self)

    def __float__(self):
        raise _graph_mode_error("a Python float", self)

    def __len__(self):
        if self.dtype == object:
            raise GraphModeError(
                f"{self!r} is a list built inside a symbolic loop: NumPy cannot look inside "
                f"it{where()}. Stack it with runtime.list_stack(xs) (AutoGraph rewrites "
                "np.stack(xs) on such lists to that) and index the stacked array.")
        if self.ndim == 0:
            raise TypeError("len() of a 0-d Tensor")
        if self.shape[0] is None:
            raise _graph_mode_error("len() (its first dimension is unknown)", self)
        return self.shape[0]

    def __iter__(self):
        n = len(self)
        return (self[i] for i in range(n))


# -- aliasing and views (runtime/views.py): in-place operators write through -------------
from runtime.views import (  # noqa: E402  (views imports Tensor)
    _resolve_index, after_function, forget, holds_view_of, in_place, resolve, resolve_args,
)
from runtime.views import setitem as write_item  # noqa: E402


def _in_place_operator(name: str, op: str):
    binary = getattr(NumpyOperators, f"__{name}__")

    def method(self, other):
        # `b += v` is in place in NumPy: names aliasing b (and b's base) see the result
        result = binary(resolve(self), resolve(other))
        if self.weak or self.ndim == 0:  # a Python / NumPy scalar: `+=` rebinds the name
            return result
        return in_place(self, result, op)
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
        if not holds_view_of(value, self):
            raise AttributeError(f"property '{name}' of 'Tensor' object has no setter")
    return property(prop.fget, set_view)


Tensor.T = _view_property("T")
Tensor.mT = _view_property("mT")
