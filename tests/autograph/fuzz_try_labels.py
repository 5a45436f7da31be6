"""The fuzzer's "try_labels" feature (with "graph_try", fuzz_try.py): Python values that
are not numbers set on the paths through a graph `try`.

Generated: `label = '<name>'` in handlers, `else` and `finally` blocks and anywhere else
(so inside symbolic branches and loops too), a string set before the function's first
statement and returned with the results; and around some `try`s, a variable bound only
by the handlers and the `else` (`m1 = 'handler 0'` / `m1 = 'else'`), then `label = m1`. Python picks the string of the path taken; a
graph can choose between arrays and numbers only, so where paths known only when the
graph runs give different strings, the outcome is a documented error at the user's line
(`REFUSALS`), never the string of another path - what the graph gave before a `try` node
kept the value every path gives (fuzz seeds of this feature found it).

A separate feature so that the programs of "graph_try" alone (and their regression
seeds) stay the same.
"""
from __future__ import annotations

FEATURE = "try_labels"
KINDS = ("label_set",)
# what a graph says when paths give different Python objects (conditionals' and the
# graph `try`'s errors; counted as documented refusals by fuzz_try)
REFUSALS = ("can choose between arrays and numbers, not between other Python objects",
            "a loop variable that is not a number or array must not change inside a "
            "symbolic loop")


def setup(features) -> list:
    return ["label = 'start'"] if FEATURE in features else []


def observed(features) -> list:
    return ["label"] if FEATURE in features else []


def kinds(gen, env) -> list:
    return list(KINDS) if FEATURE in gen.features else []


def stmt(gen, kind: str, env, pad: str, lines: list) -> bool:
    lines.append(f"{pad}label = {gen.fresh('L')!r}")
    return False


def path_message(gen, env) -> str | None:
    """The name of a variable the handlers and `else` of this `try` bind, or None (in a
    loop, where a variable first bound inside it is the documented loop error)."""
    return gen.fresh("m") if FEATURE in gen.features and not env.loop_depth and \
        gen.chance(0.4) else None


def in_handler(gen, pad: str, lines: list) -> None:
    """Maybe set the label first thing in a handler, `else` or `finally` block."""
    if FEATURE in gen.features and gen.chance(0.5):
        lines.append(f"{pad}label = {gen.fresh('H')!r}")
