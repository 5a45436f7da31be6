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

import threading
import warnings

import numpy as np

from runtime.core import tracing
from runtime.autodiff import backprop as bp
from runtime.autodiff import jacobians
from runtime.autodiff.control_flow_grads import NodeRecord, local
from runtime.core.autodiff_hooks import read_hooks
from runtime.core.errors import where
from runtime.core import registry
from runtime.core.registry import add_node
from runtime.core.structure import flatten, unflatten
from runtime.core.tensor import NumpyOperators, Tensor
from runtime.ops.constant import constant
from runtime.ops.functions import dispatch_function
from runtime.ops.indexing import getitem
from runtime.ops.more import register_symbolic_type
from runtime.ops.ufuncs import dispatch_ufunc
from runtime.state.variables import READ_VARIABLE, Variable

_local = threading.local()  # per thread: the open eager tapes, and hoisted reads


def _eager_tapes() -> list:
    tapes = getattr(_local, "tapes", None)
    if tapes is None:
        tapes = _local.tapes = []
    return tapes


def _hoisted() -> dict:
    """id(value a branch/body got for a hoisted Variable read) -> (value, outer read)."""
    hoisted = getattr(_local, "hoisted", None)
    if hoisted is None:
        hoisted = _local.hoisted = {}
    return hoisted


class TapeValue(NumpyOperators):
    """An array being watched by an eager tape (behaves like the array it wraps)."""

    __slots__ = ("value", "shares_memory")

    def __init__(self, value):
        self.value = value
        self.shares_memory = False  # a view of it was taken, or it is one (see _record_eager)

    shape = property(lambda self: np.shape(self.value))
    dtype = property(lambda self: np.asarray(self.value).dtype)
    ndim = property(lambda self: np.ndim(self.value))
    size = property(lambda self: np.size(self.value))

    # While a tape records, NumPy calls go through the op table (and are recorded);
    # after the block a tape value is just its array.
    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        if registry.recorder() is None:
            return getattr(ufunc, method)(*_unwrap(inputs), **kwargs)
        return dispatch_ufunc(ufunc, method, inputs, kwargs)

    def __array_function__(self, func, types, args, kwargs):
        if registry.recorder() is None:
            return func(*_unwrap(args), **{k: _unwrap(v) for k, v in kwargs.items()})
        return dispatch_function(func, args, kwargs)

    def __getitem__(self, index):
        if registry.recorder() is None:
            return self.value[_unwrap(index)]
        return getitem(self, index)

    # An implicit conversion while a tape records (`y[i] = v` into a NumPy array,
    # np.asarray, float()) hands the value to plain NumPy, where no gradient follows it:
    # noted, and reported by `gradient` (`.numpy()` is the explicit, silent way out).
    def __array__(self, dtype=None, copy=None):
        _note_escape(self)
        return np.asarray(self.value, dtype=dtype)

    def __bool__(self):
        return bool(self.value)

    def __float__(self):
        _note_escape(self)
        return float(self.value)

    def __int__(self):
        _note_escape(self)
        return int(self.value)

    def __index__(self):
        _note_escape(self)
        return int(self.value)

    def __setitem__(self, index, value):
        raise TypeError(
            f"`y[i] = value` into a value watched by an eager GradientTape{where()}: the "
            "tape cannot write into its values in place. Write `y = runtime.index_update("
            "y, i, value)` (differentiable), or run the code in an ag.function, where "
            "`y[i] = value` is differentiable.")

    def __len__(self):
        return len(self.value)

    # `y += v` on a tape value computes `y + v` and rebinds `y` (its values are recorded,
    # so they are never written in place). NumPy would write into y's memory, which a view
    # taken earlier (`r = y[1:3]`) sees: where such a view exists, that difference would
    # be silent, so it is refused.
    def _in_place(self, name: str, op: str, other):
        if self.shares_memory and registry.recorder() is not None:
            raise TypeError(
                f"`y {op} v` on a value watched by an eager GradientTape{where()}, which shares "
                "memory with a view of it taken earlier (`r = y[...]`): NumPy would write "
                "through to the view, but the tape never writes its values in place. Write "
                f"`y = y {op[:-1]} v` if the view should keep the old values, or run the code in "
                "an ag.function, where views see the write.")
        return getattr(self, f"__{name}__")(other)

    def __iter__(self):
        return (self[i] for i in range(len(self)))

    def numpy(self):
        return np.asarray(self.value)

    def __repr__(self) -> str:
        return f"TapeValue({self.value!r})"


