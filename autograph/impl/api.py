"""Conversion entry points: `convert`, `to_code`, `do_not_convert`,
and `converted_call` (what generated code calls for user functions).

Loading: the converted function node is wrapped in a factory

    def ag__factory(ag__, <free variables of the original>):
        def f(...): <converted body>
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
import operator
import sys
import threading
import types
import warnings
import weakref
from typing import Callable

import gast
import numpy as np

from autograph.errors import ConversionError
from autograph.impl.context import Context, FunctionInfo, assumptions_hold
from autograph.impl.conversion import convert_function_node
from autograph import operators
from autograph.operators import lists
from autograph.operators.builtin_calls import overload_of
from autograph.operators.call import explain_recursion
from autograph.pyct import anno, gast_to_ast, parser, registry, templates
from runtime.core import log, tracing
from runtime.core.errors import HELPER_CODES, user_stacklevel
from runtime.ops.dynamic import CREATORS, creator_call
from autograph.operators.random_calls import NOT_RANDOM, random_call

_LOCK = threading.RLock()
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
        _explicit_super(node, shadowed="super" in fn.__globals__)
    name = node.name if isinstance(node, gast.FunctionDef) else None
    args = node.args
    for a in args.posonlyargs + args.args + args.kwonlyargs + [args.vararg, args.kwarg]:
        if a is not None:  # (evaluated in the factory, where the def's scope is not)
            a.annotation = None
    if name is None:
        body = templates.replace("return fn", origin=node, fn=node)
    else:
        # a name that is not a factory local, so a recursive call still reads the global
        node.name = name = ctx.namer.new("ag__converted")
        body = [node] + templates.replace("return fn", origin=node, fn=name)
    factory = templates.replace("def ag__factory(params):\n    body", origin=node,
                                params=[ctx.out.ops_name] + freevars, body=body)
    module = ast.Module(body=[gast_to_ast.convert(factory[0])], type_ignores=[])
    ast.fix_missing_locations(module)
    # the user's `from __future__` flags, not this module's (`exec` and `eval` in the
    # converted code inherit them)
    code = compile(module, src.filename, "exec", flags=fn.__code__.co_flags & _FUTURE_FLAGS,
                   dont_inherit=True)
    factory_code = next(c for c in code.co_consts if isinstance(c, types.CodeType))
    inner = next(c for c in factory_code.co_consts if isinstance(c, types.CodeType))
    inner = inner.replace(co_name=fn.__code__.co_name)
    if hasattr(inner, "co_qualname"):
        inner = _user_qualnames(inner, inner.co_qualname, fn.__code__.co_qualname,
                                ctx.namer.generated)
    _register_codes(inner)
    _register_helpers(inner, ctx.namer.generated, inner.co_name)
    return inner, dict(ctx.out.assumed)


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
    consts = tuple(_user_qualnames(c, old, new, generated) if isinstance(c, types.CodeType)
                   else c for c in code.co_consts)
    qualname = code.co_qualname
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
        qualname = new + ".".join(kept)
    return code.replace(co_consts=consts, co_qualname=qualname)


def _register_codes(code) -> None:
    _CONVERTED_CODES[id(code)] = code
    for c in code.co_consts:
        if isinstance(c, types.CodeType):
            _register_codes(c)


def _explicit_super(node, shadowed: bool = False) -> None:
    """`super()` -> `super(__class__, self)`: the zero-argument form needs a class body.
    Not when `super` is the function's own name for something else (a local, or a global
    of the module when `shadowed`): then `super()` calls that."""
    if not node.args.args or shadowed or _binds_super(node):
        return
    first = node.args.args[0].id
    stack = list(node.body)
    while stack:  # (not into a nested class: its methods' `super()` is their own)
        n = stack.pop()
        if isinstance(n, gast.ClassDef):
            continue
        if isinstance(n, gast.Call) and isinstance(n.func, gast.Name) and \
                n.func.id == "super" and not n.args:
            n.args = [templates.name_node("__class__"), templates.name_node(first)]
        stack.extend(gast.iter_child_nodes(n))


def _binds_super(node) -> bool:
    """Whether the function binds the name `super` (def, class, assignment, import,
    parameter) anywhere in its body."""
    for n in gast.walk(node):
        if isinstance(n, (gast.FunctionDef, gast.ClassDef)) and n.name == "super" or \
                isinstance(n, gast.Name) and n.id == "super" and \
                isinstance(n.ctx, (gast.Store, gast.Param, gast.Del)) or \
                isinstance(n, gast.alias) and (n.asname or n.name) == "super":
            return True
    return False


def _instantiate(inner: types.CodeType, fn: types.FunctionType) -> types.FunctionType:
    original = dict(zip(fn.__code__.co_freevars, fn.__closure__ or ()))
    cells = []
    for name in inner.co_freevars:
        if name not in original and name.startswith("ag__"):  # `Outputs.ops_name`
            cells.append(types.CellType(operators))
        else:
            cells.append(original.get(name, types.CellType()))
    new = types.FunctionType(inner, fn.__globals__, fn.__name__, fn.__defaults__, tuple(cells))
    new.__kwdefaults__ = fn.__kwdefaults__
    new.__dict__.update({k: v for k, v in fn.__dict__.items() if k != _CACHE_ATTR})
    for attr in ("__qualname__", "__doc__", "__module__", "__annotations__"):
        setattr(new, attr, getattr(fn, attr))
    new.__wrapped__ = fn
    return new


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


# -- called from converted code ---------------------------------------------------------
_WARNED: set = set()


_CALL_ATTR = "__ag_call__"  # on a function: (generation, what converted_call calls for it)


def _known_target(f):
    """What `converted_call` calls for `f` when that is already known, else None: `f` is
    converted code (generated, or written by `autograph convert`), or a plain function
    that converted_call converted before. Skips the general checks on the hot path of
    converted code calling converted code."""
    if type(f) is not types.FunctionType:
        return None
    code = f.__code__
    if _CONVERTED_CODES.get(id(code)) is code:
        return f
    entry = f.__dict__.get(_CALL_ATTR)
    if type(entry) is tuple and entry[0] == _GENERATION[0] and \
            entry[1].__wrapped__ is f and "__ag_do_not_convert__" not in f.__dict__:
        return entry[1]
    return None


def converted_call(f, *args, **kwargs):
    """Call `f`, converted first if it is user code."""
    g = _known_target(f)
    if g is None:
        g = _target(f, args, kwargs)
        if type(g) is _Done:
            return g.value
    return _call(g, args, kwargs)


class _Done:
    """A call `_target` already made (a NumPy or builtin overload)."""

    __slots__ = ("value",)

    def __init__(self, value):
        self.value = value


def _target(f, args, kwargs):
    """What converted code calls for `f` (converting it first if it is user code), or
    _Done(result) when the call is made by an overload."""
    if not is_convertible(f):
        if type(f) is weakref.ref:  # (the tables below hash `f`: a dead one raises)
            return f
        if tracing.in_graph_mode():  # a draw: a stateful op drawing on every call
            drawn = random_call(f, args, kwargs)
            if drawn is not NOT_RANDOM:
                return _Done(drawn)
        if args and f in lists.SEQUENCE_FORMS:  # maybe a graph list
            return _Done(lists.sequence_call(f, *args, **kwargs))
        if args and (f is np.array or f is np.asarray or f is np.asanyarray or
                     f is np.ascontiguousarray):
            return _Done(lists.array_(f, *args, **kwargs))  # the value may be symbolic
        if f in _COPIES or type(getattr(f, "__self__", None)) is np.ndarray and \
                getattr(f, "__name__", None) in ("copy", "astype"):  # `c.copy()`
            made = f(*args, **kwargs)  # (`astype(copy=False)` may give `c` itself)
            return _Done(made if made is getattr(f, "__self__", None)
                         else lists.array_of_the_trace(made))
        if f in CREATORS:  # np.zeros(n) with a symbolic n: NumPy would call n.__index__
            return _Done(lists.array_of_the_trace(creator_call(f, args, kwargs)))
        overload = overload_of(f)  # `fn = range; fn(n)` means what `range(n)` means
        if overload is not None:
            return _Done(overload(*args, **kwargs))
        # called as is; still counted below: it may be converted code (a module written by
        # `autograph convert`) or wrap it (functools.cache), and so recurse
        return f
    try:
        g = convert(f, recursive=True)
    except ConversionError as e:
        if "source code is unavailable" not in str(e):
            raise
        key = getattr(_plain_function(f), "__code__", None)
        if key not in _WARNED:
            _WARNED.add(key)
            warnings.warn(f"{e} Calling it unconverted.", stacklevel=user_stacklevel())
        return f
    if type(f) is types.FunctionType and getattr(g, "__wrapped__", None) is f:
        f.__dict__[_CALL_ATTR] = (_GENERATION[0], g)
    return g


_COPIES = frozenset({np.copy, np.zeros_like, np.ones_like, np.empty_like, np.full_like})


def _call(g, args, kwargs):
    stack = _STACK
    depth = getattr(stack, "depth", 0)
    if depth in _CHECK_AT or (depth and not depth % 64):
        _make_room(stack, depth)
    stack.depth = depth + 1
    try:
        return g(*args, **kwargs)
    except RecursionError as e:
        # explained by the outermost call, where the stack has room again
        if not depth:
            explained = explain_recursion(e)
            if explained is not None:
                raise explained from None
        raise
    finally:
        stack.depth = depth
        if not depth and getattr(stack, "first", None):
            _restore_limit(stack)


# -- recursion in converted code ----------------------------------------------------------
# Converted code spends several Python frames per user-level call (the function, the
# `if_stmt` operator and the branch function, `converted_call`). So that a recursive
# function reaches the depth it reaches unconverted, the recursion limit is read as a
# number of *user-level* calls while converted calls nest: a few levels deep, the frames
# per level are measured and the limit is set to what the program's own limit allows
# at that rate (at most _MAX_FRAMES: the C stack bounds how far it can safely go); it is
# restored when the outermost converted call returns.
_STACK = threading.local()   # .depth: nested converted calls; .first: (depth, frames) at
                             # the first measurement; .room: this thread raised the limit
_CHECK_AT = frozenset({8, 16, 32})
_MAX_FRAMES = 25_000
_LIMIT_LOCK = threading.Lock()
_ROOM = {"threads": 0, "limit": 0}  # threads that raised the limit; the limit before


def _make_room(stack, depth: int) -> None:
    frame, used = sys._getframe(), 0
    while frame is not None:
        used, frame = used + 1, frame.f_back
    first = getattr(stack, "first", None)
    if first is None or first[0] >= depth:
        stack.first = first = (depth, used)
        per_level = -(-used // depth)  # an over-estimate until the next measurement
    else:
        per_level = max(1, -(-(used - first[1]) // (depth - first[0])))
    with _LIMIT_LOCK:
        current = sys.getrecursionlimit()
        base = _ROOM["limit"] if _ROOM["threads"] else current
        outside = max(0, first[1] - first[0] * per_level)  # frames below the recursion
        wanted = min(_MAX_FRAMES, outside + (base - outside) * per_level + 2 * per_level)
        if wanted <= base and not getattr(stack, "room", False):
            return  # the program's own limit is room enough
        if not getattr(stack, "room", False):  # every thread relying on the room counts
            stack.room = True
            if not _ROOM["threads"]:
                _ROOM["limit"] = current
            _ROOM["threads"] += 1
        if _ROOM["threads"] > 1:
            wanted = max(wanted, current)  # other threads may be deep: never lower it
        wanted = max(wanted, used + 100, base)
        if wanted != current:
            sys.setrecursionlimit(wanted)


def _restore_limit(stack) -> None:
    """The outermost converted call of this thread returned: the program's own limit is
    back once no other thread needs the room."""
    with _LIMIT_LOCK:
        if getattr(stack, "room", False):
            _ROOM["threads"] -= 1
            if not _ROOM["threads"]:
                sys.setrecursionlimit(max(_ROOM["limit"], 100))
        stack.room = False
        stack.first = None


def do_not_convert(fn: Callable) -> Callable:
    """Mark `fn` so AutoGraph calls it as is (and so does not convert what it calls)."""
    return registry.mark_do_not_convert(fn)


def _reset_caches() -> None:
    """For tests and benchmarks: forget sources, compiled and converted functions."""
    with _LOCK:
        _COMPILED.clear()
        _GENERATION[0] += 1
        parser._SOURCE_CACHE.clear()


# `autograph.api` (and the operators' stand-in converted_call) reach the compiler here
registry.set_compiler(convert=convert, to_code=to_code, converted_call=converted_call)
# generated code calls `ag__.converted_call`: the operators get this one injected
operators.set_converted_call(converted_call)

__all__ = ["convert", "to_code", "do_not_convert", "converted_call",
           "is_convertible"]
