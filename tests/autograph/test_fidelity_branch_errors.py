"""An error raised while tracing a branch of a symbolic `if` keeps its type (user code
catching it still works) and carries a note naming the user's `if` line, saying both
branches are traced because the condition is symbolic, and how to fix it. A failed
lookup or `// 0` on Python values is not such an error: it is raised when the graph takes
that path, as in Python (test_python_errors_on_untaken_paths.py)."""
import numpy as np
import pytest

import autograph as ag
from autograph.errors import Diagnostic
from tests.helpers import assert_same


def untaken_key(a):
    x = {"a": a}
    if a > 0:              # the if
        x["b"] = "c" + 1
    return x


def untaken_else(a, items):
    if a > 0:              # the if
        y = a
    else:
        y = a + items.count()
    return y


def nested_ifs(a, b):
    y = a
    if a > 0:              # the outer if
        if b > 0:          # the inner if
            y = {"k": 1}["k"] + "missing"
    return y


def ternary(a, d):
    return a if a > 0 else d["nope"] + ""  # the if


def untaken_lookup(a):
    x = {"a": a}
    if a > 0:
        x["b"]["c"] = 1
    return x


def caught_by_the_caller(a):
    try:
        return ag.function(untaken_key)(a)
    except TypeError:
        return "caught"


def line_of(fn, marker):
    import inspect

    lines, start = inspect.getsourcelines(fn)
    return start + next(k for k, line in enumerate(lines) if marker in line)


def _notes(error):
    return "\n".join(getattr(error, "__notes__", []))


@pytest.mark.parametrize("fn, args, exc, side", [
    (untaken_key, (np.int32(0),), TypeError, "true"),
    (untaken_else, (np.int32(1), [1, 2]), TypeError, "false"),
    (ternary, (np.float32(1.0), {"nope": 1}), TypeError, "false"),
])
def test_error_in_a_traced_branch_gets_a_note_at_the_if(fn, args, exc, side):
    fn(*args)  # Python raises nothing for these inputs
    with pytest.raises(exc) as info:
        ag.function(fn)(*args)
    note = _notes(info.value)
    assert f"{fn.__code__.co_filename}:{line_of(fn, '# the if')}:" in note
    assert f"the {side} branch" in note and "both branches are traced" in note
    assert "symbolic" in note and "d.get(key)" in note and "Python value" in note
    assert type(info.value) is exc


def test_innermost_if_names_the_line_once():
    with pytest.raises(TypeError) as info:
        ag.function(nested_ifs)(np.int32(-1), np.int32(-1))
    note = _notes(info.value)
    assert note.count("both branches are traced") == 1
    assert f":{line_of(nested_ifs, '# the inner if')}:" in note


def test_user_code_catching_the_type_still_works():
    assert caught_by_the_caller(np.int32(0)) == "caught"


def test_python_condition_runs_python_and_raises_nothing():
    assert_same(ag.function(untaken_key)(0), untaken_key(0))
    assert_same(ag.to_graph(untaken_key)(np.int32(0)), untaken_key(np.int32(0)))


def test_a_failed_lookup_is_raised_only_where_the_path_is_taken():
    assert_same(ag.function(untaken_lookup)(np.int32(0)), untaken_lookup(np.int32(0)))
    with pytest.raises(KeyError, match="'b'"):
        untaken_lookup(np.int32(1))
    with pytest.raises(KeyError, match="'b'"):
        ag.function(untaken_lookup)(np.int32(1))


def test_diagnostics_are_left_as_they_are():
    def one_branch_defines(a):
        if a > 0:
            z = [a]  # (a list: an array or a number is carried: test_fidelity_partly_bound)
        return z
    with pytest.raises(Diagnostic) as info:
        ag.function(one_branch_defines)(np.int32(1))
    assert "both branches are traced" not in _notes(info.value)
