"""Quiet groups: one floating-point silencing around a run of quiet ops, not one per op.

vmap makes the ops of a batched `if`/`while` quiet (runtime/ops/quiet.py): they run under
`np.errstate(all="ignore")`, because the values of the examples a region does not run for
are computed and discarded. A quiet kernel sets and resets the errstate around each call,
and, being a Python wrapper, it hides the op from the executor's operator spelling
(`a * b`), its `out=` buffers and inlining. The code generator instead silences a run of
consecutive quiet nodes once and spells each as its original op:

    fp_quiet = errstate_set(ignore_all)
    try:
        v3 = v1 * v2
        np_subtract(v3, a, v3)
    finally:
        errstate_reset(fp_quiet)

A run holds quiet nodes and nodes that never touch floating-point flags (comparisons,
logic, reshapes, `np.where`, indexing); any other node ends it, so it keeps the caller's
errstate exactly as before. A control-flow node whose nodes (at any depth) are all quiet
or flag-free joins a run whole, its subgraphs spelled inside: a batched `while` sets the
errstate once per call, not per op and iteration. Nodes run on the thread pool
(offloaded) keep their quiet kernel, since the errstate belongs to a thread.
"""
from __future__ import annotations

import numpy as np

from runtime.core.graph import Node
from runtime.ops.functions import OPS
from runtime.ops.indexing import GETITEM
from runtime.ops.quiet import errstate_var, ignore_all, never_warns

QUIET, FREE, LOUD = "quiet", "free", "loud"

# ops that move or select values without floating-point arithmetic
_FLAG_FREE = frozenset([GETITEM] + [OPS[name] for name in (
    "reshape", "expand_dims", "squeeze", "where", "any", "all", "transpose", "broadcast_to",
    "moveaxis", "swapaxes", "copy")])


def kind(node: Node) -> str:
    """QUIET (runs silenced), FREE (sets no floating-point flag) or LOUD."""
    op = node.op
    if op.derived is not None and op.derived[0] == "quiet":
        return QUIET
    subgraphs = node.subgraphs()
    if subgraphs:
        inner = {kind(n) for g in subgraphs for n in g.nodes}
        return LOUD if LOUD in inner or op.effect else QUIET if QUIET in inner else FREE
    if op.effect or op.stateful:
        return LOUD
    if op in _FLAG_FREE or isinstance(op.kernel, np.ufunc) and never_warns(op.kernel):
        return FREE
    return LOUD


def _plain(node: Node) -> Node:
    """The node with its quiet op replaced by the original (the same values)."""
    plain = Node(node.op.derived[1], node.inputs, node.attrs, node.origin)
    plain.outputs = node.outputs
    return plain


def plan_groups(nodes: list, inside: bool, keep: set) -> tuple[list, list]:
    """(nodes to emit, zone of each): quiet nodes in a run become their original op and
    the run's zone (its index); other nodes get None. `inside`: the body is already
    silenced (a subgraph of a control-flow node in a run): every quiet node becomes its
    original op, and no zone opens. `keep`: indices of nodes run elsewhere (offloaded,
    chunked), which stay as they are and end a run."""
    kinds = [LOUD if k in keep else kind(n) for k, n in enumerate(nodes)]
    if inside:
        return [_plain(n) if q == QUIET and k not in keep and not n.subgraphs() else n
                for k, (n, q) in enumerate(zip(nodes, kinds))], [None] * len(nodes)
    zones: list = [None] * len(nodes)
    k = 0
    while k < len(nodes):
        if kinds[k] == LOUD:
            k += 1
            continue
        end = k
        while end < len(nodes) and kinds[end] != LOUD:
            end += 1
        if QUIET in kinds[k:end]:
            # flag-free nodes at the edges stay outside (nothing to gain inside)
            first = next(j for j in range(k, end) if kinds[j] == QUIET)
            last = max(j for j in range(k, end) if kinds[j] == QUIET)
            for j in range(first, last + 1):
                zones[j] = first
        k = end
    out = [_plain(n) if z is not None and q == QUIET and not n.subgraphs() else n
           for n, q, z in zip(nodes, kinds, zones)]
    return out, zones


def open_group(gen, indent: int) -> str:
    """Start silencing; returns the token `close_group` restores."""
    if errstate_var is None:  # another NumPy layout: np.errstate itself
        gen.emit(indent, f"with {gen.const(np.errstate, 'errstate')}(all='ignore'):")
        return ""
    token = gen.fresh("fp_quiet")
    gen.emit(indent, f"{token} = {gen.const(errstate_var.set, 'errstate_set')}("
                     f"{gen.const(ignore_all, 'ignore_all')})")
    gen.emit(indent, "try:")
    return token


def close_group(gen, indent: int, token: str, start: int) -> None:
    """End the silencing `open_group` began (`start`: the line count after it)."""
    if len(gen.lines) == start:
        gen.emit(indent + 1, "pass")
    if token:
        gen.emit(indent, "finally:")
        gen.emit(indent + 1, f"{gen.const(errstate_var.reset, 'errstate_reset')}({token})")
