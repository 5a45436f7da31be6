"""Functional control flow: `cond` and `while_loop` traced into subgraphs.

With a Python predicate / condition these run as plain Python. With a symbolic one,
each function is traced into a child graph and a single `cond` or `while_loop` node
is added; the code generator turns it back into a real `if` / `while` statement.

Branch outputs and loop variables must agree in structure and dtype; a Python scalar
takes the dtype of the other side. A branch dimension that differs becomes unknown
(None); a loop variable whose shape changes needs a `shape_invariants` entry.
"""
from __future__ import annotations

from typing import Any, Callable, Sequence

import numpy as np

from runtime import tracing, views
from runtime.errors import user_origin, where
from runtime.graph import Graph
from runtime.ops.registry import OpDef, add_node
from runtime.structure import flatten, path_names, unflatten
from runtime.tensor import Tensor, _fmt_shape
from runtime.tensor_map import TensorMap


def _constant_kernel(*, value):
    return value.copy() if isinstance(value, np.ndarray) else value  # callers may write to it


CONSTANT = OpDef("constant", _constant_kernel,
                 lambda op, ins, attrs: [(np.shape(attrs["value"]), np.asarray(attrs["value"]).dtype)])
COND = OpDef("cond", None, num_outputs=-1)
WHILE_LOOP = OpDef("while_loop", None, num_outputs=-1)


def constant(value: Any, dtype: Any = None) -> Tensor:
    """A graph value holding `value` (cast to `dtype` when given)."""
    value = np.asarray(value, dtype=dtype)
    return add_node(tracing.current_graph(), CONSTANT, [], {"value": value})


def _is_python_scalar(x) -> bool:
    return type(x) in (bool, int, float, complex)


def _describe(x) -> str:
    if isinstance(x, Tensor):
        return f"{x.dtype}{_fmt_shape(x.static_shape)}"
    if isinstance(x, np.ndarray) or isinstance(x, np.generic):
        return f"{x.dtype}{_fmt_shape(x.shape)}"
    return f"the Python value {x!r}"


def _aval(x):
    if isinstance(x, Tensor):
        return x.static_shape, x.dtype
    a = np.asarray(x)
    return a.shape, a.dtype


def _check_scalar_predicate(pred, what: str):
    if pred.ndim != 0 and not all(d == 1 for d in pred.static_shape):
        raise ValueError(
            f"The {what} must be a scalar, but it is a Tensor of shape {_fmt_shape(pred.static_shape)}"
            f"{where()}. Reduce it first, e.g. with np.all(...) or np.any(...)."
        )


def _trace_subgraph(name: str, fn: Callable, arg_avals: list, arg_names: list, parent: Graph):
    """Trace fn on fresh placeholders; returns (graph, output leaves, output treedef)."""
    sub = Graph(name, parent=parent)
    args = [sub.add_input(aval[0], aval[1], sub.fresh_name("a"), weak=aval[2:] == (True,))
            for aval in arg_avals]
    with tracing.graph_context(sub):
        out = fn(*args)
        leaves, tree = flatten(out)
        leaves = [views.resolve(x) for x in leaves]  # a name whose array a view wrote into
    return sub, leaves, tree


def _as_value(sub: Graph, x, dtype=None):
    """Make leaf x a value of graph `sub` (capturing or materialising constants)."""
    if isinstance(x, Tensor):
        if dtype is not None and x.dtype != dtype:
            with tracing.graph_context(sub):
                return np.astype(x, dtype)
        return sub.capture(x)
    with tracing.graph_context(sub):
        return constant(x, dtype)


def _finish_captures(subs: Sequence[Graph], n_args: int) -> list[Tensor]:
    """Give every subgraph the same capture inputs; returns the outer values to pass."""
    union = TensorMap()  # by identity: Tensor == is elementwise, and Tensors are unhashable
    for sub in subs:
        for outer in sub.captures:
            union[outer] = None
    for sub in subs:
        args = sub.inputs[:n_args]
        caps = []
        for outer in union:
            inner = sub.captures.get(outer)
            if inner is None:
                inner = Tensor(sub, None, 0, outer.static_shape, outer.dtype, sub.fresh_name("c"),
                               outer.weak)
                sub.captures[outer] = inner
            caps.append(inner)
        sub.inputs = args + caps
    return list(union)


