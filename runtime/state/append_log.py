"""`AppendLog`: a list standing in for a list of Python state while a trace runs, when
an earlier trace only appended to it, so that appends need no guard on the list's
length (a history or a list of activations would otherwise trace again every call).

    before: self.history.append(y) -> len(self.history) guarded -> a trace per call
    after:  the second trace appends to an AppendLog; calls append, no retrace
"""
from __future__ import annotations


class AppendLogRead(BaseException):
    """Raised by an `AppendLog` the trace reads: the Function traces again with the
    list itself (a BaseException, so the function's own `except Exception` cannot
    swallow it)."""

    def __init__(self, expr: str):
        super().__init__(expr)
        self.expr = expr


class AppendLog(list):
    """A list standing in for one of the state's lists while a trace runs, when an
    earlier trace only appended to it (a history, a list of activations): such a list
    needs no guard on its length, so appends do not retrace every call. Anything but
    `append`/`extend` stops the trace (`AppendLogRead`), and the list is then traced as
    itself, guarded."""

    __slots__ = ("expr",)

    def __init__(self, items, expr: str):
        super().__init__(items)
        self.expr = expr


def _reading(name: str):
    def refuse(self, *args, **kwargs):
        raise AppendLogRead(self.expr)
    refuse.__name__ = name
    return refuse


for _name in ("__len__", "__iter__", "__getitem__", "__contains__", "__reversed__",
              "index", "count", "copy", "__eq__", "__ne__", "__lt__", "__le__", "__gt__",
              "__ge__", "__add__", "__mul__", "__rmul__", "__iadd__", "__imul__",
              "__setitem__", "__delitem__", "insert", "pop", "remove", "reverse", "sort",
              "clear", "__repr__", "__str__", "__format__", "__reduce_ex__", "__hash__",
              "__bool__", "__copy__", "__deepcopy__", "__array__"):
    setattr(AppendLog, _name, _reading(_name))


def append_logs_in(values) -> list[str]:
    """The places of the `AppendLog`s among `values` (a trace's results): a list that
    leaves the trace as a value is read."""
    return [v.expr for v in values if isinstance(v, AppendLog)]


__all__ = ["AppendLog", "AppendLogRead", "append_logs_in"]
