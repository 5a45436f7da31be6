"""`cond`: a conditional whose predicate is symbolic, traced into two subgraphs.

With a Python predicate it runs as plain Python. With a symbolic one, each branch is
traced into a child graph and a single `cond` node is added; the code generator turns
it back into a real `if` statement. Branch outputs must agree in structure and dtype;
a Python scalar takes the dtype of the other side; a dimension that differs between
the branches becomes unknown (None); a "no value yet" placeholder on one side takes the
other side's type (`learn_types.py`).
"""
from __future__ import annotations

from typing import Any, Callable, Sequence

import numpy as np

from runtime.core import tracing
from runtime.state import view_links, views
from runtime.control_flow.common import (
    as_value, at_user_line, aval_of, check_number_fits, check_scalar_predicate, describe,
    finish_captures, is_python_scalar, is_weak, same_constant, trace_subgraph,
)
from runtime.control_flow import path_kinds
from runtime.control_flow.learn_types import fill_placeholders, is_placeholder, needs_value
from runtime.control_flow.try_state import Unknown
from runtime.core.registry import OpDef, add_node
from runtime.core.naming import note_names
from runtime.core.structure import flatten, path_names, unflatten
from runtime.core.errors import where
from runtime.core.tensor import Tensor, _fmt_shape
from runtime.state.effects import raise_


COND = OpDef("cond", None, num_outputs=-1)


