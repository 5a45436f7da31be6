"""A list a symbolic `if` changes in place, in a branch whose state holds fewer variables
than the `if` gives back (`u, cells = if_stmt(..., (cells,), ('u', 'cells'))`): the
branch's list is the list it was given, so after the `if` the variable still holds the
caller's object. The outputs were matched to the state by position, so the list came
back as a copy, and an enclosing symbolic `if` without an `else` refused it ("the same
Python container after one branch ... a new object after the other"; fuzz seeds 5971 and
8011 of the union of the try sets, on the previous main too)."""
from __future__ import annotations

import numpy as np
import pytest

import autograph as ag
from tests.helpers import assert_same_outcome, outcome

pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")


def nested_in_an_if_without_else(k, x):
    u = 1.5
    cells = [0, 1]
    if k > 2:
        if x > u:
            cells[1] += 1
            u = x
        else:
            u = 2.0
    return cells[1], u


def the_callers_list(x, cells):
    u = 1.5
    if x > 0:
        if x > u:
            cells[1] += 1
            u = x
        else:
            u = 2.0
    return u, cells[1]


CALLS = [(np.int64(3), np.float64(0.0)), (np.int64(3), np.float64(2.0)),
         (np.int64(1), np.float64(2.0))]


@pytest.mark.parametrize("jit", [False, True])
def test_nested_in_an_if_without_else(jit):
    run = ag.function(nested_in_an_if_without_else, jit_compile=jit)
    for args in CALLS + CALLS[:1]:
        assert_same_outcome(outcome(run, args, exact_type=True),
                            outcome(nested_in_an_if_without_else, args, exact_type=True),
                            args)


def test_the_callers_list_is_the_one_changed():
    run = ag.function(the_callers_list)
    mine, theirs = [0, 1], [0, 1]
    for x in (np.float64(3.0), np.float64(-1.0), np.float64(1.0), np.float64(3.0)):
        assert_same_outcome(outcome(run, (x, mine)), outcome(the_callers_list, (x, theirs)), x)
        assert mine == theirs
