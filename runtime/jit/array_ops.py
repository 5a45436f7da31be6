"""Small whole-array ops inside scalar regions: elementwise ops and reductions as loops.

A NumPy call on a small array costs a microsecond or more of dispatch (a reduction over
an axis several), while the arithmetic takes nanoseconds. So in a scalar region
(regions.py) an op of the table's cheap kind (ops.CHEAP) whose operands are 0-d or
static-shaped arrays broadcasting to a static result of under `SMALL_ELEMENTS`
elements becomes nested loops calling the same element lowering as a scalar op
(`ops.lower_node`, its guards tested per element), and these reductions become loops
with NumPy's bits:

* `max` / `min` (any axis): the value is unique whatever the order, except a zero
  (NumPy's SIMD loops pick +0 or -0 in an order of their own) and NaN (whose payload
  depends on which NaN came first); a result that is NaN, or a zero among zeros of both
  signs, is a guard (the region reruns on NumPy).
* `sum` / `mean` of floats over the last axis, over all axes of an array NumPy holds
  contiguous, or over axis 0 of a matrix: NumPy's order exactly. Along a contiguous
  row NumPy adds pairwise (blocks of 8 partial sums, halves above 128 elements), which
  the generated code spells out for the static length; down the columns of a matrix it
  adds row after row. Either way it starts from the identity 0.0 (so -0.0 sums give
  0.0). `mean` then divides by the count, as `np.mean` does. Integer sums (into int64)
  wrap the same in any order.

The region's array inputs must be C-contiguous for the sums to see NumPy's order: its
wrapper reruns the region on NumPy when one is not (build.py, `Region.c_order`).
"""
from __future__ import annotations

import numpy as np

from runtime.core.graph import Node
from runtime.core.tensor import Tensor
from runtime.jit.ops import SUPPORTED, Lowered, dtype_of, fe_flags, is_cheap, lower_node

# from here on NumPy's SIMD loops beat per-element guards (larger elementwise runs
# become array kernels instead, regions.py)
SMALL_ELEMENTS = 1 << 11
# the reductions, keyed by op name (a lookup, as the backend's other tables)
_EXTREMA = {"max": ">", "amax": ">", "min": "<", "amin": "<"}
_SUMS = {"sum": False, "mean": True}  # name -> divides by the count
_MOMENTS = {"var": False, "std": True}  # name -> takes the square root
_REDUCTION = {**dict.fromkeys(_EXTREMA, "extremum"), **dict.fromkeys(_SUMS, "sum"),
              **dict.fromkeys(_MOMENTS, "moment")}
_VIEWS = {"getitem": True}


def _shape(x) -> tuple | None:
    shape = tuple(x.static_shape) if isinstance(x, Tensor) else np.shape(x)
    return None if None in shape else shape


def _small_array(x) -> bool:
    if isinstance(x, Tensor):
        ok = x.ndim > 0 and not x.weak
    else:
        ok = isinstance(x, np.ndarray) and x.ndim > 0
    shape = _shape(x) if ok else None
    return shape is not None and dtype_of(x) in SUPPORTED and int(np.prod(shape)) < SMALL_ELEMENTS


def is_array_op(node: Node) -> bool:
    """Whether `node` computes a whole array (or reduces one) in a way this module may
    lower: decided by its op and result rank, before trying."""
    if len(node.outputs) != 1:
        return False
    if _REDUCTION.get(node.op.name):
        return bool(node.inputs) and isinstance(node.inputs[0], Tensor) and node.inputs[0].ndim > 0
    return is_cheap(node.op) and node.outputs[0].ndim > 0


def order_sensitive(node: Node) -> bool:
    """A float sum: its value depends on the order NumPy adds in."""
    return _REDUCTION.get(node.op.name) in ("sum", "moment") and node.inputs[0].dtype.kind == "f"


