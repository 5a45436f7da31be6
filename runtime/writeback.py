"""Argument write-back: a traced function that writes into an argument array
(`def f(x): x[0] = 7; ...`) changes the caller's array, as the NumPy code does.

The graph computes the argument's final value as an extra output (see
`views.written_inputs`); `writing_back` wraps the generated executor so that, after a
call, that value is copied into the caller's array. Only functions that write into an
argument pay for it (one `np.copyto` per written argument and an overlap check).
"""
from __future__ import annotations

from typing import Callable

import numpy as np


def writing_back(fn: Callable, writeback: list, name: str) -> Callable:
    """`fn` returns (results, *final values); the wrapper copies the final values into the
    argument arrays at `writeback`'s positions and returns the results."""
    positions = [k for k, _ in writeback]
    labels = dict(writeback)

    def run(*leaves):
        for k in positions:
            _check_writable(leaves, k, labels[k], name)
        out, *finals = fn(*leaves)
        for k, value in zip(positions, finals):
            np.copyto(leaves[k], value, casting="unsafe")
        return out

    run.__wrapped__ = fn
    return run


def _check_writable(leaves, k: int, label: str, name: str) -> None:
    target = leaves[k]
    if not isinstance(target, np.ndarray):
        raise TypeError(f"{name}: argument {label!r} is written into, but "
                        f"'{type(target).__name__}' object does not support item assignment")
    if not target.flags.writeable:
        raise ValueError(f"{name}: argument {label!r} is written into, but the array is "
                         "read-only (assignment destination is read-only)")
    for j, other in enumerate(leaves):
        if j != k and isinstance(other, np.ndarray) and np.may_share_memory(target, other):
            raise ValueError(
                f"{name}: argument {label!r} is written into and shares memory with another "
                f"argument (argument #{j}); the graph treats arguments as separate arrays, so "
                "it cannot show the write through the other one. Pass a copy (`x.copy()`) "
                "for one of them.")
