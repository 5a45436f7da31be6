"""`while_loop`: a loop whose condition is symbolic, traced into cond and body subgraphs.

When the condition is a Python bool the loop runs as Python; if it turns symbolic
part-way (its loop variables became Tensors), the loop hands over to a graph
`while_loop` from the current state. Loop variables keep their dtype and shape across
an iteration; a Python scalar takes the dtype the body gives it (`i = 0` then
`i = i + n` with an int32 `n` is an int32 loop variable). A dimension an iteration
changes becomes unknown (None) automatically, as in TF (the body is traced again);
`shape_invariants` states the shape explicitly, and then the body must fit it.
"""
from __future__ import annotations

from typing import Any, Callable, Sequence

import numpy as np

from runtime import tracing, views
from runtime.control_flow.common import (
    as_value, at_user_line, aval_of, check_scalar_predicate, describe, finish_captures,
    is_python_scalar, is_weak, same_constant, trace_subgraph, check_number_fits,
)
from runtime.errors import where
from runtime.graph import Graph
from runtime.ops.registry import OpDef, add_node
from runtime.structure import flatten, path_names, unflatten
from runtime.tensor import Tensor, _fmt_shape


WHILE_LOOP = OpDef("while_loop", None, num_outputs=-1)


def while_loop(cond_fn: Callable, body_fn: Callable, loop_vars: Sequence, maximum_iterations: Any = None,
               names=None, shape_invariants=None):
    """Run `while cond_fn(*v): v = body_fn(*v)` and return the final loop variables."""
    loop_vars = tuple(loop_vars)
    if isinstance(maximum_iterations, Tensor):
        # a symbolic limit cannot be counted in Python: the whole loop is a graph loop
        return _graph_while(cond_fn, body_fn, loop_vars, maximum_iterations, names,
                            shape_invariants)
    iterations = 0
    while True:
        if maximum_iterations is not None and iterations >= maximum_iterations:
            return loop_vars
        keep_going = cond_fn(*loop_vars)
        if isinstance(keep_going, Tensor):
            remaining = None if maximum_iterations is None else maximum_iterations - iterations
            return _graph_while(cond_fn, body_fn, loop_vars, remaining, names, shape_invariants)
        if not keep_going:
            return loop_vars
        loop_vars = tuple(body_fn(*loop_vars))
        iterations += 1


class StandIn(np.ndarray):
    """The initial value of a loop variable that the loop body assigns before any read
    (a variable first assigned inside the loop): only a placeholder, so the loop gives
    it the dtype and shape its first iteration gives it."""


def stand_in(value) -> StandIn:
    """A StandIn with the dtype and (known) shape of `value` (a Tensor, array or number)."""
    shape, dtype = aval_of(value)
    return np.zeros(tuple(0 if d is None else d for d in shape), dtype).view(StandIn)


def _graph_while(cond_fn, body_fn, loop_vars, maximum_iterations, names, shape_invariants,
                 save_states: bool | None = None):
    if save_states is None:
        save_states = tracing.tapes_recording() > 0
    if save_states:
        saved = _saving_while(cond_fn, body_fn, loop_vars, maximum_iterations, names,
                              shape_invariants)
        if saved is not None:
            return saved
    graph = tracing.current_graph()
    leaves, tree = flatten(loop_vars)
    leaves = [views.resolve(x) for x in leaves]
    labels = list(names) if names is not None and len(names) == len(leaves) else \
        path_names(loop_vars, "loop_vars")
    invariants = _leaf_invariants(shape_invariants, loop_vars, len(leaves))
    # Which leaves are carried by the loop: symbolic values, arrays and numbers.
    carried = [i for i, x in enumerate(leaves) if _is_carried(x)]
    avals = {}
    for i in carried:
        shape, dtype = aval_of(leaves[i])
        if invariants[i] is not None:
            shape = _check_invariant(labels[i], shape, invariants[i])
        avals[i] = (shape, dtype)
    weak = [i for i in carried if is_python_scalar(leaves[i]) or is_weak(leaves[i])]
    still_weak: set = set()  # Python numbers the body keeps Python numbers
    if weak:
        still_weak = _discover_dtypes(body_fn, leaves, tree, carried, weak, avals, graph)

    def call(fn):
        def run(*phs):
            vals = list(leaves)
            for i, ph in zip(carried, phs):
                vals[i] = ph
            return fn(*unflatten(tree, vals))
        return run

    def trace_body():
        g, outs, out_tree = trace_subgraph("body", call(body_fn), [avals[i] for i in carried],
                                            [], graph)
        if out_tree != tree:
            raise ValueError(
                f"The loop body{at_user_line()} changes the structure of the loop variables: "
                f"{_shape_text(tree, leaves)} before, {_shape_text(out_tree, outs)} after."
            )
        return g, outs

    g_body, out_leaves = trace_body()
    adopted = False
    for i in carried:
        if isinstance(leaves[i], StandIn) and isinstance(out_leaves[i], (Tensor, np.ndarray,
                                                                         np.generic)):
            if aval_of(out_leaves[i]) != avals[i]:
                avals[i] = aval_of(out_leaves[i])
                leaves[i] = stand_in(out_leaves[i])
                adopted = True
    if adopted:  # the body does not read a stand-in: its second trace gives the same types
        g_body, out_leaves = trace_body()
    # a dimension an iteration changes becomes unknown (None), as in TF: trace again until
    # the shapes are a fixpoint (each round relaxes at least one dimension)
    while _relax_shapes(carried, leaves, out_leaves, avals, invariants):
        g_body, out_leaves = trace_body()
    for i, (a, b) in enumerate(zip(leaves, out_leaves)):
        if i not in avals:
            if not same_constant(a, b):
                raise ValueError(f"{labels[i]} is {describe(a)} before the loop{at_user_line()} and "
                                 f"{describe(b)} after an iteration; a loop variable that is "
                                 "not a number or array must not change inside a symbolic loop.")
            continue
        _check_loop_var(labels[i], avals[i], b)
    g_body.outputs = [as_value(g_body, out_leaves[i], avals[i][1]) for i in carried]

    cond_avals = [avals[i] for i in carried]
    g_cond, c_leaves, _ = trace_subgraph("cond", call(cond_fn), cond_avals, [], graph)
    if len(c_leaves) != 1:
        raise ValueError(f"The loop condition{at_user_line()} must be a single scalar value.")
    pred = c_leaves[0]
    if isinstance(pred, Tensor):
        check_scalar_predicate(pred, "loop condition")
    g_cond.outputs = [as_value(g_cond, pred)]
    caps = finish_captures([g_cond, g_body], len(carried))
    init = [_initial(leaves[i], avals[i][1]) for i in carried]
    attrs = {"cond": g_cond, "body": g_body, "has_max": maximum_iterations is not None}
    inputs = init + caps + ([maximum_iterations] if maximum_iterations is not None else [])
    outs = add_node(graph, WHILE_LOOP, inputs, attrs, [avals[i] for i in carried])
    for i, value in zip(carried, outs):  # (their dtype yields to typed operands, NEP 50)
        value.weak = i in still_weak and type(leaves[i]) is not bool
    views.link_outputs([leaves[i] for i in carried], [g_body], list(outs))
    final = list(leaves)
    for i, value in zip(carried, outs):
        final[i] = value
    return unflatten(tree, final)


