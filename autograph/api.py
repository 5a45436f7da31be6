"""The public entry points that tie the compiler to the runtime.

`ag.function` is `runtime.Function` with the AutoGraph converter plugged in: on the
first trace the function's source is converted (control flow → `ag__.if_stmt`,
`ag__.while_stmt`, ...), and the converted function is what gets traced.

This module is where the layers are tied together; they never import upwards
(pyct <- operators <- converters <- impl). The compiler (`autograph.impl`) is loaded on
first use, not when `autograph` is imported: importing any module of the package (the
operators alone, as a module written by `autograph convert` does) runs
`autograph/__init__.py`, and a lower layer must not load a higher one
(tests/autograph/test_structure_layers.py); it also keeps `import autograph` cheap.
When loaded, `autograph.impl.api` registers its entry points in `autograph.pyct.registry`
(and injects its `converted_call` into the operators); the functions here call them
through the registry, which loads the compiler with the loader registered here.
"""
from __future__ import annotations

import types
from typing import Callable

from autograph.pyct import registry
from runtime import Function
from runtime.frontend.function import DEFAULT_MAX_TRACES, BoundFunction


def _load_compiler() -> None:
    # injection point: the only import of the compiler, on its first use (see the module
    # docstring: importing `autograph` or one of its lower layers must not load it)
    import autograph.impl.api  # noqa: F401  (registers itself in autograph.pyct.registry)


registry.set_compiler_loader(_load_compiler)


def _convert(fn: Callable) -> Callable:
    return registry.compiler("convert")(fn, recursive=True)


def function(func: Callable | None = None, *, input_signature=None, autograph: bool = True,
             reduce_retracing: bool = False, optimize: bool = True, jit_compile: bool = False,
             parallel: bool = True, max_traces: int | None = DEFAULT_MAX_TRACES):
    """Decorate `func` so it is converted, traced per input signature and run as a graph.

    Usable as `@ag.function` or `@ag.function(input_signature=[...], ...)`.
    `jit_compile=True` compiles what it can of the graph with numba (the `jit` extra).
    `parallel=False` runs every node on the calling thread (see runtime/exec/schedule.py).
    `max_traces` (default 8): after that many traces the Function warns once, naming what
    keeps changing, and runs calls with new signatures as plain Python (None: no limit).
    """
    def wrap(f: Callable) -> Function:
        return Function(f, input_signature=input_signature, autograph=autograph,
                        reduce_retracing=reduce_retracing, optimize=optimize,
                        converter=_convert, jit_compile=jit_compile, parallel=parallel,
                        max_traces=max_traces)

    return wrap(func) if func is not None else wrap


def to_code(fn: Callable, recursive: bool = True) -> str:
    """The converted source of `fn` (and of the user functions it calls, if recursive)."""
    return registry.compiler("to_code")(_unwrap(fn), recursive=recursive)


def to_graph(fn: Callable, recursive: bool = True) -> Callable:
    """The converted Python function (no tracing): runs as Python on Python values.
    Of an `ag.function` (or one used as a method), the function underneath is converted
    (bound to the same instance for a method)."""
    converted = registry.compiler("convert")(_unwrap(fn), recursive=recursive)
    if isinstance(fn, BoundFunction):
        return types.MethodType(converted, fn.instance)
    return converted


def do_not_convert(fn: Callable) -> Callable:
    """Leave `fn` (and what it calls) unconverted."""
    return registry.mark_do_not_convert(fn)


def set_loop_options(maximum_iterations=None, shape_invariants=None) -> None:
    """Options for the enclosing loop; must be the loop body's first statement (the loop
    converter reads them from the source, autograph/converters/directives.py). Called as
    a function it does nothing."""
    return None


def _unwrap(fn):
    if isinstance(fn, BoundFunction):
        return fn.function.python_function
    return fn.python_function if isinstance(fn, Function) else fn
