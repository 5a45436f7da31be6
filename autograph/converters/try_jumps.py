"""`break` / `continue` / `return` inside a `try` become a jump code, so that the `try`
can take its graph form (converters/try_statements.py), whose parts are functions.

    for k in range(n):                      for k in range(n):
        try:                                    try_jump = 0
            y = f(x)                            try:
            if y > 0:                               y = f(x)
                break                               if y > 0:
            s = s + y                                   try_jump = 1
        except E:                    =>             if try_jump == 0:
            continue                                    s = s + y
        finally:                                except E:
            ag.print(k)                             try_jump = 0
        s = s * 2                                   try_jump = 2
                                                finally:
                                                    ag.print(k)
                                                if try_jump == 1:
                                                    break
                                                if try_jump == 2:
                                                    continue
                                                s = s * 2

A jump sets the code (and `return v` also assigns `try_return = v`, which is
`ag__.UNSET` before the `try`, as for the returns of loops, or a tuple of them when
every `return` gives a tuple of one length) and the rest of
each enclosing block is skipped where the code is set. Python runs `finally` when a
jump leaves the `try`, and the code's `finally` runs at the same point: after the
jump's statement, before the jump is made after the `try`. A handler starts with the
code at 0 (and the value to return unset): when a handler runs, no jump has left the
body (an error raised after a jump started, by a nested `finally`, abandons the jump,
as in Python). The `else`
runs only where the body did not jump. The jumps made after the `try` are converted
as any other (a symbolic code makes them symbolic).

A `return` inside a loop nested in the `try` also breaks out of that loop (and of each
loop around it, up to the `try`).

A jump in `finally` drops the error passing through and the jump pending from the body,
handlers or `else` (`lower_finally_jumps`). The `finally` becomes a catch-all handler
that re-raises where it did not jump, and the same code where nothing was raised; its
jumps get a code of their own, made before the others:

    try:                              try_jump = 0 ...; try_jump_1 = 0 ...
        B                             try:
    except E:                             try:
        H                       =>            B'  (jumps lowered: try_jump)
    finally:                              except E:
        if c:                                 H'
            return v                  except BaseException as try_error:
        F2                                F'  (jumps lowered: try_jump_1)
                                          if try_jump_1 == 0:
                                              raise try_error
                                      else:
                                          F'
                                      if try_jump_1 == 3:
                                          return try_return_1
                                      <the jumps of try_jump>
"""
from __future__ import annotations

import gast

from autograph.pyct import anno, templates
from autograph.pyct.blocks import blocks
from autograph.pyct.all_nodes import child_nodes

_LOOPS = (gast.For, gast.While, gast.AsyncFor)
_SCOPES = (gast.FunctionDef, gast.AsyncFunctionDef, gast.ClassDef, gast.Lambda)
_JUMP = (gast.Break, gast.Continue, gast.Return)
_CODES = {gast.Break: 1, gast.Continue: 2, gast.Return: 3}


def lower_jumps(t, namer, read_outside: frozenset = frozenset()) -> tuple | None:
    """Lower the jumps leaving the `try` statement `t` in place. Returns the statements
    to put before and after it (both empty when it has no jump), or None when they
    cannot be lowered (`t` is then unchanged). `read_outside`: the names the function
    reads outside the `try`."""
    parts = [t.body] + [h.body for h in t.handlers] + [t.orelse]
    found: list = []
    for block in parts:
        if not _scan(block, found):
            return None
    if not _scan_finally(t.finalbody):
        return None
    if not found:
        return [], []
    kinds = {type(j) for j in found}
    # (after a jump only `finally` and the code after the `try` run: a handler or `else`
    # reading a name the jump skipped cannot run after it)
    needed = frozenset(read_outside) | {
        n.id for n in _walk(t.finalbody) if isinstance(n, gast.Name) and
        isinstance(n.ctx, gast.Load)}
    # every way through the `try` that does not break, continue or raise returns
    ends = [t.orelse if t.orelse else t.body]
    always = all(b and isinstance(b[-1], gast.Return) for b in ends) and all(
        h.body and isinstance(h.body[-1], (gast.Return, gast.Raise)) for h in t.handlers)
    code = namer.new("try_jump")
    value = namer.new("try_return") if gast.Return in kinds else None
    unset = no_value_yet([j for j in found if isinstance(j, gast.Return)])
    body_jumps = _has_jump(t.body)
    t.body = _lower_block(t.body, code, value, needed)
    for h in t.handlers:
        reset = templates.replace("code = 0", origin=h, code=code)
        if value is not None:  # (an abandoned `return`'s value is never read)
            reset += templates.replace(f"value = {unset}", origin=h, value=value)
        h.body = reset + _lower_block(h.body, code, value, needed)
    if t.orelse:
        orelse = _lower_block(t.orelse, code, value, needed)
        if body_jumps:
            guard = templates.replace("if code == 0:\n    pass", origin=t.orelse[0],
                                      code=code)
            guard[0].body = orelse
            orelse = guard
        t.orelse = orelse
    before = templates.replace("code = 0", origin=t, code=code)
    if value is not None:  # "no value yet" (symbolic branches fill in the type)
        before += templates.replace(f"value = {unset}", origin=t, value=value)
    after = []
    for kind, stmt in ((gast.Break, "break"), (gast.Continue, "continue"),
                       (gast.Return, "return value")):
        if kind is gast.Return and always:
            after += templates.replace(stmt, origin=t, value=value)
        elif kind in kinds:
            after += templates.replace(f"if code == {_CODES[kind]}:\n    {stmt}", origin=t,
                                       code=code, value=value)
    mark_returned_value(after, unset)
    return before, after