class _Probe(dict):
    """Any value's name (to decide whether a node lowers before names exist)."""

    def __missing__(self, key):
        return "x"

    def get(self, key, default=None):
        return "x"


def array_op_lowerable(node: Node) -> bool:
    return lower_array_op(node, _Probe(), "r", "return True", fe_flags() is not None) is not None


def lower_array_op(node: Node, names: dict, out: str, bail: str,
                   flags: bool = False) -> Lowered | None:
    """Loops computing the node's one result `out` (an array, or a 0-d reduction), their
    guards folded into `deferred` per element; None when not lowered exactly. `flags`:
    guards that only restate IEEE exception flags are left to the region's test of the
    flags (source.py), so the loops run branch-free."""
    if node.has_effects or len(node.outputs) != 1:
        return None
    if _REDUCTION.get(node.op.name):
        return _reduce(node, names, out, flags)
    if not is_cheap(node.op) or not _small_array(node.outputs[0]):
        return None
    return _elementwise(node, names, out, bail, flags)


def _loops(shape: tuple, var: str, body: list[str], depth: int = 0) -> list[str]:
    head = [" " * 4 * (depth + d) + f"for {var}{d} in range({n}):" for d, n in enumerate(shape)]
    pad = " " * 4 * (depth + len(shape))
    return head + [pad + line for line in body]


def _element(src: str, shape: tuple, out_shape: tuple, var: str) -> str:
    """`src` at the current position of loops over `out_shape` (broadcast from `shape`)."""
    lead = len(out_shape) - len(shape)
    idx = [f"{var}{lead + d}" if n != 1 or out_shape[lead + d] == 1 else "0"
           for d, n in enumerate(shape)]
    return f"{src}[{', '.join(idx)}]"


def _elementwise(node: Node, names: dict, out: str, bail: str, flags: bool) -> Lowered | None:
    o = node.outputs[0]
    shape = _shape(o)
    loads, args = [], []
    for k, x in enumerate(node.inputs):
        if isinstance(x, Tensor) and x.ndim == 0:
            args.append(names[id(x)])
        elif isinstance(x, Tensor) or isinstance(x, np.ndarray) and x.ndim > 0:
            xs = _shape(x)
            if not _small_array(x) or xs is None or len(xs) > len(shape) or any(
                    n not in (1, m) for n, m in zip(xs[::-1], shape[::-1])):
                return None
            src = names.get(id(x))
            if src is None:
                return None
            loads.append(f"{out}_a{k} = {_element(src, xs, shape, out + '_i')}")
            args.append(f"{out}_a{k}")
        else:
            args.append(None)  # a constant number: ops.literal spells it
    # a weak operand (a Python number) needs the scalar rules' cast checks
    scalar = any(isinstance(x, Tensor) and x.weak for x in node.inputs)
    low = lower_node(node, args, f"{out}_e", scalar)
    if low is None:
        return None
    body = list(loads)
    if low.checks:
        body += [f"if {' or '.join(low.checks)}:", f"    {bail}"]
    body += low.lines
    guards = [] if low.ieee and flags else low.guards
    if guards:
        body.append(f"deferred = deferred | ({' or '.join(guards)})")
    body.append(f"{out}[{', '.join(f'{out}_i{d}' for d in range(len(shape)))}] = {out}_e")
    kind = o.dtype.name if o.dtype.kind != "b" else "bool_"
    return Lowered([f"{out} = np.empty({shape!r}, np.{kind})"] + _loops(shape, f"{out}_i", body),
                   [], defers=bool(guards))


def _axis(node: Node, ndim: int) -> tuple[int | None, bool] | None:
    attrs = dict(node.attrs)
    if _REDUCTION.get(node.op.name) == "moment":
        attrs.pop("ddof", None)
    keepdims = attrs.pop("keepdims", False)
    axis = attrs.pop("axis", None)
    if attrs or keepdims not in (True, False):
        return None
    if axis is None:
        return None, bool(keepdims)
    if isinstance(axis, tuple) and len(axis) == 1:
        axis = axis[0]
    if not isinstance(axis, (int, np.integer)) or isinstance(axis, bool) or not -ndim <= axis < ndim:
        return None
    return int(axis) % ndim, bool(keepdims)


