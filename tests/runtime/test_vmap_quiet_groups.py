"""One floating-point silencing per batched region (runtime/exec/quiet_groups.py): the
ops of a batched `if`/`while` stay silenced (the examples a region does not run for do
not warn or raise), the ops around the region warn and raise as the loop of calls does,
the caller's errstate is back after every call (also one that raises inside the region),
the region's ops are spelled as plain NumPy inside one `try`, and a vmap of a vmap batches
them by their own rules."""
from __future__ import annotations

import re
import warnings

import numpy as np
import pytest

import autograph as ag
from runtime.ops.quiet import quiet_op
from runtime.ops.ufuncs import ufunc_op
from runtime.transforms import VmapFallbackWarning
from tests.runtime.vmap_harness import assert_bitwise, check_vmap, loop_of_calls


def cube_root(a):
    x = a
    i = 0
    while np.abs(x * x * x - a) > 1e-10 * a and i < 100:
        x = x - (x * x * x - a) / (3.0 * x * x)
        i += 1
    return x, i


def log_around_branch(x):
    z = np.log(x + 2.0)            # outside the region: warns for x < -2, as each call does
    if x > 0:
        y = np.log(x)
    else:
        y = x - 1.0
    return np.log(y + 0.5) + z     # outside too: warns for y < -0.5


def _int_steps(x):
    n = 1
    while x > 0.5:
        x = x / 2.0
        n = n * 3  # Python ints: exact, or OverflowError beyond int64
    return n, x


def _messages(caught) -> set:
    return {(w.category, str(w.message)) for w in caught}


def test_discarded_examples_stay_quiet_under_raise():
    # a = 0 stops at once; the loop still computes 0 / 0 for it while the others run
    xs = np.array([0.0, 8.0, 1000.0, 0.001, 27.0])
    check_vmap(cube_root, xs)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with np.errstate(all="raise"):
            got = ag.vmap(cube_root)(xs)
            expected = loop_of_calls(cube_root, (xs,))[0]
    for g, e in zip(got, expected):
        assert_bitwise(g, e, "cube_root")


def test_ops_around_a_region_warn_and_raise_as_the_loop_of_calls():
    xs = np.array([-3.0, 2.0, -0.2, 0.5, 3.0])
    with warnings.catch_warnings(record=True) as by_loop:
        warnings.simplefilter("always")
        expected = loop_of_calls(log_around_branch, (xs,))[0][0]
    with warnings.catch_warnings(record=True) as by_vmap:
        warnings.simplefilter("always")
        got = ag.vmap(log_around_branch)(xs)
    assert_bitwise(got, expected, "log_around_branch")
    assert _messages(by_vmap) == _messages(by_loop) and by_loop
    with np.errstate(invalid="raise"):
        with pytest.raises(FloatingPointError):
            loop_of_calls(log_around_branch, (xs,))
        with pytest.raises(FloatingPointError):
            ag.vmap(log_around_branch)(xs)
    quiet = np.array([1.0, 2.0, 3.0])  # no example warns: nothing does
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with np.errstate(all="raise"):
            assert_bitwise(ag.vmap(log_around_branch)(quiet),
                           loop_of_calls(log_around_branch, (quiet,))[0][0], "quiet")


def test_the_callers_errstate_is_back_after_each_call():
    steps = ag.vmap(_int_steps)
    for state in ({"all": "raise"}, {"over": "warn", "invalid": "ignore"}):
        with np.errstate(**state):
            before = np.geterr()
            steps(np.array([1.0, 8.0]))
            assert np.geterr() == before
            with pytest.raises(OverflowError, match="does not fit int64"):
                steps(np.array([1.0, 2.0 ** 45]))  # raised inside the silenced loop
            assert np.geterr() == before


def test_a_batched_loop_is_silenced_once_with_plain_ops():
    source = ag.vmap(cube_root).get_concrete_function(np.ones(4)).python_code
    assert source.count("errstate_set(") == 1 and source.count("errstate_reset(") == 1
    # the loop and its ops are inside the `try` (one silencing per call, not per op)
    body = source[source.index("try:"):source.index("finally:")]
    assert "while" in body and "np_where(" in body
    # no per-op quiet kernel (`k_multiply(...)`): the operators and `out=` buffers instead
    assert not re.search(r"\bk_(multiply|subtract|divide|absolute|where)\(", source)
    assert re.search(r"\* v\w+", body)


def test_jit_compile_keeps_the_region_quiet_and_exact():
    xs = np.array([0.0, 8.0, 1000.0, 0.001, 27.0])
    vmapped = ag.vmap(cube_root)
    compiled = ag.function(lambda x: vmapped(x), jit_compile=True)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        warnings.simplefilter("ignore", ag.JitFallbackWarning)
        with np.errstate(all="raise"):
            got = compiled(xs)
            expected = loop_of_calls(cube_root, (xs,))[0]
    for g, e in zip(got, expected):
        assert_bitwise(g, e, "cube_root, jit_compile=True")


def _cbrt_branch(x):
    if x > 0:
        y = np.cbrt(x) * 2.0
    else:
        y = np.expm1(x) + 1.0
    return y


def test_nested_vmap_batches_the_inner_regions_quiet_ops_by_their_rules():
    # a quiet record made before its op's batching rule was attached (a graph `try`
    # silences ops too) has the rule all the same: the outer vmap runs no loop
    for ufunc in (np.cbrt, np.expm1, np.multiply, np.add):
        quiet_op(ufunc_op(ufunc))
    xs = np.random.default_rng(5).normal(size=(3, 4))
    with warnings.catch_warnings():
        warnings.simplefilter("error", VmapFallbackWarning)
        got = ag.vmap(ag.vmap(_cbrt_branch))(xs)
    expected = np.stack([loop_of_calls(_cbrt_branch, (row,))[0][0] for row in xs])
    assert_bitwise(got, expected, "nested vmap")
