"""Function calls -> `ag__.converted(f)(...)` for user code and builtins with an overload.

    y = helper(x, k=2)       =>   y = ag__.converted(helper)(x, k=2)
    n = len(xs)              =>   n = ag__.converted(len)(xs)    (`ag__.len_` when it runs)
    z = np.sum(x)            =>   z = np.sum(x)            (NumPy: left alone)

Only what cannot differ between functions sharing the converted code is resolved at
conversion time (`Context.lookup`): builtins no global shadows, and attributes of
modules bound to globals (`np.sum`, `math.sqrt`). Those calls stay direct when the
target is not user code, so the converted code stays close to the original. Every
other call - to a closure variable, a global function or class, a local, `self.method`,
an unresolved name - goes through `ag__.converted`, which decides at run time (and is
cheap for NumPy and builtins): the compiled code is shared by every function made by
the same `def`, whatever its closure holds. Method calls on local values with an
array / list / dict method name (`x.reshape`, `xs.append`) are left alone. With
`recursive=False` nothing goes through `ag__.converted`.
"""
from __future__ import annotations

import builtins
import functools
import inspect
import types

import gast
import numpy as np

from autograph import operators
from autograph.operators import random_calls
from autograph.operators.array_like_args import ARRAY_LIKE_FIRST
from autograph.operators.builtin_calls import overload_of
from autograph.operators.py_builtins import BUILTIN_OVERRIDES
from autograph.pyct import templates
from autograph.pyct.activity import qualified_name
from autograph.pyct.registry import is_convertible
from autograph.pyct.transformer import apply, is_ag_call
from autograph.pyct.all_nodes import all_nodes
from runtime.ops.dynamic import CREATORS

_MISSING = object()
KNOWN_METHODS = frozenset(
    n for t in (np.ndarray, list, dict, str, set, bytes) for n in dir(t) if not n.startswith("_")
) | {"assign", "assign_add", "assign_sub", "read_value", "numpy", "watch", "gradient"}


# ndarray methods `ag__.converted` answers: for a symbolic receiver (builtin_calls.py),
# and copies of a NumPy array made while tracing, which become arrays of the trace
_ROUTED = frozenset({"item", "copy", "astype"})


def _resolve(node, ctx):
    """The object a Name / attribute chain refers to now, or _MISSING."""
    if isinstance(node, gast.Name):
        if node.id in ctx.scope.local:
            return _MISSING
        return ctx.lookup(node.id)
    if isinstance(node, gast.Attribute):
        base = _resolve(node.value, ctx)
        if base is _MISSING or not _is_module_like(base):
            return _MISSING
        return getattr(base, node.attr, _MISSING)
    return _MISSING


_ARRAY_CONSTRUCTORS = (np.array, np.asarray, np.asanyarray, np.ascontiguousarray)
_SEQUENCE_OF_ARRAYS = (np.stack, np.concatenate, np.vstack, np.hstack, np.column_stack)


