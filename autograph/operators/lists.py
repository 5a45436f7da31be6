"""Python lists in converted code, and their graph form inside symbolic loops.

The list converter rewrites `xs.append(v)` to `xs = ag__.list_append(xs, v)` and
`xs.pop()` to `xs, v = ag__.list_pop(xs)`, so a list is a variable a loop or branch
carries. On Python lists these are the list methods (same object, same aliasing).

A Python list that is a loop variable of a *symbolic* loop and whose length the body
changes becomes a graph list (a Tensor of dtype object): runtime.while_loop learns that
from the traced body (`runtime/control_flow/learn_types.py`); appends inside the loop
then record `runtime.list_append`; the call converter turns
`np.stack(xs)` / `np.array(xs)` of an appended-to list into `ag__.stack(xs)`, which is
`runtime.list_stack` on a graph list. All list handling goes through this module.
"""
from __future__ import annotations

import numpy as np

import runtime
from autograph.errors import Diagnostic, caller_location
from runtime.control_flow.lists import element_aval, is_list
from runtime.core import tracing
from runtime.core.tensor import Tensor
from runtime.ops.functions import TABLE
from runtime.ops.shape import symbolic_shape


def is_graph_list(x) -> bool:
    return is_list(x)


def list_append(target, value):
    """`target.append(value)`, returning the list."""
    if is_graph_list(target):
        return runtime.list_append(target, value)
    target.append(value)
    return target


def list_pop(target, *index):
    """`target.pop(*index)` as (list, item)."""
    if is_graph_list(target):
        file, line = caller_location()
        raise Diagnostic(f"{file}:{line}: pop() is not supported on a list built inside a "
                         "symbolic loop; keep a separate counter, or stack the list and "
                         "slice it.")
    item = target.pop(*index)
    return target, item


def list_length(x):
    if is_graph_list(x):
        return runtime.list_len(x)
    return len(x)


def stack(values, fn=None, *args, **kwargs):
    """`np.stack(values)` (or `fn(values)`, e.g. np.array) that also takes a graph list."""
    if is_graph_list(values) and not args and kwargs.get("axis", 0) == 0:
        return runtime.list_stack(values)
    return (fn or np.stack)(values, *args, **kwargs)


def sequence_call(fn, values, *args, **kwargs):
    """`fn(values, ...)` for a NumPy function taking a sequence of arrays (np.stack,
    np.concatenate, np.vstack, np.hstack, np.column_stack) that also takes a graph list:
    its items share one shape, so each is a reshape of the stacked items."""
    if not is_graph_list(values):
        return fn(values, *args, **kwargs)
    build = SEQUENCE_FORMS.get(fn)
    params = ("axis",) if fn in (np.stack, np.concatenate) else ()
    if build is None or len(args) > len(params) or set(kwargs) - set(params):
        file, line = caller_location()
        raise NotImplementedError(
            f"{file}:{line}: {getattr(fn, '__name__', fn)}() of a list built inside a "
            "symbolic loop is not implemented with these arguments; stack the list first "
            "(np.stack(xs)) and pass the stacked array.")
    axis = args[0] if args else kwargs.get("axis", 0)
    return build(runtime.list_stack(values), axis)


def _normalized(axis, ndim: int) -> int:
    if not -ndim <= axis < ndim:
        raise np.exceptions.AxisError(axis, ndim)
    return axis % ndim


def _joined(stacked, axis: int):
    """The items of `stacked` (its first axis) concatenated along their own `axis`."""
    moved = np.moveaxis(stacked, 0, axis)
    shape = symbolic_shape(moved)
    return np.reshape(moved, shape[:axis] + (shape[axis] * shape[axis + 1],) + shape[axis + 2:])


def _concatenate(stacked, axis):
    if axis is None:
        return np.reshape(stacked, (-1,))
    if stacked.ndim == 1:
        raise ValueError("zero-dimensional arrays cannot be concatenated")
    return _joined(stacked, _normalized(axis, stacked.ndim - 1))


