"""Dual-path converted code (converters/dual_path.py): on Python values each `if`, `while`,
`for`, conditional expression and `and`/`or`/`not` runs as the original statement, with
no `ag__` control-flow operator called; a symbolic test takes the functional form,
including a loop whose test turns symbolic part-way. Differential: converted (and traced)
against the original on the same inputs.
"""
from __future__ import annotations

import dataclasses
import itertools
import sys

import numpy as np
import pytest

import autograph as ag
from autograph import operators
from autograph.converters import fast_tests
from autograph.impl import api as impl
from autograph.pyct import registry

FUNCTIONAL_FORMS = ("if_stmt", "while_stmt", "for_stmt", "if_exp", "and_", "or_", "not_",
                    "truth", "compare_chain")


def collatz(n):
    steps = 0
    while n != 1:
        if n % 2 == 0:
            n = n // 2
        else:
            n = 3 * n + 1
        steps += 1
    return steps


def search(xs, t):
    for i, x in enumerate(xs):
        if x > t and not x == 99:
            return i
    return -1


def mixed(a, b, c, xs):
    r = a and b or not c
    y = [v for v in (xs or [1]) if v and not c]
    z = 0 < a <= 5 and (b if c else a)
    k = 0
    while k < 3 and (a or b):
        k += 1
        if k == 2:
            continue
        if c and k > 1:
            break
    return r, y, z, k


class Counter:
    def __init__(self):
        self.n = 0

    def bump(self, k):
        for _ in range(k):
            if self.n % 3 == 2:
                self.n += 2
            else:
                self.n += 1
        return self.n


def uses_counter(k):
    c = Counter()
    c.bump(k)
    return c.bump(1)


def named_after_assignment(x, k):
    b = k * 2                # the user's own name, assigned right before it is tested
    if b:
        y = x + b
    else:
        y = x
    c = x > k
    if c:
        y = y * 2.0
    return y, b


PYTHON_CASES = [
    (collatz, [(27,), (1,), (6,)]),
    (search, [([1, 5, 9], 4), ([], 0), ([99, 100], 50)]),
    (mixed, [args + ([0, 2],) for args in
             itertools.product([0, 1, 9], [0, True, [], "x"], [None, 0, 2, True])]),
    (uses_counter, [(0,), (5,), (12,)]),
    (named_after_assignment, [(1.5, 1), (1.5, 0)]),
]


@pytest.fixture
def no_functional_forms(monkeypatch):
    """Every functional-form operator raises: converted code on Python values must not
    reach one."""
    def refuse(name):
        def run(*args, **kwargs):
            raise AssertionError(f"ag__.{name} ran on Python values")
        return run
    for name in FUNCTIONAL_FORMS:
        monkeypatch.setattr(operators, name, refuse(name))


@pytest.mark.parametrize("fn, inputs", PYTHON_CASES, ids=lambda c: getattr(c, "__name__", ""))
def test_python_values_run_the_original_statements(fn, inputs, no_functional_forms):
    converted = ag.to_graph(fn)
    for args in inputs:
        assert converted(*args) == fn(*args)


@pytest.mark.parametrize("fn, inputs", PYTHON_CASES, ids=lambda c: getattr(c, "__name__", ""))
def test_python_values_equal_the_original(fn, inputs):
    converted = ag.to_graph(fn)
    for args in inputs:
        got, want = converted(*args), fn(*args)
        assert got == want and type(got) is type(want)


# -- symbolic tests, and tests that turn symbolic part-way ----------------------------------
def while_turns_symbolic(x):
    v = 0.0          # a Python float: the first test is Python
    k = 0
    while v < 10.0:  # symbolic from the second iteration on: hands over to a graph loop
        v = v + x
        k += 1
    return v, k


def if_on_symbolic_in_python_loop(x, items):
    total = x * 0.0
    for item in items:   # a Python list: the loop runs inline while tracing
        if x > item:     # symbolic: a `cond` node
            total = total + item
        else:
            total = total - item
    return total


def break_turns_symbolic(x, items):
    found = -1.0
    for item in items:   # the break flag becomes symbolic on the first item
        if item * x > 4.0:
            found = item * x
            break
    return found


def while_break_turns_symbolic(xs, t):
    i = 0
    n = len(xs)
    while i < n:         # Python test; the break flag becomes symbolic at xs[i] > t
        if xs[i] > t:
            break
        i += 1
    return i


def ternary_and_boolops(x, n):
    y = x if x > 0 else -x
    ok = x > 1 and n > 0 or not x < -5
    return y, np.where(ok, 1.0, 0.0)


