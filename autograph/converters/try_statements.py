"""A `try` with handlers gets a graph form next to its Python form.

    try:                                  if ag__.try_graph_mode():
        y = np.linalg.inv(x)                  def try_body():
    except np.linalg.LinAlgError:                 nonlocal y
        y = np.zeros_like(x)      =>              y = np.linalg.inv(x)
                                              def try_except(e):
                                                  nonlocal y
                                                  y = np.zeros_like(x)
                                              def try_get_state():
                                                  return (ag__.ld_declared(lambda: y, 'y'),)
                                              def try_set_state(vars_):
                                                  nonlocal y
                                                  (y,) = vars_
                                              ag__.try_graph(try_body, ((lambda: (np.linalg.LinAlgError,), try_except),),
                                                             None, None, try_get_state, try_set_state, ('y',))
                                          else:
                                              <the original `try`, which stays Python>

While a graph is traced, `ag__.try_graph` traces the body and each handler into a
`try` graph node (runtime/control_flow/try_op.py); otherwise the original statement
runs. The generated functions share the variables with the function (`nonlocal`), so
a body that stops part-way leaves them as Python would. This runs first in
`convert_def`, so the generated functions are converted as nested functions.

A `return` that is the last statement of the body, the `else` or a handler is lowered
first (`_lower_returns`); other `break` / `continue` / `return`s become a jump code
made after the `try` (converters/try_jumps.py), in the graph form and the Python form
alike. A `try` with only `finally` gets the graph form too. Left as Python (with the
refusal of `operators/exceptions.py` for errors a graph raises): a `try` whose jumps
cannot be lowered (see try_jumps.py), `global` names, imports, `del`, nested definitions,
a write the state cannot carry (`xs[0].y = v`, `f()[0] = v`, an item of a variable that
is not the function's own), or a call of a method that changes a container in place
(`xs.append(v)`).

Writes through attributes and subscripts are state like variables: `box.x = v` and
`box.x[i] = v` carry the path 'box.x' (read with `ld_attr`, written with `put_attr`),
`xs[i] = v` the variable `xs` (written back with `put_back`, so a list or dict stays
the object the caller holds: operators/try_writes.py). The handler so sees what was
written before the error, and an array written in place keeps its aliases on the
path's value (runtime/control_flow/try_arrays.py).

`with np.errstate(...):` (one manager, no `as`) gets the same graph form with no
handlers, calling `ag__.errstate_region(lambda: <manager>, ...)` instead: its body
becomes a region node that runs under that errstate (operators/with_statements.py).
"""
from __future__ import annotations

import gast

from autograph.pyct import anno, templates
from autograph.converters.try_jumps import (flatten_finally_jumps, lower_finally_jumps,
                                            lower_jumps, mark_returned_value, no_value_yet)
from autograph.converters.try_state_vars import (state_of, stored_names, subscript_bases,
                                                 try_parts, unbound_temporaries, walk_scope,
                                                 write_place)
from autograph.pyct.blocks import blocks
from autograph.pyct.all_nodes import all_nodes

_JUMPS = (gast.Return, gast.Break, gast.Continue, gast.Global, gast.Nonlocal, gast.Yield,
          gast.YieldFrom, gast.Await, gast.Delete, gast.Import, gast.ImportFrom)
# methods that change a container in place: the body and each handler are traced, so
# each would change it (such a `try` stays Python)
_MUTATORS = frozenset({"append", "extend", "insert", "pop", "remove", "clear", "update",
                       "setdefault", "add", "discard", "sort", "reverse", "popitem"})


