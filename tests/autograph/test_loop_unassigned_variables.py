"""A variable a symbolic loop's body assigns on no path of its trace (the assignment
sits under a Python condition that is false, or in a `try` there): Python leaves it
unbound, so the loop does not carry it, and a read after the loop raises Python's
UnboundLocalError at the reading line. It was the loop's `Diagnostic` ("first assigned
inside this symbolic loop ... does not assign it on every path"), which also refused
programs that never read it: the jump codes of a `try` in such a branch (fuzz seed 9371
of the union of the try sets named the compiler's `try_jump_2`)."""
from __future__ import annotations

import inspect
import traceback

import numpy as np
import pytest

import autograph as ag
from tests.helpers import MODES, assert_same_in_mode, converted_module

pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")

NEVER = -3 < 2.0 <= 0  # (a Python condition the compiler does not fold)


def while_read_after(n):
    i = 0
    while i < n:
        if -3 < 2.0 <= 0:
            z = i * 2
        i += 1
    return z  # reads it


def for_read_after(xs):
    s = 0.0
    for v in xs:
        if NEVER:
            last = v
        s = s + v
    return s + last  # reads it


def never_read(n):
    i = 0
    total = 0.0
    while i < n:
        if NEVER:
            z = 1.0
            total = total + z
        i += 1
    return total + i


def both_branches_leave_it(n, x):
    i = 0
    while i < n:
        if x > i:  # symbolic: neither branch assigns `z` on this trace
            if NEVER:
                z = 1
            i += 2
        else:
            if NEVER:
                z = 2  # noqa: F841 - the program under test
            i += 1
    return i


def try_in_a_false_branch(n, xs):
    total = 0.0
    i = 0
    while i < n:
        i += 1
        if NEVER:
            for v in xs:
                try:
                    if v > 2:
                        break
                    total = total + v
                finally:
                    total = total + 1
    return total + i


def read_only_where_assigned(n):
    i = 0
    while i < n:
        if NEVER:
            z = i
            i = i + z
        i += 1
    return i


XS = np.array([1.0, 2.0, 3.0])
CASES = [
    (while_read_after, [(np.int64(3),), (np.int64(0),)]),
    (for_read_after, [(XS,), (XS[:0],)]),
    (never_read, [(np.int64(3),), (np.int64(0),)]),
    (both_branches_leave_it, [(np.int64(5), np.float64(2.0)), (np.int64(0), np.float64(1.0))]),
    (try_in_a_false_branch, [(np.int64(2), XS), (np.int64(0), XS)]),
    (read_only_where_assigned, [(np.int64(4),)]),
]


@pytest.fixture(scope="module")
def converted(tmp_path_factory):
    return converted_module(__file__, tmp_path_factory.mktemp("converted"),
                            "converted_loop_unassigned")[0]


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("fn,inputs", CASES, ids=[f.__name__ for f, _ in CASES])
def test_same_as_python(fn, inputs, mode, converted):
    assert_same_in_mode(fn, inputs, mode, converted)


@pytest.mark.parametrize("fn", [while_read_after, for_read_after])
def test_the_error_points_at_the_read(fn):
    lines, first = inspect.getsourcelines(fn)
    line = first + next(k for k, t in enumerate(lines) if "# reads it" in t)
    arg = np.int64(3) if fn is while_read_after else XS
    with pytest.raises(UnboundLocalError) as info:
        ag.function(fn)(arg)
    frames = traceback.extract_tb(info.value.__traceback__)
    assert any(f.filename == __file__ and f.lineno == line for f in frames), frames