def _stack(stacked, axis):
    return np.moveaxis(stacked, 0, _normalized(axis, stacked.ndim))


def _vstack(stacked, _axis):
    return _joined(stacked, 0) if stacked.ndim > 2 else np.reshape(
        stacked, (-1, 1) if stacked.ndim == 1 else symbolic_shape(stacked))


def _hstack(stacked, _axis):
    if stacked.ndim <= 2:
        return np.reshape(stacked, (-1,))
    return _joined(stacked, 1)


def _column_stack(stacked, _axis):
    if stacked.ndim == 1:
        return np.reshape(stacked, (1, -1))
    if stacked.ndim == 2:
        return np.transpose(stacked)
    return _joined(stacked, 1)


SEQUENCE_FORMS = {np.stack: _stack, np.concatenate: _concatenate, np.vstack: _vstack,
                   np.hstack: _hstack, np.column_stack: _column_stack}


_ARRAY_CONSTRUCTORS = ("array", "asarray", "asanyarray", "ascontiguousarray")


def array_(fn, value, *args, **kwargs):
    """`np.array(value, ...)` / `np.asarray(...)` in converted code: NumPy cannot hand a
    symbolic value (or a list holding one) to these, so they become graph ops; a graph
    list is stacked. `np.array` (and `copy=True`) copies, as in NumPy, so a later write
    to the result is not seen through `value`; `np.asarray` of an array is that array."""
    if is_graph_list(value):
        stacked = _array_of_items(value, args[0] if args else kwargs.get("dtype"))
        return TABLE.handlers[fn](stacked, *args, **kwargs) if args or kwargs else stacked
    if not _holds_symbolic(value):
        made = fn(value, *args, **kwargs)
        return made if made is value else array_of_the_trace(made)
    return TABLE.handlers[fn](_lists_stacked(value), *args, **kwargs)


def _array_of_items(xs, dtype):
    """The array NumPy makes of the Python list graph list `xs` stands for, before the
    `dtype` conversion. NumPy makes an empty list a float64 (or `dtype`) vector of shape
    (0,): when that fits the stacked items' type (0-d items, and `dtype` given or the
    items float64) the graph gives it too, so a loop that appends nothing is no error;
    otherwise stacking nothing stays a run-time error (the graph's array cannot be
    NumPy's)."""
    items = element_aval(xs)
    if items is None or tuple(items[0]) != () or (
            dtype is None and np.dtype(items[1]) != np.float64):
        return stack(xs)
    return runtime.cond(runtime.list_len(xs) > 0, lambda: runtime.list_stack(xs),
                        lambda: runtime.constant(np.empty((0,), items[1])))


def _lists_stacked(value):
    """`value` with each graph list inside it (`[row_list, ...]`) as its stacked array,
    which is the array NumPy makes of the Python list it stands for."""
    if is_graph_list(value):
        return stack(value)
    if type(value) in (list, tuple):
        return type(value)(_lists_stacked(v) for v in value)
    return value


def array_of_the_trace(made):
    """A new NumPy array made while tracing (`np.zeros(n)`, `np.array([1.0, 2.0])`,
    `np.copy(c)`, ...) becomes a graph value, so that writes into it through any name,
    alias or view land as NumPy would land them (`a = np.zeros(3); b = a; a[0] = x[0]`
    changes `b`; `acc += x`); a plain array would take symbolic writes into a copy bound
    to one name only. Arrays of object or text dtype stay NumPy arrays (no graph value
    holds them)."""
    if type(made) is np.ndarray and made.dtype.kind in "biufc" and tracing.in_graph_mode():
        return runtime.constant(made)
    return made


def _holds_symbolic(value) -> bool:
    if isinstance(value, Tensor):
        return True
    if type(value) in (list, tuple):
        return any(_holds_symbolic(v) for v in value)
    return False

