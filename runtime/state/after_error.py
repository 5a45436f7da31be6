"""What the caller's objects hold when a graph raises: the effects done before the failure.

A graph never changes the caller's objects while it runs. Argument arrays written into,
list and dict arguments changed in place, and Python state the function writes
(attributes of `self`, dict items, globals) are computed as extra graph outputs and
copied in only after the graph returns (writeback.py, `python_state.StatePlan.apply`).
So when the graph raises, every one of them still holds its value from before the call,
and running the Python function on the same arguments does exactly the writes Python
makes before that error and none after it: `effects_before_failure`. One rule covers a
raise or assert inside a symbolic loop (the writes of the earlier iterations are done),
an error raised by an operation itself (`LinAlgError`, an index out of bounds,
`FloatingPointError` under `np.errstate(all="raise")`, integer division by zero), and
Python state; the per-call cost of a call that does not raise is nil.

The graph's run-time effects must not happen twice: `ag.print` output and warnings are
already shown (the rerun's are dropped). A graph that assigns `ag.Variable`s or draws
random numbers cannot run again without changing them twice, and a loaded function has
no Python code: there the caller's objects keep their values from before the call and
the error says so in a note (`replay_blocker`).

An error raised while tracing (a `raise` under a Python condition) that Python raises
too (`raised_by_python_code`) after graph operations becomes a graph-side raise after
them (`raise_in_order`), so an error one of them raises comes first, as in Python;
otherwise it is raised at once (every call of that signature traces again) and handled
the same way, the rerun's output dropped too, since the trace has run the function's
Python prints already.

A graph `try`/`except` changes nothing here: an error a handler catches stays in the
graph, and one no handler catches reaches the caller through `effects_before_failure`.
"""
from __future__ import annotations

import contextlib
import io
import os
import warnings
from typing import Callable

import numpy as np

from runtime.core.errors import GraphModeError, Origin, is_library_code
from runtime.core.graph import Graph
from runtime.state.effects import raise_, unused_results
from runtime.state.random_ops import RANDOM_CALL, RANDOM_DRAW, RANDOM_MAKE
from runtime.state.variables import ASSIGN_VARIABLE

# ops whose run-time effect changes objects outside the graph and cannot run twice
_RANDOM = "the graph draws random numbers, which must not happen twice"
_NOT_REPEATABLE = {ASSIGN_VARIABLE: "the graph assigns an ag.Variable, which must not "
                                    "happen twice",
                   RANDOM_DRAW: _RANDOM, RANDOM_CALL: _RANDOM, RANDOM_MAKE: _RANDOM}
NO_PYTHON = "the function was loaded from a saved graph and has no Python code to run"


def replay_blocker(graph: Graph, has_python: bool = True) -> str | None:
    """Why the Python function cannot be run again after `graph` raised (what the graph
    does that must not happen twice; `has_python`: False for a loaded function), or None
    when it can."""
    if not has_python:
        return NO_PYTHON
    for node in graph.walk():
        why = _NOT_REPEATABLE.get(node.op)
        if why is not None:
            return why
    return None


def writes_on_error_paths(graph: Graph) -> bool:
    """Whether `graph` has a `try` node (its body and handlers are `in_order` graphs,
    control_flow/try_op.py): its handlers and `finally` may write the caller's objects on
    paths that end in an error only, which give no write-back, so a failing call runs the
    Python function again."""
    return any(g.__dict__.get("in_order") for node in graph.walk() for g in node.subgraphs())


def raised_by_graph(error: BaseException, filename: str) -> bool:
    """Whether `error` was raised while the generated executor (source `filename`) ran,
    rather than by a check made before it started."""
    tb = error.__traceback__
    while tb is not None:
        if tb.tb_frame.f_code.co_filename == filename:
            return True
        tb = tb.tb_next
    return False


_NUMPY_DIR = os.path.dirname(os.path.abspath(np.__file__)) + os.sep
_CONTROL_FLOW_DIR = os.sep + os.path.join("runtime", "control_flow") + os.sep


