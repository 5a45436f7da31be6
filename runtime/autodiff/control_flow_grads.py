"""Reverse-mode rules for `cond`, `while_loop` and `try` nodes.

Both work by *replaying* a subgraph's forward nodes inside a new trace and running
the ordinary reverse pass over the replayed nodes:

- cond: `cond(pred, vjp(then), vjp(else))` — the same predicate picks the branch;
- try: the same, on the path the node reports (the body, or the handler that ran);
- while_loop: the loop is run forward again, pushing each iteration's loop variables
  on graph lists; a second loop runs the iterations backwards, reading the saved state
  and applying the body's VJP, and sums the gradients of captured values.
"""
from __future__ import annotations

import numpy as np

from runtime.core import tracing
from runtime.autodiff.backprop import backprop
from runtime.autodiff.shapes import is_differentiable
from runtime.control_flow import COND, WHILE_LOOP, cond
from runtime.control_flow.lists import (
    is_list, list_append, list_copy, list_get, list_len, list_new, list_zeros,
)
from runtime.control_flow.try_op import TRY
from runtime.control_flow.while_loop import while_loop
from runtime.core.registry import add_node, bind
from runtime.core.rewrite import clone, each_graph
from runtime.core.tensor import Tensor


class NodeRecord:
    """A graph node seen as a record for `backprop`."""

    __slots__ = ("node", "op", "inputs", "attrs", "outputs", "in_keys", "out_keys", "origin")

    def __init__(self, node):
        self.node = node
        self.op = node.op
        self.inputs = node.inputs
        self.attrs = node.attrs
        self.outputs = node.outputs
        self.in_keys = [id(x) if isinstance(x, Tensor) else None for x in node.inputs]
        self.out_keys = [id(o) for o in node.outputs]
        self.origin = node.origin


def _clone_fresh(graph, parent):
    """A copy of subgraph `graph` for a node of `parent`, its values renamed so that no
    name is defined twice in the function's graph."""
    new, _ = clone(graph, parent)
    for g in each_graph(new):
        for t in list(g.inputs) + [o for n in g.nodes for o in n.outputs]:
            t.name = parent.fresh_name(t.name.rstrip("0123456789") or "v")
    return new


def replay(graph, args):
    """Re-emit `graph`'s nodes into the current trace on `args`; returns its outputs."""
    env = {id(ph): a for ph, a in zip(graph.inputs, args)}

    def val(x):
        return env.get(id(x), x) if isinstance(x, Tensor) else x

    current = tracing.current_graph()
    for node in graph.nodes:
        if node.op.effect and not node.outputs:
            continue  # side effects belong to the forward pass only
        ins = [val(x) for x in node.inputs]
        if node.op.saves_for_gradient:  # the forward pass saved the state already
            env[id(node.outputs[0])] = ins[0]
            continue
        if node.op.appends_in_place:
            # lists are appended in place: the replay appends to a copy, so the forward
            # pass's lists keep exactly what the forward pass put in them
            ins[0] = list_copy(ins[0])
        if node.subgraphs():
            attrs = {k: _clone_fresh(v, current) if hasattr(v, "nodes") else v
                     for k, v in node.attrs.items()}
            outs = add_node(current, node.op, ins, attrs, [(o.shape, o.dtype) for o in node.outputs])
            outs = outs if isinstance(outs, tuple) else (outs,)
        else:
            out = bind(node.op, *ins, **node.attrs)
            outs = out if node.op.num_outputs != 1 else (out,)
        for o, v in zip(node.outputs, outs or ()):
            env[id(o)] = v
    return [val(x) for x in graph.outputs]


def local(x, graph=None):
    """Tensor `x` of this graph or an enclosing one, as a value of `graph` (default: the
    current one), captured one level at a time."""
    graph = graph or tracing.current_graph()
    if not isinstance(x, Tensor) or x.graph is graph:
        return x
    return graph.capture(local(x, graph.parent))


def subgraph_vjp(graph, args, cts):
    """Cotangents of `args` for `graph(*args)` given output cotangents `cts`."""
    current = tracing.current_graph()
    # values of enclosing graphs are seen through this graph's captures
    args = [local(a, current) for a in args]
    cts = [local(g, current) for g in cts]
    start = len(current.nodes)
    outs = replay(graph, args)
    records = [NodeRecord(n) for n in current.nodes[start:]]
    seeds = {}
    for o, g in zip(outs, cts):
        if isinstance(o, Tensor) and g is not None and is_differentiable(o):
            seeds[id(o)] = seeds[id(o)] + g if id(o) in seeds else g
    wanted = {id(a) for a in args if isinstance(a, Tensor)}
    got = backprop(records, seeds, wanted)
    # A value passed twice (say as an operand and as a capture) has one placeholder here,
    # whose cotangent already sums every use: give it to the first position only.
    out, seen = [], set()
    for a in args:
        if isinstance(a, Tensor) and id(a) not in seen:
            seen.add(id(a))
            out.append(got.get(id(a)))
        else:
            out.append(None)
    return out


