"""The one printer of graphs: a text listing, a JSON-able dict, and Graphviz DOT.

    graph my_relu(x: float32[2]) {
      v1: bool[2] = greater(x, 0)                         # demo.py:5
      ...
      return v3
    }
"""
from __future__ import annotations

import html
import shutil
import subprocess

import numpy as np

from runtime.core.tensor import StateHandle, Tensor, _fmt_shape


def _is_variable(v) -> bool:
    return isinstance(v, StateHandle)


def _ref(x) -> str:
    if isinstance(x, Tensor):
        return x.name
    if isinstance(x, np.ndarray):
        if x.ndim == 0:
            return f"{x.dtype.name}({x.item()!r})"  # a scalar materialized for its kernel
        return f"const{_fmt_shape(x.shape)}" if x.size > 4 else np.array2string(x, separator=",")
    return repr(x)


def _attr_text(k, v) -> str:
    if _is_variable(v):
        return f"{k}={v.name}"
    return f"{k}={_ref(v)}"


def _typed(t: Tensor) -> str:
    return f"{t.name}: {t.dtype}{_fmt_shape(t.shape)}"


def format_node(node, indent: str = "") -> str:
    outs = ", ".join(_typed(o) for o in node.outputs)
    args = [_ref(x) for x in node.inputs]
    subgraphs = dict(node.subgraph_items())
    args += [_attr_text(k, v) for k, v in node.attrs.items() if k not in subgraphs]
    text = f"{indent}{outs + ' = ' if outs else ''}{node.op.name}({', '.join(args)})"
    if node.origin is not None:
        text = f"{text:<60}  # {node.origin.filename.rsplit('/', 1)[-1]}:{node.origin.lineno}"
    return text


def format_graph(graph, indent: str = "") -> str:
    lines = [f"{indent}graph {graph.name}({', '.join(_typed(t) for t in graph.inputs)}) {{"]
    for node in graph.nodes:
        lines.append(format_node(node, indent + "  "))
        for key, sub in node.subgraph_items():
            lines.append(format_graph(sub, indent + "    ").replace(
                f"graph {sub.name}(", f"{key.rstrip('_')}: graph {sub.name}(", 1))
    outs = ", ".join(_ref(x) for x in graph.outputs)
    lines.append(f"{indent}  return {outs}")
    lines.append(f"{indent}}}")
    return "\n".join(lines)


def graph_def(graph) -> dict:
    """A JSON-serialisable description of the graph (and its subgraphs)."""
    def value(x):
        if isinstance(x, Tensor):
            return {"ref": x.name}
        return {"const": _jsonable(x)}

    nodes = []
    for node in graph.nodes:
        subgraphs = {k: graph_def(v) for k, v in node.subgraph_items()}
        attrs = {k: _jsonable(v) for k, v in node.attrs.items() if k not in subgraphs}
        entry = {
            "op": node.op.name,
            "inputs": [value(x) for x in node.inputs],
            "attrs": attrs,
            "outputs": [{"name": o.name, "dtype": str(o.dtype), "shape": list(o.shape)}
                        for o in node.outputs],
        }
        if subgraphs:
            entry["subgraphs"] = subgraphs
        if node.origin is not None:
            entry["origin"] = {"file": node.origin.filename, "line": node.origin.lineno,
                               "function": node.origin.function}
        nodes.append(entry)
    return {
        "name": graph.name,
        "inputs": [{"name": t.name, "dtype": str(t.dtype), "shape": list(t.shape)}
                   for t in graph.inputs],
        "nodes": nodes,
        "outputs": [value(x) for x in graph.outputs],
    }


def _jsonable(v):
    if v is None or isinstance(v, (bool, int, float, str)):
        return v
    if isinstance(v, np.generic):
        return v.item()
    if isinstance(v, np.ndarray):
        return {"array": v.tolist(), "dtype": str(v.dtype)}
    if isinstance(v, (tuple, list)):
        return [_jsonable(x) for x in v]
    if isinstance(v, slice):
        return {"slice": [_jsonable(v.start), _jsonable(v.stop), _jsonable(v.step)]}
    if v is Ellipsis:
        return "..."
    if isinstance(v, np.dtype):
        return str(v)
    if _is_variable(v):
        return {"variable": v.name}
    return repr(v)


def to_dot(graph) -> str:
    """Graphviz DOT: one box per node (op, shape/dtype, user line), subgraphs as clusters."""
    lines = ["digraph G {", '  rankdir=TB; node [shape=box, fontname="Helvetica", fontsize=10];']
    counter = [0]

    def node_id(obj) -> str:
        return f"n{id(obj)}"

    def emit(g, indent):
        for t in g.inputs:
            label = f"{t.name}\\n{t.dtype}{_fmt_shape(t.shape)}"
            lines.append(f'{indent}{node_id(t)} [label="{label}", shape=ellipse];')
        for node in g.nodes:
            where = f"\\nline {node.origin.lineno}" if node.origin else ""
            types = "\\n".join(f"{o.dtype}{_fmt_shape(o.shape)}" for o in node.outputs)
            label = html.escape(f"{node.op.name}", quote=True) + (f"\\n{types}" if types else "") + where
            lines.append(f'{indent}{node_id(node)} [label="{label}"];')
            for o in node.outputs:
                lines.append(f"{indent}{node_id(o)} [shape=point];")
                lines.append(f"{indent}{node_id(node)} -> {node_id(o)} [arrowhead=none];")
            for x in node.inputs:
                if isinstance(x, Tensor):
                    lines.append(f"{indent}{node_id(x)} -> {node_id(node)};")
            for key, sub in node.subgraph_items():
                counter[0] += 1
                lines.append(f"{indent}subgraph cluster_{counter[0]} {{")
                lines.append(f'{indent}  label="{node.op.name}: {key.rstrip("_")}"; style=rounded;')
                emit(sub, indent + "  ")
                lines.append(f"{indent}}}")
                for t in sub.inputs:
                    lines.append(f"{indent}{node_id(node)} -> {node_id(t)} [style=dashed];")
        for o in g.outputs:
            counter[0] += 1
            ret = f"out{counter[0]}_{id(g)}"
            if isinstance(o, Tensor):
                lines.append(f'{indent}{ret} [label="return", shape=plaintext];')
                lines.append(f"{indent}{node_id(o)} -> {ret};")
            else:  # a constant result (e.g. folded): show its value
                label = html.escape(f"return {_ref(o)}", quote=True)
                lines.append(f'{indent}{ret} [label="{label}", shape=plaintext];')

    emit(graph, "  ")
    lines.append("}")
    return "\n".join(lines)


def to_svg(graph) -> str | None:
    """SVG through the Graphviz `dot` program, or None when it is not installed."""
    dot = shutil.which("dot")
    if dot is None:
        return None
    done = subprocess.run([dot, "-Tsvg"], input=to_dot(graph), capture_output=True, text=True,
                          check=True)
    return done.stdout
