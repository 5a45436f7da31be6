"""A nested function that assigns a variable of its enclosing function (`nonlocal`),
called inside a symbolic loop, branch, `while` test or graph `try` - directly, from a
sibling or a nested def, through a dict, a list, a lambda or a helper, as a method of a
class the function defines: the variable is carried like one the block assigns itself
(`converters/nonlocal_writes.py`). Before, the cell kept the value of the one traced
iteration or branch - a value of a finished trace (LeakedTensorError), or silently the
branch not taken.

Eager Python/NumPy against ag.function, jit_compile=True, ag.to_graph and the
`autograph convert` output of this file run as is and under ag.function, on inputs
taking each path. A closure made outside the converted function that rebinds a variable
of its own enclosing function cannot be carried: calling it in a symbolic block, or
having it store a graph value in a cell that is not the traced function's own, is a
TypeError naming the fix (`test_closure_from_outside_*`)."""
from __future__ import annotations

import importlib.util

import numpy as np
import pytest

import autograph as ag
from tests.helpers import assert_same


def count_positive(x):
    count = 0

    def inc(v):
        nonlocal count
        count += int(v > 0)

    for v in x:
        inc(v)
    return count


def total_in_a_branch(x):
    total = np.zeros(2)

    def add(v):
        nonlocal total
        total = total + v

    if np.sum(x) > 0:
        add(x)
    else:
        add(-x * 2)
    return total


def running_max_in_a_while(x):
    best = -np.inf
    i = np.int64(0)

    def see(v):
        nonlocal best
        best = max(best, v)

    while i < x.shape[0]:
        see(x[i])
        i += 1
    return best, i


def two_levels(x):
    calls = 0

    def outer_step(v):
        def note():
            nonlocal calls
            calls += 1
        if v > 1:
            note()

    for v in x:
        outer_step(v)
    return calls


def in_a_symbolic_while(x):
    steps = 0
    s = np.float64(0.0)

    def step(v):
        nonlocal steps
        if v > 1.5:
            steps += 2
        else:
            steps += 1

    while s < np.sum(np.abs(x)):
        s = s + 1.0
        step(s)
    return steps, s


def in_a_graph_try(x):
    hits = 0.0

    def note(v):
        nonlocal hits
        hits = hits + v

    try:
        note(np.linalg.inv(x.reshape(2, 2)).sum())
    except np.linalg.LinAlgError:
        note(-1.0)
    return hits


def try_in_a_loop(x):
    seen = 0.0

    def note(v):
        nonlocal seen
        seen = seen + v

    for row in x.reshape(-1, 2, 2):
        try:
            note(np.linalg.det(np.linalg.inv(row)))
        except np.linalg.LinAlgError:
            note(100.0)
    return seen


def called_through_a_dict_and_a_list(x):
    acc = 0.0

    def pos(v):
        nonlocal acc
        acc = acc + v

    def neg(v):
        nonlocal acc
        acc = acc - 2 * v

    table = {"pos": pos}
    others = [neg]
    for v in x:
        if v > 0:
            table["pos"](v)
        else:
            others[0](v)
    return acc


def array_plus_equals(x):
    buf = np.zeros(3)

    def add(row):
        nonlocal buf
        buf += row

    for row in x.reshape(-1, 3):
        if np.sum(row) > 0:
            add(row)
    return buf


def declared_but_only_read(x):
    scale = 2.0
    out = np.float64(0.0)

    def scaled(v):
        nonlocal scale
        return v * scale

    for v in x:
        out = out + scaled(v)
    return out, scale


def not_called_on_one_path(x):
    count = 0
    last = np.float64(0.0)

    def keep(v):
        nonlocal count, last
        count += 1
        last = v

    for v in x:
        if v > 0:
            keep(v)
    return count, last


def defined_in_the_loop_body(x):
    total = np.float64(0.0)
    for v in x:
        def add():
            nonlocal total
            total = total + v * v
        if v < 0:
            add()
    return total


def a_sibling_calls_the_writer(x):
    hits = 0

    def note():
        nonlocal hits
        hits += 1

    def step(v):
        if v > 0:
            note()

    for v in x:
        step(v)
    return hits


