"""Undefined values, possibly-undefined reads and functional updates of targets.

- `Undefined(name)`: the value of a variable that is not (yet) defined where generated
  code must still pass it around (e.g. a variable first assigned inside a branch). A
  symbolic `if` / loop that would produce it raises an error naming the variable.
- `UNSET`: the value of `retval_` before a `return` inside a loop ran; symbolic control
  flow fills it with a value of the right type (it is only read when `do_return` holds).
- `ld(v)`: a read of a variable that may be undefined; raises UnboundLocalError like
  Python would.
- `ld_attr(obj, 'a.b')` / `set_attr(obj, 'a.b', v)`: an attribute that generated code
  carries through a branch or loop although it may not exist yet (it is first assigned
  inside): read as `Undefined` when missing, and not assigned back while `Undefined`, so
  an attribute the original would not have created is not created.
- `setitem(x, i, v)`: `x[i] = v` as a value: in place for Python containers and NumPy
  arrays (same aliasing as the original), a functional `index_update` for Tensors (and
  a copy of a NumPy array inside traced control flow, where every branch runs).
  `setitem(x, i, v, '+=')` is `x[i] += v` with `i` evaluated once: the real augmented
  assignment on Python containers and arrays; on Tensors `x[i] + v` stored back, with
  NumPy's check that an in-place operation on an array (`x[0:2] += 1.5` on int64) may
  cast its result to `x`'s dtype ('same_kind'; a single element is stored as is).
"""
from __future__ import annotations

import sys

import numpy as np

from runtime.core.errors import where
from autograph.operators import sole_holder
import runtime
from runtime import Tensor, index_update
from runtime.control_flow.lists import is_list
from runtime.core import tracing
from runtime.state import views
from autograph.pyct.plain_operators import AUGMENTED
from autograph.pyct.unbound import (  # noqa: F401  (re-exported: the operators' names)
    UNSET, Undefined, unbound_error, is_undefined, ld, ld_attr,
)
from autograph.operators.partly_bound import read as _read_partly_bound
from runtime.state.after_error import UNBOUND_READS

# an UnboundLocalError these raise while tracing is Python's, at the user's read: after
# graph operations it is raised in order, when the graph runs (after_error.py)
UNBOUND_READS.update({ld.__code__, Undefined._raise.__code__, _read_partly_bound.__code__})


def set_attr(obj, path: str, value) -> None:
    """`obj.<path> = value`, unless `value` is `Undefined`: then the attribute stays (or,
    where tracing the other branch of a symbolic `if` created it, becomes again) missing."""
    *parents, last = path.split(".")
    if type(value) is Undefined:
        for attr in parents:
            obj = getattr(obj, attr, None)
        if obj is not None and hasattr(obj, last):
            delattr(obj, last)
        return
    for attr in parents:
        obj = getattr(obj, attr)
    setattr(obj, last, value)


def setitem(target, index, value, op: str | None = None, nested: bool = False):
    """`target[index] = value` (or `target[index] op value`, e.g. op '+='), returning the
    updated target. `nested`: the outer store of `target[index][j] = v`, `value` being
    the inner update's result, made only when that update gave a new value (a graph
    value, updated functionally): an update in place (a list, an array, a view) has
    landed already, so a list in a tuple is written as Python writes it and a
    container's `__setitem__` runs only where Python runs it."""
    if nested and not isinstance(value, Tensor) and not isinstance(target, Tensor):
        return target
    if isinstance(target, Tensor) or (isinstance(value, Tensor) and _is_array(target)) \
            or (_is_array(target) and _has_tensor(index)):
        if isinstance(target, Tensor):
            if is_list(target):
                raise TypeError(_LIST_ITEM_WRITE.format(where=where()))
            # writes through aliases and views of target, as NumPy's in-place write does
            return views.setitem(target, index, value, _functional(op))
        # a NumPy array takes the graph value functionally: exact only when no other
        # name, view, container or object sees the array's memory
        sole_holder.check(target, sys.getrefcount(target))
        if op is not None:
            value = _updated_item(target, index, value, op)
        return index_update(target, index, value)
    if _is_array(target) and _in_symbolic_branch():
        # both branches of a symbolic `if` are traced: writing into the array in place
        # would apply the update of each branch; update a copy, as for a Tensor (a graph
        # value: the branch's result must not be a NumPy array, which stands for state)
        sole_holder.check(target, sys.getrefcount(target))
        if target.dtype.kind in "biufc":
            copied = runtime.constant(target.copy())
            return views.setitem(copied, index, value, _functional(op))
        target = target.copy()
    if op is not None:
        value = _AUGMENTED[op][0](target[index], value)  # exactly `target[index] op= value`
    target[index] = value
    return target


_LIST_ITEM_WRITE = (
    "An item of a Python list is written inside a symbolic loop{where}, where the list is "
    "carried as a graph list: a graph list can be appended to, read and stacked, but its "
    "items cannot be replaced. Make it an array and write into that (`counts = "
    "np.zeros(n, dtype=np.int64)`, then `counts[i] += 1`; or np.bincount / np.add.at), or "
    "build a new list by appending.")


def setitem_attr(obj, name: str, index, value, op: str | None = None) -> None:
    """`obj.<name>[index] = value` (or `op=`): the attribute is read, and set only when
    the update made a new value (a graph value updated functionally), so a property
    setter or `__setattr__` runs only where it must."""
    new = setitem(getattr(obj, name), index, value, op)  # (no local: see sole_holder)
    if new is not getattr(obj, name):
        setattr(obj, name, new)


def _functional(op: str | None):
    def update(current, index, value):
        if op is not None:
            value = _updated_item(current, index, value, op)
        return index_update(current, index, value)
    return update


_AUGMENTED = AUGMENTED  # op -> (in-place operator, binary operator, NumPy ufunc name)


def _updated_item(target, index, value, op: str):
    """`target[index] op value` for a functional update, checked like NumPy's in-place
    operation on the selected part (an array, unless the index selects one element)."""
    _, binary, ufunc = _AUGMENTED[op]
    new = binary(target[index], value)
    if _selects_one_element(index, target.ndim):
        return new
    to, frm = np.dtype(target.dtype), np.dtype(getattr(new, "dtype", np.result_type(new)))
    if not np.can_cast(frm, to, casting="same_kind"):
        raise TypeError(f"Cannot cast ufunc '{ufunc}' output from {frm!r} to {to!r} with "
                        f"casting rule 'same_kind'{where()}")
    return new


def _selects_one_element(index, ndim: int) -> bool:
    """Whether `x[index]` is a NumPy scalar (integers for every axis), not an array."""
    parts = index if isinstance(index, tuple) else (index,)
    if len(parts) != ndim:
        return False
    for p in parts:
        if isinstance(p, Tensor):
            if p.ndim != 0 or not np.issubdtype(p.dtype, np.integer):
                return False
        elif isinstance(p, (bool, np.bool_)) or not isinstance(p, (int, np.integer)):
            return False
    return True


def _in_symbolic_branch() -> bool:
    graph = tracing.current_graph()
    return graph is not None and graph.parent is not None


def _is_array(x) -> bool:
    return isinstance(x, np.ndarray)


def _has_tensor(index) -> bool:
    if isinstance(index, tuple):
        return any(_has_tensor(i) for i in index)
    if isinstance(index, slice):
        return any(isinstance(p, Tensor) for p in (index.start, index.stop, index.step))
    return isinstance(index, Tensor)
