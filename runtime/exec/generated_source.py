"""Generated source in `linecache`, for exactly as long as the function that runs it.

Tracebacks and warnings show a generated executor's lines through `linecache`; the entry
is dropped when the function is collected (a weakref finalizer), so traces, loaded graphs
and jit kernels that are gone leave nothing behind. An executor's map from its lines to
the nodes they run lives as long, for tracebacks that show the user's line instead
(`line_origin`, used by frontend/tracebacks.py).
"""
from __future__ import annotations

import linecache
import weakref

_line_nodes: dict[str, dict] = {}  # generated filename -> {line: Node}


def register_source(filename: str, text: str) -> None:
    """Make `text` the source of `filename` for tracebacks (before it is compiled: its
    compile-time warnings show its lines too)."""
    linecache.cache[filename] = (len(text), None, text.splitlines(True), filename)


def drop_source_with(fn, filename: str, line_nodes: dict | None = None) -> None:
    """Remove `filename` from `linecache` once `fn` is collected; until then
    `line_nodes` (generated line -> graph node) answers `line_origin`."""
    if line_nodes is not None:
        _line_nodes[filename] = line_nodes
    weakref.finalize(fn, _drop, filename, linecache.cache.get(filename), line_nodes)


def line_origin(filename: str, lineno: int):
    """The user's `Origin` of the node a generated line runs, or None."""
    node = _line_nodes.get(filename, {}).get(lineno)
    return getattr(node, "origin", None)


def _drop(filename: str, entry, line_nodes) -> None:
    if linecache.cache.get(filename) is entry:  # not re-registered since
        linecache.cache.pop(filename, None)
    if line_nodes is not None and _line_nodes.get(filename) is line_nodes:
        del _line_nodes[filename]
