"""vmap: run a function written for one example on a batch, as one batched graph.

`vmap_call(fn, args, in_axes, out_axes)` traces `fn` for one example into a child graph
of the graph being traced, then `Batcher.run` walks that graph's live nodes and emits
the batched computation into the enclosing graph: a value is a pair (value, batched),
a batched value carrying the batch on axis 0. A node none of whose inputs is batched is
emitted as it is (`bind`); otherwise its record's batching rule (`OpDef.batch`, attached
by batch_rules.py and batch_control.py) emits the batched form. An op without a rule,
or whose rule declines, runs as a loop over the examples for that op only
(`loop_op`, noted once per op with a `VmapFallbackWarning`): slower, never wrong.

Inside a batched `cond` branch or `while_loop` body the batcher carries a mask of the
examples that take that path: ops then run with floating-point errors silenced (what the
other examples compute is discarded by a select) and per-example loops skip the
examples that are not active, so an untaken side's NaNs, warnings and errors do not leak.
Called outside any trace (`run_functions_eagerly`), vmap is the plain Python loop.
"""
from __future__ import annotations

import warnings
from typing import Any, Callable, Sequence

import numpy as np

from runtime.core import tracing
from runtime.core.error_index import IndexedWarning
from runtime.core.errors import user_stacklevel, where
from runtime.core.graph import Graph
from runtime.core.liveness import live_nodes
from runtime.core.registry import OpDef, add_node, bind
from runtime.core.structure import flatten, unflatten
from runtime.core.tensor import Tensor
from runtime.ops.quiet import quiet_op
from runtime.ops.vmap_loop import Held, loop_op
from runtime.state import views
from runtime.state.variables import Variable


class VmapFallbackWarning(IndexedWarning):
    """An op has no batching rule: vmap runs it as a loop over the batch (once per op)."""


_NOTED: set = set()


class Batcher:
    """Emits the batched form of per-example graphs into the graph being traced."""

    def __init__(self, size, ref, mask=None):
        self.size = size      # the batch size when static, else None
        self.ref = ref        # a batched value (its axis 0 is the batch)
        self.mask = mask      # batched bool: the examples this region runs for, or None
        self._ones = None
        self.used: set = set()  # ids of the values of the graph being run that are read

    def masked(self, mask) -> "Batcher":
        inner = Batcher(self.size, self.ref, mask)
        inner._ones = self._ones
        return inner

    # -- emitting ------------------------------------------------------------------------
    def bind(self, op: OpDef, *inputs, **attrs):
        """Apply `op` (quietly inside a masked region)."""
        return bind(quiet_op(op) if self.mask is not None else op, *inputs, **attrs)

    def bind_all(self, op: OpDef, *inputs, **attrs) -> list:
        out = self.bind(op, *inputs, **attrs)
        return [out] if op.num_outputs == 1 else list(out or ())

    def ones(self):
        """A batched bool vector of True, the template `broadcast` selects with."""
        if self._ones is None and self.size is not None:
            self._ones = np.ones(self.size, bool)
        if self._ones is None:
            axes = tuple(range(1, np.ndim(self.ref)))
            first = np.sum(self.ref != self.ref, axis=axes) if axes else self.ref != self.ref
            self._ones = np.logical_not(first) | True
        return self._ones

    def broadcast(self, value, ndim: int | None = None):
        """An unbatched value repeated along a new leading batch axis (exact values)."""
        ndim = np.ndim(value) if ndim is None else ndim
        ones = np.reshape(self.ones(), (-1,) + (1,) * ndim)
        return np.where(ones, value, value)

    def fallback(self, node, vals, flags, note: bool = True) -> tuple[list, list]:
        """Run `node` per example (a loop op), noting once that `op` has no rule (`note`:
        False for an op whose rule is this loop by design)."""
        name = node.op.name
        if note and name not in _NOTED:
            _NOTED.add(name)
            warnings.warn(f"vmap: op {name!r} has no batching rule; it runs as a loop over the "
                          f"batch{where()} (correct, but slower than a batched op).",
                          VmapFallbackWarning, stacklevel=user_stacklevel())
        ins = list(vals) + ([self.mask] if self.mask is not None else [])
        attrs = {"held": Held(node), "batched": tuple(flags), "masked": self.mask is not None}
        op = loop_op(node.op)
        graph = tracing.current_graph()
        outs = add_node(graph, op, ins, attrs)
        outs = [outs] if op.num_outputs == 1 else list(outs or ())
        return outs, [True] * len(outs)

    # -- walking -------------------------------------------------------------------------
    def run(self, graph: Graph, values: Sequence, flags: Sequence) -> tuple[list, list]:
        """Emit `graph` on (value, batched) inputs; returns its outputs' values and flags."""
        env = {id(t): (v, f) for t, v, f in zip(graph.inputs, values, flags)}

        def get(x):
            return env[id(x)] if isinstance(x, Tensor) else (x, False)
        nodes = live_nodes(graph)
        # values something reads after their node (a rule may skip work for the others)
        used = {id(x) for node in nodes for x in node.inputs} | {id(x) for x in graph.outputs}
        for node in nodes:
            ins = [get(x) for x in node.inputs]
            vals, fl = [v for v, _ in ins], [f for _, f in ins]
            if node.has_effects:
                raise NotImplementedError(
                    f"vmap: `{node.op.name}` ({node.origin or 'in the vmapped function'}) has a "
                    "side effect (ag.print, Variable.assign, assert): its per-example order is "
                    "not defined under vmap. Return the values instead and print or assign them "
                    "outside the vmapped function.")
            self.used = used  # (set again after each node: a rule may run subgraphs)
            outs, out_fl = self.apply(node, vals, fl)
            for o, v, f in zip(node.outputs, outs, out_fl):
                env[id(o)] = (v, f)
        outs = [get(x) for x in graph.outputs]
        return [v for v, _ in outs], [f for _, f in outs]

    def apply(self, node, vals, flags) -> tuple[list, list]:
        rule = batch_rule(node.op)
        if not any(flags) and not node.op.subgraph_attrs:
            return self.bind_all(node.op, *vals, **node.attrs), [False] * len(node.outputs)
        if rule is not None:
            done = rule(self, node, vals, flags)
            if done is not None and self._fits(node, *done):
                return done
        if not any(flags):
            raise NotImplementedError(f"vmap: no batching rule for control-flow op "
                                      f"{node.op.name!r}")
        return self.fallback(node, vals, flags)

    def _fits(self, node, outs, flags) -> bool:
        """A rule's outputs have the per-example dtypes and shapes (else: the loop)."""
        for t, v, f in zip(node.outputs, outs, flags):
            dtype = getattr(v, "dtype", None)
            if dtype is None or np.dtype(dtype) != t.dtype:
                return False
            shape = tuple(np.shape(v) if not isinstance(v, Tensor) else v.shape)
            shape = shape[1:] if f else shape
            if len(shape) != len(t.shape) or any(
                    a is not None and b is not None and a != b for a, b in zip(shape, t.shape)):
                return False
        return True


