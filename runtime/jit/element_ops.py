"""Lowerings of the ops loops over array elements use, inside scalar regions.

A scalar region (regions.py) may carry arrays of static shape through its loops and
branches; these ops are the only ones that touch them, one element (or one static
slice) at a time, with NumPy's semantics:

* `getitem` — `x[i, j]` with integer indices (constant or 0-d symbolic; negative ones
  count from the end) and static slices. A symbolic index outside the array is a guard:
  the region reruns on NumPy, which raises NumPy's IndexError. A slice result is a copy
  (never a view a later in-place write could reach).
* `index_update` (mode 'set') — `x[i, j] = v`, static slices (`x[1:3] = v`, `v` 0-d or
  of the slice's shape) and a boolean mask of `x`'s shape with a 0-d value. The write is
  in place when the emitter owns `x` and `x` is dead after it (source.py), else on a
  copy. A value cast NumPy could refuse (a Python int out of an int32's range) or that
  could warn is a guard.
* `shape_dim` / `size_of` — the static size, `python_number` — the same value (the
  wrapper gives the Python number back where the region's result is one), `exact_int` —
  Python-int arithmetic in int64, its overflow (and division by zero) a guard: the NumPy
  rerun raises the default executor's OverflowError / ZeroDivisionError.

`lower_element(node, names, out, in_place)` returns an `ops.Lowered` whose `checks` run
before its lines (an index must be tested before memory is touched).
"""
from __future__ import annotations

import numpy as np

from runtime.core.graph import Node
from runtime.core.tensor import Tensor
from runtime.jit.int_ranges import NO_BOUNDS, Bounds
from runtime.jit.ops import SUPPORTED, Lowered, cast, dtype_of, literal, overflow_guard
from runtime.ops.indexing_rules import Slot

_INT_KINDS = "iu"
_I64 = np.dtype(np.int64)
_MIN, _MAX = int(np.iinfo(np.int64).min), int(np.iinfo(np.int64).max)


def static_array(x) -> bool:
    """A Tensor or constant array of a supported dtype (its dimensions may be unknown
    while tracing: the compiled code reads them from the array)."""
    if isinstance(x, Tensor):
        return x.ndim > 0 and x.dtype in SUPPORTED and not x.weak
    return isinstance(x, np.ndarray) and x.ndim > 0 and x.dtype in SUPPORTED


def _shape(x) -> tuple:
    return tuple(x.static_shape) if isinstance(x, Tensor) else x.shape


def _items(template) -> tuple | None:
    items = template if isinstance(template, tuple) else (template,)
    for t in items:
        if t is None or t is Ellipsis:
            return None  # new axes and `...`: not lowered
    return items


_UNKNOWN = 1 << 40  # stands for an unknown dimension when probing an index's shape


def _index_plan(node: Node, x, template, dynamic: list):
    """(per-axis items, result shape) of `x[template]` when it is integers and static
    slices only; None otherwise. Items: ('int', value or Tensor) or ('slice', slice).
    The shape is None when `x` has an unknown dimension."""
    items = _items(template)
    if items is None or not static_array(x) or len(items) > len(_shape(x)):
        return None
    plan, probe = [], []
    for t in items:
        if isinstance(t, Slot):
            v = dynamic[t.k]
            if isinstance(v, Tensor) and v.ndim == 0 and v.dtype.kind in _INT_KINDS \
                    and v.dtype in SUPPORTED and v.dtype != np.dtype(np.uint64):
                plan.append(("int", v))
                probe.append(0)
            elif not isinstance(v, Tensor) and np.ndim(v) == 0 and \
                    np.asarray(v).dtype.kind in _INT_KINDS:
                plan.append(("int", int(v)))
                probe.append(0)
            else:
                return None
        elif isinstance(t, slice):
            if any(isinstance(p, Slot) for p in (t.start, t.stop, t.step)):
                return None
            plan.append(("slice", t))
            probe.append(t)
        elif isinstance(t, (int, np.integer)) and not isinstance(t, (bool, np.bool_)):
            plan.append(("int", int(t)))
            probe.append(int(t) if None not in _shape(x) else 0)
        else:
            return None
    known = None not in _shape(x)
    dims = _shape(x) if known else tuple(_UNKNOWN if d is None else d for d in _shape(x))
    try:  # the result's shape, without touching memory
        shape = np.broadcast_to(np.empty((), np.int8), dims)[tuple(probe)].shape
    except IndexError:  # a constant index outside the array: NumPy raises it when run
        return None
    return plan, shape if known else None


