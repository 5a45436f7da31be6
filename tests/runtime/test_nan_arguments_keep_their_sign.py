"""A Python float argument is keyed and substituted by its bits: a NaN keeps its sign
(float.hex and repr drop it), so -NaN neither reuses +NaN's trace nor becomes +NaN."""
from __future__ import annotations

import math

import numpy as np

import autograph as ag
from runtime.frontend.signature import FloatKey

NAN = float("nan")


def test_negative_nan_has_its_own_trace_and_value():
    f = ag.function(lambda v: np.asarray(v, dtype=np.float64))
    assert not np.signbit(f(NAN))
    assert np.signbit(f(-NAN))
    assert not np.signbit(f(NAN))
    g = ag.function(lambda v: v * 1.0)
    assert math.copysign(1.0, g(-NAN)) == math.copysign(1.0, -NAN * 1.0) == -1.0


def test_float_keys_round_trip_their_bits():
    for v in (NAN, -NAN, 0.0, -0.0, 1.5, complex(-NAN, 1.0), complex(2.0, NAN), 3j):
        back = FloatKey(v).value
        assert type(back) is type(v)
        parts = (v.real, v.imag) if type(v) is complex else (v,)
        got = (back.real, back.imag) if type(back) is complex else (back,)
        for a, b in zip(parts, got):
            assert math.copysign(1.0, a) == math.copysign(1.0, b)
            assert (a == b) or (a != a and b != b)
    assert FloatKey(NAN) != FloatKey(-NAN) and FloatKey(NAN) == FloatKey(NAN)
