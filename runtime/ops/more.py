"""More NumPy functions in graphs: searching, order statistics, convolution, histogram as
op records (rules in more_rules.py, gradients in runtime/autodiff/more_rules.py), and the
functions NumPy itself builds from other functions (cumulative_sum, split, meshgrid,
block, select, polyval, kron, ...; cov and corrcoef in more_stats.py) as the same
compositions of existing ops, so their dtypes, shapes and gradients are those of the ops
they are made of.

Functions whose result shape depends on the values (nonzero, unique_*, bincount, ...)
raise a TypeError that says so: graphs have static shapes.
"""
from __future__ import annotations

import numpy as np

from runtime.core.errors import where
from runtime.ops import more_rules  # noqa: F401 - fills RULES before the ops register
from runtime.ops.functions import OPS, TABLE, _no_out, _rule, leading_arrays, resolve_variables
from runtime.core.registry import OpDef, bind
from runtime.ops.rules_common import (axis_index, broadcast_shapes, dtype, result_type, shape,
                                      static_error, static_int)
from runtime.core.tensor import Tensor


# the types of symbolic values: Tensor, and the value an eager tape watches (TapeValue,
# added by runtime/autodiff/tape.py when it loads)
SYMBOLIC_TYPES: tuple = (Tensor,)


def register_symbolic_type(cls: type) -> None:
    """Make values of `cls` symbolic (see `symbolic`)."""
    global SYMBOLIC_TYPES
    SYMBOLIC_TYPES = SYMBOLIC_TYPES + (cls,)


def symbolic(v) -> bool:
    """A graph value or a value an eager tape watches: it must stay in NumPy calls (which
    dispatch to the ops), never be converted with np.asarray."""
    return isinstance(v, SYMBOLIC_TYPES)

# -- op records ------------------------------------------------------------------------
leading_arrays(np.take_along_axis, 2)
for _fn in (np.searchsorted, np.digitize, np.convolve, np.correlate, np.percentile,
            np.quantile):
    leading_arrays(_fn, 2)
leading_arrays(np.interp, 3)
for _fn in (np.median, np.partition, np.argpartition):
    leading_arrays(_fn)

_searchsorted = TABLE.handlers[np.searchsorted]


@TABLE.register(np.searchsorted)
def _searchsorted_sorter(a, v, side="left", sorter=None):
    if symbolic(sorter) or (sorter is not None and symbolic(a)):
        a = np.take(a, sorter)  # what `sorter` means: search the sorted view of `a`
        sorter = None
    return _searchsorted(a, v, side=side) if sorter is None else \
        _searchsorted(a, v, side=side, sorter=sorter)


def _histogram_kernel(a, weights, **attrs):
    return np.histogram(a, weights=weights, **attrs)


HISTOGRAM = OpDef("histogram", _histogram_kernel, _rule("histogram"), num_outputs=2)
OPS["histogram"] = HISTOGRAM


@TABLE.register(np.histogram)
def _histogram(a, bins=10, range=None, density=None, weights=None):  # noqa: A002 - NumPy's
    attrs = {"bins": bins}
    for k, v in (("range", range), ("density", density)):
        if v is not None:
            attrs[k] = v
    if symbolic(bins) or symbolic(range):
        raise TypeError(f"np.histogram: `bins` and `range` must be static in graphs (they "
                        f"fix the number of bins){where()}; pass Python or NumPy values.")
    a, weights = resolve_variables([a, weights])
    return bind(HISTOGRAM, a, weights, **attrs)


# -- compositions ---------------------------------------------------------------------
def _cumulative(name, cum, initial):
    def handler(x, /, *, axis=None, dtype=None, out=None, include_initial=False):
        _no_out(name, {"out": out})
        (x,) = resolve_variables([x])
        if np.ndim(x) == 0:
            x = np.reshape(x, (1,))
        nd = np.ndim(x)
        if axis is None:
            if nd > 1:
                raise static_error(ValueError, "For arrays which have more than one dimension "
                                   "``axis`` argument is required.")
            axis = 0
        ax = axis_index(axis, nd)
        y = cum(x, axis=ax, dtype=dtype)
        if include_initial:  # the empty sum (product) first along the axis
            widths = tuple((1, 0) if d == ax else (0, 0) for d in range(nd))
            y = np.pad(y, widths, constant_values=initial)
        return y
    TABLE.handlers[getattr(np, name)] = handler


