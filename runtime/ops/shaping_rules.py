"""Shape/dtype rules of the ops in shaping.py: shape manipulation (reshape, transpose,
squeeze, ...), joining (concatenate, stack, ...), padding/repeating, triangles, diff
and einsum. Same contract as functions_rules.py (and filed in the same table, which the
op registrars read): no kernel runs;
an unknown dim (None) flows through, and a result dim is known only when it is
computable from known dims alone.
"""
from __future__ import annotations

import numpy as np

from runtime.ops.functions_rules import RULES, rule
from runtime.ops.rules_common import (axes_tuple, axis_index, broadcast_shapes, dim_sum, dtype,
                                      int_tuple, result_type, shape, size, static_error,
                                      static_int)


@rule("reshape")
def reshape_rule(op, inputs, attrs):
    shp = shape(inputs[0])
    new = int_tuple(attrs["shape"], "the new shape")
    if sum(d < 0 for d in new) > 1:  # NumPy takes any negative entry as the unknown one
        raise static_error(ValueError, "can only specify one unknown dimension")
    new = tuple(-1 if d < 0 else d for d in new)
    n = size(shp)
    known = 1
    for d in new:
        if d != -1:
            known *= d
    if -1 not in new:
        if n is not None and n != known:
            raise static_error(ValueError, f"cannot reshape array of size {n} into shape {new}")
        return [(new, dtype(inputs[0]))]
    if n is not None and (known == 0 or n % known):
        raise static_error(ValueError, f"cannot reshape array of size {n} into shape {new}")
    fill = None if n is None or known == 0 else n // known
    return [(tuple(fill if d == -1 else d for d in new), dtype(inputs[0]))]


@rule("ravel")
def ravel_rule(op, inputs, attrs):
    return [((size(shape(inputs[0])),), dtype(inputs[0]))]


@rule("transpose")
def transpose_rule(op, inputs, attrs):
    shp = shape(inputs[0])
    axes = attrs.get("axes")
    if axes is None:
        return [(shp[::-1], dtype(inputs[0]))]
    axes = int_tuple(axes, "axes")
    if len(axes) != len(shp):
        raise static_error(ValueError, "axes don't match array")
    perm = [axis_index(a, len(shp)) for a in axes]
    if len(set(perm)) != len(perm):
        raise static_error(ValueError, "repeated axis in transpose")
    return [(tuple(shp[a] for a in perm), dtype(inputs[0]))]


@rule("swapaxes")
def swapaxes_rule(op, inputs, attrs):
    shp = list(shape(inputs[0]))
    a, b = (axis_index(attrs[k], len(shp)) for k in ("axis1", "axis2"))
    shp[a], shp[b] = shp[b], shp[a]
    return [(tuple(shp), dtype(inputs[0]))]


@rule("moveaxis")
def moveaxis_rule(op, inputs, attrs):
    shp = shape(inputs[0])
    src = axes_tuple(attrs["source"], len(shp))
    dst = axes_tuple(attrs["destination"], len(shp))
    if len(src) != len(dst):
        raise static_error(ValueError, "`source` and `destination` arguments must have the "
                           "same number of elements")
    order = [i for i in range(len(shp)) if i not in src]
    for d, s in sorted(zip(dst, src, strict=True)):
        order.insert(d, s)
    return [(tuple(shp[i] for i in order), dtype(inputs[0]))]


@rule("squeeze")
def squeeze_rule(op, inputs, attrs):
    shp = shape(inputs[0])
    if attrs.get("axis") is None:
        if None in shp:
            raise static_error(ValueError, "np.squeeze without `axis`: the rank of its result "
                               f"depends on a dimension that is unknown while tracing {shp}. "
                               "Name the axes to remove (np.squeeze(x, axis=...)), or give "
                               "that dimension a fixed size")
        return [(tuple(d for d in shp if d != 1), dtype(inputs[0]))]
    axes = axes_tuple(attrs["axis"], len(shp))
    if any(shp[a] not in (1, None) for a in axes):
        raise static_error(ValueError, "cannot select an axis to squeeze out which has size "
                           "not equal to one")
    return [(tuple(d for i, d in enumerate(shp) if i not in axes), dtype(inputs[0]))]


