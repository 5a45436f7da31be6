"""Side effects (DESIGN §3): Python print only while tracing, ag.print and Variables always."""
import numpy as np
import pytest

import autograph as ag
from tests.helpers import assert_same


def get_mse(y_true, y_pred):
    print("Calculating MSE!")
    sq_diff = np.square(y_true - y_pred)
    return np.mean(sq_diff)


def test_seed_mse_prints_once_in_graph_three_times_eagerly(capsys):
    y_true = np.array([3, 1, 4, 1, 5], np.int32)
    y_pred = np.array([2, 7, 1, 8, 2], np.int32)
    f = ag.function(get_mse, autograph=False)
    results = [f(y_true, y_pred) for _ in range(3)]
    assert capsys.readouterr().out.count("Calculating MSE!") == 1
    for r in results:
        assert_same(r, get_mse(y_true, y_pred))
    capsys.readouterr()
    ag.run_functions_eagerly(True)
    try:
        for _ in range(3):
            f(y_true, y_pred)
    finally:
        ag.run_functions_eagerly(False)
    assert capsys.readouterr().out.count("Calculating MSE!") == 3


def test_ag_print_runs_every_call_in_program_order(capsys):
    def fn(x):
        ag.print("first", x)
        y = x * 2
        ag.print("second", y, sep="|", end="!\n")
        return y
    f = ag.function(fn, autograph=False)
    f(np.arange(2))
    f(np.arange(2))
    out = capsys.readouterr().out
    assert out == "first [0 1]\nsecond|[0 2]!\n" * 2


def test_unused_print_is_kept_and_unused_failing_op_is_not_run():
    def fn(x, idx):
        np.take(x, idx)            # would raise IndexError: unused, never runs
        ag.print("kept")
        return x + 1
    f = ag.function(fn, autograph=False)
    assert_same(f(np.arange(3), np.array(10)), np.arange(3) + 1)
    with pytest.raises(IndexError):
        np.take(np.arange(3), np.array(10))


def test_variables_read_and_update_in_program_order():
    v = ag.Variable(np.zeros(3, np.float32), name="acc")

    def step(x):
        before = v.read_value()
        v.assign_add(x)
        middle = v.value * 1
        v.assign_sub(np.ones(3, np.float32))
        v.assign(v * 2)
        return before, middle, v.value
    f = ag.function(step, autograph=False)
    x = np.arange(3, dtype=np.float32)
    ref = ag.Variable(np.zeros(3, np.float32))
    for _ in range(3):
        got = f(x)
        expected_before = ref.numpy()
        ref.assign_add(x)
        expected_middle = ref.numpy()
        ref.assign_sub(np.ones(3, np.float32))
        ref.assign(ref * 2)
        assert_same(got, (expected_before, expected_middle, ref.numpy()))
    assert_same(v.numpy(), ref.numpy())
    assert f.tracing_count == 1


def test_variable_numpy_protocols_and_properties():
    v = ag.Variable([[1.0, 2.0]], dtype=np.float32)
    assert v.shape == (1, 2) and v.dtype == np.float32
    assert_same(np.asarray(v), np.array([[1.0, 2.0]], np.float32))
    assert_same(v + 1, np.array([[2.0, 3.0]], np.float32))
    assert_same(np.sum(v), np.float32(3.0))
    assert_same(v[0, 1], np.float32(2.0))


def test_creating_variable_while_tracing_is_an_error():
    def fn(x):
        ag.Variable(x)
        return x
    with pytest.raises(ValueError, match="created outside"):
        ag.function(fn, autograph=False)(np.ones(2))


def test_variables_as_arguments_are_keyed_by_identity():
    f = ag.function(lambda v, x: v.value + x, autograph=False)
    a, b = ag.Variable(np.ones(2)), ag.Variable(np.full(2, 5.0))
    assert_same(f(a, np.ones(2)), np.full(2, 2.0))
    assert_same(f(b, np.ones(2)), np.full(2, 6.0))
    assert f.tracing_count == 2
    a.assign(np.full(2, 3.0))
    assert_same(f(a, np.ones(2)), np.full(2, 4.0))
    assert f.tracing_count == 2


def test_assign_shape_mismatch_names_the_variable():
    v = ag.Variable(np.zeros(3), name="weights")
    f = ag.function(lambda x: v.assign(x), autograph=False)
    with pytest.raises(ValueError, match="weights"):
        f(np.zeros(4))


def test_read_before_assign_keeps_old_value_even_when_returned():
    v = ag.Variable(np.array([1.0, 2.0]))

    def fn():
        old = v.read_value()
        v.assign(np.zeros(2))
        return old
    f = ag.function(fn, autograph=False)
    assert_same(f(), np.array([1.0, 2.0]))
    assert_same(f(), np.zeros(2))