def _reduce(node: Node, names: dict, out: str, flags: bool) -> Lowered | None:
    x = node.inputs[0]
    if len(node.inputs) != 1 or not isinstance(x, Tensor) or x.ndim == 0 or not _small_array(x):
        return None
    shape, o = _shape(x), node.outputs[0]
    got = _axis(node, len(shape))
    if got is None or 0 in shape:
        return None  # an empty max raises: NumPy's to raise
    axis, keepdims = got
    src = names[id(x)]
    name, dt, rdt = node.op.name, x.dtype, o.dtype
    kind = _REDUCTION.get(name)
    if kind == "extremum":
        if dt != rdt or dt.kind not in "iuf":
            return None
        return _extremum(src, shape, axis, keepdims, _EXTREMA[name], dt, out)
    divides = kind == "moment" or _SUMS.get(name, False)  # mean, var, std
    if divides and (dt != np.dtype(np.float64) or rdt != dt):
        return None  # (NumPy divides a float32 sum by an int64 count in float64)
    if dt.kind == "f" and rdt == dt:
        if not flags:  # a sum's overflow shows in the IEEE flags only
            return None
        if axis is None and len(shape) > 1 and _is_view(x):
            return None  # NumPy adds a strided view row by row, not as one run
        if axis is not None and axis != len(shape) - 1 and not (len(shape) == 2 and axis == 0):
            return None
        if kind == "moment":
            ddof = node.attrs.get("ddof", 0)
            n = int(np.prod(shape)) if axis is None else shape[axis]
            if type(ddof) is not int or not n - ddof > 0:
                return None  # NumPy warns about the degrees of freedom
            return _moment(src, shape, axis, keepdims, dt, out, n - ddof, _MOMENTS[name])
        return _float_sum(src, shape, axis, keepdims, dt, out, _SUMS[name])
    if not divides and dt.kind in "iub" and dt != np.dtype(np.uint64) and rdt == np.dtype(np.int64):
        return _int_sum(src, shape, axis, keepdims, out)
    return None


def _is_view(x: Tensor) -> bool:
    return x.node is not None and _VIEWS.get(x.node.op.name, False)


def _result_shape(shape: tuple, axis, keepdims: bool) -> tuple:
    if axis is None:
        return (1,) * len(shape) if keepdims else ()
    return tuple(1 if d == axis else n for d, n in enumerate(shape)
                 if keepdims or d != axis)


def _outer(shape: tuple, axis, src: str, out: str, keepdims: bool):
    """(loop shape over the kept axes, `src`'s element at reduced index `k`, the result's
    subscript at the current position, lines before the loops)."""
    if axis is None:
        return (), (lambda k: f"{out}_x[{k}]"), None, [f"{out}_x = {src}.reshape(-1)"]
    kept = tuple(n for d, n in enumerate(shape) if d != axis)
    pos = [f"{out}_i{d}" for d in range(len(kept))]

    def elem(k):
        idx = pos[:axis] + [str(k)] + pos[axis:]
        return f"{src}[{', '.join(idx)}]"
    target = pos[:axis] + ["0"] + pos[axis:] if keepdims else pos
    return kept, elem, ", ".join(target), []


def _store(o_shape: tuple, target: str | None, out: str, value: str, dt: np.dtype) -> tuple:
    """(lines before the loops, the store in them, the result's final lines)."""
    if not o_shape:
        return [], [f"{out} = {value}"], []
    if target is None:  # axis=None, keepdims: a (1, ..., 1) array
        return [], [f"{out}_flat = np.empty({o_shape!r}, np.{dt.name})",
                    f"{out}_flat.reshape(-1)[0] = {value}"], [f"{out} = {out}_flat"]
    return [f"{out} = np.empty({o_shape!r}, np.{dt.name})"], [f"{out}[{target}] = {value}"], []


