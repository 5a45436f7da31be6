"""How a Function's arguments meet a trace: placeholders for the array leaves of a cache
key (`_placeholders`), the arguments with those placeholders in (`_substitute`; an array
passed twice gets one placeholder for both), and the checks of an argument against an
`input_signature` entry (`_check_against_spec`)."""
from __future__ import annotations

import numpy as np

from runtime.core.graph import Graph
from runtime.frontend.signature import AliasOf, TensorSpec, is_array_part
from runtime.core.tensor import Tensor, _fmt_shape
from runtime.state.variables import Variable


class PlaceholderStream:
    """The placeholders handed out in order (`next`), remembering those given so far:
    an argument that is an earlier array (`AliasOf`) gets that one again."""

    def __init__(self, placeholders: list):
        self.placeholders = placeholders
        self.given = 0

    def __iter__(self):
        return self

    def __next__(self):
        if self.given >= len(self.placeholders):
            raise StopIteration
        self.given += 1
        return self.placeholders[self.given - 1]

    def earlier(self, index: int):
        return self.placeholders[index]


def _placeholders(graph: Graph, params, key) -> PlaceholderStream:
    """Graph inputs for every distinct array part of `key`, named after the parameters."""
    out = []

    def walk(part, name):
        if is_array_part(part):
            out.append(graph.add_input(part[1], part[0], name))
        elif part[0] in (tuple, list) and type(part[1]) is tuple:
            for i, p in enumerate(part[1]):
                walk(p, f"{name}_{i}")
        elif part[0] is dict and type(part[1]) is tuple:
            for k, p in part[1]:
                walk(p, f"{name}_{k}")
        elif isinstance(part[0], type) and hasattr(part[0], "_fields"):
            for i, p in enumerate(part[1]):
                walk(p, f"{name}_{i}")

    for p, part in zip(params, key):
        walk(part, p)
    return PlaceholderStream(out)


def _substitute(a, part, placeholders):
    """Argument `a` with each array leaf replaced by the next placeholder."""
    if is_array_part(part):
        return next(placeholders)
    if part[0] is AliasOf:
        return placeholders.earlier(part[1].index)
    t = type(a)
    if t is tuple or t is list:
        return t(_substitute(x, p, placeholders) for x, p in zip(a, part[1]))
    if t is dict:
        return {k: _substitute(a[k], p, placeholders) for k, p in part[1]}
    if isinstance(a, tuple) and hasattr(a, "_fields"):
        return t(*(_substitute(x, p, placeholders) for x, p in zip(a, part[1])))
    return a


def _same_python_value(a, b) -> bool:
    try:
        return type(a) is type(b) and bool(a == b)
    except Exception:
        return False


def _check_against_spec(fname, name, spec, a):
    if isinstance(spec, TensorSpec):
        if not isinstance(a, (np.ndarray, np.generic)):
            if isinstance(a, (Tensor, Variable)):
                raise TypeError(f"{fname}(): argument {name!r} must be a NumPy array")
            converted = np.asarray(a)
            if converted.dtype != spec.dtype and np.can_cast(converted, spec.dtype, "same_kind"):
                converted = converted.astype(spec.dtype)
            a = converted
        if a.dtype != spec.dtype:
            raise TypeError(
                f"{fname}(): argument {name!r} has dtype {a.dtype} but the input_signature "
                f"expects {spec.dtype}. Cast it with .astype(np.{spec.dtype}) before the call.")
        shape = np.shape(a)
        if len(shape) != len(spec.shape) or any(
                p is not None and p != s for s, p in zip(shape, spec.shape)):
            raise ValueError(
                f"{fname}(): argument {name!r} has shape {tuple(shape)} but the input_signature "
                f"expects {_fmt_shape(spec.shape).replace('?', 'None')} (None matches any size).")
        return a
    raise TypeError(f"{fname}(): input_signature entries must be ag.TensorSpec, got {spec!r}")
