"""Integer ranges of a scalar region's 0-d values, so the emitter leaves out the overflow
guards and index checks they prove needless.

`bound_integers(region)` walks the region's nodes in order (into `cond` branches and
`while_loop` bodies) and gives every 0-d integer or boolean value an interval `[lo, hi]`
that holds on every run: constants are points, static sizes are points, an element read
from an int8 array is in int8's range, `i + 1` of `i` in `[0, 57]` is in `[1, 58]`.
A branch or loop body learns from its predicate (`i < n` true: `i <= n.hi - 1`;
`and` of several: each). A loop's carried values get an invariant by iterating the body
from the initial values, widening a bound that keeps moving to its dtype's limit, then
narrowing once (kept only if the narrowed interval is still an invariant).

The emitter (source.py) asks the result, through `Bounds`, whether a node's integer
arithmetic stays inside its dtype (no overflow guard, no division-by-zero test) and
whether an index lies inside its dimension (no bounds check, no wraparound of negative
indices). Everything it cannot prove keeps its test: a guard stays whenever the
interval reaches the dtype's limit. Before and after, for `d[i - 1]` inside
`for i in range(1, 61)` rolled into a counted loop:

    before:                                         after:
    t_i_w = t_k + np.int64(1)                       t_i_w = t_k + np.int64(1)
    t_i = np.int64(t_i_w)                           t_i = np.int64(t_i_w)
    deferred = deferred | (t_k > 9223372036854775806)
    t_j = np.int64(t_i - np.int64(1))               t_j = np.int64(t_i - np.int64(1))
    deferred = deferred | (t_i < -9223372036854775807)
    if not (-61 <= np.int64(t_j) < 61):
        return (np.int64(0), True)
    t_v = t_d[(np.int64(t_j) + 61 if np.int64(t_j) < 0 else np.int64(t_j))]
                                                    t_v = t_d[np.int64(t_j)]

A value an unproven guard lets wrap (the guard only ends the loop after the iteration)
gets its dtype's whole range, so nothing computed from it is trusted either.
"""
from __future__ import annotations

import numpy as np

from runtime.core.graph import Graph, Node
from runtime.core.tensor import Tensor

Interval = tuple  # (lo, hi): Python ints, lo <= hi

_COMPARE = {"less", "less_equal", "greater", "greater_equal", "equal", "not_equal"}
_FLIP = {"less": "greater_equal", "less_equal": "greater", "greater": "less_equal",
         "greater_equal": "less", "equal": "not_equal", "not_equal": "equal"}
_MIRROR = {"less": "greater", "less_equal": "greater_equal", "greater": "less",
           "greater_equal": "less_equal", "equal": "equal", "not_equal": "not_equal"}
_ARITH = {"add", "subtract", "multiply", "negative", "positive", "absolute", "square",
          "floor_divide", "remainder", "maximum", "minimum"}
_SAME_VALUE = {"python_number"}   # ops whose 0-d result is their input's value
# What this pass knows of an op, looked up by its name (the backend's tables are keyed by
# op name, as the ONNX exporter's are: one lookup, no dispatch on which op a node is)
_KIND = {**{name: "same" for name in _SAME_VALUE}, "getitem": "element",
         "shape_dim": "size", "size_of": "size", "constant": "constant", "where": "where",
         "astype": "astype", "exact_int": "exact"}
_BOOL_OPS = _COMPARE | {"logical_and", "logical_or", "logical_not", "logical_xor"}
_WIDEN_AFTER = 2                  # loop passes before a moving bound jumps to its limit
_BUDGET = 20_000                  # node visits per region; beyond it, loops get no facts


def _limits(dtype: np.dtype) -> Interval | None:
    if dtype.kind == "b":
        return (0, 1)
    if dtype.kind in "iu":
        info = np.iinfo(dtype)
        return (int(info.min), int(info.max))
    return None


def _join(a: Interval | None, b: Interval | None) -> Interval | None:
    if a is None or b is None:
        return None
    return (min(a[0], b[0]), max(a[1], b[1]))


def _meet(a: Interval, b: Interval) -> Interval | None:
    lo, hi = max(a[0], b[0]), min(a[1], b[1])
    return (lo, hi) if lo <= hi else None


def _within(a: Interval, b: Interval | None) -> bool:
    return b is not None and b[0] <= a[0] and a[1] <= b[1]