def _like(g, x):
    """`g` as a value with x's dtype (zeros when there is no gradient)."""
    if is_list(x):  # a graph list: its cotangent is rows of cotangents
        return g if g is not None else list_zeros(x)
    dtype = x.dtype if isinstance(x, Tensor) else np.asarray(x).dtype
    if g is None:
        return np.zeros_like(x)
    gd = g.dtype if isinstance(g, Tensor) else np.asarray(g).dtype
    return g if gd == dtype else np.astype(g, dtype)


def cond_vjp(rec, cts):
    node = rec.node
    pred, *ins = node.inputs
    diff = [i for i, x in enumerate(ins) if isinstance(x, Tensor) and is_differentiable(x)]

    def branch(g):
        def fn():
            grads = subgraph_vjp(g, ins, cts)
            return tuple(_like(grads[i], ins[i]) for i in diff)
        return fn

    grads = cond(pred, branch(node.attrs["then"]), branch(node.attrs["else_"]))
    out = [None] * len(node.inputs)
    for i, g in zip(diff, grads):
        out[i + 1] = g
    return out


def while_vjp(rec, cts):
    node = rec.node
    n_saved = node.attrs.get("saved", 0)   # state lists the forward loop filled itself
    n = len(node.outputs) - n_saved
    has_max = node.attrs["has_max"]
    n_pass = len(node.inputs) - (1 if has_max else 0)
    init, caps = list(node.inputs[:n]), list(node.inputs[n + n_saved:n_pass])
    limit = node.inputs[-1] if has_max else None
    g_cond, g_body = node.attrs["cond"], node.attrs["body"]

    if n_saved:
        saved = tuple(node.outputs[n:])
    else:
        # 1. forward again, saving every iteration's loop variables
        def fwd_cond(*state):
            return replay(g_cond, list(state[:n]) + caps)[0]

        def fwd_body(*state):
            kept = [list_append(xs, v) for xs, v in zip(state[n:], state[:n])]
            return tuple(replay(g_body, list(state[:n]) + caps)) + tuple(kept)

        stacks = tuple(list_new() for _ in range(n))
        final = while_loop(fwd_cond, fwd_body, tuple(init) + stacks, maximum_iterations=limit)
        saved = final[n:]
    body_lists = list(saved) if n_saved else []

    # 2. backwards through the saved iterations
    var_diff = [i for i in range(n) if is_differentiable(node.outputs[i])]
    cap_diff = [j for j, c in enumerate(caps) if isinstance(c, Tensor) and is_differentiable(c)]

    def bwd_cond(k, *rest):
        return k >= 0

    def bwd_body(k, *rest):
        g_vars = [None] * n
        for i, g in zip(var_diff, rest[:len(var_diff)]):
            g_vars[i] = g
        g_caps = rest[len(var_diff):]
        state = [list_get(xs, k) for xs in saved]
        grads = subgraph_vjp(g_body, state + body_lists + caps, g_vars + [None] * n_saved)
        new_vars = tuple(_like(grads[i], node.outputs[i]) for i in var_diff)
        new_caps = tuple(acc + _like(grads[n + n_saved + j], caps[j])
                         for acc, j in zip(g_caps, cap_diff))
        return (k - 1,) + new_vars + new_caps

    count = list_len(saved[0]) if n else np.int64(0)
    start = tuple(_like(cts[i], node.outputs[i]) for i in var_diff) + \
        tuple(np.zeros_like(caps[j]) for j in cap_diff)
    result = while_loop(bwd_cond, bwd_body, (count - 1,) + start)
    out = [None] * len(node.inputs)
    for pos, i in enumerate(var_diff):
        out[i] = result[1 + pos]
    for pos, j in enumerate(cap_diff):
        out[n + n_saved + j] = result[1 + len(var_diff) + pos]
    return out


def try_vjp(rec, cts):
    """The gradient through the path the `try` node took (its last output): the
    body's when it finished, else the handler's that ran (a handler that always
    raises never gives outputs, so it needs none)."""
    node = rec.node
    ins = list(node.inputs)
    path = node.outputs[-1]
    diff = [i for i, x in enumerate(ins) if isinstance(x, Tensor) and is_differentiable(x)]
    subs = [(-1, node.attrs["body"])] + [
        (node.attrs[f"code_{i}"], node.attrs[f"except_{i}"])
        for i in range(node.attrs["n_handlers"]) if node.attrs[f"except_{i}"].outputs]

    def through(g):
        def fn():
            grads = subgraph_vjp(g, ins, list(cts[:-1]))
            return tuple(_like(grads[i], ins[i]) for i in diff)
        return fn

    def pick(k):
        if k == len(subs) - 1:
            return through(subs[k][1])
        return lambda: cond(path == subs[k][0], through(subs[k][1]), pick(k + 1))

    grads = pick(0)()
    out = [None] * len(ins)
    for i, g in zip(diff, grads):
        out[i] = g
    return out


COND.grad = cond_vjp
TRY.grad = try_vjp
WHILE_LOOP.grad = while_vjp
