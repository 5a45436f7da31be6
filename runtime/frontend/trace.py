"""Tracing one signature of a Function into a `ConcreteFunction` (`trace_signature`).

    placeholders for the key's arrays ─► Python state: guards, lifted places (python_state)
      ─► run the (converted) function under a graph context ─► outputs, argument and state
      write-backs ─► undo the trace's writes ─► escape check ─► compile (concrete.py)

A trace that finds a place it must read as an input (an array of state written in place,
a list an earlier trace only appended to that this one reads) traces again at once.
"""
from __future__ import annotations

import sys
import types

import numpy as np

from runtime.core import log, tracing
from runtime.core.errors import StateArrayWrite
from runtime.core.graph import Graph
from runtime.core.structure import flatten
from runtime.core.tensor import Tensor
from runtime.ops.ufuncs import python_number
from runtime.control_flow.path_kinds import with_kind
from runtime.frontend.concrete import ConcreteFunction
from runtime.frontend.trace_args import _placeholders, _substitute
from runtime.state import views
from runtime.state.after_error import raise_in_order
from runtime.state.escapes import (attributes_set, attributes_set_error, escape_error, escaped,
                                   function_attributes, roots_of)
from runtime.state.python_state import AppendLogRead, StatePlan, append_logs_in
from runtime.state.read_names import ReadNames
from runtime.state.random_watch import RandomWatch, warn_if_drawn
from runtime.state.state_walk import as_function, code_functions
from runtime.state.variables import Variable
from runtime.state.writeback import container_writes, snapshot_containers


# the dtypes a value standing for a Python bool / int / float / complex has in a graph
_PYTHON_NUMBER_DTYPES = tuple(np.dtype(t) for t in (bool, np.int64, float, complex))


def _closure_cells(fn) -> set:
    """The ids of the closure cells of `fn` (and of the functions it wraps)."""
    fn = as_function(fn)
    fn = getattr(fn, "__func__", fn)
    return {id(c) for f in code_functions(fn) for c in (getattr(f, "__closure__", None) or ())}


