"""Gradient rules for the linear-algebra ops: einsum and what reduces to it (dot, inner,
tensordot), outer, vdot, trace, diagonal, inv, det, solve, cross. The norms (np.linalg.norm
included) are in norm_rules.py, the rest of np.linalg in linalg_more_rules.py.

Written with NumPy calls, so each rule runs eagerly on arrays and records graph nodes on
Tensors. `matmul` is a ufunc; its rule is in `rules.py`.
"""
from __future__ import annotations

import string

import numpy as np

from runtime.autodiff.rule_base import rule
from runtime.autodiff.shapes import reshape_like, shape_of_value, sum_to
from runtime.ops.indexing import index_update


# -- einsum ------------------------------------------------------------------------------
def explicit_subscripts(spec: str, ndims) -> tuple[list[str], str]:
    """(input terms, output term) of an einsum spec, with '...' and an implicit output
    written out in letters (NumPy's rules: the ellipsis dims first, then the letters used
    once, in alphabetical order)."""
    spec = spec.replace(" ", "")
    ins, out = spec.split("->") if "->" in spec else (spec, None)
    terms = ins.split(",")
    free = [c for c in string.ascii_letters if c not in spec]
    counts = [nd - (len(t) - 3) for t, nd in zip(terms, ndims) if "..." in t]
    width = max(counts, default=0)
    ell = "".join(free[:width])
    terms = [t.replace("...", ell[width - (nd - (len(t) - 3)):]) if "..." in t else t
             for t, nd in zip(terms, ndims)]
    if out is None:
        letters = "".join(terms)
        out = ell + "".join(sorted(c for c in set(letters) if letters.count(c) == 1
                                   and c not in ell))
    else:
        out = out.replace("...", ell)
    return terms, out


def einsum_grads(terms, out, operands, g, wanted=None):
    """Cotangent of each operand of `einsum(terms -> out)` given output cotangent `g`."""
    grads = []
    for i, (term, x) in enumerate(zip(terms, operands)):
        if wanted is not None and i not in wanted:
            grads.append(None)
            continue
        others = [t for j, t in enumerate(terms) if j != i]
        ops = [g] + [o for j, o in enumerate(operands) if j != i]
        unique = "".join(dict.fromkeys(term))
        known = set(out).union(*others)
        subs = [out] + others
        if not set(unique) <= known:
            # letters summed over in this operand alone: the gradient is broadcast along them
            subs.append(term)
            ops.append(np.ones_like(x))
        grad = np.einsum(",".join(subs) + "->" + unique, *ops)
        if len(unique) != len(term):
            grad = _place_on_diagonals(grad, unique, term, x)
        grads.append(sum_to(grad, x))
    return grads


def _place_on_diagonals(grad, unique, term, x):
    """From the gradient over distinct letters to one over `term`, whose repeated letters
    (einsum 'ii') index a diagonal: zero off it."""
    shape = shape_of_value(x)
    fresh = iter(c for c in string.ascii_letters if c not in term)
    seen, renamed, subs, eyes = set(), "", [unique], []
    for pos, c in enumerate(term):
        if c in seen:
            if shape[pos] is None:
                raise NotImplementedError("gradient of np.einsum with a repeated subscript "
                                          "over a dimension of unknown size")
            d = next(fresh)
            renamed += d
            subs.append(c + d)
            eyes.append(np.eye(shape[pos], dtype=_dtype(grad)))
        else:
            seen.add(c)
            renamed += c
    return np.einsum(",".join(subs) + "->" + renamed, grad, *eyes)


@rule("einsum")
def _einsum(rec, cts):
    terms, out = explicit_subscripts(rec.attrs["subscripts"], [np.ndim(x) for x in rec.inputs])
    return einsum_grads(terms, out, rec.inputs, cts[0])


def _letters(n, start=0):
    return string.ascii_letters[start:start + n]


@rule("dot")
def dot_grad(rec, cts):
    a, b = rec.inputs
    na, nb = np.ndim(a), np.ndim(b)
    if na == 0 or nb == 0:
        return [sum_to(cts[0] * b, a), sum_to(cts[0] * a, b)]
    # dot contracts a's last axis ("z") with b's second-to-last (its only one when 1-D)
    ta = _letters(na - 1) + "z"
    tb = "z" if nb == 1 else _letters(nb - 2, 26) + "zZ"
    return einsum_grads([ta, tb], ta[:-1] + tb.replace("z", ""), [a, b], cts[0])


@rule("inner")
def _inner(rec, cts):
    a, b = rec.inputs
    na, nb = np.ndim(a), np.ndim(b)
    if na == 0 or nb == 0:
        return [sum_to(cts[0] * b, a), sum_to(cts[0] * a, b)]
    ta, tb = _letters(na - 1) + "z", _letters(nb - 1, 26) + "z"
    return einsum_grads([ta, tb], ta[:-1] + tb[:-1], [a, b], cts[0])


