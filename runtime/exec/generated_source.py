"""Generated source in `linecache`, for exactly as long as the function that runs it.

Tracebacks and warnings show a generated executor's lines through `linecache`; the entry
is dropped when the function is collected (a weakref finalizer), so traces, loaded graphs
and jit kernels that are gone leave nothing behind.
"""
from __future__ import annotations

import linecache
import weakref


def register_source(filename: str, text: str) -> None:
    """Make `text` the source of `filename` for tracebacks (before it is compiled: its
    compile-time warnings show its lines too)."""
    linecache.cache[filename] = (len(text), None, text.splitlines(True), filename)


def drop_source_with(fn, filename: str) -> None:
    """Remove `filename` from `linecache` once `fn` is collected."""
    weakref.finalize(fn, _drop, filename, linecache.cache.get(filename))


def _drop(filename: str, entry) -> None:
    if linecache.cache.get(filename) is entry:  # not re-registered since
        linecache.cache.pop(filename, None)
