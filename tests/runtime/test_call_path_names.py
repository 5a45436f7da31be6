"""Parameters named like the builtins and helpers the generated call code uses (`type`,
`len`, `id`, `isinstance`): the call path (runtime/frontend/call_path.py) and the
executor of a function writing into its arguments (runtime/state/writeback.py
`direct_variant`) give Python's results, for the first call and the cached ones."""
from __future__ import annotations

import numpy as np
import pytest

import autograph as ag


def scale_by_type(x, type=2.0):
    return x * type


def repeat_len(x, len=2, *rest):
    out = x * len
    for r in rest:
        out = out + r
    return out


def offsets(x, id=3, isinstance=1.0, **options):
    return x + id + isinstance + sum(options.values())


def add_into(type, len):
    type += len
    return type


def scaled_into(x, isinstance, id=0.5):
    x *= id
    x += isinstance
    return x


CALLS = [
    (scale_by_type, lambda: ((np.arange(3.0),), {})),
    (scale_by_type, lambda: ((np.arange(3.0),), {"type": 3.0})),
    (scale_by_type, lambda: ((np.arange(3.0), 1.5), {})),
    (repeat_len, lambda: ((np.arange(4.0),), {})),
    (repeat_len, lambda: ((np.arange(4.0), 3, np.ones(4)), {})),
    (offsets, lambda: ((np.arange(2.0),), {})),
    (offsets, lambda: ((np.arange(2.0),), {"id": 5, "isinstance": 0.25, "extra": 2.0})),
]


@pytest.mark.parametrize("fn, make", CALLS)
def test_parameters_named_like_builtins(fn, make):
    f = ag.function(fn)
    for _ in range(3):  # the trace, then the generated call path's cached branches
        args, kwargs = make()
        expected, got = fn(*args, **kwargs), f(*args, **kwargs)
        assert type(got) is type(expected) and got.dtype == expected.dtype
        np.testing.assert_array_equal(got, expected)


@pytest.mark.parametrize("fn, n", [(add_into, 2), (scaled_into, 2)])
@pytest.mark.parametrize("kind", ["owned", "view", "read_only"])
def test_writes_into_arguments_named_like_builtins(fn, n, kind):
    f = ag.function(fn)

    def args():
        base = [np.arange(6.0) + k for k in range(n)]
        if kind == "view":  # not owning its memory: the checked call copies back
            base[0] = np.arange(12.0).reshape(2, 6)[1]
        if kind == "read_only":
            base[0].flags.writeable = False
        return base

    for _ in range(3):
        eager_args, graph_args = args(), args()
        try:
            expected = fn(*eager_args)
        except ValueError as e:
            with pytest.raises(ValueError, match="read-only"):
                f(*graph_args)
            assert "read-only" in str(e)
            np.testing.assert_array_equal(graph_args[0], eager_args[0])
            continue
        got = f(*graph_args)
        np.testing.assert_array_equal(got, expected)
        assert (got is graph_args[0]) == (expected is eager_args[0])
        for g, e in zip(graph_args, eager_args):
            np.testing.assert_array_equal(g, e)