SYMBOLIC_CASES = [
    (while_turns_symbolic, [(np.float64(3.0),), (np.float64(0.5),), (np.float64(20.0),)]),
    (if_on_symbolic_in_python_loop, [(np.float64(2.5), [1.0, 2.0, 3.0])]),
    (break_turns_symbolic, [(np.float64(1.5), [1.0, 2.0, 3.0, 4.0]),
                            (np.float64(0.1), [1.0, 2.0])]),
    (while_break_turns_symbolic, [(np.array([1.0, 5.0, 2.0]), np.float64(3.0)),
                                  (np.array([1.0, 2.0]), np.float64(3.0))]),
    (ternary_and_boolops, [(np.float64(2.0), 1), (np.float64(-7.0), 0),
                           (np.float64(0.5), 1)]),
]


@pytest.mark.parametrize("jit", [False, True])
@pytest.mark.parametrize("fn, inputs", SYMBOLIC_CASES, ids=lambda c: getattr(c, "__name__", ""))
def test_symbolic_tests_take_the_functional_form(fn, inputs, jit):
    f = ag.function(fn, jit_compile=jit)  # (the dev extra installs numba: no skip)
    for args in inputs:
        got, want = f(*args), fn(*args)
        np.testing.assert_allclose(got, want)
        assert np.asarray(got).dtype == np.asarray(want).dtype


CALLS: list = []


def probe(v):
    CALLS.append(type(v).__name__)
    return v < 10.0


def loop_inline(x):
    v = 0.0
    while probe(v):  # a Python float first, then symbolic: the inline loop hands over
        v = v + x
    return v


def loop_functional(x):  # the functional form from the start, as before dual paths
    return operators.while_stmt(lambda v: probe(v), lambda v: v + x, (0.0,), ("v",))


def test_while_hands_over_its_first_symbolic_test_without_evaluating_it_again():
    want = loop_inline(3.0)
    CALLS.clear()
    assert ag.function(loop_inline)(np.float64(3.0)) == want
    inline = list(CALLS)
    CALLS.clear()
    assert ag.function(loop_functional)(np.float64(3.0)) == want
    assert inline[:2] == ["float", "Tensor"] and inline == CALLS


def test_walrus_of_the_user_is_kept():
    def f(xs):
        out = []
        for x in xs:
            if (y := x * 2) > 2 and (z := y + 1):  # binds in the function, as in Python
                out.append((y, z))
        return out, y
    assert ag.to_graph(f)([1, 2, 3]) == f([1, 2, 3])


# -- calls on Python values (converters/fast_paths.py) ----------------------------------------
def helper_a(v):
    return v + 1


def helper_b(v):
    return v * 10


helper = helper_a


def calls_helper(xs):
    return [helper(x) for x in xs] + [len(xs), abs(-len(xs))]


def test_a_call_site_follows_its_name_when_it_is_rebound(monkeypatch):
    converted = ag.to_graph(calls_helper)
    assert converted([1, 2]) == calls_helper([1, 2])
    monkeypatch.setitem(globals(), "helper", helper_b)
    assert converted([1, 2]) == calls_helper([1, 2]) == [10, 20, 2, 2]
    monkeypatch.setitem(globals(), "len", lambda xs: 7)  # a global shadows the builtin
    assert converted([1, 2]) == calls_helper([1, 2]) == [10, 20, 7, 7]
    monkeypatch.delitem(globals(), "len")
    assert converted([1, 2]) == calls_helper([1, 2])


def countdown(n):
    return 0 if n == 0 else 1 + countdown(n - 1)


def _deepest(fn) -> int:
    """The largest n for which fn(n) returns (it raises RecursionError beyond)."""
    lo, hi = 0, 100_000
    while lo < hi:
        mid = (lo + hi + 1) // 2
        try:
            fn(mid)
            lo = mid
        except RecursionError:
            hi = mid - 1
    return lo


def test_recursion_on_python_values_stops_at_pythons_own_depth():
    converted = ag.to_graph(countdown)
    assert converted(50) == countdown(50)
    # one frame per level, as in Python (no counting outside a trace). At most one level
    # apart: at the deepest level CPython 3.11's comparison that feeds a jump needs no
    # C-level call, while the dual path keeps the test's value (`cond = n == 0`), whose
    # comparison is one C call the recursion limit counts
    assert 0 <= _deepest(countdown) - _deepest(converted) <= 1


def code_of_callee():
    return sys._getframe().f_code


