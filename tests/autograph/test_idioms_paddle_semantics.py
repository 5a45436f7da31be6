"""Python semantics found by running PaddlePaddle's dygraph-to-static tests ported to
NumPy (outside the repository) through ag.function: the index `enumerate` counts in is a
Python int, `and` / `or` tests mixing shape-[1] arrays with Python values, conditions and
`range` bounds computed from constants are decided while tracing as Python decides them.
Each case: eager Python vs ag.function vs jit_compile=True - values, dtype, shape, result
type, the state of argument arrays after the call (and the same exception type where
eager raises)."""
from __future__ import annotations

import copy
import warnings

import numpy as np
import pytest

import autograph as ag


def _outcome(fn, args):
    args = copy.deepcopy(args)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return fn(*args), args
    except Exception as e:  # noqa: BLE001 - compared with the other path's
        return e, args


def _same(got, want):
    if isinstance(want, BaseException):
        assert isinstance(got, type(want)), (got, want)
        return
    if isinstance(want, (tuple, list)):
        assert type(got) is type(want) and len(got) == len(want), (got, want)
        for g, w in zip(got, want):
            _same(g, w)
        return
    assert type(got) is type(want), (got, want)
    if isinstance(want, (np.ndarray, np.generic)):
        assert got.dtype == want.dtype and got.shape == want.shape, (got, want)
        np.testing.assert_array_equal(got, want)
    else:
        assert got == want, (got, want)


def three_way(fn, *args):
    want, want_args = _outcome(fn, args)
    for jit in (False, True):
        got, got_args = _outcome(ag.function(fn, jit_compile=jit), args)
        _same(got, want)
        _same(got_args, want_args)  # in-place writes into the arguments land as in NumPy


# -- the index enumerate() gives is a Python int: `acc + i` keeps acc's dtype --------------
def count_and_sum(xs):
    y = np.full([1], 0, "int32")
    z = np.full([1], 0, "int32")
    for i, x in enumerate(xs):
        y = y + i
        z = z + x
    return y, z


def count_from_with_break(xs, start):
    y = np.zeros(2, np.float32)
    for i, x in enumerate(xs, start):
        y = y + i
        if x > 3:
            break
    return y


def weighted_rows(m):
    acc = np.zeros(m.shape[1], np.int16)
    for k, row in enumerate(m):
        acc = acc + k * 2 + row.astype(np.int16)
    return acc


@pytest.mark.parametrize("fn,args", [
    (count_and_sum, (np.array([1, 2, 3, 4, 5]),)),
    (count_and_sum, (np.array([7, -2], np.int16),)),
    (count_and_sum, (np.zeros(0, np.int64),)),
    (count_from_with_break, (np.array([1.0, 5.0, 2.0]), 3)),
    (count_from_with_break, (np.array([1, 2]), -1)),
    (weighted_rows, (np.ones((4, 3)),)),
], ids=lambda v: getattr(v, "__name__", None))
def test_enumerate_index_is_a_python_int(fn, args):
    three_way(fn, *args)


# -- `and` / `or` tests mixing shape-[1] arrays and Python values ---------------------------
def while_mixed_test(x):
    i = x
    a = 1
    while x < 10 and (a < 4 or a > 0) or a < -1 or not x > -1:
        i = i + x
        x = x + 1
        a = a + 1
    return i


def if_none_or(x):
    a = None
    if x > 1 or a is None or a > 1:
        x = x - 1
    else:
        x = x + 1
    return x


def while_counter_and_shape(x):
    acc = np.zeros([1], "float32")
    i = x
    s = i.shape
    while i < 10 and s[0] >= 1:
        acc += i.shape[0]
        i = i + 1
    return acc


def if_mask_and_flag(x, flag):
    if (x > 0) and flag:
        return x * 2
    return x