class Bounds:
    """What `bound_integers` proved: read by the lowerings (element_ops.py, ops.py).
    The empty `Bounds()` proves nothing (every guard stays)."""

    def __init__(self) -> None:
        self.ranges: dict[int, Interval] = {}   # id(Tensor) -> interval of its values
        self.exact: dict[int, Interval] = {}    # id(Node) -> its unwrapped result's interval
        self.divisor_safe: set[int] = set()     # ids of division nodes: no zero, no MIN // -1

    def interval(self, x) -> Interval | None:
        """The values `x` (a Tensor or a constant) can take, None when unknown."""
        if isinstance(x, Tensor):
            got = self.ranges.get(id(x))
            if got is not None:
                return got
            return _limits(x.dtype) if x.ndim == 0 else None
        if isinstance(x, (bool, int, np.integer, np.bool_)) or isinstance(x, np.ndarray) \
                and x.ndim == 0 and x.dtype.kind in "iub":  # (a 0-d array: a loop's start)
            return (int(x), int(x))
        return None

    def within(self, x, lo: int, hi: int) -> bool:
        """Whether every value of `x` lies in `[lo, hi]`."""
        got = self.interval(x)
        return got is not None and lo <= got[0] and got[1] <= hi

    def fits(self, node: Node, dtype: np.dtype) -> bool:
        """Whether the node's integer arithmetic, computed exactly, stays inside `dtype`
        (no wrap, so no overflow guard) and divides by no zero (nor MIN by -1)."""
        got, limits = self.exact.get(id(node)), _limits(dtype)
        if got is None or limits is None or not _within(got, limits):
            return False
        name = _op_name(node)
        return name not in ("floor_divide", "remainder") or id(node) in self.divisor_safe


NO_BOUNDS = Bounds()


def _op_name(node: Node) -> str:
    return node.attrs.get("ufunc", "") if _KIND.get(node.op.name) == "exact" else \
        node.op.name


def bound_integers(nodes: list[Node], inputs: list) -> Bounds:
    """Intervals of the 0-d integer values of `nodes` (a region's, in program order) whose
    `inputs` may take any value of their dtype (see the module doc)."""
    walk = _Walk()
    for x in inputs:
        if isinstance(x, Tensor) and x.ndim == 0 and _limits(x.dtype) is not None:
            walk.bounds.ranges[id(x)] = _limits(x.dtype)
    walk.nodes(nodes)
    return walk.bounds


