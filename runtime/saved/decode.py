"""Rebuilding graphs from their saved description, checking everything on the way.

Values are referred to by name and resolve only to values defined earlier in the same
graph (a subgraph sees its own inputs), so a reference to an unknown or later value —
a cycle — is an error. Each node's op comes from the fixed op table, its attributes
are checked against the op's schema, and its declared output shapes and dtypes must be
what the op's own shape/dtype rule computes from its inputs (a file cannot lie about
shapes: the code generator trusts them). Control-flow nodes must agree with their
subgraphs. The result passes the graph verifier.
"""
from __future__ import annotations

import numpy as np

from runtime.core.errors import Origin
from runtime.core.graph import Graph, Node
from runtime.saved.format import (
    MAX_GRAPH_DEPTH, MAX_NODES, MAX_RANK, Decoder, LoadError, check_int, check_shape, check_text,
    parse_dtype,
)
from runtime.ops.ufuncs_rules import ufunc_rule
from runtime.ops.quiet import quiet_op
from runtime.ops.vmap_loop import Held, PerExample, loop_op
from runtime.saved.optable import check_attrs, lookup, op_table
from runtime.core.tensor import Tensor


def obj(value, where: str, required=(), optional=()) -> dict:
    """`value` as a JSON object with exactly these keys (required ones present)."""
    if type(value) is not dict:
        raise LoadError(f"{where}: expected an object")
    if len(value) == len(required) and all(k in value for k in required):
        return value  # the common case, checked without building lists
    missing = [k for k in required if k not in value]
    if missing:
        raise LoadError(f"{where}: missing {', '.join(map(repr, missing))}")
    extra = [k for k in value if k not in required and k not in optional]
    if extra:
        raise LoadError(f"{where}: unexpected key {str(extra[0])[:40]!r}")
    return value


def seq(value, where: str, limit: int = MAX_NODES) -> list:
    if type(value) is not list or len(value) > limit:
        raise LoadError(f"{where}: expected a list")
    return value


