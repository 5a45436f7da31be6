"""Saved graphs with a graph `try` (handlers, `finally`, errstate regions, re-raises,
the values a body marks for its handlers): eager NumPy vs `ag.function` vs
`ag.load(ag.save(...))` on inputs that raise in the body, in a handler, or not at all;
the exception classes a file may name; and the loader's checks of what a `try` names."""
from __future__ import annotations

import json

import numpy as np
import pytest

import autograph as ag
from tests.helpers import assert_same
from tests.saved.roundtrip import roundtrip
from tests.saved.tamper import read_agz, write_agz

pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")


def inverse_or_zeros(x):
    try:
        y = np.linalg.inv(x)
    except np.linalg.LinAlgError:
        y = np.zeros_like(x)
    return y


def handler_raises(x):
    try:
        y = np.linalg.inv(x)
    except np.linalg.LinAlgError as e:
        raise ValueError("singular") from e
    return y


def reraised(x):
    try:
        y = np.linalg.inv(x) * 2.0
    except np.linalg.LinAlgError:
        ag.print("failed")
        raise
    return y


def nested(x, i):
    try:
        try:
            y = np.linalg.inv(x)
        except np.linalg.LinAlgError:
            y = x + x[i]
    except IndexError:
        y = -np.ones_like(x)
    return y


def in_a_symbolic_loop(x, n):
    total = np.zeros_like(x)
    k = 0
    while k < n:
        try:
            total = total + np.linalg.inv(x * k)
        except np.linalg.LinAlgError:
            total = total - 1.0
        k += 1
    return total


def finally_returns(x):
    y = x
    try:
        y = np.linalg.inv(x)
    finally:
        return y + 1.0  # noqa: B012 - the construct under test


def marked_between_operations(x, y):
    a = x
    try:
        a = np.linalg.inv(x)
        b = a @ y
        a = np.linalg.inv(b)
    except np.linalg.LinAlgError:
        return a * 3.0
    return a


def errstate_region(x):
    try:
        with np.errstate(divide="raise"):
            y = 1.0 / x
    except FloatingPointError:
        y = np.zeros_like(x)
    return y


SINGULAR, EYE = np.zeros((2, 2)), np.eye(2) * 2.0
CASES = [
    (inverse_or_zeros, [(SINGULAR,), (EYE,)]),
    (handler_raises, [(SINGULAR,), (EYE,)]),
    (reraised, [(SINGULAR,), (EYE,)]),
    (nested, [(SINGULAR, np.array(1)), (SINGULAR, np.array(5)), (EYE, np.array(5))]),
    (in_a_symbolic_loop, [(EYE, 3), (EYE, 0), (SINGULAR, 2)]),
    (finally_returns, [(SINGULAR,), (EYE,)]),
    (marked_between_operations, [(SINGULAR, EYE), (EYE, SINGULAR), (EYE, EYE.copy())]),
    (errstate_region, [(np.array([1.0, 0.0]),), (np.array([2.0, 4.0]),)]),
]


def outcome(fn, args, capsys):
    try:
        result = "value", fn(*args)
    except Exception as e:  # noqa: BLE001 - the outcome compared
        cause = type(e.__cause__) if e.__cause__ is not None else None
        result = "error", (type(e), e.args, cause)
    return result, capsys.readouterr().out


def assert_same_outcome(got, want):
    assert got[0][0] == want[0][0], (got, want)
    if got[0][0] == "value":
        assert_same(got[0][1], want[0][1])
    else:
        assert got[0][1] == want[0][1]
    assert got[1] == want[1]