def transform(node, ctx) -> None:
    """Give each eligible `try` directly in function `node` its graph form."""
    params = {a.id for a in node.args.args + node.args.kwonlyargs +
              node.args.posonlyargs if isinstance(a, gast.Name)}
    for a in (node.args.vararg, node.args.kwarg):
        if isinstance(a, gast.Name):
            params.add(a.id)
    declared = {n for s in walk_scope(node.body) if isinstance(s, (gast.Global,))
                for n in s.names}
    # the function's own variables and its `nonlocal`s (a generated function's: the
    # enclosing function's variables): a subscript store into one is carried as state
    nonlocals = {n for s in walk_scope(node.body) if isinstance(s, gast.Nonlocal) for n in s.names}
    local_names = (params | set(stored_names(node.body)) | nonlocals) - declared
    _rewrite_blocks(node, node, ctx, local_names, declared)
    # a `try` left as Python (also the Python side of a graph form) whose `finally` jumps:
    # its form without `finally`, the same in Python, whose jumps the loops can lower
    holder = gast.If(test=gast.Constant(value=True, kind=None), body=node.body, orelse=[])
    flatten_finally_jumps(holder, ctx.namer)
    node.body = holder.body


def _rewrite_blocks(stmt, fn, ctx, params, declared) -> None:
    for owner, field in [(fn, "body")] if stmt is fn else blocks(stmt):
        out = []
        for s in getattr(owner, field):
            if isinstance(s, gast.Try) and (s.handlers or s.finalbody):
                before, after, lowered = _lower_returns(s, ctx)
                if _eligible(s, params, declared):
                    out.extend(before)
                    out.append(_graph_form(s, fn, ctx, outside=_names(before + after)))
                    out.extend(after)
                    continue
                for block, r in lowered:  # (back as written: its returns too)
                    del block[-2 if len(before) == 2 else -1:]  # (with the flag: two)
                    block.append(r)
                # (other jumps, a `return` in a handler with a `continue` elsewhere: all
                # lowered to a jump code)
                if _graph_form_with_jumps(s, fn, ctx, params, declared, out):
                    continue
                if _finally_jumps_form(s, fn, ctx, params, declared, out):
                    continue
            if isinstance(s, gast.With) and _is_errstate(s):
                region = gast.Try(body=s.body, handlers=[], orelse=[], finalbody=[])
                region.__dict__.update(templates._start_of(s))
                if _eligible(region, params, declared):
                    out.append(_region_form(s, region, fn, ctx))
                    continue
                if _region_form_with_jumps(s, region, fn, ctx, params, declared, out):
                    continue
            _rewrite_blocks(s, fn, ctx, params, declared)  # (a `try` staying Python too)
            out.append(s)
        setattr(owner, field, out)


def _graph_form_with_jumps(s, fn, ctx, params, declared, out: list) -> bool:
    """The graph form of a copy of `s` whose `break` / `continue` / `return`s are lowered
    to a jump code (converters/try_jumps.py), added to `out`; False (`out` unchanged)
    when `s` has none, or they cannot be lowered, or the copy is not eligible."""
    copy = templates.clone(s)
    if not flatten_finally_jumps(copy, ctx.namer, _read_outside(fn, s)):
        return False
    jumps = lower_jumps(copy, ctx.namer, _read_outside(fn, s))
    if not jumps or not jumps[0] or not _eligible(copy, params, declared):
        return False
    before, after = jumps
    out.extend(before)
    out.append(_graph_form(copy, fn, ctx, replaced=s, outside=_names(before + after)))
    out.extend(after)
    return True


def _finally_jumps_form(s, fn, ctx, params, declared, out: list) -> bool:
    """The graph form of `s` whose `finally` jumps, rewritten without `finally`
    (try_jumps.lower_finally_jumps: that form is its Python form too), added to `out`;
    False (`out` unchanged) where it does not apply or is not eligible."""
    lowered = lower_finally_jumps(s, ctx.namer, _read_outside(fn, s))
    if lowered is None:
        return False
    before, outer, after = lowered
    if not _eligible(outer, params, declared):
        return False
    whole = gast.Try(body=[s], handlers=[], orelse=[], finalbody=[])  # (all of `s` is inside)
    out.extend(before)
    out.append(_graph_form(outer, fn, ctx, replaced=whole, outside=_names(before + after)))
    out.extend(after)
    return True


