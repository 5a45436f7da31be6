"""One record per op (`OpDef`) and the one dispatch point (`bind`).

An `OpDef` says everything about an op: its NumPy kernel, its explicit shape/dtype
rule (`abstract_eval`, written next to the op or in the sibling `<module>_rules.py`;
rules never run kernels), its gradient rule (`grad`, the only gradient lookup: set next
to the op or by the gradient rule modules when they load), its batching rule for vmap
(`batch`, set by runtime/transforms/ when it loads), whether it touches state
(`stateful`: never folded or merged) and whether it must run for its side effect
(`effect`: never removed), how the code generator spells a call to it, and flags the
executor's buffer plan reads. Control-flow ops (nodes with subgraphs) also carry the
hooks the executors, passes and loaders call (`emit`, `run`, `check`, ...), so nothing
outside the op's own files tests which op a node is.

`bind(op, *inputs, **attrs)`: any symbolic input (or any stateful op while tracing)
adds a node to the current graph; otherwise the kernel runs eagerly on NumPy values.
"""
from __future__ import annotations

import threading
from dataclasses import dataclass, field
from typing import Any, Callable

import numpy as np

from runtime.core import tracing
from runtime.core.errors import user_origin
from runtime.core.tensor import Tensor

# Abstract values: a list of (shape, dtype) pairs, one per output.
AVals = list


@dataclass(eq=False)
class OpDef:
    name: str
    kernel: Callable
    abstract_eval: Callable | None = None   # (inputs, attrs) -> [(shape, dtype), ...]
    num_outputs: int = 1
    stateful: bool = False                  # reads or writes state: no folding, no CSE
    effect: bool = False                    # must run even when no output is used
    grad: Callable | None = None            # (record, output cotangents) -> input cotangents
    batch: Callable | None = None           # vmap: (batcher, node, inputs, batched flags)
    #                                         -> (outputs, flags) (runtime/transforms/)
    format: Callable | None = None          # (kernel_ref, input_exprs, attrs) -> expression
    kernel_ref: str | None = None           # how generated code names the kernel
    shape_only: tuple = ()                  # inputs whose values it never reads (`like`)
    fresh_result: bool = False              # its result is a new array nobody else sees
    emit_in_place: Callable | None = None   # (codegen, node, indent): update input 0 in place
    appends_in_place: bool = False          # appends to its input graph list (a replay copies it)
    reads_element: Callable | None = None   # (node) -> True: its result is a scalar copy of
    #                                         one element of input 0, never a view of it
    saves_for_gradient: bool = False        # forward-pass bookkeeping a gradient replay skips
    reads_variable: bool = False            # its result is the value of Variable attrs["var"]
    #                                         (an eager tape watches it: exec/tape_calls.py)
    bookkeeping: bool = False               # an internal step pictures fold into its edge
    #                                         (`python_number`, `x.shape[i]`)
    returns_python: bool = False            # gives a Python number or NumPy scalar by the path
    passes_kind: bool = False               # its output is input 0's number as another kind
    #                                         taken (`path_result`): the executor's, not numba's
    fused: tuple = ()                       # a compiled elementwise kernel (jit): the ops it
    #                                         computes; it takes `out=` and slices, like a ufunc
    layout: str | Callable = ""             # how its result is laid out in memory: "numpy"
    #                                         (NumPy's own kernel, laid out from its inputs'
    #                                         layouts as eagerly), "C" (always a new C-ordered
    #                                         array), "" (unknown); or (node) -> one of those
    reads_layout: bool = False              # its result depends on its inputs' memory layout
    #                                         (`x.strides`, as_strided): passes and executors
    #                                         keep every layout as eager NumPy's there
    #                                         (runtime/passes/memory_order.py)
    # Control-flow ops only (runtime/control_flow/hooks.py; the executor's emit/run hooks
    # are attached by runtime/exec/control_emit.py and interpreter.py):
    subgraph_attrs: tuple = ()              # attribute names holding its subgraphs, in order
    emit: Callable | None = None            # (codegen, node, out_names, indent): statements
    run: Callable | None = None             # (node, input values) -> output values
    check: Callable | None = None           # (inputs, attrs, avals, fail): structure check
    once_inputs: Callable | None = None     # (node) -> inputs evaluated once, before subgraphs
    sources: Callable | None = None         # (node, output index) -> values it may come from
    feeds: Callable | None = None           # (node, subgraph input position) -> values into it
    taken_branch: Callable | None = None    # (node) -> (subgraph, inputs) if statically known
    loop: bool = False                      # a while-style loop (attrs cond/body/has_max)
    subgraph_names: Callable | None = None  # (attrs) -> subgraph attribute names, when they
    #                                         depend on attrs (a `try`: one per handler)
    slot_use: str = ""                      # the per-thread slots its attrs name (a graph
    #                                         `try`): "catch", "reraise", "mark" or "read"
    derived: tuple | None = None            # (how, op) for a record made from `op`:
    #                                         "quiet" (runtime/ops/quiet.py), "vmap_loop"
    #                                         (runtime/ops/vmap_loop.py); saved as `op`

    def __repr__(self) -> str:
        return f"<op {self.name}>"


def numpy_ref(fn) -> str | None:
    """'np.<name>' when `fn` is reachable as such, so generated code reads like NumPy."""
    name = getattr(fn, "__name__", None)
    if name and getattr(np, name, None) is fn:
        return f"np.{name}"
    return None


