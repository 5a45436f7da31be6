"""One record per op, one lookup: executors, passes and autodiff dispatch on the op
record's fields, never on which op a node is or on its name; every gradient rule is the
record's `grad`; the rule files under runtime/ops/ pair with their op files."""
from __future__ import annotations

import pathlib
import re

import numpy as np
import pytest

import runtime
import runtime.autodiff  # noqa: F401 - the gradient rule modules attach their rules
from runtime.saved.optable import op_table

ROOT = pathlib.Path(runtime.__file__).parent

# Dispatch on identity or name: allowed only where an op record is defined.
_DISPATCH = re.compile(r"\bop is (not )?[A-Z][A-Z_0-9]*\b|\bop\.name (==|!=|in\b|not in\b)"
                       r"|\bop\.name\.(startswith|endswith)\(|\bin ((rec|node)\.)?op\.name\b")


def _defines_op_records(text: str) -> bool:
    return re.search(r"^\w+ = OpDef\(", text, re.M) is not None


def test_no_dispatch_on_op_identity_or_name():
    found = []
    for path in sorted(ROOT.rglob("*.py")):
        text = path.read_text()
        if _defines_op_records(text):
            continue
        for k, line in enumerate(text.splitlines(), 1):
            if _DISPATCH.search(line):
                found.append(f"{path.relative_to(ROOT.parent)}:{k}: {line.strip()}")
    assert not found, "dispatch on the op record's fields instead:\n" + "\n".join(found)


def test_the_pattern_catches_dispatch():
    # the check above is only as good as its pattern
    for line in ('if node.op is COND:', 'elif node.op is WHILE_LOOP:', 'if op.name == "sort":',
                 'x if node.op.name in ("a", "b") else y', 'rec.op.name.endswith("2")',
                 '"ifft" in rec.op.name', 'default = 2 if op.name.endswith("2") else 1'):
        assert _DISPATCH.search(line), line
    assert not _DISPATCH.search('raise TypeError(f"np.{op.name} is not supported")')


# Ops without a gradient rule, and why. A new op must either get `grad` or a line here.
_NO_GRADIENT = {
    "boolean or integer result (no cotangent)": (
        "allclose array_equal isclose equal not_equal greater greater_equal less less_equal "
        "isfinite isinf isnan isnat signbit logical_and logical_not logical_or logical_xor "
        "bitwise_and bitwise_count bitwise_or bitwise_xor invert left_shift right_shift gcd "
        "lcm argwhere flatnonzero nonzero bincount linalg.matrix_rank linalg.matrix_rank_tol shape_dim size_of "
        "list_len exact_int math.ceil math.floor math.trunc math.isfinite math.isinf "
        "math.isnan stride packbits unpackbits"),
    "piecewise constant or defined on integers (divmod, frexp, modf, nextafter, spacing)": (
        "divmod frexp modf nextafter spacing"),
    "a value made from static arguments only": "arange linspace eye zeros ones empty constant "
                                               "tile_dynamic",
    "no single gradient: unique's values move when inputs tie": "unique",
    "complex eigenvectors of a general matrix are defined only up to phase": (
        "linalg.eig linalg.eigvals"),
    "side effect or state, no value to differentiate": (
        "assert assign_variable check print raise read_variable"),
    "a graph `try`'s bookkeeping (kept results, re-raises, the values a body marks for its "
    "handlers, read from per-thread slots)": "keep reraise try_mark try_mark_read",
    "gradient bookkeeping (the lists the while_loop gradient itself uses)": (
        "list_new list_zeros save_state"),
    "the bytes read as another dtype (x.view(dtype))": "view_as",
    "reduce of ufuncs other than add, multiply, maximum, minimum (those are np.sum, "
    "np.prod, np.max, np.min)": "ufunc_reduce",
    "the gradient of as_strided (a scatter-add by memory offsets): no second derivative":
        "as_strided_grad",
}


def test_every_op_has_a_gradient_rule_or_a_reason():
    no_rule = {name for names in _NO_GRADIENT.values() for name in names.split()}
    table = op_table()
    missing = sorted(n for n, op in table.items() if op.grad is None and n not in no_rule)
    assert not missing, f"ops with neither `grad` nor a reason in _NO_GRADIENT: {missing}"
    stale = sorted(n for n in no_rule if n not in table or table[n].grad is not None)
    assert not stale, f"listed as without a gradient but unknown or with one: {stale}"


def test_float_ufuncs_with_a_derivative_have_rules():
    """Every ufunc that maps floats to floats has a rule, unless listed above."""
    no_rule = {name for names in _NO_GRADIENT.values() for name in names.split()}
    for name in dir(np):
        u = getattr(np, name)
        if isinstance(u, np.ufunc) and any(t.split("->")[1][:1] in "fd" and
                                           set(t.split("->")[0]) <= set("fd")
                                           for t in u.types) and u.__name__ not in no_rule:
            from runtime.ops.ufuncs import ufunc_op

            assert ufunc_op(u).grad is not None, u.__name__


def test_control_flow_records_carry_their_hooks():
    flow = [op for op in op_table().values() if op.subgraph_attrs]
    assert sorted(op.name for op in flow) == ["cond", "try", "while_loop"]
    for op in flow:
        for hook in ("emit", "run", "check", "once_inputs", "sources", "feeds", "grad"):
            assert callable(getattr(op, hook)), (op.name, hook)


def test_a_new_op_is_one_record():
    """The docstring's recipe: one OpDef with kernel, shape rule and gradient runs in
    graphs (generated code and interpreter agree with NumPy) and differentiates."""
    from runtime.exec.interpreter import run_graph
    from runtime.core.registry import OpDef, bind

    cube = OpDef("cube_for_test", lambda x: x ** 3,
                 lambda op, ins, attrs: [(ins[0].static_shape, ins[0].dtype)],
                 grad=lambda rec, cts: [cts[0] * 3 * rec.inputs[0] ** 2])
    f = runtime.function(lambda x: bind(cube, x) + 1.0)
    x = np.array([1.0, -2.0, 0.5])
    np.testing.assert_array_equal(f(x), x ** 3 + 1.0)
    cf = f.get_concrete_function(x)
    np.testing.assert_array_equal(run_graph(cf.graph, [x])[0], x ** 3 + 1.0)
    t = np.array([1.0, -2.0, 0.5])
    with runtime.autodiff.GradientTape() as tape:
        t = tape.watch(t)
        y = np.sum(bind(cube, t))
    np.testing.assert_allclose(tape.gradient(y, t), 3 * t ** 2)


def _op_modules() -> set[str]:
    return {p.stem for p in (ROOT / "ops").glob("*.py")
            if not p.stem.endswith("_rules") and p.stem not in ("__init__", "registry")}


@pytest.mark.parametrize("rules", sorted(p.stem for p in (ROOT / "ops").glob("*_rules.py")))
def test_rule_files_pair_with_op_files(rules):
    if rules == "rules_common":
        return  # the helpers every rule file builds on
    assert rules[:-len("_rules")] in _op_modules(), f"runtime/ops/{rules}.py has no op file"