def calls_code_of_callee():
    return code_of_callee()


def test_a_callee_marked_do_not_convert_after_its_first_call_runs_as_is(monkeypatch):
    converted = ag.to_graph(calls_code_of_callee)
    codes = []

    def traced(x):  # (outside traces a callee always runs as written)
        codes.append(converted())
        return x

    ag.function(traced)(np.float64(1.0))
    assert codes[-1] is not code_of_callee.__code__  # its converted version ran
    monkeypatch.setattr(code_of_callee, registry.DO_NOT_CONVERT_ATTR, True, raising=False)
    ag.do_not_convert(code_of_callee)  # (the call site forgets what it called)
    ag.function(traced)(np.float64(1.0))
    assert codes[-1] is code_of_callee.__code__
    assert converted() is code_of_callee.__code__ and calls_code_of_callee() is \
        code_of_callee.__code__


class Scaler:
    def __init__(self, k):
        self.k = k

    def apply(self, x):
        if x > 0:  # symbolic while tracing: the method must run converted
            return x * self.k
        return -x


def scaled(x):
    if x > 0:
        return x * 3.0
    return -x


def uses_callees(s, x):
    total = x * 0.0
    for _ in range(3):  # each call site called again: what it cached runs
        total = total + s.apply(x) + scaled(x)
    return total


@pytest.mark.parametrize("jit", [False, True])
def test_call_sites_filled_on_python_values_call_converted_code_in_traces(jit):
    s = Scaler(2.0)
    assert ag.to_graph(uses_callees)(s, 1.5) == uses_callees(s, 1.5)  # fills the sites
    f = ag.function(uses_callees, jit_compile=jit)
    for x in (np.float64(1.5), np.float64(-2.0)):
        got, want = f(s, x), uses_callees(s, x)
        assert got == want and type(got) is type(want)


# -- subscript stores on Python values (converters/fast_paths.py) ------------------------------
ORDER: list = []


def noted(tag, value):
    ORDER.append(tag)
    return value


class LoudDict(dict):
    def __setitem__(self, key, value):
        ORDER.append(("set", key))
        super().__setitem__(key, value)


def stores(d, xs, k):
    d[k] = 1
    d[k] += 2
    xs[0] += 5
    xs[1:] = [9, 9]
    xs[noted("index", 0)] = noted("value", 7)  # Python evaluates the value first
    d[noted("key", k)] += noted("increment", 1)
    return d, xs


@pytest.mark.parametrize("make", [dict, LoudDict])
@pytest.mark.parametrize("seq", [list, np.array])
def test_subscript_stores_equal_the_original(make, seq):
    results = []
    for fn in (stores, ag.to_graph(stores)):
        ORDER.clear()
        d, xs = make(), seq([1, 2, 3])
        out = fn(d, xs, "q")
        assert out[0] is d and out[1] is xs  # written in place
        results.append((dict(d), type(d), list(xs), type(xs), list(ORDER)))
    assert results[0] == results[1]


class Bag:
    def __init__(self):
        self.items = []
        self.reads = 0

    @property
    def adder(self):  # counts how often the attribute is read
        self.reads += 1
        return self.items.append

    def values(self):
        return list(self.items)

    def fill(self, n):
        for k in range(n):
            self.adder(k)          # a builtin method reached through a property
            self.items.append(-k)  # a builtin method of an attribute
        doubled = [2 * v for v in self.values()]  # a method in a comprehension's iterable
        return doubled, sorted(v for v in self.values() if v > 0), self.reads


def test_method_call_sites_read_the_attribute_once_and_equal_the_original():
    got = ag.to_graph(Bag.fill)(Bag(), 4)
    assert got == Bag.fill(Bag(), 4) and got[2] == 4


def plus_one(y):
    return y + 1.0


def branch_calls_a_converted_function(x):
    g = ag.to_graph(plus_one)  # a converted function in a branch's closure
    if x > 0:
        r = g(x)
    else:
        r = x - 1.0
    return r


@pytest.mark.parametrize("x", [np.float64(2.0), np.float64(-2.0)])
def test_a_converted_function_in_a_symbolic_branch_equals_the_original(x):
    got, want = ag.function(branch_calls_a_converted_function)(x), \
        branch_calls_a_converted_function(x)
    assert got == want and type(got) is type(want)


# -- tests handed over through Python's own jump (converters/fast_tests.py) -------------------
needs_fast_tests = pytest.mark.skipif(not fast_tests.ENABLED,
                                      reason="the compiled code keeps the dual-path tests")


