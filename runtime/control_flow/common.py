"""What `cond` and `while_loop` share: describing values, tracing a function into a
child graph, capturing outer values, and the checks both apply to Python numbers."""
from __future__ import annotations

from typing import Callable, Sequence

import numpy as np

from runtime.core import tracing
from runtime.state import views
from runtime.core.errors import user_origin, where
from runtime.core.graph import Graph
from runtime.ops.constant import constant
from runtime.core.structure import flatten
from runtime.core.tensor import Tensor, _fmt_shape
from runtime.core.tensor_map import TensorMap


def is_python_scalar(x) -> bool:
    return type(x) in (bool, int, float, complex)


def describe(x) -> str:
    if isinstance(x, Tensor):
        return f"{x.dtype}{_fmt_shape(x.static_shape)}"
    if isinstance(x, np.ndarray) or isinstance(x, np.generic):
        return f"{x.dtype}{_fmt_shape(x.shape)}"
    return f"the Python value {x!r}"


def aval_of(x):
    if isinstance(x, Tensor):
        return x.static_shape, x.dtype
    a = np.asarray(x)
    return a.shape, a.dtype


def check_scalar_predicate(pred, what: str):
    if pred.ndim != 0 and not all(d == 1 for d in pred.static_shape):
        raise ValueError(
            f"The {what} must be a scalar, but it is a Tensor of shape {_fmt_shape(pred.static_shape)}"
            f"{where()}. Reduce it first, e.g. with np.all(...) or np.any(...)."
        )


def trace_subgraph(name: str, fn: Callable, arg_avals: list, arg_names: list, parent: Graph):
    """Trace fn on fresh placeholders; returns (graph, output leaves, output treedef)."""
    sub = Graph(name, parent=parent)
    args = [sub.add_input(aval[0], aval[1], sub.fresh_name("a"), weak=aval[2:] == (True,))
            for aval in arg_avals]
    with tracing.graph_context(sub):
        out = fn(*args)
        leaves, tree = flatten(out)
        leaves = [views.resolve(x) for x in leaves]  # a name whose array a view wrote into
    return sub, leaves, tree


def as_value(sub: Graph, x, dtype=None):
    """Make leaf x a value of graph `sub` (capturing or materialising constants)."""
    if isinstance(x, Tensor):
        if dtype is not None and x.dtype != dtype:
            with tracing.graph_context(sub):
                return np.astype(x, dtype)
        return sub.capture(x)
    with tracing.graph_context(sub):
        value = constant(x, dtype)
    if is_python_scalar(x):
        # a Python number stays a NumPy scalar, as NumPy ops return one: a 0-d array
        # would take NumPy's slow path in every scalar op a loop runs on it
        value.node.attrs["value"] = value.node.attrs["value"][()]
    return value


def finish_captures(subs: Sequence[Graph], n_args: int) -> list[Tensor]:
    """Give every subgraph the same capture inputs; returns the outer values to pass."""
    union = TensorMap()  # by identity: Tensor == is elementwise, and Tensors are unhashable
    for sub in subs:
        for outer in sub.captures:
            union[outer] = None
    for sub in subs:
        args = sub.inputs[:n_args]
        caps = []
        for outer in union:
            inner = sub.captures.get(outer)
            if inner is None:
                inner = Tensor(sub, None, 0, outer.static_shape, outer.dtype, sub.fresh_name("c"),
                               outer.weak)
                sub.captures[outer] = inner
            caps.append(inner)
        sub.inputs = args + caps
    return list(union)


def at_user_line() -> str:
    origin = user_origin()
    return f" at {origin}" if origin else ""


def same_constant(a, b) -> bool:
    if a is b:
        return True
    if isinstance(a, (np.ndarray, np.generic)) or isinstance(b, (np.ndarray, np.generic)):
        return False
    try:
        return type(a) is type(b) and bool(a == b)
    except Exception:
        return False


def is_weak(x) -> bool:
    return isinstance(x, Tensor) and x.weak


def check_number_fits(label, number, dtype):
    """A Python number takes the other side's dtype only if it survives the cast
    (`0` fits int64 and float32; `0.5` does not fit int64: that would change the result)."""
    with np.errstate(all="ignore"):
        cast = np.asarray(number).astype(dtype)
    if not (cast == number or (number != number and cast != cast)):
        raise TypeError(
            f"{label} is the Python number {number!r} on one path but has dtype {dtype} on the "
            f"other{at_user_line()}; {number!r} does not fit {dtype}. Give both paths the same type "
            f"(e.g. write {float(number.real)!r} and cast the other value with .astype(float)).")
    return dtype
