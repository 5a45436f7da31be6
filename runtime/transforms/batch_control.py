"""Batching rules of the control-flow ops, attached to the COND and WHILE_LOOP records.

- `cond`: a predicate the same for every example (unbatched) stays a real `cond` whose
  branches are batched; a batched predicate runs both branches, each under the mask of
  the examples that take it (so the other examples' NaNs, warnings and errors do not
  leak: see batching.py), and selects per example with `np.where`.
- `while_loop`: an unbatched condition (every example runs the same trip count) stays a
  real `while_loop` over the batched values; a batched one carries a per-example "still
  running" mask: the loop runs while any example runs, each iteration's new values are
  selected only for the running examples, which then test their condition again, so
  examples take their own trip counts (`break` and early `return` are part of the
  converted condition). `maximum_iterations` counts iterations for all examples alike.

Loops or branches carrying graph lists (a list grown in a symbolic loop, the states a
gradient saves) decline: they run per example as a loop (batching.py's fallback).
"""
from __future__ import annotations

import numpy as np

from runtime.control_flow import COND, WHILE_LOOP, cond, while_loop
from runtime.core.tensor import Tensor
from runtime.ops.constant import constant
from runtime.ops.functions import OPS
from runtime.ops.ufuncs import ufunc_op
from runtime.transforms.batching import attach_batch


def propagate(graph, flags) -> list:
    """Which outputs of `graph` depend on a batched input (any op, any depth)."""
    batched = {id(t) for t, f in zip(graph.inputs, flags) if f}
    for node in graph.nodes:
        if any(isinstance(x, Tensor) and id(x) in batched for x in node.inputs):
            batched.update(id(o) for o in node.outputs)
    return [isinstance(x, Tensor) and id(x) in batched for x in graph.outputs]


def _has_lists(node) -> bool:
    return any(t.dtype.kind == "O" for t in node.outputs) or \
        any(isinstance(x, Tensor) and x.dtype.kind == "O" for x in node.inputs)


def _per_example(mask, ndim: int):
    return np.reshape(mask, (-1,) + (1,) * ndim)


def _as_graph_value(v):
    return v if isinstance(v, Tensor) else constant(np.asarray(v))


def _lift(batcher, values, flags, want, templates) -> list:
    """Values batched where `want` says so (unbatched ones repeated over the batch)."""
    return [v if f or not w else batcher.broadcast(v, len(t.shape))
            for v, f, w, t in zip(values, flags, want, templates)]


def cond_rule(batcher, node, values, flags):
    if _has_lists(node):
        return None
    then, else_ = node.attrs["then"], node.attrs["else_"]
    pred, ins, in_fl = values[0], list(values[1:]), list(flags[1:])
    templates = node.outputs
    if not flags[0]:
        want = [a or b for a, b in zip(propagate(then, in_fl), propagate(else_, in_fl))]

        def branch(graph):
            def run(*xs):
                outs, out_fl = batcher.run(graph, xs, in_fl)
                return tuple(_lift(batcher, outs, out_fl, want, templates))
            return run
        outs = cond(pred, branch(then), branch(else_), operands=tuple(ins))
        return list(outs), want
    outer = batcher.mask
    take = pred if outer is None else np.logical_and(outer, pred)
    skip = np.logical_not(pred) if outer is None else np.logical_and(outer, np.logical_not(pred))
    t_outs, t_fl = batcher.masked(take).run(then, ins, in_fl)
    f_outs, f_fl = batcher.masked(skip).run(else_, ins, in_fl)
    outs = [_select(batcher, _per_example(pred, len(tmpl.shape)), t, f, tmpl)
            for t, f, tmpl in zip(t_outs, f_outs, templates)]
    return outs, [True] * len(outs)


def _is_constant(v, value: bool) -> bool:
    return not isinstance(v, Tensor) and np.ndim(v) == 0 and \
        np.asarray(v).dtype == bool and bool(v) is value


