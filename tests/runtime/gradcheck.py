"""Three-way gradient checks: eager tape, graph tape (`ag.function(autograph=False)`) and
central differences, all in float64.

`three_way(fn, *args)` differentiates `sum(fn(*args))` with respect to every argument:
float arguments must get the central-difference gradient both ways, integer and
boolean arguments must get `None` both ways. It returns the ops the eager tape
recorded (ufuncs by object, other ops by name), so callers can check that a case
really exercises the rule it claims to cover.
"""
from __future__ import annotations

import inspect

import numpy as np

import autograph as ag
from runtime.core.structure import flatten, unflatten


def is_float(x) -> bool:
    return np.asarray(x).dtype.kind in "fc"


def numeric_grads(fn, args, eps=1e-6):
    """Central differences of sum(fn(*args)) for each float argument (None for others)."""
    args = [np.array(a) for a in args]
    grads = []
    for k, a in enumerate(args):
        if not is_float(a):
            grads.append(None)
            continue
        g = np.zeros_like(a, dtype=np.float64)
        for i in np.ndindex(a.shape):
            up = [x.copy() for x in args]
            down = [x.copy() for x in args]
            up[k][i] += eps
            down[k][i] -= eps
            g[i] = (np.sum(fn(*up)) - np.sum(fn(*down))) / (2 * eps)
        grads.append(g)
    return grads


def op_key(op):
    return op.kernel if isinstance(op.kernel, np.ufunc) else op.name


def eager_grads(fn, args):
    """(value, grads w.r.t. every argument, keys of the recorded ops) with an eager tape."""
    with ag.GradientTape() as tape:
        watched = [tape.watch(np.array(a)) for a in args]
        y = fn(*watched)
    ops = {op_key(r.op) for r in tape._records if hasattr(r, "op")}
    return np.asarray(y), tape.gradient(y, watched), ops


def graph_grads(fn, args, relaxed=False):
    """(value, grads, keys of the ops in the traced graph) with the tape inside a traced
    function; `relaxed` traces for TensorSpecs whose dimensions are all unknown."""
    def step(*xs):
        with ag.GradientTape() as tape:
            tape.watch(list(xs))
            y = fn(*xs)
        return y, tape.gradient(y, list(xs))
    args = [np.array(a) for a in args]
    # one named parameter per argument, so that an input_signature can describe them
    step.__signature__ = inspect.Signature(
        [inspect.Parameter(f"x{i}", inspect.Parameter.POSITIONAL_OR_KEYWORD)
         for i in range(len(args))])
    signature = [ag.TensorSpec((None,) * a.ndim, a.dtype) for a in args] if relaxed else None
    f = ag.function(step, autograph=False, input_signature=signature)
    y, grads = f(*args)
    graph = f.get_concrete_function(*(signature or args)).graph
    return np.asarray(y), grads, {op_key(n.op) for n in graph.walk()}


def assert_grads(got, expected, what, rtol=1e-5, atol=1e-7):
    for k, (g, e) in enumerate(zip(got, expected, strict=True)):
        label = f"{what}: argument {k}"
        if e is None:
            assert g is None, f"{label} is not differentiable, but got a gradient {g!r}"
            continue
        assert g is not None, f"{label}: got None, expected {e!r}"
        g = np.asarray(g)
        assert g.shape == e.shape, f"{label}: gradient shape {g.shape}, expected {e.shape}"
        assert g.dtype == np.asarray(e).dtype, f"{label}: gradient dtype {g.dtype}"
        np.testing.assert_allclose(g, e, rtol=rtol, atol=atol, err_msg=label)


def three_way(fn, *args, rtol=1e-5, atol=1e-7, expected=None, relaxed=False):
    """Eager tape == graph tape == central differences (or `expected`); returns the keys
    of the ops recorded eagerly or traced."""
    with np.errstate(all="raise"):
        value = np.asarray(fn(*[np.array(a) for a in args]))
    if expected is None:
        expected = numeric_grads(fn, args)
    e_value, e_grads, ops = eager_grads(fn, args)
    np.testing.assert_allclose(e_value, value, rtol=1e-12, err_msg="eager tape value")
    assert_grads(e_grads, expected, "eager tape", rtol, atol)
    g_value, g_grads, g_ops = graph_grads(fn, args, relaxed)
    np.testing.assert_allclose(g_value, value, rtol=1e-12, err_msg="graph value")
    assert_grads(g_grads, expected, "graph tape", rtol, atol)
    return ops | g_ops


