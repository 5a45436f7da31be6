"""What a symbolic value answers where Python would need its text or value: the errors
for `str()` / `format()` / sequence repetition, `describing()` (text that is only shown,
such as an assert's message), NumPy's answer to `x == "text"`, and the shape notation
`[2,?]` the messages use."""
from __future__ import annotations

import contextlib
import threading

import numpy as np

from runtime.core.errors import GraphModeError, where


def _fmt_shape(shape) -> str:
    return "[" + ",".join("?" if d is None else str(d) for d in shape) + "]"


def _text_error(t, how: str) -> GraphModeError:
    return GraphModeError(
        f"Converting a symbolic Tensor ({t.dtype}{_fmt_shape(t.static_shape)}) to text ({how}) is "
        f"not allowed: its digits are only known when the graph runs{where()}. Compute "
        "with arithmetic instead of on its text (n % 10, n // 10, np.log10), or pass a "
        "Python value (a Python int or str argument is a constant of the trace). To see it: "
        "print(x) while tracing shows its symbolic description (as does f'{x!r}'), "
        "ag.print(x) prints its value on every call.")


def _value_needed(t, call: str, what: str, fix: str) -> GraphModeError:
    return GraphModeError(
        f"{call} on a symbolic Tensor ({t.dtype}{_fmt_shape(t.static_shape)}) is not allowed: "
        f"{what} needs its value, which is only known when the graph runs{where()}. Instead "
        f"{fix}, or return it from the function and call {call} on the result.")


def _no_sequence_repeat(t, o) -> None:
    """`"*" * n` / `[0] * n`: a NumPy scalar repeats the sequence, which needs the count."""
    if t.ndim == 0 and isinstance(o, (str, bytes, list, tuple)):
        raise GraphModeError(
            f"Repeating a {type(o).__name__} by a symbolic count ({t.dtype}{_fmt_shape(t.static_shape)}) "
            f"is not allowed: the count is only known when the graph runs{where()}. Pass the "
            "count as a Python int (a constant of the trace), or build an array instead "
            "(np.zeros(n), np.full(n, v)).")


def _never_equal(t, ne: bool, other):
    """`x == "text"` / `x == None`: NumPy compares elementwise and finds no element equal
    (a NumPy scalar answers `== None` with a Python bool)."""
    if t.ndim == 0:
        return ne if other is None else np.bool_(ne)
    return np.full_like(t, ne, dtype=np.bool_)


_text = threading.local()


MARK = "\x02"  # brackets the number of a symbolic value in text recorded for a graph print


@contextlib.contextmanager
def recording_text():
    """Within: str() / format() of a Tensor give a marker (MARK, its number, MARK) and
    append (tensor, format spec or None for str()) to the yielded list, so text built
    from symbolic values (the f-string argument of a print) can be completed when the
    graph runs (runtime.state.printing)."""
    before = getattr(_text, "record", None)
    _text.record = record = []
    try:
        yield record
    finally:
        _text.record = before


def recorded_text(t, spec) -> str | None:
    """The marker standing for `t` in recorded text, or None when not recording."""
    record = getattr(_text, "record", None)
    if record is None:
        return None
    record.append((t, spec))
    return f"{MARK}{len(record) - 1}{MARK}"


@contextlib.contextmanager
def describing():
    """Within: str() / format() of a Tensor give its symbolic description instead of
    raising - for text that is only ever shown (an assert's message), never computed with."""
    before = getattr(_text, "describe", False)
    _text.describe = True
    try:
        yield
    finally:
        _text.describe = before