_cumulative("cumulative_sum", np.cumsum, 0)
_cumulative("cumulative_prod", np.cumprod, 1)


def _axis_length(x, axis, name) -> tuple[int, int]:
    ax = axis_index(axis, np.ndim(x))
    n = shape(x)[ax]
    if n is None:
        raise static_error(ValueError, f"np.{name}: the length of axis {ax} is unknown while "
                           f"tracing {shape(x)}, and the number of results depends on it; give "
                           "that dimension a fixed size")
    return ax, n


def _slices(x, ax, bounds):
    lead = (slice(None),) * ax
    return [x[lead + (slice(lo, hi),)] for lo, hi in zip(bounds[:-1], bounds[1:], strict=True)]


@TABLE.register(np.unstack)
def _unstack(x, /, *, axis=0):
    (x,) = resolve_variables([x])
    if np.ndim(x) == 0:
        raise static_error(ValueError, "Input array must be at least 1-d.")
    ax, n = _axis_length(x, axis, "unstack")
    lead = (slice(None),) * ax
    return tuple(x[lead + (i,)] for i in range(n))


def _split(name):
    def handler(ary, indices_or_sections, axis=0):
        (ary,) = resolve_variables([ary])
        if symbolic(indices_or_sections):
            raise TypeError(f"np.{name}: the split points must be static in graphs{where()}")
        ax, n = _axis_length(ary, axis, name)
        if np.ndim(indices_or_sections) == 0:
            k = static_int(indices_or_sections, "the number of sections")
            if k <= 0:
                raise static_error(ValueError, "number sections must be larger than 0.")
            if name == "split" and n % k:
                raise static_error(ValueError, "array split does not result in an equal "
                                   "division")
            each, extra = divmod(n, k)
            sizes = [each + 1] * extra + [each] * (k - extra)
            bounds = [0]
            for s in sizes:
                bounds.append(bounds[-1] + s)
        else:
            bounds = [0] + [static_int(i, "a split index") for i in indices_or_sections] + [n]
        return _slices(ary, ax, bounds)
    TABLE.handlers[getattr(np, name)] = handler


_split("split")
_split("array_split")


def _split_along(name: str, min_ndim: int, axis_of):
    """np.hsplit / vsplit / dsplit: np.split along a fixed axis (pieces are views)."""
    def handler(ary, indices_or_sections):
        (ary,) = resolve_variables([ary])
        if np.ndim(ary) < min_ndim:
            raise static_error(ValueError, f"{name} only works on arrays of {min_ndim} or "
                               "more dimensions")
        split = TABLE.handlers[np.split]
        return split(ary, indices_or_sections, axis=axis_of(np.ndim(ary)))
    TABLE.handlers[getattr(np, name)] = handler


_split_along("hsplit", 1, lambda nd: 1 if nd > 1 else 0)
_split_along("vsplit", 2, lambda nd: 0)
_split_along("dsplit", 3, lambda nd: 2)


@TABLE.register(np.meshgrid)
def _meshgrid(*xi, copy=True, sparse=False, indexing="xy"):
    if indexing not in ("xy", "ij"):
        raise static_error(ValueError, "Valid values for `indexing` are 'xy' and 'ij'.")
    xi = resolve_variables(xi)
    nd = len(xi)
    shapes = [(-1,) + (1,) * (nd - 1 - i) for i in range(nd)]
    shapes = [(1,) * i + s for i, s in enumerate(shapes)]
    if indexing == "xy" and nd > 1:
        shapes[0], shapes[1] = ((1, -1) + shapes[0][2:]), ((-1, 1) + shapes[1][2:])
    out = [np.reshape(x, s) for x, s in zip(xi, shapes, strict=True)]
    if not sparse:
        out = np.broadcast_arrays(*out)
    return tuple(out)


