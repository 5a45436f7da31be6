"""runtime.shape_of: static when known, a graph value when a dimension is unknown."""
import numpy as np

import autograph as ag
import runtime
from tests.helpers import assert_same


def test_shape_of_unknown_dimension_is_computed_at_run_time():
    f = ag.function(lambda x: runtime.shape_of(x) * 2, autograph=False)
    cf = f.get_concrete_function(ag.TensorSpec((None, 3), np.float32))
    assert cf.graph.outputs[0].shape == (2,)
    for n in (1, 4):
        assert_same(cf(np.ones((n, 3), np.float32)), np.array([n * 2, 6], np.int64))


def test_shape_of_known_shape_is_a_constant():
    f = ag.function(lambda x: runtime.shape_of(x), autograph=False)
    cf = f.get_concrete_function(np.ones((2, 5)))
    assert not cf.graph.nodes
    assert_same(cf(np.ones((2, 5))), np.array([2, 5], np.int64))


def test_np_shape_with_unknown_dims_is_symbolic_there():
    def fn(x):
        rows, cols = np.shape(x)
        return rows * 10 + cols

    cf = ag.function(fn, autograph=False).get_concrete_function(ag.TensorSpec((None, 3), np.float32))
    for n in (0, 4):
        x = np.ones((n, 3), np.float32)
        assert_same(cf(x), fn(x))  # a Python int, as Python computes it
