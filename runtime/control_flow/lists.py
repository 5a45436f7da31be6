"""Graph lists: a Python list appended to inside a symbolic loop, then stacked.

A list is a graph value of dtype `object` and shape `()` (at run time: a Python list).
`list_append` appends in place and returns the same list — the converted code always
rebinds the variable (`xs = list_append(xs, x)`), which is Python's own aliasing.
`list_stack` gives an array of shape `(None,) + element shape`; the element's shape
and dtype are found by following the list back to its appends.

    xs = runtime.list_new()
    i, xs = runtime.while_loop(lambda i, xs: i < n,
                               lambda i, xs: (i + 1, runtime.list_append(xs, x * i)), (0, xs))
    runtime.list_stack(xs)          # float64[?, 3]
"""
from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from runtime.core import tracing
from runtime.core.errors import where
from runtime.core.registry import OpDef, bind
from runtime.core.tensor import Tensor, _fmt_shape
from runtime.ops.indexing import IndexingHooks, index_update

LIST_DTYPE = np.dtype(object)


def _new_kernel():
    return []


def _append_kernel(xs, x):
    xs.append(x)
    return xs, np.int64(len(xs) - 1)  # the list, and where x went (for its gradient)


def _stack_kernel(xs):
    if not xs:
        raise ValueError("cannot stack an empty list (the loop appended nothing)")
    return np.stack(xs)


def _copy_kernel(xs):
    return list(xs)


def _get_kernel(xs, k):
    return xs[int(k)]


def _get_eval(op, inputs, attrs):
    elem = element_aval(inputs[0])
    if elem is None:
        raise ValueError(
            f"Cannot read from a list to which nothing is appended{where()}: a list that a "
            "symbolic loop carries is a graph list, whose items are only known from what "
            "the loop appends. Read the item before the loop, or keep the values in an "
            "array (`np.array(...)`) instead of a list.")
    return [elem]


def _zeros_kernel(xs, *, shape, dtype):
    return np.zeros((len(xs),) + shape, dtype)


def _zeros_eval(op, inputs, attrs):
    return [((None,) + attrs["shape"], np.dtype(attrs["dtype"]))]


def _len_kernel(xs):
    return np.int64(len(xs))


def _append_eval(op, inputs, attrs):
    xs, x = inputs
    known = element_aval(xs)
    new = (x.shape, x.dtype) if isinstance(x, Tensor) else (np.shape(x), np.asarray(x).dtype)
    if known is not None and known != new:
        raise ValueError(
            f"A list gets elements of different shapes or dtypes{where()}: "
            f"{known[1]}{_fmt_shape(known[0])} and {new[1]}{_fmt_shape(new[0])}. "
            "Stacking needs every element to have the same shape and dtype.")
    return [((), LIST_DTYPE), ((), np.dtype(np.int64))]


def _stack_eval(op, inputs, attrs):
    elem = element_aval(inputs[0])
    if elem is None:
        raise ValueError(f"Cannot stack a list to which nothing is appended{where()}.")
    return [((None,) + tuple(elem[0]), elem[1])]


LIST_NEW = OpDef("list_new", _new_kernel, lambda op, i, a: [((), LIST_DTYPE)], stateful=True)
LIST_APPEND = OpDef("list_append", _append_kernel, _append_eval, num_outputs=2, stateful=True,
                    effect=True, appends_in_place=True)
# Saves a loop's state for its gradient (like list_append; a gradient replay skips it).
SAVE_STATE = OpDef("save_state", _append_kernel, _append_eval, num_outputs=2, stateful=True,
                   effect=True, appends_in_place=True, saves_for_gradient=True)
LIST_STACK = OpDef("list_stack", _stack_kernel, _stack_eval, stateful=True)
LIST_COPY = OpDef("list_copy", _copy_kernel, lambda op, i, a: [((), LIST_DTYPE)], stateful=True)
LIST_GET = OpDef("list_get", _get_kernel, _get_eval, stateful=True)
LIST_ZEROS = OpDef("list_zeros", _zeros_kernel, _zeros_eval)
LIST_LEN = OpDef("list_len", _len_kernel, lambda op, i, a: [((), np.dtype(np.int64))],
                 stateful=True)


def is_list(x) -> bool:
    return issubclass(type(x), Tensor) and x.dtype == LIST_DTYPE  # (the type: see is_symbolic)