def _read_outside(fn, stmt) -> frozenset:
    """The names `fn` reads outside the statement `stmt` (or declares `nonlocal`)."""
    inside = {id(n) for n in all_nodes(stmt)}
    return frozenset({n.id for n in all_nodes(fn) if isinstance(n, gast.Name) and
                      isinstance(n.ctx, gast.Load) and id(n) not in inside} |
                     {n for s in all_nodes(fn) if isinstance(s, gast.Nonlocal) for n in s.names})


def _names(stmts: list) -> set:
    """The names in statements put around a `try` (not yet in the function: its
    variables read there are state of the `try`)."""
    return {n.id for st in stmts for n in all_nodes(st) if isinstance(n, gast.Name)}


def _lower_returns(t, ctx) -> tuple:
    """A `try` whose `return`s are each the last statement of the body, the `else` or a
    handler: each assigns a variable the function returns after the `try` (the same
    order of events: `finally` runs before the function returns). Where some paths do
    not return, a flag set before the `try` says whether one did:

        try:                          try_returned = False
            s = s + f(x)              try_return = ag__.UNSET
        except E:             =>      try:
            return s                      s = s + f(x)
                                      except E:
                                          try_return = s
                                          try_returned = True
                                      if try_returned:
                                          return try_return

    Returns (statements before the `try`, statements after it, the (block, `return`)
    pairs replaced), all empty when this does not apply (a `return` elsewhere, or a
    body that returns before an `else`)."""
    ends = [t.body] + ([t.orelse] if t.orelse else []) + [h.body for h in t.handlers]
    returns = [n for n in walk_scope(try_parts(t)) if isinstance(n, gast.Return)]
    last = [b[-1] for b in ends if b and isinstance(b[-1], gast.Return)]
    if not returns or len(last) != len(returns) or \
            isinstance(t.body[-1], gast.Return) and t.orelse:
        return [], [], []
    body_returns = isinstance(t.body[-1], gast.Return) or \
        bool(t.orelse) and isinstance(t.orelse[-1], gast.Return)
    always = body_returns and all(isinstance(h.body[-1], (gast.Return, gast.Raise))
                                  for h in t.handlers)
    name = ctx.namer.new("try_return")
    flag = None if always else ctx.namer.new("try_returned")
    lowered = []
    for block in ends:
        r = block[-1]
        if isinstance(r, gast.Return):
            value = r.value if r.value is not None else gast.Constant(value=None, kind=None)
            block[-1:] = templates.replace("name = value", origin=r, name=name,
                                           value=templates.clone(value))
            if flag is not None:  # (after the value: computing it may raise)
                block.extend(templates.replace("flag = True", origin=r, flag=flag))
            lowered.append((block, r))
    unset = no_value_yet(returns)
    if flag is None:
        after = templates.replace("return name", origin=t, name=name)
        mark_returned_value(after, unset)
        # (given "no value yet" before the `try` all the same: the graph form reads its
        # state there, which an enclosing loop would otherwise carry from iteration to
        # iteration, unbound before the loop)
        return templates.replace(f"name = {unset}", origin=t, name=name), after, lowered
    # (the value: "no value yet" before the `try`, so that an enclosing symbolic loop
    # has one to carry; it is read only where the flag is set)
    after = templates.replace("if flag:\n    return name", origin=t, flag=flag, name=name)
    mark_returned_value(after, unset)
    return (templates.replace(f"flag = False\nname = {unset}", origin=t,
                              flag=flag, name=name),
            after, lowered)


def _eligible(t, params: set, declared: set) -> bool:
    """Whether `t` can take the graph form; `params`: the function's own variables."""
    stored = set(stored_names(try_parts(t)))
    own_loops = {id(j) for loop in walk_scope(try_parts(t))
                 if isinstance(loop, (gast.For, gast.While))
                 for j in walk_scope(loop.body) if isinstance(j, (gast.Break, gast.Continue))}
    for n in walk_scope(try_parts(t) + [h.type for h in t.handlers if h.type is not None]):
        if isinstance(n, _JUMPS) and id(n) not in own_loops or \
                isinstance(n, (gast.FunctionDef, gast.ClassDef)):
            return False
        if isinstance(n, (gast.Attribute, gast.Subscript)) and isinstance(n.ctx, gast.Del):
            return False
        if isinstance(n, (gast.Attribute, gast.Subscript)) and \
                isinstance(n.ctx, gast.Store):
            place = write_place(n, params)
            if place is None or "." in place and place.split(".")[0] in stored:
                return False
        if isinstance(n, gast.Call) and isinstance(n.func, gast.Attribute) and \
                n.func.attr in _MUTATORS:
            return False
        if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Store) and n.id in declared:
            return False
    return not any(isinstance(h.name, gast.Name) and h.name.id in declared
                   for h in t.handlers)


