"""`np.array(xs)` / `np.asarray(xs)` of a list a symbolic loop appends to, when the loop
appends nothing: NumPy gives an empty vector (float64, or the `dtype` asked for), and so
does the graph when that is the stacked items' type. Eager vs `ag.function` vs
`ag.to_graph` vs `autograph convert` output vs `jit_compile=True`: value, dtype, shape."""
import numpy as np
import pytest

import autograph as ag
from tests.helpers import assert_same, converted_module


def while_ints_with_dtype(n):
    rows = []
    i = 0
    while i < n:
        rows.append(i * 10)
        i += 1
    return np.array(rows, dtype=np.int64)


def for_ints_as_float32(n):
    rows = []
    for i in range(n):
        rows.append(i + 1)
    return np.array(rows, np.float32)


def nested_loops_rows(n1, n2):
    out = []
    i = 0
    while i < n1:
        s = 0
        j = 0
        while j < n2:
            s = s * 10 + i * j
            j += 1
        out.append(s)
        i += 1
    return np.array(out, dtype=np.int64)


def floats_asarray(n):
    xs = []
    for i in range(n):
        xs.append(i * 0.5)
    return np.asarray(xs)


def floats_array_then_sum(n):
    xs = []
    for i in range(n):
        xs.append(i * 0.5)
    a = np.array(xs)
    return a, a.sum(), a.shape[0]


def ints_without_dtype(n):
    xs = []
    for i in range(n):
        xs.append(i)
    return np.array(xs)


CASES = [
    (while_ints_with_dtype, (0,)), (while_ints_with_dtype, (3,)),
    (for_ints_as_float32, (0,)), (for_ints_as_float32, (2,)),
    (nested_loops_rows, (0, 2)), (nested_loops_rows, (2, 0)), (nested_loops_rows, (2, 3)),
    (floats_asarray, (0,)), (floats_asarray, (3,)),
    (floats_array_then_sum, (0,)), (floats_array_then_sum, (4,)),
]


def _symbolic(args):
    return tuple(np.int64(a) for a in args)


@pytest.fixture(scope="module")
def converted(tmp_path_factory):
    module, _ = converted_module(__file__, tmp_path_factory.mktemp("conv"), "graph_list_empty_conv")
    return module


@pytest.mark.parametrize("fn,args", CASES, ids=lambda v: getattr(v, "__name__", str(v)))
def test_empty_loop_list_to_array_is_numpys(fn, args, converted):
    args = _symbolic(args)
    expected = fn(*args)
    assert_same(ag.function(fn)(*args), expected)
    assert_same(ag.to_graph(fn)(*args), expected)
    assert_same(getattr(converted, fn.__name__)(*args), expected)


@pytest.mark.filterwarnings("ignore:jit_compile")
@pytest.mark.parametrize("fn,args", [(while_ints_with_dtype, (0,)), (floats_array_then_sum, (0,)),
                                     (nested_loops_rows, (0, 2))],
                         ids=lambda v: getattr(v, "__name__", str(v)))
def test_empty_loop_list_to_array_under_jit(fn, args):
    pytest.importorskip("numba")
    args = _symbolic(args)
    assert_same(ag.function(fn, jit_compile=True)(*args), fn(*args))


def test_one_function_serves_empty_and_full_runs():
    f = ag.function(while_ints_with_dtype)
    for n in (0, 4, 0, 1):
        assert_same(f(np.int64(n)), while_ints_with_dtype(np.int64(n)))
    assert f.tracing_count == 1


def test_empty_list_numpy_would_make_float64_of_int_items_is_an_error_at_the_line():
    # NumPy makes float64[0] of an empty list but int64[n] of ints: one graph cannot be
    # both, so an empty run is an error naming the line (with items, NumPy's result).
    f = ag.function(ints_without_dtype)
    assert_same(f(np.int64(3)), ints_without_dtype(np.int64(3)))
    with pytest.raises(ValueError) as info:
        f(np.int64(0))
    text = str(info.value) + "\n".join(getattr(info.value, "__notes__", []))
    assert f"{__file__}:" in text
