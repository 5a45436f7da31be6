"""Graph lists (a Python list appended to in a symbolic loop) as ONNX tensor sequences.

`list_new` is `SequenceEmpty`, `list_append` `SequenceInsert` (ONNX sequences are values,
so the appended list is a new value: the graph's rebinding `xs = list_append(xs, x)`
already says so), `list_stack` `ConcatFromSequence(new_axis=1)`, `list_get` `SequenceAt`,
`list_len` `SequenceLength`. ONNX needs each sequence's element type where the list is
created; `element_types(graph)` finds it by joining every list value with the values it
flows into (appends, copies, branch and loop-body inputs/outputs, captures).
"""
from __future__ import annotations

import numpy as np

from runtime.onnx_export.context import onnx_dtype
from runtime.onnx_export.table import converter
from runtime.core.tensor import Tensor

_OBJECT = np.dtype(object)
# List ops whose result is the list they were given, and whether they append an element.
_SAME_LIST = {"list_append": True, "save_state": True, "list_copy": False}


def element_types(graph) -> dict[int, tuple]:
    """id(list value) -> (shape, dtype) of its elements, for every list in `graph`."""
    parent: dict[int, int] = {}

    def find(k):
        while parent.setdefault(k, k) != k:
            parent[k] = parent[parent[k]]
            k = parent[k]
        return k

    def union(*values):
        ids = [id(v) for v in values if isinstance(v, Tensor) and v.dtype == _OBJECT]
        for other in ids[1:]:
            parent[find(other)] = find(ids[0])

    members: list = []
    elems: dict[int, tuple] = {}

    def visit(g):
        for outer, inner in g.captures.items():
            union(outer, inner)
        for node in g.nodes:
            members.extend(t for t in node.outputs if t.dtype == _OBJECT)
            appends = _SAME_LIST.get(node.op.name)
            if appends is not None:
                union(node.inputs[0], node.outputs[0])
            if appends:
                x = node.inputs[1]
                elems.setdefault(id(node.inputs[0]), (tuple(x.shape), x.dtype) if
                                 isinstance(x, Tensor) else (np.shape(x), np.asarray(x).dtype))
            if node.op.sources is not None:  # control flow: values through its subgraphs
                for sub in node.subgraphs():
                    for p, ph in enumerate(sub.inputs):
                        union(ph, *node.op.feeds(node, p))
                for i, o in enumerate(node.outputs):
                    union(o, *node.op.sources(node, i))
            for sub in node.subgraphs():
                visit(sub)

    visit(graph)
    by_root = {}
    for k, aval in elems.items():
        by_root.setdefault(find(k), aval)
    return {id(t): by_root.get(find(id(t))) for t in members} | \
        {k: by_root.get(find(k)) for k in parent}


def element_of(em, t) -> tuple:
    aval = em.shared.get("list_elems", {}).get(id(t))
    if aval is None:
        raise em.error("a graph list to which nothing is appended has no ONNX element type")
    return aval


def sequence_info(em, name: str, t):
    from onnx import helper

    shape, dtype = element_of(em, t)
    return helper.make_tensor_sequence_value_info(name, onnx_dtype(dtype), None)


@converter("list_new")
def _new(em, node):
    shape, dtype = element_of(em, node.outputs[0])
    return [em.op("SequenceEmpty", [], hint="list", dtype=onnx_dtype(dtype))]


@converter("save_state")
def _save_state(em, node):
    raise em.error("gradient bookkeeping (loops under a GradientTape) has no ONNX form; "
                   "export the forward function")


@converter("list_append")
def _append(em, node):
    xs, x = node.inputs
    shape, dtype = element_of(em, xs)
    seq = em.value(xs)
    position = em.op("SequenceLength", [seq])
    return [em.op("SequenceInsert", [seq, em.value(x, dtype)], hint="list"), position]


@converter("list_stack")
def _stack(em, node):
    return [em.op("ConcatFromSequence", [em.value(node.inputs[0])], axis=0, new_axis=1)]


@converter("list_copy")
def _copy(em, node):
    return [em.value(node.inputs[0])]


@converter("list_get")
def _get(em, node):
    xs, k = node.inputs
    return [em.op("SequenceAt", [em.value(xs), em.value(k, np.int64)])]


@converter("list_len")
def _len(em, node):
    return [em.op("SequenceLength", [em.value(node.inputs[0])])]
