"""Fast paths a converted function gets when it is compiled to run (`impl/api.py`).

`ag.to_code` shows the converted code as the converters write it; the code that runs
also takes these paths, each exact, for calls and subscript stores on Python values.

Calls. `call_trees` writes every call it routes as `ag__.converted(f)(x)`. A call of
`converted` costs more than many a callee, so each routed call of a *name* is compiled
as

    len(xs)   =>  (ag__.converted(len) if ag__tracing or len is not ag__.builtins.len
                   else len)(xs)
    fib(n)    =>  (ag__.converted_at(site, fib) if fib is not site.callee else site.run)(n)

- a builtin is called as is while no trace is being built on any thread (`ag__tracing`,
  a closure cell holding the runtime's list of graphs being built: nothing is symbolic
  while it is empty, and each `ag__` overload is the builtin itself on other values); the
  name is still looked up when the call runs, so a global that shadows it is converted
  and called instead, as before;
- any other name has a cache of its own (`site`, a `CallSite` in a closure cell of the
  converted function, shared by the copies of the call the dual paths make): while the
  name means the same object as at the site's first call, what `converted` answered
  then is called directly.
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

Loops. A `for` asks `ag__.python_iterable(iterable, flagged)` whether it runs inline
(`dual_path.py`); outside traces the answer is yes, without the call:
`if not ag__tracing or ag__.python_iterable(...)`.

Subscript reads. `slices` reads `xs[i]` of a name as `xs[i] if xs.__class__ is not
ag__.ndarray else ag__.array_item(xs, i)`; outside traces it is read as written:

    ag__.array_item(xs, i) if ag__tracing and xs.__class__ is ag__.ndarray else xs[i]

Subscript stores. `slices` writes `x[i] = v` as `x = ag__.setitem(x, i, v)` (state the
functional forms can carry); outside traces, and for a list or dict, the store is taken
as written:

    x = ag__.setitem(x, i, v)   =>   if not ag__tracing or x.__class__ is list or \
                                             x.__class__ is dict:
                                         x[i] = v          (`x[i] += v` likewise)
                                     else:
                                         x = ag__.setitem(x, i, v)

which is what `setitem` does for them (and for anything outside traces, where nothing
is symbolic), in Python's own order of evaluation (the value first). Nested stores
(`d['m'][i] = v`) keep `setitem`. Likewise `lists` writes `xs.append(v)` as
`xs = ag__.list_append(xs, v)`; outside traces it runs as written (`self.items.append(v)`
reads `self.items` once and never assigns it: no property setter or `__setattr__` runs).
"""
from __future__ import annotations

import builtins

import gast

from autograph.pyct import anno, templates
from autograph.pyct.activity import qualified_name
from autograph.pyct.all_nodes import all_nodes

SITE_PREFIX = "ag__site"  # closure cells `impl/api.py` gives the compiled function
TRACING_CELL = "ag__tracing"  # cells holding the runtime's list of graphs being built

# (the path Python values take last: it then needs no jump past the other one)
_BUILTIN = "(ag__.converted(f) if tracing or f is not ag__.builtins.{name} else f)"
_CACHED = "(ag__.converted_at(site, f) if f is not site.callee else site.run)"
# (by `type`, which reads no attribute of the user's object: `operators/conditionals.py`)
_METHOD = ("(ag__.bind(site.run, m.__self__) if ag__.type_(m := f) is ag__.MethodType and "
           "m.__func__ is site.callee else m if ag__.type_(m) is ag__.BuiltinMethodType and "
           "not tracing else ag__.converted_at(site, m))")
_PLAIN_RECEIVER = "slow if ag__.type_(receiver) not in ag__.plain_receivers or tracing else fast"
# a method call whose arguments are written twice more: the site's function is called with
# the receiver first (no bound method made for it)
# the receiver first (no bound method made for it; `run :=`: an attribute called as a
# method would be looked up unspecialized)
_UNBOUND = ("(run := site.run)(m.__self__) if ag__.type_(m := f) is ag__.MethodType and "
            "m.__func__ is site.callee else other")
