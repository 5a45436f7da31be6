"""`check_vmap(fn, *args, in_axes=0)`: `ag.vmap(fn)` on a batch equals a Python loop of
calls of `ag.function(fn)` over the examples, stacked: bitwise, in dtype and shape (and
the same exception type when the calls raise). With `rules=True` the batched graph must
not fall back to a per-example loop for any op (every op it meets has a rule)."""
from __future__ import annotations

import warnings

import numpy as np
import pytest

import autograph as ag
from runtime.core.structure import flatten
from runtime.transforms import VmapFallbackWarning


def assert_bitwise(got, expected, what: str) -> None:
    g, e = np.asarray(got), np.asarray(expected)
    assert g.dtype == e.dtype, f"{what}: dtype {g.dtype}, the loop of calls gives {e.dtype}"
    assert g.shape == e.shape, f"{what}: shape {g.shape}, the loop of calls gives {e.shape}"
    if e.dtype.kind in "fc":
        assert np.array_equal(np.ascontiguousarray(g).view(np.uint8),
                              np.ascontiguousarray(e).view(np.uint8)), \
            f"{what}: not bitwise equal\n{g}\n{e}"
    else:
        np.testing.assert_array_equal(g, e, err_msg=what)


def _example(args, in_axes, i):
    axes = in_axes if isinstance(in_axes, (tuple, list)) else [in_axes] * len(args)
    return [a if ax is None else np.take(a, i, axis=ax) for a, ax in zip(args, axes)]


def loop_of_calls(fn, args, in_axes=0, out_axes=0):
    f = fn if isinstance(fn, ag.function(lambda: 0).__class__) else ag.function(fn)
    axes = in_axes if isinstance(in_axes, (tuple, list)) else [in_axes] * len(args)
    size = next(np.shape(a)[ax] for a, ax in zip(args, axes) if ax is not None)
    results = [flatten(f(*_example(args, in_axes, i))) for i in range(size)]
    tree = results[0][1]
    stacked = [np.stack([np.asarray(r[0][k]) for r in results], axis=out_axes)
               for k in range(len(results[0][0]))]
    return stacked, tree


def check_vmap(fn, *args, in_axes=0, out_axes=0, rules: bool = True):
    with np.errstate(all="ignore"):
        try:
            expected, tree = loop_of_calls(fn, args, in_axes, out_axes)
        except Exception as error:
            with pytest.raises(type(error)):
                ag.vmap(fn, in_axes, out_axes)(*args)
            return None
        with warnings.catch_warnings():
            warnings.simplefilter("error" if rules else "ignore", VmapFallbackWarning)
            got = ag.vmap(fn, in_axes, out_axes)(*args)
    leaves, got_tree = flatten(got)
    assert got_tree == tree, f"result structure {got_tree}, the loop gives {tree}"
    for k, (g, e) in enumerate(zip(leaves, expected)):
        assert_bitwise(g, e, f"{getattr(fn, '__name__', 'fn')} result {k}")
    return got
