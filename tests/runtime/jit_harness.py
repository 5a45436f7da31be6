"""Differential harness for `jit_compile=True`: the same function through the default
executor and through numba, compared bitwise (values, dtype, shape), with the same
warnings, and the same exception under `np.errstate(all="raise")`."""
from __future__ import annotations

import warnings

import numpy as np

import autograph as ag


def outcome(fn, args, errstate: str | None):
    """(result or exception, [(warning class, text)]) of one call."""
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        try:
            if errstate is None:
                result = fn(*args)
            else:
                with np.errstate(all=errstate):
                    result = fn(*args)
        except Exception as e:  # noqa: BLE001 - compared with the other executor's
            result = e
    notes = [(w.category, str(w.message)) for w in seen
             if w.category is not ag_jit_warning()]
    return result, notes


def ag_jit_warning():
    from runtime.jit import JitFallbackWarning

    return JitFallbackWarning


def assert_bitwise(actual, expected) -> None:
    if isinstance(expected, BaseException):
        assert isinstance(actual, BaseException), f"expected {expected!r}, got {actual!r}"
        assert type(actual) is type(expected) and str(actual) == str(expected)
        return
    if isinstance(expected, tuple):
        assert isinstance(actual, tuple) and len(actual) == len(expected)
        for a, e in zip(actual, expected):
            assert_bitwise(a, e)
        return
    a, e = np.asarray(actual), np.asarray(expected)
    assert a.dtype == e.dtype and a.shape == e.shape, (a.dtype, a.shape, e.dtype, e.shape)
    assert a.tobytes() == e.tobytes(), f"\njit:     {a!r}\ndefault: {e!r}"


def check_jit(fn, *args, errstates=(None, "raise", "ignore")):
    """Run `fn` with and without jit_compile on `args`; returns the jit Function."""
    default = ag.function(fn)
    jit = ag.function(fn, jit_compile=True)
    for state in errstates:
        expected, expected_notes = outcome(default, args, state)
        actual, actual_notes = outcome(jit, args, state)
        assert_bitwise(actual, expected)
        assert actual_notes == expected_notes
    return jit


def compiled_regions(function, *args) -> int:
    """How many regions of the trace for `args` numba compiled."""
    cf = function.get_concrete_function(*args)
    return sum(1 for line in cf.jit_report if line.startswith("region") and "not compiled"
               not in line)
