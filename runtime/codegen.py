"""The executor: lower a graph to Python source, one NumPy call per node, and exec it.

    def relu(x):
        v1 = np.greater(x, 0)                       # demo.py:5
        if v1:
            v2 = x
        else:
            v2 = np.multiply(x, 0.0)                # demo.py:8
        return v2

Control-flow nodes become real `if` / `while` statements with their subgraphs inlined;
constants that are not literals are bound as globals of the generated function. Only
live nodes are emitted (non-strict execution). The source is registered with
`linecache` so tracebacks show it, and `line_origins` maps each generated line back to
the node and the user's line that created it.
"""
from __future__ import annotations

import keyword
import linecache
import math
import re
from typing import Any

import numpy as np

from runtime.control_flow import COND, WHILE_LOOP
from runtime.graph import Graph, Node
from runtime.liveness import live_nodes
from runtime.tensor import Tensor

_LITERAL_TYPES = (bool, int, str, type(None), bytes)
_compile_count = [0]


class CodeGen:
    def __init__(self):
        self.lines: list[str] = []
        self.globals: dict[str, Any] = {"np": np}
        self.names: dict[Tensor, str] = {}
        self.line_origins: dict[int, Node] = {}
        self._const_ids: dict[int, str] = {}
        self._used: set[str] = set()

    # -- naming -----------------------------------------------------------------------
    def fresh(self, base: str) -> str:
        base = re.sub(r"\W", "_", base) or "v"
        if base[0].isdigit() or keyword.iskeyword(base):
            base = "_" + base
        name, k = base, 1
        while name in self._used or name in self.globals:
            k += 1
            name = f"{base}_{k}"
        self._used.add(name)
        return name

    def const(self, value, hint: str = "c") -> str:
        """A global name bound to `value` in the generated module."""
        key = id(value)
        if key not in self._const_ids:
            name = self.fresh(hint)
            self.globals[name] = value
            self._const_ids[key] = name
        return self._const_ids[key]

    def lit(self, value) -> str:
        """Python source for a constant: a literal when safe, else a bound global."""
        t = type(value)
        if t in _LITERAL_TYPES:
            return repr(value)
        if t is float:
            return repr(value) if math.isfinite(value) else f"float({str(value)!r})"
        if t in (tuple, list):
            items = [self.lit(v) for v in value]
            if t is tuple:
                return "(" + ", ".join(items) + ("," if len(items) == 1 else "") + ")"
            return "[" + ", ".join(items) + "]"
        if t is slice:
            return f"slice({self.lit(value.start)}, {self.lit(value.stop)}, {self.lit(value.step)})"
        if value is Ellipsis:
            return "..."
        if isinstance(value, np.dtype):
            return f"np.dtype({str(value)!r})" if value.isbuiltin else self.const(value, "dtype")
        if isinstance(value, type) and issubclass(value, np.generic) and getattr(np, value.__name__, None) is value:
            return f"np.{value.__name__}"
        return self.const(value, "c")

    def expr(self, x) -> str:
        return self.names[x] if isinstance(x, Tensor) else self.lit(x)

    def emit(self, indent: int, text: str, node: Node | None = None) -> None:
        if node is not None and node.origin is not None:
            text = f"{text:<48}  # {_short(node.origin.filename)}:{node.origin.lineno}"
        self.lines.append("    " * indent + text)
        if node is not None:
            self.line_origins[len(self.lines)] = node

    # -- graphs -----------------------------------------------------------------------
    def emit_graph_body(self, graph: Graph, indent: int) -> list[str]:
        """Emit the live nodes of `graph`; returns the expressions of its outputs."""
        for node in live_nodes(graph):
            self.emit_node(node, indent)
        return [self.expr(x) for x in graph.outputs]

    def emit_node(self, node: Node, indent: int) -> None:
        outs = [self.fresh(o.name) for o in node.outputs]
        for o, name in zip(node.outputs, outs):
            self.names[o] = name
        if node.op is COND:
            return self._emit_cond(node, outs, indent)
        if node.op is WHILE_LOOP:
            return self._emit_while(node, outs, indent)
        ins = [self.expr(x) for x in node.inputs]
        if node.op.format is not None:
            call = node.op.format(self, ins, node.attrs)
        else:
            ref = node.op.kernel_ref or self.const(node.op.kernel, f"k_{node.op.name}")
            args = ins + [f"{k}={self.lit(v)}" for k, v in node.attrs.items()]
            call = f"{ref}({', '.join(args)})"
        if outs:
            self.emit(indent, f"{', '.join(outs)} = {call}", node)
        else:
            self.emit(indent, call, node)

    def _bind_inputs(self, sub: Graph, exprs: list[str]) -> None:
        for ph, e in zip(sub.inputs, exprs):
            self.names[ph] = e

    def _emit_cond(self, node: Node, outs: list[str], indent: int) -> None:
        pred, *rest = [self.expr(x) for x in node.inputs]
        self.emit(indent, f"if {pred}:", node)
        for i, sub in enumerate((node.attrs["then"], node.attrs["else_"])):
            if i == 1:
                self.emit(indent, "else:")
            self._bind_inputs(sub, rest)
            start = len(self.lines)
            results = self.emit_graph_body(sub, indent + 1)
            if outs:
                self.emit(indent + 1, f"{', '.join(outs)} = {', '.join(results)}")
            elif len(self.lines) == start:
                self.emit(indent + 1, "pass")

    def _emit_while(self, node: Node, outs: list[str], indent: int) -> None:
        g_cond, g_body = node.attrs["cond"], node.attrs["body"]
        n = len(node.outputs)
        ins = [self.expr(x) for x in node.inputs]
        init, caps = ins[:n], ins[n:len(ins) - (1 if node.attrs["has_max"] else 0)]
        carried = [self.fresh(o.name + "_loop") for o in node.outputs]
        if carried:
            self.emit(indent, f"{', '.join(carried)} = {', '.join(init)}", node)
        for sub in (g_cond, g_body):
            self._bind_inputs(sub, carried + caps)
        counter = None
        if node.attrs["has_max"]:
            counter = self.fresh("iteration")
            self.emit(indent, f"{counter} = 0")
        cond_nodes = live_nodes(g_cond)
        if not cond_nodes and counter is None:
            self.emit(indent, f"while {self.expr(g_cond.outputs[0])}:", node)
        else:
            self.emit(indent, "while True:", node)
            for sub_node in cond_nodes:
                self.emit_node(sub_node, indent + 1)
            self.emit(indent + 1, f"if not {self.expr(g_cond.outputs[0])}:")
            self.emit(indent + 2, "break")
            if counter is not None:
                self.emit(indent + 1, f"if {counter} >= {ins[-1]}:")
                self.emit(indent + 2, "break")
                self.emit(indent + 1, f"{counter} += 1")
        start = len(self.lines)
        results = self.emit_graph_body(g_body, indent + 1)
        if carried:
            self.emit(indent + 1, f"{', '.join(carried)} = {', '.join(results)}")
        elif len(self.lines) == start:
            self.emit(indent + 1, "pass")
        if outs:
            self.emit(indent, f"{', '.join(outs)} = {', '.join(carried)}")


