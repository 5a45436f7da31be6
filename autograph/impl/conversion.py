"""The conversion pipeline: a parsed function node in, the converted node out.

The order matters and is written out in `convert_function_node` and `convert_def`:

 0. scope rewrites for the whole tree (`scoping`: `global` / bare annotations hoisted,
    walrus in `while` tests, private names mangled) and, where the user's function uses
    `ag__` itself, a fresh name for the operators module;
 1. nested `def`s first (each converted as a function of its own);
 2. unsupported constructs are rejected, `try` blocks marked to stay Python;
 3. directives (`set_loop_options`) are lifted onto their loops;
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
    (`closures`: late binding, one cell per variable as in Python).
"""
from __future__ import annotations

import builtins
import re
import types

import gast

from autograph.converters import (
    asserts, break_statements, call_trees, closures, conditional_expressions, control_flow,
    directives, introspection, lists, logical_expressions, return_statements, scoping, slices,
    variables,
)
from autograph.errors import ConversionError
from autograph.pyct import activity, anno, blocks, dataflow, transformer
from autograph.pyct.naming import IDENTIFIER, Namer

_MISSING = call_trees._MISSING
# cheap tests on the source text that let the pipeline skip whole passes
_MAYBE_UNSUPPORTED = re.compile(r"\b(yield|await|async)\b")
_MAYBE_INTROSPECTION = re.compile(r"\b(locals|vars|dir)\s*\(\s*\)")
_MAYBE_TARGETS = re.compile(r"\.(append|pop)\s*\(|\]\s*(\*\*|//|>>|<<|[-+*/%@&|^])?=(?!=)")


class Context:
    """What converters need to know about the function being converted."""

    def __init__(self, fn, filename: str, namer: Namer, recursive: bool, source: str = ""):
        self.fn = fn
        self.source = source
        self.walrus = ":=" in source or not source  # may bind names in expressions
        self._first_seen = None
        self.filename = filename
        self.namer = namer
        self.recursive = recursive
        self.composite: dict = {}
        self.callees: list = []
        self.list_names: set = set()
        self.always_live: set = set()
        code = getattr(fn, "__code__", None)
        closure = getattr(fn, "__closure__", None) or ()
        self.closure = {}
        if code is not None:
            for name, cell in zip(code.co_freevars, closure):
                try:
                    self.closure[name] = cell.cell_contents
                except ValueError:
                    pass  # an empty cell (not assigned yet): nothing to resolve
        self.freevars = frozenset(code.co_freevars) if code is not None else frozenset()
        self.globals = getattr(fn, "__globals__", {})
        self.enclosing: frozenset = frozenset()  # locals of the defs around a nested def
        self.qualname = getattr(fn, "__qualname__", "")
        self.ops_name = "ag__"  # the operators module's name in the generated code
        # global name -> the module (or BUILTIN) the converted code was specialized for
        self.assumed: dict = {}
        self.enter(None)

    def enter(self, fn_node) -> None:
        """Set the per-scope facts for a (nested) function node."""
        if fn_node is None:
            self.local = self.local_defs = self.params = self.declared = frozenset()
            self.global_names = self.nonlocal_names = frozenset()
            self.self_names = frozenset({"self", "cls"})
            self.captured = set()
            return
        params = {a.id for a in _params(fn_node.args)}
        glob, nonloc = activity.declared(fn_node) if isinstance(fn_node, gast.FunctionDef) \
            else (set(), set())
        self.global_names, self.nonlocal_names = glob, nonloc
        self.declared = glob | nonloc
        # names the function binds (not `x` of `x[i] = v` on a global or closure container)
        self.local = activity.bound_names(fn_node, self.walrus) \
            if isinstance(fn_node, gast.FunctionDef) else params
        self.local_defs = {s.name for s in _nested_defs(fn_node)} \
            if isinstance(fn_node, gast.FunctionDef) else set()
        self.params = params
        args = fn_node.args.args
        self.self_names = frozenset({"self", "cls"} | ({args[0].id} if args else set()))

    def first_seen(self, name: str) -> int:
        """Where `name` first occurs in the source (orders generated parameter lists)."""
        if self._first_seen is None:
            seen: dict = {}
            for m in IDENTIFIER.finditer(self.source):
                seen.setdefault(m.group(), m.start())
            self._first_seen = seen
        pos = self._first_seen.get(name)
        if pos is None:
            pos = self.source.find(name)
        return pos if pos >= 0 else len(self.source)

    def lookup(self, name: str):
        """What a free name of the function refers to, when the converted code may rely on
        it (`call_trees`): a module bound to a global (`np`) or a builtin no global
        shadows. Everything else - closure variables, other globals, names of enclosing
        scopes - may differ between functions sharing this code object or change later,
        so it is _MISSING and decided at run time. The assumptions are recorded in
        `assumed`, which the compiled-code cache checks before reusing the code."""
        if name in self.freevars or name in self.enclosing:
            return _MISSING
        if name in self.globals:
            value = self.globals[name]
            if not isinstance(value, types.ModuleType):
                return _MISSING
            self.assumed[name] = value
            return value
        value = getattr(builtins, name, _MISSING)
        if value is not _MISSING:
            self.assumed[name] = BUILTIN
        return value

    def current_value(self, name: str):
        """What `name` refers to in this function right now (closure, global, builtin):
        for listing the functions it calls (`to_code`), never for generating code."""
        if name in self.closure:
            return self.closure[name]
        if name in self.globals:
            return self.globals[name]
        return getattr(builtins, name, _MISSING)


