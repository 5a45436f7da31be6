"""`save(fn_or_cf, path)`: a Function's traces (or one ConcreteFunction) as a saved function.

Each trace is written with its cache key, its result structure, its unoptimized and
optimized graphs (ops by name, attributes in the exact encoding of format.py, subgraphs
nested in their node, user origins), and the arguments it writes back into. Arrays
(constants, Variable values) go to the `.npz`. A value the format cannot represent (a
Python object held by a trace, a namedtuple result) raises SaveError naming it.
"""
from __future__ import annotations

import os

from runtime.core.error_index import with_error_index
from runtime.core.graph import Graph
from runtime.core.naming import value_names
from runtime.saved.container import write
from runtime.saved.format import FORMAT, VERSION, Encoder, SaveError, dtype_text
from runtime.saved.optable import op_table
from runtime.frontend.function import BoundFunction, ConcreteFunction, Function
from runtime.frontend.signature import FloatKey, IdentityKey, TensorSpec, is_array_part
from runtime.core.tensor import Tensor
from runtime.state.variables import Variable


@with_error_index
def save(fn_or_cf: Function | ConcreteFunction, path: str | os.PathLike) -> None:
    """Write every trace of a Function (or one ConcreteFunction) to `path`.

    The file holds the graphs (versioned JSON) and their constant arrays (`.npz`, no
    pickles); `ag.load(path)` runs it with no need for the Python code. The format is
    described in docs/saved_format.md.

    Args:
        fn_or_cf: an `ag.function` that has been traced (each of its traces is saved), or
            one ConcreteFunction (`f.get_concrete_function(...)`).
        path: a `.agz` file, or a directory to write the parts into.

    Raises:
        ag.SaveError: nothing to save (not traced yet, or not an `ag.function`), or a graph
            holds a value the format cannot represent (Python objects, state the trace
            reads or writes), naming it.

    Example:
        ```python
        import numpy as np
        import autograph as ag

        @ag.function
        def affine(x):
            return 2.0 * x + 1.0

        affine(np.float32(1))  # -> np.float32(3.0)
        ag.save(affine, "affine.agz")
        loaded = ag.load("affine.agz")
        loaded(np.float32(1))  # -> np.float32(3.0)
        ```
    """
    if isinstance(fn_or_cf, BoundFunction):
        raise SaveError("save a method's Function through a ConcreteFunction: "
                        "ag.save(obj.method.get_concrete_function(...), path)")
    if isinstance(fn_or_cf, ConcreteFunction):
        cfs, owner = [fn_or_cf], fn_or_cf._owner
    elif isinstance(fn_or_cf, Function):
        cfs, owner = fn_or_cf.concrete_functions, fn_or_cf
        if not cfs:
            raise SaveError(f"{fn_or_cf.__name__} has not been traced yet: call it (or "
                            "get_concrete_function(...)) with the arguments to save graphs "
                            "for, then save it")
    else:
        raise SaveError(f"save() takes an ag.function or a ConcreteFunction, not "
                        f"{type(fn_or_cf).__name__}")
    enc = Encoder()
    description = {
        "format": FORMAT,
        "version": VERSION,
        "function": _function_info(owner, cfs[0], enc),
        "concrete_functions": [_concrete(cf, enc) for cf in cfs],
    }
    description["origins"] = enc.origins
    description["variables"] = [_variable(v, i, enc) for i, v in enumerate(enc.variables)]
    write(path, description, enc.arrays)


def _variable(v, i: int, enc: Encoder) -> dict:
    name = f"v{i}"
    dtype_text(v.dtype)
    enc.arrays[name] = v.numpy()
    return {"name": str(v.name), "array": name}


def _function_info(owner, cf, enc: Encoder) -> dict:
    info = {"name": cf.name, "parameters": [], "input_signature": None}
    if owner is None:
        info["parameters"] = [{"name": p, "kind": "POSITIONAL_OR_KEYWORD"} for p in cf.params]
        return info
    for p in owner._sig.parameters.values():
        entry = {"name": p.name, "kind": p.kind.name}
        if p.default is not p.empty:
            try:
                entry["default"] = enc.value(p.default, f"default of {p.name}")
            except SaveError:
                pass  # not representable: the loaded function needs the argument passed
        info["parameters"].append(entry)
    if owner.input_signature is not None:
        info["input_signature"] = [
            {"shape": list(s.shape), "dtype": dtype_text(s.dtype)} if isinstance(s, TensorSpec)
            else _refuse(f"input_signature entry {s!r}") for s in owner.input_signature]
    return info


def _refuse(what):
    raise SaveError(f"{what} cannot be saved")


def _concrete(cf, enc: Encoder) -> dict:
    state = getattr(cf, "state", None)
    if state is not None and state.runs_python():
        raise SaveError(f"{cf.name}: every call reads or writes Python state "
                        f"({', '.join(state.places())}), which a saved graph cannot reach; "
                        "pass that state as arguments and return its new value")
    leaves = []
    for x in cf._out_leaves:
        leaves.append({"output": True} if isinstance(x, Tensor) else
                      {"value": enc.value(x, f"{cf.name}: a constant result")})
    return {
        "key": [_key_part(p, enc, cf.name) for p in cf.key],
        "results": {"tree": _tree(cf, enc), "leaves": leaves},
        "writeback": [[k, name] for k, name in cf.writeback],
        "graph": _graph(cf.graph, enc, {}),
        "optimized_graph": _graph(cf.optimized_graph, enc, {}),
    }


def _tree(cf, enc: Encoder):
    # the tree as the ConcreteFunction was built with it (before write-back wrapping)
    return _encode_tree(cf.out_tree, enc, cf.name)


