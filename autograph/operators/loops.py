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
        opts = (maximum_iterations, shape_invariants)
        return _symbolic_loop(None, body, state, names, caller_location(), opts,
                              (symbolic_iterable(iterable), extra_test))
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
    import runtime

    where = f"{loc[0]}:{loc[1]}"
    for name, value in zip(names, state):
        if is_undefined(value):
            raise Diagnostic(
                f"{where}: '{name}' is first assigned inside this symbolic loop and used "
                f"after it (or in a later iteration). A symbolic loop needs its variables "
                f"defined before it: give '{name}' an initial value before the loop, with "
                f"the dtype and shape it has inside.")
    maximum_iterations, shape_invariants = opts
    invariants = None
    if shape_invariants:
        invariants = [shape_invariants.get(n) for n in names]
    init = [lists.to_loop_var(v, n, where) for v, n in zip(state, names)]
    if for_loop is None:
        step = _checked(body, names)
        init = _typed_initial_values(step, init)
        out = runtime.while_loop(lambda *s: test(*s), step, init,
                                 maximum_iterations=maximum_iterations,
                                 names=list(names) or None, shape_invariants=invariants)
    else:
        out = _for_loop(runtime, for_loop, body, init, names, maximum_iterations, invariants)
    return pack(tuple(out), names)


def _checked(body, names):
    def run(*args):
        return unpack(body(*args), names)
    return run


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


def _for_loop(runtime, for_loop, body, init, names, maximum_iterations, invariants):
    seq, extra_test = for_loop
    n = seq.length()

    def cond(i, *s):
        more = i < n
        if extra_test is None:
            return more
        return np.logical_and(more, extra_test(*s))

    def step(i, *s):
        return (i + 1,) + unpack(body(seq.get(i), *s), names)

    loop_names = ["<iteration index>"] + list(names)
    inv = None if invariants is None else [None] + list(invariants)
    start = runtime.constant(0, np.int64)  # a symbolic index: one graph loop, not unrolled
    init = _typed_initial_values(step, [start] + list(init), offset=1)
    out = runtime.while_loop(cond, step, tuple(init), maximum_iterations=maximum_iterations,
                             names=loop_names, shape_invariants=inv)
    return out[1:]