def cond(pred: Any, true_fn: Callable, false_fn: Callable, operands: Sequence = (),
         names: Sequence[str] | None = None) -> Any:
    """`true_fn(*operands) if pred else false_fn(*operands)`, as a graph node when symbolic."""
    if not isinstance(pred, Tensor):
        return true_fn(*operands) if pred else false_fn(*operands)
    ambiguous = _ambiguous_truth(pred)
    if ambiguous is not None and tracing.current_graph().parent is not None:
        # inside a symbolic branch or loop: NumPy raises only if that path is taken, so
        # the graph raises when it gets here; what follows is traced but never runs
        raise_(ValueError(ambiguous), where())
        return true_fn(*operands)
    check_scalar_predicate(pred, "condition of `if` / cond")
    graph = tracing.current_graph()
    op_leaves, op_tree = flatten(tuple(operands))
    op_leaves = [views.resolve(x) for x in op_leaves]
    sym = [i for i, x in enumerate(op_leaves) if isinstance(x, Tensor)]

    def call(fn):
        def run(*phs):
            leaves = list(op_leaves)
            for i, ph in zip(sym, phs):
                leaves[i] = ph
            path_kinds.enter_kinds([op_leaves[i] for i in sym], phs)
            return fn(*unflatten(op_tree, leaves))
        return run

    avals = [aval_of(op_leaves[i]) + (op_leaves[i].weak,) for i in sym]
    g_true, t_leaves, t_tree = trace_subgraph("then", call(true_fn), avals, [], graph)
    g_false, f_leaves, f_tree = trace_subgraph("else", call(false_fn), avals, [], graph)
    unread = [set(), set()]  # leaves filled for a placeholder: of no kind of their own
    if any(is_placeholder(x) for x in t_leaves + f_leaves):
        # a "no value yet" placeholder takes the other branch's value's type (and
        # structure): it is never read on that path
        t_out, f_out = unflatten(t_tree, t_leaves), unflatten(f_tree, f_leaves)
        t_leaves, t_tree = flatten(fill_placeholders(t_out, f_out))
        f_leaves, f_tree = flatten(fill_placeholders(f_out, t_out))
        if len(t_leaves) == len(f_leaves):
            # "no value yet" facing a placeholder that needs one (a branch that always
            # raises, the other leaving a variable unbound): that one goes on, unbound
            t_leaves = [b if _pure_placeholder(a) and needs_value(b) else a
                        for a, b in zip(t_leaves, f_leaves)]
            f_leaves = [a if _pure_placeholder(b) and needs_value(a) else b
                        for a, b in zip(t_leaves, f_leaves)]
        for k, (mine, theirs) in enumerate(((t_out, f_out), (f_out, t_out))):
            marks = flatten(fill_placeholders(mine, theirs, _unread_marks))[0]
            unread[k] = {i for i, m in enumerate(marks) if m is _UNREAD}
    labels = _output_labels(names, t_leaves, t_tree)
    n_user = len(t_leaves)  # + arrays a branch wrote through a name not used afterwards
    t_extra, f_extra = view_links.unreturned_writes([op_leaves[i] for i in sym], [g_true, g_false],
                                               [t_leaves, f_leaves])
    if t_tree != f_tree or len(t_leaves) != len(f_leaves):
        raise ValueError(
            f"The two branches of a conditional{at_user_line()} return different structures: "
            f"{_structure_text(t_tree, t_leaves)} in the true branch, "
            f"{_structure_text(f_tree, f_leaves)} in the false branch. Make both branches "
            "produce the same variables."
        )
    t_leaves, f_leaves = t_leaves + t_extra, f_leaves + f_extra
    labels = labels + ["a written array"] * len(t_extra)
    out_leaves, true_vals, false_vals, node_avals, slots = [], [], [], [], []
    for label, a, b in zip(labels, t_leaves, f_leaves):
        if not isinstance(a, Tensor) and not isinstance(b, Tensor) and same_constant(a, b):
            out_leaves.append(a)  # the same Python value either way: no graph value needed
            continue
        _check_selectable(label, a, b)
        dtype = _merge_dtype(label, a, b)
        shape = _merge_shape(label, a, b, "true branch", "false branch")
        true_vals.append(as_value(g_true, a, dtype))
        false_vals.append(as_value(g_false, b, dtype))
        node_avals.append((shape, dtype))
        slots.append(len(out_leaves))
        out_leaves.append(None)
    unread_outs = [{j for j, s in enumerate(slots) if s in u} for u in unread]
    kinds = path_kinds.add_kind_outputs([g_true, g_false], [
        [t_leaves[s] for s in slots], [f_leaves[s] for s in slots]], [true_vals, false_vals],
        node_avals, as_value, unread_outs)
    g_true.outputs, g_false.outputs = true_vals, false_vals
    caps = finish_captures([g_true, g_false], len(sym))
    inputs = [pred] + [op_leaves[i] for i in sym] + caps
    attrs = {"then": g_true, "else_": g_false}
    if tracing.tapes_recording():
        attrs["copy_lists"] = True  # a gradient replays branches from their input lists
    outs = add_node(graph, COND, inputs, attrs, node_avals)
    path_kinds.note_kinds(graph, outs, kinds)
    outs = outs[:len(slots)]  # (the kind outputs are read through `path_kinds` only)
    if names is not None:  # the user's names, for the listing and the picture only
        note_names(graph, list(outs), [labels[s] for s in slots])
        if len(op_leaves) == len(operands) <= len(names):  # operand i is variable names[i]
            for g in (g_true, g_false):
                note_names(graph, g.inputs[:len(sym)], [names[i] for i in sym])
    for slot, value in zip(slots, outs):  # a Python number on both sides stays one (NEP 50)
        value.weak = _number_like(t_leaves[slot]) and _number_like(f_leaves[slot])
    own = [None] * len(outs)  # the operand that is each output's own variable
    own_values = [None] * len(outs)
    if names is not None and len(op_leaves) == len(operands) <= len(names):
        index = {names[i]: k for k, i in enumerate(sym)}
        own = [index.get(labels[s]) for s in slots]
        by_name = dict(zip(names, op_leaves))
        own_values = [by_name.get(labels[s]) for s in slots]
    named = names is not None and len(names) == n_user  # (else labels are positions)
    out_labels = [labels[s] if named else None for s in slots]
    view_links.link_outputs([op_leaves[i] for i in sym], [g_true, g_false], list(outs), own,
                            out_labels, unread_outs)
    view_links.numpy_arrays_out(list(outs), [[t_leaves[s] for s in slots],
                                             [f_leaves[s] for s in slots]], own_values,
                                out_labels)
    for slot, value in zip(slots, outs):
        out_leaves[slot] = value
    return unflatten(t_tree, out_leaves[:n_user])


def _ambiguous_truth(pred: Tensor) -> str | None:
    """NumPy's error for the truth of `pred` when its known size is not 1, else None."""
    dims = pred.static_shape
    if None in dims:
        return None
    size = int(np.prod(dims, dtype=np.int64))
    if size == 1:
        return None
    if size == 0:
        return ("The truth value of an empty array is ambiguous. Use `array.size > 0` to "
                "check that an array is not empty.")
    return ("The truth value of an array with more than one element is ambiguous. Use "
            "a.any() or a.all()")


