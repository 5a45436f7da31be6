"""Random draws the tracer cannot see (autograph=False, unconverted code) are frozen into
the graph: every such way of drawing warns. Converted code draws on every call
(tests/autograph/test_random_draws.py)."""
import subprocess
import sys
import warnings

import numpy as np
import pytest

import autograph as ag

RNG = np.random.default_rng(0)


def noisy_helper(x):
    return x + RNG.normal()  # reached only through a call: converted code reports it


def uses_helper(x):
    return noisy_helper(x) * 2


class Layer:
    def __init__(self, rng):
        self.rng = rng

    def __call__(self, x):
        return x * self.rng.uniform()


def expect_frozen_warning(f, x, match):
    with pytest.warns(UserWarning, match=match) as record:
        first = f(x)
    assert "frozen into the graph" in str(record[0].message)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a cached call neither traces nor warns
        np.testing.assert_array_equal(f(x), first)  # and reuses the frozen draw


def expect_live_draws(f, eager, x, generator):
    """Converted code: no warning, and each call draws what eager NumPy draws next."""
    state = generator.bit_generator.state
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        got = [f(x) for _ in range(3)]
    generator.bit_generator.state = state
    want = [eager(x) for _ in range(3)]
    for g, w in zip(got, want):
        np.testing.assert_array_equal(g, w)
    assert not np.array_equal(got[0], got[1])


def test_generator_in_a_helper_function_draws_on_every_call():
    expect_live_draws(ag.function(uses_helper), uses_helper, np.ones(3), RNG)


def test_generator_attribute_of_a_method_owner():
    layer = Layer(np.random.default_rng(1))
    expect_live_draws(ag.function(layer.__call__), layer.__call__, np.ones(3), layer.rng)
    expect_frozen_warning(ag.function(Layer(np.random.default_rng(1)).__call__,
                                      autograph=False), np.ones(3), "random")


def test_the_warning_says_what_happens_and_what_to_do():
    f = ag.function(lambda x: x + np.random.uniform(), autograph=False)
    with pytest.warns(UserWarning) as record:
        f(np.ones(2))
    text = str(record[0].message)
    assert "autograph=False" in text and "frozen into the graph" in text
    assert "pass the numbers in" in text


@pytest.mark.parametrize("make", [
    lambda: np.random.RandomState(0),
    lambda: np.random.Generator(np.random.MT19937(0)),  # its state holds an array
])
def test_closure_generators_of_other_kinds(make):
    rng = make()
    f = ag.function(lambda x: x + rng.standard_normal(), autograph=False)
    expect_frozen_warning(f, np.ones(2), r"`rng`")


def test_legacy_global_generator_still_warns():
    f = ag.function(lambda x: x + np.random.uniform(), autograph=False)
    expect_frozen_warning(f, np.ones(2), "np.random")


def test_a_generator_that_is_only_reachable_does_not_warn():
    rng = np.random.default_rng(2)

    def fn(x, draw=False):
        return x + rng.normal() if draw else x * 2
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        np.testing.assert_array_equal(ag.function(fn)(np.ones(2)), np.full(2, 2.0))


def draws_from_a_default(x, rng=np.random.default_rng(3)):  # noqa: B008 - on purpose
    return x + rng.normal()


def spawns_only(x):
    RNG.spawn(1)
    return x * 2


def raw_bits(x):
    return x + RNG.bit_generator.random_raw()  # a bit generator's method: not routed


def test_generator_given_as_a_default():
    expect_frozen_warning(ag.function(draws_from_a_default, autograph=False), np.ones(2),
                          "random")
    rng = draws_from_a_default.__defaults__[0]
    expect_live_draws(ag.function(draws_from_a_default), draws_from_a_default, np.ones(2), rng)


def test_spawning_draws_nothing_and_each_generator_is_named_once():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        ag.function(spawns_only, autograph=False)(np.ones(2))
    with pytest.raises(TypeError, match=r"Generator.spawn\(\) inside a traced function"):
        ag.function(spawns_only)(np.ones(2))  # converted: each eager call spawns anew
    with pytest.warns(UserWarning) as record:  # seen called and seen changed: named once
        ag.function(raw_bits)(np.zeros(2))
    text = str(record[0].message)
    assert text.startswith("PCG64.random_raw drew random numbers") and "`RNG`" not in text


SHUFFLE_UNCONVERTED = """
import numpy as np, autograph as ag
def f(x):
    {shuffle}(x)
    return x
try:
    ag.function(f, autograph=False)(np.arange(8).reshape(4, 2))
except UserWarning as e:
    print("refused:", e)
"""


@pytest.mark.parametrize("shuffle", ["np.random.shuffle", "np.random.default_rng(0).shuffle"])
def test_shuffling_a_symbolic_array_unconverted_is_an_error_not_duplicated_rows(shuffle):
    # run as a user runs it: pytest replaces the warning filters the runtime sets
    done = subprocess.run([sys.executable, "-c", SHUFFLE_UNCONVERTED.format(shuffle=shuffle)],
                          capture_output=True, text=True, timeout=120, check=True)
    assert done.stdout.startswith("refused: you are shuffling a 'Tensor' object"), done.stdout
