"""The fuzzer's "try_writes" feature (with "graph_try", fuzz_try.py): writes and jumps in
`finally` inside graph `try`s.

Generated statements (anywhere, so inside `try` bodies, handlers and `finally` too):
- `cell.v = <float>` / `cell.v += <float>`: an attribute of an object the function made
  (`cell = Cell()`, a module-level class), returned with the results;
- `cells[i] = <int>` / `cells[i] += <int>` for i in 0..1: items of a list, returned too;
- `xs[<index>] = <float>`: the argument array (the runner compares it after the call),
  sometimes with an index that may be out of range (`xs[k - 3] = ...`: an `IndexError`
  raised by the write itself);
and in `finally`: random statements and a jump under a condition (`return ...`, or
`break` / `continue` inside a loop), which drops the error passing through.

A separate feature so that the programs of "graph_try" alone (and their regression
seeds) stay the same.
"""
from __future__ import annotations

FEATURE = "try_writes"
HELPERS = "class Cell:\n    def __init__(self):\n        self.v = 0.0\n\n\n"
KINDS = ("attr_write", "item_write", "xs_write")


def setup(features) -> list:
    return ["cell = Cell()", "cells = [0, 1]"] if FEATURE in features else []


def observed(features) -> list:
    # (flat: a list in the returned tuple is another matter, kept out of this feature)
    return ["cell.v", "cells[0]", "cells[1]"] if FEATURE in features else []


def kinds(gen, env) -> list:
    return list(KINDS) if FEATURE in gen.features else []


def stmt(gen, kind: str, env, pad: str, lines: list) -> bool:
    r = gen.r
    if kind == "attr_write":
        op = "+=" if gen.chance(0.4) else "="
        lines.append(f"{pad}cell.v {op} {gen.float_expr(env, 1)}")
    elif kind == "item_write":
        i = r.randint(0, 1)
        if gen.chance(0.4):
            lines.append(f"{pad}cells[{i}] += {gen.bounded_int(env)}")
            lines.append(f"{pad}cells[{i}] = cells[{i}] % 1009")
        else:
            lines.append(f"{pad}cells[{i}] = {gen.int_value(env)}")
    elif any(v.startswith("e") for v in env.fvars):
        # inside `for e in xs` (writing the array a loop iterates over is refused)
        lines.append(f"{pad}cell.v = {gen.float_expr(env, 1)}")
    else:
        index = f"{gen.bounded_int(env)} - 3" if gen.chance(0.3) else gen.index(env)
        lines.append(f"{pad}xs[{index}] = {gen.float_expr(env, 1)}")
    return False


def finally_extra(gen, env, pad: str, lines: list) -> None:
    """More in a `finally` (after its note): statements, then a jump under a condition."""
    if FEATURE not in gen.features:
        return
    inner = env.child()
    inner.if_depth += 1
    if gen.chance(0.4):
        gen.block(inner, len(pad) // 4, lines, max_stmts=2)  # (`pad`: the block's own)
    if gen.chance(0.6):
        if env.loop_depth and gen.chance(0.6):
            jump = gen.r.choice(["break", "continue"])
        else:
            jump = gen.ret_stmt(env)
        lines.append(f"{pad}if {gen.cond(env)}:")
        lines.append(f"{pad}    {jump}")
