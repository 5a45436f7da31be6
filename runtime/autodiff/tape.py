"""`GradientTape`: record operations on watched values, then run them backwards.

Eagerly, `tape.watch(x)` returns a *tape value* wrapping the array; NumPy calls on it
are computed with NumPy and recorded (untouched NumPy code stays plain NumPy). Variables
read inside the block are watched automatically. Inside a traced function the tape
remembers which graph nodes were added while it was active, and `gradient` adds the
backward computation to the same graph. A Variable read inside a cond branch or loop
body is read in the tape's graph instead, just before the control-flow node, which
captures the value: its gradient then flows out of the node like any captured value's
(a Variable that is also assigned inside the branch or body is refused).
"""
from __future__ import annotations

from typing import Any

import warnings

import numpy as np

from runtime.core import tracing
from runtime.autodiff import backprop as bp
from runtime.autodiff import jacobians
from runtime.autodiff.control_flow_grads import NodeRecord, local
from runtime.core.autodiff_hooks import read_hooks
from runtime.core.errors import user_stacklevel, where
from runtime.core import registry
from runtime.core.registry import add_node
from runtime.core.structure import flatten, unflatten
from runtime.core.tensor import Tensor
from runtime.ops.constant import constant
from runtime.autodiff.tape_values import (
    TapeValue, _EagerRecord, _eager_tapes, _hoisted, _record_eager,
)
from runtime.state.variables import READ_VARIABLE, Variable


