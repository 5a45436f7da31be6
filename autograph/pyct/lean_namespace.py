"""`ag__` before the operators are loaded: what a module written by `autograph convert`
needs outside traces, for the price of this file.

A converted module runs `__import__("autograph.impl.namespace")`, which makes this module
the builtin `ag__` while `autograph.operators` is not loaded (the operators import the
runtime and NumPy: ~380 modules). Outside traces converted code reads
`ag__.tracing_anywhere` (falsy here: each function runs its Python copy), decorates its
functions with `@ag__.autograph_artifact` (recorded in `generated_codes.py`, which the
registry reads; each top-level function and method runs its copy without asking while
no trace is being built: `code_switch.py`, which `adopt` hooks into the runtime). The Python copies read maybe-unbound variables and the user's scope
(`ld`, `with_locals`, ...: the operators' own plain-Python objects, `unbound.py`), and
where the CLI leaves a nested function without a Python copy it calls
`ag__.converted(f)` / `ag__.converted_at(site, f)` (`f` itself outside traces) and asks
`ag__.symbolic(test)` / `ag__.python_only(value)` (nothing is symbolic while no runtime
tensor type exists) and the operators of its statements (`try_stmt`, `with_manager`,
`assert_stmt`, ...: their Python paths, `plain_operators.py`, while the runtime was never
loaded). Any other attribute loads the operators (through the loader
`autograph.impl.namespace` registers) and reads it from them.

Invariant (threads included): importing `autograph.operators`, by any route, calls
`adopt` from inside that import, which points this module's `tracing_anywhere` at the
runtime's `building` list and rebinds `builtins.ag__` to the operators - so before
anything that imported them can start a trace. Every route that traces converted code
(`ag.function` and what is built on it: the transforms, the jit) goes through `autograph.api`,
which imports the operators before its first trace; a converted module imported after the
runtime was loaded loads the operators at once (`install`). Converted code reads `ag__`
from the builtins at each use, so the tracing thread's code sees the operators. Code on
another thread that read this module a moment before the rebinding runs its Python copy,
which is right: a thread that is not tracing holds no symbolic value. This module's
own `tracing_anywhere` is never appended to. The runtime imported on its own (a
`runtime.Function(..., autograph=False)` tracing converted code, without `autograph`)
is covered too: while it is not loaded, `_RuntimeWatch` sits in `sys.meta_path` and, once
the runtime's tracing module exists, asks it to call `_before_first_trace` when the first
graph starts (`BUILDING_CHANGED`, on the tracing thread, before the traced function
runs), which loads the operators.
"""
from __future__ import annotations

import builtins
import sys
from collections.abc import Callable  # (not `typing`: ~3 ms a converted module would pay)

from autograph.pyct import code_switch, plain_operators
from autograph.pyct.generated_codes import register_codes
from autograph.pyct.unbound import (  # noqa: F401  (the operators' own objects, for `ag__`)
    UNSET, Undefined, defined, dir_, ld, ld_attr, ld_declared, locals_, with_locals,
)

slice_ = slice  # (as the operators' `slice_`)

tracing_anywhere: list = []  # the runtime's `building` once the operators are loaded

_operators = None            # the `autograph.operators` module, once it was imported
_LOADER: list = []           # [how to import the operators] (`autograph.impl.namespace`)
_TENSOR_MODULE = "runtime.core.tensor"  # a symbolic value is an instance of its Tensor
_TRACING_MODULE = "runtime.core.tracing"  # no trace can start before it is loaded


def autograph_artifact(fn):
    """Record `fn`'s code as generated and give it its plain code while no trace is being
    built (as `operators.call.autograph_artifact` does: `code_switch.written`)."""
    code_switch.written(fn, register_codes)
    return fn


def converted(f):
    """`f` itself while no trace can run (as the operators' stand-in answers); once the
    runtime is loaded, by any route, the operators decide."""
    if not tracing_anywhere and _TRACING_MODULE not in sys.modules:
        return f
    return _loaded().converted(f)


def converted_at(site, f):
    if not tracing_anywhere and _TRACING_MODULE not in sys.modules:
        return f
    return _loaded().converted_at(site, f)


