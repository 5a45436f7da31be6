"""`while_stmt` and `for_stmt`: Python loops on Python values, `runtime.while_loop` on
symbolic ones - and the hand-over between the two.

Generated code calls

    n, steps = ag__.while_stmt(lambda n, steps: n != 1, loop_body, (n, steps), ('n', 'steps'))
    s = ag__.for_stmt(xs, loop_body, (s,), ('s',), extra_test=lambda s: ...)

`loop_body(*state)` (for: `loop_body(item, *state)`) returns the new state.

- A `while` whose condition is a Python bool runs as Python; when the condition turns
  symbolic part-way, the loop hands over to `runtime.while_loop` from its current state.
- A `for` over a Python iterable (or a `range` of Python ints) runs as Python; when its
  `extra_test` (the break / return flag) turns symbolic, each remaining iteration runs
  predicated on it (`runtime.cond`), so a `break` that depends on a symbolic condition
  keeps working.
- A `for` over a long Python `range` inside a trace is unrolled until its loop variables'
  types are stable, then the remaining iterations become one `while_loop` (`range_for`,
  `range_loops.py`, `rolling.py`), with the same results as unrolling.
- A `for` over a Tensor (first axis), a `range` with symbolic bounds, or `enumerate` /
  `zip` of those becomes one `while_loop` over an index.

Loop variables that are `Undefined` on entry of a symbolic loop (first assigned inside)
and `UNSET` (a return value not set yet) take the type the body gives them: the runtime
learns it (`runtime/control_flow/learn_types.py`); this module names the variables and
says in the user's terms what went wrong.
"""
from __future__ import annotations

import itertools
import operator
import re
from typing import Callable, Sequence

import numpy as np

import runtime
from autograph.errors import caller_location
from autograph.errors import Diagnostic
from autograph.operators import containers, sole_holder
from autograph.operators.branch_notes import traced_both_branches
from autograph.operators.conditionals import (defer_raise, is_symbolic, pack, python_read_error,
                                              symbolic_test, unpack)
from autograph.operators.first_assigned import (carry_read_first, first_assigned_after,
                                                first_assigned_errors)
from autograph.operators.partly_bound import keep_carried
from autograph.operators.predicated_loops import predicated, predicated_count
from autograph.operators.py_builtins import SymbolicIterable, symbolic_iterable
from autograph.operators.range_loops import range_for, rollable_range
from autograph.operators.variables import is_undefined
from runtime.control_flow.lists import LoopCarryError
from runtime.core import tracing
from runtime.ops.ufuncs import python_number
from runtime.control_flow.path_kinds import share_kinds
from runtime.state import views


def python_iterable(iterable, flagged: bool) -> bool:
    """Whether a `for` over `iterable` runs as the inline Python loop of converted code
    (`converters/dual_path.py`) rather than `for_stmt`: outside a trace always (nothing is
    symbolic there); inside one when `for_stmt` would walk it as Python anyway - not
    symbolic, not a range that may roll into a graph loop, and no break / return flag
    (`flagged`) that may turn symbolic mid-way."""
    if tracing._state.graph is None:
        return True
    if flagged or is_symbolic(iterable) or isinstance(iterable, SymbolicIterable):
        return False
    return type(iterable) is not range or not rollable_range(iterable)


_NO_TEST = object()


def while_stmt(test: Callable, body: Callable, state: Sequence = (), names: Sequence[str] = (),
               maximum_iterations=None, shape_invariants=None, first_test=_NO_TEST):
    """`while test(*state): state = body(*state)`; returns the final state. `first_test`:
    the test's value for the first iteration, evaluated already (by the inline loop of
    converted code that hands over here when it turned symbolic)."""
    tracing_now = tracing._state.graph is not None
    if tracing_now:
        sole_holder.enter_state(state)  # (before anything else holds the arrays)
    try:
        state = tuple(state)
        names = tuple(names)
        if maximum_iterations is not None:
            return _bounded_while(test, body, state, names, maximum_iterations,
                                  shape_invariants)
        cond = test(*state) if first_test is _NO_TEST else first_test
        while True:
            if type(cond) is not bool and symbolic_test(cond):  # (a bool first: common)
                opts = (maximum_iterations, shape_invariants)
                return _symbolic_loop(test, body, state, names, caller_location(), opts,
                                      None)
            if not cond:
                return pack(state, names)
            state = unpack(body(*state), names)
            cond = test(*state)
    except NameError as e:
        _raise_python_read_error(e)
        raise
    finally:
        if tracing_now:
            sole_holder.leave_state()