def _mask_plan(x, template, dynamic: list):
    """The mask of `x[mask]` when it is one boolean array of `x`'s rank, else None."""
    if not isinstance(template, Slot) or not static_array(x):
        return None
    m = dynamic[template.k]
    if static_array(m) and dtype_of(m) == np.dtype(bool) and len(_shape(m)) == len(_shape(x)):
        return m
    return None


def _subscript(plan, x, src: str, names: dict, bounds: Bounds) -> tuple[str, list[str]]:
    """The subscript text and the checks that an index is inside `x` (an index the
    trace did not see, or into a dimension it did not know). An index `bounds` proves
    inside its dimension is not tested; one proven not negative is not wrapped."""
    parts, checks = [], []
    for axis, (kind, v) in enumerate(plan):
        n = _shape(x)[axis]
        if kind == "slice":
            parts.append(":".join("" if p is None else str(int(p))
                                  for p in (v.start, v.stop, v.step)) or ":")
            continue
        if isinstance(v, Tensor) or n is None:
            k = f"np.int64({names[id(v)]})" if isinstance(v, Tensor) else f"np.int64({v})"
            size = str(n) if n is not None else f"{src}.shape[{axis}]"
            got = bounds.interval(v)
            if got is not None and got[0] >= 0:  # never counts from the end
                if n is None or got[1] >= n:
                    checks.append(f"not ({k} < {size})")
                parts.append(k)
                continue
            if got is not None and n is not None and got[0] >= -n and got[1] < 0:
                parts.append(f"({k} + {size})")  # always from the end, always inside
                continue
            checks.append(f"not (-{size} <= {k} < {size})")
            parts.append(f"({k} + {size} if {k} < 0 else {k})")
        else:
            parts.append(str(v + n if v < 0 else v))
    return ", ".join(parts), checks


def _ndim(x) -> int:
    return x.ndim if isinstance(x, Tensor) else np.ndim(x)


def _expr(x, names: dict) -> str | None:
    if isinstance(x, Tensor) or id(x) in names:
        return names.get(id(x))
    return None


def _value_into(value, names: dict, dst: np.dtype,
                bounds: Bounds = NO_BOUNDS) -> tuple[str, list[str]] | None:
    """A 0-d value written into an array of `dst`: (expression, checks), None when
    NumPy's cast could differ (refuse) — checks send doubtful values to NumPy (an
    integer `bounds` proves exact in `dst` is not tested)."""
    if not isinstance(value, Tensor):
        text = literal(value, dst)
        return None if text is None else (text, [])
    src, name = value.dtype, names[id(value)]
    if src == dst or np.can_cast(src, dst, "safe") and not (src.kind in _INT_KINDS and
                                                            dst.kind == "f"):
        return cast(name, src, dst), []
    if src.kind in _INT_KINDS + "b" and dst.kind == "f":
        limit = 1 << (24 if dst.itemsize == 4 else 53)  # exact in the float: no rounding
        if bounds.within(value, -limit, limit):
            return cast(name, src, dst), []
        return cast(name, src, dst), [f"not ({-limit} <= {name} <= {limit})"]
    if src.kind in _INT_KINDS and dst.kind in _INT_KINDS and dst != np.dtype(np.uint64):
        info = np.iinfo(dst)  # a Python int out of range raises; an int64 would wrap
        if bounds.within(value, int(info.min), int(info.max)):
            return cast(name, src, dst), []
        return cast(name, src, dst), [f"not ({int(info.min)} <= {name} <= {int(info.max)})"]
    if src.kind == "f" and dst.kind == "f":
        return cast(name, src, dst), [
            f"abs({name}) < np.inf and not (abs(np.{dst.name}({name})) < np.inf)",
            f"{name} != 0 and abs({name}) < {float(np.finfo(dst).tiny)!r}"]
    return None


def element_lowerable(node: Node) -> bool:
    """Whether `lower_element` lowers `node` (names are not needed to decide)."""
    names = _AnyName()
    return lower_element(node, names, "r", False) is not None


