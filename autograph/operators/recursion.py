"""How deep converted code may recurse: the recursion limit counted in user-level calls.

Generated code reaches these through `ag__`: the compiler wraps the body of every function
it converts as

    ag__level = ag__.enter_call() if ag__.tracing_anywhere else None
    try:
        <body>
    except RecursionError as e:   # the outermost call explains one while tracing
        ...
    finally:
        if ag__level is not None:
            ag__.leave_call(ag__level)

(`ag.to_code` shows the body only). That code runs only while a trace is being built on
any thread: outside one nothing is symbolic, every control-flow statement runs inline, a
level is one frame as in Python, and the program's own limit is the right one - so each
converted function also has a plain code without the wrapper, which it runs then
(`impl/counting.py` switches them). `tracing_anywhere` is the runtime's list of graphs
being built on any thread (non-empty while one is): a call that started before a trace
did is not counted.
"""
from __future__ import annotations

import sys
import threading
from typing import Callable

from autograph.operators.call import explain_recursion
from runtime.core.tracing import building as tracing_anywhere  # noqa: F401 (for `ag__`)


# -- recursion in converted code ----------------------------------------------------------
# Converted code spends several Python frames per user-level call (the function, the
# `if_stmt` operator and the branch function). So that a recursive function
# reaches the depth it reaches unconverted, the recursion limit is read as a number of
# *user-level* calls while converted calls nest: a few levels deep, the frames per level
# are measured and the limit is set to what the program's own limit allows at that rate
# (at most _MAX_FRAMES: the C stack bounds how far it can safely go); it is restored when
# the outermost converted call returns. A converted function counts its own calls (the
# compiler wraps its body in `enter_call` / `leave_call`), so it needs no wrapper frame
# and its callees see its caller as Python shows it; a library callee is not counted.
class _Stack(threading.local):
    depth = 0       # nested converted calls (class defaults: no AttributeError to catch)
    first = None    # (depth, frames) at the first measurement
    room = False    # this thread raised the limit


_STACK = _Stack()
_CHECK_AT = frozenset({8, 16, 32})
_MAX_FRAMES = 25_000
_LIMIT_LOCK = threading.Lock()
_ROOM = {"threads": 0, "limit": 0}  # threads that raised the limit; the limit before


def enter_call() -> int:
    """A converted function starts: one more user-level call on this thread (the depth
    before it is returned, for `leave_call`)."""
    stack = _STACK
    depth = stack.depth
    if depth in _CHECK_AT or (depth and not depth % 64):
        _make_room(stack, depth)
    stack.depth = depth + 1
    return depth


def leave_call(depth: int) -> None:
    """The converted function that `enter_call` returned `depth` to has returned."""
    stack = _STACK
    stack.depth = depth
    if not depth and stack.first is not None:
        _restore_limit(stack)


def explained_recursion(e: RecursionError, depth: int) -> Exception | None:
    """What the outermost converted call (`depth` 0, where the stack has room again)
    raises instead of a RecursionError while tracing; None: re-raise it (also for a call
    that was not counted, `depth` None: no trace was being built when it started)."""
    return explain_recursion(e) if depth == 0 else None


def counted_call(g: Callable, *args, **kwargs):
    """`g(*args, **kwargs)` counted as a user-level call: for converted code that does
    not count its own calls (written by `autograph convert`, nested converted defs)."""
    depth = enter_call()
    try:
        return g(*args, **kwargs)
    except RecursionError as e:
        explained = explained_recursion(e, depth)
        if explained is not None:
            raise explained from None
        raise
    finally:
        leave_call(depth)


def _make_room(stack, depth: int) -> None:
    frame, used = sys._getframe(), 0
    while frame is not None:
        used, frame = used + 1, frame.f_back
    first = stack.first
    if first is None or first[0] >= depth:
        stack.first = first = (depth, used)
        per_level = -(-used // depth)  # an over-estimate until the next measurement
    else:
        per_level = max(1, -(-(used - first[1]) // (depth - first[0])))
    with _LIMIT_LOCK:
        current = sys.getrecursionlimit()
        base = _ROOM["limit"] if _ROOM["threads"] else current
        outside = max(0, first[1] - first[0] * per_level)  # frames below the recursion
        wanted = min(_MAX_FRAMES, outside + (base - outside) * per_level + 2 * per_level)
        if wanted <= base and not stack.room:
            return  # the program's own limit is room enough
        if not stack.room:  # every thread relying on the room counts
            stack.room = True
            if not _ROOM["threads"]:
                _ROOM["limit"] = current
            _ROOM["threads"] += 1
        if _ROOM["threads"] > 1:
            wanted = max(wanted, current)  # other threads may be deep: never lower it
        wanted = max(wanted, base)
        if wanted <= used + per_level:  # the user-level depth the program's limit allows is
            raise RecursionError("maximum recursion depth exceeded")  # spent, as in Python
        if wanted != current:
            sys.setrecursionlimit(wanted)


def _restore_limit(stack) -> None:
    """The outermost converted call of this thread returned: the program's own limit is
    back once no other thread needs the room."""
    with _LIMIT_LOCK:
        if stack.room:
            _ROOM["threads"] -= 1
            if not _ROOM["threads"]:
                sys.setrecursionlimit(max(_ROOM["limit"], 100))
        stack.room = False
        stack.first = None
