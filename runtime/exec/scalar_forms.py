"""Spellings of ops on single numbers that skip NumPy's array machinery (loops over
elements run one of each per iteration), each giving exactly the value and type the
op's kernel gives.

    python_number(v)         →  int(v)           (bool(v), float(v) by dtype)
    logical_not(b)           →  (np_False if b else np_True)
    logical_and(a, b)        →  (np_True if a and b else np_False)   (`&` unless names)
    exact_int(i, 1, ...)     →  int64_0 + (i + 1)   (Python ints that cannot leave int64;
                                exact_add(i, 1, where) with the check otherwise)
    where(c, a, b)[()]       →  int64_0 + (a if c else b)
    power(d, t) written `d ** t`  →  d ** t   (NumPy's scalar power on NumPy scalars)
    power(0.999, t) of Python numbers  →  python_power(0.999, t, where)   (Python's `**`)

Why: a ufunc called on scalars costs 0.3–1 µs of dispatch and casting (`np.logical_and`
on a NumPy bool and a Python bool, `np.where` making a 0-d array), the Python expression
20–60 ns; a loop over 10,000 elements runs each once per element. Only 0-d operands
qualify (dtype and rank known from the trace); anything else keeps the NumPy call.
"""
from __future__ import annotations

import numpy as np

from runtime.core.graph import Node
from runtime.core.tensor import Tensor
from runtime.ops.exact_ints import EXACT_INT, _message
from runtime.ops.indexing import GETITEM, INDEX_UPDATE
from runtime.ops.ufuncs import PYTHON_NUMBER, made_by_operator

_MIN, _MAX = int(np.iinfo(np.int64).min), int(np.iinfo(np.int64).max)
_ZERO = np.int64(0)
_TO_PYTHON = {"b": "bool", "i": "int", "u": "int", "f": "float"}


def _scalar(x, kinds: str) -> bool:
    """A 0-d value (symbolic, or a constant NumPy/Python scalar) of one of `kinds`."""
    if isinstance(x, Tensor):
        return x.ndim == 0 and x.dtype.kind in kinds
    if type(x) is bool:
        return "b" in kinds
    if type(x) is int:
        return "i" in kinds
    return isinstance(x, np.generic) and x.dtype.kind in kinds


def _plain(expr: str) -> bool:
    """A name or literal: evaluating it twice, or not at all, changes nothing."""
    return expr.replace(".", "").replace("_", "").isalnum()


def _python_number(gen, node: Node, ins: list[str]) -> str | None:
    x = node.inputs[0]
    if not (isinstance(x, Tensor) and x.ndim == 0 and x.dtype.kind in _TO_PYTHON):
        return None
    alias = gen.aliases.get(id(node.outputs[0]))
    if alias is not None:
        return alias  # a `for` counts this value itself (counted_loops.common_shift)
    if id(x) in gen.python_ints:
        return ins[0]  # a Python int already (a loop counter: counted_loops.py)
    shifted = _shifted_counter(gen, x, ins[0])
    if shifted is not None:
        gen.python_ints[id(node.outputs[0])] = shifted[1]
        return shifted[0]
    negated = gen.negations.get(id(x))
    if negated is not None and negated[1] == ins[0]:
        return f"(not {_truth(negated[0])})"  # a Python bool, as `.item()` of logical_not's gives
    if x.dtype.kind == "f" and not _numpy_result(x):
        return None  # (a Python int standing where a float is typed stays an int)
    return f"{_TO_PYTHON[x.dtype.kind]}({ins[0]})"


