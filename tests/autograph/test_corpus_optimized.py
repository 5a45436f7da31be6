"""The optimizer keeps results identical: every corpus function, optimized vs unoptimized.

Integer and boolean results must be bitwise equal; float results too, since no pass
reorders float arithmetic (simplification only removes exact identities). The verifier
runs after every pass on each traced graph.
"""
from __future__ import annotations

import numpy as np
import pytest

import autograph as ag
from runtime.passes.pipeline import optimize
from runtime.core.structure import flatten
from tests.autograph.corpus import CASES


def _leaves(x):
    return [np.asarray(v) for v in flatten(x)[0]]


@pytest.mark.parametrize("case", [c for c in CASES if c.graph], ids=lambda c: c.name)
def test_optimized_equals_unoptimized(case):
    fast = ag.function(case.fn)
    plain = ag.function(case.fn, optimize=False)
    for args in case.arg_sets:
        np_args = [a.item() if i in case.static and isinstance(a, np.generic) else a
                   for i, a in enumerate(args)]
        a, b = _leaves(fast(*np_args)), _leaves(plain(*np_args))
        assert len(a) == len(b)
        for x, y in zip(a, b):
            assert x.dtype == y.dtype and x.shape == y.shape
            np.testing.assert_array_equal(x, y, err_msg=f"{case.name}{tuple(np_args)}")
    for cf in fast.concrete_functions:
        optimize(cf.graph, verify=True)
