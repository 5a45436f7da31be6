"""Which kind of value each path of a symbolic `if` gives: a Python number, a NumPy scalar
or an array, carried beside the output so the function returns what Python would.

A `cond` output has one dtype, but the value Python holds after the `if` may be a Python
number on one path and a NumPy value on the other:

    if x.sum() > 0:
        r = 1                  ->  cond outputs (r, code, number); code is 1 on this path
    else:
        r = x.sum()            ->  code 0 here (as computed)
    return r                   ->  path_result(code, number, r): 1 (int) or np.float32(...)

`add_kind_outputs` adds the two outputs for every 0-d output whose paths differ in kind
(a branch's own `if` passes its kinds on); `LoopKinds` carries them through a symbolic
loop whose variable starts as one kind and becomes another; `with_kind` applies them where
the traced function returns a value. A value computed further from such an output has the shared
dtype on every path (the number was cast exactly, or the `cond` refused it).
"""
from __future__ import annotations

import numpy as np

from runtime.control_flow.common import as_value
from runtime.core import tracing
from runtime.core.registry import bind
from runtime.core.tensor import Tensor
from runtime.core.tensor_map import TensorMap
from runtime.ops.quiet import quiet_op
from runtime.ops.ufuncs import made_by_operator, ufunc_op
from runtime.ops.path_result import (
    AS_COMPUTED, NUMPY_SCALAR, PYTHON_INT, PYTHON_NUMBER, path_result,
)

_NUMBER_DTYPES = {bool: np.dtype(np.bool_), int: np.dtype(np.int64), float: np.dtype(np.float64),
                  complex: np.dtype(np.complex128)}
_EXACT_IN_FLOAT64 = 2 ** 53
_DERIVE_DEPTH = 32
# the placeholder of a variable first assigned in a loop: read only once an iteration gave
# it a value, so it is of the kind the other paths give (never carried itself)
YIELDS = -1  # arithmetic steps from a value carrying a kind that still carry it


def kinds_of(graph) -> TensorMap:
    """The graph's table: cond output -> (code, number) values of the same graph."""
    table = getattr(graph, "path_kinds", None)
    if table is None:
        table = graph.path_kinds = TensorMap()
    return table


def side_of(x, depth: int = 0):
    """(code, number) that a path's leaf `x` gives."""
    if type(x) in _NUMBER_DTYPES:
        return PYTHON_NUMBER, x
    if isinstance(x, np.generic):
        return NUMPY_SCALAR, None
    if isinstance(x, Tensor):
        carried = getattr(x.graph, "path_kinds", None)
        carried = carried.get(x) if carried is not None else None
        if carried is not None:
            return carried
        outer = _captured(x)
        if outer is not None:  # an enclosing graph's value, read inside a branch or body
            return side_of(outer, depth)
        if depth < _DERIVE_DEPTH and x.ndim == 0 and _kinds_in_scope(x.graph):
            derived = _derived(x, depth + 1)
            if derived is not None:
                return derived
        if x.weak and x.ndim == 0 and x.dtype.kind in "biufc":
            return PYTHON_NUMBER, x  # stands for a Python number (a loop counter, len())
    return AS_COMPUTED, None


def _kinds_in_scope(graph) -> bool:
    """Whether any value of `graph` or the graphs around it carries a path kind (else no
    value computed here can: the common case, answered without walking the values)."""
    while graph is not None:
        if getattr(graph, "path_kinds", None):
            return True
        graph = graph.parent
    return False


