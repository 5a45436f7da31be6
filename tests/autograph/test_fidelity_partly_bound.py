"""Variables a symbolic `if` or loop binds on some paths only (an array or a number): the
graph carries whether the path taken bound them, and a read raises Python's
UnboundLocalError exactly where Python does - never zeros, never the other path's value,
never an error for a program Python runs. Compared with the original Python on the same
inputs in sequence (one Function, so later calls run the first trace): the value with its
dtype and shape, or the exception's type and message; through `ag.function`,
`jit_compile=True`, `ag.to_graph`, `autograph convert` output, and a saved and loaded
graph. Other Python objects bound on one path stay the clear Diagnostic."""
from __future__ import annotations

import numpy as np
import pytest

import autograph as ag
from autograph.errors import Diagnostic
from tests.helpers import assert_same_outcome, converted_module, outcome

pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")


def positive_part(x):
    if x > 0:
        y = x
    return y


def first_above_or_default(x, t):
    for i in range(3):  # a Python loop: a symbolic `break` guards the later iterations
        if x[i] > t:
            found = x[i]
            break
    else:
        found = -1.0
    return found


def first_above_in_a_symbolic_loop(xs, t):
    for v in xs:
        if v > t:
            hit = v
            break
    else:
        hit = np.float64(-1.0)
    return hit


def last_above_in_a_while(xs, t):
    i = np.int64(0)
    while i < xs.shape[0]:
        if xs[i] > t:
            last = xs[i] * 2
        i += 1
    return last


def read_only_where_bound(x):
    if x > 0:
        y = x * 2
    if x > 0:
        z = y
    else:
        z = -x
    return z


def unread(x):
    if x > 0:
        y = x  # noqa: F841 - bound on one path, never read
    return x + 1


def bound_by_two_ifs(x):
    if x > 0:
        y = x
    if x <= 0:
        y = -x
    return y


def nested_branches(x, t):
    if x > 0:
        if x > t:
            y = x - t
        else:
            y = t - x
    return y


def array_bound_on_one_path(a):
    if np.sum(a) > 0:
        doubled = a * 2
    return doubled


def read_before_the_break(x, t):
    for i in range(3):
        if x[i] > t:
            break
        kept = x[i]
    return kept


def python_int_on_one_path(x):
    if x > 0:
        k = 3
    return x * k


def assigned_in_a_while_after(x, n):
    if x > 0:
        y = x
    i = np.int64(0)
    while i < n:  # a loop that binds it on every iteration
        y = x * i
        i += 1
    return y


def updated_in_a_loop_after(x, n):
    if x > 0:
        y = x
    for _ in range(n):
        y = y + 1  # reads it first: raises in the first iteration where it is unbound
    return y


def bound_again_by_some_iterations(x, n):
    if x > 0:
        y = x
    for i in range(n):
        if i > 1:
            y = x + i
    return y


F = np.float64
N = np.int64
XS = np.array([1.0, 4.0, 2.0])
CASES = [
    (positive_part, [(F(2.0),), (F(-1.0),), (F(3.0),)]),
    (first_above_or_default, [(XS, F(1.5)), (XS, F(9.0)), (XS, F(0.0))]),
    (first_above_in_a_symbolic_loop, [(XS, F(1.5)), (XS, F(9.0)), (np.zeros(0), F(0.0))]),
    (last_above_in_a_while, [(XS, F(1.5)), (XS, F(9.0)), (np.zeros(0), F(0.0))]),
    (read_only_where_bound, [(F(2.0),), (F(-1.0),)]),
    (unread, [(F(2.0),), (F(-1.0),)]),
    (bound_by_two_ifs, [(F(2.0),), (F(-1.0),)]),
    (nested_branches, [(F(2.0), F(1.0)), (F(1.0), F(2.0)), (F(-1.0), F(0.0))]),
    (array_bound_on_one_path, [(np.arange(3.0),), (-np.arange(3.0),)]),
    (read_before_the_break, [(XS, F(3.0)), (XS, F(0.0)), (XS, F(9.0))]),
    (python_int_on_one_path, [(F(2.0),), (F(-1.0),)]),
    (assigned_in_a_while_after, [(F(2.0), N(3)), (F(-1.0), N(3)), (F(-1.0), N(0)),
                                 (F(2.0), N(0))]),
    (updated_in_a_loop_after, [(F(2.0), N(3)), (F(-1.0), N(3)), (F(-1.0), N(0))]),
    (bound_again_by_some_iterations, [(F(2.0), N(3)), (F(-1.0), N(3)), (F(-1.0), N(1)),
                                      (F(2.0), N(0))]),
]


