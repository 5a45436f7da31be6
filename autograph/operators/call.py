"""`converted`: how converted code calls functions it could not resolve statically;
`autograph_artifact`: how a module written by `autograph convert` marks its functions.

    ag__.converted(f)(x, k=2)

`converted(f)` says what to call for `f`: its converted version when `f` is user code
(recursively, cached per function), `f` itself for everything else (NumPy, builtins,
the standard library, already converted code, `ag.do_not_convert` functions), so the
call is made by the user's frame. The decision lives in the compiler
(`autograph.impl.calls`), which the operators never import: when it is imported it
injects its `converted` into the `ag__` namespace (`autograph.operators.set_converted`)
and registers it in `autograph.pyct.registry`, as `ag.function` hands its converter to
`runtime.Function`.
"""
from __future__ import annotations

from typing import Callable

from autograph.pyct.unbound import (  # noqa: F401  (re-exported: the operators' names)
    defined, dir_, ld_declared, locals_, with_locals,
)
from autograph.pyct import code_switch, registry
from runtime.core import tracing
from runtime.core.errors import TracingRecursionError, recursion_cycle


def converted(f):
    """Stands in until the compiler injects its own (converted code can run before the
    compiler was imported: a module written by `autograph convert` imports only the
    operators). While no trace is being built on any thread, nothing can be symbolic and
    every callee, converted or not, does on Python values what it does as written: `f`
    itself, so converted code that never meets a symbolic value never loads the compiler.
    Otherwise it loads the compiler through the loader `autograph.api` registered, which
    replaces this function in `ag__`, and forwards to it."""
    if not _tracing_anywhere:
        return f
    return _compiler_entry("converted")(f)


def converted_at(site, f):
    """Stands in for the compiler's call-site `converted` (`converters/fast_paths.py`)
    until the compiler is loaded, as `converted` does (the site stays empty)."""
    if not _tracing_anywhere:
        return f
    return _compiler_entry("converted_at")(site, f)


def converted_call(f, *args, **kwargs):
    """`f(*args, **kwargs)` as converted code makes it: the form modules written by earlier
    versions of `autograph convert` call."""
    return converted(f)(*args, **kwargs)


_tracing_anywhere = tracing.building  # empty while no thread builds a graph


def _compiler_entry(name: str) -> Callable:
    impl = registry.compiler(name)
    if impl is None:
        raise RuntimeError("converted code called a function, but no AutoGraph compiler is "
                           "loaded to convert it: import autograph.api (or autograph.impl.calls) "
                           "first")
    return impl


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
    the converted code again. While no trace is being built it runs its Python copy
    without asking (`pyct/code_switch.py`)."""
    code_switch.written(fn, registry.register_codes)
    return fn


slice_ = slice  # for generated code in a function where `slice` names something else
