"""`zip` of a Python sequence of strings or objects with arrays inside a traced function
(`for name, col in zip(names, x.T)`): unrolled over the arrays' first items when their
length is known, equal to eager NumPy (also jit_compile=True and ag.to_graph); a clear
error at the user's line when the length is unknown. Numbers zipped with arrays keep the
graph loop."""
from __future__ import annotations

import warnings

import numpy as np
import pytest

import autograph as ag
from tests.helpers import assert_same


def stats_by_name(x):
    out = {}
    for name, col in zip(["mean", "spread", "unused"], x.T):
        out[name] = np.mean(col) if name == "mean" else np.ptp(col)
    return out


def letters_with_values(x):
    pairs = []
    for letter, v in zip("abcd", x):
        pairs.append((letter, v * 2))
    return pairs


def array_first_then_labels(x):
    total = 0.0
    for v, label in zip(x, ("keep", "drop", "keep")):
        if label == "keep":
            total = total + v
    return total


def objects_and_three_sequences(x):
    funcs = (np.sin, np.cos)
    return [f(a) + b for f, a, b in zip(funcs, x, x[::-1])]


def numbers_keep_the_graph_loop(x):
    total = 0.0
    for w, v in zip([0.5, 1.0, 2.0], x):
        total = total + w * v
    return total


CASES = [(stats_by_name, np.arange(6.0).reshape(3, 2)),
         (letters_with_values, np.arange(3.0)),
         (array_first_then_labels, np.array([1.0, 10.0, 100.0, 1000.0])),
         (objects_and_three_sequences, np.array([0.5, 1.5])),
         (numbers_keep_the_graph_loop, np.arange(3.0))]


@pytest.mark.parametrize("fn,x", CASES, ids=[f.__name__ for f, _ in CASES])
@pytest.mark.parametrize("mode", ["function", "jit", "to_graph"])
def test_zip_with_python_items_matches_numpy(fn, x, mode):
    make = {"function": ag.function, "to_graph": ag.to_graph,
            "jit": lambda f: ag.function(f, jit_compile=True)}[mode]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ag.JitFallbackWarning)
        got = make(fn)(x.copy())
    assert_same(got, fn(x.copy()))


def test_unknown_length_is_a_clear_error():
    f = ag.function(letters_with_values,
                    input_signature=[ag.TensorSpec((None,), np.float64)])
    with pytest.raises(TypeError, match="zipped with a symbolic sequence of unknown length"
                       r"(.|\n)*test_idioms_zip_python_items.py"):
        f(np.arange(3.0))
