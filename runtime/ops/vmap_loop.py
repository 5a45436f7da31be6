"""`loop_op(op)`: an op run once per example of a batch, its results stacked.

vmap (runtime/transforms/) batches each op by its record's rule; an op without one runs
as this loop, for that op only. The loop op holds the per-example node (`Held`: its op,
attributes and per-example output shapes), which is also what a saved graph stores of it
(`derived = ("vmap_loop", op)`), so a vmapped function saves and loads.

    vmap_loop[inv](xs)   # np.stack([np.linalg.inv(x) for x in xs])
"""
from __future__ import annotations

import numpy as np

from runtime.core.registry import OpDef
from runtime.core.tensor import Tensor


class PerExample:
    """A per-example value's shape and dtype, as a loaded loop op's held node shows them."""

    __slots__ = ("shape", "dtype")

    def __init__(self, shape: tuple, dtype):
        self.shape, self.dtype = tuple(shape), np.dtype(dtype)

    @staticmethod
    def node(op: OpDef, attrs: dict, outputs: list):
        """A stand-in for the per-example node of a loaded graph: what the loop reads."""
        return _LoadedNode(op, attrs, outputs)


class _LoadedNode:
    __slots__ = ("op", "attrs", "outputs")

    def __init__(self, op, attrs, outputs):
        self.op, self.attrs, self.outputs = op, attrs, outputs


class Held:
    """Keeps a per-example node in a loop op's attributes (not a subgraph attribute, so
    passes do not treat the loop op as control flow)."""

    __slots__ = ("node",)

    def __init__(self, node):
        self.node = node

    def __repr__(self) -> str:
        return f"<per-example {self.node.op.name}>"


def _run_example(node, ins):
    if node.op.run is not None:  # control flow: the reference interpreter's hook
        return node.op.run(node, ins)
    result = node.op.kernel(*ins, **node.attrs)
    return [result] if node.op.num_outputs == 1 else list(result or ())


def _loop_kernel(*ins, held, batched, masked):
    """Run the held node once per example and stack its outputs (inactive examples of a
    masked region are skipped and left as zeros)."""
    node = held.node
    mask = ins[-1] if masked else None
    ins = ins[:-1] if masked else ins
    size = next(len(x) for x, b in zip(ins, batched) if b)
    outs = None
    for i in range(size):
        if mask is not None and not mask[i]:
            continue
        res = _run_example(node, [x[i] if b else x for x, b in zip(ins, batched)])
        if outs is None:
            outs = [_empty(size, np.shape(r), t.dtype) for r, t in zip(res, node.outputs)]
        for o, r in zip(outs, res):
            o[i] = r
    if outs is None:  # no active example
        outs = [_empty(size, tuple(0 if d is None else d for d in t.shape), t.dtype)
                for t in node.outputs]
    return outs[0] if len(outs) == 1 else tuple(outs)


def _empty(size, shape, dtype):
    if np.dtype(dtype).kind == "O":
        return np.empty((size,) + tuple(shape), dtype)
    return np.zeros((size,) + tuple(shape), dtype)


def _loop_avals(op, ins, attrs):
    held, batched = attrs["held"], attrs["batched"]
    size = next(x.shape[0] if isinstance(x, Tensor) else len(x)
                for x, b in zip(ins, batched) if b)
    return [((size,) + tuple(t.shape), t.dtype) for t in held.node.outputs]


_LOOP_OPS: dict = {}
_GRADIENT: list = [None]


def set_gradient_rule(rule) -> None:
    """The gradient rule of every loop op (runtime/transforms/batch_grad.py: it batches
    the per-example op's own rule, which needs the batching transform above this layer)."""
    _GRADIENT[0] = rule


def loop_op(op: OpDef) -> OpDef:
    """The record of `op` run as a loop over the batch (one per op)."""
    rec = _LOOP_OPS.get(op)
    if rec is None:
        rec = _LOOP_OPS[op] = OpDef(f"vmap_loop[{op.name}]", _loop_kernel, _loop_avals,
                                    num_outputs=op.num_outputs if op.num_outputs >= 0 else -1,
                                    stateful=op.stateful, derived=("vmap_loop", op),
                                    grad=_GRADIENT[0] if op.grad is not None else None)
    return rec