def batch_rule(op: OpDef) -> Callable | None:
    """The op's batching rule: its record's `batch` (ufunc records, made on first use,
    get the elementwise rule when first asked; a quiet record, runtime/ops/quiet.py, has
    its original's, which may have been attached after the quiet record was made)."""
    if op.batch is None and op.derived is not None and op.derived[0] == "quiet":
        op.batch = batch_rule(op.derived[1])
    if op.batch is None and _LAZY_RULES:
        for finder in _LAZY_RULES:
            rule = finder(op)
            if rule is not None:
                op.batch = rule
                break
    return op.batch


_LAZY_RULES: list = []  # functions op -> rule for records created on demand (ufuncs)


def attach_batch(op: OpDef, fn: Callable) -> None:
    """Make `fn` the batching rule of record `op` (one rule per op)."""
    if op.batch is not None and op.batch is not fn:
        raise RuntimeError(f"op {op.name!r} has two batching rules")
    op.batch = fn


# -- the transformation ------------------------------------------------------------------

def _axes_per_leaf(in_axes, args) -> list:
    if in_axes is None or isinstance(in_axes, int):
        return [in_axes] * len(flatten(tuple(args))[0])
    if not isinstance(in_axes, (tuple, list)) or len(in_axes) != len(args):
        raise ValueError(f"vmap: in_axes must be an int, None, or one entry per argument "
                         f"({len(args)} arguments), got {in_axes!r}.")
    out = []
    for axis, a in zip(in_axes, args):
        if axis is not None and not isinstance(axis, int):
            raise ValueError(f"vmap: each in_axes entry must be an int or None, got {axis!r}.")
        out.extend([axis] * len(flatten(a)[0]))
    return out


def _is_array(x) -> bool:
    return isinstance(x, (Tensor, np.ndarray, np.generic))


