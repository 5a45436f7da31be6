"""`x.strides` and `np.lib.stride_tricks.as_strided` on symbolic arrays (runtime/ops/strided.py):
eager NumPy vs `ag.function` vs `jit_compile=True` on arguments laid out in C order, F
order and as non-contiguous slices; clear refusals where the graph does not know a
layout; writes refused as NumPy refuses them; gradients against central differences."""
from __future__ import annotations

import warnings

import numpy as np
import pytest

import autograph as ag
from tests.helpers import assert_same
from tests.runtime.gradcheck import numeric_grads

ast = np.lib.stride_tricks.as_strided


def _outcome(fn, args):
    args = [a.copy(order="K") if isinstance(a, np.ndarray) else a for a in args]
    try:
        return fn(*args), None
    except Exception as e:  # noqa: BLE001 - the same error is the expected outcome
        return None, e


def three_way(fn, *args):
    """Eager, graph and jit give the same results (value, dtype, shape, Python kinds)."""
    want, error = _outcome(fn, args)
    assert error is None, error
    for jit in (False, True):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ag.JitFallbackWarning)
            got, error = _outcome(ag.function(fn, jit_compile=jit), args)
        assert error is None, error
        assert_same(got, want)


def windows(x):
    n, s = x.shape[0], x.strides[0]
    return ast(x, (n - 2, 3), (s, s), writeable=False)


def window_means(x):
    n, s = x.shape[0], x.strides[0]
    return ast(x, (n - 3, 4), (s, s), writeable=False).mean(axis=1)


