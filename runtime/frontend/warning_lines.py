"""Warnings raised while a generated executor runs are shown at the user's line.

NumPy warns from C (`divide by zero encountered in log`) with the location of the Python
frame that called it: inside a graph, the generated executor's `<autograph-graph f#1>:8`.
Python builds every warning it shows or records as a `WarningMessage` and passes it to
`warnings._showwarnmsg`; wrapping that function once moves a message from an executor
line to the line of the user's code that recorded the node (`generated_source.line_origin`),
before it is printed, recorded by `catch_warnings(record=True)` or passed to a replaced
`warnings.showwarning`. Nothing runs on a call that does not warn.

Filters and `np.errstate` decide before that, as for any warning: by category, message
and module they work as in NumPy; "once per location" (the default action) counts each
generated line, which is one operation of one trace.
"""
from __future__ import annotations

import warnings

from runtime.exec.generated_source import line_origin


def _at_user_line(show):
    def show_at_user_line(msg) -> None:
        filename = getattr(msg, "filename", None)
        if isinstance(filename, str) and filename.startswith("<autograph-graph"):
            origin = line_origin(filename, msg.lineno)
            if origin is not None:
                msg.filename, msg.lineno = origin.filename, origin.lineno
        show(msg)
    show_at_user_line.__wrapped__ = show
    return show_at_user_line


def install() -> None:
    """Wrap `warnings._showwarnmsg` (once)."""
    current = getattr(warnings, "_showwarnmsg", None)
    if current is not None and getattr(current, "__name__", "") != "show_at_user_line":
        warnings._showwarnmsg = _at_user_line(current)


install()
