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
from runtime.state import views
from runtime.state.variables import Variable


class VmapFallbackWarning(IndexedWarning):
    """An op has no batching rule: vmap runs it as a loop over the batch (once per op)."""


_NOTED: set = set()


class _Held:
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


def loop_op(op: OpDef) -> OpDef:
    """The record of `op` run as a loop over the batch (one per op)."""
    rec = _LOOP_OPS.get(op)
    if rec is None:
        rec = _LOOP_OPS[op] = OpDef(f"vmap_loop[{op.name}]", _loop_kernel, _loop_avals,
                                    num_outputs=op.num_outputs if op.num_outputs >= 0 else -1,
                                    stateful=op.stateful)
    return rec


try:  # what np.errstate sets, without its per-use cost (~6 us against ~1 us)
    from numpy._core._multiarray_umath import _extobj_contextvar, _make_extobj
    _IGNORE = _make_extobj(all="ignore")
except ImportError:  # another NumPy layout: np.errstate itself
    _extobj_contextvar = None


def _quiet_kernel(kernel):
    if _extobj_contextvar is None:
        def quiet(*args, **kwargs):
            with np.errstate(all="ignore"):
                return kernel(*args, **kwargs)
    else:
        def quiet(*args, **kwargs):
            token = _extobj_contextvar.set(_IGNORE)
            try:
                return kernel(*args, **kwargs)
            finally:
                _extobj_contextvar.reset(token)
    quiet.__name__ = getattr(kernel, "__name__", "kernel")
    return quiet


def _never_warns(kernel) -> bool:
    """A ufunc whose every loop gives booleans (comparisons, logic, isnan...): it sets
    no floating-point error flag, so it needs no silencing."""
    return isinstance(kernel, np.ufunc) and all(t.endswith("?") for t in kernel.types
                                                if "O" not in t)


_QUIET_OPS: dict = {}


def quiet_op(op: OpDef) -> OpDef:
    """`op` with floating-point errors silenced (for examples whose result is discarded)."""
    if op.format is not None or op.kernel is None or _never_warns(op.kernel):
        return op
    rec = _QUIET_OPS.get(op)
    if rec is None:
        rec = _QUIET_OPS[op] = OpDef(op.name, _quiet_kernel(op.kernel),
                                     lambda _, ins, attrs: op.abstract_eval(op, ins, attrs),
                                     num_outputs=op.num_outputs, grad=op.grad, batch=op.batch)
    return rec


class Batcher:
    """Emits the batched form of per-example graphs into the graph being traced."""

    def __init__(self, size, ref, mask=None):
        self.size = size      # the batch size when static, else None
        self.ref = ref        # a batched value (its axis 0 is the batch)
        self.mask = mask      # batched bool: the examples this region runs for, or None
        self._ones = None

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
        attrs = {"held": _Held(node), "batched": tuple(flags), "masked": self.mask is not None}
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
        for node in live_nodes(graph):
            ins = [get(x) for x in node.inputs]
            vals, fl = [v for v, _ in ins], [f for _, f in ins]
            if node.has_effects:
                raise NotImplementedError(
                    f"vmap: `{node.op.name}` ({node.origin or 'in the vmapped function'}) has a "
                    "side effect (ag.print, Variable.assign, assert): its per-example order is "
                    "not defined under vmap. Return the values instead and print or assign them "
                    "outside the vmapped function.")
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
    get the elementwise rule when first asked)."""
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
        x = np.moveaxis(x, axis, 0) if axis % nd != 0 else x
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
    final = []
    for leaf in out_leaves:
        if isinstance(leaf, Tensor):
            v, f = next(result), next(result_flags)
        else:
            v, f = leaf, False
        final.append(v if f or v is None else batcher.broadcast(v))
    return _move_out(unflatten(out_tree, final), out_axes)


def _move_out(out, out_axes):
    leaves, tree = flatten(out)
    axes = [out_axes] * len(leaves) if out_axes is None or isinstance(out_axes, int) else \
        flatten(tuple(out_axes) if not isinstance(out_axes, tuple) else out_axes)[0]
    if len(axes) != len(leaves):
        raise ValueError(f"vmap: out_axes {out_axes!r} does not match the {len(leaves)} results.")
    moved = []
    for x, axis in zip(leaves, axes):
        if axis is None:
            raise NotImplementedError("vmap: out_axes=None (an unmapped result) is not supported;"
                                      " return the value from outside the vmapped function.")
        moved.append(np.moveaxis(x, 0, axis) if axis != 0 else x)
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
    stacked = [np.stack([np.asarray(r[0][k]) for r in results])
               for k in range(len(results[0][0]))]
    return _move_out(unflatten(out_tree, stacked), out_axes)
