"""A graph `try` whose paths leave Python values (strings, None, tuples holding them) in a
variable or a `return`: equal to Python where the paths agree or give numbers, else an
error at the user's line - never the body path's value on the handler's path (what the
`try` gave when a variable was unbound on its first path: the placeholder, which the
`else` or the `return` after it then replaced). Eager against ag.function (also
jit_compile=True), on an input taking each path."""
from __future__ import annotations

import warnings

import numpy as np
import pytest

import autograph as ag
from tests.helpers import assert_same

NOT_PD = np.array([[1.0, 2.0], [2.0, 1.0]])   # cholesky raises LinAlgError
PD = np.eye(2)


def message_in_else(x):
    try:
        r = np.linalg.cholesky(x)
    except np.linalg.LinAlgError:
        r = np.zeros_like(x)
        msg = "not positive definite"
    else:
        msg = "ok"
    return r, msg


def message_in_handler_and_after(x):
    try:
        np.linalg.cholesky(x)
    except np.linalg.LinAlgError:
        return "bad"
    return "good"


def none_from_the_handler(x):
    try:
        r = np.linalg.cholesky(x)
    except np.linalg.LinAlgError:
        return None
    return r


def tuple_with_a_label(x):
    try:
        r = np.linalg.cholesky(x)
    except np.linalg.LinAlgError:
        return "bad", x
    return "good", r


def same_label_on_every_path(x):
    try:
        r = np.linalg.cholesky(x)
        tag = "chol"
    except np.linalg.LinAlgError:
        r = np.zeros_like(x)
        tag = "chol"
    return r, tag


def code_in_else(x):
    try:
        r = np.linalg.cholesky(x)
    except np.linalg.LinAlgError:
        r = np.zeros_like(x)
        code = 1
    else:
        code = 0
    return r, code


def number_from_the_handler(x):
    try:
        np.linalg.cholesky(x)
    except np.linalg.LinAlgError:
        return -1.0
    return 1.0


EQUAL = [same_label_on_every_path, code_in_else, number_from_the_handler]
REFUSED = [message_in_else, message_in_handler_and_after, none_from_the_handler,
           tuple_with_a_label]


def _run(fn, x, jit):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ag.JitFallbackWarning)
        return ag.function(fn, jit_compile=jit)(x.copy())


@pytest.mark.parametrize("fn", EQUAL, ids=lambda f: f.__name__)
@pytest.mark.parametrize("jit", [False, True], ids=["graph", "jit"])
def test_paths_that_agree_or_give_numbers_are_exact(fn, jit):
    for x in (NOT_PD, PD):
        assert_same(_run(fn, x, jit), fn(x.copy()))


@pytest.mark.parametrize("fn", REFUSED, ids=lambda f: f.__name__)
def test_python_values_that_differ_by_path_are_an_error_at_the_users_line(fn):
    """Before, each of these returned the body path's string (or an array for None)
    on the handler's path too, silently."""
    for x in (NOT_PD, PD):
        with pytest.raises((TypeError, ValueError)) as info:  # (Diagnostic: a ValueError)
            _run(fn, x, False)
        assert "test_try_python_values_by_path.py" in str(info.value)
        assert "symbolic `if`" in str(info.value) or "`try`" in str(info.value)
