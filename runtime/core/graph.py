"""The graph IR: `Graph(inputs, nodes, outputs)` of `Node(op, inputs, attrs, outputs, origin)`.

A value is a `runtime.Tensor` (static shape with `None` for unknown dims, NumPy dtype).
A node input is either a Tensor of the same graph or an *immediate*: a Python scalar,
`None`, a NumPy array or any other constant, used as is by the kernel. Control-flow
nodes keep their subgraphs in `attrs` (`cond`: `then`/`else_`; `while_loop`:
`cond`/`body`). A child graph reads values of enclosing graphs through *captures*:
each captured outer value gets a placeholder input in the child, and the control-flow
node passes the outer value in.
"""
from __future__ import annotations

from typing import Any, Iterator

import numpy as np

from runtime.core import picture, printer
from runtime.core.error_index import note_error_index
from runtime.core.errors import LeakedTensorError, Origin
from runtime.core.tensor import Tensor
from runtime.core.tensor_map import TensorMap
from runtime.core.verify import verify as verify_graph


class Node:
    __slots__ = ("op", "inputs", "attrs", "outputs", "origin")

    def __init__(self, op, inputs: list, attrs: dict, origin: Origin | None = None):
        self.op = op
        self.inputs = inputs
        self.attrs = attrs
        self.outputs: list[Tensor] = []
        self.origin = origin

    def subgraphs(self) -> list["Graph"]:
        return [v for v in self.attrs.values() if isinstance(v, Graph)]

    def subgraph_items(self) -> list:
        """(attribute name, Graph) for each subgraph the node holds (the printer's view)."""
        return [(k, v) for k, v in self.attrs.items() if isinstance(v, Graph)]

    @property
    def has_effects(self) -> bool:
        """True when the node must run even if no output is used (print, assign, assert)."""
        return self.op.effect or any(g.has_effects for g in self.subgraphs())

    def __repr__(self) -> str:
        return printer.format_node(self)


class Graph:
    """A traced function: placeholders in, nodes in program order, values out."""

    def __init__(self, name: str = "graph", parent: "Graph | None" = None):
        self.name = name
        self.parent = parent
        self.inputs: list[Tensor] = []
        # a parent's node list may give its children theirs (a recorder that watches the
        # operations of a `try` body and its branches: control_flow/try_op.py)
        child_nodes = getattr(parent.nodes, "child", None) if parent is not None else None
        self.nodes: list[Node] = child_nodes() if child_nodes is not None else []
        self.outputs: list[Any] = []
        # outer Tensor -> placeholder in this graph, in capture order
        self.captures: TensorMap = TensorMap()  # outer value -> its placeholder here
        self._counter = parent._counter if parent is not None else [0]
        # value name -> the user's variable name (runtime/core/naming.py), shared with
        # subgraphs; only the listing and the picture read it
        self.labels: dict[str, str] = parent.labels if parent is not None else {}
        self.snapshots: dict[int, tuple] = {}  # id(captured array) -> (array, read-only copy)
        self.random_draws: list = []  # (what, generator) of draws seen while tracing

    # -- building ---------------------------------------------------------------
    def fresh_name(self, prefix: str = "v") -> str:
        counter = self._counter  # [count, names given explicitly] shared by nested graphs
        while True:
            counter[0] += 1
            name = f"{prefix}{counter[0]}"
            if len(counter) < 2 or name not in counter[1]:
                return name

    def _reserve(self, name: str) -> str:
        """A name given explicitly (a parameter's, added before any generated one), kept
        out of the fresh names: a parameter `v1` must not collide with the generated `v1`."""
        counter = self._counter
        if len(counter) < 2:
            counter.append(set())
        counter[1].add(name)
        return name

    def add_input(self, shape, dtype, name: str | None = None, weak: bool = False) -> Tensor:
        name = self._reserve(name) if name else self.fresh_name("a")
        t = Tensor(self, None, 0, tuple(shape), np.dtype(dtype), name, weak)
        self.inputs.append(t)
        return t

    def add_node(self, op, inputs: list, attrs: dict, avals, origin: Origin | None) -> Node:
        node = Node(op, inputs, attrs, origin)
        node.outputs = [
            Tensor(self, node, i, tuple(shape), np.dtype(dtype), self.fresh_name())
            for i, (shape, dtype) in enumerate(avals)
        ]
        self.nodes.append(node)
        return node

    def capture(self, t: Tensor) -> Tensor:
        """The value of `t` (a Tensor of this graph or an enclosing one) inside this graph."""
        if t.graph is self:
            return t
        if self.parent is None:
            error = LeakedTensorError(
                f"Tensor {t.name} ({t.dtype}{list(t.shape)}) belongs to another trace that has "
                "finished (it leaked out through a Python side effect such as a global list). "
                "Return values from the function instead of storing symbolic Tensors outside it."
            )
            note_error_index(error)  # (raised outside any entry point)
            raise error
        outer = self.parent.capture(t)  # the value as the parent sees it
        inner = self.captures.get(outer)
        if inner is not None:
            return inner
        inner = Tensor(self, None, 0, t.shape, t.dtype, self.fresh_name("c"), t.weak)
        self.inputs.append(inner)
        self.captures[outer] = inner
        return inner

    # -- reading ----------------------------------------------------------------
    @property
    def has_effects(self) -> bool:
        return any(n.has_effects for n in self.nodes)

    def walk(self) -> Iterator[Node]:
        """Every node of this graph and of its subgraphs, depth first."""
        for node in self.nodes:
            yield node
            for sub in node.subgraphs():
                yield from sub.walk()

    def __str__(self) -> str:
        return printer.format_graph(self)

    def __repr__(self) -> str:
        return f"<Graph {self.name}: {len(self.inputs)} inputs, {len(self.nodes)} nodes>"

    def as_graph_def(self) -> dict:
        return printer.graph_def(self)

    def to_dot(self) -> str:
        return picture.to_dot(self)

    def _repr_svg_(self):
        """Notebooks draw the graph as SVG when Graphviz is installed (None otherwise)."""
        return picture.to_svg(self)

    def _repr_pretty_(self, printer, cycle) -> None:
        """Without Graphviz, notebooks show the listing."""
        printer.text(str(self))

    def verify(self) -> None:
        verify_graph(self)
