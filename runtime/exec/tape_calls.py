"""Calling a compiled graph while an eager `GradientTape` records on this thread.

    with ag.GradientTape() as tape:
        loss = model(x)          # model: an ag.function reading Variables
    tape.gradient(loss, w)       # the same gradients as running model's code eagerly

The generated executor reads Variables as `var._value` and computes on plain arrays, so
the tape would see neither the reads nor the ops. Instead, each executor's first line
checks whether a tape records (a process-wide count of recording threads, then this
thread's recorder; `codegen.compile_graph`) and if so hands the call here (`TapeCall`).
When a watched value is involved (an argument the
tape follows, or a floating-point Variable the graph reads, which the tape watches), the
traced graph runs node by node through `bind`, as eager NumPy code would: every op is
recorded with its own gradient rule, Variable reads go through the tape's read hook, and
control flow takes the path the values take. Gradients are therefore exactly the eager
ones, for persistent and nested tapes and jacobians too, at the speed of eager code.
Otherwise the fast executor runs as usual. An argument the graph writes into takes the
written value as eager code's `x[i] = v` does (`TapeValue.write_back`).
"""
from __future__ import annotations

from typing import Any, Callable

import numpy as np

from runtime.autodiff.tape_values import TapeValue
from runtime.core import registry
from runtime.core.graph import Graph
from runtime.core.structure import unflatten
from runtime.core.tensor import Tensor
from runtime.exec import interpreter


class TapeCall:
    """What an executor needs to run its call op by op under a tape: the traced graph
    (before optimization and jit regions: the ops the user's code made, each with its
    gradient rule) and how the executor's result is built from the graph's outputs (the
    executor's graph has the same inputs and outputs, in the same order)."""

    __slots__ = ("graph", "tree", "slots", "_reads")

    def __init__(self, graph: Graph, tree, leaves: list):
        self.graph = graph
        self.tree = tree  # the executor's result structure
        # per result leaf: the position among the graph's outputs, or a constant
        self.slots, k = [], 0
        for x in leaves:
            if isinstance(x, Tensor):
                self.slots.append((True, k))
                k += 1
            else:
                self.slots.append((False, x))
        self._reads = None

    def reads_watched_variables(self, graph: Graph) -> bool:
        """Whether `graph` reads a floating-point Variable (a tape watches those)."""
        if self._reads is None:
            self._reads = any(node.op.reads_variable and node.attrs["var"].dtype.kind in "fc"
                              for node in graph.walk())
        return self._reads

    def __call__(self, executor: Callable, arguments: dict) -> Any:
        args = tuple(arguments.values())  # the executor's parameters, in order
        graph = self.graph
        if not any(type(a) is TapeValue for a in args) and \
                not self.reads_watched_variables(graph):
            recorder = registry.recorder()
            registry.set_recorder(None)  # nothing to record: the executor, as usual
            try:
                return executor(*args)
            finally:
                registry.set_recorder(recorder)
        outs = run_recorded(graph, list(args))
        leaves = [outs[v] if is_output else _fresh(v) for is_output, v in self.slots]
        return unflatten(self.tree, leaves)


def run_recorded(graph: Graph, args: list) -> list:
    """Run `graph` on `args` node by node, each op through `bind` (recorded by the tape
    when it computes on a watched value, as eager code is)."""
    previous = interpreter.applying.node
    interpreter.applying.node = _apply
    try:
        return interpreter.run_graph(graph, args)
    finally:
        interpreter.applying.node = previous


def _apply(node, ins: list) -> list:
    if node.op.reads_variable:  # through the tape's read hook, as `w` in eager code
        return [node.attrs["var"].read_value()]
    result = registry.bind(node.op, *ins, **node.attrs)
    return [result] if node.op.num_outputs == 1 else list(result or ())


def _fresh(value):
    """A constant result, copied as the executor copies it (callers may mutate it)."""
    return value.copy() if isinstance(value, np.ndarray) else value


__all__ = ["TapeCall", "run_recorded"]
