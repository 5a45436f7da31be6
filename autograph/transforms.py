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
    """`ag.hessian(f)(*args)`: the hessian of scalar `f` with respect to argument `argnums`.

    Computed as the jacobian of the gradient (nested tapes), through `if` and loops.

    Args:
        fn: a function of arrays returning a scalar (a Python function or `ag.function`).
        argnums: the position of the argument to differentiate with respect to.

    Returns:
        An `ag.function` taking `fn`'s arguments and returning the hessian, of shape
            `x.shape + x.shape` for the argument `x`.

    Raises:
        TypeError: `argnums` is not an int.

    Example:
        ```python
        import numpy as np
        import autograph as ag

        def f(x):
            return np.sum(x ** 3)

        ag.hessian(f)(np.array([1.0, 2.0])).tolist()  # -> [[6.0, 0.0], [0.0, 12.0]]
        ```
    """
    if not isinstance(argnums, int):
        raise TypeError("ag.hessian: argnums must be one argument position (an int); take "
                        "one hessian per argument.")
    inner = _traceable(fn)

    def hessian_fn(*args):
        return hessian_of(inner, args, argnums)
    return function(_named(hessian_fn, "hessian", fn), autograph=False)


_JVPS: "weakref.WeakKeyDictionary[Any, Function]" = weakref.WeakKeyDictionary()


def jvp(fn: Callable, primals: Sequence, tangents: Sequence) -> tuple:
    """JAX's `jvp`: `(f(*primals), J(primals) @ tangents)`, forward mode.

    Derived exactly from the gradient rules (runtime/autodiff/higher_order.py).

    Args:
        fn: the function (a Python function or `ag.function`).
        primals: a tuple with one argument of `fn` each.
        tangents: a tuple with one tangent per primal, of the same shape.

    Returns:
        `(fn(*primals), the directional derivative along tangents)`.

    Raises:
        TypeError: `primals` or `tangents` is not a tuple or list.

    Example:
        ```python
        import numpy as np
        import autograph as ag

        def f(x):
            return np.sin(x) * 2.0

        value, slope = ag.jvp(f, (np.float64(0.0),), (np.float64(1.0),))
        (value, slope)  # -> (np.float64(0.0), np.float64(2.0))
        ```
    """
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
    """JAX's `vmap`: `fn`, written for one example, mapped over a batch axis.

    One batched graph, not a loop (runtime/transforms/): an op with no batching rule runs
    as a loop for that op only, with a `VmapFallbackWarning`.

    Args:
        fn: the per-example function (a Python function or `ag.function`).
        in_axes: the batch axis of each argument: an int for all, None for an argument
            that is not batched, or one entry per argument.
        out_axes: where the batch axis goes in the results: an int for all, or one
            entry per result; None for a result that does not depend on the mapped
            arguments, returned once, unbatched (as JAX does).

    Returns:
        An `ag.function` taking batched arguments.

    Raises:
        ValueError: the mapped arguments do not have the same batch size, an axis is
            out of range, or a result given out_axes=None differs between examples.

    Example:
        ```python
        import numpy as np
        import autograph as ag

        def dot(a, b):
            return np.sum(a * b)

        batched = ag.vmap(dot, in_axes=(0, None))
        batched(np.ones((3, 2)), np.array([1.0, 2.0]))  # -> array([3., 3., 3.])
        ```
    """
    inner = _traceable(fn)

    def vmapped(*args):
        return vmap_call(inner, args, in_axes, out_axes)
    return function(_named(vmapped, "vmap", fn), autograph=False)


def vectorized_map(fn: Callable, elems: Any) -> Any:
    """TensorFlow's `vectorized_map`: `fn(elem)` for each element along axis 0 of `elems`.

    The same batched graph as `ag.vmap(fn)(elems)`.

    Args:
        fn: the per-element function, taking one argument.
        elems: an array, or a structure of arrays, split along axis 0 (passed to `fn` as
            one argument).

    Returns:
        The results of `fn` for every element, stacked on axis 0.

    Raises:
        ValueError: the arrays of `elems` do not have the same length.

    Example:
        ```python
        import numpy as np
        import autograph as ag

        def share(row):
            return row / np.sum(row)

        rows = np.array([[1.0, 3.0], [2.0, 2.0]])
        ag.vectorized_map(share, rows).tolist()  # -> [[0.25, 0.75], [0.5, 0.5]]
        ```
    """
    return vmap(lambda e: fn(e) if isinstance(fn, Function) else _traceable(fn)(e))(elems)
