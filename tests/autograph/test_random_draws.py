"""Random generators are state: converted code draws on every call, from the same
generator eager NumPy draws from, in program order. Each test runs a sequence of calls
eagerly, then through ag.function (and jit_compile=True) after resetting the generators,
and compares results (values bitwise, dtype, shape, type), the arguments after each call
and the generators' state after the sequence (their next draw)."""
import warnings

import numpy as np
import pytest

import autograph as ag
from runtime.jit import JitFallbackWarning

RNG = np.random.default_rng(7)
LEGACY = np.random.RandomState(11)


def reset():
    np.random.seed(1234)
    RNG.bit_generator.state = np.random.default_rng(7).bit_generator.state
    LEGACY.seed(11)


def next_draws():
    return np.random.random(), RNG.random(), LEGACY.random_sample()


# a Python number eagerly is a NumPy scalar of its type when a graph returns it (as
# `x.shape[0]` of an unknown dimension is); in the graph it stays weak (NEP 50)
PYTHON_NUMBER_IN_GRAPHS = {float: np.float64, int: np.int64, bool: np.bool_}


def same(got, want, where=""):
    if type(want) in PYTHON_NUMBER_IN_GRAPHS and type(got) is not type(want):
        want = PYTHON_NUMBER_IN_GRAPHS[type(want)](want)
    assert type(got) is type(want), f"{where}: {type(got)} vs {type(want)}"
    if isinstance(want, (tuple, list)):
        assert len(got) == len(want), where
        for k, (g, w) in enumerate(zip(got, want)):
            same(g, w, f"{where}[{k}]")
        return
    if isinstance(want, (np.ndarray, np.generic)):
        assert got.dtype == want.dtype and got.shape == want.shape, f"{where}: {got!r} {want!r}"
    np.testing.assert_array_equal(got, want, err_msg=where)


def run(fn, make_args, calls=3):
    reset()
    out = []
    for k in range(calls):
        args = make_args(k)
        out.append((fn(*args), args))
    return out, next_draws()


def check(fn, make_args, jit=(False, True), calls=3, **options):
    """fn eagerly vs ag.function(fn) (and with jit_compile=True): results, arguments after
    each call and the generators' next draws all equal."""
    want = run(fn, make_args, calls)
    for jit_compile in jit:
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            warnings.simplefilter("ignore", JitFallbackWarning)  # draws stay NumPy calls
            got = run(ag.function(fn, jit_compile=jit_compile, **options), make_args, calls)
        same(got, want, f"jit_compile={jit_compile}")
    return want


def floats(k):
    return (np.linspace(0.5, 2.0, 6) + k,)


# -- the examples --------------------------------------------------------------------
def shuffled_rows(x):
    y = np.arange(8).reshape(4, 2) + x
    np.random.shuffle(y)
    return y


def test_shuffle_of_a_symbolic_array_moves_whole_rows():
    want = check(shuffled_rows, lambda k: (k,))
    rows = want[0][0][0]
    assert sorted(map(tuple, rows.tolist())) == [(0, 1), (2, 3), (4, 5), (6, 7)]


def dropout(x, p=0.5):
    mask = RNG.random(x.shape) >= p
    return x * mask / (1 - p)


def test_dropout_mask_differs_per_call_as_in_numpy():
    want = check(dropout, floats)
    masks = [r[0] != 0 for r, _ in want[0]]
    assert not all(np.array_equal(masks[0], m) for m in masks[1:])


def kmeans_start(X, k):
    centers = X[RNG.choice(X.shape[0], k, replace=False)]
    for _ in range(3):
        d = ((X[:, None, :] - centers[None]) ** 2).sum(-1)
        labels = d.argmin(1)
        centers = np.stack([X[labels == j].mean(0) if (labels == j).any() else centers[j]
                            for j in range(k)])
    return centers


def test_kmeans_start_is_drawn_per_call():
    check(kmeans_start, lambda k: (np.arange(24.0).reshape(8, 3) ** 1.5 + k, 3), jit=(False,))


