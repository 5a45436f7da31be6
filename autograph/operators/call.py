"""`converted_call`: how converted code calls functions it could not resolve statically;
`autograph_artifact`: how a module written by `autograph convert` marks its functions.

    ag__.converted_call(f, x, k=2)

converts `f` first when it is user code (recursively, cached per function) and calls
everything else (NumPy, builtins, the standard library, already converted code,
`ag.do_not_convert` functions) as is. The decision lives in `autograph.impl.api`.
"""
from __future__ import annotations


def converted_call(f, *args, **kwargs):
    """Forwards to `autograph.impl.api.converted_call`, which binds itself in this
    module's place when imported (so a converted call costs no wrapper frame)."""
    from autograph.impl.api import converted_call as impl

    return impl(f, *args, **kwargs)


def explain_recursion(e: RecursionError) -> Exception | None:
    """A RecursionError while tracing, as an error that says why and what to do (None
    outside tracing: plain Python recursion keeps Python's own error)."""
    from runtime import tracing
    from runtime.errors import TracingRecursionError, recursion_cycle

    if not tracing.in_graph_mode() or isinstance(e, TracingRecursionError):
        return None
    cycle = recursion_cycle(e.__traceback__)
    return TracingRecursionError(
        f"Maximum recursion depth exceeded while tracing{' through ' + cycle if cycle else ''}. "
        "A recursive function whose stopping condition depends on a symbolic value cannot "
        "be traced: both branches of a symbolic `if` are traced, so the recursion never "
        "reaches its base case. Write it as a loop (`while n > 1: acc = acc * n; n = n - 1`), "
        "which AutoGraph makes a graph loop, or make the recursion depth depend on a Python "
        "value (a Python int argument). A recursion on Python values may also just be too "
        "deep for tracing, which takes several frames per level: a loop avoids that too.")


def autograph_artifact(fn):
    """Mark `fn` as already converted (a decorator `autograph convert` puts on every def it
    writes), so `converted_call` and `ag.function` run it as is instead of converting
    the converted code again."""
    from autograph.impl.api import _register_codes

    code = getattr(fn, "__code__", None)
    if code is not None:
        _register_codes(code)
    return fn


slice_ = slice  # for generated code in a function where `slice` names something else


def locals_(getters: dict) -> dict:
    """What `locals()` / `vars()` give in the user's function: `getters` maps each of its
    variables to a function reading it; unbound ones (and ones generated code marks as
    not defined yet) are left out."""
    from autograph.operators.variables import Undefined

    out = {}
    for name, get in getters.items():
        try:
            value = get()
        except NameError:  # (UnboundLocalError too) not assigned yet
            continue
        if not isinstance(value, Undefined):
            out[name] = value
    return out


def dir_(getters: dict) -> list:
    """What `dir()` gives in the user's function: the sorted names of its variables."""
    return sorted(locals_(getters))