def _shifted_counter(gen, x: Tensor, spelled: str) -> str | None:
    """`int(i + 3)` of a Python-int counter `i` spelled inline: `(i + 3)`, computed with
    Python's ints, when no value of `i` takes the int64 sum out of range (the same
    number, and no overflow warning either way)."""
    node = x.node
    if node is None or node.op.kernel not in (np.add, np.subtract) or node.attrs \
            or len(node.inputs) != 2 or _plain(spelled) or x.dtype != np.int64:
        return None
    a, b = node.inputs
    add = node.op.kernel is np.add
    flipped = add and id(b) in gen.python_ints and not isinstance(a, Tensor)
    counter, other = (b, a) if flipped else (a, b)
    span = gen.python_ints.get(id(counter)) if isinstance(counter, Tensor) else None
    if span is None or isinstance(other, Tensor) or not (
            type(other) is int or isinstance(other, (np.generic, np.ndarray))
            and np.ndim(other) == 0 and other.dtype == np.int64):
        return None
    k = int(other) if add else -int(other)
    if not all(_MIN <= v + k <= _MAX for v in span):
        return None
    return f"({gen.names[counter]} {'+' if k >= 0 else '-'} {abs(k)})", \
        (span[0] + k, span[1] + k)


def _numpy_result(x: Tensor) -> bool:
    """A value a NumPy kernel made (not a Python number handed through)."""
    node = x.node
    return node is not None and (isinstance(node.op.kernel, np.ufunc) or
                                 node.op.kernel is GETITEM.kernel)


def _logical_not(gen, node: Node, ins: list[str]) -> str | None:
    if len(ins) != 1 or not _scalar(node.inputs[0], "b"):
        return None
    call = f"{gen.const(np.False_, 'np_False')} if {ins[0]} else {gen.const(np.True_, 'np_True')}"
    gen.negations[id(node.outputs[0])] = (_paren_plain(ins[0]), f"({call})")
    return call


def _paren_plain(expr: str) -> str:
    return expr if _plain(expr) else f"({expr})"


def _strip(expr: str) -> str:
    """`expr` without parentheses around the whole of it."""
    while expr.startswith("(") and expr.endswith(")") and _balanced(expr[1:-1]):
        expr = expr[1:-1]
    return expr


def _balanced(text: str) -> bool:
    depth = 0
    for ch in text:
        depth += (ch == "(") - (ch == ")")
        if depth < 0:
            return False
    return depth == 0


def _truth(expr: str) -> str:
    """An expression with the truth value of `expr` (`bool(x)` tests as `x` does)."""
    expr = _strip(expr)
    if expr.startswith("bool(") and expr.endswith(")") and _balanced(expr[5:-1]):
        expr = _strip(expr[5:-1])
    return expr if _plain(expr) else f"({expr})"


def _as_bool(expr: str) -> str:
    """`expr` as a Python bool."""
    expr = _strip(expr)
    if expr.startswith("not ") or expr.startswith("bool(") and _balanced(expr[5:-1]):
        return f"({expr})"
    return f"bool({expr})"


def _logical_binary(word: str, sign: str):
    def spell(gen, node: Node, ins: list[str]) -> str | None:
        if len(ins) != 2 or not all(_scalar(x, "b") for x in node.inputs):
            return None
        true, false = gen.const(np.True_, "np_True"), gen.const(np.False_, "np_False")
        if all(map(_plain, ins)):
            return f"{true} if {ins[0]} {word} {ins[1]} else {false}"
        # an operand computed here: evaluated whatever the other is, as the ufunc does
        # (on Python bools: `np.bool_ & bool` takes NumPy's slow mixed-type path)
        return f"{true} if {_as_bool(ins[0])} {sign} {_as_bool(ins[1])} else {false}"
    return spell


def _exact_checked(op: str):
    def kernel(a, b, where):
        r = op_fn(int(a), int(b))
        if _MIN <= r <= _MAX:
            return _ZERO + r  # (np.int64(r) is ~15x slower)
        raise OverflowError(_message(name, where))
    name, op_fn = op, _EXACT_FN[op]
    kernel.__name__ = f"exact_{op}"
    return kernel


_EXACT_FN = {"add": int.__add__, "subtract": int.__sub__, "multiply": int.__mul__}
_SIGN = {"add": "+", "subtract": "-", "multiply": "*"}