def _bare_raise(stmts, name: str) -> None:
    for n in walk_scope(stmts):
        if isinstance(n, gast.Raise) and n.exc is None:
            n.exc = gast.Name(id=name, ctx=gast.Load(), annotation=None, type_comment=None)


def _graph_form(t, fn, ctx, replaced=None, outside=frozenset()):
    state = state_of(t, fn, replaced, outside)
    rebound = _rebound_by_calls(t, fn, state)
    state += rebound
    plain = [n for n in state if "." not in n]
    nonlocal_line = f"    nonlocal {', '.join(plain)}\n" if plain else ""
    names = {k: ctx.namer.new(k) for k in ("try_body", "try_else", "try_finally",
                                            "try_get_state", "try_set_state", "vars_")}
    ctx.namer.generated.update(n for k, n in names.items() if k != "vars_")
    src = f"def {names['try_body']}():\n{nonlocal_line}    pass\n"
    handler_fns = []
    for h in t.handlers:
        fname = ctx.namer.new("try_except")
        ctx.namer.generated.add(fname)  # (tracebacks show its frame as the function's)
        ename = h.name.id if isinstance(h.name, gast.Name) else ctx.namer.new("caught_")
        handler_fns.append((fname, ename))
        src += f"def {fname}({ename}):\n{nonlocal_line}    pass\n"
    if t.orelse:
        src += f"def {names['try_else']}():\n{nonlocal_line}    pass\n"
    if t.finalbody:
        src += f"def {names['try_finally']}():\n{nonlocal_line}    pass\n"
    src += _state_functions(state, names, nonlocal_line, subscript_bases(try_parts(t)))
    kinds = "".join(f"(lambda: KIND{i}, {f}), " for i, (f, _) in enumerate(handler_fns))
    src += (f"ag__.try_graph({names['try_body']}, ({kinds}), "
            f"{names['try_else'] if t.orelse else None}, "
            f"{names['try_finally'] if t.finalbody else None}, {names['try_get_state']}, "
            f"{names['try_set_state']}, ({''.join(repr(n) + ', ' for n in state)}))\n")
    subs = {f"KIND{i}": templates.clone(h.type) if h.type is not None else
            gast.Tuple(elts=[], ctx=gast.Load()) for i, h in enumerate(t.handlers)}
    # a handler's `as` name is unbound after the `try` (Python deletes it; tracing the
    # handler bound it to the caught exception's stand-in): `Undefined`, as the Python
    # form leaves it
    unbound = "".join(f"{h.name.id} = ag__.Undefined('{h.name.id}')\n"
                      for h in t.handlers if isinstance(h.name, gast.Name))
    stmts = templates.replace(src + unbound, origin=t, **subs) + \
        unbound_temporaries(t, state)
    defs = {s.name: s for s in stmts if isinstance(s, gast.FunctionDef)}
    info = anno.get(fn, anno.REBOUND_BY_CALLS, None)
    if info is not None:
        for d in defs.values():  # (their own loops and branches carry them on)
            anno.set_(d, anno.REBOUND_BY_CALLS, info.within(state))
    defs[names["try_body"]].body[-1:] = templates.clone(t.body)
    for (fname, ename), h in zip(handler_fns, t.handlers):
        body = templates.clone(h.body)
        _bare_raise(body, ename)
        defs[fname].body[-1:] = body
    if t.orelse:
        defs[names["try_else"]].body[-1:] = templates.clone(t.orelse)
    if t.finalbody:
        defs[names["try_finally"]].body[-1:] = templates.clone(t.finalbody)
    switch = templates.replace("if ag__.try_graph_mode():\n    pass\nelse:\n    pass",
                               origin=t)[0]
    anno.set_(switch, anno.TRY_SWITCH, True)
    switch.body = stmts
    switch.orelse = [t]
    return switch


