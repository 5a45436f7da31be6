"""A `while_loop` that counts (`i < n` tested, `i + 1` carried) spelled as a Python `for`.

    i_loop, s_loop = i0, s0                       i_loop, s_loop = i0, s0
    while i_loop < n and not s_loop:              for i_next in counting(i_loop, n):
        s = ...                            →          if not (not s_loop): break
        i_loop, s_loop = i_loop + 1, s                s = ...
                                                      i_loop, s_loop = i_next, s

Why: rolled `for i in range(...)` loops and `enumerate` loops over elements test and add
the counter as NumPy scalars on every iteration, ~100 ns against the ~90 ns a whole
iteration of eager code over an array's elements takes; a `for` over NumPy's own int64
values does both at C speed. The same values and types: the body reads the counter as
the `while` gives it (the initial value on the first iteration, then `i + 1`, an int64
scalar, which is what NumPy's int64 values are), the rest of the condition is computed
before each iteration as before, and once more when the count runs out (its ops still
run, as the `while` would run them). The counter's `+ 1` cannot overflow (it stays
below `n`).
"""
from __future__ import annotations

import numpy as np

from runtime.core.graph import Graph, Node
from runtime.core.tensor import Tensor
from runtime.ops.indexing_rules import Slot
from runtime.exec.scalar_forms import is_element_read, is_exact_add, is_python_number

_ZERO = np.int64(0)
_CHUNK = 1 << 16  # counts longer than this are made lazily (a loop may stop early)


def counting(start, stop):
    """The values `start + 1, ..., stop` as int64 scalars (nothing when start >= stop)."""
    first, last = int(start) + 1, int(stop)
    if last - first < _CHUNK:
        return np.arange(first, last + 1, dtype=np.int64)
    return map(_ZERO.__add__, range(first, last + 1))  # (np.int64(i) is ~15x slower)


def _is_one(x) -> bool:
    """The int64 constant 1 as a NumPy value (`i + one` is an int64 scalar whatever
    Python or NumPy integer `i` is)."""
    return isinstance(x, (np.generic, np.ndarray)) and np.ndim(x) == 0 \
        and x.dtype == np.int64 and int(x) == 1


def _increment(body: Graph, k: int) -> bool:
    out = body.outputs[k]
    node = out.node if isinstance(out, Tensor) else None
    if node is None or len(node.inputs) != 2 or out.dtype != np.int64 or out.ndim != 0:
        return False
    a, b = node.inputs
    if node.op.kernel is np.add and not node.attrs:
        return any(x is body.inputs[k] and _is_one(y) for x, y in ((a, b), (b, a)))
    if is_exact_add(node):
        return any(x is body.inputs[k] and (_is_one(y) or type(y) is int and y == 1)
                   for x, y in ((a, b), (b, a)))
    return False


def _bound(test: Node, counter: Tensor):
    """`n` of `counter < n` (or `n > counter`) with an integer `n`, else None."""
    if test is None or test.attrs or len(test.inputs) != 2:
        return None
    a, b = test.inputs
    if test.op.kernel is np.less and a is counter:
        n = b
    elif test.op.kernel is np.greater and b is counter:
        n = a
    else:
        return None
    if isinstance(n, Tensor):
        return n if n.ndim == 0 and n.dtype.kind in "iu" else None
    if type(n) is int or isinstance(n, (np.generic, np.ndarray)) and np.ndim(n) == 0 \
            and n.dtype.kind in "iu":
        return n
    return None


def counted_loop(node: Node):
    """(counter position, bound, the rest of the condition or None) of a counting
    `while_loop` node, else None."""
    if node.attrs.get("has_max") or node.attrs.get("saved"):
        return None
    g_cond, g_body = node.attrs["cond"], node.attrs["body"]
    pred = g_cond.outputs[0]
    if not isinstance(pred, Tensor) or pred.node is None:
        return None
    tests = [(pred.node, None)]
    if pred.node.op.kernel is np.logical_and and not pred.node.attrs \
            and len(pred.node.inputs) == 2:
        a, b = pred.node.inputs
        tests = [(a.node if isinstance(a, Tensor) else None, b),
                 (b.node if isinstance(b, Tensor) else None, a)]
    n = len(node.outputs)
    for k in range(n):
        if not _increment(g_body, k):
            continue
        for test, rest in tests:
            bound = _bound(test, g_cond.inputs[k])
            if bound is not None and _invariant(bound, g_cond, n):
                return k, bound, rest
    return None


def _invariant(bound, g_cond: Graph, n: int) -> bool:
    """A constant, or a value the loop is given (not one it carries or computes)."""
    if not isinstance(bound, Tensor):
        return True
    return any(bound is x for x in g_cond.inputs[n:])


_PURE = (np.logical_not, np.logical_and, np.logical_or, np.not_equal, np.equal, np.less,
         np.greater, np.less_equal, np.greater_equal)