def _span(gen, x):
    """(lowest, highest) of a value known to be a Python int here, or of an int constant
    (the extremes of a product of two spans are among its corners' products)."""
    if isinstance(x, Tensor):
        return gen.python_ints.get(id(x))
    return (x, x) if type(x) is int else None


def _read_as_index(gen, value: Tensor) -> bool:
    """Whether every read of `value` in the body being emitted is an index of an element
    read or write, or its Python number (a Python int and an int64 give the same)."""
    plan = gen.emitting_plan
    if plan is None:
        return False
    found = 0
    for node in plan.nodes:
        for i, x in enumerate(node.inputs):
            if x is not value:
                continue
            kernel = node.op.kernel
            if not (kernel is GETITEM.kernel and i >= 1 or kernel is PYTHON_NUMBER.kernel
                    or kernel is INDEX_UPDATE.kernel and i >= 2):
                return False
            found += 1
    return found > 0 and plan.uses.get(id(value)) == found


_EXACT = {name: _exact_checked(name) for name in ("add", "subtract", "multiply")}


def _exact_int(gen, node: Node, ins: list[str]) -> str | None:
    ufunc = node.attrs.get("ufunc")
    if ufunc not in _EXACT or set(node.attrs) != {"ufunc", "where"} or len(ins) != 2 \
            or not all(_scalar(x, "iub") for x in node.inputs):
        return None
    spans = [_span(gen, x) for x in node.inputs]
    if None not in spans:  # Python ints whose every result fits int64: no check needed
        fn = _EXACT_FN[ufunc]
        ends = [fn(a, b) for a in spans[0] for b in spans[1]]
        if _MIN <= min(ends) and max(ends) <= _MAX:
            spelled = f"{ins[0]} {_SIGN[ufunc]} {ins[1]}"
            if _read_as_index(gen, node.outputs[0]):  # Python's int indexes alike
                gen.python_ints[id(node.outputs[0])] = (min(ends), max(ends))
                return spelled
            return as_numpy(gen, np.dtype(np.int64), spelled)
    return f"{gen.const(_EXACT[ufunc], 'exact_' + ufunc)}({ins[0]}, {ins[1]}, " \
           f"{gen.const(node.attrs['where'], 'at_line')})"


def _where(gen, node: Node, ins: list[str]) -> str | None:
    """`np.where` of 0-d values: noted, spelled as NumPy's call; the `[()]` read of it
    (its only use, so that its 0-d array is seen nowhere else) picks the operand."""
    out = node.outputs[0]
    if node.attrs or len(ins) != 3 or out.ndim != 0 or not _scalar(node.inputs[0], "biuf") \
            or not all(isinstance(x, Tensor) and x.ndim == 0 and x.dtype == out.dtype
                       and out.dtype.kind in "biuf" for x in node.inputs[1:]):
        return None
    call = f"{gen.kernel_ref(node)}({', '.join(ins)})"
    gen.selects[id(out)] = (ins, f"({call})")
    return call


def _getitem(gen, node: Node, ins: list[str]) -> str | None:
    if node.outputs and id(node.outputs[0]) in gen.aliases:
        return gen.aliases[id(node.outputs[0])]  # the `for` iterates the elements
    x = node.inputs[0] if node.inputs else None
    index = node.attrs.get("index")  # (may be a NumPy value: compared by type first)
    if type(index) is not tuple or index != () or len(ins) != 1 or not isinstance(x, Tensor):
        return None
    picked = gen.selects.get(id(x))
    if picked is None or picked[1] != ins[0]:
        return None  # (only where the where is inlined into this read: its only use)
    c, a, b = picked[0]
    return as_numpy(gen, x.dtype, f"{a} if {_truth(c)} else {b}")