@pytest.mark.parametrize("fn,arg_sets", CASES, ids=[fn.__name__ for fn, _ in CASES])
def test_saved_try_equals_eager(fn, arg_sets, tmp_path, capsys):
    function = ag.function(fn)
    for args in arg_sets:
        outcome(function, args, capsys)
    path = tmp_path / "f.agz"
    ag.save(function, str(path))
    loaded = ag.load(str(path))
    assert "try" in str(loaded.concrete_functions[0].graph)
    for args in arg_sets:
        want = outcome(fn, args, capsys)
        assert_same_outcome(outcome(function, args, capsys), want)
        assert_same_outcome(outcome(loaded, args, capsys), want)
    again = tmp_path / "again.agz"  # a loaded graph saves again, and loads the same
    ag.save(loaded, str(again))
    for args in arg_sets:
        assert_same_outcome(outcome(ag.load(str(again)), args, capsys),
                            outcome(fn, args, capsys))


def test_saved_try_in_a_fresh_process(tmp_path):
    # the exception classes come back by name in a process that never saw the functions
    entries = []
    for fn, arg_sets in CASES[:4]:
        function = ag.function(fn)
        for args in arg_sets:
            try:
                function(*args)
            except Exception:  # noqa: BLE001,S110 - traced either way
                pass
        entries.append((fn.__name__, function, arg_sets))
    roundtrip(entries, tmp_path)


class ModelError(Exception):
    pass


def catches_a_class_of_the_user(x):
    try:
        y = np.linalg.inv(x)
        if y[0, 0] > 1.0:
            raise ModelError("too large")
    except ModelError:
        y = x
    return y


def test_a_user_exception_class_is_refused_by_name(tmp_path):
    function = ag.function(catches_a_class_of_the_user)
    assert_same(function(EYE * 0.1), catches_a_class_of_the_user(EYE * 0.1))
    with pytest.raises(ag.SaveError, match=r"test_saved_try\.ModelError cannot be saved.*"
                                           r"never runs code"):
        ag.save(function, str(tmp_path / "f.agz"))


def _saved(tmp_path, fn, args):
    function = ag.function(fn)
    try:
        function(*args)
    except Exception:  # noqa: BLE001,S110 - traced either way
        pass
    path = tmp_path / "f.agz"
    ag.save(function, str(path))
    return read_agz(path)


def _nodes(graph):
    for node in graph["nodes"]:
        yield node
        for sub in (node[5].get("subgraphs", {}).values() if len(node) == 6 else ()):
            yield from _nodes(sub)


def _edited(tmp_path, fn, args, edit):
    description, npz = _saved(tmp_path, fn, args)
    for node in _nodes(description["concrete_functions"][0]["graph"]):
        edit(node)
    path = tmp_path / "edited.agz"
    write_agz(path, description, npz)
    return str(path)


def _set(op, key, value):
    def edit(node):
        if node[0] == op:
            node[2][key] = value
    return edit


@pytest.mark.parametrize("fn,args,edit,message", [
    (inverse_or_zeros, (EYE,), _set("try", "kinds_0", {"tuple": [{"exception": "os.system"}]}),
     "not a built-in or NumPy exception class"),
    (errstate_region, (np.ones(2),), _set("try", "errstate", {"tuple": [{"tuple": [
        "all=print(1) or 'raise'", "raise"]}]}), "bad errstate region"),
    (reraised, (EYE,), _set("reraise", "var", "caught_999999"),
     "no enclosing handler caught"),
    (marked_between_operations, (EYE, EYE.copy()), _set("try_mark_read", "var", "mark_999999"),
     "no earlier mark stores"),
    (inverse_or_zeros, (EYE,), _set("try", "n_handlers", 2), "op try has attributes"),
    (reraised, (EYE,), _set("try", "var_0", "x); import os; (y"), "bad attribute var_0"),
])
def test_the_loader_checks_what_a_try_names(fn, args, edit, message, tmp_path):
    path = _edited(tmp_path, fn, args, edit)
    with pytest.raises(ag.LoadError, match=message):
        ag.load(path)


def test_exception_classes_are_saved_by_name(tmp_path):
    description, _ = _saved(tmp_path, nested, (SINGULAR, np.array(1)))
    text = json.dumps(description)
    assert '{"exception": "numpy.linalg.LinAlgError"}' in text
    assert '{"exception": "IndexError"}' in text
