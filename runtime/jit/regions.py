"""Partition an optimized graph into regions numba compiles, and splice them back in.

Two kinds of region, each a run of consecutive live nodes of one graph body (a run of a
topologically ordered list is always convex: nothing outside it sits between two of
its nodes):

* scalar — arithmetic and comparisons on 0-d values (Python numbers included), and
  `cond` / `while_loop` nodes whose subgraphs are of this kind all the way down. Arrays
  may flow through it (inputs, loop state, branch results) when only the ops of
  element_ops.py touch them: element reads and writes, shape reads, integer products.
  Becomes one native function with real loops. Worth it when it holds a loop or at least
  `MIN_SCALAR_OPS` ops. Constant arrays its nodes read are passed in (`constants`).
* array  — elementwise ops of the table's cheap kind (ops.CHEAP) over one static shape,
  other operands 0-d. Becomes one kernel: a loop over the data instead of one pass over
  memory per op, run in slices across the cores when large (exec/chunks.py). Worth it
  from two ops and `MIN_ARRAY_ELEMENTS` elements.

A node that fits neither ends the run and stays a NumPy call (`explain` says why, for
the note). Control-flow nodes that are not lowered as a whole are searched inside.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from runtime.core.liveness import live_nodes
from runtime.jit.array_ops import array_op_lowerable, is_array_op, order_sensitive
from runtime.core.graph import Graph, Node
from runtime.jit.numpy_loops import numpy_loop_node
from runtime.jit.element_ops import constant_value, element_lowerable, is_element_op, static_array
from runtime.jit.ops import SUPPORTED, control_kind, is_cheap, lower_node
from runtime.core.tensor import Tensor

MIN_SCALAR_OPS = 8


@dataclass
class Region:
    kind: str                       # "scalar" or "array"
    graph: Graph                    # the body the nodes belong to
    nodes: list[Node]
    inputs: list[Tensor] = field(default_factory=list)
    outputs: list[Tensor] = field(default_factory=list)
    shape: tuple = ()               # array regions: the one shape of their values
    constants: list = field(default_factory=list)  # arrays the nodes read, passed in
    c_order: bool = False           # a float sum inside: its array inputs must be C-ordered


def _constant_arrays(nodes) -> list:
    """The constant arrays (of any depth of subgraph) the nodes take as operands."""
    found, seen = [], set()

    def walk(ns):
        for n in ns:
            for x in n.inputs + [constant_value(n)]:
                if isinstance(x, np.ndarray) and x.ndim > 0 and id(x) not in seen:
                    seen.add(id(x))
                    found.append(x)
            for sub in n.subgraphs():
                walk(sub.nodes)
    walk(nodes)
    return found


def _scalar_value(x) -> bool:
    if isinstance(x, Tensor):
        return x.ndim == 0 and x.dtype in SUPPORTED
    return np.ndim(x) == 0 and np.asarray(x).dtype in SUPPORTED


def _carried_value(x) -> bool:
    """A value a scalar region's loops and branches may carry: 0-d, or an array of static
    shape (read and written element by element, element_ops.py)."""
    return _scalar_value(x) or static_array(x)


def _trial(node: Node, scalar: bool) -> bool:
    args = ["x" if isinstance(x, Tensor) else None for x in node.inputs]
    return lower_node(node, args, "r", scalar) is not None


def scalar_lowerable(node: Node) -> bool:
    """Whether `node` (and every node of its subgraphs) works on 0-d values only and has an
    exact lowering."""
    if node.has_effects:
        return False
    if is_element_op(node.op):
        return all(map(_carried_value, node.inputs)) and \
            all(map(_carried_value, node.outputs)) and element_lowerable(node)
    if not all(map(_carried_value, node.inputs)) or not all(map(_carried_value, node.outputs)):
        return False
    if control_kind(node.op) is not None:
        if node.attrs.get("copy_lists"):
            return False
        for sub in node.subgraphs():
            if not all(map(_carried_value, sub.inputs)) or \
                    not all(map(_carried_value, sub.outputs)):
                return False
            if not all(scalar_lowerable(n) for n in live_nodes(sub)):
                return False
        return True
    if is_array_op(node):  # a small whole-array op or reduction, as loops (array_ops.py)
        return array_op_lowerable(node)
    if not all(map(_scalar_value, node.inputs)) or not all(map(_scalar_value, node.outputs)):
        return False
    return _trial(node, scalar=True)


def array_lowerable(node: Node) -> bool:
    """An elementwise op of the cheap kind over one static shape (other operands 0-d), or
    a float ufunc whose NumPy loop a kernel calls (numpy_loops.py)."""
    loop = numpy_loop_node(node)
    if not (is_cheap(node.op) or loop) or len(node.outputs) != 1 or node.has_effects:
        return False
    shape = node.outputs[0].static_shape
    if not shape or None in shape:
        return False
    for x in node.inputs:
        if isinstance(x, Tensor):
            if x.static_shape != shape and x.ndim != 0:
                return False
        elif np.ndim(x) != 0:
            return False
    return loop or _trial(node, scalar=False)


def _count_ops(nodes) -> tuple[int, bool, bool]:
    """(ops, whether a loop is among them, whether a whole-array reduction is)."""
    count, loops, reduces = 0, False, False
    for n in nodes:
        count += 1
        loops |= control_kind(n.op) == "while"
        reduces |= _REDUCTIONS.get(n.op.name, False) and is_array_op(n)
        for sub in n.subgraphs():
            c, l_, r = _count_ops(sub.nodes)
            count, loops, reduces = count + c, loops or l_, reduces or r
    return count, loops, reduces


_REDUCTIONS = {"max": True, "amax": True, "min": True, "amin": True, "sum": True, "mean": True,
               "var": True, "std": True}


def _order_sensitive(nodes) -> bool:
    return any(order_sensitive(n) or any(_order_sensitive(s.nodes) for s in n.subgraphs())
               for n in nodes)


# Below this many elements an array kernel gains nothing on NumPy's own calls (the call
# costs ~1.5 µs more; a 64×64 float32 `s + t * x`: 3.3 µs compiled, 3.1 µs as NumPy
# calls; at 128×128, 5.2 against 8.0 µs; at 256×256, 13 against 27 µs).
MIN_ARRAY_ELEMENTS = 1 << 13


def _worth(kind: str, nodes: list[Node]) -> bool:
    if kind == "array":  # (NumPy loops alone: the executor calls them as well)
        size = int(np.prod(nodes[0].outputs[0].static_shape))
        return len(nodes) >= 2 and size >= MIN_ARRAY_ELEMENTS and \
            not all(map(numpy_loop_node, nodes))
    count, loops, reduces = _count_ops(nodes)
    # entering a compiled call costs about two elementwise NumPy calls on small arrays,
    # but a reduction's dispatch costs more than the call (array_ops.py)
    return loops or count >= MIN_SCALAR_OPS or reduces


def _kind(node: Node) -> str | None:
    """The region kind `node` joins (None: it stays a NumPy call). An elementwise op large
    enough for an array kernel is one; smaller ones run as loops in a scalar region."""
    if array_lowerable(node) and int(np.prod(node.outputs[0].static_shape)) >= MIN_ARRAY_ELEMENTS:
        return "array"
    if numpy_loop_node(node):  # NumPy's loop inside a kernel: in large arrays only
        return None
    return "scalar" if scalar_lowerable(node) else "array" if array_lowerable(node) else None


def find_regions(graph: Graph, outputs=None) -> tuple[list[Region], list[Node]]:
    """Regions of `graph` and of the subgraphs of its remaining control-flow nodes, and
    the nodes left as NumPy calls (for the note)."""
    nodes = live_nodes(graph, outputs)
    regions, left = [], []
    run, run_kind = [], None

    def close():
        nonlocal run, run_kind
        if run and _worth(run_kind, run):
            regions.append(_make_region(run_kind, graph, run, nodes, outputs))
        elif run:  # (element ops too: lowerable, only not worth a compiled call here)
            left.extend(n for n in run if not is_cheap(n.op) and not is_element_op(n.op))
        run, run_kind = [], None

    for node in nodes:
        kind = _kind(node)
        if kind == "array" and run_kind == "array" and run \
                and node.outputs[0].static_shape != run[0].outputs[0].static_shape:
            close()
        if kind is None or kind != run_kind:
            close()
        if kind is None:
            left.append(node)
            for sub in node.subgraphs():
                r, l_ = find_regions(sub)
                regions.extend(r)
                left.extend(l_)
            continue
        run.append(node)
        run_kind = kind
    close()
    return regions, left


def _make_region(kind: str, graph: Graph, run: list[Node], body: list[Node], outputs) -> Region:
    inside = {id(o) for n in run for o in n.outputs}
    inputs, seen = [], set()
    for n in run:
        for x in n.inputs:
            if isinstance(x, Tensor) and id(x) not in inside and id(x) not in seen:
                seen.add(id(x))
                inputs.append(x)
    used_after = {id(x) for x in (graph.outputs if outputs is None else outputs)
                  if isinstance(x, Tensor)}
    in_run = {id(n) for n in run}
    for n in body:
        if id(n) not in in_run:
            used_after.update(id(x) for x in n.inputs if isinstance(x, Tensor))
    outs = [o for n in run for o in n.outputs if id(o) in used_after]
    shape = run[0].outputs[0].static_shape if kind == "array" else ()
    constants = _constant_arrays(run) if kind == "scalar" else []
    return Region(kind, graph, run, inputs, outs, shape, constants,
                  c_order=kind == "scalar" and _order_sensitive(run))


def splice(region: Region, node: Node) -> None:
    """Replace the region's nodes in its graph by `node`, which computes its outputs."""
    nodes = region.graph.nodes
    first = nodes.index(region.nodes[0])
    gone = {id(n) for n in region.nodes}
    region.graph.nodes = [n for n in nodes[:first] if id(n) not in gone] + [node] + \
        [n for n in nodes[first:] if id(n) not in gone]
    node.outputs = list(region.outputs)
    for i, o in enumerate(node.outputs):
        o.node, o.index = node, i