BUILTIN = object()  # in `Context.assumed`: the name is not a global (it is the builtin)


def assumptions_hold(assumed: dict, globals_: dict) -> bool:
    """Whether code converted under `assumed` is right for a function with `globals_`."""
    for name, value in assumed.items():
        if value is BUILTIN:
            if name in globals_:
                return False
        elif globals_.get(name, _MISSING) is not value:
            return False
    return True


def _params(args) -> list:
    out = list(args.posonlyargs) + list(args.args) + list(args.kwonlyargs)
    out += [a for a in (args.vararg, args.kwarg) if a is not None]
    return out


def convert_function_node(node, ctx: Context):
    """Convert a FunctionDef or Lambda node in place and return it."""
    ctx.top = node
    _reserve_operators_name(node, ctx)
    scoping.transform(node, ctx.namer, scoping.class_of(ctx.qualname))
    if isinstance(node, gast.Lambda):
        ctx.enter(node)
        holder = gast.Expr(value=node)
        gast.copy_location(holder, node)
        wrapper = gast.FunctionDef(name="<lambda>", args=node.args, body=[holder],
                                   decorator_list=[], returns=None, type_comment=None)
        transformer.apply(wrapper, ctx, _EXPRESSIONS)
        return holder.value
    if isinstance(node, gast.AsyncFunctionDef):
        raise ConversionError("an `async def` cannot be converted: use a regular function",
                              ctx.filename, node.lineno)
    node.decorator_list = []
    node.returns = None
    convert_def(node, ctx)
    _rename_operators(node, ctx)
    return node


def _reserve_operators_name(node, ctx: Context) -> None:
    """The generated code's name for the operators module is `ag__` unless the user's
    function uses that name itself (a parameter, a variable): then a fresh one."""
    user = [n for n in gast.walk(node) if isinstance(n, gast.Name) and n.id == "ag__"]
    if not user:
        return
    for n in user:
        anno.set_(n, anno.USER_AG_NAME, True)
    ctx.ops_name = ctx.namer.new("ag__")


def _rename_operators(node, ctx: Context) -> None:
    if ctx.ops_name == "ag__":
        return
    for n in gast.walk(node):
        if isinstance(n, gast.Name) and n.id == "ag__" and \
                not anno.get(n, anno.USER_AG_NAME, False):
            n.id = ctx.ops_name


# Converters that do not depend on each other share one walk over the tree.
_TARGETS = transformer.merge(lists.HANDLERS, slices.HANDLERS)
_EXPRESSIONS = transformer.merge(variables.HANDLERS, asserts.HANDLERS,
                                 conditional_expressions.HANDLERS,
                                 logical_expressions.HANDLERS, call_trees.HANDLERS)