def mark_returned_value(stmts: list, unset: str) -> None:
    """Record on each generated `return try_return` in `stmts` the structure `unset`
    gives the value, so that an enclosing `try` whose jumps are lowered in turn starts
    its own `try_return` with that structure (a graph `try` keeps each variable's)."""
    length = unset.count("ag__.UNSET") if unset.startswith("(") else -1
    for n in _walk(stmts):
        if isinstance(n, gast.Return):
            anno.set_(n, anno.RETURN_LENGTH, length)


def _returned_length(r) -> int:
    if anno.has(r, anno.RETURN_LENGTH):
        return anno.get(r, anno.RETURN_LENGTH)
    if isinstance(r.value, gast.Tuple) and not any(
            isinstance(e, gast.Starred) for e in r.value.elts):
        return len(r.value.elts)
    return -1


def no_value_yet(returns: list) -> str:
    """The value to return before a `return` ran: "no value yet", with the structure of
    the returned tuples when they all are tuples of one length (a graph `try` keeps each
    variable's structure)."""
    lengths = {_returned_length(r) for r in returns}
    if len(lengths) == 1 and min(lengths) > 0:
        return "(" + "ag__.UNSET, " * min(lengths) + ")"
    return "ag__.UNSET"


def _scan(block: list, found: list) -> bool:
    """Collect the jumps leaving `block`'s `try`; False when one cannot be lowered."""
    for s in block:
        if isinstance(s, _JUMP):
            found.append(s)
        elif isinstance(s, _SCOPES):
            continue
        elif isinstance(s, _LOOPS):
            # a `return` leaves the nested loop by a `break` (its `break` / `continue`
            # are its own)
            if any(isinstance(n, gast.Return) for t in _walk(s.body)
                   if isinstance(t, gast.Try) for n in _walk(t.finalbody)):
                return False
            found.extend(n for n in _walk(s.body) if isinstance(n, gast.Return))
            if not _scan(s.orelse, found):  # (a loop's `else` jumps for the outer loop)
                return False
        else:
            if isinstance(s, gast.Try) and not _scan_finally(s.finalbody):
                return False
            for owner, field in blocks(s):
                if not (isinstance(s, gast.Try) and field == "finalbody") and \
                        not _scan(getattr(owner, field), found):
                    return False
    return True


def _scan_finally(final: list) -> bool:
    """Whether a `finally` holds no jump that would leave it (such a jump swallows an
    error passing through)."""
    inner: list = []
    return _scan(final, inner) and not inner


def _walk(stmts):
    stack = list(stmts)
    while stack:
        n = stack.pop()
        yield n
        if not isinstance(n, _SCOPES):
            stack.extend(child_nodes(n))


def _has_jump(block: list) -> bool:
    found: list = []
    _scan(block, found)
    return bool(found)


def _has_return(s) -> bool:
    return any(isinstance(n, gast.Return) for n in _walk([s]))


def _lower_block(block: list, code: str, value: str | None, needed: frozenset,
                 in_loop: bool = False) -> list:
    """`block` with its jumps lowered; `in_loop`: it is the body of a loop inside the
    `try`, where only a `return` is the `try`'s (it also breaks out of the loop)."""
    out: list = []
    for i, s in enumerate(block):
        if isinstance(s, gast.Return) or isinstance(s, _JUMP) and not in_loop:
            if isinstance(s, gast.Return):
                v = s.value if s.value is not None else gast.Constant(value=None, kind=None)
                out += templates.replace("value = v", origin=s, value=value, v=v)
            out += templates.replace(f"code = {_CODES[type(s)]}", origin=s, code=code)
            if in_loop:
                out += templates.replace("break", origin=s)
            return out  # the rest of the block never runs
        if not (_has_return(s) if in_loop else _has_jump([s])):
            out.append(s)
            continue
        _lower_inside(s, code, value, needed, in_loop)
        out.append(s)
        if in_loop:  # (a `return` breaks out of the loops it is in, one by one)
            if isinstance(s, _LOOPS):
                out += templates.replace("if code == 3:\n    break", origin=s, code=code)
            continue
        rest = block[i + 1:]
        if rest:
            out.append(_guard(_lower_block(rest, code, value, needed), rest, code, needed))
        return out
    return out