def blocks(x):
    s0, s1 = x.strides
    b = ast(x, (x.shape[0] // 2, x.shape[1] // 2, 2, 2), (2 * s0, 2 * s1, s0, s1),
            writeable=False)
    return b.sum(axis=(2, 3))


def repeated_row(x):
    return ast(x[0], (4, x.shape[1]), (0, x.strides[1]), writeable=False) * 2.0


def default_strides(x):  # strides=None: the argument's own
    return ast(x, (x.shape[0] - 1,)) + 1


def strides(x):
    return x.strides


def strides_of_intermediates(x):
    y = np.exp(x.T)  # NumPy lays a ufunc's result out as its operand
    z = y[::2, 1:]
    return y.strides, z.strides, (x @ x.T).strides, np.ascontiguousarray(x.T).strides


def strides_after_identity(x):
    y = x * 1  # a rewrite to `x` would hand on x's layout, not the product's
    return y.strides, ast(y, (2,), (y.strides[0],))


def made_while_tracing(x):
    b = np.arange(12.0).reshape(3, 4)  # C-ordered, as eagerly; its transpose is a view
    return ast(b, (2, 2), (8, 8)) * x[0], b.strides, np.zeros((2, 3)).T.strides


C = np.arange(24.0).reshape(4, 6)
F = np.asfortranarray(C)
SLICE = np.arange(48.0).reshape(4, 12)[:, ::2]
VECTORS = [np.arange(7.0), np.arange(14.0)[::2], np.arange(10, dtype=np.int32),
           np.arange(20.0).reshape(4, 5)[:, 1]]

CASES = (
    [(windows, v) for v in VECTORS] + [(window_means, v) for v in VECTORS[:2]]
    + [(blocks, m) for m in (C, F, SLICE)] + [(repeated_row, m) for m in (C, F, SLICE)]
    + [(default_strides, v) for v in VECTORS[:2]]
    + [(strides, a) for a in (C, F, SLICE, np.zeros((0, 3)), np.array(2.5), C[::-1],
                              np.arange(6, dtype=np.int16), C.T[1:])]
    + [(strides_of_intermediates, m) for m in (C, F, SLICE)]
    + [(strides_after_identity, v) for v in VECTORS[:2]]
    + [(made_while_tracing, VECTORS[0])]
)


@pytest.mark.parametrize("k", range(len(CASES)))
def test_strided_idioms_three_ways(k):
    fn, x = CASES[k]
    three_way(fn, x)


def test_zero_size_views():
    three_way(lambda x: ast(x, (0, 3), (8, 8), writeable=False), np.zeros(0))
    three_way(lambda x: (x.strides, ast(x, (2, 0), (x.strides[0], 8))), np.zeros((3, 0)))


def test_one_trace_reads_each_call_s_layout():
    f = ag.function(strides)
    for a in (C, F, SLICE):
        assert f(a) == a.strides
    assert f.tracing_count == 1  # one trace: the strides are read on each call
    g = ag.function(blocks)
    for a in (C, F):
        np.testing.assert_array_equal(g(a), blocks(a))
    assert g.tracing_count == 1


def test_a_returned_view_is_numpy_s_view_of_the_argument():
    x = np.arange(8.0)
    got = ag.function(lambda x: ast(x, (3, 2), (16, 8)))(x)
    assert np.shares_memory(got, x) and got.strides == (16, 8)


def test_writes_are_refused_as_numpy_refuses_them():
    def read_only(x):
        w = ast(x, (2, 2), (8, 8), writeable=False)
        w[0, 0] = 5.0
        return w

    def writeable(x):
        w = ast(x, (2, 2), (8, 8))
        w[0, 0] = 5.0
        return w

    with pytest.raises(ValueError, match="read-only"):
        read_only(np.arange(4.0))
    with pytest.raises(ValueError, match="assignment destination is read-only"):
        ag.function(read_only)(np.arange(4.0))
    with pytest.raises(ValueError, match="as_strided.*not supported in graphs"):
        ag.function(writeable)(np.arange(4.0))


def _copied(x):
    return x.copy().strides


def _written(x):
    x[0] = 1.0
    return ast(x, (2,), (8,))


def _fancy(x):
    return x[[0, 2]].strides


def _branch(x):
    y = x
    if x.sum() > 0:
        y = x * 2
    return ast(y, (2,), (8,))


def _made_in_f_order(x):
    return np.zeros((2, 3), order="F").strides


@pytest.mark.parametrize("fn, what", [
    (_copied, "made by `copy`"), (_made_in_f_order, "made by `constant`"), (_written, "made by `index_update`"),
    (_fancy, "made by `getitem`"), (_branch, "made by `cond`"),
])
def test_unknown_layouts_are_refused_naming_what_made_them(fn, what):
    with pytest.raises((TypeError, AttributeError), match="memory layout") as e:
        ag.function(fn)(np.arange(6.0))
    assert what in str(e.value) and "ascontiguousarray" in str(e.value)


def test_a_write_through_ascontiguousarray_is_refused_not_guessed():
    def write(x):
        y = np.ascontiguousarray(x)
        y[0, 0] = 5.0
        return x

    for a in (C, F):  # NumPy writes into `x` for C only
        with pytest.raises(ValueError, match="`ascontiguousarray`"):
            ag.function(write)(a.copy(order="K"))


def _graph_gradient(fn, x):
    def step(x):
        with ag.GradientTape() as tape:
            tape.watch(x)
            y = np.sum(fn(x))
        return tape.gradient(y, x)
    return ag.function(step)(x)


@pytest.mark.parametrize("fn, x", [
    (lambda x: windows(x) ** 2, np.linspace(-1.0, 1.0, 7)),
    (lambda x: np.sin(blocks(x)), C / 10),
    (lambda x: np.sin(blocks(x)), F / 10),
    (lambda x: repeated_row(x) ** 3, C / 10),
    (lambda x: windows(x) * np.arange(3.0), np.linspace(0.0, 2.0, 14)[::2]),
    (lambda x: np.ascontiguousarray(x.T) ** 2 * np.arange(4.0), F / 10),
    (lambda x: np.ascontiguousarray(x[0]) ** 2, np.array([0.5, 1.5])),
])
def test_gradients_add_up_over_overlapping_windows(fn, x):
    (expected,) = numeric_grads(fn, [x])
    got = _graph_gradient(fn, x)
    np.testing.assert_allclose(got, expected, rtol=1e-6, atol=1e-8)


def test_gradient_of_a_view_reading_between_elements_is_refused():
    x = np.arange(12.0)[::2]  # elements 16 bytes apart: a stride of 8 reads between them
    with pytest.raises(ValueError, match="reads memory between or beyond"):
        _graph_gradient(lambda x: ast(x, (3,), (8,)), x)


def test_gradient_through_a_compiled_call_under_an_eager_tape():
    f = ag.function(lambda x: np.sum(windows(x) ** 2))
    x = np.linspace(0.0, 1.0, 6)
    with ag.GradientTape() as tape:
        watched = tape.watch(x)
        y = f(watched)
    (expected,) = numeric_grads(lambda x: np.sum(windows(x) ** 2), [x])
    np.testing.assert_allclose(tape.gradient(y, watched), expected, rtol=1e-6, atol=1e-8)


def test_saved_graph_reads_each_call_s_strides(tmp_path):
    f = ag.function(lambda x: (window_means(x), x.strides))
    x = np.arange(8.0)
    ag.save(f.get_concrete_function(x), str(tmp_path / "m"))
    loaded = ag.load(str(tmp_path / "m"))
    for a in (x, np.arange(16.0)[::2]):
        assert_same(loaded(a), (window_means(a), a.strides))


def test_vmap_refuses_the_layout_of_an_example_clearly():
    with pytest.raises(AttributeError, match="vmap's example"):
        ag.vmap(lambda x: x.strides)(np.ones((2, 3)))