class _Walk:
    def __init__(self) -> None:
        self.bounds = Bounds()
        self.budget = _BUDGET

    def get(self, x) -> Interval | None:
        return self.bounds.interval(x)

    def set(self, t: Tensor, got: Interval | None) -> None:
        limits = _limits(t.dtype) if t.ndim == 0 else None
        if limits is None:
            self.bounds.ranges.pop(id(t), None)
            return
        self.bounds.ranges[id(t)] = limits if got is None else (_meet(got, limits) or limits)

    def nodes(self, nodes: list[Node]) -> None:
        for node in nodes:
            self.budget -= 1
            name = node.op.name
            if name == "cond" and node.op.subgraph_attrs:
                self.cond(node)
            elif name == "while_loop" and node.op.subgraph_attrs:
                self.loop(node)
            elif len(node.outputs) == 1:
                self.set(node.outputs[0], self.value(node))
            else:
                for o in node.outputs:
                    self.set(o, None)

    # -- one value ----------------------------------------------------------------
    def value(self, node: Node) -> Interval | None:
        name, out = _op_name(node), node.outputs[0]
        if out.ndim != 0 or _limits(out.dtype) is None:
            return None
        if name in _BOOL_OPS or out.dtype.kind == "b":
            return (0, 1)
        args = [self.get(x) for x in node.inputs]
        kind = _KIND.get(node.op.name)
        if kind == "same" or _reads_itself(node):
            return args[0] if args else None
        if kind == "element":  # an element of an integer array: its dtype's range
            return _limits(node.inputs[0].dtype) if isinstance(node.inputs[0], Tensor) \
                and node.inputs[0].dtype == out.dtype else None
        if kind == "size":
            return self.size(node)
        if kind == "constant":
            return self.get(node.attrs.get("value"))
        if kind == "where" and len(args) == 3:
            return _join(args[1], args[2])
        if kind == "astype":
            return args[0] if args and args[0] is not None and \
                _within(args[0], _limits(out.dtype)) else None
        if name not in _ARITH or None in args or not args:
            return None
        if kind != "exact" and not (
                isinstance(node.op.kernel, np.ufunc) and out.dtype.kind in "iu"):
            return None
        got = _arith(name, args)
        if got is None:
            return None
        self.bounds.exact[id(node)] = got
        if name in ("floor_divide", "remainder") and len(args) == 2:
            b, a = args[1], args[0]
            if not (b[0] <= 0 <= b[1]) and not (b[0] <= -1 <= b[1] and a[0] <= -(1 << 63)):
                self.bounds.divisor_safe.add(id(node))
        return got if self.bounds.fits(node, out.dtype) else None

    def size(self, node: Node) -> Interval:
        x = node.inputs[0]
        shape = tuple(x.static_shape) if isinstance(x, Tensor) else np.shape(x)
        if "axis" in node.attrs:  # x.shape[axis] (else x.size)
            d = shape[node.attrs["axis"]]
            return (int(d), int(d)) if d is not None else (0, (1 << 63) - 1)
        if None in shape:
            return (0, (1 << 63) - 1)
        return (int(np.prod(shape, dtype=object)),) * 2

    # -- control flow ---------------------------------------------------------------
    def bind(self, sub: Graph, given: list) -> None:
        for ph, got in zip(sub.inputs, given):
            self.set(ph, got)

    def cond(self, node: Node) -> None:
        pred, *rest = node.inputs
        outer = [self.get(x) for x in rest]
        results = []
        for branch, truth in (("then", True), ("else_", False)):
            sub = node.attrs[branch]
            learned = self.learn(pred, truth)
            self.bind(sub, [_refined(got, learned.get(id(x)) if isinstance(x, Tensor)
                                     else None) for x, got in zip(rest, outer)])
            self.nodes(sub.nodes)
            results.append([self.get(x) for x in sub.outputs])
        for o, a, b in zip(node.outputs, *results):
            self.set(o, _join(a, b))

    def loop(self, node: Node) -> None:
        g_cond, g_body = node.attrs["cond"], node.attrs["body"]
        n = len(node.outputs)
        ins = list(node.inputs)
        caps = [self.get(x) for x in ins[n:len(ins) - (1 if node.attrs.get("has_max") else 0)]]
        init = [self.get(x) for x in ins[:n]]
        state = list(init)
        if self.budget > 0:
            for step in range(2 * _WIDEN_AFTER + 2):
                after = self.iterate(g_cond, g_body, state, caps)
                grown = [_join(s, a) for s, a in zip(state, after)]
                if grown == state:
                    break
                if step >= _WIDEN_AFTER:  # a bound still moving: to its dtype's limit
                    grown = [_widen(s, g, o) for s, g, o in zip(state, grown, node.outputs)]
                state = grown
            else:
                state = [None] * n
            narrowed = [_join(i, a) for i, a in zip(init, self.iterate(g_cond, g_body,
                                                                       state, caps))]
            check = self.iterate(g_cond, g_body, narrowed, caps)
            if all(s is None or _join(i, a) is not None and _within(_join(i, a), s)
                   for i, a, s in zip(init, check, narrowed)):
                state = narrowed  # still an invariant: the tighter facts hold
        else:
            state = [None] * n
        self.iterate(g_cond, g_body, state, caps)  # the facts left are those of `state`
        for o, got in zip(node.outputs, state):
            self.set(o, got)

    def iterate(self, g_cond: Graph, g_body: Graph, state: list, caps: list) -> list:
        """The carried values after one more iteration from `state`."""
        self.bind(g_cond, state + caps)
        self.nodes(g_cond.nodes)
        learned = self.learn(g_cond.outputs[0], True)
        given = [_refined(got, learned.get(id(ph)))
                 for ph, got in zip(g_cond.inputs, state + caps)]
        self.bind(g_body, given)
        self.nodes(g_body.nodes)
        return [self.get(x) for x in g_body.outputs]

    def learn(self, pred, truth: bool) -> dict[int, Interval]:
        """Intervals that hold for values `pred` compares, when `pred` is `truth`."""
        facts: dict[int, Interval] = {}
        self._learn(pred, truth, facts, 8)
        return facts

    def _learn(self, pred, truth: bool, facts: dict, depth: int) -> None:
        node = getattr(pred, "node", None)
        if node is None or depth == 0 or len(node.outputs) != 1:
            return
        name = node.op.name
        if name in _SAME_VALUE or _reads_itself(node):
            self._learn(node.inputs[0], truth, facts, depth - 1)
        elif name == "logical_not":
            self._learn(node.inputs[0], not truth, facts, depth - 1)
        elif name == "logical_and" and truth or name == "logical_or" and not truth:
            for x in node.inputs:
                self._learn(x, truth, facts, depth - 1)
        elif name in _COMPARE and len(node.inputs) == 2 and _exact_compare(node):
            op = name if truth else _FLIP[name]
            a, b = node.inputs
            for x, y, o in ((a, b, op), (b, a, _MIRROR[op])):
                have, other = self.get(x), self.get(y)
                if isinstance(x, Tensor) and have is not None and other is not None:
                    got = _compare_bound(o, have, other)
                    if got is not None:
                        facts[id(x)] = _refined(facts.get(id(x), have), got)
                        self._alias(x, facts[id(x)], facts, depth - 1)

    def _alias(self, x: Tensor, got: Interval, facts: dict, depth: int) -> None:
        """`x` is another name of its input's value (`python_number`): it learns too."""
        node = x.node
        if node is not None and (_KIND.get(node.op.name) == "same" or _reads_itself(node)) and \
                depth > 0 and \
                isinstance(node.inputs[0], Tensor):
            y = node.inputs[0]
            facts[id(y)] = _refined(facts.get(id(y), self.get(y)), got)
            self._alias(y, got, facts, depth - 1)


