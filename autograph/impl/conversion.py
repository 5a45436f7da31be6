"""The conversion pipeline: a parsed function node in, the converted node out.

The order matters and is written out in `convert_function_node` and `convert_def`:

 0. scope rewrites for the whole tree (`scoping`: `global` / bare annotations hoisted,
    walrus in `while` tests, private names mangled), the variables nested functions
    rebind through `nonlocal` found (`nonlocal_writes`: carried by the blocks that call)
    and, where the user's function uses `ag__` itself, a fresh name for the operators
    module;
 1. nested `def`s first (each converted as a function of its own; nested generators
    and `async def`s are left as Python, with a note: `converters/left_alone.py`);
 2. unsupported constructs are rejected, `try` blocks marked to stay Python;
 3. directives (`set_loop_options`) are lifted onto the loops they are statements of
    (or a ConversionError says where they must go);
 4. subscript targets and list mutation become assignments (`x = ag__.setitem(...)`,
    `xs = ag__.list_append(...)`) so the analysis sees them as writes;
    argument-less `locals()` / `vars()` / `dir()` list the user's variables
    (`introspection`, before the jumps add flags);
 5. returns inside loops become flags + `break` (`return_statements`; so do returns in
    a `with` block that returns on some paths only, without the `break`),
 6. then `break` / `continue` / loop `else` become flags (`break_statements`),
 7. then every `return` is moved to the end of an if-tree (`return_statements`);
 8. analysis (reaching definitions, which attributes surely exist, liveness) on the now
    jump-free code;
 9. possibly-undefined reads get `ag__.ld`;
10. expression converters: asserts, conditional expressions, and/or/not, calls;
11. control flow last: `if`, `while`, `for` -> functions + `ag__` calls, using the
    analysis of step 8 (the expressions they move were already converted);
12. the generated functions declare `nonlocal` the variables closures capture
    (`closures`: late binding, one cell per variable as in Python);
13. `o.a = ag__.setitem(o.a, ...)` becomes `ag__.setitem_attr(o, 'a', ...)`, which sets
    the attribute only for a new value (`attribute_stores`: no property setter runs for
    `o.a[k] = v`, as in Python).

The state the passes share is explicit (`impl/context.py`): `ctx.info`, the function
being converted (immutable); `ctx.scope`, the names of the function node being rewritten,
which this module builds (`Scope.of`) and sets - from the user's own code for steps
1-4, again from the jump-free code at step 8; `ctx.out`, what converters record for
later passes and for the caller, by name. Facts about single nodes are AST annotations
(`pyct/anno.py`). Module layers: pyct <- operators <- converters <- impl (see
`autograph/api.py`, which ties them together).
"""
from __future__ import annotations

import re

import gast

from autograph.converters import (
    asserts, attribute_stores, break_statements, call_trees, closures, conditional_expressions, control_flow,
    directives, introspection, left_alone, lists, logical_expressions, nonlocal_writes,
    return_statements,
    scoping, slices, try_statements, variables,
)
from autograph.errors import ConversionError
from autograph.impl.context import Context, Scope
from autograph.impl.context import nested_defs as _nested_defs
from autograph.pyct import activity, anno, dataflow, templates, transformer
from autograph.pyct.all_nodes import all_nodes

# cheap tests on the source text that let the pipeline skip whole passes (conservative:
# a match only means the pass may have something to do)
_MAYBE_UNSUPPORTED = re.compile(r"\b(yield|await|async)\b")
_MAYBE_INTROSPECTION = re.compile(r"\b(locals|vars|dir)\s*\(\s*\)|\b(eval|exec)\s*\(")
_MAYBE_TARGETS = re.compile(r"\.(append|pop)\s*\(|\]\s*(\*\*|//|>>|<<|[-+*/%@&|^])?=(?!=)")


