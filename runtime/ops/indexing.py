"""Indexing: `x[i]`, `x[1:, None, ...]`, `x[idx_array]`, `x[mask]`, and functional updates.

The index is kept as a static template whose symbolic parts (Tensors used as an index
or as slice bounds) are replaced by `Slot(k)`, the k-th extra input of the node. The
kernel fills the slots back in; the code generator prints the index as Python
subscript syntax (`x[1:v3, None]`).
"""
from __future__ import annotations

from typing import Any

import numpy as np

from runtime.errors import where
from runtime.ops.registry import OpDef, bind, eval_by_example, zeros_example
from runtime.tensor import Tensor


class Slot:
    __slots__ = ("k",)

    def __init__(self, k: int):
        self.k = k

    def __repr__(self) -> str:
        return f"Slot({self.k})"

    def __eq__(self, other):
        return isinstance(other, Slot) and other.k == self.k

    def __hash__(self):
        return hash(("Slot", self.k))


def _template(index, dynamic: list):
    """Replace symbolic/array parts of an index by Slots, collecting them in `dynamic`."""
    if isinstance(index, tuple):
        return tuple(_template(i, dynamic) for i in index)
    if isinstance(index, slice):
        return slice(*(_template(p, dynamic) for p in (index.start, index.stop, index.step)))
    if isinstance(index, (Tensor, np.ndarray, list)) or _is_variable(index):
        dynamic.append(index)
        return Slot(len(dynamic) - 1)
    return index


def _is_variable(x) -> bool:
    from runtime.variables import Variable

    return isinstance(x, Variable)


def _fill(template, values):
    if isinstance(template, tuple):
        return tuple(_fill(i, values) for i in template)
    if isinstance(template, slice):
        return slice(*(_fill(p, values) for p in (template.start, template.stop, template.step)))
    if isinstance(template, Slot):
        return values[template.k]
    return template


def _getitem_kernel(x, *dynamic, index):
    return x[_fill(index, dynamic)]


def _format_index(gen, template, exprs) -> str:
    def one(t):
        if isinstance(t, Slot):
            return exprs[t.k]
        if isinstance(t, slice):
            parts = ["" if p is None else one(p) for p in (t.start, t.stop, t.step)]
            text = f"{parts[0]}:{parts[1]}"
            return text + (f":{parts[2]}" if parts[2] else "")
        if t is Ellipsis:
            return "..."
        return gen.lit(t)

    if isinstance(template, tuple):
        if not template:
            return "()"
        return ", ".join(one(t) for t in template) + ("," if len(template) == 1 else "")
    return one(template)


def _getitem_abstract_eval(op, inputs, attrs):
    x, dynamic, template = inputs[0], inputs[1:], attrs["index"]
    bounds = {id(v) for v in _slice_parts(template, dynamic)}

    def example(v, size):  # a symbolic slice bound stands in as 1: a valid start/stop/step
        if id(v) in bounds:
            return np.ones((), v.dtype)
        return zeros_example(v, size)

    (shape, dtype), = eval_by_example(op, inputs, attrs, example=example)
    unknown = _unknown_output_axes(template, dynamic, len(x.shape) if isinstance(x, Tensor)
                                   else np.ndim(x))
    if unknown is None or len(unknown) != len(shape):
        return [((None,) * len(shape), dtype)] if bounds or _masks(dynamic) else [(shape, dtype)]
    return [(tuple(None if u else d for d, u in zip(shape, unknown, strict=True)), dtype)]


def _masks(dynamic) -> list:
    return [v for v in dynamic if isinstance(v, Tensor) and v.dtype == bool]


def _slice_parts(template, dynamic) -> list:
    """The symbolic values used as slice start/stop/step in the index."""
    items = template if isinstance(template, tuple) else (template,)
    return [dynamic[p.k] for t in items if isinstance(t, slice)
            for p in (t.start, t.stop, t.step)
            if isinstance(p, Slot) and isinstance(dynamic[p.k], Tensor)]


