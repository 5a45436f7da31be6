"""The Python-values copy of a compiled converted function (converters/python_copy.py):
outside traces a function with a loop runs its statements as written, asking no `ag__`
operator anything; inside a trace it runs the converted form. Differential: converted
against the original on the same inputs (values, types, errors and their lines, the
state of objects after the call), and traced against eager NumPy.
"""
from __future__ import annotations

import sys
import traceback

import numpy as np
import pytest

import autograph as ag
from tests.helpers import converted_module
from autograph import operators

# what the converted form asks on Python values; the copy asks none of these
ASKED = ("if_stmt", "while_stmt", "for_stmt", "if_exp", "and_", "or_", "not_", "truth",
         "compare_chain", "symbolic", "python_iterable", "array_item", "setitem",
         "list_append", "handed_over", "try_stmt", "with_manager", "try_graph_mode")


@pytest.fixture
def nothing_asked(monkeypatch):
    def refuse(name):
        def run(*args, **kwargs):
            raise AssertionError(f"ag__.{name} asked on Python values")
        return run
    for name in ASKED:
        monkeypatch.setattr(operators, name, refuse(name))


class Truthy:
    """Counts how often Python takes its truth."""

    def __init__(self, values):
        self.values, self.asked = list(values), 0

    def __bool__(self):
        self.asked += 1
        return self.values.pop(0)


def loops_and_tests(xs, limit):
    total, seen, kept = 0, {}, []
    for i, x in enumerate(xs):
        if x < 0 and not x == -99:
            continue
        if 0 < x <= limit or x == 99:
            total += x
        elif x > 50:
            break
        seen[x] = seen.get(x, 0) + 1
        kept.append(x if x % 2 else -x - i)
    else:
        total += 1000
    k = 0
    while k < len(kept) and (total or limit):
        k += 1
    return total, seen, kept, k, [v for v in kept if v and not v == 3], \
        kept[0] if kept else None, total > 0 or limit, limit and total


def truth_taken_once(flags):
    t, u = Truthy(flags), Truthy([False, True])
    n = 0
    while t:
        n += 1
    for _ in range(2):
        if not u:
            n += 10
    return n, t.asked, u.asked


def try_with_and_jumps(rows):
    out = []
    for r in rows:
        try:
            v = 10 // r
        except ZeroDivisionError:
            out.append("zero")
            continue
        finally:
            out.append("done")
        with open(__file__) as fh:
            if v > 3:
                out.append(fh.readline()[:3])
        while True:
            v -= 1
            if v < 2:
                break
        out.append(v)
    return out


def nested_lists(grid):
    for i in range(len(grid)):
        for j in range(len(grid[i])):
            if grid[i][j] > grid[0][0]:
                grid[i][j], grid[0][0] = grid[0][0], grid[i][j]
    return grid


class Box:
    def __init__(self):
        self.items, self.sets = [], 0

    def __setattr__(self, name, value):
        if name == "items" and hasattr(self, "items"):
            object.__setattr__(self, "sets", self.sets + 1)
        object.__setattr__(self, name, value)


def fill(box, n):
    for k in range(n):
        box.items.append(k)
        box.items[0] = k
    return box.items, box.sets


def introspect(n):
    names = []
    for k in range(n):  # noqa: B007 (read by `eval`)
        names.append(sorted(v for v in locals() if not v.startswith("."))[:4])
        names.append(eval("k * 2"))
    return names


def returns_from_a_loop(xs, t):
    for i, x in enumerate(xs):
        if x == t:
            return i
    return -1


def branches_without_a_loop(n, xs):
    if n:
        n = n - 1
    label = "some" if xs else "none"
    first = xs and xs[0]
    return n, label, first, not xs, n or xs, -n if n else n


CASES = [
    (branches_without_a_loop, [(3, [4, 5]), (0, []), (2.5, ""), (0, "ab")]),
    (loops_and_tests, [([1, 2, -3, 99, 7, 60, 4], 5), ([], 0), ([3, 3, -99, 0], 4),
                       ([1.5, 2, True], 2)]),
    (truth_taken_once, [([False],), ([True, True, False],)]),
    (try_with_and_jumps, [([1, 0, 2, 5],), ([],)]),
    (nested_lists, [([[1, 5], [7, 2, 9]],), ([[3]],)]),
    (introspect, [(3,)]),
    (returns_from_a_loop, [([4, 5, 6], 5), ([4], 9)]),
]


@pytest.mark.parametrize("fn, inputs", CASES, ids=lambda c: getattr(c, "__name__", ""))
def test_python_values_equal_the_original_and_ask_nothing(fn, inputs, nothing_asked):
    converted = ag.to_graph(fn)
    for args in inputs:
        want = fn(*_copied(args))
        got = converted(*_copied(args))
        assert got == want and type(got) is type(want)


def test_objects_after_the_call_equal_the_original(nothing_asked):
    want, got = Box(), Box()
    assert ag.to_graph(fill)(got, 4) == fill(want, 4)
    assert (got.items, got.sets) == (want.items, want.sets)


def divide_all(xs):
    t = 0
    for x in xs:
        t += 10 // x
    return t


