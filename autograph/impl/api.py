"""Conversion entry points: `convert`, `to_code`, `do_not_convert` (what converted code
calls for a callee is decided in `autograph.impl.calls`).

Loading: the converted function node is wrapped in a factory

    def ag__factory(ag__, <free variables of the original>):
        def f(...): <converted body, counting its calls>
        def f(...): <converted body>      # its plain twin (`impl/counting.py`)
        return f

compiled with the user's file name (nodes keep the user's line numbers, so
tracebacks show the user's own lines). The inner code object is then turned into a
function with the original globals (the real module dict) and a closure made of the
original cells plus a cell holding the `ag__` operators module - so closures,
`global` and `nonlocal` behave exactly as in the original. Compiled code is cached per
code object (with its file name: code objects compare equal across files), `recursive`
and the assumptions the conversion made about the function's globals (`Context.lookup`:
which names are modules or builtins) - closure values never shape the code, so every
function made by the same `def` can share it. Converted functions are cached per
function object.
"""
from __future__ import annotations

import __future__
import ast
import functools
import inspect
import operator
import threading
import types
import weakref
from typing import Callable

import gast

from autograph.converters.fast_paths import (SITE_PREFIX, TRACING_CELL, CallSite,
                                            compile_call_sites, compile_subscript_stores)
from autograph.converters.bound_reads import bind_reads
from autograph.converters.fast_tests import compile_tests
from autograph.errors import ConversionError
from autograph.impl import counting
from autograph.impl.context import Context, FunctionInfo, assumptions_hold
from autograph.impl.conversion import convert_function_node
from autograph import operators
from autograph.pyct import anno, gast_to_ast, parser, registry, templates
from autograph.pyct.all_nodes import all_nodes, child_nodes
from runtime.core import log
from runtime.core.errors import HELPER_CODES
from runtime.core.tracing import building as tracing_anywhere
from runtime.state.read_names import unrecorded

_LOCK = threading.RLock()
_FUTURE_FLAGS = functools.reduce(operator.or_, (getattr(__future__, name).compiler_flag
                                                for name in __future__.all_feature_names))
_COMPILED: dict = {}          # (code, filename, recursive) -> [(assumed, inner code)]
# Converted functions are cached on the original itself (`fn.__dict__[_CACHE_ATTR]` =
# (generation, {recursive: converted})): the converted function refers back to the
# original (`__wrapped__`, shared closure cells), so a cache outside it (even a weak-key
# one) would keep every converted closure and what it captures alive forever; on the
# function, the two form a cycle the garbage collector frees with the original.
_CACHE_ATTR = "__ag_converted__"
_GENERATION = [0]  # bumped by `_reset_caches`: older entries are ignored
_CONVERTED_CODES = registry.CONVERTED_CODES  # (the shared registries live in pyct)
_register_codes = registry.register_codes
_plain_function = registry.plain_function
is_convertible = registry.is_convertible


# -- converting ---------------------------------------------------------------------------
def convert(fn: Callable, recursive: bool = True) -> Callable:
    """The converted version of `fn` (cached per function)."""
    if isinstance(fn, types.MethodType):
        return types.MethodType(convert(fn.__func__, recursive), fn.__self__)
    if isinstance(fn, functools.partial):
        return functools.partial(convert(fn.func, recursive), *fn.args, **fn.keywords)
    if not isinstance(fn, types.FunctionType):
        if callable(fn) and not isinstance(fn, type) and is_convertible(fn):
            return convert(fn.__call__, recursive)
        raise ConversionError(f"cannot convert {fn!r}: AutoGraph converts Python functions "
                              "and methods")
    if registry.is_marked_do_not_convert(fn) or registry.is_generated_code(fn.__code__):
        return fn
    entry = fn.__dict__.get(_CACHE_ATTR)
    if type(entry) is tuple and entry[0] == _GENERATION[0]:
        new = entry[1].get(recursive)
        if new is not None and new.__wrapped__ is fn:
            return new
    with _LOCK:
        new = _instantiate(_compiled(fn, recursive), fn)
        # a new dict: one copied from another function (functools.wraps) stays its own
        fn.__dict__[_CACHE_ATTR] = (_GENERATION[0], {**_cached_conversions(fn), recursive: new})
    return new