def _guard(lowered: list, rest: list, code: str, needed: frozenset):
    """`if code == 0: <lowered>`; on the other path, each variable `rest` assigns that is
    `needed` (read after the `try` or by its `finally`, which run after the jump) keeps its
    value (`ag__.jumped_over`: where it is unbound and the code symbolic, "no value yet",
    which takes the type the other path gives). (Reading the others there would make
    them look read before assigned to an enclosing loop.)"""
    names = sorted({n.id for n in _walk(rest) if isinstance(n, gast.Name) and
                    isinstance(n.ctx, gast.Store)} & needed)
    src = "if code == 0:\n    pass\nelse:\n" + "".join(
        f"    {n} = ag__.jumped_over(lambda: {n}, '{n}')\n" for n in names) + \
        ("" if names else "    pass\n")
    guard = templates.replace(src, origin=rest[0], code=code)[0]
    for getter in gast.walk(gast.Module(body=guard.orelse, type_ignores=[])):
        if isinstance(getter, gast.Lambda):  # (called at once: not a closure of the name)
            anno.set_(getter, anno.GETTER, True)
    guard.body = lowered
    if not names:
        guard.orelse = []
    return guard


def _lower_inside(s, code: str, value: str | None, needed: frozenset,
                  in_loop: bool = False) -> None:
    if isinstance(s, _LOOPS):
        s.body = _lower_block(s.body, code, value, needed, True)
        s.orelse = _lower_block(s.orelse, code, value, needed, in_loop)
        return
    body_jumps = isinstance(s, gast.Try) and (_has_return(s) if in_loop else _has_jump(s.body))
    for owner, field in blocks(s):
        if isinstance(s, gast.Try) and field == "finalbody":
            continue
        setattr(owner, field, _lower_block(getattr(owner, field), code, value, needed,
                                           in_loop))
    if body_jumps and s.orelse:  # a nested `try`'s `else` runs only where its body did not jump
        guard = templates.replace("if code == 0:\n    pass", origin=s.orelse[0], code=code)
        guard[0].body = s.orelse
        s.orelse = guard


def lower_finally_jumps(t, namer, read_outside: frozenset = frozenset()) -> tuple | None:
    """For a `try` whose `finally` jumps (see the module docstring): (statements before,
    the `try` without `finally` that stands for it, statements after), or None when its
    jumps cannot be lowered (`t` is unchanged either way)."""
    if not t.finalbody or _scan_finally(t.finalbody):
        return None
    inner = templates.clone(t)
    inner.finalbody = []
    final = gast.Try(body=templates.clone(t.finalbody), handlers=[], orelse=[], finalbody=[])
    if not flatten_finally_jumps(inner, namer, read_outside) or \
            not flatten_finally_jumps(final, namer, read_outside):
        return None
    final.__dict__.update(templates._start_of(t))
    final_jumps = lower_jumps(final, namer, read_outside)
    if not final_jumps or not final_jumps[0]:
        return None
    if inner.handlers or inner.orelse:
        body_jumps = lower_jumps(inner, namer, read_outside)
        if body_jumps is None:
            return None
        protected = [inner]
    else:  # (no handlers: the body alone)
        holder = gast.Try(body=inner.body, handlers=[], orelse=[], finalbody=[])
        holder.__dict__.update(templates._start_of(t))
        body_jumps = lower_jumps(holder, namer, read_outside)
        if body_jumps is None:
            return None
        protected = holder.body
    code = final_jumps[0][0].targets[0].id
    error = namer.new("try_error")
    outer = templates.replace(
        "try:\n    pass\nexcept BaseException as error:\n    pass\n"
        "    if code == 0:\n        raise error\nelse:\n    pass", origin=t,
        error=error, code=code)[0]
    outer.body = protected
    # (an error reaching `finally` left no jump pending: the body's code starts at 0
    # there, as a handler's does, so the graph knows its value on that path)
    reset = templates.clone(body_jumps[0]) if body_jumps else []
    outer.handlers[0].body[:1] = reset + templates.clone(final.body)
    outer.orelse = templates.clone(final.body)
    before = final_jumps[0] + (body_jumps[0] if body_jumps else [])
    after = final_jumps[1] + (body_jumps[1] if body_jumps else [])
    return before, outer, after


def flatten_finally_jumps(t, namer, read_outside: frozenset = frozenset()) -> bool:
    """Rewrite each `try` nested in `t`'s blocks whose `finally` jumps into its form
    without `finally` (`lower_finally_jumps`, innermost first), so that `t`'s own jumps
    can be lowered; False when one cannot be (`t` is then partly rewritten: call this
    on a copy)."""
    loaded = frozenset(read_outside) | {n.id for n in _walk([t]) if isinstance(n, gast.Name)
                                        and isinstance(n.ctx, gast.Load)}
    for owner, field in blocks(t):
        out = []
        for s in getattr(owner, field):
            if isinstance(s, _SCOPES):
                out.append(s)
                continue
            if not flatten_finally_jumps(s, namer, loaded):
                return False
            if isinstance(s, gast.Try) and s.finalbody and not _scan_finally(s.finalbody):
                lowered = lower_finally_jumps(s, namer, loaded)
                if lowered is None:
                    return False
                before, outer, after = lowered
                out += before + [outer] + after
                continue
            out.append(s)
        setattr(owner, field, out)
    return True
