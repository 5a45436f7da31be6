"""The picture of a graph: Graphviz DOT text (and SVG when Graphviz is installed).

What a reader of the user's code needs to see, no more:

- one box per op, labelled `y = multiply(·, 2.0)` with the user's variable names
  (runtime/core/naming.py; the listing shows the same names), its dtype and shape, and
  its source line; edges go from the op that computes a value to the ops that read it;
- internal steps (`OpDef.bookkeeping`: `python_number`, `x.shape[i]`) folded into the
  edge they feed, labelled with what they stand for;
- each subgraph of `cond` / `while_loop` drawn as a cluster inside the picture; a
  subgraph reads outer values directly (its captures are not drawn), and the values it
  carries are ellipses fed by dashed edges from its node;
- the results as `return[i]` (in each cluster too); an op nothing reads and that has no
  effect is drawn grey and dashed (`unused`), so nothing dangles unexplained;
- node ids from the value names (`v7`), which follow the order of the graph: the same
  function traced twice gives the same text.
"""
from __future__ import annotations

import shutil
import subprocess

import numpy as np

from runtime.core.naming import value_names
from runtime.core.printer import _ref
from runtime.core.tensor import Tensor, _fmt_shape

_FOLDED_TEXT = {"shape_dim": lambda node: f"shape[{node.attrs.get('axis')}]",
                "shape_of": lambda node: "shape", "size_of": lambda node: "size"}
_UNUSED = ", style=dashed, color=gray50, fontcolor=gray50"


def _quote(text: str) -> str:
    """A DOT string: quotes and backslashes escaped, lines joined by `\\n`."""
    return '"' + "\\n".join(line.replace("\\", "\\\\").replace('"', '\\"')
                            for line in text.split("\n")) + '"'


def _type(t: Tensor) -> str:
    return f"{t.dtype}{_fmt_shape(t.shape)}"


def _where(node) -> str:
    if node.origin is None:
        return ""
    return f"{node.origin.filename.rsplit('/', 1)[-1]}:{node.origin.lineno}"


