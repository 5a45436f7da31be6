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
attribute is read once, into a generated local:

    obj.step(x)   =>  (ag__.bind(site.run, m.__self__)
                       if (m := obj.step).__class__ is ag__.MethodType and
                          m.__func__ is site.callee
                       else m if m.__class__ is ag__.BuiltinMethodType and
                               not ag__.tracing_anywhere
                       else ag__.converted_at(site, m))(x)

a method binds what the site holds for its function to its receiver, a builtin method
(`self.items.append`) runs as is outside traces. In a comprehension's first iterable,
where `:=` is not allowed, `ag__.converted_at(site, obj.step)` decides at each call.

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
from autograph.pyct.all_nodes import all_nodes

SITE_PREFIX = "ag__site"  # closure cells `impl/api.py` gives the compiled function

_BUILTIN = ("(f if not ag__.tracing_anywhere and f is ag__.builtins.{name} "
            "else ag__.converted(f))")
_CACHED = "(site.run if f is site.callee else ag__.converted_at(site, f))"
_METHOD = ("(ag__.bind(site.run, m.__self__) if (m := f).__class__ is ag__.MethodType and "
           "m.__func__ is site.callee else m if m.__class__ is ag__.BuiltinMethodType and "
           "not ag__.tracing_anywhere else ag__.converted_at(site, m))")


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
    """Rewrite the routed calls in `node` (a converted function) in place; the names of
    the site cells used, which the compiled function must get."""
    sites: list = []
    _sites_in(node, False, ctx, sites)
    return sites


def _sites_in(node, in_iterable: bool, ctx, sites: list) -> None:
    """(`in_iterable`: inside a comprehension's first iterable, where `:=` is not allowed.)"""
    if isinstance(node, gast.Call) and _is_routing(node.func, ctx.out.ops_name):
        node.func = _site(node.func.args[0], in_iterable, ctx, sites)
    for field, value in gast.iter_fields(node):
        inner = in_iterable or isinstance(node, gast.comprehension) and field == "iter"
        for child in value if isinstance(value, list) else (value,):
            if isinstance(child, gast.AST):
                _sites_in(child, inner, ctx, sites)


def _site(callee, in_iterable: bool, ctx, sites: list):
    """What the call calls instead of `<ops>.converted(callee)`."""
    ops = ctx.out.ops_name
    if isinstance(callee, gast.Name) and callable(getattr(builtins, callee.id, None)):
        template = _BUILTIN.format(name=callee.id).replace("ag__", ops)
        return templates.replace_expr(template, origin=callee, f=callee.id)
    site = ctx.namer.new(SITE_PREFIX)
    sites.append(site)
    if isinstance(callee, gast.Name):
        return templates.replace_expr(_CACHED.replace("ag__", ops), origin=callee,
                                      f=callee.id, site=site)
    if in_iterable:
        return templates.replace_expr(f"{ops}.converted_at(site, f)", origin=callee,
                                      site=site, f=callee)
    return templates.replace_expr(_METHOD.replace("ag__", ops), origin=callee, site=site,
                                  f=callee, m=ctx.namer.new("ag__callee"))


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
    for n in all_nodes(node):
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
        _is_ag_setitem(n, ops) for a in call.args[1:] for n in all_nodes(a))


def _is_ag_setitem(n, ops: str) -> bool:
    return isinstance(n, gast.Call) and isinstance(n.func, gast.Attribute) and \
        n.func.attr == "setitem" and isinstance(n.func.value, gast.Name) and \
        n.func.value.id == ops