def _relax_shapes(carried, leaves, out_leaves, avals, invariants) -> bool:
    """Relax to None each dimension of a loop variable that one iteration changed (same
    rank, no explicit shape invariant); whether any did. A rank change stays an error."""
    changed = False
    for i in carried:
        out = out_leaves[i]
        if invariants[i] is not None or not isinstance(out, (Tensor, np.ndarray, np.generic)):
            continue
        shape, dtype = avals[i]
        out_shape = aval_of(out)[0]
        if len(out_shape) == len(shape) and any(
                d is not None and d != o for d, o in zip(shape, out_shape)):
            avals[i] = (tuple(None if d != o else d for d, o in zip(shape, out_shape)),) + \
                tuple(avals[i][1:])
            changed = True
    return changed


def _is_carried(x) -> bool:
    return isinstance(x, (Tensor, np.ndarray, np.generic)) or is_python_scalar(x)


def _saving_while(cond_fn, body_fn, loop_vars, maximum_iterations, names, shape_invariants):
    """Under a gradient tape: the loop also saves each iteration's state on graph lists
    (marked `saved` on the node), so the gradient runs it backwards without running the
    loop forward a second time. Loops carrying graph lists keep the re-running rule."""
    from runtime.control_flow.lists import is_list, list_new, save_state

    leaves, _ = flatten(loop_vars)
    carried = [i for i, x in enumerate(leaves) if _is_carried(x)]
    if any(is_list(leaves[i]) for i in carried):
        return None
    k = len(loop_vars)
    stacks = tuple(list_new() for _ in carried)

    def cond2(*state):
        return cond_fn(*state[:k])

    def body2(*state):
        current = flatten(tuple(state[:k]))[0]
        saved = tuple(save_state(xs, current[i]) for xs, i in zip(state[k:], carried))
        return tuple(body_fn(*state[:k])) + saved

    labels = None if names is None else list(names) + [f"saved_state{j}" for j in carried]
    invariants = None if shape_invariants is None else \
        list(shape_invariants) + [None] * len(stacks)
    out = _graph_while(cond2, body2, tuple(loop_vars) + stacks, maximum_iterations, labels,
                       invariants, save_states=False)
    node = tracing.current_graph().nodes[-1]
    node.attrs["saved"] = len(stacks)
    return tuple(out[:k])


def _discover_dtypes(body_fn, leaves, tree, carried, weak, avals, graph):
    """Find the dtype a loop gives each Python-number loop variable (NEP 50: they are
    weak, so `0.0 + float32` is float32) by tracing the body into a throwaway graph with
    those numbers left as Python values. The body runs again while a variable turned
    typed changes what another one becomes (`r += s` after `s` turned int32 in the
    previous iteration makes `r` int32 in the next), as the iterations of the Python
    loop do, until nothing changes. Python side effects in the body therefore run once
    per such trace."""
    default = {i: avals[i][1] for i in weak}
    typed: set = set()
    # A round that types a variable can change another one's dtype in the next; with n
    # variables n rounds type a chain of n. (One variable typed by a round keeps its
    # dtype in the next, and the real trace checks that, so no round just to confirm.)
    for _ in range(len(weak)):
        if not _discover_round(body_fn, leaves, tree, carried, weak, typed, avals, graph):
            break
    for i in weak:
        if i not in typed:
            avals[i] = (avals[i][0], default[i])
    return set(weak) - typed


