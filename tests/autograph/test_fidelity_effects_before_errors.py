"""After an error, arguments and Python state hold what Python leaves in them: the writes
made before the failing line are done, those after it are not. Errors raised inside
symbolic loops (at several iterations, before or after that iteration's write), errors
raised by operations themselves (LinAlgError, IndexError, FloatingPointError, a graph
check), and state on `self`, in dicts and in globals. Eager NumPy vs `ag.function`
(optimized and not) vs `jit_compile=True`, over several calls from fresh copies.
"""
import warnings

import numpy as np
import pytest

import autograph as ag

MODES = [{}, {"optimize": False}, {"jit_compile": True}]


def outcome(fn, args):
    try:
        return ("ok", fn(*args))
    except Exception as e:  # noqa: BLE001 - the type and message are compared
        return (type(e).__name__, str(e).split("\n")[0])


def same_outcome(got, expected) -> None:
    assert got[0] == expected[0], (got, expected)
    if got[0] == "ok":
        pairs = zip(got[1], expected[1]) if type(expected[1]) is tuple else \
            [(got[1], expected[1])]
        for g, e in pairs:
            assert type(g) is type(e)
            np.testing.assert_array_equal(g, e)
            assert np.asarray(g).dtype == np.asarray(e).dtype
    else:  # a graph check adds the user's file:line to Python's message
        assert got[1].startswith(expected[1]), (got, expected)


def compare(fn, make_args, options, calls=1):
    """Run `fn` as Python (decorated functions it calls too) and as an ag.function on
    fresh arguments, `calls` times each (the ag.function keeps its traces), comparing
    outcomes and the arguments after."""
    converted = ag.function(fn, **options)
    for _ in range(calls):
        eager_args, graph_args = make_args(), make_args()
        ag.run_functions_eagerly(True)
        try:
            expected = outcome(fn, eager_args)
        finally:
            ag.run_functions_eagerly(False)
        with warnings.catch_warnings():
            warnings.filterwarnings("ignore", message="jit_compile")
            got = outcome(converted, graph_args)
        same_outcome(got, expected)
        for e, g in zip(eager_args, graph_args):
            if isinstance(e, np.ndarray):
                assert g.dtype == e.dtype and g.shape == e.shape
                np.testing.assert_array_equal(g, e)
    return expected[0]


# -- (a) raise and assert inside symbolic loops --------------------------------------
def while_write_then_raise(x, n, stop):
    i = np.int64(0)
    while i < n:
        x[i] = 10.0 + i
        if i == stop:
            raise ValueError("stopped")
        i += 1
    return x


def while_raise_then_write(x, n, stop):
    i = np.int64(0)
    while i < n:
        if i == stop:
            raise ValueError("stopped")
        x[i] = 10.0 + i
        i += 1
    return x.sum()


def for_accumulate_then_assert(x, n, limit):
    for i in range(n):
        x += i
        assert x.sum() < limit, "over the limit"
    x *= 2
    return x


def nested_loops_write_two_arguments(x, y, n, stop):
    for i in range(n):
        for j in range(n):
            x[i, j] = i * 10 + j
            if i * n + j == stop:
                raise IndexError("cell")
        y[i] = x[i].sum()
    return x, y


@pytest.mark.parametrize("options", MODES)
@pytest.mark.parametrize("stop", [0, 2, 4, 9])
def test_raise_in_while_loop_after_earlier_iterations_wrote(stop, options):
    make = lambda: (np.zeros(5), np.int64(5), np.int64(stop))  # noqa: E731
    compare(while_write_then_raise, make, options)
    compare(while_raise_then_write, make, options)


@pytest.mark.parametrize("options", MODES)
@pytest.mark.parametrize("limit", [0.5, 4.0, 20.0, 100.0])
def test_assert_in_for_loop_over_symbolic_range(limit, options):
    compare(for_accumulate_then_assert, lambda: (np.zeros(3), np.int64(5), np.float64(limit)),
            options, calls=2)


@pytest.mark.parametrize("options", MODES)
@pytest.mark.parametrize("stop", [0, 5, 8, 20])
def test_raise_in_nested_loops_two_arguments(stop, options):
    compare(nested_loops_write_two_arguments,
            lambda: (np.zeros((3, 3)), np.zeros(3), np.int64(3), np.int64(stop)), options)