_OTHER = ("(m if ag__.type_(m) is ag__.BuiltinMethodType and not tracing "
          "else ag__.converted_at(site, m))")
# (nodes an argument of a method call may hold for the call to be written twice: no
# calls, so the code grows linearly with nesting, and no nested scopes)
_NOT_TWICE = (gast.Call, gast.Lambda, gast.NamedExpr, gast.ListComp, gast.SetComp,
              gast.DictComp, gast.GeneratorExp, gast.Yield, gast.YieldFrom, gast.Await)


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


class _Cells(list):
    """The names of the cells the compiled function gets, and the site of each call by
    where it is written (`by_origin`): the copies the dual paths make of one call share
    its site, so a function copies fewer cells into each of its frames."""

    def __init__(self) -> None:
        super().__init__()
        self.by_origin: dict = {}

    def site_of(self, callee, ctx) -> str:
        at = tuple(getattr(callee, a, None) for a in ("lineno", "col_offset", "end_lineno",
                                                      "end_col_offset"))
        if None in at:
            site = ctx.namer.new(SITE_PREFIX)
        else:
            site = self.by_origin.get(at)
            if site is not None:
                return site
            site = self.by_origin[at] = ctx.namer.new(SITE_PREFIX)
        self.append(site)
        return site


def compile_call_sites(node, ctx) -> list:
    """Rewrite the routed calls in `node` (a converted function) in place; the names of
    the site cells used, which the compiled function must get."""
    sites = _Cells()
    _sites_in(node, False, ctx, sites)
    return sites


def _tracing(ctx, sites: list) -> str:
    """The name of the cell holding the list of graphs being built (made once)."""
    for name in sites:
        if name.startswith(TRACING_CELL):
            return name
    sites.append(ctx.namer.new(TRACING_CELL))
    return sites[-1]


def _sites_in(node, in_iterable: bool, ctx, sites: list):
    """`node` with its call sites compiled (a new node for a method call written twice).
    (`in_iterable`: inside a comprehension's first iterable, where `:=` is not allowed.)"""
    if isinstance(node, gast.Call) and _is_routing(node.func, ctx.out.ops_name):
        callee = node.func.args[0]
        if isinstance(callee, gast.Attribute) and not in_iterable and _twice(node):
            return _method_call(node, callee, ctx, sites)
        node.func = _site(callee, in_iterable, ctx, sites)
        anno.set_(node.func, anno.AS_WRITTEN, callee)  # (for `python_copy`)
    elif isinstance(node, gast.If) and isinstance(node.test, gast.Call) and \
            _is_ops_call(node.test, ctx.out.ops_name, "python_iterable"):
        node.test = templates.replace_expr("not tracing or test", origin=node.test,
                                           tracing=_tracing(ctx, sites), test=node.test)
    elif isinstance(node, gast.IfExp) and is_array_guard(node.test, ctx.out.ops_name):
        node.test.ops = [gast.Is()]  # `call if tracing and <x is an ndarray> else load`
        node.test = templates.replace_expr("tracing and test", origin=node.test,
                                           tracing=_tracing(ctx, sites), test=node.test)
        node.body, node.orelse = node.orelse, node.body
    for field, value in gast.iter_fields(node):
        inner = in_iterable or isinstance(node, gast.comprehension) and field == "iter"
        if isinstance(value, list):
            value[:] = [_sites_in(c, inner, ctx, sites) if isinstance(c, gast.AST) else c
                        for c in value]
        elif isinstance(value, gast.AST):
            setattr(node, field, _sites_in(value, inner, ctx, sites))
    return node


def _twice(call) -> bool:
    """Whether the arguments of `call` may be written in both arms of a conditional."""
    return not any(isinstance(n, _NOT_TWICE) for part in call.args + call.keywords
                   for n in gast.walk(part))


