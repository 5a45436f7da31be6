"""The lean `ag__` (autograph/pyct/lean_namespace.py) does on Python values exactly what
the operators do: its plain twins (pyct/plain_operators.py) are compared with the
operators call by call (result, exception, side effects, how often each thunk runs), and
the names it shares with the operators are the same objects.
"""
from __future__ import annotations

import numpy as np
import pytest

import autograph.operators as ops
from autograph.pyct import lean_namespace, plain_operators


class Box:
    """An object whose attribute is a property: a setter call is a visible side effect."""

    def __init__(self, items):
        self._items = items
        self.sets = 0

    @property
    def items(self):
        return self._items

    @items.setter
    def items(self, value):
        self.sets += 1
        self._items = value


class Fresh(Box):
    """A property that returns a new list at each read."""

    @property
    def items(self):
        return list(self._items)

    @items.setter
    def items(self, value):
        self.sets += 1
        self._items = value


class Falsy:
    """A comparison result whose truth is counted (Python takes it once per `and`)."""

    bools = 0

    def __lt__(self, other):
        return Counted(0)

    def __gt__(self, other):
        return Counted(1)


class Counted:
    def __init__(self, v):
        self.v = v

    def __bool__(self):
        Falsy.bools += 1
        return bool(self.v)

    def __repr__(self):
        return f"Counted({self.v})"


def _chain(left, *ops_and_values):
    thunks, calls = [], []
    for i in range(0, len(ops_and_values), 2):
        value = ops_and_values[i + 1]
        thunks += [ops_and_values[i], (lambda v=value: calls.append(v) or v)]
    return left, thunks, calls


CASES = [
    ("compare_chain", lambda: _chain(1, "<", 2, "<", 3)),
    ("compare_chain", lambda: _chain(3, "<", 2, "<", 9)),
    ("compare_chain", lambda: _chain(1, "in", [1], "is not", None, "==", [1])),
    ("compare_chain", lambda: _chain(Falsy(), "<", 1, ">", 0)),
    ("compare_chain", lambda: _chain(Falsy(), ">", 1, "<", 0)),
    ("compare_chain", lambda: _chain("a", "not in", "bc", ">=", "a", "!=", "b")),
    ("compare_chain", lambda: _chain(1, "<", "x")),
]


def _run(fn, *args, **kwargs):
    try:
        return "ok", fn(*args, **kwargs)
    except Exception as e:  # noqa: BLE001 - the exception is the compared outcome
        return type(e).__name__, str(e)


@pytest.mark.parametrize("case", range(len(CASES)))
def test_compare_chain_matches_the_operator(case):
    name, make = CASES[case]
    outcomes = []
    for impl in (getattr(plain_operators, name), getattr(ops, name)):
        Falsy.bools = 0
        left, thunks, calls = make()
        outcome = _run(impl, left, *thunks)
        outcomes.append((repr(outcome), calls, Falsy.bools))
    assert outcomes[0] == outcomes[1]