class _AnyName(dict):
    def __missing__(self, key):
        return "x"

    def get(self, key, default=None):
        return "x"

    def __contains__(self, key):
        return True


def lower_element(node: Node, names: dict, out: str, in_place: bool,
                  bounds: Bounds = NO_BOUNDS) -> Lowered | None:
    """Source computing the node's one result `out` (None when it is not lowered);
    `in_place`: the emitter owns input 0's buffer and nothing reads it afterwards;
    `bounds` (int_ranges.py): the index checks and guards its intervals prove needless
    are left out."""
    lowering = _LOWERINGS.get(node.op.name)
    if lowering is None or len(node.outputs) != 1:
        return None
    if _USES_BOUNDS.get(node.op.name, False):
        return lowering(node, names, out, in_place, bounds)
    return lowering(node, names, out, in_place)


def is_element_op(op) -> bool:
    """Whether `op` is one of the ops this module lowers (the backend's tables are keyed
    by op name, as the ONNX exporter's are: a lookup)."""
    return _LOWERINGS.get(op.name) is not None


def writes_input(op) -> bool:
    """Whether `op` computes a new value of its first input (which may be written in place)."""
    return _WRITES.get(op.name, False)


def constant_value(node: Node):
    """The value a constant node holds (None for other nodes)."""
    return _CONSTANT_ATTR.get(node.op.name) and node.attrs.get("value")


def _python_number(node: Node, names: dict, out: str, in_place: bool) -> Lowered | None:
    x = node.inputs[0]
    if isinstance(x, Tensor) and x.ndim == 0 and x.dtype in SUPPORTED:
        return Lowered([f"{out} = {names[id(x)]}"], [], checks=[])
    return None


def _constant(node: Node, names: dict, out: str, in_place: bool) -> Lowered | None:
    value = node.attrs["value"]
    if np.ndim(value) == 0:
        text = literal(value, node.outputs[0].dtype)
        return None if text is None else Lowered([f"{out} = {text}"], [], checks=[])
    # an array constant is a parameter of the region; the node gives a copy
    if not static_array(value) or _expr(value, names) is None:
        return None
    return Lowered([f"{out} = {_expr(value, names)}.copy()"], [], checks=[])


def _size(read: str):
    """`x.shape[axis]` (an unknown dimension) or `x.size`: read from the array."""
    def lower(node: Node, names: dict, out: str, in_place: bool) -> Lowered | None:
        x = node.inputs[0]
        src = _expr(x, names)
        if not static_array(x) or src is None:
            return None
        n = f"{src}.shape[{node.attrs['axis']}]" if read == "dim" else f"{src}.size"
        return Lowered([f"{out} = np.int64({n})"], [], checks=[])
    return lower


def _fresh_like(fill: str | None):
    """`np.zeros_like(x)`, `np.ones_like(x)` (optionally of another dtype), or `np.copy(x)`
    (fill None): a new array of `x`'s shape."""
    def lower(node: Node, names: dict, out: str, in_place: bool) -> Lowered | None:
        x = node.inputs[0]
        src, rdt = _expr(x, names), node.outputs[0].dtype
        if len(node.inputs) != 1 or not static_array(x) or src is None or rdt not in SUPPORTED \
                or set(node.attrs) - {"dtype"} or fill is None and node.attrs:
            return None
        if fill is None:
            return Lowered([f"{out} = {src}.copy()"], [], checks=[])
        kind = rdt.name if rdt.kind != "b" else "bool_"
        return Lowered([f"{out} = {fill}({src}.shape, np.{kind})"], [], checks=[])
    return lower