def numeric_grads_tree(loss, sources, eps=1e-6):
    """Central differences of loss(sources) for a nested structure of float arrays."""
    leaves, tree = flatten(sources)
    leaves = [np.array(x, dtype=np.float64) for x in leaves]
    out = []
    for k, leaf in enumerate(leaves):
        g = np.zeros_like(leaf)
        for i in np.ndindex(leaf.shape):
            vals = []
            for sign in (1, -1):
                moved = [x.copy() for x in leaves]
                moved[k][i] += sign * eps
                vals.append(np.sum(loss(unflatten(tree, moved))))
            g[i] = (vals[0] - vals[1]) / (2 * eps)
        out.append(g)
    return unflatten(tree, out)


def _assert_tree(got, expected, what, rtol, atol):
    g_leaves, g_tree = flatten(got)
    e_leaves, e_tree = flatten(expected)
    assert g_tree == e_tree, f"{what}: gradient structure {g_tree}, expected {e_tree}"
    assert_grads(g_leaves, e_leaves, what, rtol, atol)


def check_program(eager, graph, params, *data, rtol=1e-5, atol=1e-7):
    """Gradients of sum(program(params, *data)) w.r.t. the nested float arrays `params`,
    three ways: `eager` (Python control flow) on an eager tape, `graph` (runtime.cond /
    while_loop) on a tape inside `ag.function(autograph=False)`, and central differences
    of `eager` on plain arrays. Returns the graph Function."""
    value = np.sum(eager(params, *data))
    expected = numeric_grads_tree(lambda p: eager(p, *data), params)
    with ag.GradientTape() as tape:
        watched = tape.watch(params)
        y = eager(watched, *data)
    np.testing.assert_allclose(np.sum(np.asarray(y)), value, rtol=1e-12, err_msg="eager tape value")
    _assert_tree(tape.gradient(y, watched), expected, "eager tape", rtol, atol)

    def step(p, *d):
        with ag.GradientTape() as tape:
            tape.watch(p)
            y = graph(p, *d)
        return y, tape.gradient(y, p)

    f = ag.function(step, autograph=False)
    g_value, g_grads = f(params, *data)
    np.testing.assert_allclose(np.sum(g_value), value, rtol=1e-12, err_msg="graph value")
    _assert_tree(g_grads, expected, "graph tape", rtol, atol)
    return f


def check_variable_program(eager, graph, variables, *data, rtol=1e-5, atol=1e-7):
    """Like `check_program` for a nested structure of `ag.Variable`s that both versions
    read (the tape watches them by itself); central differences assign perturbed values."""
    var_leaves, tree = flatten(variables)
    start = [v.numpy() for v in var_leaves]

    def loss(values):
        for v, x in zip(var_leaves, flatten(values)[0]):
            v.assign(x)
        return eager(variables, *data)

    try:
        value = np.sum(loss(unflatten(tree, start)))
        expected = numeric_grads_tree(loss, unflatten(tree, start))
    finally:
        for v, x in zip(var_leaves, start):
            v.assign(x)
    with ag.GradientTape() as tape:
        y = eager(variables, *data)
    np.testing.assert_allclose(np.sum(np.asarray(y)), value, rtol=1e-12, err_msg="eager tape value")
    _assert_tree(tape.gradient(y, variables), expected, "eager tape", rtol, atol)

    def step(*d):
        with ag.GradientTape() as tape:
            y = graph(variables, *d)
        return y, tape.gradient(y, variables)

    f = ag.function(step, autograph=False)
    g_value, g_grads = f(*data)
    np.testing.assert_allclose(np.sum(g_value), value, rtol=1e-12, err_msg="graph value")
    _assert_tree(g_grads, expected, "graph tape", rtol, atol)
    for v, x in zip(var_leaves, start):
        np.testing.assert_array_equal(v.numpy(), x, err_msg="a Variable changed")
    return f


class Programs:
    """A table of programs, each an (eager, graph) pair with points to check it at.

    `@programs("name", (params, *data), ...)` over a function returning (eager, graph);
    `mark=` attaches a pytest mark (e.g. an xfail for a known bug) to its points."""

    def __init__(self):
        self.table: dict = {}
        self.marks: dict = {}

    def __call__(self, name, *points, mark=None):
        def deco(make):
            eager, graph = make()
            self.table[name] = (eager, graph, points)
            if mark is not None:
                self.marks[name] = mark
            return make
        return deco

    def params(self):
        import pytest

        return [pytest.param(name, k, id=f"{name}-{k}",
                             marks=[self.marks[name]] if name in self.marks else [])
                for name, (_, _, pts) in self.table.items() for k in range(len(pts))]

    def check(self, name, k):
        eager, graph, points = self.table[name]
        check_program(eager, graph, *points[k])

    def working(self) -> list:
        return [n for n in self.table if n not in self.marks]