# -- (b) errors raised by operations -----------------------------------------------
def write_inverse_write(x, a):
    x[0] = 5.0
    b = np.linalg.inv(a)
    x[1] = b[0, 0]
    return b


def inverse_in_loop(x, a, n):
    for i in range(n):
        x[i] = np.linalg.inv(a + i)[0, 0]  # singular when a + i is
    return x


def write_then_index(x, table, i):
    x[0] = 3.0
    x[1] = table[i]  # out of bounds: IndexError
    x[2] = 4.0
    return x


def write_then_divide(x, y, k):
    x += 1.0
    z = x / y  # FloatingPointError under np.errstate(all="raise") when y has zeros
    q = k // (k - 2)  # integer division by zero: FloatingPointError under errstate
    x[0] = q
    return z


def write_then_range_check(x, step):
    x[0] = 1.0
    for i in range(0, 5, step):  # range() arg 3 must not be zero: a graph check
        x[1] += i
    return x


@pytest.mark.parametrize("options", MODES)
@pytest.mark.parametrize("singular", [False, True])
def test_linalg_error_after_a_write(singular, options):
    a = np.zeros((2, 2)) if singular else np.eye(2) * 2
    compare(write_inverse_write, lambda: (np.zeros(3), a.copy()), options, calls=2)


@pytest.mark.parametrize("options", MODES)
@pytest.mark.parametrize("shift", [-3.0, -1.0, 1.0])
def test_linalg_error_inside_a_loop(shift, options):
    a = np.array([[1.0, 0.0], [0.0, 0.0]]) + shift  # singular at iteration -shift
    compare(inverse_in_loop, lambda: (np.zeros(4), a.copy(), np.int64(4)), options)


@pytest.mark.parametrize("options", MODES)
@pytest.mark.parametrize("i", [1, 3, -4, 7])
def test_index_error_after_a_write(i, options):
    compare(write_then_index, lambda: (np.zeros(3), np.arange(3.0), np.int64(i)), options)


@pytest.mark.parametrize("options", MODES)
@pytest.mark.parametrize("y, k", [(1.0, 5), (0.0, 5), (1.0, 2)])
def test_floating_point_errors_after_writes(y, k, options):
    with np.errstate(all="raise"):
        compare(write_then_divide, lambda: (np.ones(2), np.full(2, y), np.int64(k)), options)


def python_int_division(x, n):
    k = 0
    for i in range(n):  # symbolic: the Python int `k` is carried exactly
        x[i] = 1.0 + k
        k += 1
    x[0] = 100 // (k - 3)  # ZeroDivisionError when n == 3, as in Python
    return x


@pytest.mark.parametrize("options", MODES)
@pytest.mark.parametrize("n", [2, 3, 4])
def test_zero_division_of_python_ints_after_loop_writes(n, options):
    compare(python_int_division, lambda: (np.zeros(4), np.int64(n)), options, calls=2)


@pytest.mark.parametrize("options", MODES)
@pytest.mark.parametrize("step", [1, 0])
def test_graph_check_after_a_write(step, options):
    compare(write_then_range_check, lambda: (np.zeros(3), np.int64(step)), options)


# -- (c) Python state ------------------------------------------------------------
class Model:
    def __init__(self):
        self.w = np.zeros(2)
        self.cache = {"steps": np.zeros(2)}
        self.history = []

    def step(self, g, a):
        self.w = self.w - 0.1 * g
        self.cache["steps"] = self.cache["steps"] + 1.0
        b = np.linalg.inv(a)  # fails for a singular `a`
        self.w = self.w + b[0]
        self.history.append(self.w.sum())
        return self.w


TOTAL = {"sum": np.zeros(2)}
counter = np.float64(0.0)


def update_globals(x, stop):
    global counter
    counter = counter + 1.0
    for i in range(x.shape[0]):
        TOTAL["sum"] = TOTAL["sum"] + x[i]
        if i == stop:
            raise RuntimeError("stop")
    counter = counter + 10.0
    return counter


def state_of(model):
    return (model.w.copy(), model.cache["steps"].copy(), [float(h) for h in model.history])


