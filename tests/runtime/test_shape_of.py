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


def test_np_shape_with_unknown_dims_points_to_shape_of():
    f = ag.function(lambda x: np.shape(x), autograph=False)
    try:
        f.get_concrete_function(ag.TensorSpec((None,), np.float32))
    except TypeError as e:
        assert "shape_of" in str(e)
    else:
        raise AssertionError("np.shape of an unknown dimension must raise")
