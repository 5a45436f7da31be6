"""More NumPy functions in graphs, part 2: cov and corrcoef (NumPy's own compositions),
np.size and np.can_cast on symbolic values, the array forms of arguments other ops take
statically (diff's prepend/append, pad's constant_values), and clear errors for the
functions whose result shape depends on the values (nonzero, unique_*, bincount, a
symbolic repeats), which graphs with static shapes cannot express.
"""
from __future__ import annotations

import numpy as np

from runtime.core.errors import where
from runtime.ops import shaping  # noqa: F401 - the np.diff / np.pad / np.repeat handlers wrapped here
from runtime.ops.functions import TABLE, resolve_variables
from runtime.ops.more import symbolic
from runtime.ops.rules_common import (axes_tuple, axis_index, result_type, shape, size,
                                      static_error)
from runtime.core.tensor import Tensor


def _covariance(m, y, rowvar, bias, ddof, dtype, name):
    m, y = resolve_variables([m, y])
    if ddof is not None and ddof != int(ddof):
        raise static_error(ValueError, "ddof must be integer")
    for v, what in ((m, "m"), (y, "y")):
        if v is not None and np.ndim(v) > 2:
            raise static_error(ValueError, f"{what} has more than 2 dimensions")
    if dtype is None:
        dtype = result_type(*(v for v in (m, y) if v is not None), np.dtype(np.float64))

    def rows(v, transpose):
        v = np.astype(v, dtype) if symbolic(v) else np.asarray(v, dtype)
        if np.ndim(v) < 2:
            v = np.reshape(v, (1, -1))
        elif transpose:
            v = np.transpose(v)
        return v

    x = rows(m, not rowvar and np.ndim(m) != 1)
    if shape(x)[0] == 0:
        return np.array([]).reshape(0, 0)
    if y is not None:
        yr = rows(y, False)
        if not rowvar and shape(yr)[0] != 1:
            yr = np.transpose(yr)
        x = np.concatenate((x, yr), axis=0)
    n = shape(x)[1]
    if n is None:
        raise static_error(TypeError, f"np.{name} needs a fixed number of observations in "
                           f"graphs, got shape {shape(x)}")
    if ddof is None:
        ddof = 0 if bias else 1
    fact = n - ddof
    if fact <= 0:
        raise static_error(ValueError, f"np.{name}: degrees of freedom <= 0 ({n} observations, "
                           f"ddof={ddof}); NumPy warns and returns inf/nan, which a graph "
                           "does not reproduce")
    xc = x - np.mean(x, axis=1)[:, None]
    xt = np.transpose(xc)
    c = np.dot(xc, np.conj(xt) if np.dtype(dtype).kind == "c" else xt)
    return np.squeeze(c * (1.0 / fact))


@TABLE.register(np.cov)
def _cov(m, y=None, rowvar=True, bias=False, ddof=None, fweights=None, aweights=None, *,
         dtype=None):
    if fweights is not None or aweights is not None:
        raise TypeError(f"np.cov(..., fweights=/aweights=) is not supported in graphs{where()}; "
                        "weight the observations yourself (np.mean / np.dot)")
    return _covariance(m, y, rowvar, bias, ddof, dtype, "cov")


@TABLE.register(np.corrcoef)
def _corrcoef(x, y=None, rowvar=True, *, dtype=None):
    c = _covariance(x, y, rowvar, False, None, dtype, "corrcoef")
    if c.dtype.kind == "c":
        raise TypeError(f"np.corrcoef of complex values is not supported in graphs{where()}")
    if np.ndim(c) == 0:
        return c / c
    stddev = np.sqrt(np.diagonal(c))
    c = c / stddev[:, None]
    c = c / stddev[None, :]
    return np.clip(c, -1, 1)


@TABLE.register(np.size)
def _size(a, axis=None):
    shp = shape(a)
    dims = shp if axis is None else tuple(shp[i] for i in axes_tuple(axis, len(shp)))
    n = size(dims)
    if n is None:
        raise static_error(TypeError, f"np.size of a Tensor with unknown dimensions {shp}; "
                           "use runtime.shape_of(x) for the run-time shape.")
    return n