def list_new(items: Sequence = ()) -> Any:
    """A new graph list (a Python list when not tracing), holding `items`."""
    if not tracing.in_graph_mode():
        return list(items)
    xs = bind(LIST_NEW)
    for item in items:
        xs = list_append(xs, item)
    return xs


def loop_list(items: Sequence, label: str) -> Any:
    """The graph list that carries Python list `items` (loop variable `label`) through a
    symbolic loop whose iterations change its length (`while_loop` learns that). Its
    items must be arrays or numbers of one shape and dtype; else a TypeError naming
    `label` says what to write instead."""
    check_loop_list(items, label)
    try:
        return list_new(items)
    except (TypeError, ValueError) as e:
        raise TypeError(
            f"The list {label} is a loop variable of a symbolic loop that changes its length"
            f"{where()}, so it must hold arrays of one shape and dtype ({e}).") from None


class LoopCarryError(Exception):
    """A value a graph loop cannot carry from one iteration to the next, which a Python
    loop can (a list of nested lists, a variable whose rank or dtype an iteration
    changes): a loop over a sequence of known length walks it in Python instead
    (autograph/operators/loops.py). Raised as a TypeError / ValueError subclass."""


class LoopListError(TypeError, LoopCarryError):
    """A list a symbolic loop grows holds items no graph list can carry (nested lists,
    mixed dtypes or ranks)."""


def check_loop_list(items: Sequence, label: str) -> None:
    """The items a traced iteration left in list `label` (initial and appended) can be
    carried by one graph list: arrays or numbers of one dtype and rank."""
    nested = [type(v).__name__ for v in items if isinstance(v, dict) or (
        isinstance(v, (list, tuple)) and not _numbers_only(v))]
    if nested:  # e.g. rows holding symbolic values
        raise LoopListError(
            f"The list {label} is a loop variable of a symbolic loop that changes its length"
            f"{where()}, and it holds Python {nested[0]}s: a list grown in a graph loop holds "
            "arrays of one shape and dtype, not nested lists. Make it an array (np.array / "
            f"np.stack of the rows, updated with {label}[i] = row or np.concatenate), or a "
            "list of arrays.")
    kinds = []
    for v in items:
        if isinstance(v, Tensor):
            kinds.append((v.dtype, len(v.static_shape), f"{v.dtype}{_fmt_shape(v.static_shape)}"))
        elif isinstance(v, (np.ndarray, np.generic, bool, int, float, complex, str, bytes,
                            list, tuple)):  # (lists here: rows of Python numbers)
            a = np.asarray(v)
            kinds.append((a.dtype, a.ndim, f"{a.dtype}{_fmt_shape(a.shape)}"))
        else:
            kinds.append((None, None, f"the Python value {v!r}"))
    bad = next((k[2] for k in kinds if k[0] is None or k[0].kind == "O"), None)
    if bad is None:
        other = next((k for k in kinds[1:] if k[:2] != kinds[0][:2]), None)
        bad = None if other is None else f"{kinds[0][2]} and {other[2]}"
    if bad is not None:
        raise LoopListError(
            f"The list {label} is a loop variable of a symbolic loop that changes its length"
            f"{where()}, so it is carried as a graph list, which holds arrays (or numbers) of "
            f"one shape and dtype; but it gets {bad}. Append values of one dtype and shape "
            f"(cast them, e.g. with .astype), or keep {label} a Python list by growing it in "
            "a Python loop.")


def _numbers_only(v) -> bool:
    """A (nested) list or tuple of Python / NumPy numbers that makes a regular array."""
    if isinstance(v, (list, tuple)):
        if not all(_numbers_only(x) for x in v):
            return False
        try:
            return np.asarray(v).dtype.kind in "biufc"
        except ValueError:
            return False
    return isinstance(v, (np.generic, bool, int, float, complex))


def list_append(xs: Any, x: Any) -> Any:
    """`xs.append(x)`; returns the list."""
    if isinstance(xs, list):
        xs.append(x)
        return xs
    return bind(LIST_APPEND, xs, x)[0]


def save_state(xs: Any, x: Any) -> Any:
    """Append `x` to the state list `xs` of a loop traced under a gradient tape."""
    return bind(SAVE_STATE, xs, x)[0]


def list_stack(xs: Any) -> Any:
    """`np.stack(xs)`."""
    if isinstance(xs, list):
        return np.stack(xs)
    return bind(LIST_STACK, xs)


def list_copy(xs: Any) -> Any:
    """A shallow copy of the list (appends to it leave `xs` alone)."""
    if isinstance(xs, list):
        return list(xs)
    return bind(LIST_COPY, xs)


