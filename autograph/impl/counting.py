"""Two codes per converted function: one that counts its own calls for the recursion room
(`operators/recursion.py`), run while a trace is being built on any thread, and the plain
converted body, run otherwise.

Only symbolic control flow spends more than one frame per user-level call, and outside a
trace nothing is symbolic: there a level is one frame, as in Python, and counting would
only cost time (a load, a test and a store per call, a test per `return`: a third of a
small recursive function's time). So the compiler makes both codes from the converted
function (`count_calls`), with the same free variables, and every converted function
runs the one that fits: `runtime.core.tracing` calls `code_switch.switch` when the first
graph starts being built and when the last one is done, which sets the `__code__` of every
converted function alive (those `autograph convert` writes too). A call already running keeps its code: a level it did not count is one
frame short in the room's measure, and a count it made is undone by its own `finally`.
"""
from __future__ import annotations

import types

from autograph.converters.python_copy import without_copy
from autograph.pyct import code_switch, templates
from runtime.core import tracing

_COUNTED_BODY = """\
level = ops.enter_call() if ops.tracing_anywhere else None
try:
    body
except RecursionError as error:
    explained = ops.explained_recursion(error, level)
    if explained is None:
        raise
    raise explained from None
finally:
    if level is not None:
        ops.leave_call(level)
"""
# (never runs: it makes the plain code's free variables the counted code's, which
# `__code__` assignment requires; the counted code reads `tracing_anywhere` through the
# operators, so that a function that reads no tracing cell of its own copies none into
# each frame of its plain code)
_SAME_CELLS = "if False:\n    ops"

_COUNTING: dict = {}  # id(code) -> code, for both codes of every converted function
_PAIRS: dict = {}     # id(counted code) -> (counted code, plain code)


def count_calls(node, ctx) -> tuple:
    """Wrap the converted function `node`'s body so that it counts its own calls for the
    recursion room - in its own frame, so nothing stands between it and its caller
    (`to_code` shows the body without it). Returns its plain twin: a def of the body as
    it was. (The counted code runs while a trace is being built: it leaves out the
    Python-values copy, `converters/python_copy.py`, which its twin keeps.)"""
    twin = templates.clone(node)  # (named as `node`: the code nested in both is merged
    # by the compiler, so it must have one qualified name)
    level, error, explained = (ctx.namer.new(n) for n in ("ag__level", "ag__error",
                                                          "ag__explained"))
    node.body = templates.replace(_COUNTED_BODY, origin=node, ops=ctx.out.ops_name,
                                  level=level, error=error, explained=explained,
                                  body=without_copy(node.body))
    last = twin.body[-1] if twin.body else twin
    twin.body = twin.body + templates.replace(_SAME_CELLS, origin=last, ops=ctx.out.ops_name)
    return twin


def pair(counted: types.CodeType, plain: types.CodeType) -> None:
    """Record the two codes of one converted function (when they can take each other's
    place; else the function always runs the counted code)."""
    _COUNTING[id(counted)] = counted
    if counted.co_freevars == plain.co_freevars:
        _COUNTING[id(plain)] = plain
        _PAIRS[id(counted)] = (counted, plain)


def counts_its_calls(code) -> bool:
    """Whether `code` is a converted function's (either code: it counts its own calls
    while a trace is being built), which converted code calls directly, with no wrapper
    frame."""
    return _COUNTING.get(id(code)) is code


def adopt(fn: types.FunctionType) -> None:
    """Give the new converted function `fn` (made with its counted code) the code that
    fits now, and switch it with every other from then on (`pyct/code_switch.py`)."""
    codes = _PAIRS.get(id(fn.__code__))
    if codes is None or codes[0] is not fn.__code__:
        return
    code_switch.adopt(fn, *codes)


code_switch.hook(tracing.BUILDING_CHANGED)