def _encode_tree(tree, enc: Encoder, name: str):
    if tree is None:
        return None
    kind = tree[0]
    if kind is dict:
        return {"dict": {"keys": [enc.value(k, f"{name}: a result key") for k in tree[1]],
                         "items": [_encode_tree(t, enc, name) for t in tree[2]]}}
    if kind is tuple or kind is list:
        return {kind.__name__: [_encode_tree(t, enc, name) for t in tree[1]]}
    raise SaveError(f"{name} returns a {kind.__name__} (a namedtuple): saved functions return "
                    "tuples, lists and dicts, since loading never imports classes; return "
                    "a tuple or a dict instead")


def _key_part(part, enc: Encoder, name: str):
    if is_array_part(part):
        return {"array": {"dtype": dtype_text(part[0]), "shape": list(part[1])}}
    t, v = part
    if (t is tuple or t is list) and type(v) is tuple:
        return {t.__name__: [_key_part(p, enc, name) for p in v]}
    if t is dict and type(v) is tuple:
        return {"dict": [[enc.value(k, f"{name}: a dict key"), _key_part(p, enc, name)]
                         for k, p in v]}
    if isinstance(v, IdentityKey):
        if isinstance(v.obj, Variable):
            return {"variable": enc.variable(v.obj)}
    if isinstance(v, FloatKey):
        v = v.value
    if t in (int, float, bool, str, complex, bytes, type(None)) and type(v) is t:
        return {"python": enc.value(v, f"{name}: an argument value")}
    raise SaveError(f"{name} was traced for an argument of type {t.__name__}, which a saved "
                    "function cannot match without its Python code; pass arrays, numbers, "
                    "strings and tuples/lists/dicts of them")


# why an op a live graph may hold cannot be saved, and what to do instead
_HINTS = dict.fromkeys(
    ("random_draw", "random_make", "random_call"),
    ": a random draw calls a NumPy generator (its state lives in Python) each time the "
    "graph runs, which a saved file cannot hold. Draw the numbers outside the function "
    "and pass them in as an argument before saving.")


def _vmap_loop(node, graph_name: str) -> tuple[dict, dict]:
    """What a saved graph keeps of an op vmap runs once per example (runtime/ops/
    vmap_loop.py): which inputs are batched, whether a mask comes last, the per-example
    output shapes; and the per-example op's own attributes, saved as the node's."""
    held = node.attrs["held"].node
    if held.op.subgraph_attrs:
        raise SaveError(f"graph {graph_name}: vmap runs `{held.op.name}` (control flow) as a "
                        "loop over the batch, which saved graphs cannot hold yet. Save the "
                        "per-example function and vmap it after loading.")
    spec = {"batched": [bool(b) for b in node.attrs["batched"]],
            "masked": bool(node.attrs["masked"]),
            "outputs": [{"dtype": dtype_text(t.dtype), "shape": list(t.shape)}
                        for t in held.outputs]}
    return spec, held.attrs


def _graph(graph: Graph, enc: Encoder, outer: dict) -> dict:
    """Encode `graph` (the compact layout of format version 4, docs/saved_format.md);
    `outer` maps the enclosing graph's Tensors (by id) to their value numbers there."""
    table = op_table()
    numbers: dict[int, int] = {}  # id(Tensor) -> its value number in this graph

    def ref(x, what):
        if isinstance(x, Tensor):
            k = numbers.get(id(x))
            if k is None:
                raise SaveError(f"graph {graph.name}: {what} uses {x.name}, which is not "
                                "defined in this graph")
            return k
        return [enc.value(x, f"graph {graph.name}: {what}")]

    def declare(t: Tensor) -> list:
        numbers[id(t)] = len(numbers)
        entry = [t.name, dtype_text(t.dtype), list(t.shape)]
        if t.weak:
            entry.append(True)
        return entry

    inputs = [declare(t) for t in graph.inputs]
    nodes = []
    for node in graph.nodes:
        how, op = node.op.derived or (None, node.op)  # (a derived op: as its original)
        if table.get(op.name) is not op:
            raise SaveError(f"graph {graph.name}: op {op.name!r} is not in the table of "
                            "ops saved graphs may use" + _HINTS.get(op.name, ""))
        node_inputs = [ref(x, f"input of {op.name}") for x in node.inputs]
        node_attrs, extras = node.attrs, {}
        if how == "quiet":
            extras["quiet"] = True
        elif how == "vmap_loop":
            extras["vmap_loop"], node_attrs = _vmap_loop(node, graph.name)
        attrs, subs = {}, {}
        for k, v in node_attrs.items():
            if isinstance(v, Graph):
                subs[k] = _graph(v, enc, numbers)
            else:
                attrs[k] = enc.value(v, f"graph {graph.name}: attribute {k!r} of "
                                     f"{node.op.name}")
        if subs:
            extras["subgraphs"] = subs
        entry = [op.name, node_inputs, attrs, [declare(o) for o in node.outputs],
                 enc.origin(node.origin)]
        if extras:
            entry.append(extras)
        nodes.append(entry)
    out = {"name": graph.name, "inputs": inputs, "nodes": nodes,
           "outputs": [ref(x, "an output") for x in graph.outputs]}
    if graph.parent is None:
        # the user's variable names of its values (and its subgraphs'), as the listing and
        # the picture show them: a loaded graph shows them without the source
        out["names"] = dict(sorted(value_names(graph).items()))
    else:
        # which inputs stand for values of the enclosing graph (list shape rules use it)
        position = {id(t): i for i, t in enumerate(graph.inputs)}
        out["captures"] = [[outer[id(o)], position[id(i)]] for o, i in graph.captures.items()
                           if id(o) in outer and id(i) in position]
    return out