def _derived(x, depth: int):
    """The kind of an arithmetic result whose operands carry kinds, as Python computes it:
    a Python number when every operand is one on the path taken (`r + 1` of an `r` that
    is `0` on one path), else the NumPy value as computed. None: nothing to carry."""
    node = x.node
    if node is None or len(node.outputs) != 1:
        return None
    if node.op.passes_kind:
        side = side_of(node.inputs[0], depth)
        return side if isinstance(side[0], Tensor) else None
    ufunc = node.op.kernel
    if not isinstance(ufunc, np.ufunc) or ufunc.nout != 1 or node.attrs or \
            not made_by_operator(x):
        return None  # (NumPy's functions give NumPy values, also of Python numbers)
    sides = [side_of(v, depth) for v in node.inputs]
    if not any(isinstance(c, Tensor) for c, _ in sides) or \
            any(type(c) is int and c not in (PYTHON_NUMBER, PYTHON_INT) for c, _ in sides):
        return None  # kinds known without running (a NumPy operand: NumPy's value)
    int_result = _gives_int(ufunc)
    if int_result is None:
        return None
    with tracing.graph_context(x.graph):
        # (every path computes the number; only the Python path reads it: no warnings)
        number = bind(quiet_op(ufunc_op(ufunc)), *[n for _, n in sides])
        every_python, every_int = True, True
        for code, n in sides:
            kind = _dtype_of(n).kind
            if isinstance(code, Tensor):
                python = np.logical_or(np.equal(code, PYTHON_NUMBER), np.equal(code, PYTHON_INT))
                integer = np.equal(code, PYTHON_INT) if kind == "f" else \
                    np.equal(code, PYTHON_NUMBER) if kind in "biu" else False
                every_python = np.logical_and(every_python, python)
            else:
                integer = kind in "biu"
            every_int = np.logical_and(every_int, integer)
        python_code = PYTHON_NUMBER
        if int_result and number.dtype.kind == "f":  # Python ints held as float64 numbers
            python_code = np.where(every_int, np.int8(PYTHON_INT), np.int8(PYTHON_NUMBER))
        code = np.where(every_python, python_code, np.int8(AS_COMPUTED)).astype(np.int8)
    kinds_of(x.graph)[x] = code, number
    return code, number


def _gives_int(ufunc):
    """Whether `ufunc` of Python ints is an int (True), a float or bool (False); None for
    one whose NumPy loop differs from Python on ints (`2 ** -1`) or that has no int loop."""
    if ufunc is np.power:
        return None
    try:
        with np.errstate(all="ignore"):
            return np.asarray(ufunc(*[np.int64(1)] * ufunc.nin)).dtype.kind in "iu"
    except TypeError:
        return None


def _captured(x):
    """The enclosing graph's value that placeholder `x` reads, or None."""
    if x.node is not None:
        return None
    captures = x.graph.captures
    for outer in captures:
        if captures[outer] is x:
            return outer
    return None


def _dtype_of(number) -> np.dtype:
    return number.dtype if isinstance(number, Tensor) else _NUMBER_DTYPES[type(number)]


def _number_plan(sides):
    """The number output's dtype and each side's (code, number), or None to carry nothing."""
    dtypes = {_dtype_of(n) for _, n in sides if n is not None}
    if not dtypes:  # (no path gives a Python number: float64, which others meet best)
        return np.dtype(np.float64), [(c, 0.0) for c, _ in sides]
    if len(dtypes) == 1:
        dtype = dtypes.pop()
        return dtype, [(c, n if n is not None else dtype.type(0)) for c, n in sides]
    if dtypes != {np.dtype(np.int64), np.dtype(np.float64)}:
        return None
    plan = []  # a Python int beside a Python float: held as float64 where that is exact
    for code, n in sides:
        if n is not None and _dtype_of(n) == np.int64:
            if isinstance(n, Tensor):  # (a counter, an int a path carries: below 2**53)
                code = PYTHON_INT if type(code) is int else _as_int_code(code)
            elif abs(n) > _EXACT_IN_FLOAT64:
                return None
            else:
                code, n = PYTHON_INT, float(n)
        plan.append((code, n if n is not None else 0.0))
    return np.dtype(np.float64), plan


def _as_int_code(code: Tensor) -> Tensor:
    """A carried code whose Python number (an int) is held as a float64 from here on."""
    with tracing.graph_context(code.graph):
        return np.where(np.equal(code, PYTHON_NUMBER), np.int8(PYTHON_INT), code).astype(
            np.int8)


def kind_plan(sides):
    """(number dtype, [(code, number)] per side) for values whose sides differ in kind, or
    None: nothing to carry (a value as computed, or a Python number of one dtype, on every
    side), or kinds no one dtype can hold exactly."""
    known = [(c, n) for c, n in sides if not (type(c) is int and c == YIELDS)]
    codes = {c if type(c) is int else None for c, _ in known}
    if not known or codes == {AS_COMPUTED} or (
            codes == {PYTHON_NUMBER} and len({_dtype_of(n) for _, n in known}) == 1):
        return None  # (a Python number on every path is `weak`)
    return _number_plan([(AS_COMPUTED, None) if type(c) is int and c == YIELDS else (c, n)
                         for c, n in sides])


