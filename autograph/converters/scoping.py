"""Scope-level rewrites that must happen before any code moves into generated functions.

Converters move statements into generated functions (`if_true`, `loop_body`, test
lambdas). Some Python constructs mean something for the whole function scope, or only
where they are written, and would change meaning (or not compile) once moved:

- `global` / `nonlocal` inside a block declares the name for the whole function: the
  declaration is hoisted to the top of its function (in a generated function the
  name becomes a parameter, and "name is parameter and global" would not compile);
- a bare annotation `best: int` makes `best` local without assigning it: hoisted too
  (inside a branch function it would make the name local to that function only);
- `while (n := next_value()) > 0:` - the walrus in a loop test would bind `n` inside the
  generated test lambda; the loop becomes

      while True:
          if not ((n := next_value()) > 0):
              break
          ...

  (with a flag for the loop's `else`);
- private names (`self.__xs` in a method of class `C`) are mangled (`self._C__xs`), as
  the compiler would have done inside the class body: the converted code is compiled
  outside it.
"""
from __future__ import annotations

import gast

from autograph.pyct import templates
from autograph.pyct.blocks import blocks, child_blocks, statements
from autograph.pyct.all_nodes import all_nodes, child_nodes

_DEFS = (gast.FunctionDef, gast.AsyncFunctionDef)


def transform(fn_node, namer, class_name: str | None, walrus: bool = True) -> None:
    """Apply every rewrite of this module to `fn_node` and the functions nested in it
    (`walrus` False: the source has no `:=`)."""
    if class_name:
        _mangle(fn_node, class_name)
    defs = _defs(fn_node)
    for node in defs:
        if isinstance(node, gast.FunctionDef):
            _hoist_declarations(node)
    if not walrus:
        return
    for node in defs:
        if any(isinstance(n, gast.While) and _has_walrus(n.test) for n in all_nodes(node)):
            node.body = move_while_tests(node.body, namer)


def _defs(fn_node) -> list:
    """`fn_node` and every def nested in it, in classes too (found by statements only:
    a def is always a statement)."""
    out, stack = [], [fn_node]
    while stack:
        s = stack.pop()
        if isinstance(s, (gast.FunctionDef, gast.AsyncFunctionDef, gast.ClassDef)):
            if not isinstance(s, gast.ClassDef):
                out.append(s)
            stack.extend(s.body)
        else:
            for block in child_blocks(s):
                stack.extend(block)
    return out


# -- declarations ---------------------------------------------------------------------------
def _hoist_declarations(fn_node) -> None:
    hoisted: list = []
    for s in list(statements(fn_node.body)):
        for owner, field in blocks(s):
            block = getattr(owner, field)
            keep = []
            for t in block:
                if isinstance(t, (gast.Global, gast.Nonlocal)) or _bare_annotation(t):
                    hoisted.append(t)
                else:
                    keep.append(t)
            if len(keep) != len(block):
                if not keep:
                    keep = [gast.copy_location(gast.Pass(), block[0])]
                setattr(owner, field, keep)
    if hoisted:
        body = fn_node.body
        at = 1 if body and _is_docstring(body[0]) else 0
        fn_node.body = body[:at] + hoisted + body[at:]


def _bare_annotation(s) -> bool:
    return isinstance(s, gast.AnnAssign) and s.value is None and isinstance(s.target, gast.Name)


def _is_docstring(s) -> bool:
    return isinstance(s, gast.Expr) and isinstance(s.value, gast.Constant) and \
        isinstance(s.value.value, str)


# -- walrus in a while test -----------------------------------------------------------------
def _has_walrus(expr) -> bool:
    stack = [expr]
    while stack:
        n = stack.pop()
        if isinstance(n, gast.NamedExpr):
            return True
        if not isinstance(n, gast.Lambda):  # a lambda's own walrus binds inside it
            stack.extend(child_nodes(n))
    return False


def move_while_tests(block: list, namer, needs=_has_walrus) -> list:
    """`block` with each `while` whose test `needs` it tested inside the loop (`while
    True: if not test: break`; also for a test calling a function that rebinds a
    variable: `nonlocal_writes.py`)."""
    out: list = []
    for s in block:
        if isinstance(s, _DEFS):
            out.append(s)  # rewritten as a function of its own
            continue
        for owner, field in blocks(s):
            setattr(owner, field, move_while_tests(getattr(owner, field), namer, needs))
        if isinstance(s, gast.While) and needs(s.test):
            out.extend(_rewrite_walrus_while(s, namer))
        else:
            out.append(s)
    return out


def _rewrite_walrus_while(node, namer) -> list:
    test = node.test
    node.test = gast.copy_location(gast.Constant(value=True, kind=None), test)
    if not node.orelse:
        node.body = _over_test(templates.replace("if not test:\n    break", origin=node,
                                                 test=test), test) + node.body
        return [node]
    # `while c: ... else: E` runs E when c turns false (not after a `break`): a flag set
    # where the condition is found false, and E after the loop when it is set
    ended = namer.new("loop_ended")
    node.body = _over_test(templates.replace("if not test:\n    ended = True\n    break",
                                             origin=node, test=test, ended=ended),
                           test) + node.body
    after = templates.replace("if ended:\n    orelse", origin=node, ended=ended,
                              orelse=node.orelse)
    node.orelse = []
    return templates.replace("ended = False", origin=node, ended=ended) + [node] + after


def _over_test(stmts: list, test) -> list:
    """The generated `if not test:` located over the whole test: the compiled code's
    handover (`operators/handover.py`) takes its functional form when the test's own jump
    lies within the statement."""
    for k in ("lineno", "col_offset", "end_lineno", "end_col_offset"):
        setattr(stmts[0], k, getattr(test, k, None))
    return stmts


# -- private name mangling ------------------------------------------------------------------
def mangled(name: str, class_name: str) -> str:
    """`__xs` -> `_C__xs` inside class `C`, as the compiler mangles private names."""
    stripped = class_name.lstrip("_")
    if not stripped or not name.startswith("__") or name.endswith("__") or "." in name:
        return name
    return f"_{stripped}{name}"


def _mangle(fn_node, class_name: str) -> None:
    """Mangle what CPython's compiler mangles: names (parameters included, which gast
    holds as `Name`s), attributes, nested defs and declarations. Not the keyword of a
    call or a class header (`f(__tag=1)` passes `__tag`, as written)."""
    stack = [fn_node]
    while stack:
        n = stack.pop()
        if isinstance(n, gast.ClassDef) and n is not fn_node:
            continue  # a class of its own mangles with its own name
        if isinstance(n, gast.Name):
            n.id = mangled(n.id, class_name)
        elif isinstance(n, gast.Attribute):
            n.attr = mangled(n.attr, class_name)
        elif isinstance(n, (gast.FunctionDef, gast.AsyncFunctionDef)) and n is not fn_node:
            n.name = mangled(n.name, class_name)
        elif isinstance(n, (gast.Global, gast.Nonlocal)):
            n.names = [mangled(x, class_name) for x in n.names]
        stack.extend(child_nodes(n))


def class_of(qualname: str) -> str | None:
    """The innermost class a function with this `__qualname__` is defined in
    ('C.m' -> 'C', 'f.<locals>.C.m.<locals>.g' -> 'C', 'f' -> None)."""
    parts = qualname.split(".")
    for i in range(len(parts) - 2, -1, -1):
        if parts[i] != "<locals>" and parts[i + 1] != "<locals>":
            return parts[i]
    return None