def _extremum(src, shape, axis, keepdims, op, dt, out) -> Lowered:
    n = int(np.prod(shape)) if axis is None else shape[axis]
    rshape = _result_shape(shape, axis, keepdims)
    kept, elem, target, pre = _outer(shape, axis, src, out, keepdims)
    acc = f"{out}_acc"
    nan = f" or {out}_v != {out}_v" if dt.kind == "f" else ""
    body = [f"{acc} = {elem(0)}",
            f"for {out}_k in range(1, {n}):",
            f"    {out}_v = {elem(out + '_k')}",
            f"    if {out}_v {op} {acc}{nan}:",
            f"        {acc} = {out}_v"]
    if dt.kind == "f":  # NaN, or a zero among zeros of both signs: NumPy's to pick
        body += [f"if {acc} != {acc}:",
                 "    deferred = True",
                 f"elif {acc} == 0:",
                 f"    for {out}_k in range({n}):",
                 f"        {out}_v = {elem(out + '_k')}",
                 f"        if {out}_v == 0 and np.signbit({out}_v) != np.signbit({acc}):",
                 "            deferred = True"]
    before, store, after = _store(rshape, target, out, acc, dt)
    return Lowered(pre + before + _loops(kept, f"{out}_i", body + store) + after, [],
                   defers=dt.kind == "f")


def _block(s: str, m, elem, v: str, zero: str) -> list[str]:
    """Lines adding `elem(s) .. elem(s + m - 1)` into `v` as NumPy's pairwise sum does a
    run of at most 128 (`m` static, or a name holding at least 8)."""
    if isinstance(m, int) and m < 8:
        return [f"{v} = {zero}", f"for {v}_k in range({s}, {s} + {m}):", f"    {v} += {elem(v + '_k')}"]
    r = [f"{v}_r{j}" for j in range(8)]
    end = f"{s} + {m} - {m} % 8"
    return [f"{r[j]} = {elem(f'{s} + {j}')}" for j in range(8)] + [
        f"for {v}_k in range({s} + 8, {end}, 8):"] + [
        f"    {r[j]} += {elem(f'{v}_k + {j}')}" for j in range(8)] + [
        f"{v} = (({r[0]} + {r[1]}) + ({r[2]} + {r[3]})) + (({r[4]} + {r[5]}) + ({r[6]} + {r[7]}))",
        f"for {v}_k in range({end}, {s} + {m}):", f"    {v} += {elem(v + '_k')}"]


def _pairwise(n: int, elem, tmp: str, dt: np.dtype) -> tuple[list[str], list[str], str]:
    """(lines before the loops, lines adding `elem(0) .. elem(n - 1)` in NumPy's pairwise
    order, the expression of the sum). Above 128 NumPy halves the run (keeping the first
    half a multiple of 8) down to runs of at most 128; their sums are combined in the
    same tree. One loop over those runs keeps the code small whatever `n`."""
    zero = f"np.{dt.name}(0.0)"
    runs: list[tuple[int, int]] = []

    def split(start: int, m: int):
        if m <= 128:
            runs.append((start, m))
            return len(runs) - 1
        half = m // 2 - (m // 2) % 8
        return split(start, half), split(start + half, m - half)
    tree = split(0, n)
    if len(runs) == 1:
        return [], _block("0", n, elem, f"{tmp}_s", zero), f"{tmp}_s"

    def combine(t) -> str:
        return f"{tmp}_p[{t}]" if isinstance(t, int) else f"({combine(t[0])} + {combine(t[1])})"
    starts, lengths = tuple(a for a, _ in runs), tuple(m for _, m in runs)
    pre = [f"{tmp}_p = np.empty({len(runs)}, np.{dt.name})",
           f"{tmp}_st = {starts!r}", f"{tmp}_ln = {lengths!r}"]
    lines = [f"for {tmp}_j in range({len(runs)}):"] + [
        "    " + line for line in _block(f"{tmp}_st[{tmp}_j]", f"{tmp}_ln[{tmp}_j]", elem,
                                         f"{tmp}_s", zero)] + [f"    {tmp}_p[{tmp}_j] = {tmp}_s"]
    return pre, lines, combine(tree)