@needs_fast_tests
@pytest.mark.parametrize("fn, inputs", PYTHON_CASES, ids=lambda c: getattr(c, "__name__", ""))
def test_compiled_tests_ask_nothing_of_python_values(fn, inputs, monkeypatch):
    """The running code of an `if` / `while` with a plain test asks no `ag__.symbolic`."""
    def refuse(x):
        raise AssertionError("ag__.symbolic asked of a plain test")
    converted = ag.to_graph(fn)  # (compiled before the patch: `mixed` asks for its and/or)
    monkeypatch.setattr(operators, "symbolic", refuse)
    for args in inputs if fn is not mixed else ():
        assert converted(*args) == fn(*args)


class Truthy:
    """Counts how often Python takes its truth."""
    def __init__(self, values):
        self.values, self.asked = list(values), 0

    def __bool__(self):
        self.asked += 1
        return self.values.pop(0)


def truth_taken_once(flags):
    t = Truthy(flags)
    n = 0
    while t:
        n += 1
    u = Truthy([False])
    if not u:
        n += 10
    return n, t.asked, u.asked


def test_a_python_values_truth_is_taken_once():
    for flags in ([False], [True, True, False]):
        assert ag.to_graph(truth_taken_once)(list(flags)) == truth_taken_once(list(flags))


def negated_tests(x, k):
    done = k > 3             # a Python bool, or symbolic when x is tested below
    steps = 0
    while not done:          # symbolic from the second iteration: hands over
        steps += 1
        done = x * steps > 4.0
    if not (x > 1.0):
        steps = steps + 100
    return steps


def handover_then_break(x, items):
    total = x * 0.0
    k = 0
    while k < len(items):    # a Python test throughout
        if x > items[k]:     # symbolic: hands over, then the loop goes on inline
            total = total + 1.0
        k += 1
        if k == 2:
            break
    return total, k


def elif_and_named_tests(x, n):
    flag = x > 0.5
    if n > 2:
        r = x * 2.0
    elif flag:               # a name tested: the value handed over is the name's
        r = x + 1.0
    else:
        r = -x
    return r


def subscripts_in_tests(x, xs):
    n = 0
    for i in range(3):
        if xs[i] > x:        # a list's or an array's item against a symbolic value
            n = n + 1
    k = 2
    while xs[k]:             # the item itself tested (Python values)
        k -= 1
    return n, k


HANDOVER_CASES = [
    (named_after_assignment, [(np.float64(1.5), 1), (np.float64(1.5), 0),
                              (np.float64(0.5), np.int64(3))]),
    (subscripts_in_tests, [(np.float64(0.5), [1.0, 0.0, 3.0]),
                           (np.float64(1.5), np.array([1.0, 0.0, 3.0]))]),
    (negated_tests, [(np.float64(2.0), 1), (np.float64(0.5), 5), (np.float64(1.5), 0)]),
    (handover_then_break, [(np.float64(2.0), [1.0, 3.0, 0.0]), (np.float64(0.0), [1.0])]),
    (elif_and_named_tests, [(np.float64(2.0), 1), (np.float64(0.1), 1), (np.float64(2.0), 3)]),
]


@pytest.mark.parametrize("jit", [False, True])
@pytest.mark.parametrize("fn, inputs", HANDOVER_CASES, ids=lambda c: getattr(c, "__name__", ""))
def test_symbolic_tests_hand_over_from_the_statement_as_written(fn, inputs, jit):
    f = ag.function(fn, jit_compile=jit)
    for args in inputs:
        got, want = f(*args), fn(*args)
        np.testing.assert_allclose(got, want)
        assert type(got) is type(want)


@ag.do_not_convert
def left_as_python(t):
    if t:                    # a symbolic value here is an error (code left as Python)
        return 1.0
    return 0.0


def calls_python_in_body(x, n):
    if n > 0:
        y = left_as_python(x > 0)
    else:
        y = x
    return y


def calls_python_in_test(x):
    while left_as_python(x > 0) > 2.0:
        x = x - 1.0
    return x


def _error_of(fn, *args) -> tuple:
    try:
        ag.function(fn)(*args)
    except Exception as e:  # noqa: BLE001 (what it is, is the result)
        return type(e), str(e), e.__traceback__ is not None
    return None, "", False


@pytest.mark.parametrize("fn, args", [(calls_python_in_body, (np.float64(1.0), 1)),
                                      (calls_python_in_test, (np.float64(1.0),))])
