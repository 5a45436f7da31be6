"""`converted_call`: how converted code calls functions it could not resolve statically;
`autograph_artifact`: how a module written by `autograph convert` marks its functions.

    ag__.converted_call(f, x, k=2)

converts `f` first when it is user code (recursively, cached per function) and calls
everything else (NumPy, builtins, the standard library, already converted code,
`ag.do_not_convert` functions) as is. The decision lives in the compiler
(`autograph.impl.api`), which the operators never import: when it is imported it
injects its `converted_call` into the `ag__` namespace
(`autograph.operators.set_converted_call`) and registers it with its other entry points
in `autograph.pyct.registry`, as `ag.function` hands its converter to `runtime.Function`.
"""
from __future__ import annotations

from typing import Callable

from autograph.operators.variables import Undefined
from autograph.pyct import registry
from runtime.core import tracing
from runtime.core.errors import TracingRecursionError, recursion_cycle


def converted_call(f, *args, **kwargs):
    """Stands in until the compiler injects its own (converted code can run before the
    compiler was imported: a module written by `autograph convert` imports only the
    operators): loads the compiler through the loader `autograph.api` registered, which
    replaces this function in `ag__`, then forwards to it."""
    impl = registry.compiler("converted_call")
    if impl is None:
        raise RuntimeError("converted code called a function, but no AutoGraph compiler is "
                           "loaded to convert it: import autograph (or autograph.impl.api) "
                           "first")
    return impl(f, *args, **kwargs)


def explain_recursion(e: RecursionError) -> Exception | None:
    """A RecursionError while tracing, as an error that says why and what to do (None
    outside tracing: plain Python recursion keeps Python's own error)."""
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
    code = getattr(fn, "__code__", None)
    if code is not None:
        registry.register_codes(code)
    return fn


slice_ = slice  # for generated code in a function where `slice` names something else


def ld_declared(getter: Callable, name: str):
    """The value of a name the function declares `global` / `nonlocal`, passed into a
    branch or loop as state: `Undefined` (not a NameError) while it is unbound - the
    original only creates it on the paths that assign it."""
    try:
        return getter()
    except NameError:
        return Undefined(name)


def defined(value) -> bool:
    """Whether a state value is a value (not `Undefined`): generated code deletes a
    `global` / `nonlocal` name it would otherwise bind to `Undefined`."""
    return type(value) is not Undefined


def locals_(getters: dict) -> dict:
    """What `locals()` / `vars()` give in the user's function: `getters` maps each of its
    variables to a function reading it; unbound ones (and ones generated code marks as
    not defined yet) are left out."""
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