def convert_function_node(node, ctx: Context):
    """Convert a FunctionDef or Lambda node in place and return it."""
    _reserve_operators_name(node, ctx)
    scoping.transform(node, ctx.namer, scoping.class_of(ctx.info.qualname), ctx.info.walrus)
    if "nonlocal" in ctx.info.source or not ctx.info.source:
        nonlocal_writes.transform(node, ctx.namer)  # (on the user's tree: before any generated def)
    if isinstance(node, gast.Lambda):
        ctx.scope = Scope.of(node, ctx.info.walrus)
        holder = gast.Expr(value=node)
        gast.copy_location(holder, node)
        wrapper = gast.FunctionDef(name="<lambda>", args=node.args, body=[holder],
                                   decorator_list=[], returns=None, type_comment=None)
        transformer.apply(wrapper, ctx, _EXPRESSIONS)
        return holder.value
    if isinstance(node, gast.AsyncFunctionDef):
        raise ConversionError("an `async def` cannot be converted: use a regular function",
                              ctx.info.filename, node.lineno)
    node.decorator_list = []
    node.returns = None
    convert_def(node, ctx, kinds=anno.get(node, anno.KINDS, None))
    _rename_operators(node, ctx)
    return node


def _reserve_operators_name(node, ctx: Context) -> None:
    """The generated code's name for the operators module is `ag__` unless the user's
    function uses that name itself (a parameter, a variable): then a fresh one."""
    if ctx.info.source and "ag__" not in ctx.info.source:
        return  # (the common case, told from the text without a walk)
    user = [n for n in all_nodes(node) if isinstance(n, gast.Name) and n.id == "ag__"]
    if not user:
        return
    for n in user:
        anno.set_(n, anno.USER_AG_NAME, True)
    ctx.out.ops_name = ctx.namer.new("ag__")


def _rename_operators(node, ctx: Context) -> None:
    if ctx.out.ops_name == "ag__":
        return
    for n in all_nodes(node):
        if isinstance(n, gast.Name) and n.id == "ag__" and \
                not anno.get(n, anno.USER_AG_NAME, False):
            n.id = ctx.out.ops_name


# Converters that do not depend on each other share one walk over the tree.
_TARGETS = transformer.merge(lists.HANDLERS, slices.HANDLERS)
_EXPRESSIONS = transformer.merge(variables.HANDLERS, asserts.HANDLERS,
                                 conditional_expressions.HANDLERS,
                                 logical_expressions.HANDLERS, call_trees.HANDLERS,
                                 slices.LOADS)


def convert_def(node, ctx: Context, enclosing: frozenset | None = None,
                kinds: frozenset | None = None) -> None:
    """Convert a FunctionDef in place: the converted function itself (`enclosing` None)
    or a def nested in it (`enclosing`: the locals of the defs around it). `kinds`: the
    names of the node classes its source holds (`anno.KINDS`; None: unknown), so that a
    pass with nothing to rewrite is skipped without a walk."""
    info = ctx.info
    top = enclosing is None
    # the user's own names (before the jump converters add flags): step 4 tells local
    # containers from global ones by them, `locals()` lists them
    user = Scope.of(node, info.walrus, frozenset() if top else enclosing)
    filename = info.filename
    # 0b. each `try` with handlers, and each `with np.errstate(...)`, gets a graph form
    #     (functions converted in step 1)
    if "try" in info.source or "errstate" in info.source:
        try_statements.transform(node, ctx)
    # 1. nested functions, innermost first (their calls must not resolve a name of this
    #    function statically); nested generators and async defs stay Python
    if _MAYBE_UNSUPPORTED.search(info.source):
        ctx.out.left_alone.extend(left_alone.mark_nested(node))
    for inner in _nested_defs(node):
        if not anno.get(inner, anno.DONE, False):
            convert_def(inner, ctx, user.enclosing | user.local, kinds)
    ctx.scope = user
    # 2. unsupported constructs; `try` blocks stay Python
    if _MAYBE_UNSUPPORTED.search(info.source):
        _check_supported(node, filename)
    if "try" in info.source:
        _mark_try_blocks(node)
    # 3. directives
    if "set_loop_options" in info.source:
        directives.transform(node, ctx, nested=not top)
    # 4. writes through subscripts / list methods (lists first: `xs.pop()` assignments)
    if _MAYBE_TARGETS.search(info.source):
        ctx.out.item_stores = True
        transformer.apply(node, ctx, _TARGETS)
    free_reads = set(info.freevars) if top else \
        activity._scope_free_reads(node) & set(user.enclosing)
    if _MAYBE_INTROSPECTION.search(info.source):
        introspection.transform(node, ctx, user.local, free_reads)
    # 5-7. jumps
    return_statements.transform(node, ctx.namer)
    break_statements.transform(node, ctx.namer, filename)
    return_statements.restructure(node, filename)
    # 8. analysis on the jump-free code. Names the function declares global / nonlocal
    #    are shared like captured ones: a call made inside a branch or loop body (a
    #    recursion) may change them meanwhile
    scope = Scope.of(node, info.walrus, user.enclosing)
    scope = ctx.scope = scope.with_captured(
        closures.captured_names(node, user.local) | scope.declared)
    dataflow.analyze(node, scope.params, scope.local)
    # 9-10. possibly-undefined reads (variables), then the expression converters (calls:
    #     the names given lists, which NumPy calls then read as arrays)
    ctx.out.list_names |= call_trees.names_given_lists(node)
    transformer.apply(node, ctx, _EXPRESSIONS)
    # 11. control flow; then closures made inside generated functions share the user's
    #     variables (late binding)
    node.body = control_flow.convert_block(node.body, ctx, frozenset())
    closures.share_cells(node, scope.captured, ctx.namer.generated, ctx.namer,
                         global_names=scope.global_names)
    if kinds is None or "AnnAssign" in kinds:  # (converters never write annotations)
        closures.unannotate_declared(node)
    # 13. a subscript store into an attribute stops setting the attribute (the analyses
    #     of steps 8 and 11 needed to see it as a write); only step 4 makes such stores
    if _MAYBE_TARGETS.search(info.source):
        attribute_stores.transform(node)
    anno.set_(node, anno.DONE, True)


