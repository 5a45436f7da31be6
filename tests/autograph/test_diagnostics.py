"""Every diagnostic names the variable (where there is one) and the user's file:line."""
from __future__ import annotations

import inspect
import os
import traceback

import numpy as np
import pytest

from tests.helpers import assert_same

import autograph as ag
from autograph.errors import ConversionError

THIS = os.path.basename(__file__)


def line_of(fn, text: str) -> int:
    lines, first = inspect.getsourcelines(fn)
    for k, line in enumerate(lines):
        if text in line:
            return first + k
    raise AssertionError(f"{text!r} not in {fn.__name__}")


def where(fn, text: str) -> str:
    return f"{THIS}:{line_of(fn, text)}"


# -- branches ---------------------------------------------------------------------------
def defined_in_one_branch(x):
    if x > 0:  # the if
        y = x * 2
    return y


def named_in_one_branch(x):
    if x > 0:  # the if
        y = "positive"
    return y


def test_variable_defined_in_one_branch():
    # (an array or a number is carried with whether it is bound: test_fidelity_partly_bound)
    with pytest.raises(ValueError) as info:
        ag.function(named_in_one_branch)(np.float32(1.0))
    msg = str(info.value)
    assert "'y'" in msg and "true branch" in msg
    assert where(named_in_one_branch, "# the if") in msg


def test_variable_defined_in_one_branch_is_fine_with_python_values():
    assert ag.to_graph(defined_in_one_branch)(1.0) == 2.0
    with pytest.raises(UnboundLocalError):
        ag.to_graph(defined_in_one_branch)(-1.0)


def attribute_created_in_one_branch(box, x):
    if x > 0:  # the if
        box.v = x
        return 1.0
    return 0.0


def test_attribute_created_in_one_branch_of_a_symbolic_if():
    with pytest.raises(ValueError) as info:
        ag.function(attribute_created_in_one_branch)(_Obj(), np.float32(1.0))
    msg = str(info.value)
    assert "'box.v'" in msg and "true branch" in msg
    assert where(attribute_created_in_one_branch, "# the if") in msg


def returns_in_one_branch(x):
    if x > 0:  # the if
        return x
    print("falls through")


def test_branch_returns_and_other_falls_through():
    with pytest.raises(ValueError) as info:
        ag.function(returns_in_one_branch)(np.float32(1.0))
    msg = str(info.value)
    assert "returns a value" in msg and "falls through" in msg
    assert where(returns_in_one_branch, "# the if") in msg


def branch_dtype_mismatch(x):
    if x > 0:  # the if
        y = np.float32(1.0) * x
    else:
        y = np.int64(2) + np.zeros((), np.int64)
    return y


def test_branch_dtype_mismatch_names_variable():
    with pytest.raises(TypeError) as info:
        ag.function(branch_dtype_mismatch)(np.float32(1.0))
    msg = str(info.value)
    assert "y" in msg and "float32" in msg and "int64" in msg
    assert where(branch_dtype_mismatch, "# the if") in msg


# -- loops --------------------------------------------------------------------------------
def loop_dtype_changes(n):
    x = np.zeros((), np.float64)
    i = 0
    while i < n:  # the loop
        x = (x * 0.5).astype(np.int64)  # a narrowing NumPy never does by itself
        i += 1
    return x


def test_loop_variable_dtype_change():
    with pytest.raises(TypeError) as info:
        ag.function(loop_dtype_changes)(np.int64(3))
    msg = str(info.value)
    assert "x" in msg and "int64" in msg and "float64" in msg
    assert where(loop_dtype_changes, "# the loop") in msg


def loop_shape_changes(n):
    x = np.zeros((1,), np.float32)
    i = 0
    while i < n:  # the loop
        x = np.concatenate([x, x])
        i += 1
    return x


def loop_rank_changes(n):
    x = np.zeros((1,), np.float32)
    i = 0
    while i < n:  # the loop
        x = np.stack([x, x])
        i += 1
    return x


def loop_shape_relaxed(n):
    x = np.zeros((1,), np.float32)
    i = 0
    while i < n:
        ag.set_loop_options(shape_invariants=[(x, (None,))])
        x = np.concatenate([x, x])
        i += 1
    return x


def test_loop_variable_shape_change_relaxes_and_rank_change_says_why():
    # a dimension that changes becomes unknown (as in TF); a rank change stays an error
    for fn in (loop_shape_changes, loop_shape_relaxed):
        for n in (0, 3):
            assert_same(ag.function(fn)(np.int64(n)), fn(np.int64(n)))
    with pytest.raises(ValueError) as info:
        ag.function(loop_rank_changes)(np.int64(3))
    msg = str(info.value)
    assert "x" in msg and "shape" in msg and "rank" in msg
    assert where(loop_rank_changes, "# the loop") in msg


def created_in_loop(n):
    i = 0
    while i < n:  # the loop
        last = i * 2
        i += 1
    return last


def test_variable_created_in_symbolic_loop():
    """Accepted with a run-time check that the loop ran (as tf.function does)."""
    f = ag.function(created_in_loop)
    assert f(np.int64(3)) == created_in_loop(np.int64(3))
    with pytest.raises(UnboundLocalError) as info:
        f(np.int64(0))
    assert "'last'" in str(info.value)
    notes = " ".join(info.value.__notes__)
    assert where(created_in_loop, "return last") in notes  # (where Python raises it)
    assert ag.to_graph(created_in_loop)(3) == 4


def non_scalar_if(x):
    if x > 0:  # the if
        return x
    return -x