@rule("tensordot")
def _tensordot(rec, cts):
    a, b = rec.inputs
    na, nb = np.ndim(a), np.ndim(b)
    axes = rec.attrs.get("axes", 2)
    if isinstance(axes, (int, np.integer)):
        axes_a, axes_b = list(range(na - axes, na)), list(range(axes))
    else:
        axes_a, axes_b = ([axes[0]] if np.ndim(axes[0]) == 0 else list(axes[0]),
                          [axes[1]] if np.ndim(axes[1]) == 0 else list(axes[1]))
    axes_a, axes_b = [int(x) % na for x in axes_a], [int(x) % nb for x in axes_b]
    ta, tb = list(_letters(na)), list(_letters(nb, 26))
    for i, j in zip(axes_a, axes_b):
        tb[j] = ta[i]
    out = "".join(c for k, c in enumerate(ta) if k not in axes_a) + \
        "".join(c for k, c in enumerate(tb) if k not in axes_b)
    return einsum_grads(["".join(ta), "".join(tb)], out, [a, b], cts[0])


@rule("outer")
def _outer(rec, cts):
    a, b = rec.inputs
    g = cts[0]
    return [reshape_like(np.matmul(g, np.ravel(b)), a), reshape_like(np.matmul(np.ravel(a), g), b)]


@rule("vdot")
def _vdot(rec, cts):
    a, b = rec.inputs
    if _dtype(a).kind == "c" or _dtype(b).kind == "c":
        raise NotImplementedError("gradient of np.vdot of complex arrays")
    g = cts[0]
    return [reshape_like(g * np.ravel(b), a), reshape_like(g * np.ravel(a), b)]


def _dtype(x):
    return x.dtype if hasattr(x, "dtype") else np.asarray(x).dtype


# -- diagonals -------------------------------------------------------------------------------
def _diagonal_scatter(x, g, offset, axis1, axis2):
    """Zeros like `x` with `g` (diagonal last, as np.diagonal gives it) on the diagonal."""
    nd = np.ndim(x)
    axis1, axis2 = axis1 % nd, axis2 % nd
    shape = shape_of_value(x)
    if shape[axis1] is None or shape[axis2] is None:
        raise NotImplementedError("gradient of np.diagonal / np.trace over dimensions of "
                                  "unknown size")
    moved = np.moveaxis(np.zeros_like(x), (axis1, axis2), (-2, -1))
    n = min(shape[axis1] - max(-offset, 0), shape[axis2] - max(offset, 0))
    rows = np.arange(max(n, 0)) + max(-offset, 0)
    cols = np.arange(max(n, 0)) + max(offset, 0)
    full = index_update(moved, (Ellipsis, rows, cols), g)
    return np.moveaxis(full, (-2, -1), (axis1, axis2))


@rule("diagonal")
def _diagonal(rec, cts):
    a = rec.attrs
    return [_diagonal_scatter(rec.inputs[0], cts[0], a.get("offset", 0), a.get("axis1", 0),
                              a.get("axis2", 1))]


@rule("trace")
def _trace(rec, cts):
    x = rec.inputs[0]
    offset, axis1, axis2 = (rec.attrs.get(k, d) for k, d in (("offset", 0), ("axis1", 0),
                                                                 ("axis2", 1)))
    shape = shape_of_value(x)
    if shape[axis1] is None or shape[axis2] is None:
        raise NotImplementedError("gradient of np.trace over dimensions of unknown size")
    length = max(0, min(shape[axis1] - max(-offset, 0), shape[axis2] - max(offset, 0)))
    g = np.expand_dims(cts[0], -1) * np.ones(length, _dtype(cts[0]))
    return [_diagonal_scatter(x, g, offset, axis1, axis2)]


# -- inverses and determinants ----------------------------------------------------------------
def _mT(x):
    return np.swapaxes(x, -1, -2)


@rule("inv")
def _inv(rec, cts):
    y = rec.outputs[0]
    return [-np.matmul(np.matmul(_mT(y), cts[0]), _mT(y))]


@rule("det")
def _det(rec, cts):
    x = rec.inputs[0]
    scale = (cts[0] * rec.outputs[0])[..., None, None]
    return [scale * _mT(np.linalg.inv(x))]


@rule("solve")
def _solve(rec, cts):
    a, b = rec.inputs
    x = rec.outputs[0]
    if np.ndim(b) == 1:
        gb = np.linalg.solve(_mT(a), cts[0])
        return [sum_to(-gb[..., :, None] * x[..., None, :], a), sum_to(gb, b)]
    gb = np.linalg.solve(_mT(a), cts[0])
    return [sum_to(-np.matmul(gb, _mT(x)), a), sum_to(gb, b)]


@rule("cross")
def _cross(rec, cts):
    a, b = rec.inputs
    if rec.attrs or np.shape(a)[-1] != 3 or np.shape(b)[-1] != 3:
        raise NotImplementedError("gradient of np.cross: only 3-vectors along the last axis")
    g = cts[0]
    return [sum_to(np.cross(b, g), a), sum_to(np.cross(g, a), b)]