class _Drawer:
    def __init__(self, graph):
        self.names = value_names(graph)
        self.lines: list[str] = []
        self.producer: dict = {}      # id(value) -> (node id, edge label or None)
        self.clusters = 0
        self.effects = 0
        self.seen: set = set()     # edges drawn (`f(x, x)` draws one)

    def user(self, t: Tensor) -> str | None:
        name = self.names.get(t.name)
        return None if name == t.name else name

    def title(self, t: Tensor) -> str:
        return self.user(t) or t.name

    # -- values ---------------------------------------------------------------------
    def source(self, x) -> tuple[str, str | None]:
        """(the DOT id drawing where `x` comes from, the label its edges carry)."""
        return self.producer[id(x)]

    def fold(self, node) -> None:
        """A bookkeeping op: readers of its value get an edge from what it reads."""
        src, label = self.source(node.inputs[0])
        text = _FOLDED_TEXT.get(node.op.name)
        out = node.outputs[0]
        self.producer[id(out)] = (src, self.user(out) or (text(node) if text else label))

    # -- drawing --------------------------------------------------------------------
    def emit(self, line: str, indent: str) -> None:
        self.lines.append(indent + line)

    def draw_value(self, t: Tensor, indent: str, used: bool = True) -> None:
        label = _quote(self.title(t) + "\n" + _type(t) + ("" if used else "\n(unused)"))
        style = "" if used else _UNUSED
        self.emit(f"{t.name} [label={label}, shape=ellipse{style}];", indent)
        self.producer[id(t)] = (t.name, None)

    def node_label(self, node) -> str:
        args = [_ref(x) for x in node.inputs if not isinstance(x, Tensor) and x is not None]
        args += [_ref(v) if k == "value" else f"{k}={_ref(v)}" for k, v in node.attrs.items()
                 if isinstance(v, (bool, int, float, np.generic))]
        op = node.op.name
        if args and not node.subgraphs():
            op = f"{op}({', '.join(['·'] * any(isinstance(x, Tensor) for x in node.inputs) + args)})"
        named = [self.user(o) for o in node.outputs]
        if any(named):
            op = f"{', '.join(n or o.name for n, o in zip(named, node.outputs))} = {op}"
        parts = [op]
        if node.outputs:
            parts.append(", ".join(_type(o) for o in node.outputs))
        if node.origin is not None:
            parts.append(_where(node))
        return "\n".join(parts)

    def draw_graph(self, graph, indent: str, prefix: str) -> None:
        live = _live_nodes(graph)
        for node in graph.nodes:
            if node.op.bookkeeping and node.inputs and isinstance(node.inputs[0], Tensor):
                self.fold(node)
                continue
            self.draw_node(node, indent, id(node) in live)
        for i, out in enumerate(graph.outputs):
            ret = f"{prefix}return{i}"
            if isinstance(out, Tensor):
                self.emit(f"{ret} [label={_quote(f'return[{i}]')}, shape=plaintext];", indent)
                self.edge(out, ret, indent)
            else:  # a constant result (folded, or a Python value): show it
                self.emit(f"{ret} [label={_quote(f'return[{i}] = {_ref(out)}')}, "
                          "shape=plaintext];", indent)

    def edge(self, value, target: str, indent: str, style: str = "") -> None:
        src, label = self.source(value)
        attrs = ([f"label={_quote(label)}"] if label else []) + ([style] if style else [])
        line = f"{src} -> {target}" + (f" [{', '.join(attrs)}]" if attrs else "") + ";"
        if line not in self.seen:
            self.seen.add(line)
            self.emit(line, indent)

    def draw_node(self, node, indent: str, live: bool) -> None:
        if node.outputs:
            nid = node.outputs[0].name
        else:
            self.effects += 1
            nid = f"effect{self.effects}"
        style = "" if live else _UNUSED
        label = self.node_label(node) + ("" if live else "\n(unused)")
        self.emit(f"{nid} [label={_quote(label)}{style}];", indent)
        captured = {id(outer) for sub in node.subgraphs() for outer in sub.captures}
        carried = set()
        for sub in node.subgraphs():
            for pos, placeholder in enumerate(sub.inputs):
                if _is_capture(sub, placeholder) or node.op.feeds is None:
                    continue
                feeds = node.op.feeds(node, pos)
                if feeds:
                    carried.add(id(feeds[0]))
        for x in node.inputs:
            if isinstance(x, Tensor) and (id(x) not in captured or id(x) in carried):
                self.edge(x, nid, indent)
        many = len(node.outputs) > 1
        for o in node.outputs:
            self.producer[id(o)] = (nid, self.title(o) if many else None)
        for key, sub in node.subgraph_items():
            self.draw_cluster(node, nid, key, sub, indent)

    def draw_cluster(self, node, nid: str, key: str, sub, indent: str) -> None:
        self.clusters += 1
        k = self.clusters
        inner = indent + "  "
        self.emit(f"subgraph cluster_{k} {{", indent)
        title = f"{node.op.name}: {key.rstrip('_')}"
        self.emit(f"label={_quote(title)}; style=rounded; color=gray40;", inner)
        outers = {id(ph): outer for outer, ph in sub.captures.items()}
        read = _read_values(sub)
        drawn = [ph for ph in sub.inputs if id(ph) not in outers and id(ph) in read]
        for ph in sub.inputs:
            if id(ph) in outers:
                self.producer[id(ph)] = self.source(outers[id(ph)])
        for ph in drawn:  # (a carried value this subgraph never reads is not drawn)
            self.draw_value(ph, inner)
        self.draw_graph(sub, inner, f"c{k}_")
        self.emit("}", indent)
        for ph in drawn:
            self.emit(f"{nid} -> {ph.name} [style=dashed];", indent)


def _is_capture(sub, placeholder) -> bool:
    return any(ph is placeholder for ph in sub.captures.values())


def _read_values(graph) -> set:
    """ids of the values `graph` reads (its nodes' inputs) or returns."""
    read = {id(x) for x in graph.outputs if isinstance(x, Tensor)}
    for node in graph.nodes:
        read.update(id(x) for x in node.inputs if isinstance(x, Tensor))
    return read


def _live_nodes(graph) -> set:
    """ids of the nodes the results or an effect need (within this graph)."""
    needed = {id(x) for x in graph.outputs if isinstance(x, Tensor)}
    live: set = set()
    for node in reversed(graph.nodes):
        if node.has_effects or any(id(o) in needed for o in node.outputs):
            live.add(id(node))
            needed.update(id(x) for x in node.inputs if isinstance(x, Tensor))
    return live


def to_dot(graph) -> str:
    """Graphviz DOT text of `graph` (see the module docstring for what it shows)."""
    drawer = _Drawer(graph)
    drawer.emit("digraph G {", "")
    drawer.emit('rankdir=TB; node [shape=box, fontname="Helvetica", fontsize=10]; '
                'edge [fontname="Helvetica", fontsize=9];', "  ")
    read = _read_values(graph)
    for t in graph.inputs:
        drawer.draw_value(t, "  ", id(t) in read)
    drawer.draw_graph(graph, "  ", "")
    drawer.emit("}", "")
    return "\n".join(drawer.lines)


def to_svg(graph) -> str | None:
    """SVG through the Graphviz `dot` program, or None when it is not installed."""
    dot = shutil.which("dot")
    if dot is None:
        return None
    done = subprocess.run([dot, "-Tsvg"], input=to_dot(graph), capture_output=True, text=True,
                          check=True)
    return done.stdout