def pure_test(rest) -> bool:
    """Whether computing the rest of the condition can neither raise nor warn (then the
    `for` need not compute it once more when the count runs out)."""
    if not isinstance(rest, Tensor):
        return True
    seen, todo = set(), [rest]
    while todo:
        x = todo.pop()
        if id(x) in seen or x.node is None:
            continue
        seen.add(id(x))
        node = x.node
        if not (node.op.kernel in _PURE or is_python_number(node)) or node.attrs or any(
                isinstance(v, (Tensor, np.ndarray)) and (v.ndim != 0 or v.dtype.kind not in "biuf")
                for v in node.inputs):
            return False
        todo.extend(v for v in node.inputs if isinstance(v, Tensor))
    return True


def python_counter(node: Node, k: int, used_after: bool) -> bool:
    """Whether the counter can be a Python int inside the loop: every op reading it gives
    the same value and type from a Python int as from an int64 scalar (its Python
    number, an index, arithmetic and comparisons with an int64 constant, exact Python-int
    arithmetic), nothing carries it on, and nothing reads its final value."""
    if used_after:
        return False
    g_cond, g_body = node.attrs["cond"], node.attrs["body"]
    for g in (g_cond, g_body):
        counter = g.inputs[k]
        if any(x is counter for i, x in enumerate(g.outputs) if g is g_cond or i != k):
            return False
        for user in g.nodes:
            places = [i for i, x in enumerate(user.inputs) if x is counter]
            if places and not _reads_as_number(user, places):
                return False
    return True


def _reads_as_number(node: Node, places: list[int]) -> bool:
    name = node.op.name
    if name in ("python_number", "exact_int"):
        return True
    if name == "getitem":
        return 0 not in places
    if name == "index_update":
        return 0 not in places and 1 not in places
    kernel = node.op.kernel
    if isinstance(kernel, np.ufunc) and kernel.nin == 2 and not node.attrs \
            and len(node.inputs) == 2 and len(places) == 1:
        other = node.inputs[1 - places[0]]
        # NEP 50: a Python int meets an int64 NumPy value as an int64 would
        return isinstance(other, (np.generic, np.ndarray)) and np.ndim(other) == 0 \
            and other.dtype == np.int64
    return False


def counter_span(start, bound):
    """(lowest, highest) value a Python-int counter takes, when both ends are constants;
    else None."""
    ends = []
    for end in (start, bound):
        if isinstance(end, Tensor) or not (type(end) is int or isinstance(
                end, (np.generic, np.ndarray)) and np.ndim(end) == 0 and end.dtype.kind in "iu"):
            return None
        ends.append(int(end))
    return ends[0], ends[1] - 1


def common_shift(node: Node, k: int):
    """(s, reads) when a Python-int counter `i` is read as `int(i + s)` with an int64
    constant `s` (`for i in range(3, n)` rolled after three unrolled iterations reads
    `i + 3`): the `for` can count `i + s` itself. `reads`: those `int(i + s)` values (of
    the first `s` found); other reads of `i` are spelled from the `for`'s value. None
    when there is none."""
    shift, reads = None, []
    for g in (node.attrs["cond"], node.attrs["body"]):
        counter = g.inputs[k]
        users: dict = {}
        for user in g.nodes:
            for x in user.inputs:
                if isinstance(x, Tensor):
                    users.setdefault(id(x), []).append(user)
        for add in users.get(id(counter), []):
            if add.op.kernel is not np.add or add.attrs or len(add.inputs) != 2:
                continue
            other = add.inputs[1] if add.inputs[0] is counter else add.inputs[0]
            if isinstance(other, Tensor) or not _int64_constant(other) \
                    or shift is not None and int(other) != shift:
                continue
            numbers = [pn for pn in users.get(id(add.outputs[0]), [])
                       if is_python_number(pn)]
            if numbers:
                shift = int(other)
                reads += [pn.outputs[0] for pn in numbers]
    return None if shift is None else (shift, reads)


def _int64_constant(x) -> bool:
    return type(x) is int or isinstance(x, (np.generic, np.ndarray)) and np.ndim(x) == 0 \
        and x.dtype == np.int64


def element_reads(node: Node, indices: list, first: int, last: int):
    """(array, reads) when the body reads `x[j]` of an array the loop is given, `j` one of
    `indices` (the counter, or what the `for` counts), and every `j` the loop takes lies
    within `x` (`first`..`last`, both in range): the `for` can take the elements from
    iterating `x[first:last + 1]`, the very objects `x[j]` gives. None otherwise."""
    g_body, n = node.attrs["body"], len(node.outputs)
    given = {id(x) for x in g_body.inputs[n:]}
    wanted = {id(x) for x in indices}
    found: dict = {}
    for user in g_body.nodes:
        index = user.attrs.get("index")  # (may be a NumPy value: compared by type first)
        if not is_element_read(user) or len(user.inputs) != 2 or type(index) is not Slot \
                or index.k != 0 or id(user.inputs[1]) not in wanted:
            continue
        x = user.inputs[0]
        if id(x) in given and x.ndim >= 1 and type(x.shape[0]) is int \
                and 0 <= first and last < x.shape[0]:
            found.setdefault(id(x), (x, []))[1].append(user.outputs[0])
    return next(iter(found.values()), None)