class GraphDecoder:
    def __init__(self, values: Decoder):
        self.values = values
        self.nodes = 0
        self.names: set[str] = set()
        self.rules: dict = {}  # ufunc rule results by what they depend on
        # what a graph repeats, checked once: dtype texts, origins, ops' empty attributes
        self.dtypes: dict[str, np.dtype] = {}
        self.origins: dict[tuple, Origin] = {}
        self.bare_ops: set = set()
        self.table = op_table()

    def plain_node(self, graph: Graph, n, scope: dict) -> bool:
        """Decode `n` if it is a plain node (no subgraphs) that passes every check of
        `node`; False, with nothing changed, for anything else (which `node` then decodes
        or refuses with the place named). The same checks, without building a message
        per value, and each repeated fact (dtype text, origin, op with no attributes)
        checked once: most of a large graph's loading time was spent on those."""
        if type(n) is not dict:
            return False
        try:
            name, raw_inputs, attrs, raw_outputs = (
                n["op"], n["inputs"], n["attrs"], n["outputs"])
            origin = n.get("origin", _ABSENT)
            op = self.table[name]
        except (KeyError, TypeError):  # a key missing, an op name not a string
            return False
        if len(n) != (4 if origin is _ABSENT else 5) or op.subgraph_attrs \
                or op.check is not None or type(raw_inputs) is not list \
                or type(attrs) is not dict or type(raw_outputs) is not list:
            return False
        try:
            inputs = []
            arrays = self.values.arrays
            for x in raw_inputs:
                t = type(x)
                if t is dict and len(x) == 1:
                    if "ref" in x:
                        x = x["ref"]
                        x = scope.get(x) if type(x) is str else None
                    elif "ndarray" in x:
                        x = x["ndarray"]
                        x = arrays.get(x) if type(x) is str else None
                    else:
                        x = self.values.value(x, "")
                    if x is None:
                        return False
                elif t is not float and t is not int and t is not bool:
                    x = self.values.value(x, "")
                inputs.append(x)
            if attrs:
                attrs = {k: self.values.value(v, "") for k, v in attrs.items()}
                check_attrs(op, attrs, len(inputs), "")
            else:
                attrs = {}
                if (op, len(inputs)) not in self.bare_ops:
                    check_attrs(op, attrs, len(inputs), "")
                    self.bare_ops.add((op, len(inputs)))
            declared = []
            names = self.names
            for o in raw_outputs:
                if type(o) is not dict:
                    return False
                name, shape, text = o["name"], o["shape"], o["dtype"]
                weak = o.get("weak", _ABSENT)
                if weak is _ABSENT:
                    weak = False
                    if len(o) != 3:
                        return False
                elif type(weak) is not bool or len(o) != 4:
                    return False
                if type(name) is not str or len(name) > 200 or not name.isprintable() \
                        or name in names or type(shape) is not list or len(shape) > MAX_RANK:
                    return False
                for d in shape:
                    if d is not None and (type(d) is not int or not 0 <= d <= 2**62):
                        return False
                dtype = self.dtypes.get(text) if type(text) is str else None
                if dtype is None:
                    dtype = self.dtypes[text] = parse_dtype(text, "", allow_object=True)
                declared.append((tuple(shape), dtype))
            if len(declared) > 1 and len({o["name"] for o in raw_outputs}) != len(declared):
                return False
            if op.abstract_eval is ufunc_rule:
                key = _ufunc_key(op, inputs, attrs)
                computed = self.rules.get(key) if key is not None else None
                if computed is None:
                    computed = _computed(op, inputs, attrs, self.rules)
            else:
                computed = _rule(op, inputs, attrs, "")
            if computed != declared:
                return False
            if origin is _ABSENT:
                origin = None
            elif origin is not None:
                if type(origin) is not dict or len(origin) != 3:
                    return False
                key = (origin["file"], origin["line"], origin["function"])
                if type(key[1]) is not int:  # True would find the origin of line 1
                    return False
                known = self.origins.get(key)
                if known is None:
                    known = self.origins[key] = _origin(origin, "")
                origin = known
        except (LoadError, KeyError, TypeError):  # TypeError: an unhashable origin part
            return False
        if self.nodes >= MAX_NODES:
            return False
        self.nodes += 1
        node = Node(op, inputs, attrs, origin)
        outputs = node.outputs
        for i, o in enumerate(raw_outputs):
            name = o["name"]
            shape, dtype = declared[i]
            t = Tensor(graph, node, i, shape, dtype, name, o.get("weak", False))
            outputs.append(t)
            names.add(name)
            scope[name] = t
        graph._counter[0] += len(outputs)  # as `Graph.add_node` counts the names it gives
        graph.nodes.append(node)
        return True

    def graph(self, d, where: str, parent: Graph | None = None, outer: dict | None = None,
              depth: int = 0) -> Graph:
        if depth > MAX_GRAPH_DEPTH:
            raise LoadError(f"{where}: subgraphs nested more than {MAX_GRAPH_DEPTH} deep")
        d = obj(d, where, ("name", "inputs", "nodes", "outputs"),
                ("captures",) if parent is not None else ("names",))
        graph = Graph(check_text(d["name"], f"{where}: name"), parent=parent)
        scope: dict[str, Tensor] = {}
        for k, t in enumerate(seq(d["inputs"], f"{where}: inputs")):
            name, shape, dtype, weak = self.aval(t, f"{where}: input {k}")
            scope[name] = graph.add_input(shape, dtype, name, weak)
        for k, pair in enumerate(seq(d.get("captures", []), f"{where}: captures")):
            if type(pair) is not list or len(pair) != 2 or type(pair[0]) is not str \
                    or pair[0] not in outer:
                raise LoadError(f"{where}: capture {k} is malformed")
            i = check_int(pair[1], f"{where}: capture {k}", 0, len(graph.inputs) - 1)
            graph.captures[outer[pair[0]]] = graph.inputs[i]
        plain = self.plain_node
        for k, n in enumerate(seq(d["nodes"], f"{where}: nodes")):
            if not plain(graph, n, scope):
                self.node(graph, n, scope, f"{where}, node {k}", depth)
        graph.outputs = [self.input(x, scope, f"{where}: output {k}")
                         for k, x in enumerate(seq(d["outputs"], f"{where}: outputs"))]
        if "names" in d:
            _user_names(graph, d["names"], f"{where}: names")
        return graph

    def aval(self, t, where: str):
        t = obj(t, where, ("name", "dtype", "shape"), ("weak",))
        name = check_text(t["name"], f"{where}: name", 200)
        if name in self.names:
            raise LoadError(f"{where}: the value name {name!r} is defined twice")
        self.names.add(name)
        weak = t.get("weak", False)
        if type(weak) is not bool:
            raise LoadError(f"{where}: weak must be a boolean")
        return (name, check_shape(t["shape"], f"{where}: shape"),
                parse_dtype(t["dtype"], f"{where}: dtype", allow_object=True), weak)

    def vmap_loop(self, op, spec, attrs: dict, n_inputs: int, where: str):
        """The loop record vmap made of `op` (runtime/ops/vmap_loop.py), from the saved
        spec; `attrs` are the per-example op's, checked as that op's."""
        where = f"{where} (vmap_loop)"
        if op.subgraph_attrs:
            raise LoadError(f"{where}: a control-flow op cannot be a per-example loop")
        spec = obj(spec, where, ("batched", "masked", "outputs"))
        masked = spec["masked"]
        batched = seq(spec["batched"], f"{where}: batched")
        if type(masked) is not bool or any(type(b) is not bool for b in batched) or \
                len(batched) != n_inputs - masked or not any(batched):
            raise LoadError(f"{where}: batched must hold one boolean per input (one true), "
                            "masked a boolean")
        check_attrs(op, attrs, len(batched), where)
        outputs = []
        for k, t in enumerate(seq(spec["outputs"], f"{where}: outputs")):
            t = obj(t, f"{where}: output {k}", ("dtype", "shape"))
            outputs.append(PerExample(check_shape(t["shape"], f"{where}: output {k}"),
                                      parse_dtype(t["dtype"], f"{where}: output {k}")))
        if op.num_outputs >= 0 and len(outputs) != op.num_outputs:
            raise LoadError(f"{where}: {op.name} has {op.num_outputs} outputs")
        held = Held(PerExample.node(op, attrs, outputs))
        return loop_op(op), {"held": held, "batched": tuple(batched), "masked": masked}

    def input(self, x, scope: dict, where: str):
        if type(x) is dict and "ref" in x:
            x = obj(x, where, ("ref",))
            if type(x["ref"]) is not str or x["ref"] not in scope:
                raise LoadError(f"{where}: refers to {str(x['ref'])[:80]!r}, which is not "
                                "defined before it in this graph")
            return scope[x["ref"]]
        return self.values.value(x, where)

    def node(self, graph: Graph, n, scope: dict, where: str, depth: int) -> None:
        self.nodes += 1
        if self.nodes > MAX_NODES:
            raise LoadError(f"{where}: more than {MAX_NODES} nodes")
        n = obj(n, where, ("op", "inputs", "attrs", "outputs"),
                ("subgraphs", "origin", "quiet", "vmap_loop"))
        op = lookup(n["op"], where)
        if "quiet" in n:  # floating-point errors silenced (vmap's discarded examples)
            if n["quiet"] is not True or "vmap_loop" in n:
                raise LoadError(f"{where}: 'quiet' must be true when present, and alone")
            op = quiet_op(op)
        where = f"{where} ({op.name})"
        inputs = [self.input(x, scope, f"{where}: input {k}")
                  for k, x in enumerate(seq(n["inputs"], f"{where}: inputs"))]
        raw_attrs = n["attrs"]
        if type(raw_attrs) is not dict:
            raise LoadError(f"{where}: attrs must be an object")
        attrs = {k: self.values.value(v, f"{where}: attribute {k[:40]!r}")
                 for k, v in raw_attrs.items()}
        if "vmap_loop" in n:
            op, attrs = self.vmap_loop(op, n["vmap_loop"], attrs, len(inputs), where)
        else:
            check_attrs(op, attrs, len(inputs), where)
        names = op.subgraph_attrs
        subs = obj(n.get("subgraphs", {}), f"{where}: subgraphs", names)
        for k in names:  # the scope itself, not a copy: copying per node was quadratic
            attrs[k] = self.graph(subs[k], f"{where}/{k}", graph, scope, depth + 1)
        declared = [self.aval(o, f"{where}: output {k}")
                    for k, o in enumerate(seq(n["outputs"], f"{where}: outputs"))]
        avals = [(shape, dtype) for _, shape, dtype, _ in declared]
        if op.check is not None:  # control flow: its own structure check

            def fail(what):
                raise LoadError(f"{where}: {what}")

            op.check(inputs, attrs, avals, fail)
        else:
            _check_rule(op, inputs, attrs, avals, where, self.rules)
        node = graph.add_node(op, inputs, attrs, avals, _origin(n.get("origin"), where))
        for o, (name, _, _, weak) in zip(node.outputs, declared):
            o.name, o.weak = name, weak
            scope[name] = o