@TABLE.register(np.block)
def _block(arrays):
    def depth(x):
        return 1 + max((depth(y) for y in x), default=0) if isinstance(x, list) else 0

    def leaves(x):
        return [v for y in x for v in leaves(y)] if isinstance(x, list) else [x]

    if isinstance(arrays, tuple):
        raise static_error(TypeError, "arrays is a tuple. Only lists can be used to arrange "
                           "blocks, and np.block does not allow implicit conversion from tuple "
                           "to ndarray.")
    levels = depth(arrays)
    nd = max([levels] + [np.ndim(v) for v in leaves(arrays)])

    def build(x, level):
        if not isinstance(x, list):
            (x,) = resolve_variables([x])
            pad = nd - np.ndim(x)
            return np.reshape(x, (1,) * pad + shape(x)) if pad else x
        parts = [build(y, level + 1) for y in x]
        return np.concatenate(parts, axis=level - levels)
    return build(arrays, 0)


@TABLE.register(np.select)
def _select(condlist, choicelist, default=0):
    if len(condlist) != len(choicelist):
        raise static_error(ValueError, "list of cases must be same length as list of "
                           "conditions")
    if not condlist:
        raise static_error(ValueError, "select with an empty condition list is not possible")
    conds = resolve_variables(list(condlist))
    choices = resolve_variables(list(choicelist)) + resolve_variables([default])
    for i, c in enumerate(conds):
        if dtype(c).kind != "b":
            raise static_error(TypeError, f"invalid entry {i} in condlist: should be boolean "
                               "ndarray")
    dt = result_type(*choices)
    out = np.broadcast_to(choices[-1], _select_shape(conds, choices))
    for c, v in zip(reversed(conds), reversed(choices[:-1]), strict=True):
        out = np.where(c, v, out)
    return out if _same_dtype(out, dt) else np.astype(out, dt)


def _same_dtype(v, dt) -> bool:
    return (symbolic(v) or isinstance(v, np.ndarray)) and v.dtype == dt


def _select_shape(conds, choices):
    target = broadcast_shapes(*(shape(v) for v in conds + choices))
    if None in target:
        raise TypeError(f"np.select with unknown dimensions is not supported{where()}")
    return target


@TABLE.register(np.polyval)
def _polyval(p, x):
    p, x = resolve_variables([p, x])
    if isinstance(p, (list, tuple)):
        p = np.asarray(p) if not any(symbolic(c) for c in p) else np.stack(p)
    p = p if symbolic(p) else np.asarray(p)
    x = x if symbolic(x) else np.asarray(x)
    n = shape(p)[0] if np.ndim(p) else None
    if n is None:
        raise static_error(TypeError, "np.polyval needs coefficients of a fixed length in "
                           "graphs")
    y = np.zeros_like(x)
    for i in range(n):  # Horner's rule, as NumPy writes it
        y = y * x + p[i]
    return y


@TABLE.register(np.kron)
def _kron(a, b):
    a, b = resolve_variables([a, b])
    nd = max(np.ndim(a), np.ndim(b))
    sa = (1,) * (nd - np.ndim(a)) + tuple(shape(a))
    sb = (1,) * (nd - np.ndim(b)) + tuple(shape(b))
    if None in sa + sb:
        raise static_error(TypeError, f"np.kron needs fixed shapes in graphs, got {shape(a)} "
                           f"and {shape(b)}")
    ia = tuple(d for k in sa for d in (k, 1))
    ib = tuple(d for k in sb for d in (1, k))
    prod = np.multiply(np.reshape(a, ia), np.reshape(b, ib))
    return np.reshape(prod, tuple(x * y for x, y in zip(sa, sb, strict=True)))

