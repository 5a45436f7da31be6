"""Tracebacks of errors raised out of a Function: the user's frames, not the project's.

An error from a call (while tracing, or while the generated executor runs) passes
through many frames of `runtime/` and `autograph/`. At the public boundary
(`Function.__call__`, on its error path only) `filter_traceback` rebuilds the
exception's `__traceback__` (and those of its `__cause__`/`__context__`) keeping:

- frames of user code, including converted code, which carries the user's file and
  lines, and frames of other libraries (NumPy) the failing operation ran in;
- in place of a generated executor's frame, frames at the user's lines that recorded
  the failing node while tracing (`generated_source.line_origin`): the user's calls
  that led there (`errors.CallOrigin.outer`), then the node's own line.

The exception object, its type, message, notes and `__cause__` are left as they are,
but for one note added to the project's own errors: the link to their entry in the
error index (core/error_index.py), with filtering on or off.
`set_traceback_filtering(False)` keeps every frame (for debugging autograph itself).
"""
from __future__ import annotations

import sys
import types

from runtime.core.error_index import note_error_index
from runtime.core.errors import helper_code_owner, is_library_code
from runtime.exec.generated_source import line_origin

_enabled = [True]


def set_traceback_filtering(enabled: bool) -> None:
    """Choose whether tracebacks of errors raised by a Function hide autograph's frames.

    With filtering on (the default), an error raised while a Function traces or runs
    shows the frames of your code and of the libraries it called (NumPy); the frames
    of `autograph/` and `runtime/` are left out, and an operation that failed while the
    graph ran shows as a frame at the line that wrote it. The exception itself (type,
    message, notes, `__cause__`) is the same either way.

    Args:
        enabled: True to hide autograph's frames, False to show every frame (to debug
            autograph itself, or to attach a bug report).

    Example:
        ```python
        import autograph as ag

        ag.set_traceback_filtering(False)   # every frame, autograph's included
        ag.traceback_filtering()  # -> False
        ag.set_traceback_filtering(True)    # back to the default
        ```
    """
    _enabled[0] = bool(enabled)


def traceback_filtering() -> bool:
    """Whether tracebacks of errors raised by a Function hide autograph's frames.

    Returns:
        True (the default) when they are hidden; see `set_traceback_filtering`.

    Example:
        ```python
        import autograph as ag

        ag.traceback_filtering()  # -> True
        ```
    """
    return _enabled[0]


class _Marker(Exception):
    pass


def _user_line_tb(filename: str, lineno: int, name: str) -> types.TracebackType | None:
    """A traceback entry whose frame shows `filename:lineno` in `name`: the line that
    recorded a node of a graph, standing in for the executor's frame."""
    # the raise spans two lines so that tracebacks print the user's line without carets
    source = "\n" * (max(lineno, 1) - 1) + "raise (\n_marker)"
    try:
        code = compile(source, filename, "exec")
        code = code.replace(co_name=name, co_qualname=name) if sys.version_info >= (3, 11) \
            else code.replace(co_name=name)
        exec(code, {"__name__": "__autograph_graph__", "_marker": _Marker})
    except _Marker as e:
        return e.__traceback__.tb_next
    except Exception:  # noqa: BLE001  (an origin that cannot be shown: leave it out)
        return None
    return None


def _is_project_frame(code) -> bool:
    return is_library_code(code) or code.co_filename.startswith("<autograph-")


def _filtered(tb: types.TracebackType | None) -> types.TracebackType | None:
    kept: list[types.TracebackType] = []
    while tb is not None:
        code = tb.tb_frame.f_code
        if code.co_filename.startswith("<autograph-graph"):
            origin = line_origin(code.co_filename, tb.tb_lineno)
            if origin is not None:
                # the user's calls that led to the line, then the line itself
                for filename, lineno, name in (*getattr(origin, "outer", ()), origin):
                    fake = _user_line_tb(filename, lineno, name)
                    if fake is not None:
                        kept.append(fake)
        elif helper_code_owner(code) is not None:
            # the enclosing function's frame, at the line the helper ran
            if kept and kept[-1].tb_frame.f_code.co_name == helper_code_owner(code):
                kept.pop()
            fake = _user_line_tb(code.co_filename, tb.tb_lineno, helper_code_owner(code))
            kept.append(fake if fake is not None else tb)
        elif not _is_project_frame(code):
            kept.append(tb)
        tb = tb.tb_next
    head = None
    for entry in reversed(kept):  # new entries: the originals may be shared
        head = types.TracebackType(head, entry.tb_frame, entry.tb_lasti, entry.tb_lineno)
    return head


def filter_traceback(error: BaseException) -> None:
    """Ready `error` to leave a Function (in place): drop the project's frames from its
    traceback and those of the exceptions it chains to, unless filtering is off, and add
    the note linking one of the project's errors to its entry in the error index."""
    note_error_index(error)
    if not _enabled[0]:
        return
    pending, seen = [error], set()
    while pending:
        e = pending.pop()
        if e is None or id(e) in seen:
            continue
        seen.add(id(e))
        if e.__traceback__ is not None:
            # nothing but project frames (an internal error): keep them all
            e.__traceback__ = _filtered(e.__traceback__) or e.__traceback__
        pending += [e.__cause__, e.__context__]
