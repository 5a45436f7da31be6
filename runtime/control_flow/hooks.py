"""What the rest of the runtime needs to know about the control-flow ops, as hooks on
their records (COND, WHILE_LOOP): how values flow into and out of their subgraphs,
which inputs are evaluated once, which branch a constant predicate takes, and the
structural check the verifier and the loader share.

Passes, graph lists, the executor's buffer plan, the verifier and the loader call these
hooks (`node.op.sources(...)`, ...) instead of asking which op a node is; a new
control-flow op fills in the same fields. The executor's hooks are attached by the executor itself
when it loads: `run` by runtime/exec/interpreter.py, `emit` (code generation) by
runtime/exec/control_emit.py.
"""
from __future__ import annotations

from typing import Callable

import numpy as np

from runtime.control_flow.cond import COND
from runtime.control_flow.while_loop import WHILE_LOOP
from runtime.core.graph import Node
from runtime.core.tensor import Tensor


# -- data flow through subgraphs (graph lists, buffer plan, constant branches) --------
def cond_sources(node: Node, index: int) -> list:
    return [node.attrs["then"].outputs[index], node.attrs["else_"].outputs[index]]


def while_sources(node: Node, index: int) -> list:
    return [node.attrs["body"].outputs[index], node.inputs[index]]


def cond_feeds(node: Node, position: int) -> list:
    """Values passed to input `position` of a branch: operand `position` of the node."""
    return [node.inputs[position + 1]] if position + 1 < len(node.inputs) else []


def while_feeds(node: Node, position: int) -> list:
    """Values a loop variable's placeholder takes: the initial value, then the body's;
    a captured value's placeholder takes the value the node passes in."""
    if position < len(node.outputs):
        return [node.inputs[position], node.attrs["body"].outputs[position]]
    return [node.inputs[position]]


def cond_once(node: Node) -> list:
    """Only the predicate is evaluated once; operands are read again in the branches."""
    return node.inputs[:1]


def while_once(node: Node) -> list:
    """Initial values are bound once, before the loop."""
    return node.inputs[:len(node.outputs)]


def cond_taken_branch(node: Node):
    pred = node.inputs[0]
    if isinstance(pred, Tensor):
        return None
    return (node.attrs["then"] if pred else node.attrs["else_"]), node.inputs[1:]


# -- structure (runtime/core/verify.py, runtime/saved/decode.py) ---------------------------
def _aval_of(x):
    if isinstance(x, Tensor):
        return x.static_shape, x.dtype
    a = np.asarray(x)
    return a.shape, a.dtype


def _fits(shape, declared) -> bool:
    return len(shape) == len(declared) and all(
        d is None or d == s for s, d in zip(shape, declared))


def check_cond(inputs: list, attrs: dict, avals: list, fail: Callable[[str], None]) -> None:
    if not inputs:
        fail("a cond needs a predicate")
    for branch in (attrs["then"], attrs["else_"]):
        if len(branch.inputs) != len(inputs) - 1:
            fail(f"branch {branch.name} takes {len(branch.inputs)} inputs, the node "
                 f"passes {len(inputs) - 1}")
        if len(branch.outputs) != len(avals):
            fail(f"branch {branch.name} gives {len(branch.outputs)} results, the node "
                 f"declares {len(avals)}")
        for x, (shape, dtype) in zip(branch.outputs, avals):
            s, d = _aval_of(x)
            if d != dtype or not _fits(s, shape):
                fail(f"branch {branch.name} gives {d}{list(s)} where the node declares "
                     f"{dtype}{list(shape)}")


def check_while(inputs: list, attrs: dict, avals: list, fail: Callable[[str], None]) -> None:
    has_max = attrs["has_max"]
    n_pass = len(inputs) - (1 if has_max else 0)
    if n_pass < len(avals):
        fail("the loop has fewer inputs than loop variables")
    g_cond, body = attrs["cond"], attrs["body"]
    for sub in (g_cond, body):
        if len(sub.inputs) != n_pass:
            fail(f"subgraph {sub.name} takes {len(sub.inputs)} inputs, the node passes {n_pass}")
    if len(body.outputs) != len(avals) or len(g_cond.outputs) != 1:
        fail("the loop body or condition gives the wrong number of results")
    for k, (shape, dtype) in enumerate(avals):
        for s, d in (_aval_of(inputs[k]), _aval_of(body.outputs[k]), _aval_of(body.inputs[k])):
            if d != dtype or not _fits(s, shape):
                fail(f"loop variable {k} is {d}{list(s)} where the node declares "
                     f"{dtype}{list(shape)}")


def _attach() -> None:
    for op, fields in (
            (COND, dict(subgraph_attrs=("then", "else_"), check=check_cond,
                        sources=cond_sources, feeds=cond_feeds, once_inputs=cond_once,
                        taken_branch=cond_taken_branch)),
            (WHILE_LOOP, dict(subgraph_attrs=("cond", "body"),
                              check=check_while, sources=while_sources, feeds=while_feeds,
                              once_inputs=while_once, loop=True))):
        for name, value in fields.items():
            setattr(op, name, value)


_attach()

