"""Parallel execution: independent expensive nodes run on a small thread pool.

NumPy releases the GIL inside its sort, reduction and integer matmul loops, so two large
independent sorts can run on two cores. For a graph body, `plan_offloads` picks the
nodes worth it with a cost model over static shapes; the executor then spells each one as

    v1_fut = ag_submit(np_sort, a)      # starts on a pool thread
    v2 = np_sort(b)                     # meanwhile the calling thread goes on
    v1 = v1_fut.result()                # joined just before its first use
    v3 = v1 + v2

Which nodes (`offloadable`): only ops that can neither raise nor warn on the values they
get once the graph has checked their shapes and dtypes — sorts and argsorts of any real
dtype, integer/bool reductions, integer matmuls — so running them out of program order
changes no exception, no warning and no bit. Float matmuls are left alone (BLAS already
uses every core), as are float reductions and ufuncs (they may warn, and a warning raised
on a pool thread would not name the user's line). Unknown dimensions: serial.

When (`plan_offloads`): a node goes to the pool only if its estimated cost is at least
`MIN_OFFLOAD_SECONDS` (a hand-off costs ~15 µs on an idle machine) and the calling
thread has at least as much other work to do before the result is needed; the result is
joined before its first use and before any node with effects (program order of effects
is kept). Small graphs get no offloads, so their generated code — and per-call overhead —
is unchanged. The buffer plan keeps the offloaded node's inputs alive (no `out=` into
them, no reuse of their names) until the join (`BufferPlan.hold`).

Off switches: `ag.function(..., parallel=False)` generates serial code;
`set_parallel(False)` makes every `ag_submit` run its node at once on the calling thread.
Results never depend on either.
"""
from __future__ import annotations

import contextvars
import math
import os
import threading
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Callable

import numpy as np

from runtime.core.graph import Node
from runtime.core.tensor import Tensor

MIN_OFFLOAD_SECONDS = 100e-6
# rough costs per element (seconds), from timings on the 2-core development machine
_SORT_PER_NLOGN = 0.2e-9   # 1M float64: ~5-20 ms; int64 ~2 ms
_SCAN_PER_ELEMENT = 0.3e-9  # a reduction is bound by memory: 1M elements ~0.3 ms
_UFUNC_PER_ELEMENT = 1e-9   # elementwise work the calling thread can overlap with
_INT_MATMUL_PER_MAC = 0.5e-9
_FLOAT_MATMUL_PER_MAC = 0.02e-9

_SORTS = {"sort", "argsort"}
_INT_REDUCTIONS = {"sum", "prod", "max", "min", "amax", "amin", "any", "all"}

_enabled = [True]
_pool: ThreadPoolExecutor | None = None
_pool_lock = threading.Lock()
WORKERS = max(0, (os.cpu_count() or 1) - 1)  # the calling thread is the other worker


def set_parallel(enabled: bool) -> None:
    """Run offloaded graph nodes on the runtime's thread pool (default) or, when False,
    on the calling thread. Results are the same either way.

    Process-wide, at run time (no retrace); `ag.function(..., parallel=False)` sets it
    for one function.

    Args:
        enabled: True for the thread pool, False for the calling thread only (any value
            is taken by its truth).

    Example:
        ```python
        import autograph as ag

        ag.set_parallel(False)
        ag.parallel_enabled()  # -> False
        ag.set_parallel(True)
        ```
    """
    _enabled[0] = bool(enabled)


def parallel_enabled() -> bool:
    """Whether graph nodes may run on the runtime's thread pool (`ag.set_parallel`).

    Returns:
        True unless `ag.set_parallel(False)` is in effect.

    Example:
        ```python
        import autograph as ag

        ag.parallel_enabled()  # -> True
        ```
    """
    return _enabled[0]


class _Done:
    """A finished 'future': the node ran on the calling thread (parallel turned off)."""

    __slots__ = ("_value", "_error")

    def __init__(self, fn: Callable, args, kwargs):
        self._value = self._error = None
        try:
            self._value = fn(*args, **kwargs)
        except BaseException as e:  # noqa: BLE001 - re-raised where the result is joined
            self._error = e

    def cancel(self) -> bool:
        return False  # it has run

    def result(self):
        if self._error is not None:
            raise self._error
        return self._value


def _get_pool() -> ThreadPoolExecutor:
    global _pool
    if _pool is None:
        with _pool_lock:
            if _pool is None:
                _pool = ThreadPoolExecutor(max(1, WORKERS), thread_name_prefix="autograph-exec")
    return _pool


def submit(fn: Callable, *args, **kwargs) -> Any:
    """Start `fn(*args, **kwargs)` on the pool, in a copy of the caller's context (NumPy's
    errstate lives in a context variable); returns an object with `.result()`."""
    if not _enabled[0]:
        return _Done(fn, args, kwargs)
    return _get_pool().submit(contextvars.copy_context().run, fn, *args, **kwargs)