def _is_selectable(x) -> bool:
    return isinstance(x, (Tensor, np.ndarray, np.generic)) or is_python_scalar(x) or \
        is_placeholder(x)


def _check_selectable(label, a, b) -> None:
    """A graph `cond` chooses between arrays and numbers only: two different functions,
    strings or other objects cannot become one graph value."""
    if _is_selectable(a) and _is_selectable(b):
        return
    for x in (a, b):
        if type(x) is Unknown:  # (a value a graph `try`'s handler cannot know: refused)
            x._refuse()
    raise TypeError(
        f"'{label}' is {_describe_object(a)} in the true branch of a symbolic `if`{at_user_line()} and "
        f"{_describe_object(b)} in the false branch. A condition known only when the graph "
        "runs can choose between arrays and numbers, not between other Python objects. "
        "Choose with a Python value (an `if` on a Python argument), or compute the results "
        "of both choices and select between them (np.where(cond, a, b)).")


def _describe_object(x) -> str:
    if _is_selectable(x):
        return describe(x)
    kind = "a function" if callable(x) and hasattr(x, "__code__") else \
        f"a {type(x).__name__}"
    return f"{kind} ({x!r:.60})"


def _output_labels(names, leaves, tree) -> list[str]:
    if names is not None and len(names) == len(leaves):
        return list(names)
    return path_names(unflatten(tree, range(len(leaves))), "output") if leaves else []


def _structure_text(tree, leaves) -> str:
    return repr(unflatten(tree, [describe(x) for x in leaves]))


def _pure_placeholder(x) -> bool:
    return is_placeholder(x) and not needs_value(x)


_UNREAD = object()  # marks the leaves filled in for a placeholder


def _unread_marks(other):
    return unflatten(flatten(other)[1], [_UNREAD] * len(flatten(other)[0]))


def _number_like(x) -> bool:
    """A Python number, or a value standing for one (its dtype yields, NEP 50)."""
    return is_weak(x) or is_python_scalar(x)


def _merge_dtype(label, a, b):
    if is_python_scalar(a) and not is_python_scalar(b):
        return check_number_fits(label, a, aval_of(b)[1])
    if is_python_scalar(b) and not is_python_scalar(a):
        return check_number_fits(label, b, aval_of(a)[1])
    if _number_like(a) and _number_like(b):  # Python numbers both: an int and a float
        da, db = aval_of(a)[1], aval_of(b)[1]  # promote as Python does (the int's path still
        if da != db and {da.kind, db.kind} == {"i", "f"}:  # returns an int: path_kinds.py)
            return np.result_type(da, db)
    if is_weak(a) != is_weak(b):  # a stand-in for a Python number takes the other's dtype
        return aval_of(b if is_weak(a) else a)[1]
    if a is None or b is None:
        raise ValueError(f"{label} is None on one side of a conditional{at_user_line()} but "
                         f"{describe(b if a is None else a)} on the other.")
    da, db = aval_of(a)[1], aval_of(b)[1]
    if da != db:
        raise paths_differ(TypeError(
            f"{label} has dtype {da} in the true branch but {db} in the false branch{at_user_line()}. "
            f"Both branches must give it the same dtype; cast one with .astype({db}) or "
            f".astype({da})."
        ))
    return da


def paths_differ(error: Exception) -> Exception:
    """Mark `error` (two paths give a value different dtypes or ranks) so that a loop over
    items of known number whose body has such an `if` walks them in Python instead, where
    the path each iteration takes is known (`if i > 2: continue` with a Python index)."""
    error.paths_differ = True
    return error


def _merge_shape(label, a, b, side_a: str, side_b: str):
    sa, sb = aval_of(a)[0], aval_of(b)[0]
    if len(sa) != len(sb):
        raise paths_differ(ValueError(
            f"{label} has shape {_fmt_shape(sa)} in the {side_a} but {_fmt_shape(sb)} in the "
            f"{side_b}{at_user_line()}; their ranks must agree."))
    return tuple(x if x == y else None for x, y in zip(sa, sb))