def _getitem(node: Node, names: dict, out: str, in_place: bool = False,
             bounds: Bounds = NO_BOUNDS) -> Lowered | None:
    x, *dynamic = node.inputs
    template = node.attrs["index"]
    if isinstance(x, Tensor) and x.ndim == 0 and template == () and not dynamic:
        return Lowered([f"{out} = {names[id(x)]}"], [], checks=[]) \
            if x.dtype in SUPPORTED else None  # `v[()]` of a 0-d value: itself
    src = _expr(x, names)
    mask = _mask_plan(x, template, dynamic)
    if mask is not None and src is not None and _expr(mask, names) is not None \
            and node.outputs[0].ndim == 1 and node.outputs[0].dtype == dtype_of(x):
        m = _expr(mask, names)  # both C-ordered: the flat selection is NumPy's order
        checks = [] if None not in _shape(x) and _shape(x) == _shape(mask) else \
            [f"{m}.shape != {src}.shape"]
        return Lowered([f"{out} = {src}.reshape(-1)[{m}.reshape(-1)]"], [], checks=checks)
    got = _index_plan(node, x, template, dynamic)
    if got is None or src is None:
        return None
    plan, shape = got
    if node.outputs[0].dtype != dtype_of(x) or shape is not None and \
            tuple(node.outputs[0].static_shape) != shape or \
            node.outputs[0].ndim != len(_shape(x)) - sum(k == "int" for k, _ in plan):
        return None
    sub, checks = _subscript(plan, x, src, names, bounds)
    copy = ".copy()" if node.outputs[0].ndim else ""  # its own buffer, never a view
    return Lowered([f"{out} = {src}[{sub}]{copy}"], [], checks=checks)


def _index_update(node: Node, names: dict, out: str, in_place: bool,
                  bounds: Bounds = NO_BOUNDS) -> Lowered | None:
    if node.attrs.get("mode") != "set":
        return None  # ufunc.at modes stay NumPy calls
    x, value, *dynamic = node.inputs
    src = _expr(x, names)
    if src is None or not static_array(x) or node.outputs[0].dtype != dtype_of(x):
        return None
    dst = dtype_of(x)
    # in place: the result is `x`'s own variable (no new name to count references of)
    lines = [] if in_place else [f"{out} = {src}.copy()"]
    tmp, out = out, src if in_place else out
    mask = _mask_plan(x, node.attrs["index"], dynamic)
    if mask is not None:
        if _ndim(value) != 0 or _expr(mask, names) is None:
            return None
        got = _value_into(value, names, dst, bounds)
        if got is None:
            return None
        v, checks = got
        m = _expr(mask, names)
        if None in _shape(x) or None in _shape(mask) or _shape(x) != _shape(mask):
            checks = [f"{m}.shape != {src}.shape"] + checks  # NumPy's IndexError
        return Lowered(lines + [f"{tmp}_flat = {out}.reshape(-1)",
                                f"{tmp}_mask = {m}.reshape(-1)",
                                f"for {tmp}_k in range({tmp}_flat.size):",
                                f"    if {tmp}_mask[{tmp}_k]:",
                                f"        {tmp}_flat[{tmp}_k] = {v}"],
                       [], checks=checks, result=out)
    got = _index_plan(node, x, node.attrs["index"], dynamic)
    if got is None:
        return None
    plan, shape = got
    sub, checks = _subscript(plan, x, src, names, bounds)
    if _ndim(value) == 0:
        val = _value_into(value, names, dst, bounds)
        if val is None:
            return None
        v, more = val
        return Lowered(lines + [f"{out}[{sub}] = {v}"], [], checks=checks + more, result=out)
    if not static_array(value) or shape is None or _shape(value) != shape \
            or dtype_of(value) != dst \
            or _expr(value, names) is None:
        return None  # an array value: same shape and dtype only (no broadcasting, no cast)
    return Lowered(lines + [f"{out}[{sub}] = {_expr(value, names)}"], [], checks=checks,
                   result=out)


_EXACT = {"add": "+", "subtract": "-", "multiply": "*", "floor_divide": "//",
          "remainder": "%", "negative": "-", "absolute": "abs", "square": "*"}


