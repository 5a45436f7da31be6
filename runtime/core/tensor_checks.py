"""Checks a Tensor makes of where it is used: a finished trace, a concrete value asked
for while tracing (the error that says what to change), NumPy's index tricks, and
whether the caller is the graph library or user code (which see shapes differently)."""
from __future__ import annotations

import dis
import sys

import numpy as np

from runtime.core import tracing
from runtime.core.error_index import note_error_index
from runtime.core.errors import GraphModeError, LeakedTensorError, is_library_code, user_origin
from runtime.core.tensor_text import _fmt_shape


def _check_tracing(t) -> None:
    if not tracing.in_graph_mode():
        error = LeakedTensorError(
            f"{t!r} is a symbolic value of a trace that has finished: it cannot be computed "
            "with outside that trace (it leaked out through a Python side effect such as a "
            "global list, or was read from a graph's nodes). Return values from the function "
            "instead of storing symbolic Tensors outside it.")
        note_error_index(error)  # (raised outside any entry point)
        raise error


_COMPREHENSIONS = ("<listcomp>", "<setcomp>", "<dictcomp>", "<genexpr>")


def _converting() -> bool | None:
    """Whether AutoGraph converts the function being traced (None: not known)."""
    graph = tracing.current_graph()
    while graph is not None and graph.parent is not None:
        graph = graph.parent
    return getattr(graph, "converted", None)


def _graph_mode_error(what: str, t) -> GraphModeError:
    """A symbolic value used where Python needs a concrete one: says what to change, for
    the case at hand (AutoGraph off, a comprehension's filter, code left as Python)."""
    origin = user_origin()
    at = f" (at {origin})" if origin else ""
    head = (f"Using a symbolic Tensor ({t.dtype}{_fmt_shape(t.static_shape)}) as {what} is "
            f"not allowed: its value is only known when the graph runs{at}. ")
    if origin is not None and origin.function in _COMPREHENSIONS and "bool" in what:
        fix = ("A comprehension's `if` on a symbolic value keeps a number of items known "
               "only when the graph runs: select with a boolean mask instead "
               "(`[v * 2 for v in x if v > 0]` -> `x[x > 0] * 2`).")
    elif _converting() is False:
        fix = ("Let AutoGraph convert the Python control flow (ag.function(..., "
               "autograph=True), the default), or write it with runtime.cond / "
               "runtime.while_loop.")
    elif "index" in what and _user_subscript():
        fix = ("A Python list, tuple, string or dict is indexed here by a symbolic value: "
               "its items are Python values, picked while tracing, so the index must be "
               "known then. Make the sequence an array and index that (`np.asarray(xs)[i]`; "
               "for counts or sums, start from `np.zeros(n)` and write `counts[i] += 1`, "
               "or use np.bincount / np.add.at), or select with NumPy (np.where, np.take).")
    elif "bool" in what:
        fix = ("AutoGraph is on, but this code was left as Python, so its `if`/`while`/"
               "`and`/`or` needs a Python bool: functions from installed packages, "
               "ag.do_not_convert functions and methods called by a list/dict/ndarray "
               "method name (`obj.add(x)`, `obj.sum()`) are not converted (ag.to_code(fn) "
               "shows what was). Decorate such a function or method with @ag.function to "
               "have it converted and traced inline, or compute the choice with NumPy "
               "(np.where(cond, a, b)).")
    else:
        fix = ("AutoGraph is on, but this code was left as Python (a function from an "
               "installed package, or a library that turns its arguments into Python "
               "numbers): compute with the NumPy function on the array instead (np.sqrt, "
               "np.floor, np.mean, ...), or decorate the function with @ag.function to have "
               "it converted and traced inline.")
    return GraphModeError(head + fix)


_SUBSCRIPTS = {dis.opmap[n] for n in ("BINARY_SUBSCR", "STORE_SUBSCR", "DELETE_SUBSCR",
                                     "BINARY_SLICE", "STORE_SLICE") if n in dis.opmap}


def _user_subscript() -> bool:
    """Whether the innermost user frame is running a subscript (`xs[i]`, `xs[i] = v`):
    a Python sequence's `__getitem__` asked the Tensor for `__index__`."""
    frame = sys._getframe(2)
    while frame is not None and _library_caller(frame.f_code):
        frame = frame.f_back
    if frame is None or frame.f_lasti < 0:
        return False
    return frame.f_code.co_code[frame.f_lasti] in _SUBSCRIPTS


def _index_trick_name(frame) -> str | None:
    """`np.c_` / `np.r_` when `frame` is NumPy's index-trick `__getitem__` (an error path)."""
    if not frame.f_code.co_filename.endswith("_index_tricks_impl.py"):
        return None
    obj = frame.f_locals.get("self")
    return {id(np.c_): "np.c_", id(np.r_): "np.r_"}.get(id(obj), "np.c_/np.r_")


# code objects of the graph library, which may hash Tensors (by identity), by id
_LIBRARY_CODE: dict = {}


def _library_caller(code) -> bool:
    """Whether `code` belongs to the graph library (which reads static shapes, None where
    unknown) rather than to user code (which sees symbolic dimensions)."""
    if id(code) in _LIBRARY_CODE:
        return True
    if is_library_code(code):
        _LIBRARY_CODE[id(code)] = code  # kept alive, so its id is never reused
        return True
    return False
