"""How the executor spells a node's call when a cheaper spelling runs the very same NumPy
code: an operator (`a + b` for `np.add(a, b)`), the array's method (`x.sum(axis=0)` for
`np.sum(x, axis=0)`), an index (`x[:, ::-1]` for `np.flip(x, axis=1)`), a reshape to the
known shape (`np.expand_dims`), the flat dot product `np.linalg.norm(x)` computes, or
`np.pad`'s zero padding without its argument handling.

Many NumPy functions are Python wrappers: `np.transpose(a, axes)` checks dispatch
(`__array_function__`) and then calls `a.transpose(axes)`. On the small arrays of
everyday code that wrapper costs more than the work (a transpose: ~0.9 µs against
~0.1 µs; `np.flip`: ~3.5 µs against ~0.2 µs for the index it builds). The spellings here
call what the wrapper calls for a plain ndarray, so results, dtypes, memory layouts
(views stay views) and warnings are those of the function. They apply only to values
that are ndarrays when the call runs: graph values of one or more dimensions (arguments
are plain ndarrays: subclasses are refused at the call) and array constants; a 0-d value
may be a Python number, which has no such methods.
"""
from __future__ import annotations

import re

import numpy as np

from runtime.core.graph import Node
from runtime.core.tensor import Tensor

_BINARY = {np.add: "+", np.subtract: "-", np.multiply: "*", np.true_divide: "/",
           np.floor_divide: "//", np.remainder: "%", np.less: "<", np.less_equal: "<=",
           np.greater: ">", np.greater_equal: ">=", np.equal: "==", np.not_equal: "!=",
           np.bitwise_and: "&", np.bitwise_or: "|", np.bitwise_xor: "^",
           np.left_shift: "<<", np.right_shift: ">>"}
_UNARY = {np.negative: "-", np.invert: "~", np.positive: "+"}
_SCALARS = (bool, int, float, complex, np.generic)


def operator_form(node: Node, ins: list[str], as_dot: bool = False) -> str | None:
    """`a + b` instead of `np.add(a, b)`: the same ufunc for arrays, and NumPy's much
    faster scalar path when the values are NumPy scalars (loops over scalars)."""
    k = node.op.kernel
    if node.attrs or not isinstance(k, np.ufunc):
        return None
    if any(not isinstance(x, (Tensor, np.ndarray) + _SCALARS) for x in node.inputs) or \
            not node.outputs[0].weak and all(type(x) in _SCALARS[:4] or isinstance(
                x, Tensor) and x.weak for x in node.inputs):  # `np.add(n, 1)`: not Python's
        return None
    if k is np.matmul and len(ins) == 2 and not as_dot:
        return f"{paren(ins[0])} @ {paren(ins[1])}"  # ndarray.__matmul__: least overhead
    if k in _BINARY and len(ins) == 2:
        return f"{paren(ins[0])} {_BINARY[k]} {paren(ins[1])}"
    if k in _UNARY and len(ins) == 1:
        return f"{_UNARY[k]}{paren(ins[0])}"
    return None


_REDUCE = ("axis", "keepdims")
# NumPy function -> (the method it calls on an ndarray, attributes passed by position,
# attributes passed by keyword). Reductions: `np.sum(x)` is `np.add.reduce`, as `x.sum()`;
# `np.mean`/`np.std` call the very `_methods` functions `x.mean()` calls (the `dtype` of
# any/all/max/min and `initial`/`where` are left to the function). The others are
# `_wrapfunc(a, name, ...)` in NumPy (or `asanyarray(a).name(...)`): the method itself.
_SAME_METHOD = {
    np.any: ("any", (), _REDUCE), np.all: ("all", (), _REDUCE),
    np.max: ("max", (), _REDUCE), np.amax: ("max", (), _REDUCE),
    np.min: ("min", (), _REDUCE), np.amin: ("min", (), _REDUCE),
    np.sum: ("sum", (), _REDUCE + ("dtype",)), np.prod: ("prod", (), _REDUCE + ("dtype",)),
    np.mean: ("mean", (), _REDUCE + ("dtype",)),
    np.std: ("std", (), _REDUCE + ("dtype", "ddof")),
    np.var: ("var", (), _REDUCE + ("dtype", "ddof")),
    np.argmax: ("argmax", (), _REDUCE), np.argmin: ("argmin", (), _REDUCE),
    np.cumsum: ("cumsum", (), ("axis", "dtype")), np.cumprod: ("cumprod", (), ("axis", "dtype")),
    np.transpose: ("transpose", ("axes",), ()),
    np.reshape: ("reshape", ("shape",), ("order", "copy")),
    np.swapaxes: ("swapaxes", ("axis1", "axis2"), ()),
    np.squeeze: ("squeeze", (), ("axis",)),
    np.ravel: ("ravel", (), ("order",)),
    np.round: ("round", (), ("decimals",)),
    np.diagonal: ("diagonal", (), ("offset", "axis1", "axis2")),
    np.clip: ("clip", (), ()),  # the bounds are inputs: x.clip(lo, hi)
    np.take: ("take", (), ("axis", "mode")),  # the indices are an input
}
_INPUTS = {np.clip: 3, np.take: 2}  # (the others: the array alone)


