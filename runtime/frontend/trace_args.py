"""How a Function's arguments meet a trace: placeholders for the array leaves of a cache
key (`_placeholders`), the arguments with those placeholders in (`_substitute`; an array
passed twice gets one placeholder for both), and the checks of an argument against an
`input_signature` entry (`check_nested`: a TensorSpec or dicts/lists/tuples of them)."""
from __future__ import annotations

import numpy as np

from runtime.autodiff.tape_values import TapeValue
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
        if type(a) is TapeValue:  # watched by an eager tape: kept (cast by a recorded op)
            if a.dtype != spec.dtype and np.can_cast(a.dtype, spec.dtype, "same_kind"):
                a = np.astype(a, spec.dtype)
        elif not isinstance(a, (np.ndarray, np.generic)):
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


def check_nested(fname, name, spec, a) -> tuple:
    """Argument `a` checked against an input_signature entry (a TensorSpec, or a dict,
    list or tuple of entries): (the argument with its arrays converted and dicts in the
    spec's key order, its cache-key part). A TensorSpec given for a spec stands for it."""
    if isinstance(spec, TensorSpec):
        if isinstance(a, TensorSpec):
            if a.dtype != spec.dtype or not _spec_fits(a.shape, spec.shape):
                raise ValueError(f"{fname}(): {a!r} for argument {name!r} does not fit "
                                 f"the input_signature's {spec!r}")
            return a, (a.dtype, a.shape)
        return _check_against_spec(fname, name, spec, a), (spec.dtype, spec.shape)
    if isinstance(spec, dict):
        if not isinstance(a, dict) or set(a) != set(spec):
            raise TypeError(f"{fname}(): argument {name!r} must be a dict with keys "
                            f"{sorted(map(repr, spec))} as in the input_signature, got {a!r}")
        pairs = [(k, check_nested(fname, f"{name}[{k!r}]", s, a[k])) for k, s in spec.items()]
        return ({k: v for k, (v, _) in pairs}, (dict, tuple((k, p) for k, (_, p) in pairs)))
    if isinstance(spec, (list, tuple)):
        if type(a) not in (list, tuple) or len(a) != len(spec):
            raise TypeError(f"{fname}(): argument {name!r} must be a list or tuple of "
                            f"{len(spec)} items as in the input_signature, got {a!r}")
        items = [check_nested(fname, f"{name}[{i}]", s, x)
                 for i, (s, x) in enumerate(zip(spec, a))]
        # the caller's container type is kept, and keyed: a list and a tuple trace apart
        return type(a)(v for v, _ in items), (type(a), tuple(p for _, p in items))
    raise TypeError(f"{fname}(): input_signature entries must be ag.TensorSpec (or dicts, "
                    f"lists or tuples of them), got {spec!r} for argument {name!r}")


def _spec_fits(shape, pattern) -> bool:
    return len(shape) == len(pattern) and all(
        p is None or s == p for s, p in zip(shape, pattern))


def method_offset(params: list, n_specs: int) -> int:
    """1 when the input_signature leaves out the `self` (or `cls`) of a method defined in
    a class body, as tf.function does; 0 otherwise."""
    return int(bool(params) and params[0] in ("self", "cls") and n_specs < len(params))