def _cached_conversions(fn) -> dict:
    """{recursive: converted fn} cached on `fn` (not entries copied from another function)."""
    entry = fn.__dict__.get(_CACHE_ATTR)
    if type(entry) is not tuple or entry[0] != _GENERATION[0]:
        return {}
    return {k: v for k, v in entry[1].items() if getattr(v, "__wrapped__", None) is fn}


def _compiled(fn, recursive: bool) -> types.CodeType:
    code = fn.__code__
    versions = _COMPILED.setdefault((code, code.co_filename, recursive), [])
    for assumed, inner in versions:
        if assumptions_hold(assumed, fn.__globals__):
            return inner
    started = log.start(log.CONVERT, log.DEBUG)
    with unrecorded():  # (converting inside a trace: not the program's reads)
        inner, assumed = _compile(fn, recursive)
    log.done(log.CONVERT, log.DEBUG, started, "converted %s (%s:%d)", fn.__qualname__,
             fn.__code__.co_filename, fn.__code__.co_firstlineno)
    versions.append((assumed, inner))
    return inner


def _convert_node(fn, recursive: bool):
    node, src = parser.parse_function(fn)
    with parser.recursion_room(anno.get(node, anno.DEPTH, 0)):
        return _convert_parsed(fn, node, src, recursive)


def _convert_parsed(fn, node, src, recursive: bool):
    ctx = Context(FunctionInfo.of(fn, src.filename, src.text, recursive))
    return convert_function_node(node, ctx), src, ctx


_FUTURE_FLAGS = functools.reduce(operator.or_, (getattr(__future__, name).compiler_flag
                                                for name in __future__.all_feature_names))


def _compile(fn, recursive: bool) -> tuple:
    """(inner code object, the assumptions about globals it was converted under)."""
    node, src, ctx = _convert_node(fn, recursive)
    with parser.recursion_room(anno.get(node, anno.DEPTH, 0)):
        return _compile_node(fn, node, src, ctx)


def _compile_node(fn, node, src, ctx) -> tuple:
    freevars = list(fn.__code__.co_freevars)
    if "__class__" in freevars:
        _explicit_super(node, shadowed="super" in fn.__globals__,
                        generated=ctx.namer.generated)
    name = node.name if isinstance(node, gast.FunctionDef) else None
    args = node.args
    for a in args.posonlyargs + args.args + args.kwonlyargs + [args.vararg, args.kwarg]:
        if a is not None:  # (evaluated in the factory, where the def's scope is not)
            a.annotation = None
    cells = compile_call_sites(node, ctx)  # (cells the factory makes: see `_instantiate`)
    compile_subscript_stores(node, ctx, cells)
    compile_tests(node, ctx)
    bind_reads(node, ctx)
    twin = None
    if name is None:
        body = templates.replace("return fn", origin=node, fn=node)
    else:
        # a name that is not a factory local, so a recursive call still reads the global
        node.name = name = ctx.namer.new("ag__converted")
        twin = counting.count_calls(node, ctx)
        body = [node, twin] + templates.replace("return fn", origin=node, fn=name)
    factory = templates.replace("def ag__factory(params):\n    body", origin=node,
                                params=[ctx.out.ops_name] + cells + freevars, body=body)
    module = ast.Module(body=[gast_to_ast.convert(factory[0])], type_ignores=[])
    ast.fix_missing_locations(module)
    # only the user's own future flags: not this module's `annotations`, which `exec` /
    # `compile` called from the converted code would otherwise inherit
    code = compile(module, src.filename, "exec", flags=fn.__code__.co_flags & _FUTURE_FLAGS,
                   dont_inherit=True)
    factory_code = next(c for c in code.co_consts if isinstance(c, types.CodeType))
    inner, *plain = [_finish(c, fn, ctx) for c in factory_code.co_consts
                     if isinstance(c, types.CodeType)]  # (the counted def, its plain twin)
    if twin is not None:
        counting.pair(inner, plain[0])
    return inner, dict(ctx.out.assumed)


