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

import itertools
import operator
import threading
import warnings
import weakref

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
from runtime.ops.indexing import getitem, index_update
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


_KEYS = itertools.count(1)  # eager records name values by these keys (see TapeValue.key)


class TapeValue(NumpyOperators):
    """An array being watched by an eager tape (behaves like the array it wraps).

    Not an ndarray subclass, on purpose: NumPy hands an ndarray's memory to plain NumPy
    code without asking, whereas for this wrapper it calls `__array__`, which is how the
    tape notices a value leaving its records (`y[i] = v` into a plain array) and says so
    instead of returning a silently missing gradient. Once the tape stops recording it
    answers as the NumPy value it holds: `isinstance(v, np.ndarray)` (or the NumPy scalar
    type), f-strings and `format`, `str`, `.item()`, `.tolist()`.

    `key` names the value in the tape's records. A write (`y[i] = v`, `y += v`) is
    recorded as a new value (`index_update`, `add`) that this same object then holds under
    a new key, so every name bound to it sees the write, as in NumPy, while the records
    keep the value each op read."""

    __slots__ = ("value", "key", "pinned", "views")

    def __init__(self, value):
        self.value = value
        self.key = next(_KEYS)
        self.pinned = False  # its memory is an array given to tape.watch (the caller's)
        self.views: list = []  # weak references to tape values sharing its memory

    @property
    def shares_memory(self) -> bool:
        """Whether a write NumPy makes in place would show in another live array."""
        return self.pinned or any(ref() is not None for ref in self.views)

    @property
    def __class__(self):
        # `isinstance` falls back on `__class__`: after the computation the value counts
        # as the NumPy value it holds; while a tape records, the runtime sees a TapeValue
        if registry.recorder() is not None:
            return TapeValue
        return np.ndarray if isinstance(self.value, np.ndarray) else type(self.value)

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
        if registry.recorder() is None:
            self.value[_unwrap(index)] = _unwrap(value)
            return
        self._refuse_shared_write("y[i] = value", "y = runtime.index_update(y, i, value)")
        self._become(index_update(self, index, value))

    def _refuse_shared_write(self, what: str, instead: str) -> None:
        """The tape never writes into its values' memory (its records hold them): a write
        NumPy would show through a view, or into the caller's array, is refused."""
        if self.shares_memory:
            raise TypeError(
                f"`{what}` on a value watched by an eager GradientTape{where()}, which shares "
                "memory with a view of it taken earlier (`r = y[...]`) or with the array "
                "given to tape.watch: NumPy would write through to it, but the tape "
                f"never writes its values in place. Write `{instead}` if the other array "
                "should keep the old values (or watch a copy), or run the code in an "
                "ag.function, where views see the write.")
        if len(_eager_tapes()) > 1:
            raise TypeError(
                f"`{what}` on a value watched by nested eager GradientTapes{where()}: write "
                f"`{instead}` instead (the outer tape records the inner one's values).")

    def _become(self, new) -> "TapeValue":
        """Hold `new` (the recorded result of a write) under its key: names bound to this
        object see the write."""
        self.pinned, self.views = False, []  # new memory: no view of the old one sees it
        if type(new) is TapeValue:
            self.value, self.key = new.value, new.key
        else:  # an integer result the tape does not follow
            self.value, self.key = new, next(_KEYS)
        return self

    def __len__(self):
        return len(self.value)

    # `y += v` on a tape value computes `y + v`, recorded, and this object holds the
    # result (so every name bound to it sees it, as in NumPy); its old value stays in the
    # records, never written over. NumPy would also write into y's memory, which a view
    # taken earlier (`r = y[1:3]`) sees: where such a view exists, that difference would
    # be silent, so it is refused.
    def _in_place(self, name: str, op: str, other):
        if registry.recorder() is None:  # after the block: NumPy's own in-place write
            self.value = getattr(operator, f"i{name}")(self.value, _unwrap(other))
            return self
        self._refuse_shared_write(f"y {op} v", f"y = y {op[:-1]} v")
        held = np.asarray(self.value)
        probe = np.ones_like(held)  # NumPy's own error when it cannot cast or broadcast
        with np.errstate(all="ignore"):
            getattr(operator, f"i{name}")(probe, np.ones_like(np.asarray(_unwrap(other))))
        result = getattr(self, f"__{name}__")(other)
        if np.asarray(_unwrap(result)).dtype != held.dtype:
            result = np.astype(result, held.dtype)  # written into y: y's dtype, as NumPy
        return self._become(result)

    def __iter__(self):
        return (self[i] for i in range(len(self)))

    def numpy(self):
        return np.asarray(self.value)

    # -- as the NumPy value it holds (a Python number from it carries no gradient) -------
    def item(self, *args):
        _note_escape(self)
        return np.asarray(self.value).item(*args)

    def tolist(self):
        _note_escape(self)
        return np.asarray(self.value).tolist()

    def __complex__(self):
        _note_escape(self)
        return complex(self.value)

    def __format__(self, spec: str) -> str:
        return format(self.value, spec)

    def __str__(self) -> str:
        return str(self.value)

    def __repr__(self) -> str:
        if registry.recorder() is None:
            return repr(self.value)
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
                    x.views.append(weakref.ref(w))
                    w.views.append(weakref.ref(x))
    rec = _EagerRecord()
    rec.op, rec.inputs, rec.attrs, rec.outputs = op, raw, attrs, outs
    rec.in_keys = [x.key if type(x) is TapeValue else None for x in inputs]
    rec.out_keys = [w.key if type(w) is TapeValue else None for w in wrapped]
    # the tape values themselves, for a tape recording the backward pass (an enclosing
    # tape, or a persistent one differentiating inside its block: `_recording_view`);
    # only then: they keep every view alive (`shares_memory`)
    tapes = _eager_tapes()
    rec.keep = (inputs, wrapped) if len(tapes) > 1 or tapes[0].persistent else None
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


def _tape_in_place_operator(name: str, op: str):
    def method(self, other):
        return self._in_place(name, op, other)
    method.__name__ = f"__i{name}__"
    return method


for _name, _op in (("add", "+="), ("sub", "-="), ("mul", "*="), ("truediv", "/="),
                   ("floordiv", "//="), ("mod", "%="), ("pow", "**="), ("matmul", "@=")):
    setattr(TapeValue, f"__i{_name}__", _tape_in_place_operator(_name, _op))
del _name, _op