def _unknown_output_axes(template, dynamic, ndim):
    """Per output axis, True when its length depends on run-time values: it comes from a
    slice with a symbolic bound, or from advanced indexing with a symbolic boolean mask.
    None when the index is too unusual to map (callers then treat every axis as unknown).
    """
    items = template if isinstance(template, tuple) else (template,)
    kinds = []  # ("new",) ("ellipsis",) ("slice", unknown) ("int",) ("adv", consumed, ndim)
    mask = False
    for t in items:
        if t is None:
            kinds.append(("new",))
        elif t is Ellipsis:
            kinds.append(("ellipsis",))
        elif isinstance(t, slice):
            kinds.append(("slice", any(isinstance(p, Slot) and isinstance(dynamic[p.k], Tensor)
                                       for p in (t.start, t.stop, t.step))))
        elif isinstance(t, Slot):
            v = dynamic[t.k]
            dt, nd = (v.dtype, v.ndim) if isinstance(v, Tensor) else (np.asarray(v).dtype,
                                                                    np.ndim(v))
            if dt.kind == "b":
                mask = mask or isinstance(v, Tensor)
                kinds.append(("adv", nd, 1))
            else:
                kinds.append(("adv", 1, nd))
        elif isinstance(t, (int, np.integer)) and not isinstance(t, (bool, np.bool_)):
            kinds.append(("int",))
        else:
            return None
    advanced = [i for i, k in enumerate(kinds) if k[0] == "adv"]
    if advanced:  # integers next to advanced indices are advanced indices too
        kinds = [("adv", 1, 0) if k[0] == "int" else k for k in kinds]
        advanced = [i for i, k in enumerate(kinds) if k[0] == "adv"]
    consumed = sum(1 if k[0] in ("slice", "int") else k[1] if k[0] == "adv" else 0
                   for k in kinds)
    rest = ndim - consumed
    if rest < 0 or sum(k[0] == "ellipsis" for k in kinds) > 1:
        return None
    adv_dims = [mask] * max((kinds[i][2] for i in advanced), default=0)
    adjacent = advanced == list(range(advanced[0], advanced[-1] + 1)) if advanced else True
    out = [] if adjacent else list(adv_dims)
    placed = not adjacent
    for k in kinds:
        if k[0] == "new":
            out.append(False)
        elif k[0] == "ellipsis":
            out += [False] * rest
            rest = 0
        elif k[0] == "slice":
            out.append(k[1])
        elif k[0] == "adv" and not placed:
            out += adv_dims
            placed = True
    return out + [False] * rest


GETITEM = OpDef(
    "getitem", _getitem_kernel, _getitem_abstract_eval,
    format=lambda gen, ins, attrs: f"{ins[0]}[{_format_index(gen, attrs['index'], ins[1:])}]",
)


def getitem(x, index):
    if isinstance(x, Tensor) and x.dtype == np.dtype(object) and isinstance(index, (int, np.integer, Tensor)):
        from runtime.lists import is_list, list_get

        if is_list(x):  # `xs[k]` of a list appended to in a symbolic loop
            return list_get(x, index)
    dynamic: list = []
    template = _template(index, dynamic)
    from runtime.ops.functions import resolve_variables

    return bind(GETITEM, x, *resolve_variables(dynamic), index=template)


def _index_update_kernel(x, value, *dynamic, index, mode):
    out = np.array(x, copy=True)
    idx = _fill(index, dynamic)
    if mode == "set":
        out[idx] = value
    elif mode == "add":
        np.add.at(out, idx, value)
    else:
        raise ValueError(f"unknown index_update mode {mode!r}")
    return out


def _index_update_abstract_eval(op, inputs, attrs):
    x = inputs[0]
    shape = x.shape if isinstance(x, Tensor) else np.shape(x)
    dtype = x.dtype if isinstance(x, Tensor) else np.asarray(x).dtype
    dynamic = inputs[2:]
    if not _slice_parts(attrs["index"], dynamic) and not _masks(dynamic):
        # checks the index and value fit; with symbolic slice bounds or masks the number
        # of selected elements is only known at run time
        eval_by_example(op, inputs, attrs)
    return [(shape, dtype)]


INDEX_UPDATE = OpDef("index_update", _index_update_kernel, _index_update_abstract_eval)


def index_update(x: Any, index: Any, value: Any, mode: str = "set") -> Any:
    """A copy of `x` with `x[index] = value` (mode 'set') or `+= value` (mode 'add')."""
    if mode not in ("set", "add"):
        raise ValueError(f"index_update mode must be 'set' or 'add', not {mode!r}{where()}")
    dynamic: list = []
    template = _template(index, dynamic)
    from runtime.ops.functions import resolve_variables

    x, value, *dynamic = resolve_variables([x, value, *dynamic])
    return bind(INDEX_UPDATE, x, value, *dynamic, index=template, mode=mode)
