"""Checks a Tensor makes of where it is used: a finished trace, a concrete value asked
for while tracing (the error that says what to change), NumPy's index tricks, and
whether the caller is the graph library or user code (which see shapes differently)."""
from __future__ import annotations

import numpy as np

from runtime.core import tracing
from runtime.core.errors import GraphModeError, is_library_code, where
from runtime.core.tensor_text import _fmt_shape


def _check_tracing(t) -> None:
    if not tracing.in_graph_mode():
        raise ValueError(
            f"{t!r} is a symbolic value of a trace that has finished: it cannot be computed "
            "with outside that trace (it leaked out through a Python side effect such as a "
            "global list, or was read from a graph's nodes). Return values from the function "
            "instead of storing symbolic Tensors outside it.")


def _graph_mode_error(what: str, t) -> GraphModeError:
    return GraphModeError(
        f"Using a symbolic Tensor ({t.dtype}{_fmt_shape(t.static_shape)}) as {what} is not allowed: its "
        f"value is only known when the graph runs{where()}. Let AutoGraph convert the Python "
        "control flow (ag.function(..., autograph=True), the default), or write it with "
        "runtime.cond / runtime.while_loop. If AutoGraph is already on, this code was left "
        "as Python: functions from installed packages, ag.do_not_convert functions and "
        "methods called by a list/dict/ndarray method name (`obj.add(x)`, `obj.sum()`) are "
        "not converted (ag.to_code(fn) shows what was); decorate such a method with "
        "@ag.function to have it converted and traced inline."
    )


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