def trace_signature(owner, key, args) -> ConcreteFunction:
    """One trace of Function `owner` for cache key `key` (`args`: one value per parameter)."""
    started = log.start(log.TRACE, log.INFO, "tracing %s", owner.__name__)
    fn = owner._traceable()
    graph = Graph(owner.__name__)
    # whether AutoGraph converts the function (GraphModeError says what to change)
    graph.converted = fn is not owner.python_function
    arg_inputs = _placeholders(graph, owner._params, key)
    placeholders = iter(arg_inputs)
    traced_args = [_substitute(a, k, placeholders) for a, k in zip(args, key)]
    containers = snapshot_containers(traced_args)
    # (the caller's lists and dicts: a symbolic loop must not grow one, while_loop.py)
    graph.caller_containers = {id(obj) for _, _, obj, _ in containers}
    # Python state the function reaches: guarded, learned places read as inputs,
    # what the trace changes undone afterwards and done by every call
    plan = StatePlan(owner.python_function, owner._params, args, owner._dynamic,
                     owner._appended, owner.__dict__.setdefault("_helper_globals", {}))
    plan.lift(graph)
    # attributes set on an ag.function object are not state (escapes.py): refused
    function_attrs = function_attributes(roots_of(owner.python_function, owner._params, args))
    graph.place_of = plan.place_of  # (which NumPy arrays are Python state: view_links.py)
    graph.argument_ids = {id(t) for t in arg_inputs.placeholders}  # (view_links.py)
    # the closure cells the plan writes back: a converted callee may store graph values
    # in these (autograph/impl/calls.py refuses a cell of another function's)
    graph.state_cells = _closure_cells(owner.python_function)
    watch = RandomWatch(owner.python_function)
    write_retrace = False
    # the code the trace runs: the attributes it can read (recorded only when the
    # function reaches Python state: recording slows the trace down)
    reads = ReadNames(record=plan.walk is not None)
    try:
        with tracing.graph_context(graph), log.trace_progress(owner.__name__), \
                tracing.user_calls_from(sys._getframe()):
            try:
                with reads:
                    out = owner._call_canonical(fn, traced_args)
            except Exception as error:  # (Python's error after graph operations: in order)
                if not raise_in_order(graph, error):
                    raise
                out = None
            out_leaves, out_tree = flatten(out)
            _check_no_generator(owner.__name__, out_leaves)
            for expr in append_logs_in(out_leaves):  # returned: read after the call
                raise AppendLogRead(expr)
            out_leaves = [x.read_value() if isinstance(x, Variable) else views.resolve(x)
                          for x in out_leaves]
            out_leaves = [graph.capture(x) if isinstance(x, Tensor) else x
                          for x in out_leaves]
            # a symbolic `if` that gave a Python number on one path and a NumPy value on
            # another returns the kind of the path taken (control_flow/path_kinds.py)
            out_leaves = [with_kind(x) for x in out_leaves]
            # a value standing for a Python number (a Python counter carried by a loop,
            # len() or x.shape[i] of an unknown length) is returned as one, as Python does
            out_leaves = [python_number(x) if isinstance(x, Tensor) and x.weak and x.ndim == 0
                          and x.dtype in _PYTHON_NUMBER_DTYPES else x for x in out_leaves]
            # argument arrays the function wrote into: the executor writes them back
            written = views.written_inputs(graph.inputs)
            # list/dict arguments changed in place: every call updates the caller's
            writes, values = container_writes(containers, arg_inputs, graph.capture)
            plan.record_writes(arg_inputs, graph.capture)
    except AppendLogRead as read:
        retrace = read.expr
    except StateArrayWrite as write:
        # an array of Python state written in place with graph values: trace again
        # with it as an input, written back in place after every call
        retrace = plan.place_of(write.array)
        if retrace is None or retrace in owner._dynamic:
            raise
        owner._dynamic[retrace] = False
        retrace = None
        write_retrace = True
    else:
        retrace = None
    finally:
        plan.undo()
        del graph.place_of, graph.argument_ids, graph.state_cells  # (the trace is over)
    if retrace is not None:
        # a list an earlier trace only appended to is read: trace it as itself
        owner._appended.discard(retrace)
        owner._read_lists.add(retrace)
        return owner._trace(key, args)
    changed = plan.arrays_changed_in_place()  # (never one this trace read as an input)
    if changed:  # arrays of state changed in place while tracing: inputs, then retrace
        for expr in changed:
            owner._dynamic.setdefault(expr, False)
        write_retrace = True
    if write_retrace:
        return owner._trace(key, args)
    warn_if_drawn(watch, graph, owner.__name__)
    places = attributes_set(function_attrs)
    if places:
        raise attributes_set_error(owner.__name__, places)
    found = escaped(graph, roots_of(owner.python_function, owner._params, args))
    found += escaped(graph, plan.consts)
    if found:
        raise escape_error(owner.__name__, found)
    plan.warn_if_truncated(owner.__name__)
    plan.compile(reads)
    plan.release()
    reads.release()
    owner._written.update(expr for _, expr in plan.written)
    owner._appended.update(set(plan.appends) - owner._read_lists)
    graph.outputs = ([x for x in out_leaves if isinstance(x, Tensor)] +
                     [v for _, v in written] + values + plan.outputs)
    graph.verify()
    cf = ConcreteFunction(owner.__name__, graph, key, owner._params, out_tree, out_leaves,
                          owner=owner, optimize=owner.optimize, parallel=owner.parallel,
                          writeback=[(k, graph.inputs[k].name) for k, _ in written],
                          container_writes=(writes, len(values)),
                          jit_compile=owner.jit_compile,
                          state=None if plan.empty else plan)
    if cf.state is not None:
        owner._by_state.setdefault(key, []).insert(0, cf)
        del owner._by_state[key][8:]  # the most recent few
    owner._concrete.append(cf)
    owner.tracing_count += 1
    log.done(log.TRACE, log.INFO, started, "traced %s", cf.pretty_printed_signature)
    return cf


__all__ = ["trace_signature"]


_MADE_PER_CALL = (types.GeneratorType, types.AsyncGeneratorType, types.CoroutineType)


def _check_no_generator(name: str, out_leaves: list) -> None:
    """A generator (or coroutine) the function returns was made while tracing: the graph
    would return that one object on every call, exhausted after the first."""
    for x in out_leaves:
        if isinstance(x, _MADE_PER_CALL):
            code = getattr(x, "gi_code", None) or getattr(x, "ag_code", None) or x.cr_code
            kind = "a coroutine" if isinstance(x, types.CoroutineType) else \
                "an asynchronous generator" if isinstance(x, types.AsyncGeneratorType) \
                else "a generator"
            if not isinstance(x, types.AsyncGeneratorType):
                x.close()  # (never run: no "never awaited" warning)
            raise TypeError(
                f"{name} returns {kind} (at {code.co_filename}:{code.co_firstlineno}), made "
                "while tracing: the cached graph would return that same object on every "
                "call, used up after the first. Return the items instead (a list or an "
                "array: list(...)), or call the function without ag.function.")