def _finish(inner, fn, ctx) -> types.CodeType:
    """The converted function's code `inner` with the original's names, registered as
    generated code (and the functions the compiler generated in it as its helpers)."""
    inner = inner.replace(co_name=fn.__code__.co_name)
    if hasattr(inner, "co_qualname"):
        inner = _user_qualnames(inner, inner.co_qualname, fn.__code__.co_qualname,
                                ctx.namer.generated)
    _register_codes(inner)
    _register_helpers(inner, ctx.namer.generated, inner.co_name)
    return inner


counts_its_calls = counting.counts_its_calls


def qualname_of(prefix: str, parts: list) -> str:
    return prefix + ".".join(parts)


def _register_helpers(code, generated: set, owner: str) -> None:
    """Record the functions the compiler generated inside `code` (named by the namer's
    `generated` set) with the user's function they belong to, so filtered tracebacks
    show their frames as that function's."""
    for c in code.co_consts:
        if isinstance(c, types.CodeType):
            if c.co_name in generated:
                HELPER_CODES[id(c)] = (c, owner)
                _register_helpers(c, generated, owner)
            else:
                _register_helpers(c, generated, c.co_name)


def _user_qualnames(code, old: str, new: str, generated: set):
    """Give `code` and the code nested in it the qualified names the original has: the
    factory prefix `old` becomes `new` (the function's own) and the generated functions
    drop out (`f.<locals>.loop_body.<locals>.g` -> `f.<locals>.g`), so functions and
    classes made by converted code look like the original's (repr, __qualname__)."""
    qualname = code.co_qualname
    consts = [_user_qualnames(c, old, new, generated) if isinstance(c, types.CodeType)
              else c for c in code.co_consts]
    if qualname.startswith(old):
        parts = qualname[len(old):].split(".")
        kept: list = []
        k = 0
        while k < len(parts):
            if parts[k] in generated and k + 1 < len(parts) and parts[k + 1] == "<locals>":
                k += 2
                continue
            kept.append(parts[k])
            k += 1
        if not code.co_flags & inspect.CO_OPTIMIZED:  # a class body: it stores its
            # `__qualname__` from a constant string, its code's own qualified name
            consts = [qualname_of(new, kept) if type(c) is str and c == qualname else c
                      for c in consts]
        qualname = qualname_of(new, kept)
    return code.replace(co_consts=tuple(consts), co_qualname=qualname)


def _explicit_super(node, shadowed: bool = False, generated=frozenset()) -> None:
    """`super()` -> `super(__class__, self)` where the converter moved it into a function
    it generated (a branch or loop body, a lambda): there the zero-argument form would
    read that function's first argument. `super()` left in the user's own def is left as
    written, so it reads what Python reads (a deleted first argument raises Python's
    RuntimeError); so is one in a comprehension (Python gives it the comprehension's
    iterator). Not when `super` is the function's own name for something else (a local,
    or a global of the module when `shadowed`): then `super()` calls that. A `def` of the
    user's nested in it (one not named in `generated`) has its own first parameter, as in
    Python: its `super()` names that one, or stays as written when it has none."""
    params = node.args.posonlyargs + node.args.args
    if not params or shadowed or _binds_super(node):
        return
    first = params[0].id
    stack = [(c, False) for c in gast.iter_child_nodes(node)]
    while stack:
        n, moved = stack.pop()
        if moved and isinstance(n, gast.Call) and isinstance(n.func, gast.Name) and \
                n.func.id == "super" and not n.args and not n.keywords:
            n.args = [templates.name_node("__class__"), templates.name_node(first)]
        for c in child_nodes(n):
            if isinstance(c, gast.ClassDef):
                continue  # a nested class's methods have their own `__class__` and self
            if isinstance(c, gast.FunctionDef) and c.name not in generated:
                _explicit_super(c, generated=generated)
                continue
            if isinstance(c, _COMPREHENSIONS):
                stack.append((c, False))
            else:
                stack.append((c, moved or isinstance(c, (gast.FunctionDef, gast.Lambda))))


_COMPREHENSIONS = (gast.ListComp, gast.SetComp, gast.DictComp, gast.GeneratorExp)