def symbolic(x) -> bool:
    """False while the runtime's tensor type was never loaded (nothing can be symbolic)."""
    if _operators is None and _TENSOR_MODULE not in sys.modules:
        return False
    return _loaded().symbolic(x)


def python_only(value, construct: str = "try"):
    """`value` while the runtime's tensor type was never loaded (it cannot be symbolic)."""
    if _operators is None and _TENSOR_MODULE not in sys.modules:
        return value
    return _loaded().python_only(value, construct)


def _twin(name: str, plain: Callable) -> Callable:
    """The operator `name` for converted code: its Python path (`plain_operators.py`)
    while the runtime was never loaded, the operator itself afterwards."""
    def op(*args, **kwargs):
        if _operators is None and _TRACING_MODULE not in sys.modules:
            return plain(*args, **kwargs)
        return getattr(_loaded(), name)(*args, **kwargs)
    op.__name__ = op.__qualname__ = name
    op.__doc__ = plain.__doc__
    return op


for _name in plain_operators.OPERATORS:
    globals()[_name] = _twin(_name, getattr(plain_operators, _name))
del _name


class _NoArray:
    """Stands for `numpy.ndarray` while NumPy is not loaded: no value is of this class."""


def __getattr__(name: str):
    if name.startswith("__"):  # module protocol lookups (`__path__`, `__wrapped__`...)
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    if name == "ndarray" and _operators is None and _TRACING_MODULE not in sys.modules:
        # `x.__class__ is not ag__.ndarray` reads x inline, else `array_item` (a plain
        # twin): without NumPy no value is an array, and NumPy alone needs no operators
        array = getattr(sys.modules.get("numpy"), "ndarray", None)
        if array is None:
            return _NoArray
        # (NumPy's class for good: later reads find it without this call, which a
        # generator expression's item read paid per item - 10x a digit-sum loop)
        globals()["ndarray"] = array
        return array
    return getattr(_loaded(), name)


def _loaded():
    """The operators module, importing it first (its import calls `adopt`)."""
    if _operators is None:
        for load in _LOADER:
            load()
        if _operators is None:
            raise RuntimeError("converted code needs autograph's operators, but nothing "
                               "registered how to load them: import autograph.impl.namespace")
    return _operators


def set_loader(load: Callable[[], None]) -> None:
    """Register how to import the operators (called by `autograph.impl.namespace`)."""
    _LOADER[:] = [load]


def adopt(operators, building: list) -> None:
    """Called by `autograph.operators` at the end of its import: from now on the gate reads
    the runtime's list, and converted code finds the operators as `ag__`."""
    global _operators, tracing_anywhere
    tracing_anywhere = building
    _operators = operators
    # (the functions written with their plain code switch codes from the first trace on)
    code_switch.hook(sys.modules[_TRACING_MODULE].BUILDING_CHANGED)
    if getattr(builtins, "ag__", None) is sys.modules[__name__]:
        builtins.ag__ = operators
    _WATCH.stop()


def _before_first_trace() -> None:
    if _operators is None:
        _loaded()


class _RuntimeWatch:
    """A finder that finds nothing: consulted on each import while a converted module runs
    on the lean namespace and the runtime is not loaded, it hooks `_before_first_trace`
    into the runtime's tracing module as soon as that exists, then leaves."""

    def find_spec(self, name, path=None, target=None):
        changed = getattr(sys.modules.get(_TRACING_MODULE), "BUILDING_CHANGED", None)
        if changed is not None:
            if _before_first_trace not in changed:
                changed.append(_before_first_trace)
            self.stop()
        return None

    def start(self) -> None:
        if self not in sys.meta_path:
            sys.meta_path.insert(0, self)

    def stop(self) -> None:
        try:
            sys.meta_path.remove(self)
        except ValueError:
            pass


_WATCH = _RuntimeWatch()


def install() -> None:
    """Make `ag__` a builtin: the operators when they are loaded (or the runtime is, which
    made them cheap and a trace possible), this module otherwise."""
    if _operators is None and _TRACING_MODULE in sys.modules:
        _loaded()
    if _operators is None:
        _WATCH.start()
    builtins.ag__ = _operators if _operators is not None else sys.modules[__name__]
    if _operators is not None:  # the operators finished loading on another thread meanwhile
        builtins.ag__ = _operators
        _WATCH.stop()
