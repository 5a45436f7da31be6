"""`Variable`: mutable state created outside functions, read and updated inside them.

Reading a Variable while tracing records a `read_variable` node and updating it
records an `assign_variable` node; both are stateful, so they run on every call in
program order and are never folded or merged. An update rebinds the Variable's
storage to a new array instead of writing into the old one, so a value read before
an assign keeps the old contents.

Each update is atomic: it holds the Variable's own lock while it reads the old value and
binds the new one, so `assign_add` from several threads loses no update. A Variable keeps
its shape: an update whose value does not broadcast to it raises, eagerly as in graphs.
"""
from __future__ import annotations

import threading
from typing import Any

import numpy as np

from runtime.core import tracing
from runtime.core.errors import where
from runtime.core.autodiff_hooks import on_variable_read
from runtime.core.registry import OpDef, bind
from runtime.core.tensor import NumpyOperators, StateHandle, Tensor, _fmt_shape
from runtime.ops.functions import TABLE


def _read_kernel(*, var):
    return var._value


def _assign_kernel(value, *, var, mode):
    with var._lock:  # read-modify-write as one step: concurrent updates all count
        old = var._value
        if mode == "set":
            new = np.array(value, dtype=old.dtype, copy=True)
        elif mode == "add":
            new = np.asarray(old + value, dtype=old.dtype)  # a fresh array
        else:
            new = np.asarray(old - value, dtype=old.dtype)
        if new.shape != old.shape:
            new = _fitted(new, np.shape(value), var)
        var._value = _frozen(new)


def _fitted(new: np.ndarray, value_shape: tuple, var) -> np.ndarray:
    """`new` broadcast to the Variable's shape, or the error a graph gives at trace time."""
    try:
        if len(value_shape) > var.ndim:
            raise ValueError
        return np.array(np.broadcast_to(new, var.shape))
    except ValueError:
        raise ValueError(f"Cannot assign a value of shape {_fmt_shape(value_shape)} to Variable "
                         f"{var.name!r} of shape {_fmt_shape(var.shape)}{where()}; a Variable "
                         "keeps its shape (assign a value of that shape, or make a new "
                         "Variable).") from None


def _frozen(array: np.ndarray) -> np.ndarray:
    """Storage is replaced, never written: reads hand it out, so nobody may write into it."""
    array.flags.writeable = False
    return array


def _read_abstract_eval(op, inputs, attrs):
    var = attrs["var"]
    return [(var.shape, var.dtype)]


def _assign_abstract_eval(op, inputs, attrs):
    var, value = attrs["var"], inputs[0]
    shape = value.shape if isinstance(value, Tensor) else np.shape(value)
    if len(shape) > len(var.shape) or any(
        d is not None and d != 1 and d != v for d, v in zip(reversed(shape), reversed(var.shape))
    ):
        raise ValueError(f"Cannot assign a value of shape {_fmt_shape(shape)} to Variable "
                         f"{var.name!r} of shape {_fmt_shape(var.shape)}{where()}.")
    return []


READ_VARIABLE = OpDef("read_variable", _read_kernel, _read_abstract_eval, stateful=True,
                      reads_variable=True,
                      format=lambda gen, ins, attrs: f"{gen.const(attrs['var'], 'var')}._value")
ASSIGN_VARIABLE = OpDef("assign_variable", _assign_kernel, _assign_abstract_eval, num_outputs=0,
                        stateful=True, effect=True)


class Variable(NumpyOperators, StateHandle):
    """A mutable array shared by eager code and every graph that uses it.

    Create it outside decorated functions; inside them read it (`v.value`, or use it as
    an array) and update it with `assign`, `assign_add`, `assign_sub`, which run on
    every call, in program order. `GradientTape` watches Variables it reads by itself.

    Args:
        initial_value: an array (or anything `np.array` takes, or another Variable); it
            is copied.
        dtype: the dtype to store (default: the value's).
        name: a name for listings and saved graphs (default `Variable<k>`).

    Raises:
        ValueError: it is created while a function is being traced.

    Example:
        ```python
        import numpy as np
        import autograph as ag

        counter = ag.Variable(np.int64(0))

        @ag.function
        def step(x):
            counter.assign_add(1)
            return x * counter.value

        step(np.int64(5))  # -> np.int64(5)
        step(np.int64(5))  # -> np.int64(10)
        counter.numpy()  # -> array(2)
        ```
    """

    _count = 0

    def __init__(self, initial_value: Any, dtype: Any = None, name: str | None = None):
        if tracing.in_graph_mode():
            raise ValueError(
                f"ag.Variable(...) was called while tracing a function{where()}. Variables must "
                "be created outside decorated functions (once, e.g. at module level or in "
                "__init__) and only read or assigned inside them."
            )
        if isinstance(initial_value, Variable):
            initial_value = initial_value.numpy()
        self._value = _frozen(np.array(initial_value, dtype=dtype, copy=True))
        self._lock = threading.Lock()
        Variable._count += 1
        self.name = name or f"Variable{Variable._count}"

    # -- reading --------------------------------------------------------------------
    @property
    def shape(self) -> tuple:
        return self._value.shape

    @property
    def dtype(self) -> np.dtype:
        return self._value.dtype

    @property
    def ndim(self) -> int:
        return self._value.ndim

    def read_value(self) -> Any:
        """The current value: a NumPy array eagerly, a read node while tracing."""
        value = bind(READ_VARIABLE, var=self)
        return on_variable_read(self, value)

    @property
    def value(self):
        return self.read_value()

    def numpy(self) -> np.ndarray:
        if tracing.in_graph_mode():
            raise TypeError(f"Variable.numpy() needs a concrete value and cannot run while "
                            f"tracing{where()}; use the Variable (or .value) in the computation.")
        return self._value.copy()

    # -- updating -------------------------------------------------------------------
    def assign(self, value: Any) -> "Variable":
        bind(ASSIGN_VARIABLE, _unwrap(value), var=self, mode="set")
        return self

    def assign_add(self, delta: Any) -> "Variable":
        bind(ASSIGN_VARIABLE, _unwrap(delta), var=self, mode="add")
        return self

    def assign_sub(self, delta: Any) -> "Variable":
        bind(ASSIGN_VARIABLE, _unwrap(delta), var=self, mode="sub")
        return self

    # -- NumPy protocols ------------------------------------------------------------
    def __array__(self, dtype=None, copy=None):
        value = self.read_value()
        if isinstance(value, Tensor):
            return value.__array__(dtype)
        return np.asarray(value, dtype=dtype)

    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        inputs = [_unwrap(x) for x in inputs]
        return getattr(ufunc, method)(*inputs, **kwargs)

    def __array_function__(self, func, types, args, kwargs):
        args = [_unwrap(a) for a in args]
        kwargs = {k: _unwrap(v) for k, v in kwargs.items()}
        if tracing.in_graph_mode() or any(isinstance(a, Tensor) for a in args):
            handler = TABLE.handlers.get(func)
            if handler is not None:
                return handler(*args, **kwargs)
        return func(*args, **kwargs)

    def __getitem__(self, index):
        return self.read_value()[index]

    def __bool__(self):
        return bool(self.read_value())

    def __len__(self):
        return len(self._value)

    def __repr__(self) -> str:
        return f"<ag.Variable {self.name!r} {self.dtype}{_fmt_shape(self.shape)}>"

    def __str__(self) -> str:
        return self.name


def _unwrap(x):
    if isinstance(x, Variable):
        return x.read_value()
    if isinstance(x, (list, tuple)):
        return type(x)(_unwrap(v) for v in x)
    return x
