"""What a variable held where a graph `try`'s body raised, for its handler.

A variable the body assigns between two operations that may fail holds, in Python's
handler, the value it had when the failing one ran:

    try:
        a = np.linalg.inv(x)      # fails: the handler sees `a` from before the `try`
        b = a @ y
        a = np.linalg.inv(b)      # fails: the handler sees the first inverse
    except np.linalg.LinAlgError:
        use(a)

The executor runs the body's code in a real `try`, so before each such operation a
`try_mark` node stores the variable's value of that point in a per-thread slot, and the
handler reads the slot (`try_mark_read`): it gets the value of the point where the error
was raised. A Python number at one point and a NumPy value at another keeps its kind
(the read also gives the code and number of runtime/control_flow/path_kinds.py). A value
whose kind a path decides (a loop variable that starts as a Python number) stores its code
and number in a second slot beside it, so the handler gets the kind of the point that raised.

Points are the body's operations and those of its branches (a symbolic `if`: the mark
sits in the branch, with the branch's value); a loop of the body is one where it leaves
the variable alone. The values must have one dtype and rank; otherwise the handler's
read is refused as before (`Unknown`).
"""
from __future__ import annotations

import itertools
import threading

import numpy as np

from runtime.control_flow import path_kinds
from runtime.control_flow.common import is_python_scalar
from runtime.control_flow.cond import COND
from runtime.control_flow.try_state import within
from runtime.core import tracing
from runtime.core.graph import Graph
from runtime.core.registry import OpDef, add_node
from runtime.core.tensor import Tensor
from runtime.ops.constant import constant
from runtime.ops.path_result import AS_COMPUTED, NUMPY_SCALAR, PYTHON_INT, PYTHON_NUMBER


class _Slots(threading.local):
    def __init__(self):
        self.values: dict = {}


_SLOTS = _Slots()
_counter = itertools.count()


def _mark_kernel(*values, var):
    _SLOTS.values[var] = values[0] if len(values) == 1 else values


def _read_kernel(*, var, dtype, shape, kinded, number_dtype, kind_var=None):
    value = _SLOTS.values[var]
    dt = np.dtype(dtype)
    if not kinded:
        return (value if isinstance(value, (np.ndarray, np.generic)) else dt.type(value),)
    nd = np.dtype(number_dtype)
    if kind_var is not None:  # the kind each point stored beside its value
        code, number = _SLOTS.values[kind_var]
        code = int(code)
        if code == PYTHON_NUMBER and nd.kind == "f" and np.asarray(number).dtype.kind in "biu":
            code = PYTHON_INT  # (a Python int held as a float64 number)
        value = value if isinstance(value, (np.ndarray, np.generic)) else dt.type(value)
        return value, np.int8(code), nd.type(number)
    if type(value) in (int, float):
        code = PYTHON_INT if type(value) is int and nd.kind == "f" else PYTHON_NUMBER
        return dt.type(value), np.int8(code), nd.type(value)
    return value, np.int8(AS_COMPUTED), nd.type(0)


def _read_rule(op, inputs, attrs):
    shape = tuple(attrs["shape"])
    out = [(shape, np.dtype(attrs["dtype"]))]
    if attrs["kinded"]:
        out += [((), np.dtype(np.int8)), ((), np.dtype(attrs["number_dtype"]))]
    return out


MARK = OpDef("try_mark", _mark_kernel, lambda op, inputs, attrs: [], num_outputs=0,
             stateful=True, effect=True, slot_use="mark")
READ = OpDef("try_mark_read", _read_kernel, _read_rule, num_outputs=-1, stateful=True,
            slot_use="read")


class Marked:
    """A variable's value in a handler: the slot its body's marks fill."""

    __slots__ = ("var", "shape", "dtype", "weak", "number_dtype", "kind_var")

    def __init__(self, var, shape, dtype, weak, number_dtype, kind_var=None):
        self.var, self.shape, self.dtype = var, shape, dtype
        self.weak, self.number_dtype, self.kind_var = weak, number_dtype, kind_var

    def read(self) -> Tensor:
        """The slot's value, read in the graph being traced (a handler)."""
        kinded = self.number_dtype is not None
        graph = tracing.current_graph()
        avals = [(self.shape, self.dtype)]
        if kinded:
            avals += [((), np.dtype(np.int8)), ((), self.number_dtype)]
        attrs = {"var": self.var, "dtype": self.dtype.str, "shape": self.shape,
                 "kinded": kinded, "number_dtype": None if not kinded else self.number_dtype.str}
        if self.kind_var is not None:
            attrs["kind_var"] = self.kind_var
        outs = add_node(graph, READ, [], attrs, avals)
        value = outs[0]
        value.weak = self.weak
        if kinded:
            path_kinds.kinds_of(graph)[value] = (outs[1], outs[2])
        return value


