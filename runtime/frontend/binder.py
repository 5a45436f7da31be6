"""Binding a call's arguments to a Function's parameters at Python's own speed.

`make_binder(fn, sig)` generates, once per Function, a small Python function with the
same parameters as the user's (names, kinds, defaults) whose body returns one value per
parameter: the canonical argument tuple cache keys are made from (`*args` as a tuple,
`**kwargs` as a dict). Python's call machinery then does the keyword, default and
`*args` binding in C, and a bad call raises Python's own `TypeError` under the user's
function name ("scale() missing 1 required positional argument: 'x'").

`call_path.py` generates the same kind of function with the whole call path in it; this
binder serves the other entries (`get_concrete_function`, a ConcreteFunction's call).
"""
from __future__ import annotations

import inspect
from typing import Callable

_P = inspect.Parameter


def def_parameters(sig: inspect.Signature) -> tuple[list[str], list, dict]:
    """The parameter list of a `def` with the parameters of `sig` (as source), its
    positional defaults and its keyword-only defaults."""
    params = list(sig.parameters.values())
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
    return source_params, defaults, kwdefaults


def make_binder(fn, sig: inspect.Signature) -> Callable[..., tuple]:
    """A function taking the parameters of `sig` and returning them as one tuple."""
    names = list(sig.parameters)
    source_params, defaults, kwdefaults = def_parameters(sig)
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
