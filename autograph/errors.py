"""Errors raised by the compiler, and helpers that point messages at the user's line.

`ConversionError` is raised when a function cannot be converted (no source, an
unsupported construct). Errors found while tracing converted code (a variable defined
in one branch only, a non-scalar condition, a loop variable that changes type, ...)
keep the type the runtime or Python would use (ValueError / TypeError /
UnboundLocalError) and carry the user's `file:line` in their message.
"""
from __future__ import annotations

import sys


class ConversionError(Exception):
    """The source of a function cannot be converted by AutoGraph.

    Raised on the first call of an `ag.function` (or by `ag.to_code` / `ag.to_graph`)
    when the source is not available or uses a construct with no graph form. The message
    starts with the user's `file:line:` and says what to write instead; `filename`,
    `lineno`, `col` and `message` hold the parts.

    Example:
        ```python
        import autograph as ag

        try:
            ag.to_code(len)  # a builtin has no Python source
        except ag.ConversionError as e:
            print(type(e).__name__)  # -> ConversionError
        ```
    """

    def __init__(self, message: str, filename: str | None = None, lineno: int | None = None,
                 col: int | None = None):
        self.message = message      # without the `file:line: ` prefix
        self.filename = filename
        self.lineno = lineno
        self.col = col              # 0-based column, when known
        where = f"{filename}:{lineno}: " if filename and lineno else ""
        super().__init__(where + message)


class Diagnostic(ValueError):
    """A problem in the user's code found while tracing converted code (a variable defined
    in one branch only, a loop variable created inside a symbolic loop, ...). The
    message starts with the user's `file:line`."""


def caller_location(depth: int = 2) -> tuple[str, int]:
    """(filename, line) of the converted code that called the operator `depth` frames up.

    Converted code is compiled with the user's file name and line numbers, so the frame
    that called an `ag__` operator is the user's own line.
    """
    frame = sys._getframe(depth)
    return frame.f_code.co_filename, frame.f_lineno