def test_a_symbolic_value_tested_elsewhere_raises_as_with_dual_path_tests(fn, args,
                                                                         monkeypatch):
    """Not the statement's own test (a callee's, left as Python): the error goes on as
    the dual-path form raises it."""
    with_fast = _error_of(fn, *args)
    monkeypatch.setattr(fast_tests, "ENABLED", False)
    impl._reset_caches()
    try:
        assert _error_of(fn, *args) == with_fast and with_fast[0] is ag.GraphModeError
    finally:
        impl._reset_caches()


def mismatched_branches(x):
    if x > 0:
        r = "a"              # a graph cannot choose between a str and a number
    else:
        r = 1.0
    return r


def test_an_error_of_the_functional_form_is_not_chained_to_the_handover():
    with pytest.raises(TypeError, match="symbolic `if`") as info:
        ag.function(mismatched_branches)(np.float64(1.0))
    assert info.value.__context__ is None


# -- method calls on builtin receivers (converters/fast_paths.py) ----------------------------
class Recorder:
    def __init__(self):
        self.items, self.reads = [], 0

    @property
    def box(self):           # counts how often the receiver is read
        self.reads += 1
        return self.items


class Shouting(list):
    def append(self, v):     # a method of the user's on a list: not a builtin receiver
        super().append(str(v).upper())


def receivers(r, text, n, extra):
    seen = 0
    for k in range(n):
        seen += r.box.count(k)           # a list reached through a property: read once
        r.items.append(k)
        text = text.strip("x").upper()   # a str, then the str a call returned
        extra.append(text[:1])
    d = {}
    d.setdefault("a", []).append(n)      # the receiver is a call's result
    return text, seen, list(r.items), r.reads, d, list(extra)


@pytest.mark.parametrize("make", [list, Shouting])
def test_method_calls_on_builtin_receivers_equal_the_original(make):
    got = ag.to_graph(receivers)(Recorder(), "xabcx", 3, make())
    assert got == receivers(Recorder(), "xabcx", 3, make())


def receivers_in_a_trace(x, n):
    r = Recorder()
    text, seen, items, reads, d, extra = receivers(r, "xabcx", n, [])
    return x * (seen + len(items) + reads + len(d["a"]) + len(extra)), text


def test_method_calls_on_builtin_receivers_in_a_trace():
    got, want = ag.function(receivers_in_a_trace)(np.float64(1.5), 3), \
        receivers_in_a_trace(np.float64(1.5), 3)
    assert got[0] == want[0] and got[1] == want[1]


@dataclasses.dataclass(frozen=True)
class Frozen:
    items: list


def appends_to_attributes(f, r, n):
    for k in range(n):
        f.items.append(k)                # never assigns `f.items` (a frozen dataclass)
        r.box.append(-k)                 # reads the property once, sets nothing
    return list(f.items), list(r.items), r.reads


def test_appends_to_attributes_run_as_written_on_python_values():
    got = ag.to_graph(appends_to_attributes)(Frozen([]), Recorder(), 3)
    assert got == appends_to_attributes(Frozen([]), Recorder(), 3)


# -- reads of branch functions bound when they are made (converters/bound_reads.py) ----------
def read_in_branch_then_written(x):
    a = np.zeros(3)
    if x > 0:                # symbolic: the branch only reads `a`
        y = a.sum() + x
    else:
        y = x - a[1]
    a[0] = x                 # then a symbolic value written into the array `a` alone holds
    return y, a


def appended_in_symbolic_loop(x, n):
    out = []
    k = 0
    while k < n:             # a Python test: the loop runs inline
        if x > k:            # symbolic: the branch only reads `out` and `k`
            v = x * k
        else:
            v = x
        out.append(v)
        k += 1
    return out


@pytest.mark.parametrize("fn, args", [
    (read_in_branch_then_written, (np.float64(2.0),)),
    (read_in_branch_then_written, (np.float64(-2.0),)),
    (appended_in_symbolic_loop, (np.float64(1.5), 3)),
])
def test_branches_reading_variables_equal_the_original(fn, args):
    got, want = ag.function(fn)(*args), fn(*args)
    assert len(got) == len(want)
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w)
        assert type(g) is type(w)


def test_a_recursive_call_does_not_make_its_argument_a_cell():
    """(`fib(n)` reads `n` in its functional form: a cell would cost every call.)"""
    def fib(n):
        if n < 2:
            return n
        return fib(n - 1) + fib(n - 2)
    converted = ag.to_graph(fib)
    assert converted(12) == fib(12)
    if fast_tests.ENABLED:
        assert converted.__code__.co_cellvars == ()