def non_scalar_while(x):
    while x > 0:  # the loop
        x = x - 1
    return x


def test_non_scalar_conditions():
    with pytest.raises(ValueError) as info:
        ag.function(non_scalar_if)(np.ones(3, np.float32))
    assert "scalar" in str(info.value)
    assert where(non_scalar_if, "# the if") in str(info.value)
    with pytest.raises(ValueError) as info:
        ag.function(non_scalar_while)(np.ones(3, np.float32))
    assert "scalar" in str(info.value)
    assert where(non_scalar_while, "# the loop") in str(info.value)


# -- unsupported constructs -----------------------------------------------------------------
def generator(n):
    for i in range(n):
        yield i  # the yield


async def coroutine(x):
    return x


def uses_await(x):
    def inner():
        return x
    return inner()


def try_around_symbolic_if(x):
    try:
        if x > 0:  # the if
            x = x * 2
    except KeyError:
        x = x
    return x


def test_yield_is_a_conversion_error():
    with pytest.raises(ConversionError) as info:
        ag.to_graph(generator)
    assert where(generator, "# the yield") in str(info.value)
    assert "yield" in str(info.value)


def test_async_is_a_conversion_error():
    with pytest.raises(ConversionError) as info:
        ag.to_graph(coroutine)
    assert "async" in str(info.value)


def test_try_around_symbolic_control_flow():
    # the `try` is a graph construct: the symbolic `if` inside it is a graph branch
    assert ag.to_graph(try_around_symbolic_if)(2.0) == 4.0
    for x in (np.float32(2.0), np.float32(-1.0)):
        assert ag.function(try_around_symbolic_if)(x) == try_around_symbolic_if(x)


def loop_else_symbolic(n):
    found = 0
    for i in range(n):
        if i == 2:
            break
    else:
        found = 1
    return found


def test_loop_else_with_symbolic_condition_is_supported():
    f = ag.function(loop_else_symbolic)
    assert f(np.int64(5)) == 0 and f(np.int64(2)) == 1 and f.tracing_count == 1


def test_no_source_is_a_conversion_error():
    namespace: dict = {}
    exec("def made_by_exec(x):\n    return x\n", namespace)
    with pytest.raises(ConversionError) as info:
        ag.to_graph(namespace["made_by_exec"])
    assert "source" in str(info.value) and "autograph=False" in str(info.value)


# -- errors at run time point at user lines -----------------------------------------------
def fails_inside_branch(x):
    if x > 0:
        y = x + 1
    else:
        y = [1, 2][5]  # the failing line
    return y


def test_traceback_shows_user_line():
    with pytest.raises(IndexError) as info:
        ag.to_graph(fails_inside_branch)(-1.0)
    frames = traceback.extract_tb(info.value.__traceback__)
    assert any(f.filename == __file__ and f.lineno == line_of(fails_inside_branch,
                                                              "# the failing line")
               and "[5]" in f.line for f in frames)


class _Obj:
    pass


def missing_attribute_in_branch(obj, x):
    if x > 0:
        obj.count += 1  # reads a missing attribute
        return 1
    return 0


def test_missing_attribute_is_pythons_error_on_the_users_line():
    with pytest.raises(AttributeError) as expected:
        missing_attribute_in_branch(_Obj(), 1)
    converted = ag.to_graph(missing_attribute_in_branch)
    with pytest.raises(AttributeError) as info:
        converted(_Obj(), 1)
    assert str(info.value) == str(expected.value)
    mine = [f for f in traceback.extract_tb(info.value.__traceback__) if f.filename == __file__]
    assert mine[-1].lineno == line_of(missing_attribute_in_branch, "# reads a missing")
    assert converted(_Obj(), -1) == 0  # the other branch does not need it, as in Python


class _ReadOnly:
    @property
    def p(self):
        return 0


def writes_read_only_attribute(obj, x):
    if x > 0:  # the if
        obj.p = x
        return 1
    return 0


def test_error_writing_state_on_python_values_points_at_pythons_line():
    """On a Python condition the `if` runs inline: the error is on Python's line."""
    with pytest.raises(AttributeError) as expected:
        writes_read_only_attribute(_ReadOnly(), 1)
    with pytest.raises(AttributeError) as info:
        ag.to_graph(writes_read_only_attribute)(_ReadOnly(), 1)
    assert str(info.value) == str(expected.value)

    def mine(e):
        return [f for f in traceback.extract_tb(e.__traceback__) if f.filename == __file__]
    assert mine(info.value)[-1].lineno == mine(expected.value)[-1].lineno


def _function_lines(fn):
    lines, first = inspect.getsourcelines(fn)
    return range(first, first + len(lines))


def test_generated_code_has_only_user_lines():
    """Every node of converted code (so every traceback line) is on a line of the user's
    function: generated nodes take the line of the statement they stand for."""
    import ast

    from autograph.impl import api
    from autograph.pyct import gast_to_ast
    from tests.autograph import test_golden
    from tests.autograph.corpus import CASES

    fns = [c.fn for c in CASES] + list(test_golden.CASES) + \
        [missing_attribute_in_branch, writes_read_only_attribute]
    for fn in fns:
        fn = api._plain_function(fn)
        node, _, _ = api._convert_node(fn, True)
        lines = _function_lines(fn)
        for n in ast.walk(gast_to_ast.convert(node)):
            line = getattr(n, "lineno", None)
            assert line is None or line in lines, (fn.__name__, ast.unparse(n), line)