def vmap_call(fn: Callable, args: Sequence, in_axes: Any = 0, out_axes: Any = 0) -> Any:
    """`fn` mapped over axis `in_axes` of its arguments; results stacked on `out_axes`."""
    args = tuple(args)
    leaves, tree = flatten(args)
    axes = _axes_per_leaf(in_axes, args)
    sizes = set()
    moved = []
    for x, axis in zip(leaves, axes):
        if axis is None or not _is_array(x) and not isinstance(x, Variable):
            moved.append((x, False))
            continue
        if isinstance(x, Variable):
            raise TypeError(f"vmap{where()}: a Variable cannot be mapped over; read it inside the "
                            "function, or pass its value (var.value).")
        nd = np.ndim(x)
        if not -nd <= axis < nd:
            raise ValueError(f"vmap{where()}: in_axes {axis} is out of range for an argument of "
                             f"{nd} dimensions.")
        if axis % nd != 0:  # laid out as the examples are (np.take gives C-ordered copies):
            # NumPy's order of operations in a reduction follows the memory layout
            x = np.copy(np.moveaxis(x, axis, 0), order="C")
        sizes.add(x.shape[0])
        moved.append((x, True))
    if not any(b for _, b in moved):
        raise ValueError(f"vmap{where()}: no argument is mapped (every in_axes is None or the "
                         "arguments are not arrays); give in_axes for at least one array.")
    known = {s for s in sizes if s is not None}
    if len(known) > 1:
        raise ValueError(f"vmap{where()}: the mapped axes have different sizes {sorted(known)}; "
                         "every mapped argument needs the same batch size.")
    if tracing.current_graph() is None:
        return _python_loop(fn, tree, moved, out_axes)
    size = known.pop() if known else None
    ref = next(x for x, b in moved if b)
    outer = tracing.current_graph()
    graph = Graph(f"vmap_{getattr(fn, '__name__', 'fn')}", parent=outer)
    example = [graph.add_input(tuple(x.shape[1:]), x.dtype) if b else x for x, b in moved]
    batched_inputs = [t for t, (_, b) in zip(example, moved) if b]
    # an unmapped graph value is read inside through its capture (what a tape watches)
    example = [graph.capture(x) if not b and isinstance(x, Tensor) else x
               for x, (_, b) in zip(example, moved)]
    with tracing.graph_context(graph):
        out = fn(*unflatten(tree, example))
        out_leaves, out_tree = flatten(out)
        out_leaves = [x.read_value() if isinstance(x, Variable) else views.resolve(x)
                      for x in out_leaves]
        out_leaves = [graph.capture(x) if isinstance(x, Tensor) else x for x in out_leaves]
    graph.outputs = [x for x in out_leaves if isinstance(x, Tensor)]
    values = [x for x, b in moved if b] + [outer_value for outer_value, _ in graph.captures.items()]
    flags = [True] * sum(b for _, b in moved) + [False] * len(graph.captures)
    graph.inputs = batched_inputs + list(graph.captures.values())
    batcher = Batcher(size, ref)
    outs, out_flags = batcher.run(graph, values, flags)
    result = iter(outs)
    result_flags = iter(out_flags)
    final, mapped = [], []
    for leaf in out_leaves:
        if isinstance(leaf, Tensor):
            v, f = next(result), next(result_flags)
        else:
            v, f = leaf, False
        final.append(v)
        mapped.append(f or v is None)
    axes = _out_axes_per_leaf(out_axes, len(final))
    for k, (axis, f) in enumerate(zip(axes, mapped)):
        if axis is None and f:
            raise ValueError(_mapped_but_none(k))
        if axis is not None and not f:
            final[k] = batcher.broadcast(final[k])
    return _move_out(unflatten(out_tree, final), axes)


def _out_axes_per_leaf(out_axes, n: int) -> list:
    axes = [out_axes] * n if out_axes is None or isinstance(out_axes, int) else \
        flatten(tuple(out_axes) if not isinstance(out_axes, tuple) else out_axes)[0]
    if len(axes) != n:
        raise ValueError(f"vmap: out_axes {out_axes!r} does not match the {n} results.")
    return axes


def _mapped_but_none(k: int) -> str:
    return (f"vmap{where()}: out_axes=None for result {k}, which depends on the mapped "
            "arguments (it differs from example to example): give it an int out_axes, or "
            "compute it outside the mapped function.")


def _move_out(out, axes: list):
    """Put the batch axis of each result where `axes` says (None: an unmapped result,
    returned as it is)."""
    leaves, tree = flatten(out)
    moved = [x if axis is None or axis == 0 else np.moveaxis(x, 0, axis)
             for x, axis in zip(leaves, axes)]
    return unflatten(tree, moved)


def _python_loop(fn, tree, moved, out_axes):
    """Eagerly (run_functions_eagerly): call fn per example and stack, as NumPy would."""
    size = next(len(x) for x, b in moved if b)
    results = []
    for i in range(size):
        example = [x[i] if b else x for x, b in moved]
        results.append(flatten(fn(*unflatten(tree, example))))
    if not results:
        raise ValueError("vmap of an empty batch needs a trace (call the vmapped function "
                         "outside run_functions_eagerly) to know the result shapes.")
    out_tree = results[0][1]
    axes = _out_axes_per_leaf(out_axes, len(results[0][0]))
    stacked = []
    for k, axis in enumerate(axes):
        values = [r[0][k] for r in results]
        if axis is None:  # unmapped: one value, the same for every example
            if any(not np.array_equal(v, values[0], equal_nan=True) for v in values[1:]):
                raise ValueError(_mapped_but_none(k))
            stacked.append(values[0])
        else:
            stacked.append(np.stack([np.asarray(v) for v in values]))
    return _move_out(unflatten(out_tree, stacked), axes)
