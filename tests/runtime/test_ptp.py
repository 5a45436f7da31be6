"""np.ptp in graphs: max minus min, as NumPy defines it (values, dtype, shape, and
NumPy's own error for booleans)."""
from __future__ import annotations

import numpy as np
import pytest

import autograph as ag
from tests.helpers import assert_same

X = np.array([[1.0, 5.0, 2.0], [7.0, -1.0, 3.0]])


@pytest.mark.parametrize("kwargs", [{}, {"axis": 0}, {"axis": 1, "keepdims": True},
                                    {"axis": (0, 1)}, {"axis": -1}])
@pytest.mark.parametrize("dtype", [np.float64, np.int32, np.uint8])
def test_ptp_matches_numpy(kwargs, dtype):
    def f(x):
        return np.ptp(x, **kwargs)

    x = X.astype(dtype)
    assert_same(ag.function(f)(x), f(x))


def test_ptp_of_booleans_raises_numpys_error():
    def f(x):
        return np.ptp(x > 2)

    with pytest.raises(TypeError, match="numpy boolean subtract"):
        f(X)
    with pytest.raises(TypeError, match="numpy boolean subtract"):
        ag.function(f)(X)
