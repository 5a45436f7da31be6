"""Matmul chains by repeated squaring: bitwise equal to the chain, on integers only."""
import numpy as np
import pytest

import autograph as ag


def left_chain(a, v, k):
    for _ in range(k):
        v = a @ v
    return v


def right_chain(a, v, k):
    for _ in range(k):
        v = np.matmul(v, a)
    return v


def matmuls(f, *args):
    return sum(n.op.name == "matmul" for n in f.get_concrete_function(*args).optimized_graph.walk())


@pytest.mark.filterwarnings("ignore::autograph.RetracingWarning")  # one trace per k
@pytest.mark.parametrize("dtype", [np.int8, np.uint8, np.int32, np.int64, np.uint64, np.bool_])
@pytest.mark.parametrize("chain", [left_chain, right_chain])
def test_integer_chains_are_bitwise_the_chain(dtype, chain):
    rng = np.random.default_rng(np.dtype(dtype).num)
    if dtype is np.bool_:
        a, v = rng.random((5, 5)) < 0.3, rng.random((5, 3)) < 0.3
    else:  # the full range: products overflow and wrap
        info = np.iinfo(dtype)
        a, v = (rng.integers(info.min, info.max, shape, dtype=dtype, endpoint=True)
                for shape in ((5, 5), (5, 3)))
    v = v if chain is left_chain else v.T.copy()
    f = ag.function(chain)
    plain = ag.function(chain, optimize=False)
    for k in (1, 2, 3, 4, 5, 7, 8, 31, 64, 100):
        want = chain(a, v, k)
        np.testing.assert_array_equal(f(a, v, k), want)
        assert f(a, v, k).dtype == want.dtype
        np.testing.assert_array_equal(plain(a, v, k), want)
        if k >= 4:  # O(log k) products instead of k
            assert matmuls(f, a, v, k) <= 2 * k.bit_length()


def test_power_of_the_matrix_itself_and_of_a_constant():
    rng = np.random.default_rng(0)
    a = rng.integers(-9, 9, (4, 4)).astype(np.int32)
    f = ag.function(lambda a: left_chain(a, a, 99))  # a^100
    np.testing.assert_array_equal(f(a), left_chain(a, a, 99))
    assert matmuls(f, a) == 8  # 6 squarings + 2 products for the set bits of 100
    const = a.copy()
    g = ag.function(lambda v: left_chain(const, v, 50))  # const^50 is folded
    v = rng.integers(-9, 9, (4, 2)).astype(np.int32)
    np.testing.assert_array_equal(g(v), left_chain(const, v, 50))
    assert matmuls(g, v) == 1


def test_float_chains_are_left_alone():
    a, v = np.full((3, 3), 0.1), np.ones((3, 1))
    f = ag.function(left_chain)
    np.testing.assert_array_equal(f(a, v, 10), left_chain(a, v, 10))
    assert matmuls(f, a, v, 10) == 10


def test_an_intermediate_used_elsewhere_splits_the_chain():
    def fn(a, v):
        for _ in range(6):
            v = a @ v
        middle = v
        for _ in range(6):
            v = a @ v
        return v, middle
    rng = np.random.default_rng(1)
    a, v = rng.integers(-5, 5, (3, 3)), rng.integers(-5, 5, (3, 2))
    f = ag.function(fn)
    got, want = f(a, v), fn(a, v)
    np.testing.assert_array_equal(got[0], want[0])
    np.testing.assert_array_equal(got[1], want[1])
    assert matmuls(f, a, v) == 5  # a^2, a^4, a^6 (computed once: CSE), a^6 @ v twice


def test_mixed_dtypes_and_non_square_factors_are_left_alone():
    a, v = np.eye(3, dtype=np.int32) * 2, np.ones((3, 2), np.int64)
    f = ag.function(left_chain)
    np.testing.assert_array_equal(f(a, v, 6), left_chain(a, v, 6))
    assert matmuls(f, a, v, 6) == 6
    b = np.ones((3, 2), np.int64)
    g = ag.function(lambda v: v @ b)
    np.testing.assert_array_equal(g(np.ones((4, 3), np.int64)), np.ones((4, 3)) @ b)