def _select(batcher, pred, t, f, template):
    """`np.where(pred, t, f)` per example; for booleans with a constant side (`a and b`
    converted: `b if a else False`) the logical op, which is the same and cheaper."""
    if template.dtype == bool:
        if _is_constant(f, False):
            return batcher.bind(ufunc_op(np.logical_and), pred, t)
        if _is_constant(t, True):
            return batcher.bind(ufunc_op(np.logical_or), pred, f)
    return batcher.bind(OPS["where"], pred, t, f)


def while_rule(batcher, node, values, flags):
    if _has_lists(node) or any(None in t.shape for t in node.outputs):
        return None
    n, has_max = len(node.outputs), node.attrs["has_max"]
    body, test = node.attrs["body"], node.attrs["cond"]
    init, caps = list(values[:n]), list(values[n:len(values) - has_max])
    fl, cap_fl = list(flags[:n]), list(flags[n:len(values) - has_max])
    limit = values[-1] if has_max else None
    if has_max and flags[-1]:
        return None
    while True:  # which carried values become batched: until nothing changes
        grown = [a or b for a, b in zip(fl, propagate(body, fl + cap_fl))]
        if grown == fl:
            break
        fl = grown
    templates = node.outputs
    if not propagate(test, fl + cap_fl)[0]:
        init = [_as_graph_value(v) for v in _lift(batcher, init, flags[:n], fl, templates)]
        return _shared_trip_count(batcher, body, test, init, caps, fl, cap_fl, limit), fl
    # a value no batched one changes (a counter) and nothing reads after the loop stays
    # one value: for every running example it is that value (all start there and run
    # each iteration), and what stopped examples would compute with it is discarded
    per_example = [f or id(t) in batcher.used for f, t in zip(fl, node.outputs)]
    init = [_as_graph_value(v) for v in _lift(batcher, init, flags[:n], per_example, templates)]
    return _masked_loop(batcher, body, test, init, caps, per_example, cap_fl, limit,
                        templates), per_example


def _shared_trip_count(batcher, body, test, init, caps, fl, cap_fl, limit) -> list:
    """Every example runs the same iterations: a real loop over the batched values."""
    def test_fn(*xs):
        return batcher.run(test, list(xs) + caps, fl + cap_fl)[0][0]

    def body_fn(*xs):
        outs, out_fl = batcher.run(body, list(xs) + caps, fl + cap_fl)
        return tuple(_lift(batcher, outs, out_fl, fl, body.outputs))
    return list(while_loop(test_fn, body_fn, tuple(init), maximum_iterations=limit))


def _masked_loop(batcher, body, test, init, caps, per_example, cap_fl, limit,
                 templates) -> list:
    """Examples stop on their own: a "still running" mask selects each iteration's values
    (of the carried values that are `per_example`; the others are shared)."""
    n = len(init)
    flags = list(per_example) + list(cap_fl)

    def still(batcher_, state, count):
        p, p_fl = batcher_.run(test, state + caps, flags)
        running = p[0] if p_fl[0] else batcher.broadcast(p[0], 0)
        if limit is not None:
            running = np.logical_and(running, count < limit)
        return running

    active = still(batcher, init, 0)
    if batcher.mask is not None:
        active = np.logical_and(active, batcher.mask)

    def test_fn(*xs):
        return np.any(xs[n])

    def body_fn(*xs):
        state, running = list(xs[:n]), xs[n]
        count = xs[n + 1] if limit is not None else None
        inner = batcher.masked(running)
        new, new_fl = inner.run(body, state + caps, flags)
        new = [v if f or not p else batcher.broadcast(v, len(t.shape))
               for v, f, p, t in zip(new, new_fl, per_example, templates)]
        new = [inner.bind(OPS["where"], _per_example(running, len(t.shape)), v, old) if p
               else v for v, old, p, t in zip(new, state, per_example, templates)]
        count = count + 1 if limit is not None else None
        running = np.logical_and(running, still(inner, new, count))
        return tuple(new) + (running,) + ((count,) if limit is not None else ())
    counter = (constant(np.asarray(0, np.int64)),) if limit is not None else ()
    out = while_loop(test_fn, body_fn, tuple(init) + (active,) + counter)
    return list(out[:n])


attach_batch(COND, cond_rule)
attach_batch(WHILE_LOOP, while_rule)
