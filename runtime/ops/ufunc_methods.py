"""The ufunc methods on symbolic arrays: `.at`, `.outer`, `.reduce`, `.accumulate`,
`.reduceat` (`__array_ufunc__` with a method other than `__call__` lands here).

- `ufunc.at(a, indices, b)` writes into `a` in place, unbuffered (a repeated index
  applies again). The new value is op "index_update" with the ufunc's name as its mode
  (indexing.py; NumPy's `ufunc.at` on a copy as the kernel), made `a`'s value through
  runtime/state/views.py exactly like `a[i] = v`: aliases and views see it, an argument
  is written back after the call, and an array of Python state traces again as an input
  (`StateArrayWrite`).
- `ufunc.outer(a, b)` is the ufunc of `a` with `b.ndim` new trailing axes and `b`;
  NumPy makes both operands arrays first (a Python number is not weak there).
- `reduce` / `accumulate` of add, multiply, maximum, minimum (and logical_and /
  logical_or for reduce) are np.sum / np.prod / np.max / np.min / np.all / np.any /
  np.cumsum / np.cumprod with NumPy's default `axis=0`, so gradients and batching come
  from those ops. Any other ufunc, and `reduceat`, is op "ufunc_reduce",
  "ufunc_accumulate" or "ufunc_reduceat" (the NumPy method as the kernel); their dtype
  is the method's own on a one-element array of the input's dtype (which raises
  NumPy's error for a ufunc that cannot reduce that dtype).

Gradients: runtime/autodiff/more_rules.py (add.reduceat; `.at` in function_rules.py).
"""
from __future__ import annotations

import warnings
from typing import Any

import numpy as np

from runtime.core.errors import StateArrayWrite, where
from runtime.core.protocol import TensorProtocol
from runtime.core.registry import OpDef, bind
from runtime.core.tensor import Tensor
from runtime.ops.functions import OPS, resolve_variables
from runtime.ops.indexing import index_update
from runtime.ops.rules_common import axes_tuple, axis_index, dtype, shape, static_error


def _probe_dtype(ufunc_name: str, method: str, x, **kwargs) -> np.dtype:
    """The dtype NumPy's method gives for `x`'s dtype and rank (run on one element, so
    NumPy's own errors for the ufunc, dtype and axes are raised while tracing)."""
    ufunc = getattr(np, ufunc_name)
    one = np.ones((1,) * len(shape(x)), dtype(x))
    args = (one, [0]) if method == "reduceat" else (one,)
    try:
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore")
            return np.asarray(getattr(ufunc, method)(*args, **kwargs)).dtype
    except (TypeError, ValueError) as e:
        raise static_error(type(e), str(e)) from None


def _reduce_rule(op, inputs, attrs):
    x = inputs[0]
    shp = shape(x)
    axis, keep = attrs.get("axis", 0), attrs.get("keepdims", False)
    axes = axes_tuple(axis, len(shp))
    if keep:
        out = tuple(1 if d in axes else n for d, n in enumerate(shp))
    else:
        out = tuple(n for d, n in enumerate(shp) if d not in axes)
    dt = _probe_dtype(attrs["ufunc"], "reduce", x, axis=axis, **_dtype_kw(attrs))
    return [(out, dt)]


def _accumulate_rule(op, inputs, attrs):
    x = inputs[0]
    if len(shape(x)) == 0:
        raise static_error(ValueError, "cannot accumulate on a scalar")
    axis = axis_index(attrs.get("axis", 0), len(shape(x)))
    return [(shape(x), _probe_dtype(attrs["ufunc"], "accumulate", x, axis=axis,
                                    **_dtype_kw(attrs)))]