def loop_kind_plan(initial, body_output):
    """The kind plan of a 0-d loop variable: its value before the loop and after an
    iteration (a Python number the loop starts from, that the body makes a NumPy value, is
    still the Python number when the loop runs no iteration)."""
    sides = [side_of(initial), side_of(body_output)]
    if {c if type(c) is int else None for c, _ in sides} == {NUMPY_SCALAR, AS_COMPUTED}:
        return None  # (a 0-d value the loop computes is a NumPy scalar already)
    return kind_plan(sides)


def add_kind_outputs(branches, leaves_per_branch, outputs_per_branch, node_avals, as_value,
                     unread=None):
    """For each 0-d output whose branches give different kinds of value, add a code and a
    number output to every branch. Returns [(output, code output, number output)] indices.
    `unread`: per branch, the outputs that only stand in for "no value yet" there."""
    added = []
    unread = unread or [()] * len(branches)
    for j, (shape, _) in enumerate(list(node_avals)):
        if len(shape) != 0:
            continue
        plan = kind_plan([(YIELDS, None) if j in skip else side_of(leaves[j])
                          for leaves, skip in zip(leaves_per_branch, unread)])
        if plan is None:
            continue
        dtype, plan = plan
        for g, outputs, (code, number) in zip(branches, outputs_per_branch, plan):
            outputs.append(as_value(g, code, np.dtype(np.int8)))
            outputs.append(as_value(g, number, dtype))
        node_avals += [((), np.dtype(np.int8)), ((), dtype)]
        added.append((j, len(node_avals) - 2, len(node_avals) - 1))
    return added


def note_kinds(graph, outs, added) -> None:
    table = kinds_of(graph) if added else None
    for j, code, number in added:
        table[outs[j]] = (outs[code], outs[number])


def enter_kinds(values, placeholders) -> None:
    """Branch placeholders standing for operands `values` carry those values' kinds."""
    for value, ph in zip(values, placeholders):
        if isinstance(value, Tensor) and value.ndim == 0:
            table = getattr(value.graph, "path_kinds", None)
            carried = side_of(value)  # (also derived: `a % 7` of an `a` that carries one)
            if isinstance(carried[0], Tensor) or table is not None and value in table:
                kinds_of(ph.graph)[ph] = carried


def may_be_python_number(x) -> bool:
    """Whether `x` is, on some path, a Python number (a constant, a value standing for
    one, or one whose kind a path carries)."""
    if type(x) in _NUMBER_DTYPES or type(x) is bool:
        return True
    if not isinstance(x, Tensor) or x.ndim != 0:
        return False
    code = side_of(x)[0]
    return isinstance(code, Tensor) or code in (PYTHON_NUMBER, PYTHON_INT)


def share_kinds(source: Tensor, value: Tensor) -> Tensor:
    """`value` (the same number as `source`, e.g. as a Python number) with the kinds that
    `source`'s paths carry, if any."""
    carried = getattr(source.graph, "path_kinds", None)
    carried = carried.get(source) if carried is not None else None
    if carried is not None:
        kinds_of(value.graph)[value] = carried
    return value


def with_kind(x):
    """`x` as the traced function returns it: with the kind of the path taken applied."""
    if isinstance(x, Tensor) and x.ndim == 0:
        code, number = side_of(x)
        if isinstance(code, Tensor):
            return path_result(code, number, x)
    return x


def _reads(value, depth: int = 0) -> bool:
    """Whether an operation of the body (or of a branch or loop inside it, through its
    capture) reads a loop body's placeholder `value`; passing it to a branch or loop
    (which may only give it back) is not reading it."""
    if not isinstance(value, Tensor) or depth > 8:
        return False
    for node in value.graph.nodes:
        inners = [sub.captures.get(value) for sub in node.subgraphs()]
        if any(inner is not None and _reads(inner, depth + 1) for inner in inners):
            return True
        if not inners and any(x is value for x in node.inputs):
            return True  # (an operation's operand; a branch's or loop's operand is passed)
    return False