def _discover_round(body_fn, leaves, tree, carried, weak, typed, avals, graph) -> bool:
    """One trace of the body with the variables in `typed` strong; whether a dtype moved."""
    scratch = Graph("dtype_discovery", parent=graph)
    vals = list(leaves)
    for i in carried:  # Python numbers become stand-ins that keep NEP 50's weak typing
        vals[i] = scratch.add_input(*avals[i], scratch.fresh_name("a"),
                                    weak=i in weak and i not in typed)
    try:
        with tracing.graph_context(scratch):
            outs, out_tree = flatten(body_fn(*unflatten(tree, vals)))
    except Exception:
        return False  # the real trace below reports what is wrong
    changed = False
    for i in weak:
        out = outs[i] if out_tree == tree else None
        strong = isinstance(out, (np.ndarray, np.generic)) or (
            isinstance(out, Tensor) and not out.weak)
        if strong and (i not in typed or aval_of(out)[1] != avals[i][1]):
            typed.add(i)
            avals[i] = (avals[i][0], aval_of(out)[1])
            changed = True
    return changed


def _initial(x, dtype):
    if isinstance(x, Tensor):
        return x if x.dtype == dtype else np.astype(x, dtype)
    value = np.asarray(x, dtype=dtype)
    return value[()] if value.ndim == 0 else value  # a NumPy scalar, as NumPy ops return


def _leaf_invariants(shape_invariants, loop_vars, n):
    if shape_invariants is None:
        return [None] * n
    if len(shape_invariants) != len(loop_vars):
        raise ValueError(f"shape_invariants has {len(shape_invariants)} entries but there are "
                         f"{len(loop_vars)} loop variables{where()}.")
    out = []
    for inv, var in zip(shape_invariants, loop_vars):
        k = len(flatten(var)[0])
        out.extend([tuple(inv) if inv is not None else None] * k)
    return out


def _check_invariant(label, shape, invariant):
    if len(shape) != len(invariant) or any(
            i is not None and i != s for s, i in zip(shape, invariant)):
        raise ValueError(f"The shape invariant {_fmt_shape(invariant)} given for {label} does "
                         f"not fit its initial shape {_fmt_shape(shape)}{where()}.")
    return tuple(invariant)


def _check_loop_var(label, aval, out):
    shape, dtype = aval
    out_shape, out_dtype = aval_of(out)
    if out_dtype != dtype and not is_python_scalar(out):
        raise TypeError(
            f"Loop variable {label} has dtype {dtype} before the loop but {out_dtype} after one "
            f"iteration{at_user_line()}. A loop variable must keep its dtype; cast it, e.g. "
            f"`{label} = {label}.astype(np.{dtype})`, or give it the final dtype before the loop."
        )
    if is_python_scalar(out):
        check_number_fits(label, out, dtype)
        return
    if dtype.kind == "O" and shape == () and out_shape != ():  # a graph list (runtime/control_flow/lists.py)
        raise TypeError(
            f"Loop variable {label} is a list whose length the symbolic loop changes{at_user_line()} "
            f"(carried as a graph list), but an iteration replaces it by {describe(out)} "
            f"(e.g. `{label} = {label} + [v]`): a symbolic loop grows a list only through "
            f"{label}.append(v). Write "
            f"`{label}.append(v)`, or build an array (np.concatenate / np.append), whose "
            "changing length the loop relaxes to unknown.")
    if len(out_shape) != len(shape):
        raise ValueError(
            f"Loop variable {label} has shape {_fmt_shape(shape)} before the loop but "
            f"{_fmt_shape(out_shape)} after one iteration{at_user_line()}: its rank (number of "
            "dimensions) must not change inside a symbolic loop (a changing dimension is "
            "relaxed to unknown, a changing rank is not). Give it its final rank before "
            "the loop, e.g. with np.reshape or np.expand_dims.")
    if any(d is not None and d != o for d, o in zip(shape, out_shape)):
        relaxed = tuple(None if a != b else a for a, b in zip(shape, out_shape))
        raise ValueError(
            f"Loop variable {label} has shape {_fmt_shape(shape)} before the loop but "
            f"{_fmt_shape(out_shape)} after one iteration{at_user_line()}, which does not fit the shape "
            f"invariant given for it. Relax the changing dimension: ag.set_loop_options("
            f"shape_invariants=[({label}, {relaxed!r})]) as the loop's first statement (or "
            "runtime.while_loop(..., shape_invariants=...)), or leave the shape invariant "
            "out (a changing dimension is then relaxed automatically)."
        )


def _shape_text(tree, leaves) -> str:
    return repr(unflatten(tree, [describe(x) for x in leaves]))