_UNSUPPORTED = {
    gast.Yield: ("`yield` (a generator)", "return a list or an array instead of yielding "
                 "values, or mark the generator with ag.do_not_convert"),
    gast.YieldFrom: ("`yield from` (a generator)", "return a list or an array instead"),
    gast.Await: ("`await`", "call asynchronous code outside the converted function"),
    gast.AsyncFunctionDef: ("an `async def`", "use a regular function"),
    gast.AsyncFor: ("`async for`", "use a regular `for` loop"),
    gast.AsyncWith: ("`async with`", "use a regular `with` block"),
}


def _check_supported(node, filename: str) -> None:
    stack = [(n, False) for n in node.body]
    while stack:
        n, in_generator_expression = stack.pop()
        if anno.get(n, anno.DONE, False):
            continue  # a nested generator or async def, left as Python
        bad = _UNSUPPORTED.get(type(n))
        if bad is not None and not (in_generator_expression and isinstance(n, gast.Await)):
            # (an `await` in a generator expression makes it an asynchronous generator,
            # which runs as Python wherever it is iterated, as every generator does)
            what, instead = bad
            raise ConversionError(f"{what} cannot be converted: {instead}.", filename,
                                  getattr(n, "lineno", None), getattr(n, "col_offset", None))
        if isinstance(n, (gast.FunctionDef, gast.Lambda, gast.ClassDef)):
            continue
        inside = in_generator_expression or isinstance(n, gast.GeneratorExp)
        for field in n._fields:
            v = getattr(n, field, None)
            if isinstance(v, list):
                stack.extend((x, inside) for x in v if isinstance(x, gast.AST))
            elif isinstance(v, gast.AST):
                stack.append((v, inside))


def _mark_try_blocks(node) -> None:
    """Control flow inside a `try` stays Python where the `try` does: its original form
    runs in a trace only when it has no graph form (try_statements.py)."""
    for t in all_nodes(node):
        if isinstance(t, gast.Try):
            for n in all_nodes(t):
                if isinstance(n, (gast.If, gast.While, gast.For)) and \
                        not anno.get(n, anno.PYTHON_ONLY, False):
                    anno.set_(n, anno.PYTHON_ONLY, True)
                    field = "iter" if isinstance(n, gast.For) else "test"
                    setattr(n, field, _python_only(n, field))


def _python_only(n, field):
    value = getattr(n, field)
    return templates.replace_expr("ag__.python_only(value)", origin=value, value=value)
