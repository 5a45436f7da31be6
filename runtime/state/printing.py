"""The graph print op: prints every time the graph runs, exactly what Python's `print`
prints for the same NumPy values.

    graph_print(("x is", [x, 1]), sep=" ", end="\n", stream="stdout")

Each argument is rendered while tracing into a spec the kernel completes at run time:
a constant argument becomes its `str()` text; a symbolic one is `str()` of its run-time
value; a container holding symbolic values (`[x, 1]`, `{"k": x}`) is rendered by its own
`str()` around markers, and each marker becomes the `repr()` of the value there (0-d
arrays as NumPy scalars, as eager NumPy code would hold them); text built from symbolic
values while it was recorded (`RecordedText`: an f-string argument) gets `format()` /
`str()` of each value where the text had it. The stream is named
(`stdout`, `stderr`) and looked up in `sys` when the graph runs, so redirecting it later
is seen.
"""
from __future__ import annotations

import sys
from typing import Any, Sequence

import numpy as np

from runtime.core.registry import OpDef, bind
from runtime.core.structure import flatten, unflatten
from runtime.core.tensor import Tensor
from runtime.core.tensor_text import MARK

STREAMS = ("stdout", "stderr", "__stdout__", "__stderr__")


class _Slot:
    """Stands for a symbolic value inside a container while the container is rendered."""

    def __init__(self, index: int):
        self.index = index

    def __repr__(self) -> str:
        return f"\x00{self.index}\x00"

    __str__ = __repr__


class RecordedText:
    """Text built from symbolic values (`f"x = {x:.2f}"`, `"%s" % x`, `str(x)`) while
    `runtime.core.tensor_text.recording_text` recorded them: completed when the graph runs
    with `format(value, spec)` (or `str(value)`) of each, as Python would have built it."""

    def __init__(self, text: str, record: list):
        self.text, self.record = text, record


def _render_text(value: RecordedText, leaves: list) -> tuple:
    parts = value.text.split(MARK)
    spec: list = []
    for k, part in enumerate(parts):
        if k % 2 == 0:
            spec.append(part)
            continue
        t, fmt = value.record[int(part)]
        leaves.append(t)
        spec.append((len(leaves) - 1, fmt))
    return tuple(spec)


def _render(value: Any, leaves: list):
    """The spec of one print argument (see the module docstring); symbolic values found in
    it are appended to `leaves`."""
    if isinstance(value, RecordedText):
        return _render_text(value, leaves)
    if isinstance(value, Tensor):
        leaves.append(value)
        return len(leaves) - 1
    items, tree = flatten(value)
    if not any(isinstance(x, Tensor) for x in items):
        return str(value)
    slots = []
    for x in items:
        if isinstance(x, Tensor):
            leaves.append(x)
            slots.append(_Slot(len(leaves) - 1))
        else:
            slots.append(x)
    parts = str(unflatten(tree, slots)).split("\x00")
    numbers = parts[1::2]
    if len(parts) % 2 == 0 or not all(p.isdigit() for p in numbers) or \
            {int(p) for p in numbers} != {s.index for s in slots if isinstance(s, _Slot)}:
        # the user's own text held a NUL byte, or the container's str() hid an element
        raise ValueError(f"print() cannot render {type(value).__name__} values holding "
                         "symbolic values in a graph; print the values separately.")
    return tuple(p if k % 2 == 0 else int(p) for k, p in enumerate(parts))


def _scalar(v):
    return v[()] if isinstance(v, np.ndarray) and v.ndim == 0 else v


def _piece(values, p) -> str:
    if type(p) is int:  # a value inside a container: its repr()
        return repr(_scalar(values[p]))
    index, fmt = p  # a value in recorded text: str() or format(value, spec)
    value = _scalar(values[index])
    return str(value) if fmt is None else format(value, fmt)


def _print_kernel(*values, args=(), sep=" ", end="\n", stream="stdout", flush=False):
    texts = []
    for spec in args:
        if type(spec) is int:
            texts.append(str(values[spec]))
        elif type(spec) is str:
            texts.append(spec)
        else:
            texts.append("".join(p if k % 2 == 0 else _piece(values, p)
                                 for k, p in enumerate(spec)))
    print(*texts, sep=sep, end=end, file=getattr(sys, stream), flush=flush)


PRINT = OpDef("print", _print_kernel, lambda op, ins, attrs: [], num_outputs=0, stateful=True,
              effect=True)


def graph_print(values: Sequence, sep: str | None = " ", end: str | None = "\n",
                stream: str = "stdout", flush: bool = False) -> None:
    """Print `values` (nested lists / tuples / dicts of them too) every time the graph
    runs; eagerly (no graph) print them now. `sep` / `end` None mean Python's defaults."""
    if stream not in STREAMS:
        raise ValueError(f"stream must be one of {STREAMS}, not {stream!r}")
    leaves: list = []
    specs = tuple(_render(v, leaves) for v in values)
    attrs = {"args": specs, "sep": " " if sep is None else sep, "end": "\n" if end is None else end}
    if stream != "stdout":  # only what differs from the defaults, so listings stay short
        attrs["stream"] = stream
    if flush:
        attrs["flush"] = True
    bind(PRINT, *leaves, **attrs)
