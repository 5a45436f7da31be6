"""The optimization pipeline, run to a fixpoint on a copy of the traced graph.

Order, and why:
1. inline constant conds — exposes the taken branch to every later pass;
2. fold constants        — turns all-constant ops into values (may make preds constant);
3. simplify algebra      — removes identities (`x * 1`, `x @ I` on integers) that
                           folding revealed;
4. shorten matmul chains — `a @ (a @ ... v)` on integers by repeated squaring (after
                           folding, so constant factors are already one value; the
                           next round folds powers of constants and drops `@ I`);
5. CSE                   — merges what simplification made identical;
6. hoist loop invariants — moves pure, invariant work out of while bodies;
7. DCE                   — drops everything the earlier passes orphaned.
The loop repeats while any pass changes something (at most `MAX_ROUNDS` times).
Then, once: 8. materialize constants — scalars as 0-d arrays of their loop dtype and
small broadcast constants in the result's shape, NumPy's fast path (last, because it
hides scalars from simplification and CSE).
"""
from __future__ import annotations

from dataclasses import dataclass, field

from runtime.core.graph import Graph
from runtime.passes.cse import eliminate_common_subexpressions
from runtime.passes.dce import eliminate_dead_code
from runtime.passes.fold import fold_constants
from runtime.passes.hoist import hoist_loop_invariants
from runtime.passes.inline_cond import inline_constant_conds
from runtime.passes.materialize import materialize_constants
from runtime.passes.matmul_chains import shorten_matmul_chains
from runtime.core.rewrite import clone
from runtime.core.tensor_map import TensorMap
from runtime.passes.simplify import simplify_algebra

PASSES = [inline_constant_conds, fold_constants, simplify_algebra, shorten_matmul_chains,
          eliminate_common_subexpressions, hoist_loop_invariants, eliminate_dead_code]
FINAL_PASSES = [materialize_constants]
MAX_ROUNDS = 8


@dataclass
class PassSummary:
    """Node counts before/after each pass run, for debugging (`cf.pass_summary`)."""

    rows: list = field(default_factory=list)

    def __str__(self) -> str:
        lines = [f"{'round':>5}  {'pass':<34} {'before':>6} {'after':>6}"]
        lines += [f"{r:>5}  {name:<34} {b:>6} {a:>6}" for r, name, b, a in self.rows]
        return "\n".join(lines)


def count_nodes(graph: Graph) -> int:
    return sum(1 for _ in graph.walk())


def optimize(graph: Graph, verify: bool = False) -> tuple[Graph, dict, PassSummary]:
    """Optimize a copy of `graph`; returns (copy, {id(old value): new value}, summary)."""
    optimized, mapping = clone(graph)
    _carry_operator_marks(graph, mapping)
    summary = PassSummary()

    def run(pass_, round_) -> bool:
        before = count_nodes(optimized)
        changed = pass_(optimized)
        if verify:
            optimized.verify()
        summary.rows.append((round_, pass_.__name__, before, count_nodes(optimized)))
        return changed

    for round_ in range(1, MAX_ROUNDS + 1):
        if not any([run(pass_, round_) for pass_ in PASSES]):  # a list: every pass runs
            break
    for pass_ in FINAL_PASSES:
        run(pass_, "final")
    return optimized, mapping, summary


def _carry_operator_marks(graph: Graph, mapping: dict) -> None:
    """Mark on the copy the 0-d values the trace marked as results of Python operators
    (`d ** t`, not `np.power(d, t)`): the executor spells those with the operator, which
    NumPy scalars compute differently from the ufunc (exec/scalar_forms.py). A value a
    pass replaces loses its mark and keeps NumPy's function."""
    graphs = [graph]
    while graphs:
        g = graphs.pop()
        graphs.extend(sub for node in g.nodes for sub in node.subgraphs())
        for old in getattr(g, "operator_results", None) or ():
            new = mapping.get(id(old))
            if new is None:
                continue
            table = getattr(new.graph, "operator_results", None)
            if table is None:
                table = new.graph.operator_results = TensorMap()
            table[new] = True