def _reads_itself(node: Node) -> bool:
    """`v[()]` of a 0-d `v`: the same value."""
    return _KIND.get(node.op.name) == "element" and len(node.inputs) == 1 and \
        node.attrs.get("index") == () and isinstance(node.inputs[0], Tensor) and \
        node.inputs[0].ndim == 0


def _exact_compare(node: Node) -> bool:
    """A comparison of two 0-d integers or booleans NumPy makes without rounding."""
    for x in node.inputs:
        if isinstance(x, Tensor):
            if x.ndim != 0:
                return False
            d = x.dtype
        elif type(x) in (int, bool):
            d = np.dtype(np.int64)
        elif isinstance(x, np.generic) or isinstance(x, np.ndarray) and x.ndim == 0:
            d = x.dtype
        else:
            return False
        if d.kind not in "iub" or d == np.dtype(np.uint64):
            return False
    return True


def _compare_bound(op: str, have: Interval, other: Interval) -> Interval | None:
    """The interval `x` (in `have`) is in when `x op y` holds for some `y` in `other`."""
    lo, hi = have
    if op == "less":
        hi = min(hi, other[1] - 1)
    elif op == "less_equal":
        hi = min(hi, other[1])
    elif op == "greater":
        lo = max(lo, other[0] + 1)
    elif op == "greater_equal":
        lo = max(lo, other[0])
    elif op == "equal":
        lo, hi = max(lo, other[0]), min(hi, other[1])
    return (lo, hi) if lo <= hi else None


def _refined(got: Interval | None, learned: Interval | None) -> Interval | None:
    if got is None:
        return learned
    if learned is None:
        return got
    return _meet(got, learned) or got  # an empty meet: a path never taken (keep sound)


def _widen(before: Interval | None, grown: Interval | None, t: Tensor) -> Interval | None:
    limits = _limits(t.dtype) if t.ndim == 0 else None
    if before is None or grown is None or limits is None:
        return None
    return (limits[0] if grown[0] < before[0] else grown[0],
            limits[1] if grown[1] > before[1] else grown[1])


def _arith(name: str, args: list) -> Interval | None:
    """The exact (unwrapped) interval of an integer op's result."""
    a = args[0]
    b = args[1] if len(args) > 1 else a
    if name == "add":
        return (a[0] + b[0], a[1] + b[1])
    if name == "subtract":
        return (a[0] - b[1], a[1] - b[0])
    if name == "square":
        low = 0 if a[0] <= 0 <= a[1] else min(a[0] * a[0], a[1] * a[1])
        return (low, max(a[0] * a[0], a[1] * a[1]))
    if name == "multiply":
        products = [x * y for x in a for y in b]
        return (min(products), max(products))
    if name == "negative":
        return (-a[1], -a[0])
    if name == "positive":
        return a
    if name == "absolute":
        return (0 if a[0] <= 0 <= a[1] else min(abs(a[0]), abs(a[1])), max(-a[0], a[1]))
    if name in ("maximum", "minimum"):
        pick = max if name == "maximum" else min
        return (pick(a[0], b[0]), pick(a[1], b[1]))
    if name == "floor_divide":
        if b[0] <= 0 <= b[1]:
            return None
        quotients = [x // y for x in a for y in b]
        return (min(quotients), max(quotients))
    if name == "remainder":
        if b[0] <= 0 <= b[1]:
            return None
        if b[0] > 0:
            return (0, min(b[1] - 1, a[1])) if a[0] >= 0 else (0, b[1] - 1)
        return (b[0] + 1, 0)
    return None