def _note_escape(value: TapeValue) -> None:
    if registry.recorder() is None or np.asarray(value.value).dtype.kind not in "fc":
        return  # not recording, or an integer (an index, a count): no gradient lost
    place = where().strip().removeprefix("(at ").removesuffix(")") or "an unknown place"
    for tape in _eager_tapes():
        if place not in tape._escapes:
            tape._escapes.append(place)


register_symbolic_type(TapeValue)  # ops/more.py: kept in NumPy calls, never np.asarray'd


def _unwrap(x):
    if type(x) is TapeValue:
        return x.value
    if type(x) in (tuple, list):
        return type(x)(_unwrap(v) for v in x)
    return x


class _EagerRecord:
    __slots__ = ("op", "inputs", "attrs", "outputs", "in_keys", "out_keys", "keep", "origin")


def _record_eager(op, inputs, attrs):
    """bind() while an eager tape is recording: compute, and record if watched."""
    if not any(type(x) is TapeValue for x in inputs):
        return op.kernel(*inputs, **attrs)
    raw = [x.value if type(x) is TapeValue else x for x in inputs]
    out = op.kernel(*raw, **attrs)
    outs = [out] if op.num_outputs == 1 else list(out or ())
    wrapped = [TapeValue(o) if np.asarray(o).dtype.kind in "fc" else o for o in outs]
    for x in inputs:  # a view of a tape value: both then share memory (see `_in_place`)
        if type(x) is TapeValue and isinstance(x.value, np.ndarray):
            for o, w in zip(outs, wrapped):
                if type(w) is TapeValue and isinstance(o, np.ndarray) and o.size and \
                        np.may_share_memory(o, x.value):
                    x.shares_memory = w.shares_memory = True
    rec = _EagerRecord()
    rec.op, rec.inputs, rec.attrs, rec.outputs = op, raw, attrs, outs
    rec.in_keys = [id(x) if type(x) is TapeValue else None for x in inputs]
    rec.out_keys = [id(w) if type(w) is TapeValue else None for w in wrapped]
    rec.keep = (inputs, wrapped)  # keep the ids alive while the record lives
    rec.origin = None
    for tape in _eager_tapes():
        tape._records.append(rec)
    if op.num_outputs == 1:
        return wrapped[0]
    return tuple(wrapped) if op.num_outputs else None


class GradientTape:
    """Records operations on watched values so `gradient` can differentiate them."""

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
        if self._graph is None and not isinstance(value, TapeValue):
            value = TapeValue(value)
        self._var_keys.setdefault(var, []).append(id(value))
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
            if not isinstance(leaf, (TapeValue, Tensor)):
                # a constant becomes a value the tape can follow, in both modes
                leaf = TapeValue(np.asarray(leaf)) if self._graph is None else _constant(leaf)
                self._keep_alive(leaf)
            self._watched.add(id(leaf))
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
            if isinstance(t, (TapeValue, Tensor)):
                seeds[id(t)] = np.ones_like(t.value if isinstance(t, TapeValue) else t) \
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
                "is differentiable.", RuntimeWarning, stacklevel=2)
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
        return [id(source)]

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
    if not isinstance(rec, _EagerRecord):
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


def _tape_in_place_operator(name: str, op: str):
    def method(self, other):
        return self._in_place(name, op, other)
    method.__name__ = f"__i{name}__"
    return method


for _name, _op in (("add", "+="), ("sub", "-="), ("mul", "*="), ("truediv", "/="),
                   ("floordiv", "//="), ("mod", "%="), ("pow", "**="), ("matmul", "@=")):
    setattr(TapeValue, f"__i{_name}__", _tape_in_place_operator(_name, _op))
del _name, _op