@pytest.mark.parametrize("fn,args", [
    (while_mixed_test, (np.zeros(1, np.int32),)),
    (while_mixed_test, (np.array([-3.5]),)),
    (if_none_or, (np.array([3], np.int32),)),
    (if_none_or, (np.array([0.5]),)),
    (while_counter_and_shape, (np.zeros(1, np.int64),)),
    (while_counter_and_shape, (np.array([[4]]),)),
    (if_mask_and_flag, (np.array([2.0]), True)),
    (if_mask_and_flag, (np.array([-2.0]), True)),
    (if_mask_and_flag, (np.array([2.0]), False)),
    (if_mask_and_flag, (np.array([1.0, 2.0]), True)),  # ambiguous: NumPy's ValueError
], ids=lambda v: getattr(v, "__name__", None))
def test_and_or_tests_on_size_one_arrays(fn, args):
    three_way(fn, *args)


# -- conditions and range bounds computed from constants are decided while tracing ---------
def constant_predicate(x):
    index = 0
    pred = np.asarray([1])
    if pred:
        y = x[index] + 1
        index = index + 1
        return y, index       # a structure the other branch does not have
    else:
        return x[index] + 2


def constant_predicate_text(x):
    pred = np.asarray([0])
    if pred:
        return "never"
    return x * 2


def constant_compare(a, b):
    cond = np.asarray([10])
    if cond == 10:
        b = b + a             # a shape the other branch does not give
    else:
        b = np.zeros(1)
    return b


def counter_from_constant(x):
    i = np.full([1], 0, "int32")
    while i < 10:
        i += 1
        if i > 5:
            break
        x += i
    return x, i


def pop_in_constant_range(x, n):
    count = np.full([], n, "int32")
    a = []
    for i in range(count):
        a.append(x + i)
    one = np.ones([1], "int32")
    for _ in range(one[0]):
        item = a.pop()
    return a[0], item, len(a)


def list_in_constant_while(x, n):
    limit = np.full([1], n, "int32")
    a = []
    i = 0
    while i < limit:
        a.append(x - i)
        i += 1
        if i % 2 == 1:
            a.pop()
    return a


def range_of_one_element_array(x):
    n = np.full([1], 3, "int32")
    for i in range(n):   # NumPy refuses a shape-[1] array as an index: TypeError
        x = x + i
    return x


def ambiguous_constant(x):
    if np.array([1, 2]) > 0:  # NumPy's ValueError
        return x
    return -x


@pytest.mark.parametrize("fn,args", [
    (constant_predicate, (np.array([0.5, 2.0], np.float32),)),
    (constant_predicate_text, (np.arange(3),)),
    (constant_compare, (np.ones((3, 2), np.float32), np.array([10.0], np.float32))),
    (counter_from_constant, (np.zeros(1, np.int64),)),
    (pop_in_constant_range, (np.array([1, 2], np.int32), 3)),
    (pop_in_constant_range, (np.array([1.5]), 1)),
    (list_in_constant_while, (np.zeros(3, np.int32), 3)),
    (range_of_one_element_array, (np.ones(2),)),
    (ambiguous_constant, (np.ones(2),)),
], ids=lambda v: getattr(v, "__name__", None))
def test_conditions_known_while_tracing(fn, args):
    three_way(fn, *args)


def test_state_array_condition_stays_symbolic():
    # an array read from Python state is read again on every call: never decided while tracing
    class Model:
        def __init__(self):
            self.gate = np.array([1])

        @ag.function
        def __call__(self, x):
            if self.gate:
                return x + 1
            return x - 1

    m = Model()
    x = np.arange(3.0)
    np.testing.assert_array_equal(m(x), x + 1)
    m.gate[0] = 0
    np.testing.assert_array_equal(m(x), x - 1)


# -- NumPy's sequence-of-arrays functions on a list built in a symbolic loop ----------------
def concatenate_rows(x, n):
    rows = []
    for i in range(n):
        rows.append(x * (i + 1))
    return np.concatenate(rows)


def concatenate_last_axis(x, n):
    rows = []
    for i in range(n):
        rows.append(x - i)
    return np.concatenate(rows, axis=-1)


def concatenate_flat(x, n):
    rows = []
    for i in range(n):
        rows.append(x + i)
    return np.concatenate(rows, axis=None)


