"""Shape/dtype rules of the indexing ops (indexing.py): `getitem` and `index_update`.

The index is the op's static template (ints, slices, None, Ellipsis, and `Slot(k)` for
the k-th array input: a Tensor, constant array or symbolic slice bound). The result
shape follows NumPy's basic/advanced indexing rules, with None where a length is only
known at run time: a slice with a symbolic bound, an unknown dim, or a symbolic boolean
mask (its number of True values). Static problems (too many indices, a float index,
mask/index shapes that cannot match) raise NumPy's error while tracing; an index out of
bounds is a value error left to the kernel, so an unused op never raises.
"""
from __future__ import annotations

import operator

import numpy as np

from runtime.ops.rules_common import (
    broadcast_into, broadcast_shapes, dtype, ndim, shape, size, static_error,
)
from runtime.core.tensor import Tensor

_VALID = ("only integers, slices (`:`), ellipsis (`...`), numpy.newaxis (`None`) and integer "
          "or boolean arrays are valid indices")


class Slot:
    """The k-th array input of an indexing node, in its static index template."""
    __slots__ = ("k",)

    def __init__(self, k: int):
        self.k = k

    def __repr__(self) -> str:
        return f"Slot({self.k})"

    def __eq__(self, other):
        return isinstance(other, Slot) and other.k == self.k

    def __hash__(self):
        return hash(("Slot", self.k))


def _is_slot(t) -> bool:
    return isinstance(t, Slot)


def _slice_len(s: slice, d, dynamic) -> int | None:
    parts = []
    for p in (s.start, s.stop, s.step):
        if _is_slot(p):
            v = dynamic[p.k]
            if dtype(v).kind not in "iu" or ndim(v) != 0:
                raise static_error(TypeError, "only integer scalar arrays can be converted to "
                                   "a scalar index (a slice bound must be an integer)")
            if isinstance(v, Tensor):
                return None
            p = v
        parts.append(None if p is None else operator.index(p))
    if parts[2] == 0:
        raise static_error(ValueError, "slice step cannot be zero")
    if d is None:
        return None
    return len(range(*slice(*parts).indices(d)))


def _classify(template, dynamic):
    """Index items as ("new",), ("ellipsis",), ("slice", s), ("int",), or
    ("adv", consumed_dims, value) for array-like indices (value: the input or a bool)."""
    items = template if isinstance(template, tuple) else (template,)
    kinds = []
    for t in items:
        if t is None:
            kinds.append(("new",))
        elif t is Ellipsis:
            kinds.append(("ellipsis",))
        elif isinstance(t, slice):
            kinds.append(("slice", t))
        elif isinstance(t, (bool, np.bool_)):
            kinds.append(("adv", 0, bool(t)))
        elif isinstance(t, (int, np.integer)):
            kinds.append(("int",))
        elif _is_slot(t):
            v = dynamic[t.k]
            dt = dtype(v)
            if dt.kind == "b":
                kinds.append(("adv", ndim(v), v))
            elif dt.kind in "iu":
                kinds.append(("int",) if ndim(v) == 0 else ("adv", 1, v))
            else:
                raise static_error(IndexError, "arrays used as indices must be of integer (or "
                                   "boolean) type" if ndim(v) else _VALID)
        else:
            raise static_error(IndexError, _VALID)
    if sum(k[0] == "ellipsis" for k in kinds) > 1:
        raise static_error(IndexError, "an index can only have a single ellipsis ('...')")
    return kinds


def _adv_shape(kinds, dims_of) -> tuple:
    """Broadcast shape of the advanced indices (a mask counts as one 1-d index)."""
    shapes = []
    for i, k in enumerate(kinds):
        if k[0] == "int":
            shapes.append(())
        elif k[0] == "adv":
            v = k[2]
            if isinstance(v, bool):
                shapes.append((int(v),))
            elif dtype(v).kind == "b":
                shp = shape(v)
                # NumPy checks a mask's shape only when it is not empty (an empty one
                # selects nothing, whatever the dims): so only when its size is known
                checked = size(shp) not in (0, None)
                for j, (m, d) in enumerate(zip(shp, dims_of[i], strict=True)):
                    if checked and d is not None and m != d:
                        raise static_error(IndexError, "boolean index did not match indexed "
                                           f"array along axis {j}; size of axis is {d} but "
                                           f"size of corresponding boolean axis is {m}")
                count = 0 if size(shp) == 0 else None if isinstance(v, Tensor) else \
                    int(np.count_nonzero(v))
                shapes.append((count,))
            else:
                shapes.append(shape(v))
    return broadcast_shapes(*shapes, error=IndexError, message="shape mismatch: indexing "
                            "arrays could not be broadcast together with shapes")


def getitem_shape(xshape: tuple, template, dynamic) -> tuple:
    """The shape of x[index] for a static template and its inputs (None = unknown)."""
    kinds = _classify(template, dynamic)
    consumed = sum(1 if k[0] in ("slice", "int") else k[1] if k[0] == "adv" else 0
                   for k in kinds)
    if consumed > len(xshape):
        raise static_error(IndexError, f"too many indices for array: array is "
                           f"{len(xshape)}-dimensional, but {consumed} were indexed")
    rest = len(xshape) - consumed
    dims = iter(xshape)
    dims_of = []  # the x dims each item consumes
    for k in kinds:
        n = rest if k[0] == "ellipsis" else 1 if k[0] in ("slice", "int") else \
            k[1] if k[0] == "adv" else 0
        dims_of.append(tuple(next(dims) for _ in range(n)))
    trailing = tuple(dims)
    advanced = any(k[0] == "adv" for k in kinds)
    adv_pos = [i for i, k in enumerate(kinds) if k[0] == "adv" or (advanced and k[0] == "int")]
    adv = _adv_shape(kinds, dims_of) if advanced else ()
    adjacent = adv_pos == list(range(adv_pos[0], adv_pos[-1] + 1)) if adv_pos else True
    out: list = [] if adjacent else list(adv)
    placed = not adjacent
    for k, ds in zip(kinds, dims_of, strict=True):
        if k[0] == "new":
            out.append(1)
        elif k[0] == "ellipsis":
            out += ds
        elif k[0] == "slice":
            out.append(_slice_len(k[1], ds[0], dynamic))
        elif advanced and k[0] in ("adv", "int") and not placed:
            out += adv
            placed = True
    return tuple(out) + trailing


def getitem_rule(op, inputs, attrs):
    x, dynamic = inputs[0], inputs[1:]
    return [(getitem_shape(shape(x), attrs["index"], dynamic), dtype(x))]


def index_update_rule(op, inputs, attrs):
    x, value, dynamic = inputs[0], inputs[1], inputs[2:]
    xshape, xdt = shape(x), dtype(x)
    selected = getitem_shape(xshape, attrs["index"], dynamic)
    # `x[i] = v` drops leading 1s of v; np.add.at does not (and casts unsafely)
    if value is not None:  # (None: a unary ufunc's `.at`)
        broadcast_into(shape(value), selected, strict=attrs.get("mode") != "set")
    return [(xshape, xdt)]
