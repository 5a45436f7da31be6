"""Graph pictures (`cf.graph.to_dot()`): the user's names and source lines, bookkeeping
ops folded, `cond`/`while` subgraphs as clusters, labelled returns, nothing dangling,
the same text on every run, and the same names as the listing (`str(cf.graph)`).

The pictures of tests/autograph/picture_cases.py are pinned in golden/pictures/.
Regenerate after an intended change with:
    AG_UPDATE_GOLDEN=1 pytest tests/autograph/test_pictures.py
"""
from __future__ import annotations

import ast
import inspect
import os
import re

import numpy as np
import pytest

import autograph as ag
from tests.autograph import picture_cases

GOLDEN = os.path.join(os.path.dirname(__file__), "golden", "pictures")
F32, F64, I64 = np.float32, np.float64, np.int64
CASES = {
    "dense": (picture_cases.dense, (ag.TensorSpec((None, 3), F32), ag.TensorSpec((3, 4), F32),
                                    ag.TensorSpec((4,), F32))),
    "clip_if": (picture_cases.clip_if, (ag.TensorSpec((None,), F64), ag.TensorSpec((), F64))),
    "loop_with_if": (picture_cases.loop_with_if, (ag.TensorSpec((None,), F32),
                                                  ag.TensorSpec((), I64))),
}
# not pinned in a golden file: its graph is long
OTHER_CASES = {"early_exit": (picture_cases.early_exit, (ag.TensorSpec((2,), F32),))}
FOLDED = ("python_number", "shape_dim", "shape_of", "size_of")


def _graph(name: str):
    fn, specs = {**CASES, **OTHER_CASES}[name]
    return ag.function(fn).get_concrete_function(*specs).graph


# -- reading the two texts ------------------------------------------------------------------
NODE = re.compile(r'^\s*(\w+) \[label="((?:[^"\\]|\\.)*)"(.*)\];$')
EDGE = re.compile(r'^\s*(\w+) -> (\w+)(?: \[(.*)\])?;$')
LISTED = re.compile(r"(\w+)(?: \(([^()]*)\))?: \w+\[[^\]]*\]")


def _dot(text: str):
    """({id: (label lines, attributes)}, [(source, target, edge label or None)])."""
    nodes, edges = {}, []
    for line in text.split("\n"):
        if m := NODE.match(line):
            nodes[m[1]] = (m[2].split("\\n"), m[3])
        elif m := EDGE.match(line):
            label = re.search(r'label="([^"]*)"', m[3] or "")
            edges.append((m[1], m[2], label[1] if label else None))
    return nodes, edges


def _listing(text: str):
    """{value id: the user's name or None}, {value id: op} from `str(graph)`."""
    names, ops = {}, {}
    for line in text.split("\n"):
        head = line.split("#")[0]
        left, eq, right = head.partition(" = ")
        for m in LISTED.finditer(left if eq else head):
            names[m[1]] = m[2]
            if eq:
                ops[m[1]] = right.split("(")[0].strip()
    return names, ops


def _dot_names(nodes: dict) -> dict:
    """{value id: the name its box or ellipse shows} (`total, i = while_loop` names the
    node's outputs, listed in the same order)."""
    return {nid: lines[0] for nid, (lines, attrs) in nodes.items() if "ellipse" in attrs}


# -- tests -------------------------------------------------------------------------------
@pytest.mark.parametrize("name", sorted(CASES))
def test_golden_picture(name):
    dot = _graph(name).to_dot()
    path = os.path.join(GOLDEN, f"{name}.dot")
    if os.environ.get("AG_UPDATE_GOLDEN") or not os.path.exists(path):
        with open(path, "w", encoding="utf-8") as f:
            f.write(dot + "\n")
        if not os.environ.get("AG_UPDATE_GOLDEN"):
            pytest.fail(f"wrote the missing golden file {path}; review it and commit it")
    with open(path, encoding="utf-8") as f:
        assert dot + "\n" == f.read(), f"the picture of {name} changed; review and update {path}"


@pytest.mark.parametrize("name", sorted(CASES))
def test_picture_is_the_same_text_on_every_trace(name):
    first, second = _graph(name).to_dot(), _graph(name).to_dot()
    assert first == second
    assert not re.search(r"\d{7,}", first), "a node id looks like an object's address"


