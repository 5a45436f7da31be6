"""`np.c_[...]`, `np.r_[...]`, `np.s_[...]` and `np.index_exp[...]` in converted code.

NumPy's index-trick objects build their result in `__getitem__`, which converts every
item with `np.array` and so cannot take a symbolic value. The subscript converter turns
a subscript load whose object is an attribute named `c_`/`r_`/`s_`/`index_exp` into
`ag__.index_trick(obj, key)`; when `obj` is NumPy's object this rebuilds the result the
way `numpy.lib.AxisConcatenator` does (1-d items become columns for `c_`, slices become
ranges, scalars take the common dtype) from graph-aware NumPy calls; anything else is
the plain subscript. `ag__.array_item(obj, key)` is `obj[key]`, in the graph when `obj`
is a NumPy array and `key` holds a symbolic value.
"""
from __future__ import annotations

import numpy as np

from runtime.core.tensor import Tensor
from runtime.ops.indexing import getitem

# (axis, ndmin, trans1d) of NumPy's concatenators
_CONCATENATORS = {id(np.c_): (-1, 2, 0), id(np.r_): (0, 1, -1)}


def index_trick(obj, key):
    """`obj[key]`, with NumPy's `c_`/`r_` accepting symbolic items."""
    layout = _CONCATENATORS.get(id(obj))
    if layout is None or not _holds_symbolic(key):
        return obj[key]
    return _concatenate(key if isinstance(key, tuple) else (key,), *layout)


def array_item(obj, key):
    """`obj[key]`; a NumPy array indexed with a symbolic value reads it in the graph (the
    array a constant of the trace)."""
    if type(obj) is np.ndarray and _index_holds_symbolic(key):
        return getitem(obj, key)
    return obj[key]


def _index_holds_symbolic(key) -> bool:
    for k in key if isinstance(key, tuple) else (key,):
        if isinstance(k, Tensor) or isinstance(k, slice) and any(
                isinstance(p, Tensor) for p in (k.start, k.stop, k.step)):
            return True
    return False


def _holds_symbolic(key) -> bool:
    items = key if isinstance(key, tuple) else (key,)
    return any(isinstance(k, Tensor) for k in items)


def _concatenate(items: tuple, axis: int, ndmin: int, trans1d: int):
    objs, kinds = [], []
    for item in items:
        if isinstance(item, str):
            raise NotImplementedError(
                f"the string directive {item!r} in np.c_/np.r_ is not supported with "
                "symbolic items: use np.concatenate / np.stack with an explicit axis")
        if isinstance(item, slice):
            obj = _range(item)
            if ndmin > 1:
                obj = np.array(obj, ndmin=ndmin)
                if trans1d != -1:
                    obj = obj.swapaxes(-1, trans1d)
            objs.append(obj)
            kinds.append(obj.dtype)
        elif type(item) in np.ScalarType:
            objs.append(item)
            kinds.append(item)
        else:
            obj = _at_least(item, ndmin, trans1d)
            objs.append(obj)
            kinds.append(obj.dtype)
    dtype = np.result_type(*kinds)
    objs = [_at_least(np.asarray(o, dtype=dtype) if not isinstance(o, Tensor) else o,
                      ndmin, -1).astype(dtype) for o in objs]
    return np.concatenate(objs, axis=axis)


def _range(item: slice) -> np.ndarray:
    start = 0 if item.start is None else item.start
    step = 1 if item.step is None else item.step
    if isinstance(step, (complex, np.complexfloating)):
        return np.linspace(start, item.stop, num=int(abs(step)))
    return np.arange(start, item.stop, step)


def _at_least(x, ndmin: int, trans1d: int):
    """`np.array(x, ndmin=ndmin)` (leading unit axes), then NumPy's `trans1d` move of
    the original axes."""
    ndim = np.ndim(x)
    if ndim >= ndmin:
        return x
    x = np.expand_dims(x, tuple(range(ndmin - ndim)))
    if trans1d != -1:
        k2 = ndmin - ndim
        k1 = trans1d + k2 + 1 if trans1d < 0 else trans1d
        axes = list(range(ndmin))
        x = np.transpose(x, axes[:k1] + axes[k2:] + axes[k1:k2])
    return x
