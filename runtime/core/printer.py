"""The one printer of graphs: a text listing and a JSON-able dict (the picture, Graphviz
DOT, is `picture.py`).

    graph my_relu(x: float32[2]) {
      v1: bool[2] = greater(x, 0)                         # demo.py:5
      v2 (y): float32[2] = multiply(x, 2.0)               # demo.py:6
      ...
      return v3
    }

A value the user named (`y = ...`, a variable an `if` or a loop carries) is written
`v2 (y)` where it is defined (runtime/core/naming.py finds the names).
"""
from __future__ import annotations

import numpy as np

from runtime.core.naming import value_names
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


def _typed(t: Tensor, names: dict | None = None) -> str:
    user = names.get(t.name) if names else None
    return f"{t.name}{f' ({user})' if user else ''}: {t.dtype}{_fmt_shape(t.shape)}"


def format_node(node, indent: str = "", names: dict | None = None) -> str:
    outs = ", ".join(_typed(o, names) for o in node.outputs)
    args = [_ref(x) for x in node.inputs]
    subgraphs = dict(node.subgraph_items())
    args += [_attr_text(k, v) for k, v in node.attrs.items() if k not in subgraphs]
    text = f"{indent}{outs + ' = ' if outs else ''}{node.op.name}({', '.join(args)})"
    if node.origin is not None:
        text = f"{text:<60}  # {node.origin.filename.rsplit('/', 1)[-1]}:{node.origin.lineno}"
    return text


def format_graph(graph, indent: str = "", names: dict | None = None) -> str:
    if names is None:
        names = value_names(graph)
    lines = [f"{indent}graph {graph.name}({', '.join(_typed(t, names) for t in graph.inputs)}) {{"]
    for node in graph.nodes:
        lines.append(format_node(node, indent + "  ", names))
        for key, sub in node.subgraph_items():
            lines.append(format_graph(sub, indent + "    ", names).replace(
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
