"""Function transformations: `ag.hessian(f)`, `ag.jvp(f, primals, tangents)`,
`ag.vmap(f)` and `ag.vectorized_map(f, elems)`.

Each wraps the user's function (converted by AutoGraph, so its `if`/`while` on arrays
become `cond`/`while_loop`) in an `ag.function` whose body applies the runtime's
transformation (runtime/autodiff/higher_order.py, runtime/autodiff/batching.py). Called
eagerly, the transformed function is traced and run as a graph, cached per input
signature; called inside another `ag.function` it is traced inline; with
`ag.run_functions_eagerly(True)` it runs as plain Python on NumPy values (eager tapes),
which tests compare with the graph.
"""
from __future__ import annotations

import types
import weakref
from typing import Any, Callable, Sequence

from autograph.api import _convert, function
from runtime import Function
from runtime.autodiff.higher_order import hessian_of, jvp_of
from runtime.transforms import vmap_call


def _traceable(fn: Callable) -> Callable:
    """What the transformation calls: an ag.function as is (it converts itself and traces
    inline), anything else converted once, on first use."""
    if isinstance(fn, Function) or not isinstance(fn, (types.FunctionType, types.MethodType)):
        return fn  # an ag.function, a ufunc or another callable: called as it is
    converted = []

    def call(*args, **kwargs):
        if not converted:
            converted.append(_convert(fn))
        return converted[0](*args, **kwargs)
    return call


def _named(wrapper: Callable, prefix: str, fn: Callable) -> Callable:
    wrapper.__name__ = f"{prefix}_{getattr(fn, '__name__', 'fn')}"
    wrapper.__qualname__ = wrapper.__name__
    return wrapper


def hessian(fn: Callable, argnums: int = 0) -> Function:
    """`ag.hessian(f)(*args)`: the hessian of scalar `f` with respect to argument `argnums`
    (shape x.shape + x.shape), by a jacobian of the gradient (nested tapes)."""
    if not isinstance(argnums, int):
        raise TypeError("ag.hessian: argnums must be one argument position (an int); take "
                        "one hessian per argument.")
    inner = _traceable(fn)

    def hessian_fn(*args):
        return hessian_of(inner, args, argnums)
    return function(_named(hessian_fn, "hessian", fn), autograph=False)


_JVPS: "weakref.WeakKeyDictionary[Any, Function]" = weakref.WeakKeyDictionary()


def jvp(fn: Callable, primals: Sequence, tangents: Sequence) -> tuple:
    """JAX's `jvp`: `(f(*primals), J(primals) @ tangents)`, one tangent per primal (forward
    mode, derived exactly from the gradient rules: see runtime/autodiff/higher_order.py)."""
    if not isinstance(primals, (tuple, list)) or not isinstance(tangents, (tuple, list)):
        raise TypeError("ag.jvp(f, primals, tangents): primals and tangents must be tuples "
                        "(one entry per argument of f), as in jax.jvp.")
    try:
        jvp_fn = _JVPS.get(fn)
    except TypeError:  # not weakly referable: no cache
        jvp_fn = None
    if jvp_fn is None:
        inner = _traceable(fn)

        def jvp_call(primals, tangents):
            return jvp_of(inner, primals, tangents)
        jvp_fn = function(_named(jvp_call, "jvp", fn), autograph=False)
        try:
            _JVPS[fn] = jvp_fn
        except TypeError:
            pass
    return jvp_fn(tuple(primals), tuple(tangents))


def vmap(fn: Callable, in_axes: Any = 0, out_axes: Any = 0) -> Function:
    """JAX's `vmap`: `fn`, written for one example, mapped over axis `in_axes` of its
    arguments (an int, None for an unmapped argument, or one entry per argument); results
    are stacked on `out_axes`. One batched graph, not a loop: see runtime/transforms/."""
    inner = _traceable(fn)

    def vmapped(*args):
        return vmap_call(inner, args, in_axes, out_axes)
    return function(_named(vmapped, "vmap", fn), autograph=False)


def vectorized_map(fn: Callable, elems: Any) -> Any:
    """TensorFlow's `vectorized_map`: `fn(elem)` for each element along axis 0 of `elems`
    (an array or a structure of arrays, passed to `fn` as one argument), stacked."""
    return vmap(lambda e: fn(e) if isinstance(fn, Function) else _traceable(fn)(e))(elems)
