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
(and injects its `converted` into the operators); the functions here call them
through the registry, which loads the compiler with the loader registered here.
"""
from __future__ import annotations

import os
import sys
import types
import warnings
from typing import Any, Callable, Sequence

# every trace of converted code starts here: importing the operators now rebinds a lean
# `ag__` to them before the first trace can start (pyct/lean_namespace.py)
import autograph.operators  # noqa: F401
from autograph.errors import ConversionError
from autograph.pyct import registry
from runtime import Function
from runtime.core import tracing
from runtime.core.error_index import with_error_index
from runtime.core.naming import hide_names
from runtime.frontend.function import DEFAULT_MAX_TRACES, BoundFunction

_PACKAGE_DIR = os.path.dirname(os.path.abspath(__file__)) + os.sep


def _load_compiler() -> None:
    # injection point: the only import of the compiler, on its first use (see the module
    # docstring: importing `autograph` or one of its lower layers must not load it)
    import autograph.impl.calls  # noqa: F401  (registers itself and the compiler in autograph.pyct.registry)


registry.set_compiler_loader(_load_compiler)
# the converters' own variables (namer.new: jump flags, the return value, iterators) are
# not the user's: graph listings and pictures leave them unnamed
hide_names(r"(do_return|retval_|break_|continue_|loop_ended|try_|itr)(_\d+)?")


def _convert(fn: Callable) -> Callable:
    return registry.compiler("convert")(fn, recursive=True)


def function(func: Callable | None = None, *, input_signature: Sequence | None = None,
             autograph: bool = True, reduce_retracing: bool = False, optimize: bool = True,
             jit_compile: bool = False, parallel: bool = True,
             max_traces: int | None = DEFAULT_MAX_TRACES) -> Any:
    """Decorate `func` so it is converted, traced per input signature and run as a graph.

    Usable as `@ag.function` or `@ag.function(input_signature=[...], ...)`. On the first
    call with a new signature (arrays by dtype and shape, Python values by value) the
    function's source is converted (`if`/`while`/`for` on arrays become graph control
    flow), traced into a graph, optimized and compiled into generated NumPy code; later
    calls with that signature run the compiled code. Results equal the plain Python call.

    Args:
        func: the Python function (or method) to decorate; omitted when the decorator is
            called with options only.
        input_signature: a list of `ag.TensorSpec` (nested in lists, tuples and dicts as
            the arguments are), one per parameter: one trace serves every call that fits,
            and a call that does not fit raises. `self` of a method is left out.
        autograph: convert the source (default). False traces the function as written:
            Python control flow on a symbolic value then raises `ag.GraphModeError`.
        reduce_retracing: a dimension that changes between calls becomes unknown (`None`)
            in the next trace, instead of tracing every new shape.
        optimize: run the graph optimizations (constant folding, common subexpressions,
            loop-invariant hoisting, dead code); False runs the graph as traced.
        jit_compile: compile what it can of the graph to machine code with numba (the
            `jit` extra); an op without an exact lowering runs as NumPy, with an
            `ag.JitFallbackWarning`.
        parallel: let independent heavy nodes run on the runtime's thread pool; False
            runs every node on the calling thread (`ag.set_parallel` for the process).
        max_traces: after this many traces (default 8) the Function warns once with an
            `ag.RetracingWarning` naming what keeps changing, and calls with new
            signatures run as plain Python; None means no limit.

    Returns:
        A `Function` (or, without `func`, a decorator that makes one). It has
            `python_function`, `tracing_count`, `get_concrete_function(*specs_or_args)`,
            `pretty_printed_concrete_signatures()`, and works as a method.

    Raises:
        ValueError: `max_traces` is not a positive int or None; an argument's shape
            does not fit `input_signature`.
        TypeError: an argument's dtype does not fit `input_signature`.
        ag.ConversionError: on the first call, the source cannot be converted (an
            unsupported construct, or no source), naming its file and line.

    Example:
        ```python
        import numpy as np
        import autograph as ag

        @ag.function
        def clipped_sum(x, limit):
            total = np.float32(0)
            for v in x:
                if total + v > limit:
                    break
                total += v
            return total

        x = np.float32([1, 2, 3, 4])
        clipped_sum(x, np.float32(5))  # -> np.float32(3.0)
        clipped_sum(x, np.float32(50))  # -> np.float32(10.0)
        clipped_sum.tracing_count  # -> 1
        ```
    """
    def wrap(f: Callable) -> Function:
        return Function(f, input_signature=input_signature, autograph=autograph,
                        reduce_retracing=reduce_retracing, optimize=optimize,
                        converter=_convert, jit_compile=jit_compile, parallel=parallel,
                        max_traces=max_traces)

    return wrap(func) if func is not None else wrap


@with_error_index
def to_code(fn: Callable, recursive: bool = True) -> str:
    """The converted source of `fn`: the Python AutoGraph generates, as text.

    Args:
        fn: a Python function, an `ag.function`, or a method of either (the function
            underneath is shown).
        recursive: also convert the user functions `fn` calls, as a call would (their
            code is not shown: print `to_code` of each).

    Returns:
        The source of the converted function: where the original has control flow,
            the original statement for a Python test and `ag__.if_stmt`,
            `ag__.while_stmt`, ... for a symbolic one.

    Raises:
        ag.ConversionError: `fn` has no source (a builtin, a lambda typed in a shell) or
            uses a construct AutoGraph cannot convert; the message names the line.

    Example:
        ```python
        import numpy as np
        import autograph as ag

        def relu(x):
            if x > 0:
                return x
            return np.zeros_like(x)

        print(ag.to_code(relu))
        ```

        ```output
        def relu(x):
            cond = x > 0
            if cond.__class__ is bool or not ag__.symbolic(cond):
                if cond:
                    return x
                else:
                    return np.zeros_like(x)
            else:
                def if_true():
                    return x
                def if_false():
                    return np.zeros_like(x)
                return ag__.if_stmt(cond, if_true, if_false)
        ```
    """
    return registry.compiler("to_code")(_unwrap(fn), recursive=recursive)


@with_error_index
def to_graph(fn: Callable, recursive: bool = True) -> Callable:
    """The converted Python function, without tracing: what `ag.function` would trace.

    Called with NumPy values it runs as Python and gives the original function's results;
    called while tracing it builds graph control flow.

    Args:
        fn: a Python function, an `ag.function`, or a method of either (the function
            underneath is converted, bound to the same instance for a method).
        recursive: also convert the user functions `fn` calls, when they are called.

    Returns:
        The converted function (a plain Python function).

    Raises:
        ag.ConversionError: `fn` has no source or uses a construct AutoGraph cannot
            convert; the message names the line.

    Example:
        ```python
        import numpy as np
        import autograph as ag

        def collatz_steps(n):
            steps = 0
            while n != 1:
                n = n // 2 if n % 2 == 0 else 3 * n + 1
                steps += 1
            return steps

        converted = ag.to_graph(collatz_steps)
        converted(np.int64(6)) == collatz_steps(np.int64(6))  # -> True
        ```
    """
    converted = registry.compiler("convert")(_unwrap(fn), recursive=recursive)
    if isinstance(fn, BoundFunction):
        return types.MethodType(converted, fn.instance)
    return converted


def do_not_convert(fn: Callable) -> Callable:
    """Mark `fn` so AutoGraph never converts it (nor what it calls).

    A call to `fn` from converted code then runs it as written: its Python control flow
    must not depend on symbolic values (use it for helpers that only call NumPy).

    Args:
        fn: the function to leave alone (usable as a decorator).

    Returns:
        `fn` itself, marked.

    Example:
        ```python
        import numpy as np
        import autograph as ag

        @ag.do_not_convert
        def scale(x):
            return x * 2.0

        @ag.function
        def f(x):
            return scale(x) + 1.0

        f(np.float32(1.5))  # -> np.float32(4.0)
        "scale" in ag.to_code(f)  # -> True
        ```
    """
    return registry.mark_do_not_convert(fn)


def set_loop_options(maximum_iterations: Any = None, shape_invariants: Sequence | None = None
                     ) -> None:
    """Options for the loop whose body this call is a statement of, wherever in the body.

    The converter reads them from the source (autograph/converters/directives.py) and
    removes the call; its arguments are evaluated once, before the loop starts. The options
    bound every loop they are attached to, symbolic or over Python values, so the result
    does not depend on whether a bound comes in as a Python int or an array.

    Args:
        maximum_iterations: stop the loop after at most this many iterations (an int or a
            scalar array), as `tf.while_loop` does.
        shape_invariants: a list of `(variable, shape)` pairs: a loop variable whose shape
            changes between iterations, with `None` for each dimension that changes.

    Raises:
        ag.ConversionError: when converting, for a call that is not a statement directly in
            a loop body (outside any loop, inside an `if` / `with` / `try`, used as a
            value), a second call in one loop, positional arguments, or arguments that read
            a variable the loop assigns. At run time, when the call was not lifted by the
            converter (called through another name, or in a function traced with
            `autograph=False`): it could not bound any loop.

    Warns:
        UserWarning: `maximum_iterations` given in plain Python (a function not run by
            `ag.function`), where it cannot bound the loop.

    Example:
        ```python
        import numpy as np
        import autograph as ag

        @ag.function
        def count_up(n):
            i = np.int64(0)
            while i < n:
                i += 1
                ag.set_loop_options(maximum_iterations=3)
            return i

        count_up(np.int64(10))  # -> np.int64(3)
        ```
    """
    frame = sys._getframe(1)
    while frame.f_back is not None and frame.f_code.co_filename.startswith(_PACKAGE_DIR):
        frame = frame.f_back  # the user's line, past `ag__.converted`
    where = (frame.f_code.co_filename, frame.f_lineno)
    if tracing.in_graph_mode():
        raise ConversionError(
            "set_loop_options() ran as an ordinary call, so it bounds no loop: write it as "
            "`ag.set_loop_options(...)` (not through another name), as a statement directly "
            "in the body of the loop it applies to, in a function converted by AutoGraph",
            *where)
    if maximum_iterations is not None:  # (shape invariants only constrain a graph)
        warnings.warn_explicit("ag.set_loop_options(maximum_iterations=...) has no effect "
                               "in plain Python (outside ag.function): the loop is not "
                               "bounded", UserWarning, *where)


def _unwrap(fn):
    if isinstance(fn, BoundFunction):
        return fn.function.python_function
    return fn.python_function if isinstance(fn, Function) else fn