# -- cond ------------------------------------------------------------------------------
def cond(pred: Any, true_fn: Callable, false_fn: Callable, operands: Sequence = (),
         names: Sequence[str] | None = None) -> Any:
    """`true_fn(*operands) if pred else false_fn(*operands)`, as a graph node when symbolic."""
    if not isinstance(pred, Tensor):
        return true_fn(*operands) if pred else false_fn(*operands)
    _check_scalar_predicate(pred, "condition of `if` / cond")
    graph = tracing.current_graph()
    op_leaves, op_tree = flatten(tuple(operands))
    op_leaves = [views.resolve(x) for x in op_leaves]
    sym = [i for i, x in enumerate(op_leaves) if isinstance(x, Tensor)]

    def call(fn):
        def run(*phs):
            leaves = list(op_leaves)
            for i, ph in zip(sym, phs):
                leaves[i] = ph
            return fn(*unflatten(op_tree, leaves))
        return run

    avals = [_aval(op_leaves[i]) + (op_leaves[i].weak,) for i in sym]
    g_true, t_leaves, t_tree = _trace_subgraph("then", call(true_fn), avals, [], graph)
    g_false, f_leaves, f_tree = _trace_subgraph("else", call(false_fn), avals, [], graph)
    labels = _output_labels(names, t_leaves, t_tree)
    n_user = len(t_leaves)  # + arrays a branch wrote through a name not used afterwards
    t_extra, f_extra = views.unreturned_writes([op_leaves[i] for i in sym], [g_true, g_false],
                                               [t_leaves, f_leaves])
    if t_tree != f_tree or len(t_leaves) != len(f_leaves):
        raise ValueError(
            f"The two branches of a conditional{_at()} return different structures: "
            f"{_structure_text(t_tree, t_leaves)} in the true branch, "
            f"{_structure_text(f_tree, f_leaves)} in the false branch. Make both branches "
            "produce the same variables."
        )
    t_leaves, f_leaves = t_leaves + t_extra, f_leaves + f_extra
    labels = labels + ["a written array"] * len(t_extra)
    out_leaves, true_vals, false_vals, node_avals, slots = [], [], [], [], []
    for label, a, b in zip(labels, t_leaves, f_leaves):
        a, b = _fill_placeholder(a, b), _fill_placeholder(b, a)
        if not isinstance(a, Tensor) and not isinstance(b, Tensor) and _same_constant(a, b):
            out_leaves.append(a)  # the same Python value either way: no graph value needed
            continue
        _check_selectable(label, a, b)
        dtype = _merge_dtype(label, a, b)
        shape = _merge_shape(label, a, b, "true branch", "false branch")
        true_vals.append(_as_value(g_true, a, dtype))
        false_vals.append(_as_value(g_false, b, dtype))
        node_avals.append((shape, dtype))
        slots.append(len(out_leaves))
        out_leaves.append(None)
    g_true.outputs, g_false.outputs = true_vals, false_vals
    caps = _finish_captures([g_true, g_false], len(sym))
    inputs = [pred] + [op_leaves[i] for i in sym] + caps
    attrs = {"then": g_true, "else_": g_false}
    if tracing.tapes_recording():
        attrs["copy_lists"] = True  # a gradient replays branches from their input lists
    outs = add_node(graph, COND, inputs, attrs, node_avals)
    for slot, value in zip(slots, outs):  # a Python number on both sides stays one (NEP 50)
        value.weak = _number_like(t_leaves[slot]) and _number_like(f_leaves[slot])
    views.link_outputs([op_leaves[i] for i in sym], [g_true, g_false], list(outs))
    for slot, value in zip(slots, outs):
        out_leaves[slot] = value
    return unflatten(t_tree, out_leaves[:n_user])


def _is_selectable(x) -> bool:
    return isinstance(x, (Tensor, np.ndarray, np.generic)) or _is_python_scalar(x) or \
        _is_placeholder(x)


def _check_selectable(label, a, b) -> None:
    """A graph `cond` chooses between arrays and numbers only: two different functions,
    strings or other objects cannot become one graph value."""
    if _is_selectable(a) and _is_selectable(b):
        return
    raise TypeError(
        f"'{label}' is {_describe_object(a)} in the true branch of a symbolic `if`{_at()} and "
        f"{_describe_object(b)} in the false branch. A condition known only when the graph "
        "runs can choose between arrays and numbers, not between other Python objects. "
        "Choose with a Python value (an `if` on a Python argument), or compute the results "
        "of both choices and select between them (np.where(cond, a, b)).")


