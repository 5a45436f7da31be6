"""Optimization passes: each tested on its own, then differentially (optimized vs not)."""
import numpy as np
import pytest

import autograph as ag
import runtime
from runtime import cond, while_loop
from runtime.passes.pipeline import optimize
from tests.helpers import assert_same


def ops_of(graph):
    return [n.op.name for n in graph.walk()]


def traced(fn, *args, optimize=True):
    f = ag.function(fn, autograph=False, optimize=optimize)
    return f, f.get_concrete_function(*args)


def test_cse_merges_repeated_exp():
    f, cf = traced(lambda x: np.exp(x) + np.exp(x) * np.exp(x), np.ones(3))
    assert ops_of(cf.graph).count("exp") == 3
    assert ops_of(cf.optimized_graph).count("exp") == 1


def test_cse_never_merges_variable_reads_across_assign():
    v = ag.Variable(np.ones(2))

    def fn():
        a = v.read_value() * 2
        v.assign(np.zeros(2))
        return a, v.read_value() * 2
    f, cf = traced(fn)
    assert ops_of(cf.optimized_graph).count("read_variable") == 2
    assert_same(f(), (np.full(2, 2.0), np.zeros(2)))


def test_simplify_removes_identities_but_keeps_float_plus_zero():
    def fn(x, i):
        return (x * 1.0 - 0.0) / 1.0 + 0.0, (i + 0) * 1 - i, np.astype(x, np.float64).reshape(3) - x
    f, cf = traced(fn, np.array([-0.0, 1.0, np.nan]), np.arange(3))
    names = ops_of(cf.optimized_graph)
    assert names.count("multiply") == 0 and "true_divide" not in names and "astype" not in names
    assert names.count("add") == 1  # x + 0.0 stays: -0.0 + 0.0 is +0.0
    assert "reshape" not in names
    out = f(np.array([-0.0, 1.0, np.nan]), np.arange(3))
    expected = fn(np.array([-0.0, 1.0, np.nan]), np.arange(3))
    assert_same(out, expected)
    assert np.signbit(out[0][0]) == np.signbit(expected[0][0])


def test_simplify_keeps_returned_identity_as_fresh_array():
    f = ag.function(lambda x: x * 1, autograph=False)
    x = np.ones(3)
    out = f(x)
    assert out is not x and not np.shares_memory(out, x)


def test_double_transpose_cancels():
    f, cf = traced(lambda x: np.transpose(np.transpose(x, (1, 2, 0)), (2, 0, 1)) + 1,
                   np.ones((2, 3, 4)))
    assert "transpose" not in ops_of(cf.optimized_graph)
    assert_same(f(np.arange(24.0).reshape(2, 3, 4)), np.arange(24.0).reshape(2, 3, 4) + 1)


def test_constant_cond_is_inlined_and_folded():
    def fn(x):
        c = runtime.constant(np.float64(2.0))          # a graph constant
        return cond(c > 1, lambda: x * c, lambda: x - c)
    f, cf = traced(fn, np.ones(2))
    assert "cond" in ops_of(cf.graph)
    assert "cond" not in ops_of(cf.optimized_graph)
    assert_same(f(np.ones(2)), np.full(2, 2.0))


def test_loop_invariant_is_hoisted():
    def fn(w, n):
        def body(i, s):
            return i + 1, s + np.maximum(w, 0.5) * np.float64(2)
        return while_loop(lambda i, s: i < n, body, (np.int64(0), np.zeros_like(w)))
    f, cf = traced(fn, np.ones(3), np.int64(4))
    loop = next(node for node in cf.optimized_graph.nodes if node.op.name == "while_loop")
    assert "maximum" not in ops_of(loop.attrs["body"])
    assert "maximum" in [node.op.name for node in cf.optimized_graph.nodes]
    for n in (0, 1, 5):
        assert_same(f(np.ones(3), np.int64(n)), fn_eager(np.ones(3), n))


def fn_eager(w, n):
    s = np.zeros_like(w)
    for _ in range(n):
        s = s + np.maximum(w, 0.5) * np.float64(2)
    return np.int64(n), s


def test_folding_leaves_failing_op_for_run_time():
    def fn(x):
        bad = runtime.constant(np.arange(3))
        return x + 1, np.take(bad, 10)
    f = ag.function(fn, autograph=False)
    with pytest.raises(IndexError):
        f(np.ones(1))


def test_pass_summary_and_optimize_false():
    f, cf = traced(lambda x: np.exp(x) + np.exp(x), np.ones(2))
    assert "eliminate_common_subexpressions" in str(cf.pass_summary)
    g, cg = traced(lambda x: np.exp(x) + np.exp(x), np.ones(2), optimize=False)
    assert cg.optimized_graph is cg.graph and cg.pass_summary is None


