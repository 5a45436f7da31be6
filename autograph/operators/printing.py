"""`print_`: Python's `print` in converted code.

The call converter rewrites `print(...)` to `ag__.print_(...)` when the name is the
builtin (and `ag__.converted` routes the builtin reached any other way here too). With no
symbolic value among the arguments (or nested in a list / tuple / dict argument) it *is*
`print`: same text, same errors, run when the Python runs (only while tracing, in a
graph). With one - or inside a symbolic `if` or loop, where Python's print would run
once while tracing, even in a branch the inputs never take - it becomes a graph print
(`runtime.state.printing`, what `ag.print` uses): it runs every time the graph runs, in
program order, and prints the text Python's print prints for the same NumPy values (as
TensorFlow's AutoGraph turns `print` into `tf.print`). Text an argument builds from a
symbolic value (`print(f"loss {loss:.3f}")`, `"%s" % x`, `str(x)`) is completed with
the value there each time, as Python's formatting would make it (`print_text`).
"""
from __future__ import annotations

import builtins
import re
import sys

from runtime.core import tracing
from runtime.core.errors import where
from runtime.core.tensor_text import MARK, _text_error, recording_text
from runtime.state.printing import STREAMS, RecordedText, graph_print
from runtime.core.structure import flatten
from runtime.core.tensor import Tensor

_KEYWORDS = frozenset({"sep", "end", "file", "flush"})


def _symbolic(values) -> bool:
    return any(issubclass(type(leaf), (Tensor, RecordedText))
               for leaf in flatten(list(values))[0])


def print_text(fn, arguments, /, **kwargs) -> None:
    """`print(f"x = {x}", ...)`: the call converter passes the positional arguments as a
    function, so that text they build from symbolic values (f-strings, `%`, `str()`,
    `format()`) is recorded while they are evaluated and completed with the values each
    time the graph runs; on NumPy values this is `print`. `fn` is what the name `print`
    means when the call runs: a global that shadows it is called instead."""
    if fn is not builtins.print:
        return fn(*arguments(), **kwargs)
    with recording_text() as record:
        values = arguments()
    if record:
        texts = [v for v in values if type(v) is str and MARK in v]
        found = [int(k) for v in texts for k in _MARKER.findall(v)]
        if sorted(found) != list(range(len(record))) or \
                sum(v.count(MARK) for v in texts) != 2 * len(record):
            # the text was computed with (sliced, measured, passed on), not only shown
            raise _text_error(record[0][0], "str() / format()")
        values = tuple(RecordedText(v, record) if type(v) is str and MARK in v else v
                       for v in values)
    return print_(*values, **kwargs)


_MARKER = re.compile(MARK + r"(\d+)" + MARK)


def _in_symbolic_control_flow() -> bool:
    """Tracing a branch of a symbolic `if` or the body of a symbolic loop (a subgraph):
    a Python print there would run once at trace time - also for a branch the inputs
    never take - instead of each time the branch or iteration runs."""
    graph = tracing.current_graph()
    return graph is not None and graph.parent is not None


def print_(*values, **kwargs) -> None:
    if not _symbolic(values) and not _symbolic(kwargs.values()) and not (
            _in_symbolic_control_flow() and _stream_name(kwargs.get("file")) is not None):
        # (a print to a file of its own keeps Python's behaviour: it cannot be a graph print)
        return builtins.print(*values, **kwargs)
    for key in kwargs:
        if key not in _KEYWORDS:
            raise TypeError(f"'{key}' is an invalid keyword argument for print()")
    sep, end = kwargs.get("sep"), kwargs.get("end")
    for name, value in (("sep", sep), ("end", end)):
        if value is not None and not isinstance(value, str):
            raise TypeError(f"{name} must be None or a string, not {type(value).__name__}")
    flush = kwargs.get("flush", False)
    if isinstance(flush, Tensor):
        raise TypeError(f"print(flush=...) got a symbolic value{where()}; pass a Python bool.")
    stream = _stream_name(kwargs.get("file"))
    if stream is None:
        raise TypeError(
            f"print(..., file={kwargs['file']!r}) of a symbolic value{where()}: a graph print "
            "can write to sys.stdout or sys.stderr only. Print to one of them, or compute the "
            "value in the graph, return it, and write it to the file after the call.")
    return graph_print(values, sep=sep, end=end, stream=stream, flush=flush)


def _stream_name(file) -> str | None:
    """The name in `sys` of the stream `file` is (None: stdout), or None for another file."""
    if file is None:
        return "stdout"
    for name in STREAMS:
        if file is getattr(sys, name):
            return name
    return None