class _Recording(threading.local):
    # per thread: set by an active eager GradientTape to record ops on watched values
    # (a class default, so that generated executors check `_recording.fn` cheaply)
    fn = None


_recording = _Recording()


def recorder():
    """The eager tape's recording function on this thread, or None."""
    return getattr(_recording, "fn", None)


# how many threads have a recorder set: generated executors test this first (a list
# item is cheaper to read than a thread-local attribute)
recording_threads = [0]
_counting = threading.Lock()


def set_recorder(fn) -> None:
    if (_recording.fn is None) != (fn is None):
        with _counting:
            recording_threads[0] += 1 if fn is not None else -1
    _recording.fn = fn


def bind(op: OpDef, *inputs: Any, **attrs: Any) -> Any:
    """Apply `op`: record a node when tracing symbolic values, else compute eagerly."""
    graph = tracing.current_graph()
    if graph is not None and (op.stateful or op.effect or _any_tensor(inputs)):
        return add_node(graph, op, list(inputs), attrs)
    record = getattr(_recording, "fn", None)
    if record is not None:
        return record(op, inputs, attrs)
    return op.kernel(*inputs, **attrs)


def _any_tensor(inputs) -> bool:
    for x in inputs:
        if isinstance(x, Tensor):
            return True
    return False


def _frozen(v):
    """Static arguments are kept by value: a list or array the caller mutates later must
    not change a node already traced."""
    if type(v) is list or type(v) is tuple:
        return tuple(_frozen(x) for x in v)
    if isinstance(v, np.ndarray):
        v = v.copy()
        v.flags.writeable = False
    return v


def _has_tensor(x) -> bool:
    return isinstance(x, Tensor) or (type(x) in (list, tuple) and any(map(_has_tensor, x)))


def _list_input(x: list):
    """A list argument (`np.concatenate((x, [i]))`): an array, or a graph value stacked
    from its items when one of them is symbolic (as np.array would build it)."""
    if not _has_tensor(x):
        return np.array(x)
    return np.stack([_list_input(list(e)) if type(e) in (list, tuple) else e for e in x])


def _snapshot(graph, array: np.ndarray) -> np.ndarray:
    """Arrays a trace reads from closures or attributes are constants of the trace, taken
    by value (as jax.jit and tf.function do): mutating one later must not change what a
    traced graph computes, and the optimizer is free to fold or reshape them. One
    read-only copy per array and trace (read-only arrays too: their owner may make them
    writeable again), taken again when the array changed in place since the last read
    (`i = np.zeros(1)` then `i += 1; x = x + i` in a Python loop reads 1, 2, 3)."""
    while graph.parent is not None:
        graph = graph.parent
    kept = graph.snapshots.get(id(array))
    if kept is None or (array.flags.writeable and not _same_bytes(array, kept[1])):
        copy = array.copy()
        copy.flags.writeable = False
        if kept is None and isinstance(array.base, np.ndarray):  # (see `trace_holders`)
            bases = graph.__dict__.setdefault("snapshot_bases", {})
            bases[id(array.base)] = bases.get(id(array.base), 0) + 1
        kept = graph.snapshots[id(array)] = (array, copy)  # the original keeps its id unique
    return kept[1]


def trace_holders(array: np.ndarray) -> int:
    """The references the trace in progress holds to `array` because it read it (its
    snapshot keeps the original, and a view's snapshot keeps the view's base): no
    name's, so not aliases (autograph's `sole_holder` discounts them)."""
    graph = tracing.current_graph()
    if graph is None:
        return 0
    while graph.parent is not None:
        graph = graph.parent
    kept = graph.snapshots.get(id(array))
    held = 1 if kept is not None and kept[0] is array else 0
    return held + graph.__dict__.get("snapshot_bases", {}).get(id(array), 0)


def _same_bytes(array: np.ndarray, copy: np.ndarray) -> bool:
    """Whether `array` still holds exactly `copy`'s contents (bitwise: -0.0 and NaNs too)."""
    if array.shape != copy.shape or array.dtype != copy.dtype or array.dtype.hasobject:
        return False
    flat = np.ascontiguousarray(array).reshape(-1).view(np.uint8)
    return bool(np.array_equal(flat, copy.reshape(-1).view(np.uint8)))


def add_node(graph, op: OpDef, inputs: list, attrs: dict, avals: AVals | None = None):
    inputs = [graph.capture(x) if isinstance(x, Tensor) else
              _list_input(x) if type(x) is list and not op.effect else
              _snapshot(graph, x) if isinstance(x, np.ndarray) else x for x in inputs]
    attrs = {k: _frozen(v) for k, v in attrs.items()}
    if avals is None:  # the op's explicit rule; kernels never run while tracing
        if op.abstract_eval is None:
            raise TypeError(f"op {op.name!r} has no shape/dtype rule: give its OpDef an "
                            "abstract_eval (kernels are never run to infer shapes)")
        avals = op.abstract_eval(op, inputs, attrs)
    node = graph.add_node(op, inputs, attrs, avals, user_origin())
    if tracing._state.progress is not None:  # INFO logging of a long trace (core/log.py)
        tracing._state.progress()
    outs = node.outputs
    if op.num_outputs == 1:
        return outs[0] if outs else None
    return tuple(outs)


@dataclass
class OpTable:
    """NumPy callable -> handler that binds the matching op (filled by op modules)."""

    handlers: dict[Any, Callable] = field(default_factory=dict)

    def register(self, *numpy_fns):
        def deco(handler):
            for fn in numpy_fns:
                self.handlers[fn] = handler
            return handler

        return deco
