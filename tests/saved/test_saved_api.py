"""ag.save / ag.load in one process: signatures, checks and error messages as the original,
.graph / .optimized_graph / .python_code / .variables, both container forms, and the
errors for what cannot be saved."""
from __future__ import annotations

import collections

import numpy as np
import pytest

import autograph as ag
from runtime.saved import SaveError


def _error(fn, *args, **kwargs):
    with pytest.raises(Exception) as info:
        fn(*args, **kwargs)
    return type(info.value), str(info.value)


def _unqualified(error, fn):
    kind, message = error
    return kind, message.replace(fn.python_function.__qualname__ + "()", fn.__name__ + "()")


@pytest.mark.parametrize("where", ["f.agz", "f_dir"])
def test_loaded_function_has_the_graphs_code_and_variables(tmp_path, where):
    w = ag.Variable(np.array([1.0, 2.0], np.float32), name="w")

    @ag.function
    def f(x):
        w.assign_add(x)
        return np.sum(w * x)

    x = np.array([0.5, 0.25], np.float32)
    f.get_concrete_function(x)
    ag.save(f, tmp_path / where)
    loaded = ag.load(tmp_path / where)
    cf = f.get_concrete_function(x)
    assert str(loaded.graph) == str(cf.graph)
    assert str(loaded.optimized_graph) == str(cf.optimized_graph)
    assert loaded.python_code == cf.python_code
    assert [v.name for v in loaded.variables] == ["w"]
    np.testing.assert_array_equal(loaded.variables[0].numpy(), w.numpy())
    assert loaded.variables[0] is not w
    assert loaded(x) == f(x)
    np.testing.assert_array_equal(loaded.variables[0].numpy(), w.numpy())
    assert loaded.pretty_printed_concrete_signatures() == f.pretty_printed_concrete_signatures()


def test_input_signature_checks_and_messages_are_the_originals(tmp_path):
    @ag.function(input_signature=[ag.TensorSpec((None, 2), np.float32)])
    def f(x):
        return x * 2

    f.get_concrete_function()
    ag.save(f, tmp_path / "f.agz")
    loaded = ag.load(tmp_path / "f.agz")
    good = np.ones((3, 2), np.float32)
    np.testing.assert_array_equal(loaded(good), f(good))
    for bad in (np.ones((3, 3), np.float32), np.ones((3, 2), np.int32), [[1.0, 2.0, 3.0]]):
        assert _error(loaded, bad) == _error(f, bad)
    # Python names the function by its qualified name; a saved graph keeps its name only
    assert _error(loaded, good, good) == _unqualified(_error(f, good, good), f)
    assert _error(loaded, y=good) == _unqualified(_error(f, y=good), f)


def test_keywords_defaults_and_python_values_bind_as_in_the_original(tmp_path):
    @ag.function
    def f(x, scale=2.0, *, mode="add"):
        return x + scale if mode == "add" else x * scale

    x = np.ones(3)
    f(x)
    f(x, mode="mul")
    ag.save(f, tmp_path / "f.agz")
    loaded = ag.load(tmp_path / "f.agz")
    np.testing.assert_array_equal(loaded(x), f(x))
    np.testing.assert_array_equal(loaded(x, mode="mul"), f(x, mode="mul"))
    np.testing.assert_array_equal(loaded(scale=2.0, x=x), f(x))
    assert _error(loaded, x, 1, 2)[0] is TypeError
    with pytest.raises(TypeError, match="saved for:\n  f\\(x: float64\\[3\\]"):
        loaded(x, mode="other")


def test_a_concrete_function_saves_alone(tmp_path):
    @ag.function
    def f(x):
        return np.sqrt(x), x.shape

    a, b = np.ones(2), np.ones((2, 2), np.float32)
    f(a), f(b)
    ag.save(f.get_concrete_function(b), tmp_path / "f.agz")
    loaded = ag.load(tmp_path / "f.agz")
    assert loaded.tracing_count == 1
    got, want = loaded(b), f(b)
    np.testing.assert_array_equal(got[0], want[0])
    assert got[1] == want[1]
    with pytest.raises(TypeError, match="saved graph"):
        loaded(a)


def test_what_cannot_be_saved_is_named():
    Pair = collections.namedtuple("Pair", "a b")

    @ag.function
    def pair(x):
        return Pair(x, x + 1)

    pair(np.ones(2))
    with pytest.raises(SaveError, match="namedtuple"):
        ag.save(pair, "unused.agz")

    @ag.function
    def untraced(x):
        return x

    with pytest.raises(TypeError, match="not been traced"):
        ag.save(untraced, "unused.agz")
    with pytest.raises(TypeError, match="ag.function or a ConcreteFunction"):
        ag.save(len, "unused.agz")


def test_missing_path_is_file_not_found(tmp_path):
    with pytest.raises(FileNotFoundError):
        ag.load(tmp_path / "nothing.agz")


def checked_sqrt(x):
    if x < 0:
        raise ValueError("x must be non-negative", 3)
    print("sqrt of", x, [x, 2])
    return np.sqrt(x)


class Negative(Exception):
    pass


def custom_raise(x):
    if x < 0:
        raise Negative("no")
    return x


def test_graph_print_and_raise_survive_a_round_trip(tmp_path, capsys):
    f = ag.function(checked_sqrt)
    f(np.float64(4.0))
    ag.save(f, tmp_path / "f.agz")
    loaded = ag.load(tmp_path / "f.agz")
    capsys.readouterr()
    assert loaded(np.float64(9.0)) == checked_sqrt(np.float64(9.0))
    printed = capsys.readouterr().out
    assert printed == "sqrt of 9.0 [np.float64(9.0), 2]\n" * 2
    with pytest.raises(ValueError) as info:
        loaded(np.float64(-1.0))
    assert info.value.args == ("x must be non-negative", 3)


def test_a_user_exception_class_cannot_be_saved(tmp_path):
    f = ag.function(custom_raise)
    f(np.float64(1.0))
    with pytest.raises(SaveError, match="exception class .*Negative"):
        ag.save(f, tmp_path / "f.agz")


def linalg_fft_and_statistics(a):
    u, s, vh = np.linalg.svd(a)
    spectrum = np.fft.rfft(a[0], norm="ortho")
    counts, edges = np.histogram(a, bins=3, range=(-2.0, 2.0))
    return (s.sum() + np.abs(spectrum).sum() + np.median(a) + np.linalg.norm(a, ord=1),
            np.linalg.cholesky(a @ a.T + 4 * np.eye(4)), counts, edges)


def test_ops_named_after_numpy_submodules_round_trip(tmp_path):
    f = ag.function(linalg_fft_and_statistics)
    a = np.random.default_rng(0).normal(size=(4, 4))
    f(a)
    ag.save(f, tmp_path / "f.agz")
    loaded = ag.load(tmp_path / "f.agz")
    for got, want in zip(loaded(a), linalg_fft_and_statistics(a)):
        assert got.dtype == want.dtype and got.shape == want.shape
        np.testing.assert_array_equal(got, want)
