"""vmap through control flow: examples that take different branches and different trip
counts (break, early return, nested loops, maximum_iterations) equal the loop of calls,
bitwise; an untaken side's NaNs, warnings and errors do not leak; per-example
gradients, nested vmap, vmap of / inside ag.function, in_axes / out_axes."""
from __future__ import annotations

import warnings

import numpy as np
import pytest

import autograph as ag
from tests.runtime.vmap_harness import assert_bitwise, check_vmap, loop_of_calls

RNG = np.random.default_rng(3)


def branches(x):
    if np.sum(x) > 0:
        y = np.sqrt(x * x + 1.0) * 2.0
    else:
        y = np.exp(x) - 1.0
    return y


def halving(x):
    n = 0
    while np.max(np.abs(x)) > 1.0:
        x = x / 2.0
        n += 1
    return x, n


def newton_sqrt(a):
    x = a
    i = 0
    while i < 50:
        nx = 0.5 * (x + a / x)
        if np.abs(nx - x) < 1e-12:
            break
        x = nx
        i += 1
    return x, i


def early_return(x):
    for i in range(5):
        if x[i] > 0.8:
            return x * i
    return -x


def nested(x):
    total = 0.0
    i = 0
    while i < x.shape[0]:
        j = 0
        while j < 3 and x[i] * j < 1.5:
            total = total + x[i] * j
            j += 1
        i += 1
    if total > 1.0:
        total = total - 1.0
    return total


def collatz(n):
    steps = 0
    while n != 1:
        if n % 2 == 0:
            n = n // 2
        else:
            n = 3 * n + 1
        steps += 1
    return steps


def unbatched_trip_count(x):
    for _ in range(3):
        x = np.tanh(x) + 1.0
    i = 0
    while i < 4:
        x = x * 0.5
        i += 1
    return x


def damped(x):  # `i` is not returned: the batched loop keeps one shared counter
    i = 0
    while np.sum(np.abs(x)) > 0.1 and i < 40:
        x = x * 0.5 - 0.01 * i * np.sign(x)
        i += 1
    return x


def harmonic_until(x):
    k = 0
    total = 0.0
    while True:
        k += 1
        total = total + x / k
        if total > 3.0 or k >= 30:
            break
    return total


PROGRAMS = {
    "branches": (branches, RNG.normal(size=(8, 3))),
    "halving": (halving, RNG.normal(size=(8, 2)) * np.array([[1.0], [10.0]] * 4)),
    "newton_sqrt": (newton_sqrt, RNG.uniform(0.1, 100.0, size=(8,))),
    "early_return": (early_return, RNG.uniform(0, 1, size=(8, 5))),
    "nested": (nested, RNG.uniform(0, 1, size=(6, 4))),
    "collatz": (collatz, np.arange(1, 20, dtype=np.int64)),
    "unbatched_trip_count": (unbatched_trip_count, RNG.normal(size=(5, 2))),
    "damped": (damped, RNG.normal(size=(6, 3)) * np.array([[0.01], [1.0], [100.0]] * 2)),
    "harmonic_until": (harmonic_until, np.array([0.3, 1.0, 2.0, 5.0, 0.01])),
}


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_control_flow_programs_equal_the_loop_of_calls(name):
    fn, xs = PROGRAMS[name]
    check_vmap(fn, xs)


def test_examples_do_take_different_paths_and_trip_counts():
    _, counts = ag.vmap(newton_sqrt)(PROGRAMS["newton_sqrt"][1])
    assert len(set(counts.tolist())) > 2
    steps = ag.vmap(collatz)(PROGRAMS["collatz"][1])
    assert len(set(steps.tolist())) > 5
    ys = ag.vmap(branches)(PROGRAMS["branches"][1])
    sums = PROGRAMS["branches"][1].sum(axis=1)
    assert (sums > 0).any() and (sums <= 0).any() and ys.shape == (8, 3)


def guarded(x):
    if x > 0:
        y = np.log(x)
    else:
        y = x
    return y


def test_untaken_side_does_not_leak_nans_or_warnings():
    xs = np.array([-1.0, 0.0, 2.0, 3.0])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with np.errstate(all="raise"):
            got = ag.vmap(guarded)(xs)
    assert_bitwise(got, loop_of_calls(guarded, (xs,))[0][0], "guarded")
    assert not np.isnan(got).any()


def limited(x):
    while np.sum(x) < 100.0:
        ag.set_loop_options(maximum_iterations=3)
        x = x * 2.0
    return x


def test_maximum_iterations_and_shared_limits():
    check_vmap(limited, np.array([[1.0, 2.0], [30.0, 40.0], [200.0, 1.0]]))


