"""Marks and registries every layer of the compiler shares, kept at the bottom layer so
that none of them imports a higher one (pyct <- operators <- converters <- impl):

- the code objects the compiler generated (`register_codes` / `is_generated_code`, the
  registry itself in `generated_codes.py`): `ag__.converted` runs them as is, the
  operators recognise a user's `raise` in them;
- the do-not-convert mark `ag.do_not_convert` puts on a function;
- `is_convertible`: whether converted code converts a callee before calling it (the call
  converter asks it at conversion time, `ag__.converted` at run time);
- the compiler's entry points (`convert`, `to_code`, `converted`), which
  `autograph.impl.api` registers when it is imported (`set_compiler`), and how to load
  it when they are needed before it was imported (`compiler`): `autograph.api`, which
  ties the layers together, registers the loader; the compiler is loaded on first use,
  and converted code can run before that (a module written by `autograph convert`
  starts on the lean namespace, `lean_namespace.py`).
"""
from __future__ import annotations

import functools
import inspect
import sysconfig
import types
from typing import Callable

# the registry of generated codes lives below everything (a converted module fills it
# before anything else is loaded); the layers above read it here
from autograph.pyct.generated_codes import (  # noqa: F401  (re-exported)
    CONVERTED_CODES, IN_CONVERTED_CLASSES, register_codes,
)

DO_NOT_CONVERT_ATTR = "__ag_do_not_convert__"

_SKIP_MODULES = ("numpy", "runtime", "autograph", "gast", "builtins", "functools",
                 "typing", "pytest", "_pytest")
_SKIP_DIRS = tuple({sysconfig.get_paths()[k] for k in ("stdlib", "platstdlib", "purelib",
                                                        "platlib")})
_NOT_CONVERTIBLE_FLAGS = inspect.CO_GENERATOR | inspect.CO_COROUTINE | \
    inspect.CO_ASYNC_GENERATOR | inspect.CO_ITERABLE_COROUTINE


def is_defined_in_converted_class(code) -> bool:
    """Whether `code` is a function of a class body that converted code defines."""
    return IN_CONVERTED_CLASSES.get(id(code)) is code


def is_generated_code(code) -> bool:
    """Whether `code` is a code object the compiler generated."""
    return CONVERTED_CODES.get(id(code)) is code


def is_marked_do_not_convert(obj) -> bool:
    return bool(getattr(obj, DO_NOT_CONVERT_ATTR, False))


ON_MARK: list = []  # called when a function is marked not to convert (impl/api.py)


def mark_do_not_convert(fn: Callable) -> Callable:
    """Mark `fn` (or a wrapper of it, when it takes no attributes) as not to convert."""
    target = fn.__func__ if isinstance(fn, types.MethodType) else fn
    for forget in ON_MARK:  # caches of what converted code calls (call sites)
        forget()
    try:
        setattr(target, DO_NOT_CONVERT_ATTR, True)
        return fn
    except (AttributeError, TypeError):
        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            return fn(*args, **kwargs)
        setattr(wrapper, DO_NOT_CONVERT_ATTR, True)
        return wrapper


def plain_function(f) -> types.FunctionType | None:
    """The Python function behind f (method, partial), or None."""
    while True:
        if isinstance(f, types.MethodType):
            f = f.__func__
        elif isinstance(f, functools.partial):
            f = f.func
        else:
            break
    return f if isinstance(f, types.FunctionType) else None


def is_convertible(f) -> bool:
    """Whether converted code should convert `f` before calling it."""
    fn = plain_function(f)
    if fn is None:
        call = None if isinstance(f, type) else next(
            (c.__dict__["__call__"] for c in type(f).__mro__ if "__call__" in c.__dict__), None)
        if not isinstance(call, types.FunctionType):
            return False
        fn = call
    if is_marked_do_not_convert(fn) or is_marked_do_not_convert(f):
        return False
    code = fn.__code__
    if is_generated_code(code) or code.co_flags & _NOT_CONVERTIBLE_FLAGS:
        return False
    module = (getattr(fn, "__module__", None) or "").split(".")[0]
    if module in _SKIP_MODULES:
        return False
    return not code.co_filename.startswith(_SKIP_DIRS)


_COMPILER: dict = {}         # entry point name -> function, set by `autograph.impl.api`
_COMPILER_LOADER: list = []  # [loader] once `autograph.api` registered it


def set_compiler(**entry_points: Callable) -> None:
    """Register the compiler's entry points (called by `autograph.impl.api` when it is
    imported): `convert`, `to_code`, `converted`."""
    _COMPILER.update(entry_points)


def set_compiler_loader(load: Callable[[], None]) -> None:
    """Register how to load the compiler (called once by `autograph.api`)."""
    _COMPILER_LOADER[:] = [load]


def compiler(name: str) -> Callable | None:
    """The compiler's entry point `name`, loading the compiler first (through the loader
    `autograph.api` registered) when it is not loaded yet; None without a loader."""
    entry = _COMPILER.get(name)
    if entry is None:
        for load in _COMPILER_LOADER:
            load()
        entry = _COMPILER.get(name)
    return entry