class LoopKinds:
    """The kinds a symbolic loop carries beside its 0-d variables whose value before the
    loop and after an iteration differ in kind, as two more loop states each (a code and a
    number), so the loop gives what Python holds after any number of iterations:

        total = 0                  ->  while_loop(..., total, code=1, number=0)
        while i < n:               ->  body: total + x[i] gives code 0 (as computed)
            total = total + x[i]
        return total               ->  0 (int) after no iteration, else np.float64(...)

    Inside the body the variable's placeholder carries its code and number, so a branch
    that keeps the variable passes the kind it came with on."""

    def __init__(self, types, flags=()):
        self.types, self.flags = types, set(flags)
        self.slots: dict = {}  # carried leaf index -> the number's dtype
        # first assigned in the loop (`types.yielding`) and given a NumPy value by the body:
        # a later iteration reading it reads that kind (else its placeholder yields)
        self.numpy_first: set = set()
        self.entered: list = []  # the values the body was traced with last
        # each round that finds a kind traces the body again; a kind found in one round
        # can reach another variable in the next (`pb = v` where v's kind a path decides),
        # so up to one round per variable (then what was found is kept)
        self.rounds_used = 0

    def avals(self) -> list:
        out = []
        for dtype in self.slots.values():
            out += [((), np.dtype(np.int8), False), ((), dtype, False)]
        return out

    def enter(self, values: list, placeholders) -> None:
        """Give the body's placeholders of the carried variables their code and number.
        A variable first assigned in the loop is what the body made it (its placeholder
        is weak only so that its dtype yields to the value assigned)."""
        self.entered = values
        for i in self.types.yielding:
            if i not in self.slots and isinstance(values[i], Tensor):
                kinds_of(values[i].graph)[values[i]] = \
                    (NUMPY_SCALAR, None) if i in self.numpy_first else (YIELDS, None)
        if not self.slots or not placeholders:
            return
        table = kinds_of(placeholders[0].graph)
        for k, i in enumerate(self.slots):
            table[values[i]] = (placeholders[2 * k], placeholders[2 * k + 1])

    def learn(self, out_leaves: list) -> bool:
        """Find the variables whose kind changes in an iteration; whether to trace again."""
        if self.rounds_used > len(self.types.carried):
            return False
        changed = False
        for i in self.types.carried:
            if len(self.types.avals[i][0]) != 0 or self.types.labels[i] in self.flags:
                continue
            if i in self.types.yielding:  # (its value before the loop is never read; the
                # one an iteration leaves is, by a later iteration reading it first)
                side = side_of(out_leaves[i])
                if type(side[0]) is int:
                    if side[0] in (AS_COMPUTED, NUMPY_SCALAR) and i not in self.numpy_first \
                            and _reads(self.entered[i]):  # (else nothing to trace again for)
                        self.numpy_first.add(i)
                        changed = True
                    continue
                plan = kind_plan([(YIELDS, None), side])
            else:
                plan = loop_kind_plan(self.types.leaves[i], out_leaves[i])
            if plan is not None and (i not in self.slots or self.slots[i] != plan[0]):  # (None == dtype('float64'))
                self.slots[i] = plan[0]
                changed = True
        self.rounds_used += changed
        return changed

    def follow(self, moved: dict) -> None:
        """Keep the slots of leaves the loop variables' structure moved (new -> old index)."""
        self.slots = {k: self.slots[i] for k, i in moved.items() if i in self.slots}
        self.numpy_first = {k for k, i in moved.items() if i in self.numpy_first}

    def finish(self, out_leaves: list) -> None:
        """Fix each slot's code and number on both sides, from the last trace."""
        self.plans = {}
        for i in self.slots:
            before = (AS_COMPUTED, None) if i in self.types.yielding else \
                side_of(self.types.leaves[i])  # (first assigned: never read before)
            plan = _number_plan([before, side_of(out_leaves[i])])
            self.plans[i] = plan[1] if plan is not None else [(AS_COMPUTED, 0)] * 2

    def values(self, graph, side: int) -> list:
        """Each slot's code and number as values of `graph`: side 0 before the loop, 1
        after an iteration (in the body)."""
        out = []
        for i, dtype in self.slots.items():
            code, number = self.plans[i][side]
            out += [as_value(graph, code, np.dtype(np.int8)), as_value(graph, number, dtype)]
        return out

    def note(self, graph, outs: list) -> None:
        """Record the loop outputs' codes and numbers, for `with_kind` and outer paths."""
        n = len(self.types.carried)
        table = kinds_of(graph) if self.slots else None
        for k, i in enumerate(self.slots):
            table[outs[self.types.carried.index(i)]] = (outs[n + 2 * k], outs[n + 2 * k + 1])