def _exact_int(node: Node, names: dict, out: str, in_place: bool = False,
               bounds: Bounds = NO_BOUNDS) -> Lowered | None:
    """Python's int arithmetic in int64; any result that could leave int64 (or a zero
    divisor) is a guard: the NumPy rerun raises the default executor's error."""
    ufunc = node.attrs.get("ufunc")
    if node.attrs.get("masked") or ufunc not in _EXACT:
        return None
    a = []
    for x in node.inputs:
        if isinstance(x, Tensor):
            if x.ndim != 0 or x.dtype.kind not in "iub" or x.dtype == np.dtype(np.uint64):
                return None
            a.append(cast(names[id(x)], x.dtype, _I64))
        elif type(x) in (int, bool) and _MIN <= int(x) <= _MAX:
            a.append(f"np.int64({int(x)})")
        else:
            return None
    r = f"{out}"
    checks, guards = [], []
    proven = bounds.fits(node, _I64)  # stays inside int64, divides by no zero
    if ufunc in ("negative", "absolute"):
        checks.append(f"{a[0]} == {_MIN}")
        expr = f"-{a[0]}" if ufunc == "negative" else f"abs({a[0]})"
    elif ufunc in ("floor_divide", "remainder"):
        checks.append(f"{a[1]} == 0 or ({a[0]} == {_MIN} and {a[1]} == -1)")
        expr = f"{a[0]} {_EXACT[ufunc]} {a[1]}"
    elif ufunc in ("multiply", "square"):
        b = a[1] if ufunc == "multiply" else a[0]
        # the float product is within a relative 2**-52 of the exact one
        checks.append(f"abs(np.float64({a[0]}) * np.float64({b})) >= 9.2e18")
        expr = f"{a[0]} * {b}"
    else:
        expr = f"{a[0]} {'+' if ufunc == 'add' else '-'} {a[1]}"
        guards.extend(overflow_guard(ufunc, a[0], a[1], r, tuple(
            bounds.interval(x) for x in node.inputs)))
    if proven:
        checks, guards = [], []
    return Lowered([f"{r} = np.int64({expr})"], guards, checks=checks)


def _matmul(node: Node, names: dict, out: str, in_place: bool = False) -> Lowered | None:
    """`a @ b` / `np.dot(a, b)` of integer vectors and matrices: three loops. Integer
    sums wrap the same in any order, so the result is NumPy's bit for bit; a float
    product stays NumPy's call (its BLAS sums in an order of its own)."""
    if len(node.inputs) != 2 or node.attrs:
        return None
    a, b = node.inputs
    rdt = node.outputs[0].dtype
    if not (static_array(a) and static_array(b)) or rdt.kind not in _INT_KINDS \
            or rdt == np.dtype(np.uint64) or dtype_of(a) != rdt or dtype_of(b) != rdt \
            or len(_shape(a)) > 2 or len(_shape(b)) > 2:
        return None
    ea, eb = _expr(a, names), _expr(b, names)
    if ea is None or eb is None:
        return None
    a2 = ea if len(_shape(a)) == 2 else f"{ea}.reshape(1, {ea}.shape[0])"
    b2 = eb if len(_shape(b)) == 2 else f"{eb}.reshape({eb}.shape[0], 1)"
    t, acc = f"np.{rdt.name}", f"{out}_acc"
    lines = [f"{out}_a = {a2}", f"{out}_b = {b2}",
             f"{out}_m = np.zeros(({out}_a.shape[0], {out}_b.shape[1]), {t})",
             f"for {out}_i in range({out}_a.shape[0]):",
             f"    for {out}_j in range({out}_b.shape[1]):",
             f"        {acc} = np.int64(0)",
             f"        for {out}_k in range({out}_a.shape[1]):",
             f"            {acc} += np.int64({out}_a[{out}_i, {out}_k]) * "
             f"np.int64({out}_b[{out}_k, {out}_j])",
             f"        {out}_m[{out}_i, {out}_j] = {t}({acc})"]
    nd = node.outputs[0].ndim
    if nd == 0:
        lines.append(f"{out} = {out}_m[0, 0]")
    elif nd == 1:
        lines.append(f"{out} = {out}_m.reshape(-1)")  # (its own buffer: fresh, C-ordered)
    else:
        lines.append(f"{out} = {out}_m")
    # NumPy's ValueError for operands that do not fit: the NumPy rerun raises it
    checks = [f"{ea}.shape[{len(_shape(a)) - 1}] != {eb}.shape[0]"]
    return Lowered(lines, [], checks=checks)


_LOWERINGS = {"getitem": _getitem, "index_update": _index_update, "python_number": _python_number,
              "exact_int": _exact_int, "constant": _constant, "shape_dim": _size("dim"),
              "size_of": _size("size"), "zeros_like": _fresh_like("np.zeros"),
              "ones_like": _fresh_like("np.ones"), "copy": _fresh_like(None),
              "matmul": _matmul, "dot": _matmul}
_WRITES = {"index_update": True}
_USES_BOUNDS = {"getitem": True, "index_update": True, "exact_int": True}
_CONSTANT_ATTR = {"constant": True}