def _binds_super(node) -> bool:
    """Whether the function binds the name `super` (def, class, assignment, import,
    parameter) anywhere in its body."""
    for n in all_nodes(node):
        if isinstance(n, (gast.FunctionDef, gast.ClassDef)) and n.name == "super" or \
                isinstance(n, gast.Name) and n.id == "super" and \
                isinstance(n.ctx, (gast.Store, gast.Param, gast.Del)) or \
                isinstance(n, gast.alias) and (n.asname or n.name) == "super":
            return True
    return False


def _instantiate(inner: types.CodeType, fn: types.FunctionType) -> types.FunctionType:
    original = dict(zip(fn.__code__.co_freevars, fn.__closure__ or ()))
    cells, sites = [], False
    for name in inner.co_freevars:
        if name not in original and name.startswith(TRACING_CELL):
            cells.append(types.CellType(tracing_anywhere))
        elif name not in original and name.startswith(SITE_PREFIX):
            cells.append(types.CellType(CallSite()))  # converters/fast_paths.py
            sites = True
        elif name not in original and name.startswith("ag__"):  # `Outputs.ops_name`
            cells.append(types.CellType(operators))
        else:
            cells.append(original.get(name, types.CellType()))
    new = types.FunctionType(inner, fn.__globals__, fn.__name__, fn.__defaults__, tuple(cells))
    new.__kwdefaults__ = fn.__kwdefaults__
    new.__dict__.update({k: v for k, v in fn.__dict__.items() if k != _CACHE_ATTR})
    for attr in ("__qualname__", "__doc__", "__module__", "__annotations__"):
        setattr(new, attr, getattr(fn, attr))
    new.__wrapped__ = fn
    if sites:
        _WITH_SITES.add(new)
    counting.adopt(new)  # (its plain code while no trace is being built)
    return new


_WITH_SITES: weakref.WeakSet = weakref.WeakSet()  # converted functions with call sites


def clear_call_sites() -> None:
    """Empty every call site (`converters/fast_paths.py`), so each asks `converted` again:
    after the caches are reset or a function is marked not to convert."""
    for fn in list(_WITH_SITES):
        for name, cell in zip(fn.__code__.co_freevars, fn.__closure__ or ()):
            if name.startswith(SITE_PREFIX):
                cell.cell_contents.clear()


# -- to_code ------------------------------------------------------------------------------
def to_code(fn: Callable, recursive: bool = True) -> str:
    """The converted source of `fn`; with `recursive`, also of the user functions it calls
    by name (each once)."""
    return "\n\n".join(_to_code(fn, recursive, set()))


def _to_code(fn, recursive: bool, seen: set) -> list:
    plain = _plain_function(fn)
    if plain is None:
        if is_convertible(fn):
            plain = type(fn).__call__
        else:
            raise ConversionError(f"cannot convert {fn!r}: AutoGraph converts Python "
                                  "functions and methods")
    seen.add(plain.__code__)
    node, _, ctx = _convert_node(plain, recursive)
    with parser.recursion_room(anno.get(node, anno.DEPTH, 0)):
        out = [parser.unparse(node)]
    if recursive:
        for callee in _callees(node, ctx):
            fn2 = _plain_function(callee)
            if fn2 is not None and fn2.__code__ not in seen:
                try:
                    out.extend(_to_code(fn2, recursive, seen))
                except ConversionError:
                    pass  # a callee that cannot be converted runs as is: nothing to list
    return out


def _callees(node, ctx) -> list:
    out = []
    for name in dict.fromkeys(ctx.out.callees):
        target = ctx.current_value(name)
        if name not in ctx.scope.local and is_convertible(target):
            out.append(target)
    return out


def do_not_convert(fn: Callable) -> Callable:
    """Mark `fn` so AutoGraph calls it as is (and so does not convert what it calls)."""
    return registry.mark_do_not_convert(fn)


def _reset_caches() -> None:
    """For tests and benchmarks: forget sources, compiled and converted functions."""
    with _LOCK:
        _COMPILED.clear()
        _GENERATION[0] += 1
        parser._SOURCE_CACHE.clear()
        clear_call_sites()


# `autograph.api` reaches the compiler here (`autograph.impl.calls`, loaded with it,
# registers what converted code calls)
registry.set_compiler(convert=convert, to_code=to_code)
registry.ON_MARK.append(clear_call_sites)

__all__ = ["convert", "to_code", "do_not_convert", "is_convertible"]