def test_per_example_gradients_equal_the_loop():
    w = RNG.normal(size=(3, 2))

    def loss_grad(x, y, w):
        with ag.GradientTape() as tape:
            tape.watch(w)
            pred = np.tanh(x @ w)
            loss = np.sum((pred - y) ** 2)
        return tape.gradient(loss, w)

    xs, ys = RNG.normal(size=(7, 3)), RNG.normal(size=(7, 2))
    got = check_vmap(loss_grad, xs, ys, w, in_axes=(0, 0, None))
    assert got.shape == (7, 3, 2)

    def cf_grad(x):
        with ag.GradientTape() as tape:
            tape.watch(x)
            if np.sum(x) > 0:
                y = np.sum(np.sin(x) * x)
            else:
                y = np.sum(x ** 3)
        return tape.gradient(y, x)
    check_vmap(cf_grad, RNG.normal(size=(6, 3)))


def test_gradient_of_a_vmapped_function():
    w = RNG.normal(size=(3, 2))
    xs = RNG.normal(size=(5, 3))
    per_example = ag.vmap(lambda x, w: np.sum(np.tanh(x @ w)), in_axes=(0, None))

    @ag.function
    def grad(xs, w):
        with ag.GradientTape() as tape:
            tape.watch(w)
            loss = np.sum(per_example(xs, w))
        return tape.gradient(loss, w)

    @ag.function
    def reference(xs, w):
        with ag.GradientTape() as tape:
            tape.watch(w)
            loss = np.sum(np.sum(np.tanh(xs[:, None, :] @ w), axis=(1, 2)))
        return tape.gradient(loss, w)
    np.testing.assert_allclose(grad(xs, w), reference(xs, w), rtol=1e-12)


def test_nested_vmap_and_ag_functions():
    xs = RNG.normal(size=(3, 4, 2))
    inner = ag.vmap(branches)
    outer = ag.vmap(inner)
    assert_bitwise(outer(xs), np.stack([[ag.function(branches)(x) for x in row] for row in xs]),
                   "nested vmap")
    f = ag.function(halving)
    check_vmap(f, PROGRAMS["halving"][1])

    @ag.function
    def uses_vmap(xs, scale):
        return ag.vmap(lambda x: branches(x) * scale)(xs)
    assert_bitwise(uses_vmap(xs[0], 2.0), np.stack([branches(x) * 2.0 for x in xs[0]]),
                   "vmap inside ag.function")


def test_axes_and_vectorized_map():
    xs = RNG.normal(size=(3, 5))
    got = ag.vmap(lambda x: x * 2.0, in_axes=1, out_axes=1)(xs)
    assert_bitwise(got, xs * 2.0, "in_axes=1/out_axes=1")
    got = ag.vectorized_map(lambda e: e["a"] + e["b"], {"a": xs, "b": xs * 3})
    assert_bitwise(got, xs + xs * 3, "vectorized_map of a dict")
    with pytest.raises(ValueError, match="different sizes"):
        ag.vmap(lambda a, b: a + b)(xs, xs[:2])
    with pytest.raises(ValueError, match="no argument is mapped"):
        ag.vmap(lambda a: a, in_axes=None)(xs)


def test_fallback_is_correct_and_noted_once():
    from runtime.transforms import VmapFallbackWarning
    xs = RNG.normal(size=(4, 3, 3)) + 3 * np.eye(3)
    with pytest.warns(VmapFallbackWarning, match="inv"):
        got = ag.vmap(lambda a: np.linalg.inv(a) @ a[0])(xs)
    assert_bitwise(got, np.stack([np.linalg.inv(a) @ a[0] for a in xs]), "fallback")
    check_vmap(lambda a: np.sort(a, axis=-1)[:, ::-1], xs, rules=False)


def test_effects_under_vmap_are_clear_errors():
    v = ag.Variable(np.zeros(3))

    def assigns(x):
        v.assign(x)
        return x

    def prints(x):
        ag.print(x)
        return x

    def reads(x):
        return x + v.value
    for fn in (assigns, prints):
        with pytest.raises(NotImplementedError, match="side effect"):
            ag.vmap(fn)(np.ones((2, 3)))
    check_vmap(reads, np.ones((2, 3)))


def test_eager_mode_is_the_python_loop():
    xs = PROGRAMS["newton_sqrt"][1]
    graph = ag.vmap(newton_sqrt)(xs)
    ag.run_functions_eagerly(True)
    try:
        eager = ag.vmap(newton_sqrt)(xs)
    finally:
        ag.run_functions_eagerly(False)
    for g, e in zip(graph, eager):
        assert_bitwise(g, e, "eager vs graph")


def _with_unmapped(x, w):
    return x @ w, w.sum() * 2.0, np.float64(3.0)


