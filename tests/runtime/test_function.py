"""Tracing rules of Function (DESIGN §3): cache keys, signatures, retracing, threads."""
import itertools
import threading
import warnings

import numpy as np
import pytest

import autograph as ag
import runtime
from tests.helpers import assert_same


def make_relu():
    def my_relu(x):
        return np.maximum(0.0, x)
    return ag.function(my_relu, autograph=False)


def test_seed_my_relu_traces_three_times_then_reuses():
    f = make_relu()
    f(np.float32(5.5))
    f([1.0, -1.0])
    f(np.array([3.0, -3.0], np.float32))
    assert f.tracing_count == 3
    f(np.float32(-2.5))
    f([1.0, -1.0])
    f(np.array([-1.0, 7.0], np.float32))
    assert f.tracing_count == 3
    sigs = f.pretty_printed_concrete_signatures().split("\n\n")
    assert len(sigs) == 3
    assert all(s.startswith("my_relu(") for s in sigs)
    assert sigs[0] == "my_relu(x: float32[]) -> float32[]"
    assert sigs[2] == "my_relu(x: float32[2]) -> float32[2]"


def test_python_scalars_retrace_per_value_arrays_do_not():
    f = ag.function(lambda x, n: x * n, autograph=False)
    x = np.ones(3, np.float32)
    for n in (1, 2, 3):
        assert_same(f(x, n), x * n)
    assert f.tracing_count == 3
    for v in (np.arange(3, dtype=np.float32), np.full(3, 7, np.float32)):
        assert_same(f(v, 1), v * 1)
    assert f.tracing_count == 3
    f(np.ones(4, np.float32), 1)          # new shape
    with pytest.warns(ag.RetracingWarning):  # the 5th trace within 10 calls
        f(np.ones(3, np.float64), 1)      # new dtype
    assert f.tracing_count == 5
    f(x, 1.0)                             # 1.0 is not 1: a float key
    assert f.tracing_count == 6


def test_nested_structures_key_by_structure_and_leaves():
    def fn(d, pair):
        return {"s": d["a"] + d["b"], "p": pair[0] * pair[1]}
    f = ag.function(fn, autograph=False)
    a, b = np.ones(2), np.arange(2.0)
    assert_same(f({"a": a, "b": b}, (a, 3)), fn({"a": a, "b": b}, (a, 3)))
    f({"a": b, "b": a}, (b, 3))
    assert f.tracing_count == 1
    f({"a": a, "b": b}, [a, 3])          # list, not tuple
    f({"a": a, "b": b}, (a, 4))
    assert f.tracing_count == 3


def test_keyword_arguments_and_defaults_share_traces():
    def fn(x, scale=2.0, *, shift=1.0):
        return x * scale + shift
    f = ag.function(fn, autograph=False)
    x = np.arange(3.0)
    assert_same(f(x), fn(x))
    assert_same(f(x, 2.0), fn(x))
    assert_same(f(x=x, shift=1.0), fn(x))
    assert f.tracing_count == 1
    assert_same(f(x, shift=5.0), fn(x, shift=5.0))
    assert f.tracing_count == 2
    with pytest.raises(TypeError, match="fn"):
        f(x, nonsense=1)


def test_input_signature_traces_once_and_rejects_incompatible_inputs():
    f = ag.function(lambda x: x * 2, input_signature=[ag.TensorSpec((None,), np.float32)],
                    autograph=False)
    for n in (1, 3, 10):
        assert_same(f(np.ones(n, np.float32)), np.full(n, 2, np.float32))
    assert f.tracing_count == 1
    with pytest.raises(TypeError, match="'x'.*float64.*float32"):
        f(np.ones(3))
    with pytest.raises(ValueError, match="'x'.*shape \\(2, 2\\)"):
        f(np.ones((2, 2), np.float32))
    assert f.tracing_count == 1
    assert f.pretty_printed_concrete_signatures() == "_lambda_(x: float32[?]) -> float32[?]" \
        or "float32[?]" in f.pretty_printed_concrete_signatures()


def test_reduce_retracing_relaxes_changing_dimension():
    f = ag.function(lambda x: x.sum(axis=0), reduce_retracing=True, autograph=False)
    for n in (2, 3, 4, 5, 6):
        x = np.arange(n * 2, dtype=np.float32).reshape(n, 2)
        assert_same(f(x), x.sum(axis=0))
    assert f.tracing_count == 2
    assert f.concrete_functions[-1].graph.inputs[0].shape == (None, 2)


def test_get_concrete_function_with_specs_and_arrays():
    f = ag.function(lambda x: x + 1, autograph=False)
    cf = f.get_concrete_function(ag.TensorSpec((None, 3), np.float32))
    assert cf.graph.inputs[0].shape == (None, 3)
    assert_same(cf(np.zeros((4, 3), np.float32)), np.ones((4, 3), np.float32))
    with pytest.raises(TypeError, match="do not match"):
        cf(np.zeros((4, 2), np.float32))
    assert f.get_concrete_function(np.zeros((5, 3), np.float32)) is cf
    assert f.tracing_count == 1
    f(np.zeros((2, 3), np.float32))
    assert f.tracing_count == 1