class GradientTape:
    """Records operations on watched values so `gradient` can differentiate them.

    Works eagerly and inside `ag.function` (through `cond` and `while_loop` too), as
    `tf.GradientTape` does: `watch` the arrays to differentiate with respect to
    (Variables are watched when read), compute inside the `with` block, then call
    `gradient(target, sources)`, `jacobian` or `batch_jacobian`.

    Args:
        persistent: allow more than one `gradient` / `jacobian` call on the tape.

    Raises:
        RuntimeError: a second `gradient` call on a tape that is not persistent.

    Example:
        ```python
        import numpy as np
        import autograph as ag

        x = np.array([1.0, 2.0, 3.0])
        with ag.GradientTape() as tape:
            x = tape.watch(x)
            y = np.sum(x ** 2)
        tape.gradient(y, x)  # -> array([2., 4., 6.])
        ```
    """

    def __init__(self, persistent: bool = False):
        self.persistent = persistent
        self._used = False
        self._records: list = []
        self._watched: set = set()
        self._var_keys: dict = {}     # Variable -> ids of the values its reads produced
        self._graph = None
        self._start = self._stop = 0
        self._active = False
        self._hoisted_vars: set = set()
        self._escapes: list = []  # where watched values became plain NumPy (eager)

    # -- recording ---------------------------------------------------------------------
    def __enter__(self):
        self._graph = tracing.current_graph()
        self._active = True
        if self._graph is not None:
            self._start = len(self._graph.nodes)
            self._recording = tracing.tape_recording()
            self._recording.__enter__()
        else:
            _eager_tapes().append(self)
            registry.set_recorder(_record_eager)
        read_hooks().append(self._on_read)
        return self

    def __exit__(self, *exc):
        self._active = False
        read_hooks().remove(self._on_read)
        if not read_hooks():
            _hoisted().clear()
        if self._graph is not None:
            self._stop = len(self._graph.nodes)
            self._recording.__exit__(None, None, None)
        else:
            _eager_tapes().remove(self)
            if not _eager_tapes():
                registry.set_recorder(None)
        return False

    def _on_read(self, var, value):
        if not self._active:
            return value
        current = tracing.current_graph()
        if current is not self._graph:
            if self._graph is not None and _encloses(self._graph, current):
                return self._hoist(var, value, current)
            return value
        if self._graph is None and type(value) is not TapeValue:
            value = TapeValue(value)
        self._var_keys.setdefault(var, []).append(_key(value))
        self._keep_alive(value)
        return value

    def _hoist(self, var, value, current):
        """A read inside a cond branch or loop body of the tape's graph: read the Variable
        in the tape's graph instead and let the branch or body capture that value, so the
        gradient reaches it through the control-flow node like any captured value."""
        entry = _hoisted().get(id(value))
        if entry is not None and _encloses(entry[1].graph, self._graph):
            outer = local(entry[1], self._graph)  # an enclosing tape hoisted it further out
        else:
            outer = add_node(self._graph, READ_VARIABLE, [], {"var": var})
            value = local(outer, current)
            _hoisted()[id(value)] = (value, outer)
        self._hoisted_vars.add(var)
        self._var_keys.setdefault(var, []).append(id(outer))
        self._keep_alive(outer)
        return value

    def _keep_alive(self, value):
        self._records.append(_Anchor(value))

    def watch(self, x: Any) -> Any:
        """Watch `x` (arrays, Variables, or nested structures of them); returns it.

        Eagerly, a NumPy array cannot be watched in place: use the returned value
        (`x = tape.watch(x)`) in the computation.
        """
        leaves, tree = flatten(x)
        out = []
        for leaf in leaves:
            if isinstance(leaf, Variable):
                self._var_keys.setdefault(leaf, [])
                out.append(leaf)
                continue
            if type(leaf) is not TapeValue and not isinstance(leaf, Tensor):
                # a constant becomes a value the tape can follow, in both modes
                if self._graph is None:
                    held = np.asarray(leaf)
                    leaf = TapeValue(held)
                    leaf.pinned = isinstance(held, np.ndarray) and held.size > 0
                else:
                    leaf = _constant(leaf)
                self._keep_alive(leaf)
            self._watched.add(_key(leaf))
            out.append(leaf)
        return unflatten(tree, out)

    # -- differentiating ---------------------------------------------------------------
    def gradient(self, target: Any, sources: Any, output_gradients: Any = None) -> Any:
        """d(sum of target)/d(source) for each source, in the structure of `sources`;
        with `output_gradients` (one per target leaf), d(sum(target * og))/d(source)."""
        if self._used and not self.persistent:
            raise RuntimeError("A non-persistent GradientTape can only compute one gradient; "
                               "use GradientTape(persistent=True) to call gradient() again.")
        self._used = True
        src_leaves, tree = flatten(sources)
        keys = [self._keys_of(s) for s in src_leaves]
        wanted = {k for ks in keys for k in ks}
        target_leaves = [t for t in flatten(target)[0]]
        seeds = {}
        given = None if output_gradients is None else flatten(output_gradients)[0]
        for i, t in enumerate(target_leaves):
            if type(t) is TapeValue or isinstance(t, Tensor):
                seeds[_key(t)] = np.ones_like(t.value if type(t) is TapeValue else t) \
                    if given is None else given[i]
        # an enclosing eager tape still records: run the rules on the tape values, so it
        # records the backward computation too (higher-order gradients)
        higher = self._graph is None and bool(_eager_tapes())
        records = self._graph_records() if self._graph is not None else \
            [_recording_view(r) if higher else r for r in self._records
             if not isinstance(r, _Anchor)]
        self._check_sources(src_leaves, keys, records)
        if self._escapes:
            warnings.warn(
                "GradientTape: a watched value was converted to a plain NumPy value while the "
                f"tape recorded (at {', '.join(self._escapes)}), e.g. by `y[i] = value` into a "
                "NumPy array, np.asarray or float(); gradients do not flow through such a "
                "conversion, so they may be missing (None) or partial. Keep computing with the "
                "tape value (build arrays with np.stack / np.concatenate or "
                "runtime.index_update), or run the code in an ag.function, where `y[i] = value` "
                "is differentiable.", RuntimeWarning, stacklevel=user_stacklevel())
        cts = bp.backprop(records, seeds, wanted | set(seeds))
        results = []
        for s, ks in zip(src_leaves, keys):
            total = None
            for k in ks:
                g = cts.get(k)
                if g is not None:
                    total = g if total is None else total + g
            results.append(_as_source_dtype(total, s, keep_tape_value=higher))
        return unflatten(tree, results)

    def jacobian(self, target: Any, sources: Any, unconnected_gradients: str = "none",
                 parallel_iterations=None, experimental_use_pfor: bool = True) -> Any:
        """d(target)/d(source): shape target.shape + source.shape (see jacobians.py)."""
        return jacobians.jacobian(self, target, sources, unconnected_gradients)

    def batch_jacobian(self, target: Any, source: Any, unconnected_gradients: str = "none",
                       parallel_iterations=None, experimental_use_pfor: bool = True) -> Any:
        """Per-example jacobians: [b, *target[b].shape, *source[b].shape] (jacobians.py)."""
        return jacobians.batch_jacobian(self, target, source, unconnected_gradients)

    def _check_sources(self, sources, keys, records) -> None:
        """Every source must be watched (a Variable, `tape.watch`) or computed from a
        watched value inside the block, in both modes; else the gradient is an error
        rather than a value in one mode and None in the other."""
        seen = set(self._watched)
        for ks in self._var_keys.values():
            seen.update(ks)
        for rec in records:
            if any(k in seen for k in rec.in_keys if k is not None):
                seen.update(k for k in rec.out_keys if k is not None)
        for s, ks in zip(sources, keys):
            if isinstance(s, Variable) or all(k in seen for k in ks):
                continue
            raise ValueError(
                f"tape.gradient: a source was not watched by this tape{where()}: "
                f"{_describe_source(s)}. Watch it inside the `with` block and compute with the "
                "returned value (`x = tape.watch(x)`), or pass a value computed from watched "
                "values inside the block.")

    def _keys_of(self, source):
        if isinstance(source, Variable):
            return list(self._var_keys.get(source, []))
        return [_key(source)]

    def _graph_records(self):
        graph = tracing.current_graph()
        if graph is not self._graph:
            raise RuntimeError(f"tape.gradient{where()} must be called in the same function (and the "
                               "same branch or loop body) that the tape recorded in.")
        stop = len(graph.nodes) if self._active else self._stop
        nodes = graph.nodes[self._start:stop]
        if self._hoisted_vars:
            _check_no_assign_inside(nodes, self._hoisted_vars)
        return [NodeRecord(n) for n in nodes]




