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
- A `for` over a Tensor (first axis), a `range` with symbolic bounds, or `enumerate` /
  `zip` of those becomes one `while_loop` over an index.

Loop variables that are `Undefined` on entry of a symbolic loop are an error naming the
variable; `UNSET` (a return value not set yet) takes the type the body gives it.
"""
from __future__ import annotations

from typing import Callable, Sequence

import numpy as np

from autograph.errors import caller_location
from autograph.operators import lists
from autograph.errors import Diagnostic
from autograph.operators.conditionals import is_symbolic, pack, unpack
from autograph.operators.variables import UNSET, is_undefined


def while_stmt(test: Callable, body: Callable, state: Sequence = (), names: Sequence[str] = (),
               maximum_iterations=None, shape_invariants=None):
    """`while test(*state): state = body(*state)`; returns the final state."""
    state = tuple(state)
    names = tuple(names)
    while True:
        cond = test(*state)
        if is_symbolic(cond):
            opts = (maximum_iterations, shape_invariants)
            return _symbolic_loop(test, body, state, names, caller_location(), opts, None)
        if not cond:
            return pack(state, names)
        state = unpack(body(*state), names)


def for_stmt(iterable, body: Callable, state: Sequence = (), names: Sequence[str] = (),
             extra_test: Callable | None = None, maximum_iterations=None,
             shape_invariants=None):
    """`for item in iterable: state = body(item, *state)`, stopping when `extra_test`
    (if given) is false; returns the final state."""
    from autograph.operators.py_builtins import SymbolicIterable, symbolic_iterable

    state = tuple(state)
    names = tuple(names)
    if is_symbolic(iterable) or isinstance(iterable, SymbolicIterable):
        seq = symbolic_iterable(iterable)
        if seq.static_length() == 0:
            return pack(state, names)  # known empty: the body never runs, as in Python
        opts = (maximum_iterations, shape_invariants)
        return _symbolic_loop(None, body, state, names, caller_location(), opts,
                              (seq, extra_test))
    it = iter(iterable)
    while True:
        if extra_test is not None:
            keep_going = extra_test(*state)
            if is_symbolic(keep_going):
                return _predicated(it, body, state, names, extra_test, keep_going)
            if not keep_going:
                break
        try:
            item = next(it)
        except StopIteration:
            break
        state = unpack(body(item, *state), names)
    return pack(state, names)


def _predicated(it, body, state, names, extra_test, keep_going):
    """The rest of a Python loop, each iteration under `if keep_going:` (symbolic)."""
    from autograph.operators.conditionals import _symbolic_if

    loc = caller_location(3)
    for item in it:
        if is_symbolic(keep_going):
            out = _symbolic_if(keep_going, lambda *s, item=item: body(item, *s), None,
                               state, names or (), loc, what="loop iteration")
            state = unpack(out, names) if names else ()
        elif keep_going:
            state = unpack(body(item, *state), names)
        else:
            break
        keep_going = extra_test(*state)
    return pack(state, names)


def _symbolic_loop(test, body, state, names, loc, opts, for_loop):
    """A symbolic loop; Python container locations its body replaces in place
    (`containers.py`) are carried as extra loop variables and set after the loop."""
    from autograph.operators import containers
    from runtime import tracing

    where = f"{loc[0]}:{loc[1]}"
    extra_test = for_loop[1] if for_loop is not None else None
    snap = containers.Snapshot(containers.roots_of(body, test, extra_test, values=state),
                               names)
    if not snap:
        return _loop(test, body, state, names, loc, opts, for_loop)
    graph = tracing.current_graph()
    carried: list = []
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
    from autograph.operators import containers

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
    import runtime

    where = f"{loc[0]}:{loc[1]}"
    maximum_iterations, shape_invariants = opts
    invariants = None
    if shape_invariants:
        invariants = [shape_invariants.get(n) for n in names]
    if for_loop is None:
        step = _checked(body, names)
        init = _containers_as_state(step, list(state), names, where)
    else:
        init = _containers_as_state(_for_step(for_loop[0], body, names), [0] + list(state),
                                    names, where, offset=1)[1:]
    first = [n for n, v in zip(names, init) if is_undefined(v)]
    if for_loop is None:
        init = _first_assigned(step, init, names, where)
        init = _typed_initial_values(step, init)
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
                                 names=list(loop_names) or None, shape_invariants=loop_inv)
    else:
        out = _for_loop(runtime, for_loop, body, init, names, maximum_iterations, invariants,
                        where)
        if not first:
            out = out[1:]
    if first:
        _check_ran(runtime, out[0], first, where)
        out = out[1:]
    out = [_write_back(a, b) for a, b in zip(state, out)]
    return pack(tuple(out), names)


def _containers_as_state(step, init: list, names, where: str, offset: int = 0) -> list:
    """Python lists and dicts that are loop variables: a list whose length the body keeps
    (`y[0] += 1`) and a dict are carried as nested structures of their items (as
    tf.function does); a list the body appends to becomes a graph list
    (`lists.to_loop_var`). Either way a copy: the caller's object is updated in place
    after the loop (`_write_back`), as Python would have mutated it."""
    ks = [k for k, v in enumerate(init) if k >= offset and type(v) in (list, dict)]
    if not ks:
        return init
    init = list(init)
    lists_k = [k for k in ks if type(init[k]) is list]
    out = None
    if lists_k:
        out = _probe(_probe_step(step, offset), [_copy(v) for v in init])
    for k in ks:
        v = init[k]
        if type(v) is dict or (out is not None and type(out[k]) is list and
                               len(out[k]) == len(v)):
            init[k] = _copy(v)
        else:
            init[k] = lists.to_loop_var(v, names[k - offset], where)
    return init


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


def _probe_step(step, offset: int):
    """`step` to probe in a scratch graph; a `for` step gets an unknown index (as in the
    loop, not item 0)."""
    if not offset:
        return step
    from runtime import tracing

    def probed(i, *s):
        return step(tracing.current_graph().add_input((), np.int64), *s)
    return probed


def _for_step(seq, body, names):
    def step(i, *s):
        return (i + 1,) + _body_or_raise(body, (seq.get(i),) + s, s, names)
    return step


def _first_assigned(step, init: list, names, where: str, offset: int = 0) -> list:
    """Loop variables first assigned inside a symbolic loop (`Undefined` on entry) take
    the type the body gives them (traced once into a scratch graph, as tf.function
    does): their initial value is a stand-in, replaced by the first iteration, and a
    run-time check (`_check_ran`) raises if the loop ran zero times. A body that reads
    one before assigning it, or does not assign it on every path, is an error."""
    from runtime.control_flow.while_loop import stand_in
    from runtime import Tensor

    undefined = [k for k, v in enumerate(init) if k >= offset and is_undefined(v)]
    if not undefined:
        return init
    out = _probe(_probe_step(step, offset), init)
    for k in undefined:
        name = names[k - offset]
        if out is None or not isinstance(out[k], (Tensor,) + _TYPED + _WEAK):
            raise Diagnostic(
                f"{where}: '{name}' is first assigned inside this symbolic loop and used "
                f"after it (or in a later iteration), but the loop body reads it before "
                f"assigning it, does not assign it on every path, or gives it a value that is not "
                f"an array or a number. A symbolic loop "
                f"needs its variables defined before it: give '{name}' an initial value "
                f"before the loop, with the dtype and shape it has inside.")
    init = list(init)
    for k in undefined:
        init[k] = stand_in(out[k])
    return init


def _check_ran(runtime, count, first: list, where: str) -> None:
    """Raise, when the graph runs, Python's UnboundLocalError for the first variable
    that only a loop's body assigns, if that loop ran zero times."""
    from autograph.operators.variables import _unbound
    from runtime.effects import raise_

    name = first[0]
    note = (f"{where}: the symbolic loop here ran zero times, and '{name}' is first "
            f"assigned inside it; give '{name}' a value before the loop")

    def unbound():
        raise_(_unbound(name), note)
        return ()

    runtime.cond(count == 0, unbound, lambda: ())


