"""Python's meaning of objects in converted, traced code, each compared with plain Python /
eager NumPy on the same inputs (and `jit_compile=True` where a graph runs): one array
passed twice, copying and pickling a Function, `functools.wraps` decorators, local names
shadowing builtins, and int() / float() / bool() / complex() / operator.index() of arrays."""
from __future__ import annotations

import copy
import functools
import operator
import pickle

import numpy as np
import pytest

import autograph as ag
from tests.helpers import assert_same


def run_both(fn, *args, jit_compile=False):
    """(eager result or exception, ag.function result or exception) on copies of args."""
    outcomes = []
    for f in (fn, ag.function(fn, jit_compile=jit_compile)):
        copies = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
        try:
            outcomes.append(("value", f(*copies)))
        except Exception as e:  # noqa: BLE001 - compared by type below
            outcomes.append(("error", e))
    return outcomes


# -- one array passed twice ------------------------------------------------------------
def _same_twice(x, y):
    return x is y, x + y


def _write_through_one(x, y):
    x[0] = 5.0
    return y * 2


@pytest.mark.parametrize("jit_compile", [False, True])
def test_same_array_twice_is_one_object(jit_compile):
    f = ag.function(_same_twice, jit_compile=jit_compile)
    a, b = np.arange(3.0), np.ones(3)
    for _ in range(2):
        assert_same(f(a, a), _same_twice(a, a))
        assert_same(f(a, b), _same_twice(a, b))
    assert f.tracing_count == 2  # the pattern of shared arguments is part of the key


@pytest.mark.parametrize("jit_compile", [False, True])
def test_write_through_one_name_shows_through_the_other(jit_compile):
    f = ag.function(_write_through_one, jit_compile=jit_compile)
    for _ in range(2):
        eager, graph = np.ones(3), np.ones(3)
        assert_same(f(graph, graph), _write_through_one(eager, eager))
        assert_same(graph, eager)
        e1, e2, g1, g2 = np.ones(3), np.ones(3), np.ones(3), np.ones(3)
        assert_same(f(g1, g2), _write_through_one(e1, e2))
        assert_same((g1, g2), (e1, e2))


def test_shared_arrays_inside_containers_and_retracing_back():
    def f(pair, z):
        return pair[0] is pair[1], pair[1] is z, pair[0] + z
    g = ag.function(f)
    a, b = np.arange(3.0), np.ones(3)
    for args in [((a, a), a), ((a, b), a), ((a, b), b), ((a, a), a)]:
        assert_same(g(*args), f(*args))
    assert g.tracing_count == 3
    assert "same array" in g.pretty_printed_concrete_signatures()


def test_distinct_arrays_keep_one_trace():
    f = ag.function(_same_twice)
    for _ in range(3):
        a, b = np.ones(2), np.ones(2)
        assert_same(f(a, b), _same_twice(a, b))
    assert f.tracing_count == 1


# -- copying and pickling a Function ---------------------------------------------------
@ag.function
def doubled(x):
    return 2 * x


class Scaler:
    def __init__(self, w):
        self.w = w

    @ag.function
    def apply(self, x):
        return x * self.w


class Holder:
    def __init__(self):
        self.fn = doubled


def test_pickle_by_reference():
    x = np.arange(3.0)
    assert pickle.loads(pickle.dumps(doubled)) is doubled
    holder = pickle.loads(pickle.dumps(Holder()))
    assert holder.fn is doubled
    assert_same(holder.fn(x), 2 * x)
    scaler = pickle.loads(pickle.dumps(Scaler(3.0)))
    assert_same(scaler.apply(x), Scaler.apply.python_function(Scaler(3.0), x))


def test_pickle_of_a_local_function_is_a_clear_error():
    @ag.function
    def local(x):
        return x + 1
    with pytest.raises(pickle.PicklingError, match="by reference"):
        pickle.dumps(local)


def test_deepcopy_gives_a_working_function():
    x = np.arange(3.0)

    @ag.function
    def local(x):
        return x + 1
    local(x)
    for original in (local, doubled):
        copied = copy.deepcopy(original)
        assert copied is not original and copied.tracing_count == 0
        assert_same(copied(x), original.python_function(x))
    holder = copy.deepcopy(Holder())
    assert_same(holder.fn(x), 2 * x)
    scaler = copy.deepcopy(Scaler(4.0))
    assert_same(scaler.apply(x), x * 4.0)


# -- decorators built with functools.wraps --------------------------------------------
def scaled(factor):
    def decorate(fn):
        @functools.wraps(fn)
        def wrapper(x):
            return fn(x) * factor
        return wrapper
    return decorate


@scaled(2.0)
def plus_one(x):
    return x + 1


@scaled(3.0)
def minus_one(x):
    return x - 1


def counted(fn):
    @functools.wraps(fn)
    def wrapper(x):
        out = fn(x)
        if np.sum(x) > 0:  # symbolic control flow in the wrapper's own body
            out = out + 10
        return out
    return wrapper


@counted
def squared(x):
    return x * x


@pytest.mark.parametrize("fn", [plus_one, minus_one, squared], ids=lambda f: f.__name__)
def test_wraps_decorator_runs_the_wrapper(fn):
    for x in (np.arange(3.0), -np.arange(3.0)):
        for jit_compile in (False, True):
            assert_same(ag.function(fn, jit_compile=jit_compile)(x), fn(x))
    assert_same(ag.to_graph(fn)(np.arange(3.0)), fn(np.arange(3.0)))


