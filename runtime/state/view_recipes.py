"""How a view of a symbolic array is taken from its base and written back into it, and
which NumPy calls return views (runtime/state/views.py keeps which Tensor is a view of which).

A recipe is a tuple whose first item names its kind:

  ("index", template, dynamic)   basic indexing `x[1:, i]`: read = getitem, write back =
                                 index update
  ("transpose", axes)            a permutation of the axes (`x.T`, swapaxes, moveaxis)
  ("unit", drop, add)            only unit axes removed / inserted (squeeze, expand_dims,
                                 atleast_*d, `x.real` of a real array, a reshape that only
                                 changes unit axes): always a view in NumPy
  ("layout", what)               reshape / ravel: a view or a copy depending on the memory
                                 layout, which a trace does not know (views.py refuses)
  ("readonly", what, func, args, kwargs)   a read-only view (np.diagonal, np.broadcast_to,
                                 `x.imag` of a real array): reads follow the base, a write
                                 raises NumPy's ValueError
  ("part", what, func)           `x.real` / `x.imag` of a complex array: reads follow the
                                 base; a write is refused (no graph op sets one part alone)
  ("bytes", dtype)               `x.view(dtype)` (same item size): reads follow the base; a
                                 write is refused
  ("strided", what, func, args, kwargs)   `as_strided(..., writeable=True)`: reads follow
                                 the base; a write is refused (NumPy's memory-level write)
"""
from __future__ import annotations

from typing import Any

import numpy as np

from runtime.core.errors import where
from runtime.core.registry import bind
from runtime.ops.functions import dispatch_function
from runtime.ops.indexing import GETITEM, INDEX_UPDATE

WRITABLE = ("index", "transpose", "unit")


def apply(recipe: tuple, base: Any) -> Any:
    """The view `recipe` describes, taken from `base` (the base's current value)."""
    kind = recipe[0]
    if kind == "index":
        return bind(GETITEM, base, *recipe[2], index=recipe[1])
    if kind == "transpose":
        return dispatch_function(np.transpose, (base, recipe[1]), {})
    if kind == "unit":
        return _unit(base, recipe[1], recipe[2])
    if kind in ("readonly", "strided"):
        return dispatch_function(recipe[2], (base,) + recipe[3], recipe[4])
    if kind == "part":
        return dispatch_function(recipe[2], (base,), {})
    if kind == "bytes":
        return dispatch_function(np.ndarray.view, (base, recipe[1]), {})
    raise AssertionError(f"no reading rule for a {kind!r} view")


def unapply(recipe: tuple, base: Any, value: Any) -> Any:
    """`base` with the view `recipe` describes replaced by `value` (writable kinds only)."""
    kind = recipe[0]
    if kind == "index":
        return bind(INDEX_UPDATE, base, value, *recipe[2], index=recipe[1], mode="set")
    if kind == "transpose":
        inverse = tuple(int(i) for i in np.argsort(recipe[1]))
        return dispatch_function(np.transpose, (value, inverse), {})
    if kind == "unit":
        return _unit(value, recipe[2], recipe[1])
    raise AssertionError(f"no write-back rule for a {kind!r} view")


def _unit(x: Any, drop: tuple, add: tuple) -> Any:
    if drop:
        x = dispatch_function(np.squeeze, (x,), {"axis": drop})
    if add:
        x = dispatch_function(np.expand_dims, (x,), {"axis": add})
    return x


