"""`np.int64(x)`, `np.float32(x)`, `np.bool_(x)`... of a symbolic value convert it as eager
NumPy does (a NumPy scalar from a 0-d value, an array cast otherwise, with NumPy's cast
warnings); they were an unclear "concrete NumPy array" error."""
import warnings

import numpy as np
import pytest

import autograph as ag

SCALAR_TYPES = [np.bool_, np.int8, np.uint8, np.int16, np.int32, np.int64, np.uint64,
                np.float16, np.float32, np.float64, np.complex64, np.complex128]
INPUTS = [np.array([1.5, -2.7, 300.0]), np.array([-1.0, np.nan, np.inf]),
          np.array([0, 1, -5], np.int64), np.array([True, False, True]),
          np.array([1 + 2j, -0.5j, 3], np.complex128)]


def _run(fn, *args):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = fn(*args)
    return result, sorted({(m.category.__name__, str(m.message)) for m in caught})


def _same(actual, expected):
    assert type(actual) is type(expected), (actual, expected)
    assert np.asarray(actual).dtype == np.asarray(expected).dtype
    np.testing.assert_array_equal(actual, expected)


@pytest.mark.parametrize("sctype", SCALAR_TYPES, ids=lambda t: t.__name__)
@pytest.mark.parametrize("x", INPUTS, ids=lambda x: f"{x.dtype}")
def test_scalar_type_of_a_symbolic_value_equals_eager(sctype, x):
    def f(x):
        return sctype(x[1]), sctype(x), sctype(x[0] > 0)

    expected, expected_warnings = _run(f, x)
    graph = ag.function(f)
    for _ in range(2):  # the tracing call and the cached call
        actual, actual_warnings = _run(graph, x)
        for a, e in zip(actual, expected):
            _same(a, e)
        assert actual_warnings == expected_warnings


def test_scalar_type_reached_through_a_name():
    cast = np.int32

    def f(x):
        return cast(x * 2.5)

    x = np.float64(3.3)
    _same(ag.function(f)(x), f(x))


def test_scalar_type_of_python_and_numpy_values_is_unchanged():
    def f(x):
        return np.int64(7.9), np.float32(x.shape[0]), np.bool_(0)

    x = np.zeros(3)
    for a, e in zip(ag.function(f)(x), f(x)):
        _same(a, e)


def test_scalar_type_of_a_string_value_is_a_clear_error():
    def f(x):
        return np.float64(x)

    with pytest.raises(TypeError, match=r"np\.float64\(\) of a symbolic <U\d+ value.*only "
                                        r"numbers and booleans"):
        ag.function(f)(np.array(["1.5"]))