# -- differential: the optimized graph gives what the traced graph gives -----------------
def corpus():
    rng = np.random.default_rng(1)
    x = rng.standard_normal(5)
    i = rng.integers(-5, 5, 5)
    yield lambda x: np.exp(x) * 1 + np.exp(x) - 0, (x,)
    yield lambda i: (i + 0) * 1 - (i - i), (i,)
    yield lambda x: cond(np.sum(x) > 0, lambda: np.exp(x) * 2, lambda: np.exp(x) * 3), (x,)
    yield (lambda x, n: while_loop(lambda k, s: k < n, lambda k, s: (k + 1, s + np.tanh(x) * k),
                                   (np.int64(0), np.zeros_like(x))), (x, np.int64(4)))
    yield lambda x: np.transpose(np.transpose(x.reshape(5, 1))).reshape(5) + x * x, (x,)
    yield lambda i: np.where(i > 0, i * 1, -i) + np.abs(i) * np.abs(i), (i,)
    yield (lambda x, n: while_loop(
        lambda k, s: k < n,
        lambda k, s: (k + 1, cond(k % 2 == 0, lambda: s + np.sin(x), lambda: s * 1.0)),
        (np.int64(0), x)), (x, np.int64(5)))
    m = rng.integers(-2**31, 2**31, (4, 4)).astype(np.int32)  # wraps: exact modular products
    yield lambda m: _power(m, 9) + _power(m.T, 5) @ np.eye(4, dtype=np.int32), (m,)


def _power(m, k):
    result = np.eye(4, dtype=m.dtype)
    for _ in range(k):
        result = np.matmul(m, result)
    return result


@pytest.mark.parametrize("case", list(range(8)))
def test_optimized_equals_unoptimized(case):
    fn, args = list(corpus())[case]
    _, cf = traced(fn, *args)
    optimize(cf.graph, verify=True)   # the verifier runs after every pass
    plain = ag.function(fn, autograph=False, optimize=False)(*args)
    fast = ag.function(fn, autograph=False)(*args)
    assert_same(fast, plain, rtol=0)


UNARY = [np.exp, np.tanh, np.negative, np.abs, np.sin, np.square]
BINARY = [np.add, np.subtract, np.multiply, np.maximum, np.minimum]


def random_program(seed):
    """A random straight-line program of pure ops, with repeats and identities, constants
    that broadcast, matmuls (buffer reuse) and views (buffers that must stay private)."""
    rng = np.random.default_rng(seed)
    steps = []
    bias, weight = rng.standard_normal(4), rng.standard_normal((4, 4))
    for _ in range(rng.integers(5, 25)):
        kind = rng.integers(0, 7)
        a, b = rng.integers(0, 100, 2)
        if kind >= 4:  # a constant bias, a matmul by a constant, a view
            steps.append(("bias", "mm", "view")[kind - 4:kind - 3] + (a,))
        elif kind == 0:
            steps.append(("u", int(rng.integers(len(UNARY))), a))
        elif kind == 1:
            steps.append(("b", int(rng.integers(len(BINARY))), a, b))
        elif kind == 2:
            steps.append(("id", a, float(rng.choice([0.0, 1.0]))))
        else:
            steps.append(("c", a, float(rng.standard_normal())))

    def program(x, y):
        vals = [x, y]
        for step in steps:
            pick = lambda k: vals[k % len(vals)]
            if step[0] == "u":
                vals.append(UNARY[step[1]](pick(step[2])) * 0.5)
            elif step[0] == "b":
                vals.append(BINARY[step[1]](pick(step[2]), pick(step[3])))
            elif step[0] == "id":
                v = pick(step[1])
                vals.append(v * 1 if step[2] == 1.0 else v - 0)
            elif step[0] == "c":
                vals.append(pick(step[1]) + step[2])
            elif step[0] == "bias":
                vals.append(pick(step[1]) + bias)
            elif step[0] == "mm":
                vals.append(pick(step[1]) @ weight)
            else:
                vals.append(pick(step[1])[::-1])
        return vals[-1], vals[len(vals) // 2], vals[len(vals) // 3]
    return program


@pytest.mark.parametrize("seed", range(40))
def test_random_programs_optimized_equals_unoptimized(seed):
    program = random_program(seed)
    rng = np.random.default_rng(seed + 1000)
    x, y = rng.standard_normal((2, 4)), rng.standard_normal(4)
    _, cf = traced(program, x, y)
    optimize(cf.graph, verify=True)
    plain = ag.function(program, autograph=False, optimize=False)(x, y)
    fast = ag.function(program, autograph=False)(x, y)
    assert_same(fast, plain, rtol=0)
    assert_same(fast, program(x, y), rtol=0)


def test_ops_that_read_only_a_shape_fold_when_it_is_known():
    fn = lambda x: np.ones_like(x) * 2 + np.zeros_like(x, dtype=np.int8) + np.full_like(x, 3.0)
    x = np.arange(3.0)
    _, cf = traced(fn, x)
    assert [n.op.name for n in cf.optimized_graph.nodes] == []  # all three fold to constants
    assert_same(ag.function(fn, autograph=False)(x), fn(x), rtol=0)
    f = ag.function(fn, autograph=False, input_signature=[ag.TensorSpec([None], np.float64)])
    ops = ops_of(f.get_concrete_function(x).optimized_graph)  # unknown size: kept
    assert "ones_like" in ops and "full_like" in ops
    assert_same(f(np.arange(5.0)), fn(np.arange(5.0)), rtol=0)


def test_gradient_seed_and_shape_plumbing_are_folded_or_plain_numpy():
    w = ag.Variable(np.ones((3, 2)))

    def step(x):
        with ag.GradientTape() as tape:
            loss = np.mean(np.sum((x @ w) ** 2, axis=1))
        return tape.gradient(loss, w)
    _, cf = traced(step, np.ones((4, 3)))
    ops = ops_of(cf.optimized_graph)
    assert not {"ones_like", "sum_to_shape_of", "broadcast_like"} & set(ops), ops