def _reduceat_rule(op, inputs, attrs):
    x, idx = inputs
    if len(shape(idx)) != 1:
        raise static_error(ValueError, "index must be 1-d")
    if len(shape(x)) == 0:
        raise static_error(TypeError, "cannot reduceat on a scalar")
    ax = axis_index(attrs.get("axis", 0), len(shape(x)))
    out = tuple(shape(idx)[0] if d == ax else n for d, n in enumerate(shape(x)))
    return [(out, _probe_dtype(attrs["ufunc"], "reduceat", x, axis=ax, **_dtype_kw(attrs)))]


def _dtype_kw(attrs) -> dict:
    return {"dtype": attrs["dtype"]} if attrs.get("dtype") is not None else {}


def _method_kernel(method: str):
    def kernel(*arrays, ufunc, **attrs):
        return getattr(getattr(np, ufunc), method)(*arrays, **attrs)
    kernel.__name__ = f"ufunc_{method}"
    return kernel


UFUNC_REDUCE = OpDef("ufunc_reduce", _method_kernel("reduce"), _reduce_rule)
UFUNC_ACCUMULATE = OpDef("ufunc_accumulate", _method_kernel("accumulate"), _accumulate_rule)
UFUNC_REDUCEAT = OpDef("ufunc_reduceat", _method_kernel("reduceat"), _reduceat_rule)
for _op in (UFUNC_REDUCE, UFUNC_ACCUMULATE, UFUNC_REDUCEAT):
    OPS[_op.name] = _op

_REDUCE_AS = {np.add: np.sum, np.multiply: np.prod, np.maximum: np.max, np.minimum: np.min,
              np.logical_and: np.all, np.logical_or: np.any}
_ACCUMULATE_AS = {np.add: np.cumsum, np.multiply: np.cumprod}


def _name(ufunc, method: str) -> str:
    return f"np.{ufunc.__name__}.{method}"


def _static(ufunc, method: str, kwargs: dict) -> None:
    if kwargs.get("out") is not None:
        raise TypeError(f"{_name(ufunc, method)}(..., out=...) is not supported in graphs"
                        f"{where()}: use the returned value.")
    kwargs.pop("out", None)
    for k, v in kwargs.items():
        if isinstance(v, Tensor) or (isinstance(v, (list, tuple)) and
                                     any(isinstance(i, Tensor) for i in v)):
            raise TypeError(f"{_name(ufunc, method)}: `{k}` must be static in graphs, not a "
                            f"symbolic value{where()}.")


def _reduce(ufunc, array, axis=0, dtype=None, out=None, keepdims=False, **more):
    kwargs = {"out": out, **more}
    _static(ufunc, "reduce", kwargs)
    (x,) = resolve_variables([array])
    if np.ndim(x) == 0 and isinstance(axis, (int, np.integer)) and axis in (0, -1):
        axis = ()  # NumPy reduces a 0-d array along axis 0 (or -1) as along no axis
    as_fn = _REDUCE_AS.get(ufunc)
    if as_fn is not None and (dtype is None or as_fn in (np.sum, np.prod)):
        extra = {"dtype": dtype} if dtype is not None else {}
        return as_fn(x, axis=axis, keepdims=keepdims, **extra, **kwargs)
    if kwargs:
        raise TypeError(f"{_name(ufunc, 'reduce')}(..., {', '.join(kwargs)}=...) is not "
                        f"supported in graphs{where()}.")
    return bind(UFUNC_REDUCE, x, ufunc=ufunc.__name__, axis=axis, dtype=dtype,
                keepdims=keepdims)


def _accumulate(ufunc, array, axis=0, dtype=None, out=None):
    _static(ufunc, "accumulate", {"out": out})
    (x,) = resolve_variables([array])
    as_fn = _ACCUMULATE_AS.get(ufunc)
    if as_fn is not None and np.ndim(x) > 0:
        return as_fn(x, axis=axis, dtype=dtype)
    return bind(UFUNC_ACCUMULATE, x, ufunc=ufunc.__name__, axis=axis, dtype=dtype)


