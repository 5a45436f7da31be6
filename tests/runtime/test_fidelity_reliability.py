"""Reliability: caches do not keep user objects alive; Variable updates are atomic and
keep the Variable's shape, eagerly as in graphs."""
import gc
import threading
import weakref

import numpy as np
import pytest

import autograph as ag

pytestmark = pytest.mark.filterwarnings("ignore::runtime.frontend.function.RetracingWarning")


def _closure(i):
    big = np.full(1 << 20, float(i))  # 8 MB

    def f(x):
        return x + big[0]
    return f, weakref.ref(big)


def _all_freed(refs) -> bool:
    gc.collect()
    return all(r() is None for r in refs)


@pytest.mark.parametrize("how", ["function", "to_graph", "to_code", "called_from_converted"])
def test_converted_closures_are_freed(how):
    @ag.function
    def outer(x, g):
        return g(x)

    refs, results = [], []
    for i in range(20):
        f, ref = _closure(i)
        refs.append(ref)
        x = np.ones(2)
        if how == "function":
            results.append(ag.function(f)(x))
        elif how == "to_graph":
            results.append(ag.to_graph(f)(x))
        elif how == "to_code":
            ag.to_code(f)
        else:
            results.append(outer(x, f))
        assert all(np.array_equal(r, f(x)) for r in results[-1:])
        del f
    assert _all_freed(refs)


def test_conversion_is_still_cached_per_function():
    f, _ = _closure(0)
    assert ag.to_graph(f) is ag.to_graph(f)
    def wrapper(x):
        return f(x) * 2
    wrapper.__dict__.update(f.__dict__)  # what functools.wraps does with the cache entry
    assert ag.to_graph(wrapper) is not ag.to_graph(f)
    assert ag.to_graph(wrapper)(np.ones(1)) == 2 * f(np.ones(1))


class Model:
    def __init__(self, scale):
        self.scale = np.full(1 << 20, scale)

    @ag.function
    def __call__(self, x):
        return x * self.scale[0]


def test_self_and_object_arguments_are_freed_with_their_traces():
    refs = []
    for i in range(6):
        m = Model(float(i))
        refs.append(weakref.ref(m))
        with pytest.warns(ag.RetracingWarning) if i == 4 else _nothing():
            np.testing.assert_array_equal(m(np.ones(2)), np.ones(2) * i)
        del m
    assert _all_freed(refs)
    assert Model.__call__.concrete_functions == []  # traces keyed on dead objects dropped


class _nothing:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


def test_live_object_keeps_its_trace():
    m = Model(2.0)
    m(np.ones(2))
    count = Model.__call__.tracing_count
    gc.collect()
    m(np.ones(2))
    assert Model.__call__.tracing_count == count  # the cache hit survives a collection
    other = Model(3.0)
    np.testing.assert_array_equal(other(np.ones(2)), np.full(2, 3.0))
    assert Model.__call__.tracing_count == count + 1


def test_dead_key_never_matches_a_new_object_at_the_same_address():
    @ag.function
    def f(obj, x):
        return x + obj.value

    class Box:
        def __init__(self, v):
            self.value = v
    for v in range(30):  # ids are reused quickly; each new box must see its own value
        assert f(Box(float(v)), np.zeros(1))[0] == v


def _hammer(fn, threads=8, n=5000):
    ts = [threading.Thread(target=lambda: [fn() for _ in range(n)]) for _ in range(threads)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    return threads * n


def test_eager_assign_add_from_threads_loses_no_update():
    v = ag.Variable(np.int64(0))
    total = _hammer(lambda: v.assign_add(1))
    assert v.numpy() == total


def test_graph_assign_add_from_threads_loses_no_update():
    v = ag.Variable(np.zeros(3))

    @ag.function
    def step(d):
        v.assign_add(d)
        v.assign_sub(d * 0.5)
    d = np.ones(3)
    total = _hammer(lambda: step(d))
    np.testing.assert_array_equal(v.numpy(), np.full(3, total * 0.5))


@pytest.mark.parametrize("mode", ["eager", "graph"])
@pytest.mark.parametrize("value", [np.ones(3), np.ones((1, 2)), np.ones((2, 2, 2))])
def test_assign_of_a_new_shape_raises_in_both_modes(mode, value):
    v = ag.Variable(np.zeros(2))

    def fn(x):
        v.assign(x)
    call = fn if mode == "eager" else ag.function(fn)
    with pytest.raises(ValueError, match="Cannot assign a value of shape"):
        call(value)
    with pytest.raises(ValueError):
        (lambda x: v.assign_add(x))(value) if mode == "eager" else \
            ag.function(lambda x: v.assign_add(x))(value)
    assert v.shape == (2,)


@pytest.mark.parametrize("mode", ["eager", "graph"])
def test_broadcast_assign_keeps_the_variable_shape(mode):
    v = ag.Variable(np.zeros((2, 3)))

    def fn(x, y):
        v.assign(x)
        v.assign_add(y)
    call = fn if mode == "eager" else ag.function(fn)
    call(np.float64(2.0), np.arange(3.0))
    np.testing.assert_array_equal(v.numpy(), np.full((2, 3), 2.0) + np.arange(3.0))
    assert v.shape == (2, 3)
