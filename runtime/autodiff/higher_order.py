"""Hessians and forward mode, built from nested GradientTapes.

- `hessian_of(fn, args, argnum)`: d2 fn / d x2 for a scalar `fn`, as the jacobian (see
  jacobians.py) of the gradient taken under an enclosing tape: shape x.shape + x.shape.
- `jvp_of(fn, primals, tangents)`: forward mode, J @ tangents, derived from the transpose
  of the gradient rules: the reverse pass `u -> vjp(u) = u^T J` is linear in the seed `u`,
  so its own gradient along the tangents, d<vjp(u), t>/du = J t, is exact (no finite
  differences) and needs only the ops' gradient rules (and theirs: every rule is written
  with differentiable NumPy calls). It costs about two reverse passes. A traced
  `while_loop` has no second-order gradient, so there J t is taken instead as the
  derivative of fn(primals + e * tangents) in the scalar e, by one reverse pass per
  output element (exact too; slower for large outputs).

Both run eagerly (tape values) and while tracing (graph nodes), like GradientTape itself.
"""
from __future__ import annotations

from typing import Any, Callable, Sequence

import numpy as np

from runtime.autodiff.tape import GradientTape, TapeValue
from runtime.core.errors import where
from runtime.core.structure import flatten, unflatten


def _is_float(value) -> bool:
    return _dtype_of(value).kind in "fc"


def _dtype_of(value) -> np.dtype:
    dtype = getattr(value, "dtype", None)  # (a dtype's truth value is its field count)
    return np.dtype(dtype) if dtype is not None else np.asarray(value).dtype


def hessian_of(fn: Callable, args: Sequence, argnum: int = 0) -> Any:
    """The hessian of scalar `fn(*args)` with respect to `args[argnum]`."""
    args = list(args)
    if not _is_float(args[argnum]):
        raise TypeError(f"hessian{where()}: argument {argnum} must be a floating-point array "
                        f"(got dtype {_dtype_of(args[argnum])}).")
    with GradientTape() as outer:
        x = outer.watch(args[argnum])
        with GradientTape() as inner:
            args[argnum] = inner.watch(x)
            y = fn(*args)
        if tuple(getattr(y, "shape", np.shape(y))) != ():
            raise ValueError(f"hessian{where()}: the function must return a scalar (got shape "
                             f"{list(np.shape(y))}); take the hessian of each output, or sum.")
        g = inner.gradient(y, args[argnum])
        if g is None:  # y does not depend on x: a zero hessian
            return np.zeros(tuple(x.shape) * 2, x.dtype)
    return _plain(outer.jacobian(g, x, unconnected_gradients="zero"))


def jvp_of(fn: Callable, primals: Sequence, tangents: Sequence) -> tuple:
    """(fn(*primals), J(primals) @ tangents) for `fn` returning an array or a structure of
    arrays (the tangents out have the same structure)."""
    primals, tangents = list(primals), list(tangents)
    if len(primals) != len(tangents):
        raise ValueError(f"jvp{where()}: {len(primals)} primals but {len(tangents)} tangents; "
                         "give one tangent per primal.")
    for i, (p, t) in enumerate(zip(primals, tangents)):
        if tuple(np.shape(t)) != tuple(np.shape(p)):
            raise ValueError(f"jvp{where()}: tangent {i} has shape {list(np.shape(t))}, its "
                             f"primal {list(np.shape(p))}; they must match.")
        if not _is_float(p):
            raise TypeError(f"jvp{where()}: primal {i} must be a floating-point array (got "
                            f"dtype {_dtype_of(p)}); integers have no tangents.")
    with GradientTape() as inner:
        xs = [inner.watch(p) for p in primals]
        out = fn(*xs)
    leaves, tree = flatten(out)
    if _traced_loop(inner):
        tangent_out = _jvp_by_rows(fn, primals, tangents, len(leaves))
    else:
        tangent_out = _jvp_by_transpose(inner, xs, leaves, tangents)
    return unflatten(tree, [_plain(y) for y in leaves]), unflatten(tree, map(_plain, tangent_out))


def _jvp_by_transpose(inner, xs, leaves, tangents) -> list:
    """J t as the gradient, along t, of the (linear) reverse pass u -> u^T J."""
    with GradientTape() as outer:
        seeds = [outer.watch(np.zeros(tuple(y.shape), y.dtype)) for y in leaves]
        vjps = inner.gradient(leaves, xs, output_gradients=seeds)
    pairs = [(v, t) for v, t in zip(vjps, tangents) if v is not None]
    if pairs:
        outs = outer.gradient([v for v, _ in pairs], seeds,
                              output_gradients=[_as_dtype(t, v.dtype) for v, t in pairs])
    else:
        outs = [None] * len(seeds)
    return [np.zeros(tuple(y.shape), y.dtype) if t is None else t
            for y, t in zip(leaves, outs)]


def _traced_loop(tape) -> bool:
    """Whether the traced computation holds a `while_loop`, whose gradient's own gradient
    is not available (so the transposed reverse pass cannot be differentiated)."""
    if tape._graph is None:
        return False  # eager: Python loops were recorded op by op
    return any(n.op.loop for node in tape._graph.nodes[tape._start:tape._stop]
               for n in [node, *(m for sub in node.subgraphs() for m in sub.walk())])


def _jvp_by_rows(fn, primals, tangents, n_out: int) -> list:
    """J t as d/de fn(primals + e * tangents) at e = 0: one reverse pass per output
    element (a jacobian with respect to the scalar e), first-order gradients only."""
    dtype = np.result_type(*[_dtype_of(p) for p in primals])
    with GradientTape(persistent=True) as tape:
        e = tape.watch(np.zeros((), dtype))
        out = fn(*[p + _as_dtype(e, _dtype_of(p)) * t for p, t in zip(primals, tangents)])
    leaves = flatten(out)[0][:n_out]
    return [np.zeros(tuple(y.shape), y.dtype) if j is None else _as_dtype(j, y.dtype)
            for y, j in ((y, tape.jacobian(y, e)) for y in leaves)]


def _as_dtype(value, dtype):
    return value if getattr(value, "dtype", None) == dtype else np.astype(value, dtype)


def _plain(value):
    """A tape value's array (a result leaves the tapes); graph values stay as they are."""
    return value.value if isinstance(value, TapeValue) else value
