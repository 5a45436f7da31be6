"""Binding a call's arguments to a Function's parameters at Python's own speed.

`make_binder(fn, sig)` generates, once per Function, a small Python function with the
same parameters as the user's (names, kinds, defaults) whose body returns one value per
parameter: the canonical argument tuple cache keys are made from (`*args` as a tuple,
`**kwargs` as a dict). Python's call machinery then does the keyword, default and
`*args` binding in C, and a bad call raises Python's own `TypeError` under the user's
function name ("scale() missing 1 required positional argument: 'x'").

Also the parts of `Function.__call__`'s fast path that only some Functions take: the key
part of an object keyed by identity (`identity_part`, a method's `self`) and the fast
path under an input_signature (`call_with_specs`).
"""
from __future__ import annotations

import inspect
from typing import Callable

import numpy as np

from runtime.frontend.signature import _identity_key

_P = inspect.Parameter
_ndarray = np.ndarray
_object_hash, _object_eq = object.__hash__, object.__eq__


def make_binder(fn, sig: inspect.Signature) -> Callable[..., tuple]:
    """A function taking the parameters of `sig` and returning them as one tuple."""
    params = list(sig.parameters.values())
    names = [p.name for p in params]
    source_params: list[str] = []
    defaults: list = []
    kwdefaults: dict = {}
    star_written = False
    for i, p in enumerate(params):
        if p.kind is _P.VAR_POSITIONAL:
            source_params.append(f"*{p.name}")
            star_written = True
        elif p.kind is _P.VAR_KEYWORD:
            source_params.append(f"**{p.name}")
        elif p.kind is _P.KEYWORD_ONLY:
            if not star_written:
                source_params.append("*")
                star_written = True
            source_params.append(p.name)
            if p.default is not _P.empty:
                kwdefaults[p.name] = p.default
        else:
            source_params.append(p.name)
            if p.default is not _P.empty:
                defaults.append(p.default)
            if p.kind is _P.POSITIONAL_ONLY and (
                    i + 1 == len(params) or params[i + 1].kind is not _P.POSITIONAL_ONLY):
                source_params.append("/")
    name = getattr(fn, "__name__", "function")
    if not name.isidentifier():
        name = "function"
    returned = "".join(f"{n}, " for n in names)
    source = f"def {name}({', '.join(source_params)}):\n    return ({returned})\n"
    scope: dict = {}
    exec(compile(source, f"<arguments of {name}>", "exec"), scope)
    binder = scope[name]
    binder.__defaults__ = tuple(defaults) or None
    binder.__kwdefaults__ = kwdefaults or None
    qualname = getattr(fn, "__qualname__", name)
    binder.__qualname__ = qualname
    # Python names the function in its binding errors by the code object's qualname
    binder.__code__ = binder.__code__.replace(co_qualname=qualname) \
        if hasattr(binder.__code__, "co_qualname") else binder.__code__
    return binder


def signature_binder(sig: inspect.Signature, name: str) -> Callable[..., tuple]:
    """The slower `inspect.Signature.bind` route, for signatures no Python `def` can
    spell (a `__signature__` with parameter names that are not identifiers)."""
    def bind(*args, **kwargs):
        try:
            bound = sig.bind(*args, **kwargs)
        except TypeError as e:
            raise TypeError(f"{name}(): {e}") from None
        bound.apply_defaults()
        out = []
        for n, p in sig.parameters.items():
            v = bound.arguments[n]
            out.append(tuple(v) if p.kind is _P.VAR_POSITIONAL else
                       dict(v) if p.kind is _P.VAR_KEYWORD else v)
        return tuple(out)
    return bind


def binder_for(fn, sig: inspect.Signature) -> Callable[..., tuple]:
    """`make_binder` when the parameters can be spelled as a `def`, else `signature_binder`."""
    if all(n.isidentifier() for n in sig.parameters):
        try:
            return make_binder(fn, sig)
        except SyntaxError:
            pass
    return signature_binder(sig, getattr(fn, "__name__", "function"))


def identity_part(function, a) -> tuple:
    """The key part of an object keyed by identity (as `signature.key_of` makes it), kept
    per Function and object so that calls on the same `self` reuse it."""
    part = (type(a), _identity_key(a, True))
    if len(function._identity_parts) >= 256:  # entries of dead objects are dropped here
        function._identity_parts = {}
    function._identity_parts[id(a)] = part
    return part


def call_with_specs(function, args):
    """`Function.__call__`'s fast path under an input_signature of TensorSpecs: an array
    whose exact dtype and shape an earlier call checked against its spec takes the spec's
    key part; anything else takes the checked path (`Function._call_bound`)."""
    key, leaves = [], []
    for a, spec in zip(args, function._specs):
        t = type(a)
        if spec is not None:
            if t is not _ndarray or (a.dtype, a.shape) not in spec[1]:
                return function._call_bound(args)
            key.append(spec[0])
            leaves.append(a)
        elif t is int or t is bool or t is str or a is None:
            key.append((t, a))
        elif t.__hash__ is _object_hash and t.__eq__ is _object_eq and t.__weakrefoffset__:
            part = function._identity_parts.get(id(a))
            key.append(part if part is not None and part[1].ref() is a
                       else identity_part(function, a))
        else:
            return function._call_bound(args)
    cf = function._cache.get(tuple(key))
    if cf is not None and (cf.guard is None or cf.guard(args)):
        function._calls += 1
        try:
            return cf._fn(*leaves)
        except Exception as e:
            cf._failed(e, args)
            raise
    return function._call_bound(args)