def for_stmt(iterable, body: Callable, state: Sequence = (), names: Sequence[str] = (),
             extra_test: Callable | None = None, maximum_iterations=None,
             shape_invariants=None):
    """`for item in iterable: state = body(item, *state)`, stopping when `extra_test`
    (if given) is false; returns the final state."""
    tracing_now = tracing._state.graph is not None
    if tracing_now:
        sole_holder.enter_state(state)  # (before anything else holds the arrays)
    try:
        state = tuple(state)
        names = tuple(names)
        if is_symbolic(iterable) or isinstance(iterable, SymbolicIterable):
            seq = symbolic_iterable(iterable)
            if seq.static_length() == 0:
                return pack(state, names)  # known empty: the body never runs, as in Python
            opts = (maximum_iterations, shape_invariants)
            walkable = seq.python_length() is not None
            if walkable:  # what a failed graph loop changed is undone before Python walks
                snap = containers.Snapshot(containers.roots_of(body, extra_test,
                                                               values=state), names)
                arrays = views.checkpoint()
            try:
                return _symbolic_loop(None, body, state, names, caller_location(), opts,
                                      (seq, extra_test))
            except LoopCarryError:
                if not walkable:
                    raise
            except Exception as e:
                if not walkable or not (traced_both_branches(e) or
                                        getattr(e, "paths_differ", False)):
                    raise
            snap.restore()
            views.rollback(arrays)
            # it carries what a graph loop cannot (a list of rows of lists, a variable whose
            # rank an iteration changes, an `if` on the index whose untaken branch fails)
            # and the length is known: Python walks the items, as it walks a NumPy array's
            # rows
            iterable = seq
        if type(iterable) is range and tracing._state.graph is not None \
                and maximum_iterations is None and rollable_range(iterable):
            return range_for(iterable, body, state, names, extra_test, caller_location(),
                             (None, shape_invariants), _symbolic_loop)
        it = iter(iterable)
        if maximum_iterations is not None:
            if is_symbolic(maximum_iterations):
                return predicated_count(it, body, state, names, extra_test, maximum_iterations)
            it = itertools.islice(it, max(operator.index(maximum_iterations), 0))
        if extra_test is None:
            return _python_for(it, body, state, names)
        while True:
            if extra_test is not None:
                keep_going = extra_test(*state)
                if is_symbolic(keep_going):
                    return predicated(it, body, state, names, extra_test, keep_going)
                if not keep_going:
                    break
            try:
                item = next(it)
            except StopIteration:
                break
            state = unpack(body(item, *state), names)
        return pack(state, names)
    except NameError as e:
        _raise_python_read_error(e)
        raise
    finally:
        if tracing_now:
            sole_holder.leave_state()


def _raise_python_read_error(e: NameError) -> None:
    """Python's UnboundLocalError where `e` is the NameError of a body (a function of its
    own) reading a variable of the user's function no path bound; else nothing (`e` is
    raised as it is, its cause and context kept)."""
    error = python_read_error(e)
    if error is not e:
        raise error from None


def _python_for(it, body: Callable, state: tuple, names: tuple):
    """A Python `for` without break / return: the per-iteration work kept to the body
    call (the hot path of converted code on Python values)."""
    if not names:
        for item in it:
            body(item, *state)
        return pack(state, names)
    if len(names) == 1:
        (value,) = state
        for item in it:
            value = body(item, value)
        return value
    for item in it:
        state = body(item, *state)
    return pack(tuple(state), names)


def _bounded_while(test, body, state, names, limit, shape_invariants):
    """`while_stmt` under `maximum_iterations`: a Python loop stops after `limit`
    iterations as a symbolic one does; a symbolic limit makes the loop symbolic."""
    loc = caller_location(3)
    if is_symbolic(limit):
        return _symbolic_loop(test, body, state, names, loc, (limit, shape_invariants), None)
    limit = operator.index(limit)
    done = 0
    while done < limit:
        cond = test(*state)
        if is_symbolic(cond):
            opts = (limit - done, shape_invariants)
            return _symbolic_loop(test, body, state, names, loc, opts, None)
        if not cond:
            break
        state = unpack(body(*state), names)
        done += 1
    return pack(state, names)