def as_numpy(gen, dtype: np.dtype, expr: str) -> str:
    """`expr` (a number of `dtype`: Python's, NumPy's, or a 0-d array) as the NumPy scalar
    of `dtype`. Integers and booleans by NumPy's scalar arithmetic with a neutral value
    (`int64_0 + x`: ~40 ns; `np.int64(x)` takes NumPy's slow path, ~0.6 µs); floats by
    the type (adding a zero would change a -0.0)."""
    if dtype.kind in "iu":
        return f"{gen.const(dtype.type(0), lambda v: f'{dtype.name}_0')} + ({expr})"
    if dtype.kind == "b":
        return f"{gen.const(np.False_, 'np_False')} | ({expr})"
    return f"{gen.const(dtype.type, f'np_{dtype.name}')}({expr})"


def python_power(a, b, where: str):
    """`a ** b` of two Python numbers (NumPy scalars standing for them are read as theirs),
    computed as Python computes it: the C library's `pow`, where NumPy's array loop for
    `np.power` may differ in the last bit (0.999 ** 7), and Python's errors (`0.0 ** -1`:
    ZeroDivisionError; overflow: OverflowError) where NumPy would warn."""
    result = (a.item() if isinstance(a, (np.generic, np.ndarray)) else a) ** \
        (b.item() if isinstance(b, (np.generic, np.ndarray)) else b)
    if type(result) is complex:
        raise ValueError(f"`**` of Python numbers gives a complex number here (a negative base "
                         f"to a fractional power){where}; the graph holds a float. Write "
                         "complex(base) ** e for Python's complex result, or np.power for "
                         "NumPy's nan")
    return result


def _power(gen, node: Node, ins: list[str]) -> str | None:
    """`a ** b` of single numbers written with the operator. On NumPy scalars `**` runs
    NumPy's scalar power (the C library's `pow`), which differs in the last bit from the
    `np.power` loop on some values (0.999 ** 7); on 0-d arrays it is that loop: so the
    operator, dispatched on the values as they are when the call runs, is eager's. On
    Python numbers (a weak result of weak or Python operands): Python's power, whose
    errors NumPy's does not reproduce. (Integer Python results are exact_int's.)"""
    out = node.outputs[0]
    if node.attrs or len(ins) != 2 or out.ndim != 0 or not made_by_operator(out):
        return None
    if not (out.weak and out.dtype.kind == "f" and all(
            type(x) in (bool, int, float) or isinstance(x, Tensor) and x.weak
            and x.ndim == 0 and x.dtype.kind in "biuf" for x in node.inputs)):
        return f"{_paren_plain(ins[0])} ** {_paren_plain(ins[1])}"
    origin = node.origin
    where = f" (at {origin.filename}:{origin.lineno})" if origin is not None else ""
    return f"{gen.const(python_power, 'python_power')}({ins[0]}, {ins[1]}, " \
           f"{gen.const(where, 'at_line')})"


# by the op record's kernel (a ufunc, NumPy's function, or the op's own)
_FORMS = {PYTHON_NUMBER.kernel: _python_number, np.logical_not: _logical_not, np.power: _power,
          np.logical_and: _logical_binary("and", "&"), np.logical_or: _logical_binary("or", "|"),
          EXACT_INT.kernel: _exact_int, np.where: _where, GETITEM.kernel: _getitem}
_LOGICAL = (np.logical_not, np.logical_and, np.logical_or)


def scalar_form(gen, node: Node, ins: list[str]) -> str | None:
    """The spelling of `node` on single numbers, or None for its usual one."""
    form = _FORMS.get(node.op.kernel)
    if form is None or not node.outputs:
        return None
    if node.op.kernel in _LOGICAL and node.attrs:
        return None
    return form(gen, node, ins)


def is_python_number(node: Node) -> bool:
    """A node giving its input's Python number (`python_number`)."""
    return node.op.kernel is PYTHON_NUMBER.kernel


def is_exact_add(node: Node) -> bool:
    """Exact Python-int addition (`exact_int` of `+`)."""
    return node.op.kernel is EXACT_INT.kernel and node.attrs.get("ufunc") == "add"


def is_element_read(node: Node) -> bool:
    """`x[index]` (`getitem`)."""
    return node.op.kernel is GETITEM.kernel