def a_while_test_rebinds(x):
    tests = 0
    s = np.float64(0.0)

    def more():
        nonlocal tests
        tests += 1
        return s < np.sum(x)

    while more():
        s = s + 1.0
    return tests, s


def _apply(fn, v):
    fn(v)


def passed_to_a_helper(x):
    acc = 0.0

    def add(v):
        nonlocal acc
        acc = acc + v

    for v in x:
        if v > 0:
            _apply(add, v)
    return acc


def through_a_lambda(x):
    n = 0

    def bump(k):
        nonlocal n
        n += k

    fs = [lambda: bump(2)]
    for v in x:
        if v > 0:
            fs[0]()
    return n


def a_method_rebinds(x):
    hits = 0

    class Counter:
        def hit(self):
            nonlocal hits
            hits += 1

    c = Counter()
    for v in x:
        if v > 1:
            c.hit()
    return hits


CASES = [(count_positive, np.array([1.0, -1.0, 2.0])),
         (count_positive, np.array([-1.0, -2.0])),
         (total_in_a_branch, np.array([1.0, 2.0])),
         (total_in_a_branch, np.array([-1.0, -2.0])),
         (running_max_in_a_while, np.array([1.0, 5.0, 2.0])),
         (two_levels, np.array([0.5, 2.0, 3.0])),
         (in_a_symbolic_while, np.array([1.0, -2.5])),
         (in_a_symbolic_while, np.array([0.5])),
         (in_a_graph_try, np.array([1.0, 2.0, 3.0, 4.0])),
         (in_a_graph_try, np.zeros(4)),
         (try_in_a_loop, np.array([1.0, 2.0, 3.0, 4.0, 0.0, 0.0, 0.0, 0.0])),
         (called_through_a_dict_and_a_list, np.array([1.0, -1.0, 3.0])),
         (array_plus_equals, np.array([1.0, 2.0, 3.0, -4.0, -5.0, -6.0])),
         (declared_but_only_read, np.array([1.0, 2.0])),
         (not_called_on_one_path, np.array([1.0, -2.0, 3.0])),
         (not_called_on_one_path, np.array([-1.0])),
         (defined_in_the_loop_body, np.array([1.0, -2.0, -3.0])),
         (a_sibling_calls_the_writer, np.array([1.0, -2.0, 3.0])),
         (passed_to_a_helper, np.array([1.0, -2.0, 3.0])),
         (through_a_lambda, np.array([1.0, -2.0, 3.0])),
         (a_method_rebinds, np.array([1.0, 2.0, 3.0])),
         (a_while_test_rebinds, np.array([1.0, 1.5])),
         (a_while_test_rebinds, np.array([-1.0]))]
IDS = [f"{f.__name__}-{i}" for i, (f, _) in enumerate(CASES)]


def _inputs(x):
    return (x,), (x[::-1].copy(),)


@pytest.mark.parametrize("fn,x", CASES, ids=IDS)
@pytest.mark.parametrize("mode", ["function", "jit", "to_graph"])
def test_nonlocal_writes_in_symbolic_blocks_match_python(fn, x, mode):
    run = ag.to_graph(fn) if mode == "to_graph" else ag.function(fn, jit_compile=mode == "jit")
    for args in _inputs(x):
        assert_same(run(*args), fn(*args))