def _checked(body, names):
    def run(*args):
        return _body_or_raise(body, args, args, names)
    return run


def _body_or_raise(body, args, state, names) -> tuple:
    """`body(*args)` as the new state; a user's `raise` in it becomes a graph-side raise
    (the iteration that reaches it raises at run time) and the state passes unchanged."""
    from autograph.operators.conditionals import defer_raise

    try:
        out = body(*args)
    except Exception as e:
        if not defer_raise(e):
            raise
        return tuple(state)
    return unpack(out, names)


_WEAK = (bool, int, float, complex)
_TYPED = (np.ndarray, np.generic)


def _typed_initial_values(step, init: list, offset: int = 0) -> list:
    """Give UNSET loop variables (a return value not set yet) the type the body gives
    them, and then Python-number loop variables too.

    Python numbers alone are left to `runtime.while_loop`, which traces the body once into
    a scratch graph with them left as Python values, so NumPy's promotion rules (NEP 50)
    decide as in the original (`s = 0.0` then `s = s + x` with a float32 `x` makes a
    float32 loop variable). The runtime does not know UNSET, so a loop that returns is
    traced here the same way instead, once - and once more with every number symbolic
    only if that did not give the return value a type (it came out UNSET or holding a
    Python number). Python side effects of the body run once per such trace."""
    unset = [k for k, v in enumerate(init) if k >= offset and v is UNSET]
    if not unset:
        return init
    from runtime import Tensor, tracing

    from autograph.operators.conditionals import zeros_like

    numbers = [k for k, v in enumerate(init) if k >= offset and type(v) in _WEAK]
    out = _probe(step, init, reraise=True)
    init, typed = list(init), list(init)
    # A number typed by one iteration can type another in the next (`r += s` once `s` is
    # int32): probe again until no dtype moves, as the Python loop's iterations would.
    for last in range(len(numbers) - 1, -1, -1):  # rounds as in runtime.loops
        moved = [k for k in numbers if isinstance(out[k], (Tensor,) + _TYPED) and
                 np.ndim(out[k]) == 0 and not (isinstance(typed[k], _TYPED) and
                                                typed[k].dtype == out[k].dtype)]
        for k in moved:
            typed[k] = np.asarray(init[k], dtype=out[k].dtype)
        if not moved or not last or (again := _probe(step, typed)) is None:
            break
        out = again
    for k in numbers:
        init[k] = np.asarray(typed[k])
    if not all(_typed(out[k]) for k in unset):
        def placeholders_step(*vals):
            g = tracing.current_graph()
            args = [g.add_input(np.shape(v), np.asarray(v).dtype) if k >= offset and
                    isinstance(v, _TYPED) else v for k, v in enumerate(vals)]
            return step(*args)
        out = _probe(placeholders_step, init) or out
    for k in unset:
        init[k] = zeros_like(out[k])
    return init


def _typed(value) -> bool:
    """Whether a value (or every leaf of a tuple / list / dict) has a dtype."""
    from runtime import Tensor

    if isinstance(value, (tuple, list)):
        return all(_typed(v) for v in value)
    if isinstance(value, dict):
        return all(_typed(v) for v in value.values())
    return isinstance(value, (Tensor,) + _TYPED)


def _probe(step, init, reraise=False):
    """The body's outputs, traced into a scratch graph. An error is the user's error
    (with the user's line), raised again where the loop could not be traced without the
    probe (a return value still UNSET); else the real trace reports it."""
    from runtime import Graph, tracing

    try:
        with tracing.graph_context(Graph("probe", parent=tracing.current_graph())):
            return step(*init)
    except Exception:
        if reraise:
            raise
        return None


def _for_loop(runtime, for_loop, body, init, names, maximum_iterations, invariants, where):
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
    init = _first_assigned(step, [start] + list(init), names, where, offset=1)
    init = _typed_initial_values(step, init, offset=1)
    out = runtime.while_loop(cond, step, tuple(init), maximum_iterations=maximum_iterations,
                             names=loop_names, shape_invariants=inv)
    return out  # with the iteration index first
