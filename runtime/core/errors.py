"""Errors raised by the runtime, and where-in-user-code bookkeeping.

`user_origin()` walks the call stack to the first frame that is user code (not in
`runtime/`, `autograph/` or NumPy), so every graph node and error can name the user's
file and line.
"""
from __future__ import annotations

import os
import sys
from typing import NamedTuple

from runtime.core import tracing


class GraphModeError(TypeError):
    """A symbolic value was used where Python needs a concrete one (bool, int, iterator).

    Raised while tracing when code that was not converted (`autograph=False`, a
    `do_not_convert` function, a library) branches on, counts with or iterates over a
    value known only when the graph runs. The message names the line and says what to
    change: enable conversion, or use `np.where` / a Python value. A subclass of
    TypeError.

    Example:
        ```python
        import numpy as np
        import autograph as ag

        @ag.function(autograph=False)
        def relu(x):
            return x if x > 0 else 0 * x

        try:
            relu(np.float32(1))
        except ag.GraphModeError as e:
            print(type(e).__name__)  # -> GraphModeError
        ```
    """


class TracingRecursionError(GraphModeError, RecursionError):
    """Tracing recursed too deeply: a recursive function whose stopping condition is symbolic
    (both branches of a symbolic `if` are traced, so the recursion never ends)."""


class LeakedTensorError(ValueError):
    """A symbolic value used after its trace finished (kept in a global, a list outside
    the function): the compiler's error, never one a user's handler may catch."""


class StateArrayWrite(TypeError):
    """A graph value written in place into a NumPy array that is not an array of the
    trace (`self.grads["W"] += dw`). A Function whose trace reaches that array as Python
    state traces again with the array as an input, written back in place after each call;
    anywhere else this is the error the user sees."""

    def __init__(self, message: str, array):
        super().__init__(message)
        self.array = array


class Origin(NamedTuple):
    filename: str
    lineno: int
    function: str

    def __str__(self) -> str:
        return f"{self.filename}:{self.lineno}"


_RUNTIME_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
_PACKAGE_DIRS = (_RUNTIME_DIR + os.sep,
                 os.path.join(os.path.dirname(_RUNTIME_DIR), "autograph") + os.sep)
_SKIP_PREFIXES = _PACKAGE_DIRS + (os.path.dirname(os.path.abspath(__import__("numpy").__file__)),)


def _is_library_file(filename: str) -> bool:
    return filename.startswith(_SKIP_PREFIXES) or filename.startswith("<autograph-graph")


# id -> (code object, the user's function name) of a function the compiler generated
# inside a converted one (a branch, a loop body, the parts of a `try`): filtered
# tracebacks fold its frame into the enclosing function's frame, at the line it was
# running, as Python shows that frame
HELPER_CODES: dict = {}


def helper_code_owner(code) -> str | None:
    """The name of the user's function that `code` was generated inside, or None when
    `code` is not a function the compiler generated."""
    entry = HELPER_CODES.get(id(code))
    return entry[1] if entry is not None and entry[0] is code else None


def is_library_code(code) -> bool:
    """Whether a code object belongs to this project's `runtime/` or `autograph/` packages."""
    return os.path.abspath(code.co_filename).startswith(_PACKAGE_DIRS)


class CallOrigin(Origin):
    """An Origin recorded while tracing, with `outer`: the user's frames (filename,
    lineno, function), outermost first, that called the function of this line since
    the trace began. Tracebacks of an error from this node show them
    (frontend/tracebacks.py); equality, printing and saving see the Origin only."""


def user_origin() -> Origin | None:
    """The innermost stack frame that belongs to user code, or None. While tracing, the
    user frames around it are attached (`CallOrigin.outer`)."""
    frame = sys._getframe(1)
    while frame is not None:
        filename = frame.f_code.co_filename
        if not _is_library_file(os.path.abspath(filename) if not filename.startswith("<") else filename):
            state = tracing._state
            if state.entry is None:
                return Origin(filename, frame.f_lineno, frame.f_code.co_name)
            origin = CallOrigin(filename, frame.f_lineno, frame.f_code.co_name)
            origin.outer = _outer_user_frames(frame, state)
            return origin
        frame = frame.f_back
    return None


def _outer_user_frames(frame, state) -> tuple:
    """The user frames between the trace's start and `frame`, outermost first. The
    callers of a running frame stand still, so the answer is kept per frame: the next
    node recorded in the same frame does not walk the stack again."""
    last = state.calls
    if last is not None and last[0] is frame:
        return last[1]
    outer, f = [], frame.f_back
    while f is not None and f is not state.entry:
        filename = f.f_code.co_filename
        if not _is_library_file(os.path.abspath(filename) if not filename.startswith("<")
                                else filename):
            outer.append((filename, f.f_lineno, f.f_code.co_name))
        f = f.f_back
    if f is None:  # not below the trace's start (another thread's trace): unknown
        outer = []
    found = tuple(reversed(outer))
    state.calls = (frame, found)
    return found


def where() -> str:
    """' (at file:line)' for the current user frame, or '' when none is found."""
    origin = user_origin()
    return f" (at {origin})" if origin else ""


def recursion_cycle(tb, limit: int = 3) -> str:
    """The user frames a RecursionError's traceback repeats most, as 'name (file:line)'."""
    counts: dict = {}
    while tb is not None:
        code = tb.tb_frame.f_code
        path = code.co_filename if code.co_filename.startswith("<") else os.path.abspath(code.co_filename)
        if not _is_library_file(path):
            key = (code.co_name, code.co_filename, tb.tb_lineno)
            counts[key] = counts.get(key, 0) + 1
        tb = tb.tb_next
    if not counts:
        return ""
    top = max(counts.values())
    cycle = [k for k, c in counts.items() if c >= top - 1][:limit]
    return " -> ".join(f"{name} ({filename}:{line})" for name, filename, line in cycle)


def user_stacklevel() -> int:
    """`stacklevel` for warnings.warn that points at the innermost user frame."""
    frame, level = sys._getframe(1), 1
    while frame is not None:
        filename = frame.f_code.co_filename
        path = filename if filename.startswith("<") else os.path.abspath(filename)
        if not _is_library_file(path):
            return level
        frame, level = frame.f_back, level + 1
    return 1
