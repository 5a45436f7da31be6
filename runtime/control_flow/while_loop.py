"""`while_loop`: a loop whose condition is symbolic, traced into cond and body subgraphs.

When the condition is a Python bool the loop runs as Python; if it turns symbolic
part-way (its loop variables became Tensors), the loop hands over to a graph
`while_loop` from the current state. Loop variables keep their dtype and shape across
an iteration; a Python scalar takes the dtype the body gives it (`i = 0` then
`i = i + n` with an int32 `n` is an int32 loop variable). A dimension an iteration
changes becomes unknown (None) automatically, as in TF (the body is traced again);
`shape_invariants` states the shape explicitly, and then the body must fit it. A "no
value yet" placeholder as a loop variable takes the type the body gives it. What the
traces teach is learned in `learn_types.py`; this module traces and builds the node.
"""
from __future__ import annotations

from typing import Any, Callable, Sequence

import numpy as np

from runtime.core import tracing
from runtime.state import view_links
from runtime.control_flow.common import (
    as_value, at_user_line, aval_of, check_scalar_predicate, describe, finish_captures,
    is_python_scalar, same_constant, trace_subgraph, check_number_fits,
)
from runtime.control_flow.learn_types import (
    LoopTypes, check_placeholders_given, is_carried, is_placeholder, unassigned,
)
from runtime.control_flow.path_kinds import LoopKinds
from runtime.control_flow.lists import LoopCarryError, is_list, list_new, save_state
from runtime.core.registry import OpDef, add_node
from runtime.core.naming import note_names
from runtime.core.structure import flatten, unflatten
from runtime.core.tensor import Tensor, _fmt_shape


WHILE_LOOP = OpDef("while_loop", None, num_outputs=-1)


def while_loop(cond_fn: Callable, body_fn: Callable, loop_vars: Sequence, maximum_iterations: Any = None,
               names=None, shape_invariants=None, flags: Sequence[str] = ()):
    """Run `while cond_fn(*v): v = body_fn(*v)` and return the final loop variables.
    `flags`: names of variables only tested, never returned (a converted `break`'s flag),
    whose kind of value (Python bool or NumPy's) need not be carried."""
    loop_vars = tuple(loop_vars)
    if isinstance(maximum_iterations, Tensor):
        # a symbolic limit cannot be counted in Python: the whole loop is a graph loop
        return _graph_while(cond_fn, body_fn, loop_vars, maximum_iterations, names,
                            shape_invariants, flags=flags)
    iterations = 0
    while True:
        if maximum_iterations is not None and iterations >= maximum_iterations:
            return loop_vars
        keep_going = cond_fn(*loop_vars)
        if isinstance(keep_going, Tensor):
            remaining = None if maximum_iterations is None else maximum_iterations - iterations
            return _graph_while(cond_fn, body_fn, loop_vars, remaining, names, shape_invariants,
                                flags=flags)
        if not keep_going:
            return loop_vars
        loop_vars = tuple(body_fn(*loop_vars))
        iterations += 1