def _rebound_by_calls(t, fn, state: list) -> list:
    """The variables nested functions rebind (`nonlocal`: converters/nonlocal_writes.py)
    that the `try` does not carry yet, where one of its parts calls user code."""
    info = anno.get(fn, anno.REBOUND_BY_CALLS, None)
    if info is None:
        return []
    return sorted(n for n in info.by(try_parts(t)) if n not in state)


def _state_functions(state: list, names: dict, nonlocal_line: str, bases: set) -> str:
    """The source of `try_get_state` / `try_set_state`: an attribute path is read with
    `ld_attr` and written with `put_attr`, a variable written through subscripts with
    `put_back` (a list or dict stays the same object), any other assigned."""
    getters = "".join(f"ag__.ld_attr({n.split('.', 1)[0]}, '{n.split('.', 1)[1]}'), "
                      if "." in n else f"ag__.ld_declared(lambda: {n}, '{n}'), "
                      for n in state)
    src = f"def {names['try_get_state']}():\n    return ({getters})\n"
    src += f"def {names['try_set_state']}({names['vars_']}):\n{nonlocal_line}"
    vars_ = names["vars_"]
    for i, n in enumerate(state):
        if "." in n:
            root, path = n.split(".", 1)
            src += f"    ag__.put_attr({root}, '{path}', {vars_}[{i}])\n"
        elif n in bases:
            src += f"    {n} = ag__.put_back(lambda: {n}, {vars_}[{i}])\n"
        else:
            src += f"    {n} = {vars_}[{i}]\n"
    return src if state else src + "    pass\n"


def _is_errstate(w) -> bool:
    """`with np.errstate(...):` (or `numpy.errstate`, `errstate`) alone, without `as`."""
    if len(w.items) != 1 or w.items[0].optional_vars is not None:
        return False
    call = w.items[0].context_expr
    if not isinstance(call, gast.Call):
        return False
    f = call.func
    return isinstance(f, gast.Attribute) and f.attr == "errstate" or \
        isinstance(f, gast.Name) and f.id == "errstate"


def _region_form_with_jumps(w, region, fn, ctx, params, declared, out: list) -> bool:
    """`_graph_form_with_jumps` for `with np.errstate(...)`: its Python form is the
    `with` around the lowered body too."""
    copy = templates.clone(region)
    if not flatten_finally_jumps(copy, ctx.namer, _read_outside(fn, w)):
        return False  # (a `try` inside whose `finally` jumps: its form without `finally`)
    jumps = lower_jumps(copy, ctx.namer, _read_outside(fn, w))
    if not jumps or not jumps[0] or not _eligible(copy, params, declared):
        return False
    before, after = jumps
    code_names = _names(before + after)
    python_form = templates.clone(w)
    python_form.body = templates.clone(copy.body)
    out.extend(before)
    out.append(_region_form(python_form, copy, fn, ctx, replaced=region, outside=code_names))
    out.extend(after)
    return True


def _region_form(w, region, fn, ctx, replaced=None, outside=frozenset()):
    """The graph form of `with np.errstate(...)` (see the module docstring)."""
    switch = _graph_form(region, fn, ctx, replaced, outside)
    call = next(st.value for st in switch.body if isinstance(st, gast.Expr) and
                isinstance(st.value, gast.Call) and
                getattr(st.value.func, "attr", None) == "try_graph")
    call.func = templates.replace_expr("ag__.errstate_region", origin=w)
    manager = templates.replace_expr("lambda: MANAGER", origin=w,
                                     MANAGER=templates.clone(w.items[0].context_expr))
    call.args[:4] = [manager, call.args[0]]  # (the manager, the body; no handlers, else, finally)
    switch.orelse = [w]
    return switch
