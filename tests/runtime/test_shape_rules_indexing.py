"""Differential tests of the indexing rules (runtime/ops/indexing_rules.py): basic,
advanced and boolean indexing and functional updates, on known, 0-size and unknown
dims, against real NumPy indexing (check_rule)."""
from __future__ import annotations

import numpy as np
import pytest

import runtime
from tests.runtime.shape_rules_check import ALL_DTYPES, check_known_dims_used, check_rule

X_SHAPES = [(4, 5), (0, 3), (None, 5), (4, None), (None, None), (2, 3, 4), (None, 3, 0), (6,),
            ()]
I0 = np.array([0, 1])
I2 = np.array([[0], [1]])
M3 = np.array([True, False, True])
BASIC = [
    0, -1, 5, slice(None), slice(1, None), slice(None, None, -1), slice(0, 0), slice(1, 3),
    slice(None, None, 2), slice(-2, None), (0, 1), (slice(None), 0), (None, 0), (Ellipsis, 0),
    (0, Ellipsis, None), (None, Ellipsis, None), (slice(1, None), slice(None, 2)), (),
    (0, 0, 0), (Ellipsis, Ellipsis), (slice(None, None, 0),), True, False, (0, True),
    1.5, "a",
]
ADVANCED = [
    I0, I2, [0, 0, 1], (I0, I0), (I0, slice(None)), (slice(None), I0), (I0, I2),
    (I0, 0), (0, I0), (I0, None, I0), (I0, slice(None), I0), (Ellipsis, I0),
    (np.array([0, 1, 0]), I0), M3, np.array([True, False, True, False]),
    (slice(None), M3), (M3, 0), np.zeros((4, 5), bool), np.zeros((2, 3), bool),
    np.array([0.5]), np.array(1), (np.array(1), I0), np.array(True), (slice(None), np.array(0)),
]


@pytest.mark.parametrize("index", BASIC + ADVANCED, ids=repr)
def test_constant_index(index):
    for s in X_SHAPES:
        for d in ALL_DTYPES[::5]:
            check_rule(lambda x: x[index], [(s, d)], value_error=True)


@pytest.mark.parametrize("make", [
    lambda x, i: x[i], lambda x, i: x[i, 0], lambda x, i: x[:, i], lambda x, i: x[i, i],
    lambda x, i: x[None, i], lambda x, i: x[..., i], lambda x, i: x[i, :, i],
    lambda x, i: x[1:, i], lambda x, i: x[i, None, 1],
], ids=["i", "i_0", "col_i", "i_i", "new_i", "ell_i", "i_slice_i", "slice_i", "i_new_1"])
@pytest.mark.parametrize("ishape", [(), (2,), (0,), (None,), (2, 1), (3, None)])
def test_symbolic_integer_index(make, ishape):
    for s in [(4, 5), (None, 5), (2, 3, 4), (None, None, 2), (3,)]:
        for di in (np.int64, np.int8, np.uint16, np.float32):
            check_rule(make, [(s, np.float32), (ishape, di)], kinds=["any", "zeros"],
                       value_error=True)


@pytest.mark.parametrize("make", [
    lambda x, m: x[m], lambda x, m: x[m, 0], lambda x, m: x[:, m], lambda x, m: x[m, 1:],
    lambda x, m: x[None, m], lambda x, m: x[m, None],
], ids=["m", "m_0", "col_m", "m_slice", "new_m", "m_new"])
@pytest.mark.parametrize("mshape", [(), (4,), (5,), (4, 5), (None,), (0,), (3, 5)])
def test_symbolic_mask(make, mshape):
    for s in [(4, 5), (None, 5), (4, None), (0, 5), (4, 5, 2)]:
        check_rule(make, [(s, np.int32), (mshape, bool)], kinds=["any", "mask"],
                   value_error=True)  # x[m, 0] on an empty axis: index out of bounds


def test_mask_count_is_unknown_not_data_dependent():
    shape = check_known_dims_used(lambda x, m: x[m], [((4, 5), np.float32), ((4,), bool)])
    assert shape == (None, 5)
    shape = check_known_dims_used(lambda x: x[x > 0], [((4, 5), np.float32)])
    assert shape == (None,)


def test_symbolic_slice_bounds():
    for make in (lambda x, i: x[i:], lambda x, i: x[:i], lambda x, i: x[::i],
                 lambda x, i: x[1:i, i:], lambda x, i: x[i:i]):
        for s in [(4, 5), (None, 5), (0, 3)]:
            for di in (np.int64, np.int16, bool, np.float64):
                check_rule(make, [(s, np.float32), ((), di)])
        check_rule(make, [((4, 5), np.float32), ((2,), np.int64)])
    assert check_known_dims_used(lambda x, i: x[i:, 1:3], [((4, 5), np.float32),
                                                         ((), np.int64)]) == (None, 2)


UPDATES = [
    (0, (5,)), (0, ()), (0, (3,)), (slice(1, 3), (2, 5)), (slice(1, 3), (5,)),
    ((slice(None), 0), (4,)), ((slice(None), 0), (1,)), ((slice(None), 0), (5,)),
    (I0, (2, 5)), ((I0, I0), (2,)), ((I0, I0), (3,)), (M3, (2, 5)), (np.array([True] * 4), ()),
    ((Ellipsis, None), (4, 5, 1)), ((0, 0), (1, 1)), ((0, 0), (2,)), (slice(None), (1, 4, 5)),
]


@pytest.mark.parametrize("mode", ["set", "add"])
@pytest.mark.parametrize("index,vshape", UPDATES, ids=repr)
def test_index_update(mode, index, vshape):
    for xs in [(4, 5), (None, 5), (4, None), (3, 5)]:
        for dx, dv in [(np.float32, np.float64), (np.int32, np.int64), (np.int8, np.float32),
                       (np.float64, np.complex64), (bool, bool)]:
            check_rule(lambda x, v: runtime.index_update(x, index, v, mode=mode),
                       [(xs, dx), (vshape, dv)], value_error=True)


def test_index_update_symbolic_index_and_python_value():
    for mode in ("set", "add"):
        for d in ALL_DTYPES[::2]:
            check_rule(lambda x, i: runtime.index_update(x, i, 2.5, mode=mode),
                       [((4, 5), d), ((2,), np.int64)], kinds=["any", "zeros"])
            check_rule(lambda x, m: runtime.index_update(x, m, 1, mode=mode),
                       [((None, 5), d), ((None,), bool)], kinds=["any", "mask"])