def _graph_while(cond_fn, body_fn, loop_vars, maximum_iterations, names, shape_invariants,
                 save_states: bool | None = None, carry_kinds: bool = True, flags=()):
    if save_states is None:
        save_states = tracing.tapes_recording() > 0
    if save_states:
        saved = _saving_while(cond_fn, body_fn, loop_vars, maximum_iterations, names,
                              shape_invariants)
        if saved is not None:
            return saved
    graph = tracing.current_graph()
    types = LoopTypes(tuple(loop_vars), names, shape_invariants)
    kinds = LoopKinds(types, flags) if carry_kinds else None

    def call(fn):
        def run(*phs):
            vals = list(types.leaves)
            for i, ph in zip(types.carried, phs):
                vals[i] = ph
            if kinds is not None:
                kinds.enter(vals, phs[len(types.carried):])
            return fn(*unflatten(types.tree, vals))
        return run

    def arg_avals():
        return types.arg_avals() + (kinds.avals() if kinds is not None else [])

    tried_lists = None
    # Each round traces the body with the types known so far; what it teaches (a dtype a
    # number takes, a dimension that changes, a value for a placeholder) needs another.
    while True:
        try:
            g_body, out_leaves, out_tree = trace_subgraph("body", call(body_fn),
                                                          arg_avals(), [], graph)
        except Exception as e:
            if tried_lists or not _lists_as_graph_lists(types):
                raise
            tried_lists = e
            kinds is not None and kinds.follow(types.moved)
            continue  # e.g. a symbolic `if` appends to a Python list: carry it as a graph list
        # a variable whose kind changes: its placeholder carries it (the kinds are learned
        # first: they read which placeholders yielded in this trace)
        learned = kinds is not None and out_tree == types.tree and kinds.learn(out_leaves)
        if out_tree == types.tree and types.learn(out_leaves):
            learned = True
        outputs = unflatten(out_tree, out_leaves)
        if out_tree != types.tree and types.grow_lists(outputs):
            kinds is not None and kinds.follow(types.moved)
            continue  # a Python list the body grows: carry it as a graph list
        check_placeholders_given(types.leaves, types.tree, outputs, types.labels,
                                 at_user_line())
        if types.fill(outputs):
            kinds is not None and kinds.follow(types.moved)
            continue  # the body gives a placeholder a value: carry it
        if out_tree != types.tree:
            raise ValueError(
                f"The loop body{at_user_line()} changes the structure of the loop variables: "
                f"{_shape_text(types.tree, types.leaves)} before, "
                f"{_shape_text(out_tree, out_leaves)} after."
            )
        if not learned:
            break
    leaves, tree, labels, avals, carried = (types.leaves, types.tree, types.labels,
                                            types.avals, types.carried)
    for i, (a, b) in enumerate(zip(leaves, out_leaves)):
        if i not in avals:
            if not same_constant(a, b) and not unassigned(a, b):
                raise ValueError(f"{labels[i]} is {describe(a)} before the loop{at_user_line()} and "
                                 f"{describe(b)} after an iteration; a loop variable that is "
                                 "not a number or array must not change inside a symbolic loop.")
            continue
        _check_loop_var(labels[i], avals[i], b)
    g_body.outputs = [as_value(g_body, out_leaves[i], avals[i][1]) for i in carried]
    n_state = len(carried)
    if kinds is not None:
        kinds.finish(out_leaves)
        g_body.outputs += kinds.values(g_body, 1)
        n_state += len(kinds.avals())

    g_cond, c_leaves, _ = trace_subgraph("cond", call(cond_fn), arg_avals(), [], graph)
    if len(c_leaves) != 1:
        raise ValueError(f"The loop condition{at_user_line()} must be a single scalar value.")
    pred = c_leaves[0]
    if isinstance(pred, Tensor):
        check_scalar_predicate(pred, "loop condition")
    g_cond.outputs = [as_value(g_cond, pred)]
    caps = finish_captures([g_cond, g_body], n_state)
    init = [_initial(leaves[i], avals[i][1]) for i in carried]
    if kinds is not None:
        init += kinds.values(graph, 0)
    attrs = {"cond": g_cond, "body": g_body, "has_max": maximum_iterations is not None}
    inputs = init + caps + ([maximum_iterations] if maximum_iterations is not None else [])
    outs = add_node(graph, WHILE_LOOP, inputs, attrs,
                    [avals[i] for i in carried] + [a[:2] for a in arg_avals()[len(carried):]])
    if kinds is not None:
        kinds.note(graph, outs)
    outs = outs[:len(carried)]
    if names is not None:  # the user's names, for the listing and the picture only
        carried_labels = [labels[i] for i in carried]
        note_names(graph, list(outs), carried_labels)
        for g in (g_body, g_cond):
            note_names(graph, g.inputs[:len(carried)], carried_labels)
    for i, value in zip(carried, outs):  # (their dtype yields to typed operands, NEP 50)
        value.weak = i in types.weak
    view_links.link_outputs([leaves[i] for i in carried], [g_body], list(outs),
                            list(range(len(carried))),
                            [labels[i] if names is not None else None for i in carried])
    view_links.numpy_arrays_out(  # (paths: an iteration, and none)
        list(outs), [[out_leaves[i] for i in carried], [leaves[i] for i in carried]],
        [leaves[i] for i in carried],
        [labels[i] if names is not None else None for i in carried])
    final = list(leaves)
    for i, value in zip(carried, outs):
        final[i] = value
    return unflatten(tree, final)


def _saving_while(cond_fn, body_fn, loop_vars, maximum_iterations, names, shape_invariants):
    """Under a gradient tape: the loop also saves each iteration's state on graph lists
    (marked `saved` on the node), so the gradient runs it backwards without running the
    loop forward a second time. Loops carrying graph lists keep the re-running rule."""
    leaves, tree = flatten(loop_vars)
    carried = [i for i, x in enumerate(leaves) if is_carried(x)]
    if any(is_list(leaves[i]) for i in carried) or any(map(is_placeholder, leaves)):
        return None  # (a placeholder's state, typed only by tracing, is not saved)
    k = len(loop_vars)
    graph = tracing.current_graph()
    start = len(graph.nodes)
    stacks = tuple(list_new() for _ in carried)

    def cond2(*state):
        return cond_fn(*state[:k])

    def body2(*state):
        current, now = flatten(tuple(state[:k]))
        if now != tree:  # a Python list the body grows became a graph list: not saved
            raise _ListGrown()
        saved = tuple(save_state(xs, current[i]) for xs, i in zip(state[k:], carried))
        return tuple(body_fn(*state[:k])) + saved

    labels = None if names is None else list(names) + [f"saved_state{j}" for j in carried]
    invariants = None if shape_invariants is None else \
        list(shape_invariants) + [None] * len(stacks)
    try:
        out = _graph_while(cond2, body2, tuple(loop_vars) + stacks, maximum_iterations, labels,
                           invariants, save_states=False, carry_kinds=False)
    except _ListGrown:
        del graph.nodes[start:]
        return None
    node = tracing.current_graph().nodes[-1]
    node.attrs["saved"] = len(stacks)
    return tuple(out[:k])


def _lists_as_graph_lists(types) -> bool:
    """Every Python list loop variable as a graph list, after a body trace failed with
    them as structures; whether there was one (else, or if one cannot be, False)."""
    try:
        return types.grow_lists(None, every=True)
    except (TypeError, ValueError):
        return False


class _ListGrown(Exception):
    """A loop traced to save its states grows a Python list (carried as a graph list)."""


def _initial(x, dtype):
    if isinstance(x, Tensor):
        return x if x.dtype == dtype else np.astype(x, dtype)
    value = np.asarray(x, dtype=dtype)
    return value[()] if value.ndim == 0 else value  # a NumPy scalar, as NumPy ops return


class LoopDtypeChange(TypeError, LoopCarryError):
    """An iteration gives a loop variable a dtype NumPy would not widen it to."""


class LoopRankChange(ValueError, LoopCarryError):
    """An iteration changes a loop variable's rank."""


def _check_loop_var(label, aval, out):
    shape, dtype = aval
    out_shape, out_dtype = aval_of(out)
    if out_dtype != dtype and not is_python_scalar(out):
        raise LoopDtypeChange(
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
        raise LoopRankChange(
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