def _short(filename: str) -> str:
    return filename.rsplit("/", 1)[-1]


def structure_expr(gen: CodeGen, tree, leaves) -> str:
    """Source that rebuilds a flattened structure from its leaf expressions."""
    it = iter(leaves)

    def build(t):
        if t is None:
            x = next(it)
            if isinstance(x, Tensor):
                return gen.names[x]
            if isinstance(x, np.ndarray):
                return f"{gen.const(x)}.copy()"  # callers may mutate what we return
            return gen.lit(x)
        kind = t[0]
        if kind is dict:
            return "{" + ", ".join(f"{k!r}: {build(s)}" for k, s in zip(t[1], t[2])) + "}"
        items = [build(s) for s in t[1]]
        if kind is tuple:
            return "(" + ", ".join(items) + ("," if len(items) == 1 else "") + ")"
        if kind is list:
            return "[" + ", ".join(items) + "]"
        return f"{gen.const(kind, kind.__name__)}({', '.join(items)})"

    return build(tree)


def compile_graph(graph: Graph, out_tree, out_leaves, name: str):
    """Generate, register and exec the source for `graph`; returns (fn, source, gen)."""
    gen = CodeGen()
    params = [gen.fresh(t.name) for t in graph.inputs]
    for t, p in zip(graph.inputs, params):
        gen.names[t] = p
    fname = gen.fresh(name)
    gen.emit(0, f"def {fname}({', '.join(params)}):")
    body_start = len(gen.lines)
    outputs = [x for x in out_leaves if isinstance(x, Tensor)]
    for node in live_nodes(graph, outputs):
        gen.emit_node(node, 1)
    if len(gen.lines) == body_start:
        pass
    gen.emit(1, f"return {structure_expr(gen, out_tree, out_leaves)}")
    source = "\n".join(gen.lines) + "\n"
    _compile_count[0] += 1
    filename = f"<autograph-graph {name}#{_compile_count[0]}>"
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    namespace = dict(gen.globals)
    exec(compile(source, filename, "exec"), namespace)
    return namespace[fname], source, gen, filename
