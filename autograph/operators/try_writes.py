"""Writing back a graph `try`'s state where the body writes through subscripts or attributes.

The graph form of a `try` (converters/try_statements.py) carries what its body writes as
state: a variable, an attribute path (`box.count`, read with `ld_attr`) and the variable
a subscript store writes into (`xs[0] = v`: `xs`). The runtime hands each path's state
back as new values (what the variables held where the error was raised, then the node's
outputs); a list or dict must still be the object other names and the caller hold, so
it is written back item by item, in place, rather than rebound:

    def try_set_state(vars_):
        nonlocal xs
        xs = ag__.put_back(lambda: xs, vars_[0])      # xs[:] = the new items
        ag__.put_attr(box, 'count', vars_[1])        # box.count = the new value
"""
from __future__ import annotations

from typing import Callable

from autograph.operators.variables import Undefined, ld_attr, set_attr


def put_back(current: Callable, new):
    """The value a variable takes: `new`, written into the list or dict it holds (read
    by `current`) when `new` has the same structure."""
    try:
        old = current()
    except NameError:  # (unbound so far)
        return new
    return _in_place(old, new)


def put_attr(obj, path: str, new) -> None:
    """`obj.<path> = new`, writing into the list or dict it holds in place (see
    `put_back`); an `Undefined` value leaves the attribute missing (`set_attr`)."""
    old = ld_attr(obj, path)
    if type(old) is not Undefined:
        new = _in_place(old, new)
        if new is old:
            return
    set_attr(obj, path, new)


def _in_place(old, new):
    if type(old) is list and type(new) is list and len(old) == len(new):
        for i, (o, n) in enumerate(zip(old, new)):
            value = _in_place(o, n)
            if value is not o:
                old[i] = value
        return old
    if type(old) is dict and type(new) is dict and old.keys() == new.keys():
        for k, n in new.items():
            value = _in_place(old[k], n)
            if value is not old[k]:
                old[k] = value
        return old
    return new
