"""Random draws while tracing are frozen into the graph: every way of drawing warns."""
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


def test_generator_in_a_helper_function_is_noticed_through_converted_calls():
    expect_frozen_warning(ag.function(uses_helper), np.ones(3), r"Generator\.normal")


@pytest.mark.parametrize("autograph", [True, False])
def test_generator_attribute_of_a_method_owner(autograph):
    layer = Layer(np.random.default_rng(1))
    expect_frozen_warning(ag.function(layer.__call__, autograph=autograph), np.ones(3),
                          "random")


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


@pytest.mark.parametrize("autograph", [True, False])
def test_generator_given_as_a_default(autograph):
    expect_frozen_warning(ag.function(draws_from_a_default, autograph=autograph),
                          np.ones(2), "random")


def test_spawning_draws_nothing_and_each_generator_is_named_once():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        ag.function(spawns_only)(np.ones(2))
    with pytest.warns(UserWarning) as record:  # seen called and seen changed: named once
        ag.function(noisy_helper)(np.zeros(2))
    text = str(record[0].message)
    assert text.startswith("Generator.normal drew random numbers") and "`RNG`" not in text
