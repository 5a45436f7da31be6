"""Helpers the `if` and loop converters (`conditionals.py`, `loops.py`) use to build
branch and loop-body functions in the functional state-passing style:

    def if_true(x):          # takes the state
        x = x // 2           # the original statements (converted recursively)
        return x             # returns the outputs

Attribute state (`self.count += 1` in a branch) is carried as a local inside the
generated function (`self_count`), assigned back to `self.count` by the caller; where
the attribute may not exist yet (`ag_attrs_in` of the analysis), it is read with
`ag__.ld_attr` and assigned back with `ag__.set_attr`, so that it is only created when
the original would create it. Names declared `global` / `nonlocal` are state like
locals (the caller's assignment goes to the global / the enclosing cell), so a symbolic
branch that updates a global counter updates it with the branch's result. All of this
state outlives the function, so it is carried even through an `if` whose branches
return (`conditionals.py`).
"""
from __future__ import annotations

from typing import Callable

import gast

from autograph.converters import jumps
from autograph.pyct import anno, templates
from autograph.pyct.activity import qualified_name, writes
from autograph.pyct.blocks import statements


def modified(block: list, ctx, scope=None) -> set:
    """Names (and attribute chains) a block modifies that generated code must carry:
    locals, `global` / `nonlocal` names, attribute chains (and their local stand-ins) -
    not the name of a global or closure container the block mutates in place
    (`COUNTS[k] += 1`), which stays shared.

    An attribute chain is carried only while the object it belongs to stays the same
    through the whole statement `scope` (the `if` or the loop, targets included): in
    `cur.next = Node(x); cur = cur.next` the store goes to a different object on each
    iteration, so it is an effect left in place, not a variable (`effect_chains`)."""
    names = ctx.scope
    written = writes(block)
    effects = effect_chains(written, writes(scope) if scope is not None else written)
    out = {n for n in written - effects
           if "." in n or n in names.local or n in names.declared or n in ctx.out.always_live}
    if names.rebound_by_calls is not None:  # (a call may run a nested def rebinding them)
        out |= names.rebound_by_calls.by(block)
    return out


def effect_chains(names: set, rebound: set) -> set:
    """The attribute chains in `names` whose object is rebound in `rebound`: a prefix of
    the chain (`cur` or `self.tail` of `self.tail.next`) is itself assigned there."""
    out = set()
    for n in names:
        parts = n.split(".")
        if any(".".join(parts[:k]) in rebound for k in range(1, len(parts))):
            out.add(n)
    return out


def ordered(names, ctx) -> list:
    """`names` in the order they first appear in the function's source."""
    return sorted(set(names), key=lambda n: (ctx.first_seen(n), n))


def is_carried(name: str, ctx) -> bool:
    """State that outlives the function - attributes (and their local stand-ins), global
    and nonlocal names: always taken and returned when modified."""
    return "." in name or name in ctx.out.always_live or name in ctx.scope.declared or \
        ctx.scope.rebound_by_calls is not None and name in ctx.scope.rebound_by_calls.names


def local_names(names: list, ctx) -> dict:
    """qualified name -> the local name used for it inside generated functions."""
    out = {}
    for n in names:
        if "." in n:
            local = ctx.out.composite.get(n)
            if local is None:
                local = ctx.out.composite[n] = ctx.namer.new(n.replace(".", "_"))
                ctx.out.always_live.add(local)
            out[n] = local
        else:
            out[n] = n
    return out


def rename_composites(block, mapping: dict):
    """Replace `self.count` (load or store) by its local name in a block or expression."""
    if not any("." in k for k in mapping):
        return block

    class _Rename(gast.NodeTransformer):
        def generic_visit(self, node):
            anno.pop(node, anno.WRITES)
            return super().generic_visit(node)

        def visit_Attribute(self, node):
            qn = qualified_name(node)
            if qn in mapping and "." in qn:
                return gast.copy_location(templates.name_node(mapping[qn], type(node.ctx)),
                                          node)
            return self.generic_visit(node)

    r = _Rename()
    if isinstance(block, list):
        return [r.visit(s) for s in block]
    return r.visit(block)


def write_through(state: list, outputs: list, local: dict, node,
                  declared: frozenset = frozenset()) -> tuple[list, list]:
    """Attribute state written through to the object: the branch or loop body keeps its
    real attribute loads and stores (so a method it calls, an alias, or an exception
    part-way sees the object as Python would leave it), starts by storing the value it
    is given (`self.count = self_count`: under a symbolic condition that is the value
    being traced) and returns the attribute as it is at the end.

    A `declared` (global / nonlocal) name is returned through `ag__.ld_declared`: it may
    still be unbound where the generated function returns.

    Returns (the prologue statements, the output expressions)."""
    prologue = []
    for n in state:
        if "." not in n:
            continue
        if may_be_missing(n, node):
            prologue += _attr_call("ag__.set_attr(root, path, local)", n, node, local=local[n])
        else:
            prologue += templates.replace("target = local", origin=node,
                                          target=_chain(n, node, gast.Store), local=local[n])
    outs = []
    for n in outputs:
        if n in declared:
            outs.append(_load_declared(local[n], node))
        elif "." not in n:
            outs.append(local[n])
        elif may_be_missing(n, node):
            outs.append(_attr_call("ag__.ld_attr(root, path)", n, node)[0].value)
        else:
            outs.append(_chain(n, node))
    return prologue, outs


def may_be_missing(name: str, node) -> bool:
    """Whether attribute chain `name` may not exist yet where the call generated for
    `node` passes it in (it is first assigned inside: `if c: obj.v = x`)."""
    return "." in name and name not in anno.get(node, anno.ATTRS_IN, frozenset())


