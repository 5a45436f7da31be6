"""Three-way gradient checks: eager tape, graph tape (`ag.function(autograph=False)`) and
central differences, all in float64.

`three_way(fn, *args)` differentiates `sum(fn(*args))` with respect to every argument:
float arguments must get the central-difference gradient both ways, integer and
boolean arguments must get `None` both ways. It returns the ops the eager tape
recorded (ufuncs by object, other ops by name), so callers can check that a case
really exercises the rule it claims to cover.
"""
from __future__ import annotations

import numpy as np

import autograph as ag
from runtime.structure import flatten, unflatten


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


def graph_grads(fn, args):
    """(value, grads) with the tape inside a traced function."""
    def step(*xs):
        with ag.GradientTape() as tape:
            tape.watch(list(xs))
            y = fn(*xs)
        return y, tape.gradient(y, list(xs))
    y, grads = ag.function(step, autograph=False)(*[np.array(a) for a in args])
    return np.asarray(y), grads


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


def three_way(fn, *args, rtol=1e-5, atol=1e-7, expected=None):
    """Eager tape == graph tape == central differences (or `expected`); returns eager ops."""
    with np.errstate(all="raise"):
        value = np.asarray(fn(*[np.array(a) for a in args]))
    if expected is None:
        expected = numeric_grads(fn, args)
    e_value, e_grads, ops = eager_grads(fn, args)
    np.testing.assert_allclose(e_value, value, rtol=1e-12, err_msg="eager tape value")
    assert_grads(e_grads, expected, "eager tape", rtol, atol)
    g_value, g_grads = graph_grads(fn, args)
    np.testing.assert_allclose(g_value, value, rtol=1e-12, err_msg="graph value")
    assert_grads(g_grads, expected, "graph tape", rtol, atol)
    return ops


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