def test_functions_wrapped_by_one_decorator_keep_their_own_conversion():
    x = np.arange(3.0)
    both = [(f, ag.to_graph(f)) for f in (plus_one, minus_one, plus_one)]
    for original, converted in both:
        assert_same(converted(x), original(x))

    def caller(x):
        return plus_one(x) + minus_one(x)
    assert_same(ag.function(caller)(x), caller(x))


# -- local names that shadow builtins -------------------------------------------------
def _my_len(x):
    return 42


class Base:
    def m(self, x):
        return x * 10


class ShadowsSuper(Base):
    def local_super(self, x):
        def super():
            return 7
        return x + super()

    def real_super(self, x):
        return super().m(x) + 1


def _local_len(x):
    len = _my_len
    return x + len(x)


def _local_sum(x):
    def sum(v, start=0):
        return v * 100
    return sum(x)


@pytest.mark.parametrize("fn", [_local_len, _local_sum], ids=lambda f: f.__name__)
def test_local_name_shadowing_a_builtin_is_the_local(fn):
    assert_same(ag.function(fn)(np.ones(2)), fn(np.ones(2)))


@pytest.mark.parametrize("method", ["local_super", "real_super"])
def test_local_super_is_the_local(method):
    obj, x = ShadowsSuper(), np.ones(2)
    expected = getattr(obj, method)(x)
    assert_same(ag.function(getattr(ShadowsSuper, method))(obj, x), expected)


# -- int(), float(), bool(), complex(), operator.index() of arrays ----------------------
def _int(x):
    return int(x)


def _float(x):
    return float(x)


def _bool(x):
    return bool(x)


def _complex(x):
    return complex(x)


def _index(x):
    return operator.index(x)


def _bool_branch(x):
    if bool(x):
        return x * 2
    return x - 1


def _convert_via_name(x):
    fn = int  # reached as a value: the same meaning as a call by name
    return fn(x) + 1


CONVERSIONS = [_int, _float, _bool, _complex, _index, _bool_branch, _convert_via_name]
VALUES = [np.array([1.5, 2.0]), np.array([2.7]), np.array([[2.7]]), np.array(3.9),
          np.array(-3.7), np.array([]), np.array([1 + 2j]), np.array(1 + 2j),
          np.array([True]), np.array(False), np.array([3]), np.array(3, np.int32),
          np.array(np.nan), np.array(-np.inf), np.array(1e300), np.array(0.0),
          np.array(7, np.uint8)]


@pytest.mark.parametrize("fn", CONVERSIONS, ids=lambda f: f.__name__)
@pytest.mark.parametrize("value", VALUES, ids=repr)
def test_scalar_conversions_follow_numpy(fn, value):
    (e_kind, eager), (g_kind, graph) = run_both(fn, value)
    if type(eager) is int and not -2**63 <= eager < 2**63:
        # Python's exact int beyond int64: the graph says so rather than wrap
        assert isinstance(graph, OverflowError) and "int64" in str(graph)
        return
    assert g_kind == e_kind, f"eager {eager!r}, graph {graph!r}"
    if e_kind == "error":
        assert type(graph) is type(eager)
        assert str(graph).startswith(str(eager))
    elif type(eager) in (float, complex) and eager != eager:  # NaN: equal as NaN
        assert np.shape(graph) == () and np.isnan(graph) and \
            np.asarray(graph).dtype == np.asarray(eager).dtype
    else:
        assert_same(graph, eager)


def test_scalar_conversions_with_unknown_sizes():
    f = ag.function(_bool, input_signature=[ag.TensorSpec([None], np.float64)])
    for value in (np.array([0.0]), np.array([2.0]), np.array([]), np.ones(3)):
        (e_kind, eager), = [run_both(_bool, value)[0]]
        if e_kind == "error":
            with pytest.raises(type(eager), match="ambiguous"):
                f(value)
        else:
            assert_same(f(value), eager)


# -- Python ints carried by graph loops ---------------------------------------------
def fib(n):
    a, b = 0, 1
    for _ in range(n):
        a, b = b, a + b
    return a


def factorial(n):
    r = 1
    i = 1
    while i <= n:
        r = r * i
        i += 1
    return r


def int_ops(n):
    q, m, p = 0, 0, 1
    for k in range(n):
        q = (q - 7) // 3
        m = (m + k) % 5
        p = p ** 2 + k
    return q, m, -q, abs(q), p


@pytest.mark.parametrize("jit_compile", [False, True])
def test_python_ints_in_graph_loops_are_exact_or_overflow(jit_compile):
    for fn, n, fits in [(fib, 10, True), (fib, 91, True), (fib, 100, False),
                        (factorial, 20, True), (factorial, 25, False),
                        (int_ops, 7, True), (int_ops, 9, False)]:
        f = ag.function(fn, jit_compile=jit_compile)
        if fits:
            assert_same(f(np.int64(n)), fn(np.int64(n)))
        else:
            assert type(fn(np.int64(n))[0] if isinstance(fn(np.int64(n)), tuple)
                        else fn(np.int64(n))) is int  # Python holds it exactly
            with pytest.raises(OverflowError, match="test_fidelity_objects.py"):
                f(np.int64(n))


def test_python_int_division_by_zero_is_python_error():
    def f(n):
        q = 10
        for k in range(n):
            q = q // (2 - k)
        return q
    with pytest.raises(ZeroDivisionError):
        f(np.int64(3))
    with pytest.raises(ZeroDivisionError):
        ag.function(f)(np.int64(3))
    assert_same(ag.function(f)(np.int64(2)), f(np.int64(2)))
