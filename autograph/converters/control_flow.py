"""The control-flow pass: walks statement blocks top-down and hands each `if`, `while`
and `for` to its converter (`conditionals.py`, `loops.py`). Also the helpers both use
to build branch and loop-body functions in the functional state-passing style:

    def if_true(x):          # takes the state
        x = x // 2           # the original statements (converted recursively)
        return x             # returns the outputs

Attribute state (`self.count += 1` in a branch) is carried as a local inside the
generated function (`self_count`), assigned back to `self.count` by the caller. Names
declared `global` / `nonlocal` are state like locals (the caller's assignment goes to
the global / the enclosing cell), so a symbolic branch that updates a global counter
updates it with the branch's result.
"""
from __future__ import annotations

import gast

from autograph.pyct import templates
from autograph.pyct.activity import qualified_name, writes


def convert_block(stmts: list, ctx, taken: frozenset) -> list:
    from autograph.converters import conditionals, loops

    out: list = []
    for s in stmts:
        if getattr(s, "ag_python", False):
            out.append(s)
        elif isinstance(s, gast.If):
            out.extend(conditionals.convert(s, ctx, taken))
        elif isinstance(s, gast.While):
            out.extend(loops.convert_while(s, ctx, taken))
        elif isinstance(s, gast.For):
            out.extend(loops.convert_for(s, ctx, taken))
        elif isinstance(s, gast.With):
            s.body = convert_block(s.body, ctx, taken)
            out.append(s)
        else:
            out.append(s)
    return out


def modified(block: list, ctx) -> set:
    """Names (and attribute chains) a block modifies."""
    return writes(block)


def ordered(names, ctx) -> list:
    """`names` in the order they first appear in the function's source."""
    return sorted(set(names), key=lambda n: (ctx.first_seen(n), n))


def is_carried(name: str, ctx) -> bool:
    """State that outlives the function - attributes (and their local stand-ins), global
    and nonlocal names: always taken and returned when modified."""
    return "." in name or name in ctx.always_live or name in ctx.declared


def local_names(names: list, ctx) -> dict:
    """qualified name -> the local name used for it inside generated functions."""
    out = {}
    for n in names:
        if "." in n:
            local = ctx.composite.get(n)
            if local is None:
                local = ctx.composite[n] = ctx.namer.new(n.replace(".", "_"))
                ctx.always_live.add(local)
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
            node.__dict__.pop("_ag_w", None)
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


def state_value(name: str, node, ctx):
    """The expression that passes variable `name` into generated code at `node`."""
    if "." in name:
        return gast.parse(name).body[0].value
    if name in node.ag_maybe_in or name in ctx.always_live or name in ctx.params or \
            name in ctx.declared:
        return templates.name_node(name)
    return templates.replace_expr(f"ag__.Undefined('{name}')", origin=node)


def state_target(name: str):
    """The expression a generated call's result is assigned to for `name`."""
    if "." in name:
        return gast.parse(name).body[0].value
    return templates.name_node(name, gast.Store)


def is_empty(block: list) -> bool:
    return all(isinstance(s, gast.Pass) for s in block)


def make_function(name: str, params: list, body: list, outputs: list | None, origin, ctx,
                  taken: frozenset) -> list:
    """`def name(params): body; return outputs` with body converted recursively."""
    body = convert_block(body, ctx, taken | {name})
    if outputs:
        body = body + templates.replace("return outputs", origin=origin, outputs=outputs)
    body = body or [gast.copy_location(gast.Pass(), origin)]
    return templates.replace("def name(params):\n    body", origin=origin, name=name,
                             params=params, body=body)


def call_args(state: list, names: list, node, ctx, first: list) -> list:
    """Positional arguments: first..., (state values), ('names',) - trailing empties cut."""
    args = list(first)
    if state or names:
        args.append(templates.tuple_node([state_value(n, node, ctx) for n in state]))
    if names:
        args.append(templates.tuple_node([gast.Constant(value=n, kind=None) for n in names]))
    return args
