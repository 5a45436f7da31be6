"""Run-time checks that raise the exception Python would raise: `check(ok, error, message)`.

Python raises `ValueError` for `range(a, b, 0)` and for `round(nan)`; when the value is
symbolic that can only be decided when the graph runs, so the check is a graph node
(an effect: it runs on every call, in program order, even when nothing uses it) that
raises `error(message)` when `ok` is false. The message names the user's file:line.
"""
from __future__ import annotations

import builtins

import numpy as np

from runtime.core.errors import user_origin
from runtime.core.registry import OpDef, bind
from runtime.core.protocol import TensorProtocol
from runtime.core.tensor import Tensor

# the exceptions a check may raise, by name (graph attributes stay plain data)
ERRORS = ("ValueError", "OverflowError", "TypeError", "IndexError", "ZeroDivisionError")


def _check_kernel(ok, *, error, message):
    if not np.all(ok):
        raise getattr(builtins, error)(message)


CHECK = OpDef("check", _check_kernel, lambda op, ins, attrs: [], num_outputs=0, stateful=True,
              effect=True)


def check(ok, error: str, message: str) -> None:
    """Raise `error(message)` where `ok` is false: now for a Python / NumPy value (Python's
    own message), at graph run time for a symbolic one (with the user's file:line)."""
    if error not in ERRORS:
        raise ValueError(f"check(): error must be one of {ERRORS}, not {error!r}")
    if not isinstance(ok, Tensor):
        if not np.all(ok):
            raise getattr(builtins, error)(message)
        return
    origin = user_origin()
    bind(CHECK, ok, error=error, message=message if origin is None else f"{message} (at {origin})")


TensorProtocol.check = check