def refusal(recipe: tuple, written: str) -> str | None:
    """Why a write through a view of this kind cannot happen (None: it can); `written`
    names the written array as NumPy's error does ("assignment destination", ...)."""
    kind = recipe[0]
    if kind == "readonly":
        return (f"{written} is read-only{where()}: {recipe[1]} returns a "
                "read-only view in NumPy, so writing through it raises there too. Write into "
                "the array itself (e.g. `x[idx] = ...`, with np.diag_indices for a "
                "diagonal), or take a copy (`.copy()`) to get a writable array.")
    if kind == "part":
        return (f"Writing through {recipe[1]} of a complex array is not supported in graphs"
                f"{where()}: NumPy writes one part of each element in place, which the graph "
                "has no operation for. Build the new array and assign it to the array "
                "itself, e.g. `x[...] = new_real + 1j * x.imag` (which differs from NumPy "
                "only where a part is infinite), or write the array on the NumPy side.")
    if kind == "strided":
        return (f"Writing through np.lib.stride_tricks.as_strided(...) is not supported in "
                f"graphs{where()}: NumPy writes into the memory of the array it views, where "
                "overlapping elements share one place, which the graph has no operation for. "
                "Write into the array itself, or pass `writeable=False` (a read-only view, "
                "as NumPy's documentation advises).")
    if kind == "bytes":
        return (f"Writing through `x.view({np.dtype(recipe[1]).name})` is not supported in "
                f"graphs{where()}: NumPy writes the bytes into `x`, which the graph has no "
                "operation for. Write into `x` itself (`x[i] = v.view(x.dtype)`), or take a "
                "copy (`x.view(dtype).copy()`) if `x` must not change.")
    return None


# -- which NumPy calls return views -------------------------------------------------------
_UNIT = ("squeeze", "expand_dims", "atleast_1d", "atleast_2d", "atleast_3d")
_PERMUTE = ("transpose", "swapaxes", "moveaxis", "matrix_transpose", "permute_dims")
_READONLY = ("diagonal", "broadcast_to")  # (and as_strided(..., writeable=False))


def recipe_of(func, args: tuple, kwargs: dict, result) -> tuple | None:
    """The view recipe of `result = func(*args, **kwargs)` (a NumPy function on the Tensor
    args[0]); None when NumPy returns a new array."""
    name = getattr(func, "__name__", "")
    base = args[0]
    if name in _PERMUTE:
        dims = tuple(range(2, base.ndim + 2))  # distinct sizes: the result's shape is the perm
        probe = func(np.broadcast_to(np.empty(()), dims), *args[1:], **kwargs)
        return ("transpose", tuple(d - 2 for d in probe.shape))
    if name in _UNIT or name == "reshape":
        unit = _unit_change(base.static_shape, result.static_shape, strict=name == "reshape")
        if unit is not None:
            return unit
        return ("layout", f"`{name}`")
    if name in ("ravel", "ascontiguousarray"):
        return ("layout", f"`{name}`")
    if name in ("asarray", "asanyarray", "array"):  # of a 0-d value of unknown kind
        return ("layout", f"`np.{name}` of a 0-d value", "the value is a 0-d array (not a "
                "NumPy scalar) when the function runs")
    if name in _READONLY:
        return ("readonly", f"`np.{name}`", func, tuple(args[1:]), dict(kwargs))
    if func is np.lib.stride_tricks.as_strided:
        kind = "readonly" if not _writeable(args, kwargs) else "strided"
        return (kind, "`as_strided(..., writeable=False)`", func, tuple(args[1:]), dict(kwargs))
    if func is np.ndarray.view:
        return ("bytes", np.dtype(args[1]))
    if name in ("real", "imag"):
        if base.dtype.kind == "c":
            return ("part", f"`x.{name}`", func)
        if name == "real":  # the array itself
            return ("unit", (), ())
        return ("readonly", "`x.imag` of a real array", func, (), {})
    return None


def _writeable(args: tuple, kwargs: dict) -> bool:
    return bool(kwargs.get("writeable", args[4] if len(args) > 4 else True))


def _unit_change(before: tuple, after: tuple, strict: bool) -> tuple | None:
    """("unit", drop, add) when `after` is `before` with only unit axes removed or
    inserted; None otherwise (or when unknown dimensions make it uncertain and `strict`)."""
    core_b = [d for d in before if d != 1]
    core_a = [d for d in after if d != 1]
    if core_b != core_a or (strict and None in core_b):
        return None
    return ("unit", tuple(i for i, d in enumerate(before) if d == 1),
            tuple(i for i, d in enumerate(after) if d == 1))