def _reduceat(ufunc, array, indices, axis=0, dtype=None, out=None):
    _static(ufunc, "reduceat", {"out": out})
    x, idx = resolve_variables([array, indices])
    if not isinstance(idx, Tensor):
        idx = np.asarray(idx)
        if idx.dtype.kind not in "iu":
            idx = idx.astype(np.intp, casting="safe")
    return bind(UFUNC_REDUCEAT, x, idx, ufunc=ufunc.__name__, axis=axis, dtype=dtype)


def _outer(ufunc, a, b, **kwargs):
    _static(ufunc, "outer", kwargs)
    a, b = (np.asarray(x) if isinstance(x, (int, float, complex, list, tuple, np.generic))
            else x for x in resolve_variables([a, b]))
    new_axes = tuple(range(np.ndim(a), np.ndim(a) + np.ndim(b)))
    return ufunc(np.expand_dims(a, new_axes) if new_axes else a, b, **kwargs)


def _at(ufunc, a, indices, b=None, **kwargs):
    if kwargs:
        raise TypeError(f"{_name(ufunc, 'at')}() takes no keyword arguments{where()}")
    unary = ufunc.nin == 1
    if unary != (b is None):
        raise static_error(ValueError, "second operand needed for ufunc" if b is None else
                           "second operand provided when ufunc is unary")
    if ufunc.nout != 1:
        raise static_error(ValueError, "Only single output ufuncs supported at this time")
    if not isinstance(a, Tensor):
        if isinstance(a, np.ndarray):
            # `np.add.at(self.grads["W"], i, v)`: an array of Python state written with
            # graph values traces again with it as an input (runtime/frontend/trace.py)
            raise StateArrayWrite(
                f"{_name(ufunc, 'at')}(a, ...){where()} writes values computed in the graph "
                "into a NumPy array that is not an array of the trace (one held by an object, "
                "a global or a closure): a cached graph cannot write into it on later calls. "
                "Make `a` a graph value (pass it in as an argument, or build it in the "
                "function: `a = np.zeros_like(x)`) and return it.", a)
        if not hasattr(a, "__setitem__") or not hasattr(a, "dtype"):
            raise TypeError(f"{_name(ufunc, 'at')}(a, ...) needs `a` to be an array it can "
                            f"write into in place, not a {type(a).__name__}{where()}.")
        # an eager GradientTape's value: its own `a[...] = new` records the write
        a[...] = index_update(a, indices, b, mode=ufunc.__name__)
        return None
    current = TensorProtocol.resolve(a)
    indices, b = resolve_variables([indices, b])
    new = index_update(current, TensorProtocol.resolve_index(indices),
                       None if unary else TensorProtocol.resolve(b), mode=ufunc.__name__)
    try:
        TensorProtocol.write_array(a, new, "output array")
    except ValueError as e:
        if "defined outside the symbolic" not in str(e):
            raise
        # AutoGraph carries the arrays a block assigns; a call that writes in place is
        # not an assignment it sees
        raise ValueError(
            f"{_name(ufunc, 'at')}(a, ...) writes into `a` in place inside a symbolic `if` / "
            f"loop{where()}, but `a` is not assigned in that block, so the block does not "
            "carry its new value out. Assign the array in the block before the call (e.g. "
            "`a = a.copy()`, or compute it there), which makes it a variable of the block.") \
            from None


_METHODS = {"reduce": _reduce, "accumulate": _accumulate, "reduceat": _reduceat,
            "outer": _outer, "at": _at}


def dispatch_method(ufunc: np.ufunc, method: str, inputs: tuple, kwargs: dict) -> Any:
    """`ufunc.method(*inputs, **kwargs)` with a symbolic input."""
    handler = _METHODS.get(method)
    if handler is None:
        raise TypeError(f"{_name(ufunc, method)} is not supported in graphs{where()}.")
    if method in ("reduce", "accumulate", "reduceat") and ufunc.nin != 2:
        raise static_error(ValueError, f"{method} only supported for binary functions")
    return handler(ufunc, *inputs, **kwargs)