def mark(g_body: Graph, points: list) -> Marked | None:
    """Store each point's value (`points`: (node, value before it in the body's values,
    the same in the values of the node's own graph: a branch of the body's)) just before
    its node; the Marked a handler reads, or None where the values do not allow it."""
    points = _arrays_as_constants(g_body, points)
    where = _graphs_of(g_body)
    typed, numbers, placed = [], [], []
    for node, v, inner in points:
        if id(node) not in where:
            return None  # inside a loop of the body
        g, position = where[id(node)]
        value = v if g is g_body else inner
        if isinstance(value, Tensor):
            value = within_graph(g, value) if g is not g_body else \
                value if within(g_body, value.graph) else None
            if value is None:
                return None
            if value.graph is g and value.node is not None and \
                    position.get(id(value.node), len(position)) >= position[id(node)]:
                return None
            typed.append(value)
        elif isinstance(value, np.generic) or (isinstance(value, np.ndarray) and value.ndim == 0):
            typed.append(value)
        elif is_python_scalar(value) and type(value) in (int, float):
            numbers.append(value)
        else:
            return None
        placed.append((g, node, value))
    if not typed and not numbers:
        return None
    for i, (node, v, _) in enumerate(points):
        # an error inside a loop or branch of the body: the variable holds what the
        # construct made of it so far, known only if the construct leaves it alone
        if node.subgraphs() and (i + 1 == len(points) or points[i + 1][1] is not v):
            return None
    dtypes = {np.dtype(x.dtype) for x in typed}
    ranks = {np.ndim(x) if not isinstance(x, Tensor) else x.ndim for x in typed}
    kinds = {type(n) for n in numbers}
    number_dtype = np.dtype(np.float64 if float in kinds else np.int64) if numbers else None
    weak_typed = [x for x in typed if isinstance(x, Tensor) and x.weak]
    if len(dtypes) > 1 or len(ranks) > 1:
        return None
    dtype = dtypes.pop() if dtypes else number_dtype
    rank = ranks.pop() if ranks else 0
    if numbers and (rank != 0 or dtype.kind not in "iuf" or
                    float in kinds and dtype.kind != "f"):
        return None
    shapes = [tuple(x.static_shape) if isinstance(x, Tensor) else np.shape(x) for x in typed]
    shape = tuple(d if all(s[i] == d for s in shapes) else None
                  for i, d in enumerate(shapes[0])) if shapes else ()
    weak = len(weak_typed) == len(typed)  # every value stands for a Python number
    var = f"mark_{next(_counter)}"
    marks = [(g, node, var, [value]) for g, node, value in placed]
    kind_var = None
    # (the kinds values carry, not derived anew: a derived code is computed after the
    # point, where no mark can read it, and would add values to a finished branch)
    sides = [path_kinds.side_of(v, path_kinds._DERIVE_DEPTH) if isinstance(v, Tensor)
             else None for _, _, v in placed]
    if any(s is not None and isinstance(s[0], Tensor) for s in sides) or \
            weak_typed and not weak:
        # a value whose kind a path decides (a loop variable that starts as a Python
        # number), or values standing for numbers beside others: each point stores its
        # kind too, where its code and number can be read
        kind_marks = _kind_marks(g_body, placed, sides, f"{var}:kind")
        if kind_marks is None:
            return None
        number_dtype, kind_marks = kind_marks
        marks += kind_marks
        kind_var, weak, kinded = f"{var}:kind", False, True
    else:
        kinded = bool(numbers) and not weak
        if weak and typed and numbers and dtype != number_dtype:
            return None
    _insert(marks)
    return Marked(var, shape, dtype, weak, number_dtype if kinded else None, kind_var)


def _insert(marks: list) -> None:
    """Add each (graph, node, var, inputs) MARK just before its node (in list order)."""
    by_graph: dict = {}
    for g, node, var, inputs in marks:
        by_graph.setdefault(id(g), (g, {}))[1].setdefault(id(node), []).append((var, inputs))
    for g, by_point in by_graph.values():
        out = []
        for node in list(g.nodes):
            for var, inputs in by_point.pop(id(node), ()):
                add_node(g, MARK, inputs, {"var": var}, [])
                out.append(g.nodes.pop())
            out.append(node)
        g.nodes[:] = out