def test_an_error_in_the_copy_points_at_the_users_line():
    def where(fn):
        with pytest.raises(ZeroDivisionError) as info:
            fn([1, 0])
        frame = traceback.extract_tb(info.value.__traceback__)[-1]
        return frame.filename, frame.lineno, frame.line, str(info.value)
    assert where(ag.to_graph(divide_all)) == where(divide_all)


def documented(n):
    """Sums below n."""
    s = 0
    for i in range(n):
        s += i
    return s


def test_the_docstring_stays_the_functions():
    assert ag.to_graph(documented).__doc__ == documented.__doc__
    assert ag.to_graph(documented)(5) == documented(5)


def declares_in_a_loop(n):
    for i in range(n):
        if i == 2:
            global DECLARED
            DECLARED = i
    return n


def test_a_declaration_inside_a_block_keeps_the_converted_form():
    assert ag.to_graph(declares_in_a_loop)(4) == declares_in_a_loop(4)
    assert DECLARED == 2


def make_closure():
    def inner(x):
        s = x * 0
        for k in range(3):
            if x > k:
                s = s + x
        return s
    k = 0
    while k < 2:
        k += 1
    return inner


@pytest.mark.parametrize("jit", [False, True])
def test_a_function_made_outside_traces_takes_the_graph_form_inside_one(jit):
    """A nested function the copy defines may run later, in a trace: it is converted."""
    inner = ag.to_graph(make_closure)()
    f = ag.function(lambda x: inner(x), jit_compile=jit)
    for x in (np.float64(2.0), np.float64(0.5), np.float64(-1.0)):
        want = make_closure()(x)
        got = f(x)
        assert got == want and np.asarray(got).dtype == np.asarray(want).dtype


def grows(x, n):
    acc = x * 0
    i = 0
    for _ in range(n):
        if acc < 5:
            acc = acc + x
        i += 1
    while i < 2 * n and acc > 0:
        acc = acc - 1
        i += 1
    return acc, i


@pytest.mark.parametrize("jit", [False, True])
def test_inside_a_trace_the_converted_form_runs(jit):
    converted = ag.to_graph(grows)
    f = ag.function(grows, jit_compile=jit)
    for x in (np.float64(1.5), np.float64(-2.0)):
        assert converted(float(x), 4) == grows(float(x), 4)
        got, want = f(x, 4), grows(x, 4)
        assert [np.asarray(g).tolist() for g in got] == [np.asarray(w).tolist() for w in want]


def code_of_callee():
    return sys._getframe().f_code


class Probe:
    def code(self):
        return sys._getframe().f_code

    @classmethod
    def class_code(cls):
        return sys._getframe().f_code


def calls_without_a_loop(obj):
    return code_of_callee(), obj.code(), Probe.class_code(), Probe.code(obj)


def calls_in_a_loop(obj):
    out = []
    for _ in range(2):
        out.append((code_of_callee(), obj.code()))
    return out


def test_outside_traces_callees_run_as_written():
    """Nothing is symbolic outside traces: the callee the user wrote runs, not its
    converted version (a frame that reads its own code sees the user's)."""
    want = (code_of_callee.__code__, Probe.code.__code__, Probe.class_code.__code__,
            Probe.code.__code__)
    assert ag.to_graph(calls_without_a_loop)(Probe()) == want
    assert ag.to_graph(calls_in_a_loop)(Probe()) == [want[:2]] * 2


def test_inside_a_trace_callees_run_converted():
    codes = []

    def traced(x):
        codes.append(calls_without_a_loop(Probe()))
        return x

    ag.function(traced)(np.float64(1.0))
    assert not any(c is code_of_callee.__code__ or c is Probe.code.__code__
                   for c in codes[0])


def _copied(args):
    return tuple([list(r) if isinstance(r, list) else r for r in a]
                 if isinstance(a, list) and a and isinstance(a[0], list) else
                 list(a) if isinstance(a, list) else a for a in args)



@pytest.fixture(scope="module")
def module_written(tmp_path_factory):
    """This file as `autograph convert` writes it, imported."""
    return converted_module(__file__, tmp_path_factory.mktemp("converted"),
                            "python_values_copy_module")


def test_a_written_module_shows_the_copy_as_the_users_statements(module_written):
    _, text = module_written
    start = text.index("def divide_all(xs):")
    assert text[start:].splitlines()[1:6] == [
        "    if not ag__.tracing_anywhere:", "        t = 0", "        for x in xs:",
        "            t += 10 // x", "        return t"]


@pytest.mark.parametrize("fn, inputs", CASES, ids=lambda c: getattr(c, "__name__", ""))
def test_a_written_module_equals_the_original_and_asks_nothing(fn, inputs, module_written,
                                                               nothing_asked):
    written = getattr(module_written[0], fn.__name__)
    for args in inputs:
        want = fn(*_copied(args))
        got = written(*_copied(args))
        assert got == want and type(got) is type(want)


def test_a_written_modules_function_takes_the_graph_form_in_a_trace(module_written):
    written = module_written[0].grows
    f = ag.function(lambda x: written(x, 4))
    for x in (np.float64(1.5), np.float64(-2.0)):
        got, want = f(x), grows(x, 4)
        assert [np.asarray(g).tolist() for g in got] == [np.asarray(w).tolist() for w in want]