def _is_array_at_run_time(x) -> bool:
    """An ndarray when the call runs (not a Python number, not a NumPy scalar)."""
    return isinstance(x, (Tensor, np.ndarray)) and x.ndim is not None and x.ndim > 0


def method_form(gen, node: Node, ins: list[str]) -> str | None:
    """The cheaper spelling of `node`'s call (see the module docstring), or None."""
    if not node.inputs or not _is_array_at_run_time(node.inputs[0]):
        return None
    kernel, attrs, x = node.op.kernel, node.attrs, paren(ins[0])
    entry = _SAME_METHOD.get(kernel)
    if entry is not None:
        method, positional, keywords = entry
        given = tuple(p for p in positional if p in attrs)  # (a leading run of them)
        if len(node.inputs) != _INPUTS.get(kernel, 1) or \
                set(attrs) - set(positional) - set(keywords) or given != positional[:len(given)]:
            return None
        args = ins[1:] + [gen.lit(attrs[p]) for p in given] + \
            [f"{k}={gen.lit(v)}" for k, v in attrs.items() if k in keywords]
        return f"{x}.{method}({', '.join(args)})"
    if len(node.inputs) != 1:
        return None
    special = _SPECIAL.get(kernel) or _SPECIAL.get(node.op.name)
    return special(gen, node, x) if special is not None else None


def _copy(gen, node: Node, x: str) -> str | None:
    # np.copy(a, order='K') is np.array(a, order='K', copy=True): `a.copy('K')`
    if set(node.attrs) - {"order"}:
        return None
    return f"{x}.copy({gen.lit(node.attrs.get('order', 'K'))})"


def _astype(gen, node: Node, x: str) -> str | None:
    # np.astype(x, dtype, copy=True) returns `x.astype(dtype, copy=copy)`
    attrs = node.attrs
    if "dtype" not in attrs or set(attrs) - {"dtype", "copy"}:
        return None
    copy = f", copy={gen.lit(attrs['copy'])}" if "copy" in attrs else ""
    return f"{x}.astype({gen.lit(attrs['dtype'])}{copy})"


def _flip(gen, node: Node, x: str) -> str | None:
    # np.flip(m, axis) is `m[indexer]`: `::-1` on the flipped axes, `:` on the others
    ndim, axis = node.inputs[0].ndim, node.attrs.get("axis")
    if set(node.attrs) - {"axis"}:
        return None
    if axis is None:
        flipped = set(range(ndim))
    else:
        axes = axis if isinstance(axis, (tuple, list)) else (axis,)
        if not all(type(a) is int and -ndim <= a < ndim for a in axes) or \
                len({a % ndim for a in axes}) != len(axes):
            return None  # NumPy's own error, from its own call
        flipped = {a % ndim for a in axes}
    index = ", ".join("::-1" if d in flipped else ":" for d in range(ndim))
    return f"{x}[{index}]"


def _expand_dims(gen, node: Node, x: str) -> str | None:
    # np.expand_dims(a, axis) is `a.reshape(shape)` with ones inserted: the result's shape
    shape = node.outputs[0].shape
    if set(node.attrs) - {"axis"} or shape is None or None in shape:
        return None
    return f"{x}.reshape({gen.lit(tuple(shape))})"


def flat_norm(x):
    """`np.linalg.norm(x)` of a real floating array, as NumPy computes it: the square root
    of the dot product of the array, flattened in memory order, with itself."""
    flat = x.ravel(order="K")
    return np.sqrt(flat.dot(flat))