def _describe_object(x) -> str:
    if _is_selectable(x):
        return _describe(x)
    kind = "a function" if callable(x) and hasattr(x, "__code__") else \
        f"a {type(x).__name__}"
    return f"{kind} ({x!r:.60})"


def _at() -> str:
    origin = user_origin()
    return f" at {origin}" if origin else ""


def _is_placeholder(x) -> bool:
    return getattr(type(x), "graph_placeholder", False)


def _fill_placeholder(x, other):
    """A "no value yet" marker (such as a return value not set on this path) on one side
    becomes zeros of the other side's dtype and shape: the value is never used there."""
    if not _is_placeholder(x) or _is_placeholder(other) or other is None:
        return x
    if not isinstance(other, (Tensor, np.ndarray, np.generic)) and not _is_python_scalar(other):
        return x
    shape, dtype = _aval(other)
    # (an unknown dim: any size will do - the merged dim is unknown and the value unused)
    zeros = np.zeros(tuple(0 if d is None else d for d in shape), dtype)
    return zeros[()] if zeros.ndim == 0 else zeros


def _same_constant(a, b) -> bool:
    if a is b:
        return True
    if isinstance(a, (np.ndarray, np.generic)) or isinstance(b, (np.ndarray, np.generic)):
        return False
    try:
        return type(a) is type(b) and bool(a == b)
    except Exception:
        return False


def _output_labels(names, leaves, tree) -> list[str]:
    if names is not None and len(names) == len(leaves):
        return list(names)
    return path_names(unflatten(tree, range(len(leaves))), "output") if leaves else []


def _structure_text(tree, leaves) -> str:
    return repr(unflatten(tree, [_describe(x) for x in leaves]))


def _is_weak(x) -> bool:
    return isinstance(x, Tensor) and x.weak


def _number_like(x) -> bool:
    """A Python number, or a value standing for one (its dtype yields, NEP 50)."""
    return _is_weak(x) or (_is_python_scalar(x) and type(x) is not bool)


def _merge_dtype(label, a, b):
    if _is_python_scalar(a) and not _is_python_scalar(b):
        return check_number_fits(label, a, _aval(b)[1])
    if _is_python_scalar(b) and not _is_python_scalar(a):
        return check_number_fits(label, b, _aval(a)[1])
    if _is_weak(a) != _is_weak(b):  # a stand-in for a Python number takes the other's dtype
        return _aval(b if _is_weak(a) else a)[1]
    if a is None or b is None:
        raise ValueError(f"{label} is None on one side of a conditional{_at()} but "
                         f"{_describe(b if a is None else a)} on the other.")
    da, db = _aval(a)[1], _aval(b)[1]
    if da != db:
        raise TypeError(
            f"{label} has dtype {da} in the true branch but {db} in the false branch{_at()}. "
            f"Both branches must give it the same dtype; cast one with .astype({db}) or "
            f".astype({da})."
        )
    return da


def check_number_fits(label, number, dtype):
    """A Python number takes the other side's dtype only if it survives the cast
    (`0` fits int64 and float32; `0.5` does not fit int64: that would change the result)."""
    with np.errstate(all="ignore"):
        cast = np.asarray(number).astype(dtype)
    if not (cast == number or (number != number and cast != cast)):
        raise TypeError(
            f"{label} is the Python number {number!r} on one path but has dtype {dtype} on the "
            f"other{_at()}; {number!r} does not fit {dtype}. Give both paths the same type "
            f"(e.g. write {float(number.real)!r} and cast the other value with .astype(float)).")
    return dtype


def _merge_shape(label, a, b, side_a: str, side_b: str):
    sa, sb = _aval(a)[0], _aval(b)[0]
    if len(sa) != len(sb):
        raise ValueError(f"{label} has shape {_fmt_shape(sa)} in the {side_a} but "
                         f"{_fmt_shape(sb)} in the {side_b}{_at()}; their ranks must agree.")
    return tuple(x if x == y else None for x, y in zip(sa, sb))