def _kind_marks(g_body: Graph, placed: list, sides: list, kind_var: str):
    """(number dtype, marks storing each point's (code, number) in `kind_var`), or None
    where a point's kind cannot be read before it. A code carried from outside a branch
    of the body is stored before the branch, when every point in it carries the same."""
    pairs, dtypes = [], set()
    for (_, _, value), side in zip(placed, sides):
        if side is None and type(value) in (int, float):
            pair = (PYTHON_NUMBER, value)
            dtypes.add(np.dtype(np.int64 if type(value) is int else np.float64))
        elif side is None or not isinstance(side[0], Tensor) and \
                side[0] in (AS_COMPUTED, NUMPY_SCALAR):
            pair = (AS_COMPUTED, 0)
        else:  # a code a path carries, or a value standing for a Python number
            pair = side if isinstance(side[0], Tensor) else (side[0], value)
            dtypes.add(np.dtype(pair[1].dtype) if isinstance(pair[1], Tensor) else
                       np.dtype(np.int64 if type(pair[1]) is int else np.float64))
        pairs.append(pair)
    if len(dtypes) != 1:
        return None  # (numbers of different dtypes: not read exactly)
    tops = _tops(g_body)
    marks, hoisted = [], {}
    for (g, node, _), pair in zip(placed, pairs):
        inner = [_before(g, x, node) if isinstance(x, Tensor) else x for x in pair]
        if all(x is not None for x in inner):
            marks.append((g, node, kind_var, inner))
            continue
        top = tops[id(node)]
        outer = [_before(g_body, x, top, capture=True) if isinstance(x, Tensor) else x
                 for x in pair]
        if any(x is None for x in outer):
            return None
        hoisted.setdefault(id(top), (top, outer, set()))[2].add(tuple(map(id, pair)))
    for (_, node, _), pair in zip(placed, pairs):
        top = hoisted.get(id(tops[id(node)]))
        if top is not None and {tuple(map(id, pair))} != top[2]:
            return None  # (another kind stored inside the same branch)
    marks = [m for m in marks if id(tops[id(m[1])]) not in hoisted]
    marks += [(g_body, top, kind_var, outer) for top, outer, _ in hoisted.values()]
    return dtypes.pop(), marks


def _tops(g_body: Graph) -> dict:
    """id(node) -> the node of `g_body` itself it is in (itself, or the `cond` around it)."""
    out: dict = {}
    for top in g_body.nodes:
        stack = [top]
        while stack:
            node = stack.pop()
            out[id(node)] = top
            if node.op is COND:
                stack.extend(n for sub in node.subgraphs() for n in sub.nodes)
    return out


def _before(g: Graph, t: Tensor, node, capture: bool = False):
    """`t` as a value of `g` computed before `node` (captured from outside when `capture`
    and `g`'s node is not made yet), or None."""
    inner = within_graph(g, t)
    if inner is None and capture and within(g, t.graph):
        inner = g.capture(t)
    if inner is None or inner.graph is not g or inner.node is None:
        return inner
    position = {id(n): i for i, n in enumerate(g.nodes)}
    return inner if position.get(id(inner.node), len(position)) < position[id(node)] else None


def _graphs_of(g_body: Graph) -> dict:
    """id(node) -> (its graph, {id(node): position} of that graph), for the nodes of
    `g_body` and of its branches (a `cond`'s subgraphs, at any depth)."""
    out: dict = {}
    stack = [g_body]
    while stack:
        g = stack.pop()
        position = {id(n): i for i, n in enumerate(g.nodes)}
        for node in g.nodes:
            out[id(node)] = (g, position)
            if node.op is COND:
                stack.extend(node.subgraphs())
    return out


def within_graph(g: Graph, t: Tensor) -> Tensor | None:
    """`t` as graph `g` already sees it (itself, or the capture `g` made of it), without
    capturing it anew (the node owning `g` has its inputs already); None if not seen."""
    if t.graph is g:
        return t
    if g.parent is None:
        return None
    outer = within_graph(g.parent, t)
    return None if outer is None else g.captures.get(outer)


def _arrays_as_constants(g_body: Graph, points: list) -> list:
    """NumPy arrays among the values (a Python object's attribute the body replaces) as
    constants made first in the body, so that a mark can store them."""
    made: dict = {}
    for _, v, _ in points:
        if type(v) is np.ndarray and v.ndim and v.dtype.kind in "biufc" and id(v) not in made:
            with tracing.graph_context(g_body):
                made[id(v)] = constant(v)
    if not made:
        return points
    new = g_body.nodes[-len(made):]
    g_body.nodes[:] = new + g_body.nodes[:-len(made)]
    # (a value seen in a branch of the body is the same array: a branch does not see
    # the constant made here, so that mark is refused, by `within_graph`)
    return [(node, made.get(id(v), v), made.get(id(inner), inner)) for node, v, inner in points]
