"""Rebuilding graphs from their saved description, checking everything on the way.

Values are referred to by number and resolve only to values defined earlier in the same
graph (a subgraph sees its own inputs), so a reference to an unknown or later value —
a cycle — is an error. Each node's op comes from the fixed op table, its attributes
are checked against the op's schema, and its declared output shapes and dtypes must be
what the op's own shape/dtype rule computes from its inputs (a file cannot lie about
shapes: the code generator trusts them). Control-flow nodes must agree with their
subgraphs. The result passes the graph verifier.

A graph `try` names per-thread slots (its handlers' caught exceptions, the values its
body marks for them): a re-raise must sit in a handler of the slot it names and a mark's
read must follow that mark, and each load gives the names its own suffix, so that no
two functions of a process share a slot.
"""
from __future__ import annotations

import itertools

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
from runtime.saved.optable import check_attrs, lookup, op_table, subgraph_names
from runtime.core.tensor import Tensor


_loads = itertools.count()


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
    """Builds the graphs of one file (format version 4), checking each node as it goes.

    A graph's values are numbered in definition order (its inputs, then each node's
    outputs); a node input is the number of an earlier value, or `[value]` (an
    immediate in the encoding of format.py). `origins` is the file's origin table."""

    def __init__(self, values: Decoder, origins: list):
        self.values = values
        self.origins = origins
        self.nodes = 0
        self.names: set[str] = set()
        self.rules: dict = {}  # ufunc rule results by what they depend on
        # what a graph repeats, checked once: dtype texts, ops' empty attributes
        self.dtypes: dict[str, np.dtype] = {}
        self.bare_ops: set = set()
        table = op_table()
        # ops the quick path decodes: no subgraphs, no structure check of their own
        self.plain_ops = {name: op for name, op in table.items()
                          if not op.subgraph_attrs and op.check is None
                          and not op.slot_use}
        self.caught: list[str] = []  # the slots of the handlers being decoded
        self.marked: set[str] = set()
        self.tag = f"@{next(_loads)}"

    def plain_node(self, graph: Graph, n, values: list) -> bool:
        """Decode `n` if it is a plain node (no subgraphs or extras) that passes every
        check of `node`; False, with nothing changed, for anything else (which `node`
        then decodes or refuses with the place named). The same checks, without building
        a message per value, and each repeated fact (dtype text, op with no attributes,
        a ufunc's rule for the same operands) checked once."""
        if type(n) is not list or len(n) != 5:
            return False
        name, raw_inputs, attrs, raw_outputs, origin = n
        op = self.plain_ops.get(name) if type(name) is str else None
        if op is None or type(raw_inputs) is not list or type(attrs) is not dict \
                or type(raw_outputs) is not list:
            return False
        try:
            inputs = []
            # what the op's shape rule depends on, gathered on the way (see `_ufunc_key`)
            parts = [op] if op.abstract_eval is ufunc_rule and not attrs else None
            defined = len(values)
            for x in raw_inputs:
                t = type(x)
                if t is int:
                    if not 0 <= x < defined:
                        return False
                    x = values[x]
                    if parts is not None:
                        parts.append((x.static_shape, x.dtype, x.weak))
                elif t is list and len(x) == 1:
                    x = x[0]
                    t = type(x)
                    if t is float:
                        if parts is not None:
                            parts.append(float)
                    elif t is int or t is bool:
                        if parts is not None:
                            parts.append((t, x))
                    else:
                        x = self.values.value(x, "")
                        parts = None
                else:
                    return False
                inputs.append(x)
            if attrs:
                attrs = {k: self.values.value(v, "") for k, v in attrs.items()}
                check_attrs(op, attrs, len(inputs), "")
            else:
                attrs = {}
                if (op, len(inputs)) not in self.bare_ops:
                    check_attrs(op, attrs, len(inputs), "")
                    self.bare_ops.add((op, len(inputs)))
            declared, named = [], []
            names, dtypes = self.names, self.dtypes
            for o in raw_outputs:
                if type(o) is not list:
                    return False
                if len(o) == 3:
                    name, text, shape = o
                    weak = False
                elif len(o) == 4:
                    name, text, shape, weak = o
                    if weak is not True:
                        return False
                else:
                    return False
                if type(name) is not str or len(name) > 200 or name in names \
                        or not name.isprintable() or type(shape) is not list \
                        or len(shape) > MAX_RANK:
                    return False
                for d in shape:  # the values: equal to the computed shape's (below)
                    if d is not None and type(d) is not int:
                        return False
                dtype = dtypes.get(text) if type(text) is str else None
                if dtype is None:
                    dtype = dtypes[text] = parse_dtype(text, "", allow_object=True)
                declared.append((tuple(shape), dtype))
                named.append((name, weak))
            if len(named) > 1 and len({name for name, _ in named}) != len(named):
                return False
            if parts is not None:
                key = tuple(parts)
                computed = self.rules.get(key)
                if computed is None:
                    computed = self.rules[key] = _rule(op, inputs, attrs, "")
            elif op.abstract_eval is ufunc_rule:
                computed = _computed(op, inputs, attrs, self.rules)
            else:
                computed = _rule(op, inputs, attrs, "")
            if computed != declared:
                return False
            if origin is not None:
                if type(origin) is not int or not 0 <= origin < len(self.origins):
                    return False
                origin = self.origins[origin]
        except LoadError:
            return False
        if self.nodes >= MAX_NODES:
            return False
        self.nodes += 1
        node = Node(op, inputs, attrs, origin)
        outputs = node.outputs
        for i, (shape, dtype) in enumerate(declared):
            name, weak = named[i]
            t = Tensor(graph, node, i, shape, dtype, name, weak)
            outputs.append(t)
            names.add(name)
            values.append(t)
        graph._counter[0] += len(outputs)  # as `Graph.add_node` counts the names it gives
        graph.nodes.append(node)
        return True

    def graph(self, d, where: str, parent: Graph | None = None, outer: list | None = None,
              depth: int = 0) -> Graph:
        if depth > MAX_GRAPH_DEPTH:
            raise LoadError(f"{where}: subgraphs nested more than {MAX_GRAPH_DEPTH} deep")
        d = obj(d, where, ("name", "inputs", "nodes", "outputs"),
                ("captures",) if parent is not None else ("names",))
        graph = Graph(check_text(d["name"], f"{where}: name"), parent=parent)
        values: list[Tensor] = []  # by value number
        for k, t in enumerate(seq(d["inputs"], f"{where}: inputs")):
            name, shape, dtype, weak = self.aval(t, f"{where}: input {k}")
            values.append(graph.add_input(shape, dtype, name, weak))
        for k, pair in enumerate(seq(d.get("captures", []), f"{where}: captures")):
            if type(pair) is not list or len(pair) != 2 or type(pair[0]) is not int \
                    or not 0 <= pair[0] < len(outer):
                raise LoadError(f"{where}: capture {k} is malformed")
            i = check_int(pair[1], f"{where}: capture {k}", 0, len(graph.inputs) - 1)
            graph.captures[outer[pair[0]]] = graph.inputs[i]
        plain = self.plain_node
        for k, n in enumerate(seq(d["nodes"], f"{where}: nodes")):
            if not plain(graph, n, values):
                self.node(graph, n, values, f"{where}, node {k}", depth)
        graph.outputs = [self.input(x, values, f"{where}: output {k}")
                         for k, x in enumerate(seq(d["outputs"], f"{where}: outputs"))]
        if "names" in d:
            _user_names(graph, d["names"], f"{where}: names")
        return graph

    def slots(self, use: str, attrs: dict, where: str) -> None:
        """Check and rename the slots a node of a graph `try` names (see the docstring);
        `use`: the op's `slot_use`."""
        keys = [k for k in attrs if k in ("var", "kind_var") or k.startswith("var_")]
        for k in keys:
            attrs[k] = attrs[k].split("@")[0] + self.tag
        if use == "reraise" and attrs["var"] not in self.caught:
            raise LoadError(f"{where}: re-raises an exception no enclosing handler caught")
        if use == "mark":
            self.marked.add(attrs["var"])
        if use == "read" and not all(attrs[k] in self.marked for k in keys):
            raise LoadError(f"{where}: reads a value no earlier mark stores")

    def aval(self, t, where: str):
        """(name, shape, dtype, weak) of a value `[name, dtype, shape]` (`true` after it
        when the value is weak)."""
        if type(t) is not list or len(t) not in (3, 4) or (len(t) == 4 and t[3] is not True):
            raise LoadError(f"{where}: a value is [name, dtype, shape], with true after it "
                            "when it is weak")
        name = check_text(t[0], f"{where}: name", 200)
        if name in self.names:
            raise LoadError(f"{where}: the value name {name!r} is defined twice")
        self.names.add(name)
        return (name, check_shape(t[2], f"{where}: shape"),
                parse_dtype(t[1], f"{where}: dtype", allow_object=True), len(t) == 4)

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

    def input(self, x, values: list, where: str):
        if type(x) is int:
            if not 0 <= x < len(values):
                raise LoadError(f"{where}: refers to value {x}, which is not defined before "
                                "it in this graph")
            return values[x]
        if type(x) is not list or len(x) != 1:
            raise LoadError(f"{where}: an input is a value number or [an encoded value]")
        return self.values.value(x[0], where)

    def node(self, graph: Graph, n, values: list, where: str, depth: int) -> None:
        self.nodes += 1
        if self.nodes > MAX_NODES:
            raise LoadError(f"{where}: more than {MAX_NODES} nodes")
        if type(n) is not list or len(n) not in (5, 6):
            raise LoadError(f"{where}: a node is [op, inputs, attrs, outputs, origin], with "
                            "an object of extras after it when it has any")
        extras = obj(n[5], f"{where}: extras", (), ("subgraphs", "quiet", "vmap_loop")) \
            if len(n) == 6 else {}
        if len(n) == 6 and not extras:
            raise LoadError(f"{where}: empty extras are left out")
        op = lookup(n[0], where)
        if "quiet" in extras:  # floating-point errors silenced (vmap's discarded examples)
            if extras["quiet"] is not True or "vmap_loop" in extras:
                raise LoadError(f"{where}: 'quiet' must be true when present, and alone")
            op = quiet_op(op)
        where = f"{where} ({op.name})"
        inputs = [self.input(x, values, f"{where}: input {k}")
                  for k, x in enumerate(seq(n[1], f"{where}: inputs"))]
        raw_attrs = n[2]
        if type(raw_attrs) is not dict:
            raise LoadError(f"{where}: attrs must be an object")
        attrs = {k: self.values.value(v, f"{where}: attribute {k[:40]!r}")
                 for k, v in raw_attrs.items()}
        if "vmap_loop" in extras:
            op, attrs = self.vmap_loop(op, extras["vmap_loop"], attrs, len(inputs), where)
        else:
            check_attrs(op, attrs, len(inputs), where)
        if op.slot_use:
            self.slots(op.slot_use, attrs, where)
        names = subgraph_names(op, attrs)
        if ("subgraphs" in extras) != bool(names):
            raise LoadError(f"{where}: " + (f"needs subgraphs {', '.join(names)}" if names
                                            else "has no subgraphs"))
        subs = obj(extras.get("subgraphs", {}), f"{where}: subgraphs", names)
        for k in names:  # the values list itself, not a copy: copying per node is quadratic
            handler = op.slot_use == "catch" and k.startswith("except_")
            if handler:
                self.caught.append(attrs["var_" + k[len("except_"):]])
            attrs[k] = self.graph(subs[k], f"{where}/{k}", graph, values, depth + 1)
            if handler:
                self.caught.pop()
        declared = [self.aval(o, f"{where}: output {k}")
                    for k, o in enumerate(seq(n[3], f"{where}: outputs"))]
        avals = [(shape, dtype) for _, shape, dtype, _ in declared]
        if op.check is not None:  # control flow: its own structure check

            def fail(what):
                raise LoadError(f"{where}: {what}")

            op.check(inputs, attrs, avals, fail)
        else:
            _check_rule(op, inputs, attrs, avals, where, self.rules)
        origin = n[4]
        if origin is not None and (type(origin) is not int
                                   or not 0 <= origin < len(self.origins)):
            raise LoadError(f"{where}: the origin is not null or an index into origins")
        node = graph.add_node(op, inputs, attrs, avals,
                              None if origin is None else self.origins[origin])
        for o, (name, _, _, weak) in zip(node.outputs, declared):
            o.name, o.weak = name, weak
            values.append(o)


