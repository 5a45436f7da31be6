"""Indexing: `x[i]`, `x[1:, None, ...]`, `x[idx_array]`, `x[mask]`, and functional updates.

The index is kept as a static template whose symbolic parts (Tensors used as an index
or as slice bounds) are replaced by `Slot(k)`, the k-th extra input of the node. The
kernel fills the slots back in; the code generator prints the index as Python
subscript syntax (`x[1:v3, None]`). Shape/dtype rules: indexing_rules.py.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from runtime.core.errors import where
from runtime.ops.indexing_rules import Slot, getitem_rule, index_update_rule  # noqa: F401 - Slot re-exported
from runtime.core.registry import OpDef, bind
from runtime.core.protocol import TensorProtocol
from runtime.core.tensor import StateHandle, Tensor
from runtime.ops.functions import resolve_variables


class IndexingHooks:
    """Filled by the layers above when they load (they build on this module):"""

    # runtime/state/views.py: (view, base, recipe) -> view; writes through x[i] reach x
    note_view = None
    # runtime/control_flow/lists.py: (xs, k) -> xs[k] for a list built in a symbolic loop
    list_get = None


def _template(index, dynamic: list):
    """Replace symbolic/array parts of an index by Slots, collecting them in `dynamic`."""
    if isinstance(index, tuple):
        return tuple(_template(i, dynamic) for i in index)
    if isinstance(index, slice):
        return slice(*(_template(p, dynamic) for p in (index.start, index.stop, index.step)))
    if isinstance(index, (Tensor, np.ndarray, list)) or _is_variable(index):
        if type(index) is list and _holds_nothing(index):
            index = np.empty(np.shape(index), np.intp)  # NumPy reads `[]` as an empty intp index
        dynamic.append(index)
        return Slot(len(dynamic) - 1)
    return index


def _holds_nothing(index: list) -> bool:
    """`[]`, `[[], []]`...: a list index with no element at any depth."""
    return all(type(i) is list and _holds_nothing(i) for i in index)


def _is_variable(x) -> bool:
    return isinstance(x, StateHandle)


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


def _reads_element(node) -> bool:
    """`x[i, j]` picking one element: NumPy returns a scalar copy (no view of `x`)."""
    out = node.outputs[0]
    return isinstance(out, Tensor) and out.ndim == 0 and \
        not is_basic_index(node.attrs["index"], node.inputs[1:], 0)


GETITEM = OpDef(
    "getitem", _getitem_kernel, getitem_rule,
    format=lambda gen, ins, attrs: f"{ins[0]}[{_format_index(gen, attrs['index'], ins[1:])}]",
    reads_element=lambda node: _reads_element(node),
)


def is_basic_index(template, dynamic, result_ndim: int) -> bool:
    """Whether `x[index]` is a view in NumPy (basic indexing that does not pick out a
    single element, which NumPy returns as a scalar copy)."""
    items = template if isinstance(template, tuple) else (template,)
    only_ints = True
    for t in items:
        if isinstance(t, Slot):
            v = dynamic[t.k]
            if not isinstance(v, (Tensor, np.ndarray)) or v.ndim != 0 or \
                    not np.issubdtype(v.dtype, np.integer):
                return False
        elif isinstance(t, slice):
            only_ints = False
            for p in (t.start, t.stop, t.step):
                if isinstance(p, Slot) and not isinstance(dynamic[p.k], (Tensor, np.generic,
                                                                        int, np.ndarray)):
                    return False
        elif t is None or t is Ellipsis:
            only_ints = False
        elif isinstance(t, (bool, np.bool_)) or not isinstance(t, (int, np.integer)):
            return False
    return not (only_ints and result_ndim == 0)


def getitem(x, index):
    if isinstance(x, Tensor) and x.dtype == np.dtype(object) and isinstance(index, (int, np.integer, Tensor)):
        # an object Tensor is a graph list: `xs[k]` of a list appended to in a symbolic loop
        return IndexingHooks.list_get(x, index)
    dynamic: list = []
    template = _template(index, dynamic)
    dynamic = resolve_variables(dynamic)
    out = bind(GETITEM, x, *dynamic, index=template)
    if isinstance(out, Tensor) and is_basic_index(template, dynamic, out.ndim):
        IndexingHooks.note_view(out, x, ("index", template, tuple(dynamic)))  # writes go through to x
    return out


def _index_update_kernel(x, value, *dynamic, index, mode):
    out = np.array(x, copy=True)
    idx = _fill(index, dynamic)
    if mode == "set":
        out[idx] = value
    elif value is None:  # a unary ufunc's `.at`
        getattr(np, mode).at(out, idx)
    else:  # `ufunc.at`: unbuffered, a repeated index applies again
        getattr(np, mode).at(out, idx, value)
    return out


def _emit_in_place(gen, node, indent: int) -> None:
    """`x[i] = v` (or `np.add.at`) on an array nobody else sees, instead of a copy per
    update: the executor calls this when the buffer plan owns input 0."""
    x, value, *dynamic = node.inputs
    name = gen.names[x]
    index = _format_index(gen, node.attrs["index"], [gen.expr(d) for d in dynamic])
    mode = node.attrs["mode"]
    if mode == "set":
        gen.emit(indent, f"{name}[{index}] = {gen.bare_expr(value)}", node)
    elif value is None:
        gen.emit(indent, f"np.{mode}.at({name}, np.s_[{index}])", node)
    else:
        gen.emit(indent, f"np.{mode}.at({name}, np.s_[{index}], {gen.bare_expr(value)})", node)


INDEX_UPDATE = OpDef("index_update", _index_update_kernel, index_update_rule, fresh_result=True,
                     emit_in_place=_emit_in_place)


def index_update(x: Any, index: Any, value: Any, mode: str = "set") -> Any:
    """A copy of `x` with `x[index] = value` (mode 'set'), or with NumPy's `ufunc.at`
    applied there, unbuffered (mode: the ufunc's name, 'add' for `np.add.at`; `value`
    None for a unary ufunc)."""
    if mode != "set" and not isinstance(getattr(np, mode, None), np.ufunc):
        raise ValueError(f"index_update mode must be 'set' or a ufunc's name, not {mode!r}"
                         f"{where()}")
    dynamic: list = []
    template = _template(index, dynamic)
    x, value, *dynamic = resolve_variables([x, value, *dynamic])
    return bind(INDEX_UPDATE, x, value, *dynamic, index=template, mode=mode)


TensorProtocol.getitem = getitem
TensorProtocol.index_update = index_update
