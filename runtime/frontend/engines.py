"""Slots for the engines of the layers above `frontend`, filled when those layers load.

`jit`, `saved` and `onnx_export` sit above `frontend`, so `function.py` never imports
them: each registers what a `Function` may hand work to, at import time.

- "jit": `runtime.jit.lower(graph, name)`, for `jit_compile=True` (runtime/jit/__init__.py)
- "onnx": `runtime.onnx_export.to_onnx(cf, **options)`, for `ConcreteFunction.to_onnx()`
  (runtime/onnx_export/__init__.py)

`runtime/__init__.py` imports both packages, so `import runtime` fills both slots; both
stay cheap to import (numba and onnx load only when an engine runs).
"""
from __future__ import annotations

from typing import Callable

# engine name -> callable; filled by the modules named above when they load
ENGINES: dict[str, Callable] = {}

_PROVIDERS = {"jit": "runtime.jit", "onnx": "runtime.onnx_export"}


def register_engine(name: str, fn: Callable) -> None:
    """Make `fn` the engine `name` ("jit" or "onnx"); called by the module providing it."""
    if name not in _PROVIDERS:
        raise ValueError(f"unknown engine {name!r}; expected one of {sorted(_PROVIDERS)}")
    ENGINES[name] = fn


def engine(name: str, what: str) -> Callable:
    """The registered engine `name`, or a clear error saying which module provides it."""
    fn = ENGINES.get(name)
    if fn is None:
        raise RuntimeError(
            f"{what} needs {_PROVIDERS[name]}, which registers itself when it is imported "
            f"and has not been: `import runtime` (or `import {_PROVIDERS[name]}`) first.")
    return fn