def _symbolic_loop(test, body, state, names, loc, opts, for_loop):
    """A symbolic loop; Python container locations its body replaces in place
    (`containers.py`) are carried as extra loop variables and set after the loop."""
    where = f"{loc[0]}:{loc[1]}"
    body = sole_holder.refuse_in_loop(body, state, names, 0 if for_loop is None else 1,
                                      where)
    extra_test = for_loop[1] if for_loop is not None else None
    outer: list = []
    snap = containers.Snapshot(containers.roots_of(body, test, extra_test, values=state,
                                                   outer=outer), names, outer)
    if not snap:
        return _loop(test, body, state, names, loc, opts, for_loop)
    graph = tracing.current_graph()
    carried: list = []
    arrays = views.checkpoint()
    for _ in range(_MAX_NEW_LOCATIONS + 1):
        start = len(graph.nodes)
        n = len(carried)
        offset = 0 if for_loop is None else 1
        step, guard = _carrying(body, names, carried, snap, where, offset)
        loop_test = None if test is None else guard(test)
        loop_for = None if for_loop is None else \
            (for_loop[0], None if extra_test is None else guard(extra_test))
        names2 = tuple(names) + tuple(containers.describe(c) for c in carried)
        state2 = tuple(state) + tuple(containers.get(c) for c in carried)
        try:
            out = _loop(loop_test, step, state2, names2, loc, opts, loop_for)
        except _NewLocations as e:
            del graph.nodes[start:]
            views.rollback(arrays)
            carried.extend(e.locations)
            continue
        out = unpack(out, names2)
        for location, value in zip(carried, out[len(out) - n:]):
            containers.put(location, value)
        return pack(tuple(out[:len(out) - n]), names)
    raise Diagnostic(f"{where}: this symbolic loop replaces items of Python containers in "
                     "too many places; make them loop variables.")


_MAX_NEW_LOCATIONS = 3


class _NewLocations(Exception):
    def __init__(self, locations):
        super().__init__("a loop body replaced container items not carried yet")
        self.locations = locations


def _carrying(body, names, carried, snap, where, offset):
    """The body and a guard for the tests, with the carried container locations as extra
    loop variables (the last ones): set from the placeholders before the user's code
    runs, read back after it, and the containers put back as they were."""
    n = len(carried)
    names = tuple(names)

    def enter(extras):
        for location, value in zip(carried, extras):
            containers.put(location, value)

    def step(*args):
        main, extras = (args[:len(args) - n], args[len(args) - n:]) if n else (args, ())
        enter(extras)
        try:
            out = body(*main)
        except BaseException:
            snap.restore()
            raise
        values = [containers.get(c) for c in carried]
        found, structural = snap.changes()
        snap.restore()
        containers.check_structure(structural, where, "symbolic loop")
        new = containers.new_locations(found, carried)
        if new:
            raise _NewLocations(new)
        return pack(unpack(out, names) + tuple(values), names + ("",) * n)

    def guard(test):
        def run(*args):
            enter(args[len(args) - n:] if n else ())
            try:
                return test(*(args[:len(args) - n] if n else args))
            finally:
                snap.restore()
        return run
    return step, guard


def _loop(test, body, state, names, loc, opts, for_loop):
    where = f"{loc[0]}:{loc[1]}"
    maximum_iterations, shape_invariants = opts
    invariants = None
    if shape_invariants:
        invariants = [shape_invariants.get(n) for n in names]
    if for_loop is None:
        step = _checked(body, names)
    init = _containers_as_state(list(state))
    # Variables first assigned inside (`Undefined`) and a return value not set yet
    # (`UNSET`) are "no value yet" placeholders: runtime.while_loop gives them the type
    # the body gives them (as it does a Python number); here only the names and errors.
    first = [n for n, v in zip(names, init) if is_undefined(v)]
    with first_assigned_errors(first, where):
        if for_loop is None:
            loop_test, loop_step, loop_names, loop_inv = test, step, names, invariants
            if first:  # count the iterations: the first-assigned values exist after one
                init = [runtime.constant(0, np.int64)] + init
                loop_names = ("<iteration count>",) + names
                loop_inv = None if invariants is None else [None] + invariants

                def loop_test(i, *s):
                    return test(*s)

                def loop_step(i, *s):
                    return (i + 1,) + tuple(step(*s))
            out = runtime.while_loop(lambda *s: loop_test(*s), loop_step, init,
                                     maximum_iterations=maximum_iterations,
                                     names=list(loop_names) or None, shape_invariants=loop_inv,
                                     flags=_jump_flags(names))
        else:
            out = _for_loop(for_loop, body, init, names, maximum_iterations,
                            invariants, where)
            if not first:
                out = out[1:]
    if first:
        out = first_assigned_after(out[0], list(out[1:]), names, first, where)
    _refuse_grown_caller_lists(state, out, names, where)
    out = [_write_back(a, b) for a, b in zip(state, out)]
    return pack(tuple(_as_python_number(a, b) for a, b in zip(state, out)), names)


