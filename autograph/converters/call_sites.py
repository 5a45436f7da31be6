"""Call sites as they are compiled: `ag__.converted(f)(...)` resolved inline when it can be.

`call_trees` writes every call it routes as `ag__.converted(f)(x)`, which is what
`ag.to_code` shows. A call of `converted` costs more than many a callee, so when a
function is compiled for running (`impl/api.py`), each routed call of a *name* is given
a fast path that stays exact:

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

A name is read twice (once to test, once to call): reading a name has no effects.
Attribute callees (`self.step(x)`, `obj.f(x)`) keep `ag__.converted`.
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
    """Whether `func` is `<ops>.converted(<name>)`."""
    return isinstance(func, gast.Call) and len(func.args) == 1 and not func.keywords and \
        isinstance(func.args[0], gast.Name) and isinstance(func.func, gast.Attribute) and \
        func.func.attr == "converted" and isinstance(func.func.value, gast.Name) and \
        func.func.value.id == ops