def _float_sum(src, shape, axis, keepdims, dt, out, mean: bool) -> Lowered | None:
    n = int(np.prod(shape)) if axis is None else shape[axis]
    rshape = _result_shape(shape, axis, keepdims)
    kept, elem, target, pre = _outer(shape, axis, src, out, keepdims)
    zero = f"np.{dt.name}(0.0)"
    total = f"{out}_t"
    if axis is not None and axis != len(shape) - 1:  # down the columns: row after row
        body = [f"{total} = {zero}", f"for {out}_k in range({n}):",
                f"    {total} += {elem(out + '_k')}"]
    else:  # along a contiguous run: pairwise, after the identity
        more, body, last = _pairwise(n, elem, out, dt)
        pre = pre + more
        body.append(f"{total} = {zero} + {last}")
    value = f"np.{dt.name}({total} / np.{dt.name}({n}))" if mean else total
    before, store, after = _store(rshape, target, out, value, dt)
    return Lowered(pre + before + _loops(kept, f"{out}_i", body + store) + after, [])


def _int_sum(src, shape, axis, keepdims, out) -> Lowered:
    n = int(np.prod(shape)) if axis is None else shape[axis]
    rshape = _result_shape(shape, axis, keepdims)
    kept, elem, target, pre = _outer(shape, axis, src, out, keepdims)
    body = [f"{out}_t = np.int64(0)", f"for {out}_k in range({n}):",
            f"    {out}_t += np.int64({elem(out + '_k')})"]
    before, store, after = _store(rshape, target, out, f"{out}_t", np.dtype(np.int64))
    return Lowered(pre + before + _loops(kept, f"{out}_i", body + store) + after, [])


def _moment(src, shape, axis, keepdims, dt, out, dof: int, root: bool) -> Lowered | None:
    """`np.var` / `np.std` as NumPy computes them: the mean (kept dimensions), the squared
    deviations as a new array, their sum divided by `dof`, then the square root."""
    mean = _float_sum(src, shape, axis, True, dt, f"{out}_m", True)
    if mean is None:
        return None
    m_shape = _result_shape(shape, axis, True)
    dev = f"{out}_d"
    idx = ", ".join(f"{dev}_i{d}" for d in range(len(shape)))
    lines = mean.lines + [f"{dev} = np.empty({shape!r}, np.{dt.name})"] + _loops(shape, f"{dev}_i", [
        f"{dev}_e = {src}[{idx}] - {_element(f'{out}_m', m_shape, shape, dev + '_i')}",
        f"{dev}[{idx}] = {dev}_e * {dev}_e"])
    total = _float_sum(dev, shape, axis, keepdims, dt, f"{out}_s", False)
    if total is None:
        return None
    lines += total.lines
    t = np.dtype(dt).name
    value = f"np.sqrt({out}_s / np.{t}({dof}))" if root else f"({out}_s / np.{t}({dof}))"
    if axis is None and not keepdims:
        return Lowered(lines + [f"{out} = np.{t}({value})"], [])
    rshape = _result_shape(shape, axis, keepdims)
    return Lowered(lines + [f"{out} = np.empty({rshape!r}, np.{t})",
                            f"{out}_flat = {out}.reshape(-1)",
                            f"{out}_sum = {out}_s.reshape(-1)",
                            f"for {out}_k in range({int(np.prod(rshape))}):",
                            f"    {out}_flat[{out}_k] = {value.replace(f'{out}_s', f'{out}_sum[{out}_k]')}"],
                   [])