@pytest.fixture(scope="module")
def converted_module(tmp_path_factory):
    from autograph.impl.static import convert_module_source

    with open(__file__) as f:
        text = convert_module_source(f.read(), __file__)
    path = tmp_path_factory.mktemp("cli") / "converted_nonlocal_writes.py"
    path.write_text(text)
    spec = importlib.util.spec_from_file_location("converted_nonlocal_writes", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("fn,x", CASES, ids=IDS)
def test_autograph_convert_output_matches_python(fn, x, converted_module):
    converted = getattr(converted_module, fn.__name__)
    for args in _inputs(x):
        assert_same(converted(*args), fn(*args))
        assert_same(ag.function(converted)(*args), fn(*args))


def _counting_function():
    count = 0

    def f(x):
        def inc():
            nonlocal count
            count += 1
        for v in x:
            if v > 0:
                inc()
        return count

    return f, lambda: count


@pytest.mark.parametrize("jit", [False, True])
def test_converted_closure_whose_nested_def_rebinds_its_free_variable(jit):
    """The variable belongs to the function around the converted one: the converted
    function declares it `nonlocal` and carries it; its value is written back after
    each call, as the Python function leaves it."""
    eager, eager_count = _counting_function()
    graph, graph_count = _counting_function()
    run = ag.function(graph, jit_compile=jit)
    for x in (np.array([1.0, -1.0, 2.0]), np.array([-3.0, 4.0, 5.0]), np.array([-1.0])):
        assert_same(run(x), eager(x))
        assert graph_count() == eager_count()


def _outside_counter():
    count = 0

    def inc():
        nonlocal count
        count += 1

    def get():
        return count

    return inc, get


def test_closure_from_outside_called_in_a_symbolic_branch_is_an_error():
    inc, get = _outside_counter()

    def f(x):
        if np.sum(x) > 0:
            inc()
        return x * 2

    with pytest.raises(TypeError, match=r"(?s)inc assigns `count`.*inside a branch.*Return the new value"):
        ag.function(f)(np.ones(2))
    assert get() == 0


def test_closure_from_outside_storing_a_graph_value_is_an_error():
    def make_total():
        total = 0.0

        def add(v):
            nonlocal total
            total = total + v

        return add, lambda: total

    add, get = make_total()

    def f(x):
        add(np.sum(x))
        return x * 2

    with pytest.raises(TypeError, match=r"(?s)`total`.*stores a value computed in the graph"):
        ag.function(f)(np.ones(2))
    assert get() == 0.0  # (no symbolic value left in the cell)


def test_closure_from_outside_storing_python_values_runs_while_tracing():
    inc, get = _outside_counter()

    def f(x):
        inc()
        return x * 2

    run = ag.function(f)
    assert_same(run(np.ones(2)), np.ones(2) * 2)
    assert_same(run(np.ones(2)), np.ones(2) * 2)
    assert get() == 1  # (a Python effect of the trace: once per trace, docs/sharp_bits.md)


def _adder_and_function(in_a_branch: bool):
    total = 0.0

    def add(v):
        nonlocal total
        total = total + v

    def f(x):
        if in_a_branch:
            if np.sum(x) > 0:
                add(np.sum(x))
        else:
            add(np.sum(x))
        return total * 1.0

    return f, lambda: total


def test_closure_from_outside_storing_into_the_functions_own_cell_is_written_back():
    """The cell is also a variable of the traced function (`total`): its state, written
    back with the graph's value after every call."""
    eager, eager_total = _adder_and_function(False)
    graph, graph_total = _adder_and_function(False)
    run = ag.function(graph)
    for x in (np.array([1.0, 1.5]), np.array([2.0, -4.0])):
        assert_same(run(x), eager(x))
        assert graph_total() == eager_total()


def test_closure_from_outside_storing_into_the_functions_own_cell_in_a_branch_is_an_error():
    graph, graph_total = _adder_and_function(True)
    with pytest.raises(TypeError, match=r"(?s)add assigns `total`.*inside a branch"):
        ag.function(graph)(np.ones(2))
    assert graph_total() == 0.0


def rebinding_in_a_conditional_expression(x):
    n = 0

    def inc():
        nonlocal n
        n += 1
        return 1.0

    y = x[0] if x[0] > 0 else inc()
    return y, n


def rebinding_in_an_or(x):
    n = 0

    def inc():
        nonlocal n
        n += 1
        return True

    y = bool(x[0] > 0) or inc()
    return y, n


@pytest.mark.parametrize("fn", [rebinding_in_a_conditional_expression, rebinding_in_an_or])
def test_rebinding_call_in_an_expression_with_a_symbolic_condition_is_an_error(fn):
    """Both operands of a symbolic `a if c else b` / `a or b` are traced: the call would
    rebind the variable on the path not taken. An `if` statement carries it."""
    with pytest.raises(TypeError, match=r"(?s)assigns `n`.*Write it as an `if` statement"):
        ag.function(fn)(np.array([1.0]))


@pytest.mark.parametrize("fn", [rebinding_in_a_conditional_expression, rebinding_in_an_or])
def test_rebinding_call_in_an_expression_on_python_values_is_python(fn):
    for x in ([1.0], [-1.0]):
        assert_same(ag.to_graph(fn)(x), fn(x))
        assert_same(ag.function(fn)(x), fn(x))