def stack_axis_one(x, n):
    rows = []
    for i in range(n):
        rows.append(x + i)
    return np.stack(rows, 1)


def vstack_hstack_column_stack(x, n):
    rows = []
    for i in range(n):
        rows.append(x + i)
    return np.vstack(rows), np.hstack(rows), np.column_stack(rows)


def sum_of_rows(x, n):
    rows = []
    for i in range(n):
        rows.append(x * i)
    return np.sum(rows, axis=0), np.max(rows)


def join_by_name(x, n, join):
    rows = []
    for i in range(n):
        rows.append(x + i)
    return join(rows)   # resolved when called, not when converted


@pytest.mark.parametrize("fn", [concatenate_rows, concatenate_last_axis, concatenate_flat,
                                stack_axis_one, vstack_hstack_column_stack, sum_of_rows])
@pytest.mark.parametrize("x", [np.arange(3.0), np.arange(6, dtype=np.int32).reshape(2, 3),
                               np.float32(2.5), np.ones((2, 1, 2))],
                         ids=["1d", "2d", "0d", "3d"])
@pytest.mark.parametrize("n", [np.array(3), np.array(1)], ids=["n3", "n1"])
def test_sequence_functions_of_loop_lists(fn, x, n):
    three_way(fn, x, n)


@pytest.mark.parametrize("join", [np.concatenate, np.vstack, np.hstack, np.column_stack,
                                  np.stack])
def test_sequence_function_reached_at_call_time(join):
    three_way(join_by_name, np.arange(4.0).reshape(2, 2), np.array(2), join)


# -- print of text formatted from symbolic values: Python's text, on every call ------------
def print_fstring(x):
    m = np.mean(x)
    print(f"values: {x}, mean {m:.3f}")
    return m


def print_percent_and_format(x):
    print("PrintTensor: %s" % (x), "{} and {!s}".format(x[0], x[-1]), sep=" | ")
    return x


def print_str_concat(x):
    y = x * 2
    print("y = " + str(y) + ";", end="\n\n")
    return y


def print_in_branch(x):
    if np.sum(x) > 3:
        print(f"large: {np.sum(x)}")
    else:
        print(f"small: {x[0]:>6}")
    return x


@pytest.mark.parametrize("fn", [print_fstring, print_percent_and_format, print_str_concat,
                                print_in_branch])
@pytest.mark.parametrize("jit", [False, True])
def test_print_of_formatted_symbolic_values(fn, jit, capsys):
    inputs = [np.ones(5, np.int32), np.arange(5, dtype=np.int32), np.array([0.5, 2.25])]
    want = []
    for x in inputs:
        fn(x)
        want.append(capsys.readouterr().out)
    f = ag.function(fn, jit_compile=jit)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for x, text in zip(inputs, want):
            f(x)
            f(x)  # a call that reuses the trace prints it again
            assert capsys.readouterr().out == text * 2


def print_text_computed_with(x):
    print(len(f"{x}"))   # the text's length needs the digits: refused as before
    return x


def print_text_sliced(x):
    print(f"{str(x)[:2]}")
    return x


@pytest.mark.parametrize("fn", [print_text_computed_with, print_text_sliced])
def test_text_computed_with_is_refused(fn):
    with pytest.raises(ag.GraphModeError, match="to text"):
        ag.function(fn)(np.ones(3))


def test_formatted_print_survives_save_and_load(tmp_path, capsys):
    cf = ag.function(print_fstring).get_concrete_function(np.ones(3))
    ag.save(cf, str(tmp_path / "g.agz"))
    loaded = ag.load(str(tmp_path / "g.agz"))
    capsys.readouterr()
    x = np.array([0.0, 1.0, 5.0])
    loaded(x)
    got = capsys.readouterr().out
    print_fstring(x)
    assert got == capsys.readouterr().out


# -- bool() gives a Python bool; item() takes integers only, as NumPy -----------------------
def bool_of(x):
    return bool(x)


def bool_then_float(x):
    return float(bool(int(x[0])))


def item_at(x, *idx):
    return x.item(*idx)