def _norm(gen, node: Node, x: str) -> str | None:
    # only the call with no options (2-norm of the flattened array) of a real float array
    if node.inputs[0].dtype.kind != "f" or any(
            node.attrs[k] is not None for k in node.attrs if k in ("ord", "axis")) or \
            node.attrs.get("keepdims", False) is not False or \
            set(node.attrs) - {"ord", "axis", "keepdims"}:
        return None
    return f"{gen.const(flat_norm, 'flat_norm')}({bare(x)})"


def _at_least(gen, node: Node, x: str) -> str | None:
    # np.atleast_2d(a): `a` itself from two dimensions on, else `a[np.newaxis, :]`
    least = {np.atleast_1d: 1, np.atleast_2d: 2, np.atleast_3d: 3}[node.op.kernel]
    ndim = node.inputs[0].ndim
    if node.attrs or len(node.outputs) != 1:
        return None
    if ndim >= least:
        return x
    return f"{x}[{_AT_LEAST_INDEX[least, ndim]}]"


_AT_LEAST_INDEX = {(2, 1): "None, :", (3, 1): "None, :, None", (3, 2): ":, :, None"}


def pad_constant(x, pairs, value):
    """`np.pad(x, pairs, mode='constant', constant_values=value)` as NumPy builds it: an
    empty array of the padded shape (F order for an F-only-contiguous `x`), `x` copied into
    its middle, then each axis's borders set to `value` (on the part of the array already
    padded along the earlier axes), without the preamble that normalises the arguments.
    Borders of width 0 are skipped: the value (a zero) casts to any dtype without a
    warning, so setting them does nothing."""
    shape = tuple(left + n + right for n, (left, right) in zip(x.shape, pairs))
    padded = np.empty(shape, x.dtype, order="F" if x.flags.fnc else "C")
    middle = tuple(slice(left, left + n) for n, (left, _) in zip(x.shape, pairs))
    padded[middle] = x
    for axis, (left, right) in enumerate(pairs):
        if left or right:
            part = padded[(slice(None),) * (axis + 1) + middle[axis + 1:]]
            before = (slice(None),) * axis
            if left:
                part[before + (slice(None, left),)] = value
            if right:
                part[before + (slice(shape[axis] - right, None),)] = value
    return padded


def _pad(gen, node: Node, x: str) -> str | None:
    # constant mode with pad widths given per axis as (before, after) Python ints, padding
    # with zero (the common case): NumPy's steps without its argument normalisation
    attrs, ndim = node.attrs, node.inputs[0].ndim
    widths, value = attrs.get("pad_width"), attrs.get("constant_values", 0)
    if set(attrs) - {"pad_width", "mode", "constant_values"} or \
            attrs.get("mode", "constant") != "constant" or \
            type(value) not in (int, float) or value != 0 or \
            not isinstance(widths, (tuple, list)) or len(widths) != ndim or not all(
                isinstance(w, (tuple, list)) and len(w) == 2 and
                all(type(n) is int and n >= 0 for n in w) for w in widths):
        return None
    pairs = tuple(tuple(w) for w in widths)
    fill = np.array(value).ravel()[0]  # what np.pad sets: the value as a NumPy scalar
    return f"{gen.const(pad_constant, 'pad_constant')}({bare(x)}, {gen.lit(pairs)}, " \
        f"{gen.lit(fill)})"


_SPECIAL = {np.copy: _copy, "astype": _astype, np.flip: _flip, np.expand_dims: _expand_dims,
            np.linalg.norm: _norm, np.atleast_1d: _at_least, np.atleast_2d: _at_least,
            np.atleast_3d: _at_least, np.pad: _pad}


def joined(exprs: list[str]) -> str:
    return ", ".join(bare(e) if len(exprs) == 1 else e for e in exprs)


def paren(expr: str) -> str:
    if re.fullmatch(r"[\w.]+", expr) or wrapped(expr):  # names, numbers, attributes
        return expr
    return f"({expr})"


def wrapped(expr: str) -> bool:
    """True when `expr` is one parenthesised group: (a + b), not (a) + (b)."""
    if not (expr.startswith("(") and expr.endswith(")")):
        return False
    depth = 0
    for i, ch in enumerate(expr):
        depth += ch == "("
        depth -= ch == ")"
        if depth == 0 and i < len(expr) - 1:
            return False
    return True


def bare(expr: str) -> str:
    """Drop redundant outer parentheses (statement contexts: if, while, =)."""
    while wrapped(expr):
        expr = expr[1:-1]
    return expr