@pytest.fixture(scope="module")
def converted(tmp_path_factory):
    return converted_module(__file__, tmp_path_factory.mktemp("converted"),
                            "converted_partly_bound")[0]


@pytest.mark.parametrize("mode", ["function", "jit", "to_graph", "convert"])
@pytest.mark.parametrize("fn,inputs", CASES, ids=[f.__name__ for f, _ in CASES])
def test_same_as_python(fn, inputs, mode, converted):
    if mode == "convert":
        run = ag.function(getattr(converted, fn.__name__))
    elif mode == "to_graph":
        run = ag.to_graph(fn)
    else:
        run = ag.function(fn, jit_compile=mode == "jit")
    for args in inputs + inputs[:1]:  # (the last call runs an existing trace again)
        assert_same_outcome(outcome(run, args, exact_type=True),
                            outcome(fn, args, exact_type=True), args)


def test_the_error_names_the_line_that_reads_it():
    f = ag.function(positive_part)
    f(F(1.0))
    with pytest.raises(UnboundLocalError) as info:
        f(F(-1.0))
    line = positive_part.__code__.co_firstlineno + 3
    assert f"{positive_part.__code__.co_filename}:{line}" in " ".join(info.value.__notes__)


def test_saved_and_loaded(tmp_path):
    f = ag.function(first_above_or_default)
    f(XS, F(1.5))
    ag.save(f, tmp_path / "f.agz")
    loaded = ag.load(tmp_path / "f.agz")
    for args in [(XS, F(1.5)), (XS, F(9.0))]:
        assert_same_outcome(outcome(loaded, args, exact_type=True),
                            outcome(first_above_or_default, args, exact_type=True), args)


def test_the_graph_checks_once_per_read():
    graph = str(ag.function(positive_part).get_concrete_function(F(1.0)).graph)
    assert graph.count("UnboundLocalError") == 1


def sign_name(x):
    if x > 0:
        name = "positive"
    return name


def closure_reads_it(x):
    if x > 0:
        y = x
    read = lambda: y  # noqa: E731
    return read() + 1


def test_other_objects_stay_the_diagnostic():
    with pytest.raises(Diagnostic, match="'name' is defined in the true branch"):
        ag.function(sign_name)(F(1.0))


def test_a_read_it_cannot_check_is_a_clear_error_at_the_users_line():
    line = closure_reads_it.__code__.co_firstlineno + 4  # (`return read() + 1`)
    with pytest.raises(TypeError, match="'y' is bound on some paths") as info:
        ag.function(closure_reads_it)(F(1.0))
    assert f"{closure_reads_it.__code__.co_filename}:{line}: " in str(info.value)


def test_gradients_flow_through_the_path_taken():
    @ag.function
    def grad_of_cube(x):
        with ag.GradientTape() as tape:
            tape.watch(x)
            z = nested_branches(x, F(0.5)) ** 3
        return tape.gradient(z, x)

    for x in (F(2.0), F(0.25)):
        h = 1e-6
        numeric = (nested_branches(x + h, F(0.5)) ** 3 -
                   nested_branches(x - h, F(0.5)) ** 3) / (2 * h)
        np.testing.assert_allclose(grad_of_cube(x), numeric, rtol=1e-5)
    with pytest.raises(UnboundLocalError):
        grad_of_cube(F(-1.0))


def make_nonlocal_writer():
    z = None
    del z

    def write_when_positive(x):
        nonlocal z
        if x > 0:
            z = x
        return x
    return write_when_positive


def test_a_declared_name_bound_on_one_path_stays_the_diagnostic():
    fn = make_nonlocal_writer()
    with pytest.raises(Diagnostic, match="'z' is declared `global` or `nonlocal`"):
        ag.function(fn)(F(1.0))
