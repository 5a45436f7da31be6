"""List and tuple arguments holding symbolic values, for NumPy functions that take an
array_like (`np.max([a, b])`, `np.sum([a * np.cos(k * t) for k in ks], axis=0)`).

NumPy turns such an argument into an array with `np.asarray` before dispatching, which
cannot take a symbolic item. The call converter wraps a literal list / tuple / list
comprehension argument of a ufunc or of a NumPy function in `_ARRAY_LIKE_FIRST` in
`ag__.array_like(value)`: the value itself when it holds no symbolic item, else the
graph `np.asarray(value)` (as NumPy would make it).
"""
from __future__ import annotations

import numpy as np

from autograph.operators.lists import array_, is_graph_list, stack

# NumPy functions whose first argument is one array_like (not a sequence of arrays, as
# for np.concatenate / np.stack, whose items NumPy's dispatch already sees)
ARRAY_LIKE_FIRST = frozenset({
    np.max, np.min, np.amax, np.amin, np.sum, np.mean, np.prod, np.std, np.var, np.all,
    np.any, np.argmax, np.argmin, np.median, np.cumsum, np.cumprod, np.average, np.sort,
    np.argsort, np.ptp, np.clip, np.round, np.nansum, np.nanmax, np.nanmin, np.nanmean,
    np.dot, np.linalg.norm, np.diff, np.flip, np.transpose, np.reshape, np.ravel,
    np.squeeze, np.expand_dims, np.where, np.count_nonzero, np.unique,
})


def array_like(value):
    """`value` as NumPy's array_like conversion would see it, in the graph if needed (a
    list built inside a symbolic loop: its items stacked)."""
    if is_graph_list(value):
        return stack(value)
    if type(value) not in (list, tuple):
        return value
    return array_(np.asarray, value)