def _method_call(call, callee, ctx, sites: list):
    """`recv.meth(args)` as the call written as is when `recv` is of a builtin type (all
    its methods builtin) outside traces, else the method's call site:

        <site of r.meth>(args) if ag__.type_(r := recv) not in ag__.plain_receivers
            or ag__tracing else r.meth(args)

    (`recv` read once: `r` is `recv` itself when it is a name; the site: `_unbound`.)"""
    receiver = _sites_in(callee.value, False, ctx, sites)
    call.args = [_sites_in(a, False, ctx, sites) for a in call.args]
    call.keywords = [_sites_in(k, False, ctx, sites) for k in call.keywords]
    if isinstance(receiver, gast.Name):
        name, tested = receiver.id, receiver
    else:
        name = ctx.namer.new("ag__receiver")
        tested = gast.NamedExpr(target=templates.name_node(name, gast.Store),
                                value=receiver)
    method = gast.copy_location(gast.Attribute(value=templates.name_node(name),
                                               attr=callee.attr, ctx=gast.Load()), callee)
    templates.copy_location(method, callee)
    slow = _unbound(method, call, ctx, sites)
    fast = gast.Call(func=gast.Attribute(value=templates.name_node(name), attr=callee.attr,
                                         ctx=gast.Load()),
                     args=templates.clone(call.args), keywords=templates.clone(call.keywords))
    for new in (slow, fast):
        templates.copy_location(new, call)
    site = templates.replace_expr(_PLAIN_RECEIVER.replace("ag__", ctx.out.ops_name),
                                  origin=call, slow=slow, fast=fast, receiver=tested,
                                  tracing=_tracing(ctx, sites))
    written = gast.Call(func=gast.copy_location(gast.Attribute(
        value=receiver, attr=callee.attr, ctx=gast.Load()), callee),
        args=fast.args, keywords=fast.keywords)
    anno.set_(site, anno.AS_WRITTEN, templates.copy_location(written, call))
    return site


def _unbound(callee, call, ctx, sites: list):
    """The call site of `callee(args)` (`r.meth`, `r` a name), which calls the converted
    function it cached with the receiver as its first argument:

        (run := site.run)(m.__self__, args) if ag__.type_(m := r.meth) is ag__.MethodType
            and m.__func__ is site.callee else (m if <a builtin method outside traces>
                                                else ag__.converted_at(site, m))(args)"""
    ops = ctx.out.ops_name
    site, m, tracing = sites.site_of(callee, ctx), ctx.namer.new("ag__callee"), \
        _tracing(ctx, sites)
    run = ctx.namer.new("ag__run")
    other = gast.Call(func=templates.replace_expr(_OTHER.replace("ag__", ops), origin=callee,
                                                  site=site, m=m, tracing=tracing),
                      args=call.args, keywords=call.keywords)
    templates.copy_location(other, call)
    node = templates.replace_expr(_UNBOUND.replace("ag__", ops), origin=callee, site=site,
                                  m=m, f=callee, other=other, run=run)
    node.body.args += templates.clone(call.args)
    node.body.keywords = templates.clone(call.keywords)
    return node


def is_array_guard(test, ops: str, op=gast.IsNot) -> bool:
    """`<name>.__class__ is not <ops>.ndarray` (`slices`: a subscript read's guard; `op`:
    `is` in the compiled form)."""
    return isinstance(test, gast.Compare) and len(test.ops) == 1 and \
        isinstance(test.ops[0], op) and isinstance(test.left, gast.Attribute) and \
        test.left.attr == "__class__" and isinstance(test.left.value, gast.Name) and \
        isinstance(test.comparators[0], gast.Attribute) and \
        test.comparators[0].attr == "ndarray" and \
        isinstance(test.comparators[0].value, gast.Name) and \
        test.comparators[0].value.id == ops