# -- the cost model ---------------------------------------------------------------------

def _shape(x) -> tuple:
    return tuple(x.static_shape) if isinstance(x, Tensor) else np.shape(x)


def _size(x) -> int | None:
    shape = _shape(x)
    return None if None in shape else math.prod(shape)


def _matmul_macs(node: Node) -> int | None:
    a, b = (_shape(x) for x in node.inputs)
    if len(a) < 2 or len(b) < 2:
        return None
    out = _size(node.outputs[0])
    return None if out is None or a[-1] is None else out * a[-1]


def offloadable(node: Node) -> bool:
    """Ops that cannot raise or warn here, release the GIL, and take plain arguments."""
    if node.op.format is not None or node.op.stateful or node.op.effect or node.subgraphs() \
            or len(node.outputs) != 1 or not any(isinstance(x, Tensor) for x in node.inputs):
        return False
    name, first = node.op.name, node.inputs[0]
    if not isinstance(first, (Tensor, np.ndarray)):
        return False
    kind = first.dtype.kind
    if name in _SORTS:
        return kind in "biuf" and set(node.attrs) <= {"axis", "kind"}
    if name in _INT_REDUCTIONS:  # max/min of an empty array raise: sizes must be known, > 0
        return kind in "biu" and set(node.attrs) <= {"axis", "keepdims"} and bool(_size(first))
    if name == "matmul":
        return len(node.inputs) == 2 and not node.attrs and node.outputs[0].dtype.kind in "iu"
    return False


def estimate(node: Node) -> float:
    """Rough seconds `node` takes (0 when unknown): what the calling thread can overlap."""
    if node.subgraphs() or len(node.outputs) != 1:
        return 0.0
    name = node.op.name
    if name in _SORTS:
        n = _size(node.inputs[0])
        return 0.0 if not n else _SORT_PER_NLOGN * n * math.log2(max(n, 2))
    if name in _INT_REDUCTIONS or name in ("mean", "argmax", "argmin", "cumsum"):
        n = _size(node.inputs[0])
        return (n or 0) * _SCAN_PER_ELEMENT
    if name == "matmul" and len(node.inputs) == 2:
        macs = _matmul_macs(node)
        per = _INT_MATMUL_PER_MAC if node.outputs[0].dtype.kind in "biu" else _FLOAT_MATMUL_PER_MAC
        return (macs or 0) * per
    if isinstance(node.op.kernel, np.ufunc):
        return (_size(node.outputs[0]) or 0) * _UFUNC_PER_ELEMENT
    return 0.0


def plan_offloads(nodes: list[Node], outputs) -> dict[int, int]:
    """{index of a node to run on the pool: index of the node before which its result is
    joined} (len(nodes): before the body's results are used)."""
    if WORKERS == 0 or len(nodes) < 2:
        return {}
    candidates = [k for k, n in enumerate(nodes) if offloadable(n)]
    costs = {k: estimate(nodes[k]) for k in candidates}
    candidates = [k for k in candidates if costs[k] >= MIN_OFFLOAD_SECONDS]
    if not candidates:
        return {}
    offloads: dict[int, int] = {}
    for k in reversed(candidates):  # later decisions first: they say what stays inline
        out = nodes[k].outputs[0]
        join = len(nodes)
        for j in range(k + 1, len(nodes)):
            later = nodes[j]
            if later.has_effects or later.op.stateful or any(x is out for x in later.inputs):
                join = j
                break
        inline_work = sum(estimate(nodes[j]) for j in range(k + 1, join) if j not in offloads)
        if inline_work >= min(costs[k], MIN_OFFLOAD_SECONDS * 4) * 0.5:
            offloads[k] = join
    return offloads


# -- spelling offloaded nodes (called by codegen.CodeGen.emit_graph_body) -------------------

def emit_offloaded(gen, node: Node, indent: int, plan, k: int, until: int) -> None:
    """`v = ag_submit(kernel, *inputs, **attrs)`; the name is rebound to the result at
    the join (`join_offloaded`), which drops the future."""
    args = [gen.expr(x) for x in node.inputs] + [f"{a}={gen.lit(v)}" for a, v in node.attrs.items()]
    out = node.outputs[0]
    name = plan.take_name() or gen.fresh(out.name)
    gen.names[out] = name
    gen.emit(indent, f"{name} = {gen.const(submit, 'ag_submit')}({gen.kernel_ref(node)}, "
                     f"{', '.join(args)})", node)
    plan.hold(node, k, until)
    gen.joins.setdefault((id(plan), until), []).append((name, node))


def join_offloaded(gen, indent: int, plan, k: int) -> None:
    """Before node `k` of the body: wait for the offloaded results it (or an effect) needs."""
    for name, node in gen.joins.pop((id(plan), k), ()):
        gen.emit(indent, f"{name} = {name}.result()", node)
    plan.release_held(k, gen.names)