def _refuse_grown_caller_lists(state, out, names, where: str) -> None:
    """A symbolic loop that grows a list the caller passed in (`xs.append(v)` on an
    argument or an alias of one): the caller's list would need as many items as the loop
    runs, which the trace cannot know, and the graph list the loop makes of it is the
    function's own. Refused, rather than leave the caller's list unchanged."""
    root = tracing.current_graph()
    while root is not None and root.parent is not None:
        root = root.parent
    caller = getattr(root, "caller_containers", None)
    if not caller:
        return
    for name, before, after in zip(names, state, out):
        if type(before) is list and id(before) in caller and type(after) is not list:
            raise Diagnostic(
                f"{where}: this symbolic loop grows the list '{name}' that the caller passed "
                "in, as many times as the inputs decide: a graph cannot give the caller's "
                f"list those items. Build a new list in the function and return it (`{name} "
                f"= list({name})` before the loop), or make the loop's bound a Python number.")


def _as_python_number(initial, final):
    """A Python int or float loop variable (or a value standing for one: weak) leaves the
    loop as a Python number, as the Python loop leaves it, not as the NumPy scalar the
    graph carries it as."""
    stands_for_number = type(initial) in (int, float) or \
        isinstance(initial, runtime.Tensor) and initial.weak
    if stands_for_number and isinstance(final, runtime.Tensor) and final.weak \
            and final.ndim == 0:
        return share_kinds(final, python_number(final))
    return final


def _containers_as_state(init: list) -> list:
    """Python lists and dicts that are loop variables, as copies (the caller's object is
    updated in place after the loop, `_write_back`, as Python would have mutated it).
    runtime.while_loop carries them as nested structures of their items (as tf.function
    does), and a list whose length the body changes (`xs.append(v)`) as a graph list."""
    return [_copy(v) if type(v) in (list, dict) else v for v in init]


def _copy(v):
    """A copy of the list / dict structure of `v` (not of its leaves)."""
    if type(v) is list:
        return [_copy(x) for x in v]
    if type(v) is dict:
        return {k: _copy(x) for k, x in v.items()}
    return v


def _write_back(orig, new):
    """`new` (a loop's result for a list / dict loop variable) stored into the caller's
    object `orig`, keeping the identity of `orig` and of the containers inside it."""
    if type(orig) is list and type(new) is list and len(orig) == len(new):
        orig[:] = [_write_back(a, b) for a, b in zip(orig, new)]
        return orig
    if type(orig) is dict and type(new) is dict and list(orig) == list(new):
        for k in orig:
            orig[k] = _write_back(orig[k], new[k])
        return orig
    return new


def _for_step(seq, body, names):
    def step(i, *s):
        return (i + 1,) + _body_or_raise(body, (seq.get(i),) + s, s, names)
    return step


def _checked(body, names):
    def run(*args):
        return _body_or_raise(body, args, args, names)
    return run


def _body_or_raise(body, args, state, names) -> tuple:
    """`body(*args)` as the new state; a user's `raise` in it becomes a graph-side raise
    (the iteration that reaches it raises at run time) and the state passes unchanged."""
    try:
        out = body(*args)
    except Exception as e:
        if not defer_raise(e):
            raise
        return tuple(state)
    return keep_carried(state, carry_read_first(names, unpack(out, names)))


def _for_loop(for_loop, body, init, names, maximum_iterations, invariants, where):
    seq, extra_test = for_loop
    n = seq.length()

    def cond(i, *s):
        more = i < n
        if extra_test is None:
            return more
        return np.logical_and(more, extra_test(*s))

    step = _for_step(seq, body, names)
    loop_names = ["<iteration index>"] + list(names)
    inv = None if invariants is None else [None] + list(invariants)
    start = runtime.constant(0, np.int64)  # a symbolic index: one graph loop, not unrolled
    init = [start] + list(init)
    out = runtime.while_loop(cond, step, tuple(init), maximum_iterations=maximum_iterations,
                             names=loop_names, shape_invariants=inv, flags=_jump_flags(names))
    return out  # with the iteration index first


# the flags converted `break`/`continue`/`return` set (converters/block_jumps.py and
# return_statements.py name them): tested only, so no kind of value is carried for them
_JUMP_FLAG = re.compile(r"(break_|continue_|do_return)(_\d+)?")


def _jump_flags(names) -> tuple:
    return tuple(n for n in names or () if _JUMP_FLAG.fullmatch(n))