@TABLE.register(np.can_cast)
def _can_cast(from_, to, casting="safe"):
    if isinstance(to, Tensor):
        raise static_error(TypeError, "can_cast() does not support a Tensor as `to`: give a "
                           "dtype")
    return np.can_cast(from_.dtype if isinstance(from_, Tensor) else from_, to, casting)


# -- array forms of arguments other ops take statically ---------------------------------
_diff = TABLE.handlers[np.diff]


@TABLE.register(np.diff)
def _diff_arrays(a, n=1, axis=-1, prepend=np._NoValue, append=np._NoValue):
    if not symbolic(prepend) and not symbolic(append):
        extra = {k: v for k, v in (("prepend", prepend), ("append", append))
                 if v is not np._NoValue}
        return _diff(a, n=n, axis=axis, **extra)
    (a,) = resolve_variables([a])
    if np.ndim(a) == 0:
        raise static_error(ValueError, "diff requires input that is at least one dimensional")
    ax = axis_index(axis, np.ndim(a))
    parts = [a]
    for v, first in ((prepend, True), (append, False)):  # joined to `a` first, as NumPy does
        if v is np._NoValue:
            continue
        (v,) = resolve_variables([v])
        if np.ndim(v) == 0:
            target = tuple(1 if i == ax else d for i, d in enumerate(shape(a)))
            if None in target:
                raise static_error(TypeError, f"np.diff with a scalar prepend/append needs "
                                   f"the other dimensions fixed, got {shape(a)}")
            v = np.broadcast_to(v, target)
        parts.insert(0, v) if first else parts.append(v)
    return _diff(np.concatenate(parts, axis=ax), n=n, axis=ax)


_pad = TABLE.handlers[np.pad]


@TABLE.register(np.pad)
def _pad_value(array, pad_width, mode="constant", **kwargs):
    value = kwargs.get("constant_values")
    if not symbolic(value):
        return _pad(array, pad_width, mode, **kwargs)
    if mode != "constant" or set(kwargs) != {"constant_values"}:
        raise TypeError(f"np.pad: a symbolic constant_values needs mode='constant' and no "
                        f"other options{where()}")
    if size(shape(value)) != 1:
        raise TypeError(f"np.pad: a symbolic constant_values must be one value (shape "
                        f"{shape(value)} given){where()}; pad each side in its own np.pad "
                        "call, or pass the values as constants")
    (array,) = resolve_variables([array])
    padded = _pad(array, pad_width, mode)
    inside = _pad(np.ones_like(array, dtype=bool), pad_width, mode)  # False in the padding
    fill = np.astype(np.reshape(value, ()), array.dtype if symbolic(array)
                     else np.asarray(array).dtype)
    return np.where(inside, padded, fill)


_repeat = TABLE.handlers[np.repeat]


@TABLE.register(np.repeat)
def _repeat_static(a, repeats, axis=None):
    if symbolic(repeats):
        raise TypeError(f"np.repeat with repeats computed in the graph{where()}: the result's "
                        "length is the sum of the repeats, a shape that depends on values, "
                        "which graphs (static shapes) cannot express. Pass repeats as a Python "
                        "or NumPy constant.")
    return _repeat(a, repeats, axis=axis)


# -- shapes that depend on values -------------------------------------------------------
def _data_dependent(name):
    def handler(*args, **kwargs):
        raise TypeError(f"np.{name} is not supported in graphs (called on a symbolic Tensor"
                        f"{where()}): the shape of its result depends on the values, and graph "
                        "shapes are static. Compute it outside the decorated function, or use "
                        "a fixed-size form such as np.where(cond, x, y) or a mask.")
    return handler


for _name in ("nonzero", "flatnonzero", "argwhere", "unique", "unique_values",
              "unique_counts", "unique_inverse", "unique_all", "bincount", "extract",
              "compress", "trim_zeros"):
    if getattr(np, _name, None) is not None and getattr(np, _name) not in TABLE.handlers:
        TABLE.handlers[getattr(np, _name)] = _data_dependent(_name)