@pytest.mark.parametrize("eager", [False, True])
def test_out_axes_none_returns_an_unmapped_result_once(eager):
    xs, w = RNG.normal(size=(4, 3)), RNG.normal(size=(3, 2))
    ag.run_functions_eagerly(eager)
    try:
        got = ag.vmap(_with_unmapped, in_axes=(0, None), out_axes=(0, None, None))(xs, w)
        with pytest.raises(ValueError, match="out_axes=None for result 0"):
            ag.vmap(_with_unmapped, in_axes=(0, None), out_axes=None)(xs, w)
    finally:
        ag.run_functions_eagerly(False)
    per_example = [_with_unmapped(x, w) for x in xs]
    assert_bitwise(got[0], np.stack([p[0] for p in per_example]), "mapped result")
    for k in (1, 2):
        assert np.shape(got[k]) == () and got[k] == per_example[0][k], k


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_vmapped_control_flow_saves_and_loads(name, tmp_path):
    fn, xs = PROGRAMS[name]
    vmapped = ag.vmap(fn)
    expected = vmapped(xs)
    ag.save(vmapped, tmp_path / "vmapped.agz")
    loaded = ag.load(tmp_path / "vmapped.agz")
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the discarded examples stay quiet after loading
        got = loaded(xs)
    for g, e in zip(*(v if isinstance(v, tuple) else (v,) for v in (got, expected))):
        assert_bitwise(g, e, f"{name} loaded")


def test_a_vmapped_op_run_as_a_loop_saves_and_loads(tmp_path):
    xs = RNG.normal(size=(4, 3, 3)) + 3 * np.eye(3)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        vmapped = ag.vmap(lambda a: np.linalg.inv(a) @ a[0])
        expected = vmapped(xs)
    ag.save(vmapped, tmp_path / "inv.agz")
    assert_bitwise(ag.load(tmp_path / "inv.agz")(xs), expected, "loop op loaded")


def _inv_times(a, b):
    return np.linalg.inv(a) @ b


def test_gradient_through_an_op_run_per_example_equals_per_example_gradients():
    a_s = RNG.normal(size=(4, 3, 3)) + 3 * np.eye(3)
    b = RNG.normal(size=(3,))

    @ag.function
    def batched_grads(a_s, b):
        with ag.GradientTape() as tape:
            tape.watch(a_s)
            tape.watch(b)
            loss = np.sum(np.tanh(ag.vmap(_inv_times, in_axes=(0, None))(a_s, b)))
        return tape.gradient(loss, [a_s, b])

    @ag.function
    def one_grad(a, b):
        with ag.GradientTape() as tape:
            tape.watch(a)
            tape.watch(b)
            loss = np.sum(np.tanh(_inv_times(a, b)))
        return tape.gradient(loss, [a, b])

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # (inv runs as a loop: its one-time note)
        ga, gb = batched_grads(a_s, b)
    per_example = [one_grad(a, b) for a in a_s]
    np.testing.assert_allclose(ga, np.stack([g[0] for g in per_example]), rtol=1e-12)
    np.testing.assert_allclose(gb, np.sum([g[1] for g in per_example], axis=0), rtol=1e-12)
    eps = 1e-6  # and against finite differences of the batched loss
    bump = np.zeros_like(a_s)
    bump[2, 1, 0] = eps

    def loss(x):
        return np.sum(np.tanh(np.stack([_inv_times(a, b) for a in x])))
    assert abs((loss(a_s + bump) - loss(a_s - bump)) / (2 * eps) - ga[2, 1, 0]) < 1e-6


def _int_steps(x):
    n = 1
    k = 0
    while x > 0.5:
        x = x / 2.0
        n = n * 3 + k  # Python ints: exact, or OverflowError beyond int64
        k += 1
    return n, k, x


def test_python_int_arithmetic_is_batched_exactly_and_checked_per_example():
    xs = np.array([0.1, 3.0, 40.0, 1e6, 2.0])
    check_vmap(_int_steps, xs)
    got = ag.vmap(_int_steps)(xs)
    assert got[0].dtype == np.int64 and got[1].dtype == np.int64
    with pytest.raises(OverflowError, match="does not fit int64"):  # 3**45 > 2**63
        ag.vmap(_int_steps)(np.array([1.0, 2.0 ** 45]))
    with pytest.raises(OverflowError):  # as the loop of calls raises for that example
        loop_of_calls(_int_steps, (np.array([1.0, 2.0 ** 45]),))


def _counter_near_the_limit(x):
    if x > 4.0:  # Python ints: exact, or OverflowError beyond int64
        n = 2 ** 63 - 10
    else:
        n = 2 ** 63 - 2
    while x > 0.5:
        x = x / 2.0
        n += 1
    return n


def test_a_batched_counter_is_checked_per_example_at_the_int64_limit():
    # 0.6 stops at 2**63 - 1 after one step while 9.0 runs five: the loop's `+ 1` of the
    # stopped example wraps, and is discarded, as no call makes it
    check_vmap(_counter_near_the_limit, np.array([0.6, 9.0, 0.1]))
    xs = np.array([0.6, 9.0, 3.0])  # 3.0 takes three steps from 2**63 - 2: out of int64
    with pytest.raises(OverflowError, match="does not fit int64"):
        ag.vmap(_counter_near_the_limit)(xs)
    with pytest.raises(OverflowError):
        loop_of_calls(_counter_near_the_limit, (xs,))