def _chain(name: str, origin, ctx_type=gast.Load):
    """`a.b.c` as an expression, located at `origin` (so tracebacks show the user's line)."""
    root, *attrs = name.split(".")
    expr = templates.name_node(root)
    for attr in attrs:
        expr = gast.Attribute(value=expr, attr=attr, ctx=gast.Load())
    expr.ctx = ctx_type()
    return templates.copy_location(expr, origin)


def _attr_call(template: str, name: str, origin, **subs):
    root, path = name.split(".", 1)
    return templates.replace(template, origin=origin, root=root,
                             path=gast.Constant(value=path, kind=None), **subs)


def state_value(name: str, node, ctx):
    """The expression that passes variable `name` into generated code at `node`."""
    if "." in name:
        if may_be_missing(name, node):
            return _attr_call("ag__.ld_attr(root, path)", name, node)[0].value
        return _chain(name, node)
    if name in ctx.scope.declared:
        # a global / nonlocal may not exist yet (`global G` then `if c: G = 1`): passed as
        # `Undefined` then, and `assign` leaves it unbound again
        return _load_declared(name, node)
    if name in ctx.out.always_live or name in ctx.scope.params:
        return templates.name_node(name)
    if name in anno.get(node, anno.MAYBE_IN):
        if name in anno.get(node, anno.MUST_IN, (name,)):
            return templates.name_node(name)
        # bound on some paths only (an earlier iteration of a Python loop, a Python `if`):
        # passing the bare name would raise UnboundLocalError where Python reads nothing;
        # unbound, it enters as `Undefined`, as a name first assigned inside does
        return _load_declared(name, node)
    return templates.replace_expr(f"ag__.Undefined('{name}')", origin=node)


def assign(names: list, value, node, ctx) -> list:
    """`names = value`: a generated call's results assigned to the variables they stand
    for (just `value` when there are none). An attribute that may not exist yet goes
    through its local name and `ag__.set_attr`, which does not create it while undefined:

        self_v = ag__.if_stmt(c, if_true, None, (ag__.ld_attr(self, 'v'),), ('self.v',))
        ag__.set_attr(self, 'v', self_v)
    """
    if not names:
        return templates.replace("value", origin=node, value=value)
    targets, after = [], []
    for n in names:
        if may_be_missing(n, node):
            local = local_names([n], ctx)[n]
            targets.append(templates.name_node(local, gast.Store))
            after += _attr_call("ag__.set_attr(root, path, local)", n, node, local=local)
        elif "." in n:
            targets.append(_chain(n, node, gast.Store))
        else:
            targets.append(templates.name_node(n, gast.Store))
    for n in names:
        if n in ctx.scope.declared:
            after += unbind_undefined(n, node)
    return templates.replace("targets = value", origin=node, targets=targets,
                             value=value) + after


def _load_declared(name: str, origin):
    return templates.replace_expr(f"ag__.ld_declared(lambda: {name}, '{name}')",
                                  origin=origin)


def unbind_undefined(name: str, origin) -> list:
    """`if not ag__.defined(name): del name` - a `global` / `nonlocal` name that came back
    `Undefined` (it was unbound and the path taken did not assign it) stays unbound."""
    return templates.replace("if not ag__.defined(name):\n    del name", origin=origin,
                             name=name)


def is_empty(block: list) -> bool:
    return all(isinstance(s, gast.Pass) for s in block)


def make_function(name: str, params: list, body: list, outputs: list | None, origin, ctx,
                  taken: frozenset, convert_block: Callable, returning: bool = False,
                  prologue: list = ()) -> list:
    """`def name(params): body; return outputs` with body converted recursively by
    `convert_block` (the control-flow pass, `control_flow.convert_block`, which hands the
    converters their nested blocks' `if`s and loops again).

    With `returning` (a branch of an `if` that ends the function), the body keeps its
    `return`s and each returns the outputs too: `return value, outputs`; a path that
    falls off the end returns `None, outputs`."""
    body = list(prologue) + convert_block(body, ctx, taken | {name})
    if returning and outputs:
        _return_also(body, outputs)
        if not jumps.always_jumps(body, lambda s: isinstance(s, (gast.Return, gast.Raise))):
            value = templates.tuple_node([gast.Constant(value=None, kind=None)] +
                                         [templates.name_node(o) if isinstance(o, str)
                                          else templates.clone(o) for o in outputs])
            body = body + templates.replace("return value", origin=origin, value=value)
    elif outputs:
        body = body + templates.replace("return outputs", origin=origin, outputs=outputs)
    body = body or [gast.copy_location(gast.Pass(), origin)]
    return templates.replace("def name(params):\n    body", origin=origin, name=name,
                             params=params, body=body)


def _return_also(block: list, outputs: list) -> None:
    """`return value` -> `return value, outputs` for the returns of this function."""
    for n in statements(block):
        if isinstance(n, gast.Return):
            value = n.value if n.value is not None else gast.Constant(value=None, kind=None)
            n.value = templates.tuple_node([value] + [
                templates.name_node(o) if isinstance(o, str) else templates.clone(o)
                for o in outputs])
            templates.copy_location(n.value, n)


def call_args(state: list, names: list, node, ctx, first: list) -> list:
    """Positional arguments: first..., (state values), ('names',) - trailing empties cut."""
    args = list(first)
    if state or names:
        args.append(templates.tuple_node([state_value(n, node, ctx) for n in state]))
    if names:
        args.append(templates.tuple_node([gast.Constant(value=n, kind=None) for n in names]))
    return args
