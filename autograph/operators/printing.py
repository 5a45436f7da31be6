"""`print_`: Python's `print` in converted code.

The call converter rewrites `print(...)` to `ag__.print_(...)` when the name is the
builtin (and `converted_call` routes the builtin reached any other way here too). With no
symbolic value among the arguments (or nested in a list / tuple / dict argument) it *is*
`print`: same text, same errors, run when the Python runs (only while tracing, in a
graph). With one, it becomes a graph print (`runtime.printing`, what `ag.print` uses):
it runs every time the graph runs, in program order, and prints the text Python's print
prints for the same NumPy values - as TensorFlow's AutoGraph turns `print` into
`tf.print`.
"""
from __future__ import annotations

import builtins
import sys

from runtime.errors import where
from runtime.printing import STREAMS, graph_print
from runtime.structure import flatten
from runtime.tensor import Tensor

_KEYWORDS = frozenset({"sep", "end", "file", "flush"})


def _symbolic(values) -> bool:
    return any(isinstance(leaf, Tensor) for leaf in flatten(list(values))[0])


def print_(*values, **kwargs) -> None:
    if not _symbolic(values) and not _symbolic(kwargs.values()):
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
    return graph_print(values, sep=sep, end=end, stream=_stream(kwargs.get("file")),
                       flush=flush)


def _stream(file) -> str:
    if file is None:
        return "stdout"
    for name in STREAMS:
        if file is getattr(sys, name):
            return name
    raise TypeError(
        f"print(..., file={file!r}) of a symbolic value{where()}: a graph print can write to "
        "sys.stdout or sys.stderr only. Print to one of them, or compute the value in the "
        "graph, return it, and write it to the file after the call.")
