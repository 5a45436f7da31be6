"""`jit_compile=True`: lower the regions of an optimized graph numba can compile exactly.

    optimized graph ─► regions.find_regions ─► source (numba text per region)
                     ─► build.compile_region (on-disk cache) ─► one `jit_region` node each
                     ─► the NumPy executor (codegen) runs the rest as usual

Scalar code (loops and branches on 0-d values and Python numbers, reading and writing
array elements: element_ops.py) becomes native loops; runs of cheap
elementwise ops over one array shape become one kernel, a loop over the data that the
executor runs in cache-sized slices across the cores together with the NumPy calls
around it. A transcendental float ufunc (exp, tanh, ...) on arrays of its own dtype joins
the kernel, which calls NumPy's own loop for it block by block (numpy_loops.py): NumPy's
SIMD kernels are faster than numba's scalar libm calls, and only they give NumPy's bits.
Reductions, matmuls and everything else stay NumPy calls. The ops of a trace left to NumPy are noted in one `JitFallbackWarning`, at the
line that called the function, listing each op with the user's line that wrote it (an
op and line already noted in this process are not listed again; ops that compute no
value, such as `assign_variable`, are not noted). Results equal the default executor's bitwise; where
NumPy would warn or raise (overflow, division by zero, invalid values), the region
reruns on NumPy (see ops.py).

Layer: top, beside `saved` and `onnx_export`. It may import every layer up to
`frontend`, never its two neighbours. `Function` reaches `lower` through the engine slot
of frontend/engines.py, which this package fills when it loads; importing it stays
cheap: numba, the optional engine, is imported only when a region is compiled.
"""
from __future__ import annotations

import re
import warnings

from runtime.core import log
from runtime.core.error_index import IndexedWarning
from runtime.core.errors import user_stacklevel
from runtime.core.graph import Graph, Node
from runtime.core.rewrite import clone
from runtime.frontend.engines import register_engine
from runtime.jit.build import cache_dir, compile_region, set_cache_dir
from runtime.jit.ops import control_kind, is_cheap
from runtime.jit.regions import find_regions, splice
from runtime.passes.memory_order import reads_memory_order

__all__ = ["JitFallbackWarning", "JitResult", "lower", "set_cache_dir", "cache_dir"]


class JitFallbackWarning(IndexedWarning):
    """An op of a `jit_compile=True` function has no exact numba lowering: it runs as a
    NumPy call (correct, just not compiled).

    `cf.jit_report` lists what was compiled and what was not.

    Example:
        ```python
        import warnings
        import autograph as ag

        issubclass(ag.JitFallbackWarning, UserWarning)  # -> True
        warnings.simplefilter("ignore", ag.JitFallbackWarning)  # to silence them
        ```
    """


_noted: set = set()


class JitResult:
    """What `lower` made: the graph to execute, the numba sources and a report."""

    def __init__(self, graph: Graph, mapping: dict, code: str, report: list[str]):
        self.graph, self.mapping, self.code, self.report = graph, mapping, code, report


def _require_numba() -> None:
    try:
        import numba  # noqa: F401
    except ImportError:
        raise ImportError(
            "jit_compile=True needs numba, which is not installed. Install the extra: "
            "pip install 'autograph-numpy[jit]' (or pass jit_compile=False).") from None


def lower(graph: Graph, name: str) -> JitResult:
    """A copy of `graph` whose compilable regions are single `jit_region` nodes."""
    _require_numba()
    g, mapping = clone(graph)
    if reads_memory_order(g):  # compiled regions lay their results out in C order, and
        regions, left = [], list(g.nodes)  # this graph reads layouts: it all stays NumPy
    else:
        regions, left = find_regions(g)
    code, report, notes = [], [], []
    for k, region in enumerate(regions, 1):
        started = log.start(log.COMPILE, log.DEBUG)  # numba can take seconds per region
        try:
            done = compile_region(region, _ident(name), k)
        except Exception as e:  # noqa: BLE001 - numba refused: the region stays NumPy
            report.append(f"region {k} ({len(region.nodes)} nodes) not compiled: "
                          f"{type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}")
            notes.append((region.nodes[0], f"numba could not compile it ({type(e).__name__})"))
            continue
        first = region.nodes[0]
        splice(region, Node(done.op, list(region.inputs) + list(region.constants), {},
                            first.origin))
        where = "cache hit" if done.cache_hit else "compiled"
        log.done(log.COMPILE, log.DEBUG, started, "jit region %d of %d of %s: %s", k,
                 len(regions), name, where)
        report.append(f"region {k}: {region.kind}, {len(region.nodes)} nodes, "
                      f"{where} ({done.path.name})")
        code.append(done.source)
    for node in left:
        if control_kind(node.op) is not None or is_cheap(node.op) or not node.inputs \
                or node.op.returns_python:
            continue
        report.append(f"NumPy: {node.op.name}{_where(node)}")
        if node.op.num_outputs != 0:  # an effect (assign_variable) has nothing to compile
            notes.append((node, "no exact numba lowering"))
    _warn_fallbacks(name, notes)
    return JitResult(g, mapping, "\n\n".join(code), report)


def _ident(name: str) -> str:
    return re.sub(r"\W", "_", name) or "graph"


def _where(node: Node) -> str:
    o = node.origin
    return f" at {o.filename}:{o.lineno}" if o is not None else ""


def _warn_fallbacks(name: str, notes: list) -> None:
    """One JitFallbackWarning for the ops of this trace not noted before, at the user's
    line that called the function (each op is listed with the line that wrote it)."""
    fresh = []
    for node, why in notes:
        key = (node.op.name, node.origin.filename if node.origin else None,
               node.origin.lineno if node.origin else None)
        if key not in _noted:
            _noted.add(key)
            fresh.append(f"`{node.op.name}`{_where(node)} ({why})")
    if not fresh:
        return
    listed = "; ".join(fresh)
    head = (f"jit_compile: {listed} runs as a NumPy call" if len(fresh) == 1 else
            f"jit_compile: {len(fresh)} ops of `{name}` run as NumPy calls: {listed}")
    warnings.warn(f"{head}; the result is the same, only not compiled.",
                  JitFallbackWarning, stacklevel=user_stacklevel())


# `Function(jit_compile=True)` lowers through the slot frontend keeps for this layer
register_engine("jit", lower)