@rule("expand_dims")
def expand_dims_rule(op, inputs, attrs):
    shp = shape(inputs[0])
    axis = attrs["axis"]
    count = len(axis) if isinstance(axis, (tuple, list)) else 1
    axes = axes_tuple(axis, len(shp) + count)
    rest = iter(shp)
    return [(tuple(1 if i in axes else next(rest) for i in range(len(shp) + count)),
             dtype(inputs[0]))]


@rule("broadcast_to")
def broadcast_to_rule(op, inputs, attrs):
    src, dst = shape(inputs[0]), int_tuple(attrs["shape"], "shape")
    if any(d < 0 for d in dst):
        raise static_error(ValueError, "all elements of broadcast shape must be non-negative")
    bad = len(src) > len(dst) or any(s is not None and s != 1 and s != d
                                     for s, d in zip(reversed(src), reversed(dst)))
    if bad:
        raise static_error(ValueError, f"operands could not be broadcast together with remapped "
                           f"shapes [original->remapped]: {src} and requested shape {dst}")
    return [(dst, dtype(inputs[0]))]


@rule("tril", "triu")
def tri_rule(op, inputs, attrs):
    shp = shape(inputs[0])
    if not shp:
        raise static_error(TypeError, "np.tril/np.triu need an array of at least one "
                           "dimension (tri() missing 1 required positional argument: 'N')")
    return [((shp[0], shp[0]) if len(shp) == 1 else shp, dtype(inputs[0]))]


@rule("diff")
def diff_rule(op, inputs, attrs):
    shp, dt = list(shape(inputs[0])), dtype(inputs[0])
    n = static_int(attrs.get("n", 1), "n")
    if n < 0:
        raise static_error(ValueError, f"order must be non-negative but got {n}")
    if n == 0:
        return [(tuple(shp), dt)]
    if not shp:
        raise static_error(ValueError, "diff requires input that is at least one dimensional")
    ax = axis_index(attrs.get("axis", -1), len(shp))
    extra = []
    for k in ("prepend", "append"):  # joined to `a` first, as NumPy does
        if k in attrs:
            v = np.asarray(attrs[k])
            extra.append(v.dtype)
            vs = v.shape if v.ndim else tuple(1 if i == ax else d for i, d in enumerate(shp))
            shp = list(concat_shapes([vs, tuple(shp)] if k == "prepend" else [tuple(shp), vs],
                                     ax))
    if extra:
        dt = np.result_type(dt, *extra)
    shp[ax] = None if shp[ax] is None else max(0, shp[ax] - n)
    return [(tuple(shp), dt)]


@rule("repeat")
def repeat_rule(op, inputs, attrs):
    shp = shape(inputs[0])
    reps = int_tuple(attrs["repeats"], "repeats")
    scalar = not isinstance(attrs["repeats"], (tuple, list, np.ndarray))
    axis = attrs.get("axis")
    if axis is None:
        d, out = size(shp), []
    else:
        ax = axis_index(axis, len(shp))
        d, out = shp[ax], list(shp)
    if scalar or len(reps) == 1:
        if reps[0] < 0 and d:  # (with no element to repeat NumPy does not mind)
            raise static_error(ValueError, "negative dimensions are not allowed")
        new = None if d is None else d * max(reps[0], 0)
    else:
        if d is not None and d != len(reps):
            raise static_error(ValueError, f"operands could not be broadcast together with "
                               f"shape ({d},) ({len(reps)},)")
        if any(r < 0 for r in reps):
            raise static_error(ValueError, "repeats may not contain negative values.")
        new = sum(reps)
    if axis is None:
        return [((new,), dtype(inputs[0]))]
    out[ax] = new
    return [(tuple(out), dtype(inputs[0]))]