@pytest.mark.parametrize("name", sorted(CASES))
def test_listing_and_picture_show_the_same_names(name):
    graph = _graph(name)
    listed, ops = _listing(str(graph))
    nodes, edges = _dot(graph.to_dot())
    drawn_ops = {nid for nid, (lines, attrs) in nodes.items() if "ellipse" not in attrs
                 and "plaintext" not in attrs}
    # every op the listing shows is drawn under its first output's id, unless folded
    first_outputs = {}
    for vid, op in ops.items():
        first_outputs.setdefault((op, vid), vid)
    for vid, op in ops.items():
        if op in FOLDED:
            assert vid not in nodes and op not in graph.to_dot()
    # the names: each value's user name in the listing is the one the picture shows
    for nid, (lines, attrs) in nodes.items():
        assert nid in listed or nid.startswith(("return", "effect")) or "_return" in nid, nid
        if "ellipse" in attrs:
            assert lines[0] == (listed[nid] or nid)
        elif nid in drawn_ops and " = " in lines[0]:
            shown = lines[0].split(" = ")[0].split(", ")
            outs = _outputs_of(str(graph), nid)
            assert shown == [listed[o] or o for o in outs], (nid, shown, outs)
    named_in_listing = {n for n in listed.values() if n} | {t.name for t in graph.inputs}
    named_in_dot = set(_dot_names(nodes).values()) | {
        n for nid, (lines, _) in nodes.items() if " = " in lines[0]
        for n in lines[0].split(" = ")[0].split(", ")} | {e[2] for e in edges if e[2]}
    named_in_dot -= {"shape[0]", "shape", "size"}
    assert named_in_listing - named_in_dot == set(), "named in the listing only"
    assert named_in_dot - named_in_listing == set(), "named in the picture only"


def _outputs_of(listing: str, first: str) -> list[str]:
    for line in listing.split("\n"):
        left, eq, _ = line.split("#")[0].partition(" = ")
        ids = [m[1] for m in LISTED.finditer(left)] if eq else []
        if ids and ids[0] == first:
            return ids
    raise AssertionError(f"{first} is not defined in the listing")


@pytest.mark.parametrize("name", sorted(CASES))
def test_every_variable_the_function_assigns_is_named(name):
    fn = CASES[name][0]
    tree = ast.parse(inspect.getsource(fn))
    assigned = {t.id for node in ast.walk(tree) if isinstance(node, ast.Name)
                and isinstance(node.ctx, ast.Store) for t in [node]}
    nodes, edges = _dot(_graph(name).to_dot())
    shown = {lines[0].split(" = ")[0] for lines, _ in nodes.values()} | {e[2] for e in edges}
    shown = {n for text in shown if text for n in text.split(", ")}
    assert assigned <= shown, sorted(assigned - shown)


@pytest.mark.parametrize("name", sorted(CASES))
def test_nothing_dangles_and_returns_are_labelled(name):
    graph = _graph(name)
    nodes, edges = _dot(graph.to_dot())
    sources = {s for s, _, _ in edges}
    for s, t, _ in edges:
        assert s in nodes and t in nodes, (s, t)
    for nid, (lines, attrs) in nodes.items():
        if "plaintext" in attrs:
            assert re.fullmatch(r"return\[\d+\]( = .*)?", lines[0]), lines
        elif "unused" not in lines[-1]:
            assert nid in sources, f"{nid} ({lines[0]}) leads nowhere"
    returns = [lines[0] for nid, (lines, _) in nodes.items() if re.fullmatch(r"return\d+", nid)]
    assert returns == [f"return[{i}]" for i in range(len(graph.outputs))]


def test_control_flow_subgraphs_are_clusters_with_the_carried_names():
    dot = _graph("loop_with_if").to_dot()
    assert dot.count("subgraph cluster_") == 4  # while: cond, body; if: then, else
    for title in ("while_loop: cond", "while_loop: body", "cond: then", "cond: else"):
        assert f'label="{title}"' in dot
    nodes, _ = _dot(dot)
    assert nodes["x"][0][0] == "x"
    carried = [lines[0] for lines, attrs in nodes.values() if "ellipse" in attrs]
    assert carried.count("total") == 3 and carried.count("i") == 2  # (the loop test reads i)