def _user_names(graph: Graph, names, where: str) -> None:
    """The user's variable names of the values of `graph` (a root graph) and of its
    subgraphs, as saved: what its listing and picture show, source or no source."""
    if type(names) is not dict or len(names) > MAX_NODES:
        raise LoadError(f"{where}: expected an object of at most {MAX_NODES} names")
    for value, name in names.items():
        graph.labels[check_text(value, f"{where}: a value name", 200)] = \
            check_text(name, f"{where}: the name of {value}")
    graph.saved_names = True


def _origin(o, where: str) -> Origin | None:
    if o is None:
        return None
    o = obj(o, f"{where}: origin", ("file", "line", "function"))
    return Origin(check_text(o["file"], f"{where}: origin file"),
                  check_int(o["line"], f"{where}: origin line", 0, 10**9),
                  check_text(o["function"], f"{where}: origin function"))


def _same(avals, computed) -> bool:
    if len(avals) != len(computed):
        return False
    return all(tuple(s) == tuple(cs) and np.dtype(d) == np.dtype(cd)
               for (s, d), (cs, cd) in zip(avals, computed))


_ABSENT = object()  # a key the JSON object does not have


def _ufunc_key(op, inputs, attrs):
    """What a ufunc's shape/dtype rule depends on (operand avals, Python scalars by type and
    value, attributes), or None when something is not hashable: graphs repeat the same
    few patterns, and the rule is most of a node's loading time."""
    parts = [op]
    for x in inputs:
        t = type(x)
        if t is Tensor:
            parts.append((x.static_shape, x.dtype, x.weak))
        elif t is float or t is complex:  # weak (NEP 50): the type matters, not the value
            parts.append(t)
        elif t is int or t is bool:  # a Python int out of the loop's range is refused
            parts.append((t, x))
        elif t is np.ndarray:
            parts.append(("array", x.shape, x.dtype))
        elif isinstance(x, np.generic):  # tagged: a dtype compares equal to `float`
            parts.append(("scalar", x.dtype))
        else:
            return None
    if not attrs:
        return tuple(parts)
    try:
        key = (tuple(parts), tuple(sorted(attrs.items())))
        hash(key)
    except TypeError:
        return None
    return key