@rule("tile")
def tile_rule(op, inputs, attrs):
    shp = shape(inputs[0])
    reps = int_tuple(attrs["reps"], "reps")
    nd = max(len(shp), len(reps))
    shp = (1,) * (nd - len(shp)) + tuple(shp)
    reps = (1,) * (nd - len(reps)) + reps
    return [(tuple(None if d is None else d * r for d, r in zip(shp, reps, strict=True)),
             dtype(inputs[0]))]


@rule("pad")
def pad_rule(op, inputs, attrs):
    shp = shape(inputs[0])
    widths = np.asarray(attrs["pad_width"])
    if widths.dtype.kind not in "iu":
        raise static_error(TypeError, "`pad_width` must be of integral type.")
    try:
        widths = np.broadcast_to(widths, (len(shp), 2))
    except ValueError:
        raise static_error(ValueError, f"operands could not be broadcast together with "
                           f"remapped shapes [original->remapped]: {np.shape(attrs['pad_width'])}"
                           f" and requested shape ({len(shp)},2)") from None
    if (widths < 0).any():
        raise static_error(ValueError, "index can't contain negative values")
    return [(tuple(None if d is None else d + int(b) + int(a)
                   for d, (b, a) in zip(shp, widths, strict=True)), dtype(inputs[0]))]


# -- joining ------------------------------------------------------------------------
def _join_dtype(name, inputs, attrs):
    if attrs.get("dtype") is not None:
        return np.dtype(attrs["dtype"])
    return result_type(*(dtype(x) for x in inputs))


def concat_shapes(shapes: list, axis) -> tuple:
    if not shapes:
        raise static_error(ValueError, "need at least one array to concatenate")
    if axis is None:
        return (dim_sum(*(size(s) for s in shapes)),)
    nd = len(shapes[0])
    if nd == 0:
        raise static_error(ValueError, "zero-dimensional arrays cannot be concatenated")
    ax = axis_index(axis, nd)
    for i, s in enumerate(shapes[1:], 1):
        if len(s) != nd:
            raise static_error(ValueError, "all the input array dimensions except for the "
                               "concatenation axis must match exactly, but along dimension 0, "
                               f"the array at index 0 has {nd} dimension(s) and the array at "
                               f"index {i} has {len(s)} dimension(s)")
    out = []
    for k in range(nd):
        dims = [s[k] for s in shapes]
        if k == ax:
            out.append(dim_sum(*dims))
            continue
        known = {d for d in dims if d is not None}
        if len(known) > 1:
            raise static_error(ValueError, "all the input array dimensions except for the "
                               f"concatenation axis must match exactly, but along dimension "
                               f"{k}, the arrays have sizes {dims}")
        out.append(known.pop() if known else None)
    return tuple(out)


@rule("concatenate")
def concatenate_rule(op, inputs, attrs):
    return [(concat_shapes([shape(x) for x in inputs], attrs.get("axis", 0)),
             _join_dtype("concatenate", inputs, attrs))]


@rule("stack")
def stack_rule(op, inputs, attrs):
    shapes = [shape(x) for x in inputs]
    if not shapes:
        raise static_error(ValueError, "need at least one array to stack")
    nd = len(shapes[0])
    if any(len(s) != nd for s in shapes):
        raise static_error(ValueError, "all input arrays must have the same shape")
    common = []
    for dims in zip(*shapes, strict=True):
        known = {d for d in dims if d is not None}
        if len(known) > 1:
            raise static_error(ValueError, "all input arrays must have the same shape")
        common.append(known.pop() if known else None)
    ax = axis_index(attrs.get("axis", 0), nd + 1)
    return [(tuple(common[:ax]) + (len(shapes),) + tuple(common[ax:]),
             _join_dtype("stack", inputs, attrs))]


def atleast(shp: tuple, n: int) -> tuple:
    """np.atleast_1d/2d/3d on a shape."""
    if len(shp) >= n:
        return shp
    if n == 1:
        return (1,)
    if n == 2:
        return (1,) + shp if shp else (1, 1)
    return {0: (1, 1, 1), 1: (1,) + shp + (1,), 2: shp + (1,)}[len(shp)]


@rule("vstack")
def vstack_rule(op, inputs, attrs):
    return [(concat_shapes([atleast(shape(x), 2) for x in inputs], 0),
             _join_dtype("vstack", inputs, attrs))]


