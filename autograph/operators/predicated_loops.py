"""The rest of a Python loop run under a symbolic condition, iteration by iteration:
`predicated` after a `break`/`return` flag turned symbolic, `predicated_count` under a
symbolic `maximum_iterations` (`ag.set_loop_options`). Each iteration is a symbolic `if`
whose branch is the loop body; `loops.py` chooses when.

    for item in items:            # items a Python list, the flag symbolic from now on
        body(item)          ->    for item in items: if keep_going: body(item)
"""
from __future__ import annotations

import numpy as np

from autograph.errors import caller_location
from autograph.operators import logical
from autograph.operators.conditionals import _symbolic_if, is_symbolic, pack, unpack


def predicated(it, body, state, names, extra_test, keep_going):
    """The rest of a Python loop, each iteration under `if keep_going:` (symbolic)."""
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


def predicated_count(it, body, state, names, extra_test, limit):
    """A `for` over a Python iterable under a symbolic `maximum_iterations`: iteration
    `k` runs under `if k < limit` (and the break / return flag, if any)."""
    loc = caller_location(3)
    for k, item in enumerate(it):
        keep_going = np.less(k, limit)
        if extra_test is not None:
            keep_going = logical.and_(keep_going, lambda: extra_test(*state))
        out = _symbolic_if(keep_going, lambda *s, item=item: body(item, *s), None,
                           state, names or (), loc, what="loop iteration")
        state = unpack(out, names) if names else ()
    return pack(state, names)