def _computed(op, inputs, attrs, cache: dict, where: str = "") -> list:
    """[(shape tuple, dtype)] of the outputs by the op's own rule (LoadError if it refuses)."""
    key = _ufunc_key(op, inputs, attrs) if op.abstract_eval is ufunc_rule else None
    computed = cache.get(key) if key is not None else None
    if computed is None:
        computed = _rule(op, inputs, attrs, where)
        if key is not None:
            cache[key] = computed
    return computed


def _check_rule(op, inputs, attrs, avals, where: str, cache: dict) -> None:
    computed = _computed(op, inputs, attrs, cache, where)
    if not _same(avals, computed):
        raise LoadError(f"{where}: the file declares outputs {_text(avals)} but the op "
                        f"computes {_text(computed)} (the description was altered)")


def _rule(op, inputs, attrs, where: str) -> list:
    try:
        computed = op.abstract_eval(op, inputs, attrs)
        return [(tuple(s), np.dtype(d)) for s, d in computed]
    except LoadError:
        raise
    except Exception as e:  # noqa: BLE001 - any failure of the op's rule: bad inputs/attrs
        raise LoadError(f"{where}: the op does not accept these inputs and attributes "
                        f"({type(e).__name__}: {str(e)[:200]})") from None


def _text(avals) -> str:
    return ", ".join(f"{np.dtype(d)}{list(s)}" for s, d in avals)