@pytest.mark.parametrize("options", MODES)
@pytest.mark.parametrize("pattern", ["ok fail ok", "fail fail ok", "ok ok fail"])
def test_state_on_self_after_an_op_error(pattern, options):
    eager, graph = Model(), Model()
    converted = ag.function(Model.step, **options)
    for k, kind in enumerate(pattern.split()):
        a = np.zeros((2, 2)) if kind == "fail" else np.eye(2) * (k + 1)
        g = np.arange(2.0) + k
        expected = outcome(Model.step, (eager, g, a))
        with warnings.catch_warnings():
            warnings.filterwarnings("ignore", message="jit_compile")
            got = outcome(converted, (graph, g, a))
        same_outcome(got, expected)
        for e, h in zip(state_of(eager), state_of(graph)):
            np.testing.assert_array_equal(h, e)
        assert type(graph.w) is type(eager.w)


@pytest.mark.parametrize("options", MODES)
def test_globals_after_a_raise_in_a_loop(options):
    global counter
    converted = ag.function(update_globals, **options)
    for stop in [9, 1, 0, 9, 2]:
        results = []
        for fn in (update_globals, converted):
            TOTAL["sum"], counter = np.zeros(2), np.float64(0.0)
            with warnings.catch_warnings():
                warnings.filterwarnings("ignore", message="jit_compile")
                got = outcome(fn, (np.arange(6.0).reshape(3, 2), np.int64(stop)))
            results.append((got, TOTAL["sum"].copy(), counter))
        (expected, e_sum, e_counter), (got, g_sum, g_counter) = results
        same_outcome(got, expected)
        np.testing.assert_array_equal(g_sum, e_sum)
        assert g_counter == e_counter and type(g_counter) is type(e_counter)


# -- what cannot be redone ----------------------------------------------------------
def test_printed_output_is_not_repeated(capsys):
    def show_then_fail(x, a):
        x[0] = 1.0
        ag.print("before", x[0])
        return np.linalg.inv(a)

    for fn in (show_then_fail, ag.function(show_then_fail)):
        x = np.zeros(2)
        with pytest.raises(np.linalg.LinAlgError):
            fn(x, np.zeros((2, 2)))
        assert capsys.readouterr().out == "before 1.0\n"
        assert x[0] == 1.0


def test_variable_assigned_before_an_error_is_said_in_a_note():
    v = ag.Variable(np.zeros(2))

    @ag.function
    def assign_then_fail(x, a):
        x[0] = 1.0
        v.assign_add(np.ones(2))
        return np.linalg.inv(a)

    x = np.zeros(2)
    assign_then_fail(x, np.eye(2))
    with pytest.raises(np.linalg.LinAlgError) as info:
        assign_then_fail(x, np.zeros((2, 2)))
    assert "assigns an ag.Variable" in "\n".join(info.value.__notes__)
    np.testing.assert_array_equal(v.numpy(), [2.0, 2.0])  # assigned once per call


def test_loaded_function_says_its_writes_are_not_done(tmp_path):
    f = ag.function(write_then_index)
    f(np.zeros(3), np.arange(3.0), np.int64(1))
    ag.save(f, tmp_path / "f.agz")
    loaded = ag.load(tmp_path / "f.agz")
    x = np.zeros(3)
    with pytest.raises(IndexError) as info:
        loaded(x, np.arange(3.0), np.int64(5))
    assert "no Python code to run" in "\n".join(info.value.__notes__)
    np.testing.assert_array_equal(x, np.zeros(3))


def test_warnings_before_the_error_are_not_repeated():
    def divide_then_fail(x, a):
        x[0] = 1.0
        x[1] = x[0] / x[2]  # divide by zero: RuntimeWarning
        return np.linalg.inv(a)

    counts = []
    for fn in (divide_then_fail, ag.function(divide_then_fail)):
        x = np.zeros(3)
        with warnings.catch_warnings(record=True) as seen:
            warnings.simplefilter("always")
            with pytest.raises(np.linalg.LinAlgError):
                fn(x, np.zeros((2, 2)))
        counts.append(sum(issubclass(w.category, RuntimeWarning) for w in seen))
        np.testing.assert_array_equal(x, [1.0, np.inf, 0.0])
    assert counts[1] == counts[0] == 1