def _call(node, walk):
    if is_ag_call(node) or isinstance(node.func, gast.Call) and is_ag_call(node.func):
        return node  # (also `ag__.converted(f)(x)`: already routed)
    ctx = walk.ctx
    f = node.func
    if isinstance(f, gast.Name) and f.id == "super" and not node.args and not node.keywords:
        # zero-argument `super()` reads its frame's class cell and first argument, whatever
        # `super` is bound to (`from X import *` may bind it): it stays as Python wrote it
        return node
    if isinstance(f, gast.Name) and f.id in BUILTIN_OVERRIDES and f.id not in ctx.scope.local \
            and _fits_override(node, BUILTIN_OVERRIDES[f.id]):
        if ctx.lookup(f.id) is getattr(builtins, f.id):
            if f.id == "print" and _builds_text(node.args):
                # evaluated by print_text, which records text built from symbolic values
                args = gast.Tuple(elts=node.args, ctx=gast.Load())
                node.args = [f, templates.replace_expr("lambda: args", origin=node,
                                                       args=args)]
                node.func = templates.replace_expr("ag__.print_text", origin=f)
                return node
            if ctx.info.recursive:
                # `len` is looked up when the call runs, as Python does (a global that
                # shadows it later is called instead); `ag__.converted(len)` is `ag__.len_`
                node.func = templates.replace_expr("ag__.converted(f)", origin=f, f=f)
            else:
                node.func = templates.replace_expr(f"ag__.{BUILTIN_OVERRIDES[f.id]}",
                                                   origin=f)
            return node
    if node.args and not isinstance(node.args[0], gast.Starred):
        target = _resolve(f, ctx)
        if target in _ARRAY_CONSTRUCTORS:
            # NumPy cannot take a symbolic value here: `ag__.array_(np.asarray, x)` makes
            # it a graph op (and stacks a graph list)
            node.args[0:0] = [f]
            node.func = templates.replace_expr("ag__.array_", origin=f)
            return node
        if isinstance(target, np.ufunc) or target in ARRAY_LIKE_FIRST:
            # (a parameter may be a list too: `logsumexp(values)` then `np.max(values)`)
            names = ctx.out.list_names if isinstance(target, np.ufunc) else \
                ctx.out.list_names | ctx.scope.params
            _wrap_array_like_args(node, isinstance(target, np.ufunc), names)
        if target in _SEQUENCE_OF_ARRAYS and ctx.out.list_names and \
                qualified_name(node.args[0]) in ctx.out.list_names:
            # a list appended to in a loop may be a graph list: join it either way (a
            # `stack` imported by name is not resolved: `ag__.converted` stacks it)
            node.args[0:0] = [f]
            node.func = templates.replace_expr("ag__.sequence_call", origin=f)
            return node
    if not ctx.info.recursive or _leave(f, ctx):
        return node
    # `ag__.converted(f)` says what to call; the user's frame calls it (frame readers
    # such as `namedtuple` or `warnings.warn(stacklevel=2)` see the user's function)
    node.func = templates.replace_expr("ag__.converted(f)", origin=f, f=f)
    if isinstance(f, gast.Name):
        ctx.out.callees.append(f.id)
    return node


def _wrap_array_like_args(node, every: bool, list_names: set) -> None:
    """`np.max([a, b])` => `np.max(ag__.array_like([a, b]))`: NumPy's own conversion of a
    list holding a symbolic value would fail (the first argument, or every one of a ufunc);
    also a name the function gives a list (`vals = [...]`, `vals.append(v)`), and an
    attribute, which may hold one (`np.mean(self.items, axis=0)`)."""
    for k, a in enumerate(node.args if every else node.args[:1]):
        if isinstance(a, (gast.List, gast.Tuple, gast.ListComp)) or (
                isinstance(a, gast.Name) and a.id in list_names) or (
                not every and isinstance(a, gast.Attribute)):  # (`np.mean(self.items)`)
            node.args[k] = templates.replace_expr("ag__.array_like(v)", origin=a, v=a)


_TEXT_CALLS = ("str", "format", "repr")


def _builds_text(args) -> bool:
    """Whether a print argument is text made by formatting values (an f-string,
    `"%s" % x`, `str(x)`, `"{}".format(x)`, or `+` of those): the arguments are then
    evaluated by `ag__.print_text`, inside a lambda (so not with `:=`, `yield` or `await`,
    which would change meaning there)."""
    if any(isinstance(n, (gast.NamedExpr, gast.Yield, gast.YieldFrom, gast.Await))
           for a in args for n in all_nodes(a)):
        return False
    return any(_is_text(a) for a in args)


def _is_text(node) -> bool:
    if isinstance(node, gast.JoinedStr):
        return True
    if isinstance(node, gast.BinOp) and isinstance(node.op, gast.Mod):
        return isinstance(node.left, (gast.Constant, gast.JoinedStr))
    if isinstance(node, gast.BinOp) and isinstance(node.op, gast.Add):
        return all(_is_text(v) or isinstance(v, gast.Constant) for v in (node.left, node.right))
    if isinstance(node, gast.Call):
        f = node.func
        return isinstance(f, gast.Name) and f.id in _TEXT_CALLS or \
            isinstance(f, gast.Attribute) and f.attr == "format" and \
            isinstance(f.value, gast.Constant)
    return False


