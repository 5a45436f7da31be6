"""Graph side effects that run on every call: `print_` (ag.print; the op is in
`runtime.state.printing`), `assert_` and `raise_`, and `keep` (the unused results of
branches and loop bodies, whose operations must run because one may raise first).

An assert or a raise that fails leaves the caller's argument arrays and Python state as
Python leaves them: the writes made before it are done (state/after_error.py, the same
rule as for an error raised by any other op)."""
from __future__ import annotations

from typing import Any

import numpy as np

from runtime.core import tracing
from runtime.core.registry import OpDef, add_node, bind
from runtime.ops.constant import CONSTANT
from runtime.state.printing import graph_print
from runtime.core.tensor import Tensor


def print_(*values: Any, sep: str = " ", end: str = "\n") -> None:
    """Print `values` every time the graph runs, as Python's `print` would print them.

    Python's own `print` in a traced function runs once, while tracing (it shows a
    symbolic value's description). `ag.print` is a graph operation: it prints on every
    call, in a branch or loop body each time that runs, in program order with the other
    effects, with the text `print` gives for the same NumPy values (lists, tuples and
    dicts of them too). Outside a graph it is `print`.

    Args:
        *values: the values to print (arrays, numbers, strings, containers of them).
        sep: printed between values, as for `print`.
        end: printed after the last value, as for `print`.

    Raises:
        TypeError: `sep` or `end` is not a string.

    Example:
        ```python
        import numpy as np
        import autograph as ag

        @ag.function
        def countdown(n):
            while n > 0:
                ag.print("n =", n)
                n -= 1
            return n

        countdown(np.int64(2))
        ```

        ```output
        n = 2
        n = 1
        ```
    """
    graph_print(values, sep=sep, end=end)


def _assert_kernel(pred, *_, message):  # `_`: inputs of graphs saved by earlier versions
    if not np.all(pred):
        raise AssertionError(message)


def _assert_abstract_eval(op, inputs, attrs):
    return []


ASSERT = OpDef("assert", _assert_kernel, _assert_abstract_eval, num_outputs=0, stateful=True,
               effect=True)


def assert_(pred, message: str = "") -> None:
    """Fail with AssertionError(message) when `pred` is false (at graph run time if symbolic)."""
    if not isinstance(pred, Tensor):
        if not np.all(pred):
            raise AssertionError(message)
        return
    bind(ASSERT, pred, message=str(message))


def _raise_kernel(*_, error, args, message, where):  # noqa: ARG001 - `message`: listings
    exc = error(*args)
    if where:
        exc.add_note(f"(raised by the graph at run time: {where})")
    raise exc


RAISE = OpDef("raise", _raise_kernel, _assert_abstract_eval, num_outputs=0, stateful=True,
              effect=True)


def raises_always(graph) -> bool:
    """Whether `graph` (a branch) has a graph-side `raise` of its own: reached, it
    raises, and gives no value."""
    return any(node.op is RAISE for node in graph.nodes)


def raise_(error: BaseException, where: str = "") -> None:
    """Raise (a fresh copy of) `error` every time this point of the graph runs: the
    graph form of a Python `raise` inside a branch or loop body that depends on a
    symbolic value. Its type and arguments are Python values fixed while tracing."""
    graph = tracing.current_graph()
    if graph is None:
        raise error
    keep_nested(graph)
    bind(RAISE, *unused_results(graph), error=type(error), args=tuple(error.args),
         message=str(error), where=where)


def unused_results(graph) -> list:
    """The results of `graph`'s operations that nothing uses yet: the inputs of a raise,
    so that the operations before it run first, as in Python (no pass drops one whose
    result the raise makes useless, or moves it after the raise), and an error one of
    them raises comes first."""
    used = {id(x) for x in graph.outputs}
    used.update(id(x) for node in graph.nodes for x in node.inputs)
    return [o for node in graph.nodes if node.op is not CONSTANT
            for o in node.outputs if id(o) not in used]


def _keep_kernel(*_):
    return None


# takes results nothing uses, inside a branch or loop body, so that the operations that
# compute them run: each may raise an error that must come first (before a graph `raise`
# after the branch, or inside the body of a graph `try`)
KEEP = OpDef("keep", _keep_kernel, lambda op, inputs, attrs: [], num_outputs=0,
             stateful=True, effect=True)


def keep_nested(graph) -> None:
    """In each branch and loop body of `graph`'s nodes (at any depth), a KEEP of the
    results of its operations that nothing uses: no pass drops them, so an error one
    raises comes first, as in Python. A node that is itself an effect (a graph `try`)
    keeps its own."""
    for node in graph.nodes:
        if node.op.effect:
            continue
        for sub in node.subgraphs():
            keep_nested(sub)
            unused = unused_results(sub)
            if unused:
                add_node(sub, KEEP, unused, {}, [])