class Dense:
    def __init__(self, rng):
        self.rng = rng

    def init(self, x):
        w = self.rng.normal(0.0, 0.1, size=(x.shape[1], 4))
        b = self.rng.uniform(-1, 1, size=4).astype(np.float32)
        return x @ w + b


def test_weight_initialiser_on_self_draws_per_call():
    check(Dense(RNG).init, lambda k: (np.ones((2, 3), np.float32) * k,))


# -- the global generator, legacy generators, result types ----------------------------------
def legacy_calls(x):
    a = np.random.rand(2, 3)
    b = np.random.randn()
    c = np.random.randint(5)
    d = np.random.randint(0, 10, size=x.shape)
    e = np.random.normal(x, 2.0)
    f = np.random.permutation(x)
    g = np.random.choice(x, size=2, replace=False)
    h = LEGACY.standard_normal(3) + LEGACY.rand()
    return a, b, c, d, e, f, g, h, np.random.ranf(2), np.random.sample()


def test_legacy_global_and_random_state_draws():
    want = check(legacy_calls, floats)
    b, c = want[0][0][0][1:3]
    assert type(b) is float and type(c) is int  # eagerly: Python numbers


def generator_calls(x):
    n = RNG.normal()
    i = RNG.integers(5)
    s = RNG.standard_normal(3, dtype=np.float32)
    return (n, i, s, RNG.exponential(x), RNG.binomial(10, 0.3, size=(2, 2)),
            RNG.permutation(x), RNG.poisson(x), RNG.multivariate_normal(x[:2], np.eye(2)),
            RNG.dirichlet(x[:3]), RNG.multinomial(5, [0.2, 0.8]), x * n + s.sum(),
            RNG.multivariate_normal(x[:2], np.outer(x[:2], x[:2]) + np.eye(2)))


def test_generator_methods_types_and_weak_scalars():
    want = check(generator_calls, floats)
    n, i = want[0][0][0][:2]
    assert type(n) is float and type(i) is np.int64
    got = ag.function(generator_calls)(np.ones(6))[:2]
    # a draw NumPy gives as a Python float is returned as one, as eagerly
    assert type(got[0]) is float and type(got[1]) is np.int64


def symbolic_arguments(x):
    p = np.exp(x) / np.exp(x).sum()
    return (RNG.normal(loc=x, scale=np.abs(x)), RNG.choice(x.shape[0], size=4, p=p),
            RNG.uniform(x, x + 1), RNG.integers(0, x.astype(np.int64) + 1),
            np.random.binomial(x.astype(np.int64) + 2, 0.5), RNG.choice(x, size=(2, 2)))


def test_arguments_computed_in_the_graph():
    check(symbolic_arguments, floats)


def test_float32_arguments_keep_numpy_dtypes():
    check(lambda x: (x * RNG.random(), x + np.random.uniform(size=3).astype(x.dtype)),
          lambda k: (np.full(3, k, np.float32),))


# -- program order, branches, loops --------------------------------------------------------
def branches_and_loops(x, n):
    out = x
    i = 0
    while i < n:  # symbolic loop: a draw per iteration
        out = out + RNG.normal(size=x.shape)
        i += 1
    if out.sum() > 10:
        out = out * np.random.rand()
    else:
        out = out - RNG.standard_normal(x.shape)
    for j in range(3):
        out[j] += RNG.integers(0, 3)
    return out


def test_draws_in_symbolic_branches_and_loops_run_in_program_order():
    check(branches_and_loops, lambda k: (np.arange(4.0) * k, np.int64(k + 1)))


def interleaved(x, v, w):
    a = RNG.normal()
    v.assign_add(a)
    w.assign_add(np.full(2, a))
    ag.print("drew", RNG.integers(0, 100))
    return x + a + v.value, RNG.normal(w)  # an array Variable's value at this point


def test_effects_and_draws_keep_their_order(capsys):
    v, w = ag.Variable(0.0), ag.Variable(np.zeros(2))

    def with_fresh_variable(x):
        return interleaved(x, v, w)
    want = run(with_fresh_variable, floats)
    eager_out = capsys.readouterr().out
    v.assign(0.0)
    w.assign(np.zeros(2))
    got = run(ag.function(with_fresh_variable), floats)
    same(got, want)
    assert capsys.readouterr().out == eager_out


