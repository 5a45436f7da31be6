"""The conversion state is explicit: an immutable record of the function being converted
(`FunctionInfo`), an immutable per-scope record built from the AST by the pipeline
(`Scope`), and named outputs (`Outputs`) - no converter sets attributes of its own on
the context. Which names a function binds (so which containers are its own) comes from
the tree, never from a text search; converted code that depends on it still means what
the Python means."""
from __future__ import annotations

import ast
import copy
import dataclasses
import textwrap
from pathlib import Path

import gast
import pytest

import autograph as ag
from autograph.impl.context import Context, FunctionInfo, Scope

PACKAGE = Path(__file__).resolve().parents[2] / "autograph"


def test_function_info_and_scope_are_immutable():
    info = FunctionInfo.of(test_function_info_and_scope_are_immutable, "f.py", "", True)
    with pytest.raises(dataclasses.FrozenInstanceError):
        info.source = "x"  # type: ignore[misc]
    with pytest.raises(TypeError):
        info.closure["x"] = 1  # type: ignore[index]
    with pytest.raises(dataclasses.FrozenInstanceError):
        Context(info).scope.local = frozenset()  # type: ignore[misc]


_MUTATORS = {"add", "append", "extend", "update", "setdefault", "pop", "clear", "discard"}


def _context_writes(path: Path) -> list:
    """`ctx.x = ...` / `walk.ctx.x = ...` / `setattr(ctx, ...)` in a module."""
    out = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        targets = node.targets if isinstance(node, ast.Assign) else \
            [node.target] if isinstance(node, (ast.AugAssign, ast.AnnAssign)) else []
        for t in targets:
            for e in (t.elts if isinstance(t, ast.Tuple) else [t]):
                if isinstance(e, ast.Attribute) and ast.unparse(e.value) in ("ctx", "walk.ctx"):
                    out.append((node.lineno, ast.unparse(e)))
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and \
                node.func.id == "setattr" and ast.unparse(node.args[0]) in ("ctx", "walk.ctx"):
            out.append((node.lineno, ast.unparse(node)))
        # a collection on the context grown in place (`ctx.callees.append(...)`): only the
        # named outputs are written
        f = node.func if isinstance(node, ast.Call) else None
        if isinstance(f, ast.Attribute) and f.attr in _MUTATORS and \
                isinstance(f.value, ast.Attribute) and \
                ast.unparse(f.value.value) in ("ctx", "walk.ctx") and f.value.attr != "out":
            out.append((node.lineno, ast.unparse(node)))
    return out


def test_converters_write_no_side_channels_into_the_context():
    bad = [f"{p.name}:{line}: {what}" for p in sorted((PACKAGE / "converters").glob("*.py"))
           for line, what in _context_writes(p)]
    assert not bad, "converters record into ctx.out's named fields:\n" + "\n".join(bad)
    # the pipeline sets the scope, nothing else of the context
    pipeline = [what for _, what in _context_writes(PACKAGE / "impl" / "conversion.py")]
    assert set(pipeline) == {"ctx.scope"}, pipeline


def _scope(src: str) -> Scope:
    node = gast.parse(textwrap.dedent(src)).body[0]
    return Scope.of(node, walrus=True)


def test_scope_names_come_from_the_tree():
    s = _scope("""
        def f(a, *b, c, **d):
            global g
            nonlocal_like = 1
            x[0] = 1            # a store into a container: x is not bound here
            y.attr = 2          # nor is y
            for i, (j, *k) in z:
                pass
            with open(p) as (u, v):
                pass
            import os.path as op, sys.path
            try:
                pass
            except E as err:
                pass
            if (w := 3):
                pass
            match q:
                case [m, *rest] if m:
                    pass
            def inner():
                pass
            g = 1
            [t for t in z]
            lambda lam: lam
    """)
    assert s.params == {"a", "b", "c", "d"}
    assert s.local == {"a", "b", "c", "d", "nonlocal_like", "i", "j", "k", "u", "v", "op",
                       "sys", "err", "w", "m", "rest", "inner"}
    assert s.global_names == {"g"} and s.declared == {"g"} and s.local_defs == {"inner"}


# -- differential: which containers are the function's own decides the converted code --------
SHARED = [0, 0, 0]


def mutates_global_and_local(n):
    own = [0, 0, 0]
    for i in range(n):
        if i % 2:
            SHARED[i % 3] += i        # a global container: mutated in place
        else:
            own[i % 3] = own[i % 3] + i
        own.append(i)
    return own


def nested_def_mutates_enclosing(n):
    acc = [0, 0]
    tail = []

    def add(k):
        for j in range(k):
            if j % 2:
                acc[j % 2] += j       # the enclosing function's list (a closure)
            local = [j]
            local[0] = j * 10         # its own
            tail.append(local[0])
        return acc
    add(n)
    add(n + 1)
    return acc, tail


def slice_builtin_shadowed(xs):
    slice = 2  # noqa: F841  (a local named `slice`: generated code must not call it)
    out = list(xs)
    for i in range(len(out) - 1):
        out[i:i + 1] = [out[i] * 2]
    return out


@pytest.mark.parametrize("fn, args", [
    (mutates_global_and_local, (7,)),
    (nested_def_mutates_enclosing, (5,)),
    (slice_builtin_shadowed, ([1, 2, 3, 4],)),
])
def test_converted_matches_python(fn, args):
    SHARED[:] = [0, 0, 0]
    a1 = copy.deepcopy(args)
    expected = fn(*a1)
    shared_expected = list(SHARED)
    SHARED[:] = [0, 0, 0]
    a2 = copy.deepcopy(args)
    actual = ag.to_graph(fn)(*a2)
    assert actual == expected
    assert SHARED == shared_expected and a1 == a2