def _user_names(graph: Graph, names, where: str) -> None:
    """The user's variable names of the values of `graph` (a root graph) and of its
    subgraphs, as saved: what its listing and picture show, source or no source."""
    if type(names) is not dict or len(names) > MAX_NODES:
        raise LoadError(f"{where}: expected an object of at most {MAX_NODES} names")
    for value, name in names.items():
        graph.labels[check_text(value, f"{where}: a value name", 200)] = \
            check_text(name, f"{where}: the name of {value}")
    graph.saved_names = True


def origin_table(table) -> list[Origin]:
    """The file's `origins`: [file, line, function] each, checked once for every node that
    names it by index."""
    out = []
    for k, o in enumerate(seq(table, "origins")):
        where = f"origin {k}"
        if type(o) is not list or len(o) != 3:
            raise LoadError(f"{where}: expected [file, line, function]")
        out.append(Origin(check_text(o[0], f"{where}: file"),
                          check_int(o[1], f"{where}: line", 0, 10**9),
                          check_text(o[2], f"{where}: function")))
    return out


def _same(avals, computed) -> bool:
    if len(avals) != len(computed):
        return False
    return all(tuple(s) == tuple(cs) and np.dtype(d) == np.dtype(cd)
               for (s, d), (cs, cd) in zip(avals, computed))


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