@rule("hstack")
def hstack_rule(op, inputs, attrs):
    shapes = [atleast(shape(x), 1) for x in inputs]
    axis = 0 if shapes and len(shapes[0]) == 1 else 1
    return [(concat_shapes(shapes, axis), _join_dtype("hstack", inputs, attrs))]


@rule("column_stack")
def column_stack_rule(op, inputs, attrs):
    shapes = [shape(x) for x in inputs]
    shapes = [(1, 1) if not s else (s[0], 1) if len(s) == 1 else s for s in shapes]
    return [(concat_shapes(shapes, 1), _join_dtype("column_stack", inputs, attrs))]


for _n in (1, 2, 3):
    RULES[f"atleast_{_n}d"] = (lambda n: lambda op, ins, attrs: [(atleast(shape(ins[0]), n),
                                                                  dtype(ins[0]))])(_n)


# -- einsum ---------------------------------------------------------------------------
def _einsum_terms(subscripts: str, shapes: list):
    spec = subscripts.replace(" ", "")
    lhs, arrow, rhs = spec.partition("->")
    terms = lhs.split(",")
    if len(terms) != len(shapes):
        raise static_error(ValueError, "more operands provided to einstein sum function than "
                           "specified in the subscripts string" if len(shapes) > len(terms)
                           else "fewer operands provided to einstein sum function than "
                           "specified in the subscripts string")
    ell = 0
    for t, s in zip(terms, shapes, strict=True):
        letters = len(t.replace("...", ""))
        if "..." in t:
            ell = max(ell, len(s) - letters)
        elif letters != len(s):
            raise static_error(ValueError, f"einstein sum subscripts string contains too "
                               f"{'many' if letters > len(s) else 'few'} subscripts for "
                               "operand")
    return terms, arrow, rhs, ell


def _einsum_rule(op, inputs, attrs):
    shapes = [shape(x) for x in inputs]
    terms, arrow, rhs, ell = _einsum_terms(attrs["subscripts"], shapes)
    sizes: dict = {}
    ell_shapes = []
    for t, s in zip(terms, shapes, strict=True):
        head, _, tail = t.partition("...") if "..." in t else (t, "", "")
        n_ell = len(s) - len(head) - len(tail) if "..." in t else 0
        ell_shapes.append(s[len(head):len(head) + n_ell])
        for c, d in zip(head + tail, s[:len(head)] + s[len(head) + n_ell:], strict=True):
            have = sizes.get(c)
            if d is not None and have is not None and d != have and 1 not in (d, have):
                raise static_error(ValueError, f"operands could not be broadcast together with "
                                   f"remapped shapes; subscript '{c}' has sizes {have} and {d}")
            if c not in sizes or have == 1 or (have is None and d not in (None, 1)):
                sizes[c] = d  # a size-1 or unknown entry yields to a known one
    ell_out = broadcast_shapes(*ell_shapes) if ell else ()
    if not arrow:
        counts = {c: "".join(terms).count(c) for c in set("".join(terms).replace(".", ""))}
        rhs = "..." + "".join(sorted(c for c, k in counts.items() if k == 1))
        if not ell:
            rhs = rhs[3:]
    out, out_labels = [], rhs
    for part in rhs.partition("...") if "..." in rhs else (rhs,):
        if part == "...":
            out += list(ell_out)
        else:
            for c in part:
                if c not in sizes:
                    raise static_error(ValueError, f"einstein sum subscripts string included "
                                       f"output subscript '{c}' which never appeared in an "
                                       "input")
                out.append(sizes[c])
    dt = np.dtype(attrs["dtype"]) if attrs.get("dtype") is not None else \
        result_type(*(dtype(x) for x in inputs))
    if len(inputs) == 1 and set(terms[0]) - {"."} <= set(out_labels):
        dt = dtype(inputs[0])  # nothing summed: NumPy returns a view, keeping the dtype
    return [(tuple(out), dt)]


RULES["einsum"] = _einsum_rule
