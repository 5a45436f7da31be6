"""User-facing errors of the command line, printed without a Python traceback.

`UserError` (exit code 1) is a problem with the input: it prints as

    demo.py:3:12: syntax error: invalid syntax
        if x > :
               ^

when it has a location, else as one line; one of the project's errors adds a last line
`see docs/errors.md#... for the cause and the fix`. `UsageError` (exit code 2) is a bad command
line. `from_exception` turns a SyntaxError, a ConversionError or an exception raised by
the user's code (while importing or tracing it) into a `UserError` that points at the
user's line.
"""
from __future__ import annotations

import linecache
import os
import re
import traceback

import numpy

import autograph
import runtime
from autograph.errors import ConversionError
from runtime.core.error_index import link

_LOCATION = re.compile(r"^(?P<file>[^\n]+?):(?P<line>\d+): (?P<rest>.*)$", re.S)
_AT = re.compile(r" \(at (?P<file>[^()\s]+):(?P<line>\d+)\)")
_PACKAGE_DIRS = tuple(os.path.dirname(os.path.abspath(m.__file__)) + os.sep
                      for m in (autograph, runtime, numpy))


class UsageError(Exception):
    """A bad command line (exit code 2)."""


class UserError(Exception):
    """A problem with the user's input (exit code 1), with an optional location.

    `col` and `end_col` are 1-based character columns (`end_col` exclusive)."""

    def __init__(self, message: str, filename: str | None = None, lineno: int | None = None,
                 col: int | None = None, end_col: int | None = None,
                 line_text: str | None = None):
        super().__init__(message)
        self.message = message
        self.filename = filename
        self.lineno = lineno
        self.col = col
        self.end_col = end_col
        self.line_text = line_text
        self.see: str | None = None  # the entry of the error index (docs/errors.md#...)

    def format(self) -> str:
        text = self._located()
        return f"{text}\n    see {self.see} for the cause and the fix" if self.see else text

    def _located(self) -> str:
        if not (self.filename and self.lineno):
            return self.message
        line = self.line_text
        if line is None:
            line = linecache.getline(self.filename, self.lineno)
        line = line.split("\n")[0].rstrip("\r") if line else ""
        indent = len(line) - len(line.lstrip())
        col = self.col if self.col and self.col > 0 else indent + 1
        text = f"{display_path(self.filename)}:{self.lineno}:{col}: {self.message}"
        if not line.strip():
            return text
        stripped = line.strip()
        start = max(col - 1 - indent, 0)
        width = 1
        if self.end_col and self.end_col > col:
            width = min(self.end_col - col, max(len(stripped) - start, 1))
        return f"{text}\n    {stripped}\n    {' ' * start}{'^' * width}"


def display_path(path: str) -> str:
    """`path` relative to the working directory when it is inside it."""
    if os.path.isabs(path):
        rel = os.path.relpath(path)
        if not rel.startswith(os.pardir):
            return rel
    return path


def char_col(line: str, byte_col: int | None) -> int | None:
    """The 1-based character column of a 0-based UTF-8 byte offset into `line`."""
    if byte_col is None:
        return None
    return len(line.encode("utf-8")[:byte_col].decode("utf-8", errors="replace")) + 1


def from_syntax_error(e: SyntaxError, lines: list[str] | None = None) -> UserError:
    text = e.text
    if lines is not None and e.lineno and 0 < e.lineno <= len(lines):
        text = lines[e.lineno - 1]
    end = e.end_offset if getattr(e, "end_lineno", None) == e.lineno else None
    kind = "indentation error" if isinstance(e, IndentationError) else "syntax error"
    return UserError(f"{kind}: {e.msg}", e.filename, e.lineno, e.offset, end, text)


def from_conversion_error(e, lines: list[str] | None = None) -> UserError:
    text = None
    if lines is not None and e.lineno and 0 < e.lineno <= len(lines):
        text = lines[e.lineno - 1]
    col = char_col(text, e.col) if text is not None else None
    error = UserError(f"cannot convert: {e.message}", e.filename, e.lineno, col,
                      line_text=text)
    error.see = link(type(e))
    return error


def _is_user_frame(filename: str) -> bool:
    path = os.path.abspath(filename)
    return not filename.startswith("<") and not path.startswith(_PACKAGE_DIRS) and \
        f"{os.sep}lib{os.sep}python" not in path


def _without_location(text: str, filename: str, lineno: int) -> str:
    """`text` without the " (at FILE:LINE)" that repeats the location it is printed at."""
    def drop(m: re.Match) -> str:
        same = int(m["line"]) == lineno and os.path.exists(m["file"]) and \
            os.path.exists(filename) and os.path.samefile(m["file"], filename)
        return "" if same else m.group(0)
    return _AT.sub(drop, text)


def from_exception(e: BaseException, what: str = "") -> UserError:
    """A UserError for an exception raised by (or while tracing) the user's code; for
    one of the project's errors, with the link to its entry in the error index."""
    error = _from_exception(e, what)
    error.see = error.see or link(type(e))
    return error


def _from_exception(e: BaseException, what: str) -> UserError:
    if isinstance(e, SyntaxError):
        return from_syntax_error(e)
    suffix = f" ({what})" if what else ""
    if isinstance(e, ConversionError) and e.filename and e.lineno:
        return from_conversion_error(e, linecache.getlines(e.filename) or None)
    message = str(e)
    m = _LOCATION.match(message)
    if m and os.path.exists(m["file"]):  # errors that already name the user's line
        kind = "" if type(e).__name__ == "Diagnostic" else f"{type(e).__name__}: "
        rest = _without_location(m["rest"], m["file"], int(m["line"]))
        return UserError(f"{kind}{rest}{suffix}", m["file"], int(m["line"]))
    frames = [f for f in traceback.extract_tb(e.__traceback__) if _is_user_frame(f.filename)]
    text = f"{type(e).__name__}: {message}{suffix}" if message else type(e).__name__ + suffix
    if not frames:
        return UserError(text)
    f = frames[-1]
    text = _without_location(text, f.filename, f.lineno)
    line = linecache.getline(f.filename, f.lineno)
    col = char_col(line, getattr(f, "colno", None))
    end = char_col(line, getattr(f, "end_colno", None)) \
        if getattr(f, "end_lineno", f.lineno) == f.lineno else None
    return UserError(text, f.filename, f.lineno, col, end, line)
