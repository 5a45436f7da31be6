"""Where the gradient tape hooks into reads of Variables (filled by the autodiff module).

Kept separate so that `variables.py` does not depend on the tape implementation. Hooks
are per thread: a tape open on one thread never sees another thread's reads.
"""
from __future__ import annotations

import threading

_local = threading.local()


def read_hooks() -> list:
    """This thread's read hooks (one per open tape)."""
    hooks = getattr(_local, "hooks", None)
    if hooks is None:
        hooks = _local.hooks = []
    return hooks


def on_variable_read(var, value):
    """Let active tapes watch `var`; returns the value to use."""
    hooks = getattr(_local, "hooks", None)
    if hooks:
        for hook in hooks:
            value = hook(var, value)
    return value