@pytest.mark.parametrize("fn,args", [
    (bool_of, (np.array([2.0], np.float32),)),
    (bool_of, (np.array([[0]]),)),
    (bool_of, (np.zeros(3),)),          # ambiguous: ValueError
    (bool_then_float, (np.array([3.7]),)),
    (item_at, (np.arange(24.0).reshape(2, 3, 4), 0, 2, 1)),
    (item_at, (np.arange(9, dtype=np.int32), 6)),
    (item_at, (np.ones((2, 2, 2)), 6.0, 7.0, 1.0)),   # TypeError
    (item_at, (np.ones((2, 2, 2)), 1.0)),             # TypeError
    (item_at, (np.ones((2, 2, 2)), 6, 7)),            # ValueError
    (item_at, (np.ones((2, 2, 2)), 100)),             # IndexError
], ids=lambda v: getattr(v, "__name__", None))
def test_scalar_conversions(fn, args):
    three_way(fn, *args)


def int_float_of(x):
    return int(x[0]), float(x[-1]), float(int(x[0])) + 1


def int_keeps_array_dtype_elsewhere(x):
    y = x * 2
    n = float(y[0])
    return y + n, n


@pytest.mark.parametrize("fn,x", [
    (int_float_of, np.array([3.7, -1.5])),
    (int_float_of, np.array([2, 9], np.int32)),
    (int_keeps_array_dtype_elsewhere, np.array([1.5, 2.0], np.float32)),
], ids=lambda v: getattr(v, "__name__", None))
def test_int_float_give_python_numbers(fn, x):
    three_way(fn, x)


# -- a loop over items of known number walks them in Python when the graph loop cannot ----
def skip_first_items(xs):
    y = np.full([1], 0, "int32")
    z = np.full([1], 0, "int32")
    for i, x in enumerate(xs, 1):
        y = y + i
        if i > 2:
            continue       # z widens to int64 on the other path only (first iterations)
        z = z + x
    return y, z


def look_back(xs):
    seen = []
    total = np.zeros(1, np.int64)
    for i, v in enumerate(xs):
        if i > 1:
            total = total + seen[-2]   # an IndexError on the path i <= 1 never takes
        seen.append(v)
    return total, len(seen)


def look_back_on_values(xs):
    seen = []
    total = np.zeros(1)
    for v in xs:
        if v > 1:      # a condition on the item itself stays symbolic: refused as before
            total = total + seen[-1]
        seen.append(v)
    return total


@pytest.mark.parametrize("fn,args", [
    (skip_first_items, (np.array([1, 2, 3, 4, 5]),)),
    (skip_first_items, (np.array([7]),)),
    (look_back, (np.arange(5),)),
    (look_back, (np.array([4.0, 5.0]),)),
], ids=lambda v: getattr(v, "__name__", None))
def test_known_length_loops_walk_in_python(fn, args):
    three_way(fn, *args)


def test_item_conditions_raise_where_python_raises():
    # `seen[-1]` of an empty list under a symbolic condition: IndexError when that path
    # is taken (the first item is > 1), a value otherwise, as in Python
    for xs in (np.array([2.0, 0.5]), np.array([0.5, 2.0]), np.array([0.5, 0.25])):
        three_way(look_back_on_values, xs)


def _vector_condition_in_a_branch(x):
    if np.mean(x) < 0:
        y = x + 1
        if y[0] < 10:  # y[0] is a row: NumPy raises only when this line runs
            y = y * 2
    else:
        y = x - 1
    return y


@pytest.mark.parametrize("jit", [False, True])
def test_a_vector_condition_raises_only_on_the_path_that_reaches_it(jit):
    f = ag.function(_vector_condition_in_a_branch, jit_compile=jit)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ag.JitFallbackWarning)
        for x in (np.ones((3, 2)), -np.ones((3, 2)), np.ones((0, 2)), -np.ones((3, 1))):
            _same(_outcome(f, (x,)), _outcome(_vector_condition_in_a_branch, (x,)))
    assert len(f._cache) == 3  # three shapes; each traced once, both paths in one graph