# -- in place ------------------------------------------------------------------------------
def shuffle_argument(x, axis):
    RNG.shuffle(x, axis=axis)
    y = x[0]  # a view sees the shuffle
    return y * 2


@pytest.mark.parametrize("axis", [0, 1, -1])
def test_generator_shuffle_writes_into_the_argument(axis):
    check(shuffle_argument, lambda k: (np.arange(12.0).reshape(3, 4) + k, axis))


def shuffle_alias(x):
    y = x[1:]
    LEGACY.shuffle(y)  # a view: the rows land in x
    return x.sum(axis=1), np.random.permutation(x.shape[0])


def test_shuffle_through_a_view_lands_in_the_base():
    check(shuffle_alias, lambda k: (np.arange(10.0).reshape(5, 2) + k,))


def shuffle_in_a_branch(x):
    y = x * 2
    if x.sum() > 0:
        RNG.shuffle(y)
    return y


def test_shuffle_in_a_symbolic_branch_of_an_array_not_assigned_there_is_refused():
    with pytest.raises(ValueError, match=r"in place inside a symbolic `if` / loop.*"
                                         r"Assign the array in the block"):
        ag.function(shuffle_in_a_branch)(np.ones((3, 2)))


def shuffle_assigned_in_a_branch(x):
    if x.sum() > 0:
        y = x * 2
        RNG.shuffle(y)
    else:
        y = x
    return y


def test_shuffle_in_a_symbolic_branch_of_an_array_assigned_there():
    check(shuffle_assigned_in_a_branch, lambda k: (np.arange(6.0).reshape(3, 2) - k * 3,))


def test_shuffle_of_an_empty_array_draws_nothing():
    check(lambda x: (RNG.shuffle(x), RNG.random())[1], lambda k: (np.zeros((3, 0)),))


def test_shuffle_gradient_is_the_permutation():
    w = np.arange(1.0, 6.0)

    def loss_and_grad(x):
        with ag.GradientTape() as tape:
            tape.watch(x)
            y = x * 1.0
            RNG.shuffle(y)
            loss = (y * w).sum()
        return loss, tape.gradient(loss, x)
    f = ag.function(loss_and_grad)
    reset()
    state = RNG.bit_generator.state
    loss, grad = f(np.arange(5.0) ** 2)
    RNG.bit_generator.state = state
    order = RNG.permutation(5)
    expected = np.zeros(5)
    expected[order] = w
    np.testing.assert_array_equal(grad, expected)
    assert loss == ((np.arange(5.0) ** 2)[order] * w).sum()


def test_permutation_of_an_array_is_differentiable():
    def grad(x):
        with ag.GradientTape() as tape:
            tape.watch(x)
            loss = (LEGACY.permutation(x) * np.arange(1.0, 5.0)[:, None]).sum()
        return tape.gradient(loss, x)
    reset()
    got = ag.function(grad)(np.ones((4, 2)))
    reset()
    order = LEGACY.permutation(4)
    want = np.zeros((4, 2))
    want[order] = np.arange(1.0, 5.0)[:, None]
    np.testing.assert_array_equal(got, want)


def permutations(x):
    return RNG.permutation(x, axis=1), np.random.permutation(x[:0]), RNG.permutation(x[0])


def test_permutations_of_arrays_including_empty_ones():
    check(permutations, lambda k: (np.arange(6.0).reshape(2, 3) + k,))


def test_no_gradient_through_a_draw():
    def g(x):
        with ag.GradientTape() as tape:
            tape.watch(x)
            y = RNG.normal(loc=x).sum()
        return tape.gradient(y, x)
    with pytest.raises(NotImplementedError, match="No gradient flows through a random draw"):
        ag.function(g)(np.ones(3))


# -- generators made in the function, reseeding -------------------------------------------
def local_generators(x, seed):
    rng = np.random.default_rng(seed)
    legacy = np.random.RandomState(seed + 1)
    bits = np.random.Generator(np.random.PCG64(seed))
    return rng.normal(size=x.shape) + x, legacy.randint(0, 9, 3), bits.random(), rng.random()