def test_retracing_warning_names_the_changing_argument():
    f = ag.function(lambda x, n: x + n, autograph=False)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for n in range(6):
            f(np.ones(2), n)
    hits = [w for w in caught if issubclass(w.category, ag.RetracingWarning)]
    assert len(hits) == 1
    assert "'n'" in str(hits[0].message)


def test_no_retracing_warning_for_occasional_traces():
    f = ag.function(lambda x, n: x + n, autograph=False)
    with warnings.catch_warnings():
        warnings.simplefilter("error", ag.RetracingWarning)
        for n in range(4):
            for _ in range(3):
                f(np.ones(2), n)


def test_methods_key_self_by_identity():
    class Scale:
        def __init__(self, k):
            self.k = k

        @ag.function(autograph=False)
        def apply(self, x):
            return x * self.k

    a, b = Scale(2.0), Scale(3.0)
    x = np.ones(2)
    assert_same(a.apply(x), x * 2.0)
    assert_same(b.apply(x), x * 3.0)
    assert_same(a.apply(x), x * 2.0)
    assert Scale.apply.tracing_count == 2


def test_concurrent_callers_trace_once_and_get_correct_results():
    calls = itertools.count()  # not a list: appends to a list would be replayed per call

    def slow(x):
        next(calls)
        return x * 2 + 1

    f = ag.function(slow, autograph=False)
    results = [None] * 8
    barrier = threading.Barrier(8)

    def worker(i):
        barrier.wait()
        results[i] = f(np.full(4, i, np.float32))

    threads = [threading.Thread(target=worker, args=(i,)) for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert f.tracing_count == 1 and next(calls) == 1
    for i, r in enumerate(results):
        assert_same(r, np.full(4, i * 2 + 1, np.float32))


def test_run_functions_eagerly_runs_python():
    seen = []

    def fn(x):
        seen.append(type(x))
        return x + 1

    f = ag.function(fn, autograph=False)
    ag.run_functions_eagerly(True)
    try:
        assert ag.functions_run_eagerly()
        assert_same(f(np.ones(2)), np.full(2, 2.0))
        assert seen == [np.ndarray] and f.tracing_count == 0
    finally:
        ag.run_functions_eagerly(False)
    assert not ag.functions_run_eagerly()
    f(np.ones(2))
    assert seen[-1] is runtime.Tensor


def test_function_called_while_tracing_is_inlined():
    inner = ag.function(lambda x: x * 2, autograph=False)
    outer = ag.function(lambda x: inner(x) + 1, autograph=False)
    assert_same(outer(np.ones(2)), np.full(2, 3.0))
    assert inner.tracing_count == 0


def test_returned_constant_array_is_not_shared_between_calls():
    f = ag.function(lambda x: (x, np.zeros(2)), autograph=False)
    first = f(np.ones(1))[1]
    first += 5
    assert_same(f(np.ones(1))[1], np.zeros(2))


def test_random_while_tracing_warns():
    f = ag.function(lambda x: x + np.random.rand(), autograph=False)
    with pytest.warns(UserWarning, match="np.random"):
        f(np.ones(2))


def test_input_signature_may_leave_defaulted_arguments_out():
    def s(x, scale=2.0):
        return x * scale
    f = ag.function(s, input_signature=[ag.TensorSpec((None,), np.float32)], autograph=False)
    assert_same(f(np.ones(3, np.float32)), np.full(3, 2, np.float32))
    assert_same(f(np.ones(2, np.float32), 2.0), np.full(2, 2, np.float32))
    # a Python value after the signature is part of the cache key, by value
    assert_same(f(np.ones(2, np.float32), 3.0), s(np.ones(2, np.float32), 3.0))
    assert f.tracing_count == 2


def test_warnings_point_at_the_callers_line():
    f = ag.function(lambda x, n: x + n, autograph=False)
    with pytest.warns(ag.RetracingWarning) as record:
        for n in range(6):
            f(np.ones(2), n)
    assert record[0].filename == __file__
    g = ag.function(lambda x: x + np.random.rand(), autograph=False)
    with pytest.warns(UserWarning, match="np.random") as record:
        g(np.ones(2))
    assert record[0].filename == __file__


def test_namedtuple_arguments_relax_under_reduce_retracing():
    import collections

    Pair = collections.namedtuple("Pair", "a b")
    f = ag.function(lambda p: p.a * p.b, autograph=False, reduce_retracing=True)
    for n in (2, 3, 4):
        assert_same(f(Pair(np.ones(n), np.full(n, 2.0))), np.full(n, 2.0))
    assert f.tracing_count == 2
    assert "Pair(a: float64[?], b: float64[?])" in f.pretty_printed_concrete_signatures()