def _fits_override(node, name: str) -> bool:
    """Whether the call's arguments fit the `ag__` override's signature (`int(s, base=2)`
    does not fit `int_(x=0, *args)`: it stays the builtin call, which handles it)."""
    var_pos, var_kw, names, n_positional = _override_signature(name)
    if any(isinstance(a, gast.Starred) for a in node.args) and not var_pos:
        return False
    for k in node.keywords:
        if (k.arg is None or k.arg not in names) and not var_kw:
            return False
    n_args = sum(not isinstance(a, gast.Starred) for a in node.args)
    return var_pos or n_args <= n_positional


@functools.lru_cache(maxsize=None)
def _override_signature(name: str) -> tuple:
    """(takes *args, takes **kwargs, keyword names, how many positional) of an override."""
    params = inspect.signature(getattr(operators, name)).parameters.values()
    kinds = [p.kind for p in params]
    named = [p for p in params if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)]
    positional = [p for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    return (inspect.Parameter.VAR_POSITIONAL in kinds, inspect.Parameter.VAR_KEYWORD in kinds,
            frozenset(p.name for p in named), len(positional))


# builtins that read their caller's frame (its globals, locals or compiler flags): called
# through `converted_call` they would read the compiler's frame instead
_FRAME_BUILTINS = frozenset({"exec", "eval", "compile", "globals", "breakpoint"})


def _leave(f, ctx) -> bool:
    if isinstance(f, gast.Name) and f.id in ctx.scope.local_defs:
        return True  # a nested def: converted along with this function
    target = _resolve(f, ctx)
    if isinstance(f, gast.Name) and f.id in _FRAME_BUILTINS and f.id not in ctx.scope.local \
            and (target is _MISSING or target is getattr(builtins, f.id)):
        return True
    if target is not _MISSING:
        if _sized_creator(target) or random_calls.routes(target):
            return False  # np.zeros(n), np.random.normal(): `ag__.converted` builds them
        if isinstance(f, gast.Attribute) and overload_of(target) is not None:
            return False  # `operator.index(x)`: `ag__.converted` calls the `ag__` overload
        return not is_convertible(target)
    if isinstance(f, gast.Attribute) and f.attr in KNOWN_METHODS and f.attr not in _ROUTED:
        root = f.value
        while isinstance(root, gast.Attribute):
            root = root.value
        return not (isinstance(root, gast.Name) and root.id in ctx.scope.self_names)
    return False


def _sized_creator(target) -> bool:
    try:
        return target in CREATORS
    except TypeError:  # unhashable
        return False


HANDLERS = {gast.Call: _call}


def _is_module_like(obj) -> bool:
    return isinstance(obj, (types.ModuleType, type))


def transform(fn_node, ctx) -> None:
    ctx.out.list_names |= names_given_lists(fn_node)
    apply(fn_node, ctx, HANDLERS)


def names_given_lists(fn_node) -> set:
    """Names the function assigns a list / tuple display or a list comprehension
    (`vals = [a, b]`), which NumPy functions then get by name (`np.max(vals)`)."""
    out = set()
    # (statement lists only, nested defs and classes included: an assignment is a
    # statement, and the expressions are most of a function's nodes)
    stack = list(fn_node.body)
    while stack:
        n = stack.pop()
        if n.__class__ is gast.Assign and isinstance(n.value, (gast.List, gast.Tuple,
                                                               gast.ListComp)):
            out.update(t.id for t in n.targets if isinstance(t, gast.Name))
        d = n.__dict__
        for field in _STATEMENT_LISTS:
            block = d.get(field)
            if type(block) is list:
                stack.extend(block)
    return out


_STATEMENT_LISTS = ("body", "orelse", "finalbody", "handlers", "cases")