class Buffer:
    def __init__(self):
        self.buf = np.zeros(4)

    def fill(self, values, stop):
        for i in range(values.shape[0]):
            self.buf[i] = values[i] * 2  # an array of state written in place
            if i == stop:
                raise ValueError("stop")
        return self.buf.sum()


@pytest.mark.parametrize("options", MODES)
def test_state_array_written_in_place_in_a_loop(options):
    eager, graph = Buffer(), Buffer()
    converted = ag.function(Buffer.fill, **options)
    for k, stop in enumerate([9, 1, 9, 0, 2]):
        values = np.arange(4.0) + 10 * k
        expected = outcome(Buffer.fill, (eager, values, np.int64(stop)))
        with warnings.catch_warnings():
            warnings.filterwarnings("ignore", message="jit_compile")
            got = outcome(converted, (graph, values, np.int64(stop)))
        same_outcome(got, expected)
        np.testing.assert_array_equal(graph.buf, eager.buf)


@ag.function
def inner_write_then_check(y, i):
    y[0] = y[0] + 1.0
    return y[i]  # IndexError when i is out of bounds


def outer_calls_inner(x, y, i):
    x[:] = 5.0
    v = inner_write_then_check(y, i)
    x[1] = v
    return x


@pytest.mark.parametrize("options", MODES)
@pytest.mark.parametrize("i", [1, 9])
def test_error_inside_a_called_function(i, options):
    compare(outer_calls_inner, lambda: (np.zeros(3), np.zeros(2), np.int64(i)), options,
            calls=2)


# -- errors raised while tracing -------------------------------------------------------
def write_then_python_raise(x, n):
    x[0] = 7.0
    if n > 2:  # a Python value: the trace itself raises, on every call with this n
        raise ValueError("too big")
    x[1] = 8.0
    return x


def write_then_python_assert(x, n):
    x += 1.0
    assert n < 5, "n too big"
    x *= 3.0
    return x


def write_then_constant_inverse(x, singular):
    x[0] = 2.0
    b = np.linalg.inv(np.zeros((2, 2)) if singular else np.eye(2))
    x[1] = b[0, 0]
    return x


@pytest.mark.parametrize("options", MODES)
@pytest.mark.parametrize("n", [1, 3, 7])
def test_error_raised_while_tracing_after_writes(n, options):
    compare(write_then_python_raise, lambda: (np.zeros(3), n), options, calls=2)
    compare(write_then_python_assert, lambda: (np.zeros(3), n), options, calls=2)
    compare(write_then_constant_inverse, lambda: (np.zeros(3), n > 2), options, calls=2)


class Counter:
    def __init__(self):
        self.calls = 0
        self.total = np.zeros(2)

    def add(self, x, limit):
        self.calls += 1
        self.total = self.total + x
        if self.calls > limit:  # Python values: decided while tracing
            raise RuntimeError("limit reached")
        return self.total


@pytest.mark.parametrize("options", MODES)
def test_python_state_after_an_error_raised_while_tracing(options):
    eager, graph = Counter(), Counter()
    converted = ag.function(Counter.add, **options)
    for k in range(5):
        expected = outcome(Counter.add, (eager, np.ones(2) * k, 2))
        with warnings.catch_warnings():
            warnings.filterwarnings("ignore")
            got = outcome(converted, (graph, np.ones(2) * k, 2))
        same_outcome(got, expected)
        assert graph.calls == eager.calls
        np.testing.assert_array_equal(graph.total, eager.total)


def test_error_only_a_trace_raises_is_not_rerun():
    def untaken_branch(x, d):
        x[0] = 7.0
        if x.sum() > 100:  # symbolic: both branches are traced
            x[1] = len(d) + "s"  # TypeError while tracing; Python never runs it here
        return x

    x = np.zeros(3)
    with pytest.raises(TypeError) as info:
        ag.function(untaken_branch)(x, {})
    assert not any("run as Python" in n for n in info.value.__notes__)
    np.testing.assert_array_equal(x, np.zeros(3))  # not run as Python behind the error

    def symbolic_bool(x):
        x[0] = 7.0
        if x.sum() > 100:
            x[1] = 1.0
        return x

    with pytest.raises(ag.GraphModeError):
        ag.function(symbolic_bool, autograph=False)(x)
    np.testing.assert_array_equal(x, np.zeros(3))