def test_a_line_holding_two_statements_names_neither():
    def two(x):
        a = x + 1; b = x * 2  # noqa: E702
        return a, b
    dot = ag.function(two).get_concrete_function(ag.TensorSpec((2,), F32)).graph.to_dot()
    nodes, _ = _dot(dot)
    assert all(" = " not in lines[0] for lines, attrs in nodes.values() if "ellipse" not in attrs
               and "plaintext" not in attrs)


def test_picture_of_an_effect_and_an_unused_argument():
    def f(x, unused):
        ag.print(x)
    graph = ag.function(f).get_concrete_function(ag.TensorSpec((2,), F32), F32(1)).graph
    nodes, edges = _dot(graph.to_dot())
    assert ("x", "effect1", None) in edges and nodes["effect1"][0][0] == "print"
    assert nodes["unused"][0][-1] == "(unused)" and "dashed" in nodes["unused"][1]


def test_a_statement_over_several_lines_names_only_its_result():
    def spread(a, b, c):
        y = (a +
             b * c)
        return y
    spec = ag.TensorSpec((2,), F32)
    graph = ag.function(spread).get_concrete_function(spec, spec, spec).graph
    listed, ops = _listing(str(graph))
    assert {ops[v]: listed[v] for v in ops} == {"multiply": None, "add": "y"}


def test_a_statement_sharing_its_line_with_an_if_names_nothing():
    def inline(x):
        if np.sum(x) > 0: x = x * 2  # noqa: E701
        return x
    graph = ag.function(inline).get_concrete_function(ag.TensorSpec((2,), F32)).graph
    listed, ops = _listing(str(graph))
    named = {ops[v]: listed[v] for v in ops}
    assert named["multiply"] is None and named["sum"] is None
    assert named["cond"] == "x"  # the variable the `if` carries, from the converter


def test_a_lambda_assigned_to_a_name_does_not_name_what_it_computes_later():
    def with_lambda(x):
        g = lambda v: v * 3.0  # noqa: E731
        y = g(x)
        return y + 1.0
    graph = ag.function(with_lambda).get_concrete_function(ag.TensorSpec((2,), F32)).graph
    listed, ops = _listing(str(graph))
    assert {ops[v]: listed[v] for v in ops} == {"multiply": None, "add": None}


def test_optimized_graph_names_come_from_the_statements_as_traced():
    def hoisted(x, n):
        total = np.zeros_like(x)
        for _ in range(n):
            total = total + np.maximum(x, 0)  # loop-invariant, cannot fail: hoisted out
        return total
    cf = ag.function(hoisted).get_concrete_function(ag.TensorSpec((3,), I64),
                                                    ag.TensorSpec((), I64))
    traced, _ = _listing(str(cf.graph))
    optimized, ops = _listing(str(cf.optimized_graph))
    outer = str(cf.optimized_graph).split("while_loop")[0]
    assert "maximum(x, " in outer, "the example no longer exercises hoisting"
    for vid, name in optimized.items():  # a kept value keeps its name; no new names
        if vid in traced:
            assert name == traced[vid], vid
    hoisted_max = re.search(r"(\w+): int64\[3\] = maximum\(x, ", outer)[1]
    assert optimized[hoisted_max] is None  # part of `total = ...`, not its result


@pytest.mark.parametrize("name", sorted(CASES) + sorted(OTHER_CASES))
def test_every_name_shown_is_one_the_user_wrote(name):
    """The converter's own variables (`do_return`, `retval_`, `break_`) are never shown."""
    fn = {**CASES, **OTHER_CASES}[name][0]
    tree = ast.parse(inspect.getsource(fn))
    written = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)} | {
        a.arg for a in ast.walk(tree) if isinstance(a, ast.arg)}
    graph = _graph(name)
    listed, _ = _listing(str(graph))
    nodes, edges = _dot(graph.to_dot())
    shown = {n for n in listed.values() if n} | {e[2] for e in edges if e[2]} | {
        n for lines, _ in nodes.values() if " = " in lines[0]
        for n in lines[0].split(" = ")[0].split(", ")}
    shown -= set(listed) | {"shape[0]", "shape", "size"}  # value ids, folded shape reads
    assert shown <= written, sorted(shown - written)