def test_a_generator_made_in_the_function_starts_afresh_on_every_call():
    want = check(local_generators, lambda k: (np.ones(2) * k, 3))
    assert np.array_equal(want[0][0][0][1], want[0][1][0][1])


class Model:
    def __init__(self, seed):
        self.seed = seed

    def fit(self, x):
        self.rng = np.random.default_rng(self.seed)  # kept: later code draws from it
        return x + self.rng.normal(size=x.shape)


def test_a_generator_made_and_stored_by_the_function_is_left_where_eager_leaves_it():
    eager, graph = Model(4), Model(4)
    f = ag.function(graph.fit)
    for k in range(3):
        same(f(np.full(2, float(k))), eager.fit(np.full(2, float(k))))
        same(graph.rng.random(), eager.rng.random())  # drawn from outside, between calls


def test_an_unseeded_generator_made_in_the_function_is_fresh_on_every_call():
    f = ag.function(lambda x: x + np.random.default_rng().random())
    assert len({float(f(np.zeros(()))) for _ in range(4)}) == 4


STATE = np.random.RandomState(5).get_state()


def reseeding(x):
    np.random.seed(3)
    a = np.random.rand(2)
    np.random.set_state(STATE)
    return a + x[:2], np.random.rand(2)


def test_seed_and_set_state_run_at_every_call():
    check(reseeding, floats)


# -- refusals ------------------------------------------------------------------------------
def test_unknown_dimensions_are_refused():
    f = ag.function(lambda x: RNG.normal(x), input_signature=[ag.TensorSpec((None,), np.float64)])
    with pytest.raises(TypeError, match="unknown while tracing.*needs static shapes"):
        f(np.ones(3))
    g = ag.function(lambda x: RNG.normal(size=x.shape[0]),
                    input_signature=[ag.TensorSpec((None,), np.float64)])
    with pytest.raises(TypeError, match="depends on an integer computed in the graph"):
        g(np.ones(3))


@pytest.mark.parametrize("body, match", [
    (lambda x: np.random.get_state(),
     r"np.random.get_state\(\) inside a traced function"),
    (lambda x: RNG.shuffle(ORDER), r"shuffle\(x\) of a Python list.*rng.permutation"),
    (lambda x: np.random.shuffle(HELD), r"held by Python state.*"
                                        r"np.random.permutation\(len\(x\)\)"),
    (lambda x: RNG.bytes(3), "returns a bytes, which a graph cannot hold"),
    (lambda x: RNG.permuted(x, out=x), r"out=\.\.\.\) is not supported"),
])
def test_what_a_graph_cannot_do_is_refused_clearly(body, match):
    with pytest.raises(TypeError, match=match):
        ag.function(body)(np.ones(3))


ORDER = [1, 2, 3]
HELD = np.array([1, 2])


def test_shuffle_of_an_array_made_from_constants_is_numpys():
    """`np.array([...])` made while tracing is a graph value: shuffled in the graph on
    every call, with the numbers eager NumPy draws."""
    def f(x):
        a = np.array([1.0, 2.0, 3.0, 4.0])
        np.random.shuffle(a)
        return a * x

    np.random.seed(3)
    want = [f(np.float64(2.0)) for _ in range(3)]
    np.random.seed(3)
    g = ag.function(f)
    got = [g(np.float64(2.0)) for _ in range(3)]
    assert all(np.array_equal(w, v) for w, v in zip(want, got)), (want, got)


def test_saving_and_exporting_refuse_the_draw_by_name(tmp_path):
    cf = ag.function(dropout).get_concrete_function(np.ones(3))
    with pytest.raises(Exception, match="random_draw.*calls a NumPy generator"):
        ag.save(cf, tmp_path / "m")
    pytest.importorskip("onnx")
    with pytest.raises(Exception, match="random_draw.*calls a NumPy generator"):
        ag.export_onnx(cf, tmp_path / "m.onnx")
