"""Calls of random generators seen by converted code while tracing: routed to the
runtime's stateful random ops (runtime/state/random_ops.py), so that each call of the
traced function draws from the same generator eager NumPy would, in program order.

    np.random.normal(x, size=3)     -> a draw from NumPy's global RandomState
    rng.integers(0, n, size=4)      -> a draw from the user's Generator / RandomState
    rng.shuffle(x)                  -> a permutation draw, written into `x` in place
    np.random.seed(0)               -> reseeds at run time
    rng = np.random.default_rng(0)  -> a generator made again on every run

`random_call(f, args, kwargs)` returns NOT_RANDOM for every other callable; it is
called by `ag__.converted` only while tracing. `routes(f)` tells the call-tree converter
which NumPy calls resolved at conversion time must still go through `ag__.converted`.
"""
from __future__ import annotations

import functools
import sys
from typing import Any, Callable

import numpy as np

from runtime.core.errors import where
from runtime.core.tensor import Tensor
from runtime.state import random_ops
from runtime.state.random_watch import note_call

NOT_RANDOM = object()

# methods that change or read the generator without drawing numbers a graph can hold
_RESEEDING = frozenset({"seed", "set_state", "__setstate__"})
_NOT_DRAWING = frozenset({"jumped", "__getstate__", "__reduce__", "__copy__", "__deepcopy__",
                          "__repr__", "__str__"})
_REFUSED = {
    "get_state": "reads the generator's state, which each call of the graph changes; read "
                 "it outside the function",
    "spawn": "makes new generators from the generator's seed on every eager call; spawn "
             "them outside the function and pass them in",
}


def _module():
    return sys.modules.get("numpy.random")


def routes(f: Any) -> bool:
    """Whether a call of `f` is one `random_call` handles (cheap; `f` may be anything)."""
    random = _module()
    if random is None:
        return False
    owner = getattr(f, "__self__", None)
    if isinstance(owner, (random.Generator, random.RandomState)):
        return True
    try:
        return f in _module_functions(random)
    except TypeError:  # unhashable
        return False


@functools.cache
def _module_functions(random) -> dict:
    """np.random functions that are not methods of the global RandomState."""
    return {random.seed: "seed", random.ranf: "random_sample", random.sample: "random_sample",
            random.default_rng: "make", random.Generator: "make", random.RandomState: "make",
            random.MT19937: "make", random.PCG64: "make", random.PCG64DXSM: "make",
            random.Philox: "make", random.SFC64: "make"}


def random_call(f: Callable, args: tuple, kwargs: dict) -> Any:
    """The result of the call `f(*args, **kwargs)` made while tracing when `f` draws from
    or changes a random generator, else NOT_RANDOM (other calls are only noted)."""
    random = _module()
    if random is None:
        return NOT_RANDOM
    owner = getattr(f, "__self__", None)
    if isinstance(owner, (random.Generator, random.RandomState)):
        return _method_call(owner, f.__name__, args, kwargs)
    try:
        kind = _module_functions(random).get(f)
    except TypeError:
        kind = None
    if kind == "seed":
        return random_ops.call(f, args, kwargs)
    if kind == "random_sample":
        return random_ops.draw(random_ops.global_generator(), "random_sample", args, kwargs,
                               what=f"np.random.{f.__name__}")
    if kind == "make":
        return random_ops.make(f, args, kwargs)
    note_call(f)  # a method of a bit generator and the like: only noticed
    return NOT_RANDOM


def _method_call(owner, name: str, args: tuple, kwargs: dict) -> Any:
    is_global = owner is random_ops.global_generator()
    what = f"np.random.{name}" if is_global else f"{type(owner).__name__}.{name}"
    if name in _REFUSED:
        raise TypeError(f"{what}() inside a traced function{where()} {_REFUSED[name]}.")
    if name in _RESEEDING:
        return random_ops.call(getattr(owner, name), args, kwargs)
    if name in _NOT_DRAWING or name.startswith("_"):
        return NOT_RANDOM
    if name == "shuffle":
        return _shuffle(owner, what, args, kwargs)
    if name == "permutation":
        params = dict(zip(("x", "axis"), args), **kwargs)
        x, axis = params.get("x"), params.get("axis", 0)
        if isinstance(x, Tensor) and x.ndim and isinstance(axis, int):
            return random_ops.permuted_copy(owner, x, axis, what=what)  # differentiable
    return random_ops.draw(owner, name, args, kwargs, what=what)


def _shuffle(owner, what: str, args: tuple, kwargs: dict) -> None:
    params = dict(zip(("x", "axis"), args), **kwargs)
    x, axis = params.get("x"), params.get("axis", 0)
    if isinstance(x, Tensor):
        if isinstance(axis, Tensor):
            raise TypeError(f"{what}: `axis` must be a Python int in graphs{where()}")
        random_ops.shuffle_into(owner, x, axis, what=what)
        return None
    if isinstance(x, (list, np.ndarray)):
        # eagerly shuffled again on every call: shuffled once here, it would stay frozen
        source = what.rsplit(".", 1)[0] if what.startswith("np.") else "rng"
        kind = "Python list" if isinstance(x, list) else \
            "NumPy array the graph cannot write into (held by Python state)"
        raise TypeError(
            f"{what}(x) of a {kind}{where()}: the trace would shuffle it once and every "
            "call would reuse that order. Draw the order instead: "
            f"`x = np.take(x, {source}.permutation(len(x)), axis=0)` (the same numbers).")
    return NOT_RANDOM