def _site(callee, in_iterable: bool, ctx, sites: list):
    """What the call calls instead of `<ops>.converted(callee)`."""
    ops = ctx.out.ops_name
    if isinstance(callee, gast.Name) and callable(getattr(builtins, callee.id, None)):
        template = _BUILTIN.format(name=callee.id).replace("ag__", ops)
        return templates.replace_expr(template, origin=callee, f=callee.id,
                                      tracing=_tracing(ctx, sites))
    site = sites.site_of(callee, ctx)
    if isinstance(callee, gast.Name):
        return templates.replace_expr(_CACHED.replace("ag__", ops), origin=callee,
                                      f=callee.id, site=site)
    if in_iterable:
        return templates.replace_expr(f"{ops}.converted_at(site, f)", origin=callee,
                                      site=site, f=callee)
    return templates.replace_expr(_METHOD.replace("ag__", ops), origin=callee, site=site,
                                  f=callee, m=ctx.namer.new("ag__callee"),
                                  tracing=_tracing(ctx, sites))


def _is_routing(func, ops: str) -> bool:
    """Whether `func` is `<ops>.converted(<name or attribute>)`."""
    return isinstance(func, gast.Call) and len(func.args) == 1 and not func.keywords and \
        isinstance(func.args[0], (gast.Name, gast.Attribute)) and \
        isinstance(func.func, gast.Attribute) and \
        func.func.attr == "converted" and isinstance(func.func.value, gast.Name) and \
        func.func.value.id == ops


_STORE = ("if not tracing or x.__class__ is list or x.__class__ is dict:\n    inline\n"
          "else:\n    original")
_AUGMENTED = {"+=": gast.Add, "-=": gast.Sub, "*=": gast.Mult, "/=": gast.Div,
              "//=": gast.FloorDiv, "%=": gast.Mod, "**=": gast.Pow, "@=": gast.MatMult,
              "<<=": gast.LShift, ">>=": gast.RShift, "&=": gast.BitAnd, "|=": gast.BitOr,
              "^=": gast.BitXor}


def compile_subscript_stores(node, ctx, cells: list) -> None:
    """Give each `x = ag__.setitem(x, i, v(, op))` in `node` its inline path, in place
    (adding to `cells` the tracing cell it reads)."""
    ops = ctx.out.ops_name
    for n in all_nodes(node):
        for field in ("body", "orelse", "finalbody"):
            stmts = getattr(n, field, None)
            if isinstance(stmts, list) and any(_is_store(s, ops) or _is_append(s, ops)
                                               for s in stmts):
                tracing = _tracing(ctx, cells)
                setattr(n, field, [new for s in stmts for new in _store(s, ops, tracing)])


def _is_append(stmt, ops: str) -> bool:
    """Whether `stmt` is `xs = <ops>.list_append(xs, v)` (`lists`: `xs.append(v)`), `xs` a
    name or an attribute chain."""
    if not (isinstance(stmt, gast.Assign) and len(stmt.targets) == 1 and
            isinstance(stmt.value, gast.Call) and _is_ops_call(stmt.value, ops, "list_append")
            and len(stmt.value.args) == 2 and not stmt.value.keywords):
        return False
    target, first = stmt.targets[0], stmt.value.args[0]
    name = qualified_name(target)
    return name is not None and name == qualified_name(first)


def _is_ops_call(call, ops: str, name: str) -> bool:
    f = call.func
    return isinstance(f, gast.Attribute) and f.attr == name and \
        isinstance(f.value, gast.Name) and f.value.id == ops


def _store(stmt, ops: str, tracing: str) -> list:
    if _is_append(stmt, ops):
        xs, v = (templates.clone(a) for a in stmt.value.args)
        call = gast.Call(func=gast.Attribute(value=xs, attr="append", ctx=gast.Load()),
                         args=[v], keywords=[])
        templates.copy_location(call, stmt)
        return templates.replace("if not tracing:\n    call\nelse:\n    original",
                                 origin=stmt, tracing=tracing,
                                 call=[gast.Expr(value=call)], original=[stmt])
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
                             original=[stmt], tracing=tracing)


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