def _key(value) -> int:
    """The name of a value in the records: a tape value's key, a graph value's identity."""
    return value.key if type(value) is TapeValue else id(value)


def _encloses(outer, graph) -> bool:
    """`graph` is `outer` or nested inside it (a branch or body, at any depth)."""
    while graph is not None:
        if graph is outer:
            return True
        graph = graph.parent
    return False


def _check_no_assign_inside(nodes, variables):
    """Reads inside branches and bodies were moved before them; that is only right when
    the Variable is not assigned inside a branch or body."""
    for node in nodes:
        for sub in node.subgraphs():
            for inner in sub.walk():
                var = inner.attrs.get("var") if inner.op.effect else None  # an assignment
                if var is not None and var in variables:
                    raise NotImplementedError(
                        f"GradientTape: Variable {var.name!r} is read and assigned inside a "
                        f"conditional or loop body ({inner.origin or 'in the traced function'}) "
                        "while the tape records; its gradient through the branch or loop "
                        "is not supported. Read it into a local value before the loop and "
                        "assign after it.")


class _Anchor:
    """Holds a watched value alive so its id stays unique while the tape lives."""

    __slots__ = ("value", "out_keys", "in_keys")

    def __init__(self, value):
        self.value = value


def _describe_source(s) -> str:
    if isinstance(s, Tensor):
        return f"graph value {s.name} ({s.dtype}{list(s.shape)})"
    if isinstance(s, TapeValue):
        return "a value watched by another tape"
    return (f"a plain {type(s).__name__} (NumPy arrays cannot be watched in place)"
            if isinstance(s, (np.ndarray, np.generic, float, int)) else repr(s))


def _constant(value) -> Tensor:
    return constant(value)


def _recording_view(rec):
    """An eager record whose inputs and outputs are the tape values themselves."""
    if not isinstance(rec, _EagerRecord) or rec.keep is None:
        return rec
    view = _EagerRecord()
    view.op, view.attrs, view.origin = rec.op, rec.attrs, rec.origin
    view.in_keys, view.out_keys, view.keep = rec.in_keys, rec.out_keys, rec.keep
    view.inputs, view.outputs = list(rec.keep[0]), list(rec.keep[1])
    return view


def _as_source_dtype(g, source, keep_tape_value: bool = False):
    if g is None:
        return None
    if keep_tape_value and isinstance(g, TapeValue):
        dtype = _source_dtype(source)
        return g if g.dtype == dtype else np.astype(g, dtype)
    dtype = _source_dtype(source)
    if isinstance(g, TapeValue):
        g = g.value
    gd = g.dtype if isinstance(g, Tensor) else np.asarray(g).dtype
    return g if gd == dtype else np.astype(g, dtype)


def _source_dtype(source) -> np.dtype:
    value = source.value if isinstance(source, TapeValue) else source
    if isinstance(value, Variable):
        return value.dtype
    return value.dtype if isinstance(value, Tensor) else np.asarray(value).dtype
