"""Fast paths a converted function gets when it is compiled to run (`impl/api.py`).

`ag.to_code` shows the converted code as the converters write it; the code that runs
also takes these paths, each exact, for calls and subscript stores on Python values.

Calls. `call_trees` writes every call it routes as `ag__.converted(f)(x)`. A call of
`converted` costs more than many a callee, so each routed call of a *name* is compiled
as

    len(xs)   =>  (len if not ag__.tracing_anywhere and len is ag__.builtins.len
                   else ag__.converted(len))(xs)
    fib(n)    =>  (site.run if fib is site.callee else ag__.converted_at(site, fib))(n)

- a builtin is called as is while no trace is being built on any thread (nothing is
  symbolic then, and each `ag__` overload is the builtin itself on other values); the
  name is still looked up when the call runs, so a global that shadows it is converted
  and called instead, as before;
- any other name has a cache of its own (`site`, a `CallSite` in a closure cell of the
  converted function): while the name means the same object as
  at the site's first call, what `converted` answered then is called directly.
  `converted_at` fills a site once, and only with answers that hold whether or not a
  trace is being built (a user function's converted version, or a function that runs
  as is: `impl/calls.py`); anything else asks `converted` at each call, as before.

A name is read twice (once to test, once to call): reading a name has no effects. An
attribute is read once: `obj.step(x)` => `ag__.converted_at(site, obj.step)(x)`, which
binds what the site holds for the method's function to `obj`.

Subscript stores. `slices` writes `x[i] = v` as `x = ag__.setitem(x, i, v)` (state the
functional forms can carry); a list or dict takes the store as written:

    x = ag__.setitem(x, i, v)        =>   if x.__class__ is list or x.__class__ is dict:
                                              x[i] = v          (`x[i] += v` likewise)
                                          else:
                                              x = ag__.setitem(x, i, v)

which is what `setitem` does for them, in Python's own order of evaluation (the value
first). Nested stores (`d['m'][i] = v`) keep `setitem`.
"""
from __future__ import annotations

import builtins

import gast

from autograph.pyct import templates

SITE_PREFIX = "ag__site"  # closure cells `impl/api.py` gives the compiled function

_BUILTIN = ("(f if not ag__.tracing_anywhere and f is ag__.builtins.{name} "
            "else ag__.converted(f))")
_CACHED = "(site.run if f is site.callee else ag__.converted_at(site, f))"


class CallSite:
    """What one call site called last: `run` for `callee`. (Slots: read fast, and not an
    object whose state symbolic control flow watches - `operators/containers.py`.)"""

    __slots__ = ("callee", "run")

    def __init__(self) -> None:
        self.callee = EMPTY  # no callee is it: the first call asks `converted_at`
        self.run = None

    def clear(self) -> None:
        self.callee = EMPTY


EMPTY = object()


def compile_call_sites(node, ctx) -> list:
    """Rewrite the routed calls of names in `node` (a converted function) in place; the
    names of the site cells used, which the compiled function must get."""
    ops = ctx.out.ops_name
    sites: list = []
    for n in gast.walk(node):
        if isinstance(n, gast.Call) and _is_routing(n.func, ops):
            callee = n.func.args[0]
            if isinstance(callee, gast.Attribute):  # a method: bound to its receiver
                site = ctx.namer.new(SITE_PREFIX)
                sites.append(site)
                n.func = templates.replace_expr(f"{ops}.converted_at(site, f)", origin=callee,
                                                site=site, f=callee)
                continue
            if getattr(builtins, callee.id, None) is not None and \
                    callable(getattr(builtins, callee.id)):
                template = _BUILTIN.format(name=callee.id).replace("ag__", ops)
                new = templates.replace_expr(template, origin=callee, f=callee.id)
            else:
                site = ctx.namer.new(SITE_PREFIX)
                sites.append(site)
                new = templates.replace_expr(_CACHED.replace("ag__", ops), origin=callee,
                                             f=callee.id, site=site)
            n.func = new
    return sites


def _is_routing(func, ops: str) -> bool:
    """Whether `func` is `<ops>.converted(<name or attribute>)`."""
    return isinstance(func, gast.Call) and len(func.args) == 1 and not func.keywords and \
        isinstance(func.args[0], (gast.Name, gast.Attribute)) and \
        isinstance(func.func, gast.Attribute) and \
        func.func.attr == "converted" and isinstance(func.func.value, gast.Name) and \
        func.func.value.id == ops


_STORE = "if x.__class__ is list or x.__class__ is dict:\n    inline\nelse:\n    original"
_AUGMENTED = {"+=": gast.Add, "-=": gast.Sub, "*=": gast.Mult, "/=": gast.Div,
              "//=": gast.FloorDiv, "%=": gast.Mod, "**=": gast.Pow, "@=": gast.MatMult,
              "<<=": gast.LShift, ">>=": gast.RShift, "&=": gast.BitAnd, "|=": gast.BitOr,
              "^=": gast.BitXor}


def compile_subscript_stores(node, ctx) -> None:
    """Give each `x = ag__.setitem(x, i, v(, op))` in `node` its inline path, in place."""
    ops = ctx.out.ops_name
    for n in gast.walk(node):
        for field in ("body", "orelse", "finalbody"):
            stmts = getattr(n, field, None)
            if isinstance(stmts, list) and any(_is_store(s, ops) for s in stmts):
                setattr(n, field, [new for s in stmts for new in _store(s, ops)])


def _store(stmt, ops: str) -> list:
    if not _is_store(stmt, ops):
        return [stmt]
    name, index, value, *op = stmt.value.args
    target = gast.Subscript(value=templates.name_node(name.id),
                            slice=templates.clone(index), ctx=gast.Store())
    if op:
        inline = gast.AugAssign(target=target, op=_AUGMENTED[op[0].value](),
                                value=templates.clone(value))
    else:
        inline = gast.Assign(targets=[target], value=templates.clone(value), type_comment=None)
    templates.copy_location(inline, stmt)
    return templates.replace(_STORE, origin=stmt, x=name.id, inline=[inline],
                             original=[stmt])


def _is_store(stmt, ops: str) -> bool:
    """Whether `stmt` is `x = <ops>.setitem(x, i, v(, op))` with no nested setitem."""
    if not (isinstance(stmt, gast.Assign) and len(stmt.targets) == 1 and
            isinstance(stmt.targets[0], gast.Name) and isinstance(stmt.value, gast.Call)):
        return False
    call = stmt.value
    f = call.func
    if not (isinstance(f, gast.Attribute) and f.attr == "setitem" and
            isinstance(f.value, gast.Name) and f.value.id == ops and not call.keywords and
            len(call.args) in (3, 4) and isinstance(call.args[0], gast.Name) and
            call.args[0].id == stmt.targets[0].id):
        return False
    if len(call.args) == 4 and not (isinstance(call.args[3], gast.Constant) and
                                    call.args[3].value in _AUGMENTED):
        return False
    return not any(isinstance(a, gast.Starred) for a in call.args) and not any(
        _is_ag_setitem(n, ops) for a in call.args[1:] for n in gast.walk(a))


def _is_ag_setitem(n, ops: str) -> bool:
    return isinstance(n, gast.Call) and isinstance(n.func, gast.Attribute) and \
        n.func.attr == "setitem" and isinstance(n.func.value, gast.Name) and \
        n.func.value.id == ops
