"""`converted_call`: how converted code calls functions it could not resolve statically;
`autograph_artifact`: how a module written by `autograph convert` marks its functions.

    ag__.converted_call(f, x, k=2)

converts `f` first when it is user code (recursively, cached per function) and calls
everything else (NumPy, builtins, the standard library, already converted code,
`ag.do_not_convert` functions) as is. The decision lives in `autograph.impl.api`.
"""
from __future__ import annotations

import threading

_calls = threading.local()  # how deep converted calls are nested on this thread


def converted_call(f, *args, **kwargs):
    from autograph.impl.api import converted_call as impl

    depth = getattr(_calls, "depth", 0)
    _calls.depth = depth + 1
    try:
        return impl(f, *args, **kwargs)
    except RecursionError as e:
        # explained by the outermost call, where the stack has room again
        if depth == 0 and not isinstance(e, _recursion_error()):
            explained = _explain_recursion(e)
            if explained is not None:
                raise explained from None
        raise
    finally:
        _calls.depth = depth


def _recursion_error():
    from runtime.errors import TracingRecursionError

    return TracingRecursionError


def _explain_recursion(e: RecursionError) -> Exception | None:
    from runtime import tracing
    from runtime.errors import TracingRecursionError, recursion_cycle

    if not tracing.in_graph_mode():
        return None  # plain Python recursion: Python's own error
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