# code of the control-flow functions that trace code every run takes up to its error (a
# `try` body, try_op.py): an error raised under them is where Python raises it
ALWAYS_TRACED: set = set()
# code of the compiler's reads of a variable that may be unbound (`ag__.ld`, registered by
# autograph/operators/variables.py): the UnboundLocalError raised there is Python's own,
# at the user's read
UNBOUND_READS: set = set()


def raise_in_order(graph: Graph, error: BaseException) -> bool:
    """`error` ended the trace of `graph` where Python raises it too (see
    `raised_by_python_code`): record it as a graph-side raise after every operation
    recorded so far (True), so that each run does those first, as Python does, and an
    error one of them raises comes first (`60 // (n - k)` then `raise ValueError`:
    FloatingPointError when n == k); their prints and writes happen as in Python too.
    False (raise it now) when nothing recorded can fail or act, or when the error
    cannot be made again from its type and arguments."""
    if not (graph.has_effects or unused_results(graph)) or \
            not raised_by_python_code(error):
        return False
    try:
        again = type(error)(*error.args)
    except Exception:  # noqa: BLE001 - a class that takes other arguments: raised now
        return False
    if type(again) is not type(error) or str(again) != str(error):
        return False
    site = _site(error)
    raise_(error, str(site or ""))
    if site is not None:  # (its traceback shows the user's line that raised it)
        graph.nodes[-1].origin = site
    return True


def _site(error: BaseException) -> Origin | None:
    """The line of the user's code that raised `error` (or called NumPy that did)."""
    site = None
    tb = error.__traceback__
    while tb is not None:
        code = tb.tb_frame.f_code
        if not is_library_code(code) and \
                not os.path.abspath(code.co_filename).startswith(_NUMPY_DIR):
            site = Origin(code.co_filename, tb.tb_lineno, code.co_name)
        tb = tb.tb_next
    return site


def raised_by_python_code(error: BaseException) -> bool:
    """Whether `error`, raised while tracing, is one Python raises at the same point: the
    user's own code (a `raise` or an `assert` on Python values) or NumPy called by it
    raised it, outside any symbolic branch, loop body or `try` handler (those are
    traced also when the inputs would not run them). An error the tracer raises for what a graph cannot
    do is not."""
    if isinstance(error, GraphModeError):
        return False
    frames = []
    tb = error.__traceback__
    while tb is not None:
        frames.append(tb.tb_frame.f_code)
        tb = tb.tb_next
    if any(_CONTROL_FLOW_DIR in os.path.abspath(c.co_filename) and c not in ALWAYS_TRACED
           for c in frames):
        return False
    while frames and frames[-1] in UNBOUND_READS:
        frames.pop()
    while frames and os.path.abspath(frames[-1].co_filename).startswith(_NUMPY_DIR):
        frames.pop()
    if frames and not is_library_code(frames[-1]):
        return True
    # `assert` on a Python value: raised by the converted assert, called from user code
    return isinstance(error, AssertionError) and len(frames) >= 2 and \
        not is_library_code(frames[-2])


def effects_before_failure(run_python: Callable[[], object], error: BaseException,
                           name: str, blocker: str | None) -> None:
    """Leave the caller's arguments and Python state as Python leaves them when it raises
    `error`: run `run_python` (the function on the caller's objects, which the graph has
    not changed) up to its error. `error` is the one the caller gets; notes say when the
    rerun disagreed with it."""
    if blocker is not None:
        error.add_note(f"{name}: the arguments and Python state this call writes keep "
                       f"their values from before the call ({blocker}): the writes made "
                       "before the error are not done.")
        return
    try:
        # the graph has printed and warned already; a warning filter set to "error" still
        # raises (recording only replaces showing)
        with contextlib.redirect_stdout(io.StringIO()), warnings.catch_warnings(record=True):
            run_python()
    except Exception as again:  # noqa: BLE001 - Python's own error ends the rerun
        if type(again) is not type(error):
            error.add_note(f"{name}: run as Python, the function raises "
                           f"{type(again).__name__}: {again} instead; the arguments and "
                           "Python state hold what that run left in them.")
    else:
        error.add_note(f"{name}: run as Python, the function raises no error here; the "
                       "arguments and Python state hold what that run left in them.")
