"""Writes into arrays inside symbolic `if` / loops through names that are not used after
the block (so the conversion does not carry them out): the array - an argument, or one
read afterwards through an alias or an earlier view - must still see the write, as in
NumPy, or the trace refuses with a clear error at the user's line. Graph vs eager NumPy,
including the caller's arrays after the call (runtime/state/views.py `unreturned_writes`)."""
from __future__ import annotations

import numpy as np
import pytest

import autograph as ag
from tests.helpers import assert_same


def same_as_eager(fn, *args):
    f = ag.function(fn)
    for _ in range(2):  # tracing, then the cached graph
        for n in (np.int64(0), np.int64(2)):  # the branch / loop not taken, then taken
            e_args = [a.copy() for a in args]
            g_args = [a.copy() for a in args]
            assert_same(f(*g_args, n), fn(*e_args, n))
            for g, e in zip(g_args, e_args):
                assert_same(g, e)


def refused(fn, *args, match):
    fn(*[a.copy() for a in args], np.int64(2))
    with pytest.raises(ValueError, match=match) as info:
        ag.function(fn)(*args, np.int64(2))
    assert "test_fidelity_branch_writes.py:" in str(info.value)


def mat():
    return np.arange(6.0).reshape(2, 3) + 1


# -- symbolic if ----------------------------------------------------------------------------
def argument_written_not_returned(x, n):
    if n > 1:
        x[0] = 7
    return 0


def alias_written_base_returned(x, n):
    y = x
    if n > 1:
        y[0] = 7
    return x


def view_written_base_returned(x, n):
    y = x[1:]
    if n > 1:
        y[0] = 7
    else:
        y[0, 1:] = -1
    return x


def augmented_in_one_branch_rebound_in_other(x, n):
    y = x
    if n > 1:
        y += 1
    else:
        y = y * 2
    return x


def earlier_view_sees_branch_write(x, n):
    d = np.diagonal(x)
    if n > 1:
        x[0, 0] = 100
    return d


def alias_written_in_branch_inside_python_loop(x, n):
    for i in range(x.shape[0]):
        r = x[i]
        if r.sum() > 7 + n:
            r[0] = -1
    return x


@pytest.mark.parametrize("fn", [
    argument_written_not_returned, alias_written_base_returned, view_written_base_returned,
    augmented_in_one_branch_rebound_in_other, earlier_view_sees_branch_write,
    alias_written_in_branch_inside_python_loop,
], ids=lambda f: f.__name__)
def test_write_in_symbolic_if_reaches_the_array(fn):
    same_as_eager(fn, mat())


# -- symbolic loops ----------------------------------------------------------------------
def argument_written_in_loop(x, n):
    i = 0
    while i < n:
        x[0] = x[0] + 1
        i += 1
    return 1


def transpose_view_written_in_loop(x, n):
    y = x.T
    i = 0
    while i < n:
        y[0, 0] = i
        i += 1
    return x


def rows_written_in_range_loop(x, n):
    for i in range(n):
        x[i] = i * 2
    return x.sum()


@pytest.mark.parametrize("fn", [argument_written_in_loop, transpose_view_written_in_loop,
                                rows_written_in_range_loop], ids=lambda f: f.__name__)
def test_write_in_symbolic_loop_reaches_the_array(fn):
    same_as_eager(fn, mat())


# -- what the graph cannot carry: refused at the user's line -------------------------------
def view_of_outer_array_made_inside_loop(x, n):
    i = 0
    while i < n:
        r = x[i]
        r += 1
        i += 1
    return x


def view_of_outer_array_made_inside_if(x, n):
    if n > 1:
        v = x[0:2]
        v[:] = 0
    return x.sum()


def alias_read_in_loop_that_writes(x, n):
    y = x
    for i in range(n):
        if x[i, 0] > 2:
            y[i] = -1
    return 0


@pytest.mark.parametrize("fn, match", [
    (view_of_outer_array_made_inside_loop, "defined outside the symbolic"),
    (view_of_outer_array_made_inside_if, "defined outside the symbolic"),
    (alias_read_in_loop_that_writes, "also reads through another name"),
], ids=lambda v: getattr(v, "__name__", ""))
def test_writes_the_graph_cannot_carry_are_refused(fn, match):
    refused(fn, mat(), match=match)