def convert_def(node, ctx: Context) -> None:
    # 1. nested functions, innermost first (their calls must not resolve a name of this
    #    function statically)
    inner_defs = _nested_defs(node)
    if inner_defs:
        enclosing = ctx.enclosing
        ctx.enclosing = enclosing | activity.bound_names(node, ctx.walrus)
        for inner in inner_defs:
            convert_def(inner, ctx)
        ctx.enclosing = enclosing
    filename = ctx.filename
    # 2. unsupported constructs; `try` blocks stay Python
    if _MAYBE_UNSUPPORTED.search(ctx.source):
        _check_supported(node, filename)
    if "try" in ctx.source:
        _mark_try_blocks(node)
    # 3. directives
    if "set_loop_options" in ctx.source:
        directives.transform(node, ctx)
    # 4. writes through subscripts / list methods (lists first: `xs.pop()` assignments)
    if _MAYBE_TARGETS.search(ctx.source):
        ctx.bound = activity.bound_names(node, ctx.walrus)
        transformer.apply(node, ctx, _TARGETS)
    # the user's own variables (before the jump converters add flags), for `locals()`
    user_local = activity.bound_names(node, ctx.walrus)
    free_reads = set(ctx.freevars) if node is ctx.top else \
        activity._scope_free_reads(node) & set(ctx.enclosing)
    if _MAYBE_INTROSPECTION.search(ctx.source):
        introspection.transform(node, ctx, user_local, free_reads)
    # 5-7. jumps
    return_statements.transform(node, ctx.namer)
    break_statements.transform(node, ctx.namer, filename)
    return_statements.restructure(node, filename)
    # 8. analysis
    ctx.enter(node)
    # names the function declares global / nonlocal are shared the same way: a call made
    # inside a branch or loop body (a recursion) may change them meanwhile
    declared = activity.declared(node)
    ctx.captured = closures.captured_names(node, user_local) | declared[0] | declared[1]
    dataflow.analyze(node, ctx.params, ctx.local)
    # 9-10. possibly-undefined reads (variables), then the expression converters
    transformer.apply(node, ctx, _EXPRESSIONS)
    # 11. control flow; then closures made inside generated functions share the user's
    #     variables (late binding)
    node.body = control_flow.convert_block(node.body, ctx, frozenset())
    closures.share_cells(node, ctx.captured, ctx.namer.generated, ctx.namer,
                         global_names=declared[0])
    anno.set_(node, anno.DONE, True)


def _nested_defs(node) -> list:
    return [n for n in blocks.statements(node.body) if isinstance(n, gast.FunctionDef)]


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
    stack = list(node.body)
    while stack:
        n = stack.pop()
        bad = _UNSUPPORTED.get(type(n))
        if bad is not None:
            what, instead = bad
            raise ConversionError(f"{what} cannot be converted: {instead}.", filename,
                                  getattr(n, "lineno", None), getattr(n, "col_offset", None))
        if isinstance(n, (gast.FunctionDef, gast.Lambda, gast.ClassDef)):
            continue
        for field in n._fields:
            v = getattr(n, field, None)
            if isinstance(v, list):
                stack.extend(x for x in v if isinstance(x, gast.AST))
            elif isinstance(v, gast.AST):
                stack.append(v)


def _mark_try_blocks(node) -> None:
    """Control flow inside `try` stays Python (a graph cannot catch exceptions)."""
    for t in gast.walk(node):
        if isinstance(t, gast.Try):
            for n in gast.walk(t):
                if isinstance(n, (gast.If, gast.While, gast.For)) and \
                        not anno.get(n, anno.PYTHON_ONLY, False):
                    anno.set_(n, anno.PYTHON_ONLY, True)
                    field = "iter" if isinstance(n, gast.For) else "test"
                    setattr(n, field, _python_only(n, field))


def _python_only(n, field):
    from autograph.pyct import templates

    value = getattr(n, field)
    return templates.replace_expr("ag__.python_only(value)", origin=value, value=value)
