"""The user's names of graph values, for the listing and the picture (never for running).

Values are named `v7`, `a4`, `c6` in the IR: unique, but not what the user wrote. Two
sources give them the user's names, both free on the call path:

- **Control flow.** `runtime.cond` / `runtime.while_loop` know the names of the
  variables they carry (the converter passes them): `note_names` records them, at trace
  time only, in `Graph.labels` (one dict shared by a graph and its subgraphs, keyed by
  value name) for the node's outputs and its subgraphs' placeholders.
- **Assignments.** Read when a graph is printed, from the user's source (`linecache`):
  the nodes one statement `y = <expression>` adds in a row (its lines may be several)
  end in the value `y` is bound to, the one no later node of that statement reads. Tuple targets (`a, b = ...`) are
  named when the count of such values, or of one node's outputs, is the count of names.
  A statement holding a lambda or a comprehension names nothing: their code runs on the
  statement's lines but at another time (`g = lambda v: v * 3` names no later `g(y)`).
  A statement that cannot be matched this way leaves its values unnamed (the picture then
  shows the op): a name is shown only where it is the user's.
"""
from __future__ import annotations

import ast
import linecache
import re
from typing import Sequence

_INTERNAL_PREFIXES = ("<", "saved_state", "a written array", "loop_vars", "output")
_hidden: list[re.Pattern] = []  # names a code generator gives its own variables


def hide_names(pattern: str) -> None:
    """Never show names matching `pattern` (a regular expression, matched whole) as the
    user's: the variables a code generator adds (autograph's `do_return`, `break_`, ...)."""
    _hidden.append(re.compile(pattern))


def note_names(graph, values: Sequence, names: Sequence[str] | None) -> None:
    """Record `names[i]` as the user's name of `values[i]` (Tensors; others skipped)."""
    if not names or len(names) != len(values):
        return
    labels = graph.labels
    for value, name in zip(values, names):
        if isinstance(name, str) and name and not name.startswith(_INTERNAL_PREFIXES) \
                and not any(p.fullmatch(name) for p in _hidden) \
                and getattr(value, "name", None) is not None:
            labels[value.name] = name


# -- assignments, read from the source ---------------------------------------------------
_TARGETS_BY_FILE: dict = {}
_OWN_FRAMES = (ast.Lambda, ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)  # filename -> (source text, {line: [target names] or None})


def _target_text(target: ast.expr) -> str | None:
    """`y` for `y = ...`, `self.w` for `self.w = ...`, `x` for `x[i] = ...` (the converter
    rebinds `x` to the updated array)."""
    while isinstance(target, ast.Subscript):
        target = target.value
    if isinstance(target, ast.Name):
        return target.id
    if isinstance(target, ast.Attribute) and _target_text(target.value) is not None:
        return ast.unparse(target)
    return None


def _statement_targets(stmt: ast.stmt) -> list[str] | None:
    if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1:
        target = stmt.targets[0]
    elif isinstance(stmt, (ast.AugAssign, ast.AnnAssign)) and stmt.value is not None:
        target = stmt.target
    else:
        return None
    if any(isinstance(n, _OWN_FRAMES) for n in ast.walk(stmt.value)):
        return None  # a lambda or comprehension runs later, or apart: its values are not these
    parts = target.elts if isinstance(target, (ast.Tuple, ast.List)) else [target]
    names = [_target_text(t) for t in parts]
    return None if None in names else names


def _line_statements(filename: str) -> dict:
    """{line: (first line of the one simple statement on it, the names it binds or None)}
    for a file's source; a line shared by two statements (`a = x; b = y`, or `if c: y = x`)
    is not in it: which of them made a value is unknown."""
    text = "".join(linecache.getlines(filename))
    cached = _TARGETS_BY_FILE.get(filename)
    if cached is not None and cached[0] == text:
        return cached[1]
    table: dict = {}
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError):
        tree = None
    shared: set = set()
    for stmt in ast.walk(tree) if tree is not None else ():
        if not isinstance(stmt, ast.stmt):
            continue
        if hasattr(stmt, "body"):  # a compound statement: its header line holds its test
            shared.add(stmt.lineno)
            continue
        for line in range(stmt.lineno, (stmt.end_lineno or stmt.lineno) + 1):
            if line in table:
                shared.add(line)
            table[line] = (stmt.lineno, _statement_targets(stmt))
    for line in shared:
        table.pop(line, None)
    _TARGETS_BY_FILE[filename] = (text, table)
    return table


def _statement_runs(nodes: list, tables: dict) -> list[tuple]:
    """Maximal runs of consecutive nodes from the same simple statement, with the names
    it binds: [(names, [node, ...]), ...]. `tables`: {file: its line table}, read once
    per printing."""
    runs: list = []
    for node in nodes:
        key, targets = None, None
        if node.origin is not None:
            table = tables.get(node.origin.filename)
            if table is None:
                table = tables[node.origin.filename] = _line_statements(node.origin.filename)
            found = table.get(node.origin.lineno)
            if found is not None:
                key, targets = (node.origin.filename, found[0]), found[1]
        if runs and key is not None and runs[-1][0] == key:
            runs[-1][2].append(node)
        else:
            runs.append((key, targets, [node]))
    return [(targets, run) for key, targets, run in runs if key is not None]


def _name_run(run: list, targets: list[str], names: dict) -> None:
    read = {id(x) for node in run for x in node.inputs}
    finals = [node for node in run if node.outputs and not any(id(o) in read for o in node.outputs)]
    if len(finals) == 1 and len(finals[0].outputs) == len(targets):
        values = finals[0].outputs
    elif len(finals) == len(targets) and all(len(n.outputs) == 1 for n in finals):
        values = [n.outputs[0] for n in finals]
    else:
        return
    for value, name in zip(values, targets):
        names.setdefault(value.name, name)


def value_names(graph) -> dict[str, str]:
    """{value name: the user's name} for `graph` and its subgraphs.

    A copy made by the optimizer (`rewrite.clone`) is named from the graph as traced
    (`named_from`): passes move nodes (a hoisted subexpression is no statement's result),
    and keep the value names of the nodes they keep. A loaded graph (`saved_names`) has
    the names it was saved with (runtime/saved/) and reads no source.
    """
    names = dict(getattr(graph, "labels", {}))
    root = graph
    while root.parent is not None:
        root = root.parent
    traced = getattr(root, "named_from", None)
    if traced is not None:
        graph = traced
    if getattr(graph, "saved_names", False):  # loaded with its names: the source may be gone
        return names

    tables: dict = {}

    def visit(g) -> None:
        for targets, run in _statement_runs(g.nodes, tables):
            if targets:
                _name_run(run, targets, names)
        for node in g.nodes:
            for sub in node.subgraphs():
                visit(sub)

    visit(graph)
    return names