def _stores():
    return [
        ("setitem", lambda: ([1, 2, 3],), lambda t: (t, 1, 5)),
        ("setitem", lambda: ([1, 2, 3],), lambda t: (t, 1, 5, "+=")),
        ("setitem", lambda: ({"a": [1]},), lambda t: (t, "a", [2], "+=")),
        ("setitem", lambda: (np.arange(4),), lambda t: (t, slice(0, 2), 7, "*=")),
        ("setitem", lambda: ([1, 2],), lambda t: (t, 5, 0)),
        ("setitem", lambda: ([[1], [2]],), lambda t: (t, 0, [9], None, True)),
        ("setitem", lambda: ((1, 2),), lambda t: (t, 0, 1)),
        ("setitem_attr", lambda: (Box([1, 2]),), lambda b: (b, "items", 0, 7)),
        ("setitem_attr", lambda: (Fresh([1, 2]),), lambda b: (b, "items", 1, 3, "+=")),
        ("array_item", lambda: ([4, 5],), lambda t: (t, -1)),
        ("array_item", lambda: ({"k": 1},), lambda t: (t, "j")),
        ("array_item", lambda: (np.arange(6).reshape(2, 3),), lambda t: (t, (1, slice(None)))),
        ("list_append", lambda: ([1],), lambda t: (t, 2)),
        ("list_pop", lambda: ([1, 2, 3],), lambda t: (t, 0)),
        ("list_pop", lambda: ([],), lambda t: (t,)),
        ("assert_stmt", lambda: (None,), lambda _: (1 == 1,)),
        ("assert_stmt", lambda: (None,), lambda _: ([], lambda: "empty")),
        ("assert_stmt", lambda: (None,), lambda _: (0,)),
        ("python_iterable", lambda: (None,), lambda _: ([1], False)),
        ("try_graph_mode", lambda: (None,), lambda _: ()),
        ("jumped_over", lambda: (None,), lambda _: (lambda: 5, "x")),
        ("jumped_over", lambda: (None,), lambda _: (_unbound_read, "y")),
        ("print_text", lambda: ([],), lambda out: (_appender(out), lambda: ("a", 1))),
    ]


def _appender(out):
    return lambda *a, **k: out.append((a, k))


def _unbound_read():
    return never_bound  # noqa: F821 - a NameError, as a jumped-over variable gives


def _state(x):
    if isinstance(x, Box):
        return repr((x._items, x.sets))
    return repr(x)


@pytest.mark.parametrize("case", range(len(_stores())))
def test_each_plain_twin_matches_its_operator(case):
    name, make, args_of = _stores()[case]
    outcomes = []
    for impl in (getattr(plain_operators, name), getattr(ops, name)):
        target = make()[0]
        outcome = _run(impl, *args_of(target))
        outcomes.append((_state(outcome), _state(target)))
    assert outcomes[0] == outcomes[1]


def test_with_and_try_statements_behave_alike():
    class Manager:
        log: list = []

        def __enter__(self):
            self.log.append("enter")
            return 5

        def __exit__(self, *exc):
            self.log.append(exc[0].__name__ if exc[0] else None)
            return True  # swallows

    def run(with_manager, try_stmt):
        Manager.log = []
        seen = []
        with with_manager(Manager()) as v:
            seen.append(v)
            raise KeyError
        with try_stmt(lambda: (ValueError,)) as t:
            try:
                with t.body():
                    raise ValueError("x")
            except ValueError as e:
                seen.append(str(e))
        with pytest.raises(ZeroDivisionError):
            with try_stmt(lambda: (KeyError,)) as t:
                try:
                    with t.body():
                        seen.append(1 / 0)
                except KeyError:
                    seen.append("wrong")
        return seen, Manager.log

    assert run(plain_operators.with_manager, plain_operators.try_stmt) == \
        run(ops.with_manager, ops.try_stmt)


def test_print_twins_print_what_the_operators_print(capsys):
    for impl in (plain_operators, ops):
        impl.print_text(print, lambda: ("v", 3, [1]), sep="|", end="!\n")
        impl.print_("w", 4, sep="-")
    out = capsys.readouterr().out.splitlines()
    assert out[:2] == out[2:] and out[0] == "v|3|[1]!"


def test_every_twin_is_an_operator_and_shared_names_are_the_operators_own():
    for name in plain_operators.OPERATORS:
        assert callable(getattr(ops, name)), name
    for name in ("ld", "ld_attr", "ld_declared", "defined", "with_locals", "locals_", "dir_",
                 "Undefined", "UNSET", "slice_", "autograph_artifact"):
        lean, real = vars(lean_namespace)[name], getattr(ops, name)
        if name == "autograph_artifact":  # both register the code as generated
            def f():
                return 1
            assert lean(f) is f and ops.autograph_artifact(f) is f
            continue
        assert lean is real, name