def list_get(xs: Any, k: Any) -> Any:
    """`xs[k]`."""
    if isinstance(xs, list):
        return xs[int(k)]
    item = bind(LIST_GET, xs, k)
    if item.ndim == 0 and items_stand_for_numbers(xs):
        item.weak = True  # (returned as the Python number the Python list holds)
    return item


def list_zeros(xs: Any) -> Any:
    """Zeros shaped like `list_stack(xs)` (also for an empty list): a list's cotangent."""
    elem = element_aval(xs)
    if elem is None:
        raise ValueError(f"Cannot take the gradient through a list to which nothing is "
                         f"appended{where()}.")
    if None in elem[0]:
        raise NotImplementedError(
            f"The gradient through a list needs its elements' shape, but it has unknown "
            f"dimensions {elem[0]}{where()}; trace with fully known shapes (TensorSpecs "
            "without None) for that list.")
    return bind(LIST_ZEROS, xs, shape=tuple(elem[0]), dtype=str(elem[1]))


# Gradient rules: a list's cotangent is the cotangent of its stacked array (one row per
# element); an append hands its row to the appended value.
def _stack_grad(rec, cts):
    return [cts[0]]


def _append_grad(rec, cts):
    rows = cts[0]
    if rows is None:
        return [None, None]
    return [rows, rows[rec.outputs[1]]]


def _copy_grad(rec, cts):
    return [cts[0]]


def _get_grad(rec, cts):
    xs, k = rec.inputs
    return [index_update(list_zeros(xs), k, cts[0], mode="add"), None]


LIST_STACK.grad = _stack_grad
LIST_APPEND.grad = _append_grad
LIST_COPY.grad = _copy_grad
LIST_GET.grad = _get_grad


def list_len(xs: Any) -> Any:
    if isinstance(xs, list):
        return len(xs)
    n = bind(LIST_LEN, xs)
    n.weak = True  # the Python int len() gives (returned as one, NEP 50 in arithmetic)
    return n


def element_aval(xs):
    """(shape, dtype) of the elements appended to list value `xs`, or None if none are."""
    seen = set()
    todo = [xs]
    while todo:
        t = todo.pop()
        if not isinstance(t, Tensor) or id(t) in seen:
            continue
        seen.add(id(t))
        node = t.node
        if node is None:
            todo.extend(_sources_of_placeholder(t))
        elif node.op is LIST_APPEND or node.op is SAVE_STATE:
            x = node.inputs[1]
            return (x.shape, x.dtype) if isinstance(x, Tensor) else (np.shape(x), np.asarray(x).dtype)
        elif node.op is LIST_COPY:
            todo.append(node.inputs[0])
        elif node.op.sources is not None:  # control flow: what its output came from
            todo.extend(node.op.sources(node, t.index))
    return None


def items_stand_for_numbers(xs) -> bool:
    """Whether every item appended to graph list `xs` is a Python number or a 0-d value
    standing for one (a loop counter, `len()`): its items read back as Python numbers."""
    seen, todo, found = set(), [xs], False
    while todo:
        t = todo.pop()
        if not isinstance(t, Tensor) or id(t) in seen:
            continue
        seen.add(id(t))
        node = t.node
        if node is None:
            todo.extend(_sources_of_placeholder(t))
        elif node.op is LIST_APPEND:
            x = node.inputs[1]
            if not (type(x) in (bool, int, float, complex) or
                    isinstance(x, Tensor) and x.weak and x.ndim == 0):
                return False
            found = True
            todo.append(node.inputs[0])
        elif node.op is LIST_COPY:
            todo.append(node.inputs[0])
        elif node.op.sources is not None:
            todo.extend(node.op.sources(node, t.index))
        elif node.op is not LIST_NEW:
            return False
    return found


def _sources_of_placeholder(t: Tensor):
    """Values that flow into placeholder `t` of a subgraph (loop state or captures)."""
    graph = t.graph
    parent = graph.parent
    if parent is None:
        return []
    for outer, inner in graph.captures.items():
        if inner is t:
            return [outer]
    position = next((i for i, p in enumerate(graph.inputs) if p is t), None)
    for node in parent.nodes:
        subs = node.subgraphs()
        if any(s is graph for s in subs) and position is not None:
            return node.op.feeds(node, position) if node.op.feeds is not None else []
    return []  # a subgraph still being traced: its node does not exist yet


# `xs[k]` on a graph list: the indexing op (below this layer) calls it
IndexingHooks.list_get = list_get
