"""Where the gradient tape hooks into reads of Variables (filled by the autodiff module).

Kept separate so that `variables.py` does not depend on the tape implementation.
"""
from __future__ import annotations

_read_hooks: list = []


def on_variable_read(var, value):
    """Let active tapes watch `var`; returns the value to use."""
    for hook in _read_hooks:
        value = hook(var, value)
    return value
