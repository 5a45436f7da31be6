"""Differential tests of the rules of the ops with symbolic or data-dependent sizes
(runtime/ops/dynamic_rules.py): the rule's shape and dtype against real NumPy calls over
generated shapes (0-size and unknown dims) and dtypes, with kernels forbidden while
tracing (check_rule); a size given as a symbolic scalar is an int input of the trace."""
from __future__ import annotations

import numpy as np
import pytest

from runtime.ops.dynamic import creator_call
from tests.runtime.shape_rules_check import ALL_DTYPES, check_known_dims_used, check_rule, trace

SHAPES = [(), (0,), (3,), (2, 3), (0, 4), (None,), (None, 3), (2, None), (None, None)]
INTS = [np.dtype(d) for d in (np.int8, np.uint8, np.int32, np.int64, np.uint64)]
SIZE = [((), np.int64)]


def each(fn, shapes=SHAPES, dtypes=ALL_DTYPES, **kw):
    for s in shapes:
        for d in dtypes:
            check_rule(fn, [(s, d)], **kw)


@pytest.mark.parametrize("name", ["nonzero", "flatnonzero", "argwhere"])
def test_nonzero_family(name):
    f = getattr(np, name)
    each(lambda x: f(x))


def test_unique_and_its_flags():
    each(lambda x: np.unique(x))
    for flags in ({"return_index": True}, {"return_inverse": True}, {"return_counts": True},
                  {"return_index": True, "return_inverse": True, "return_counts": True}):
        each(lambda x, flags=flags: np.unique(x, **flags), dtypes=ALL_DTYPES[::2])


@pytest.mark.parametrize("name", ["unique_values", "unique_counts", "unique_inverse",
                                  "unique_all"])
def test_unique_array_api(name):
    f = getattr(np, name)
    each(lambda x: f(x), dtypes=ALL_DTYPES[::2])


def test_bincount():
    each(lambda x: np.bincount(x), dtypes=[*INTS, np.dtype(bool), np.dtype(np.float64)],
         value_error=True)
    each(lambda x: np.bincount(x, minlength=4), shapes=[(3,), (None,), (0,)], dtypes=INTS,
         value_error=True)
    for w in (np.float32, np.int64):
        for s in [(3,), (0,)]:
            check_rule(lambda x, w: np.bincount(x, weights=w), [(s, np.int64), (s, w)],
                       kinds=["zeros", "any"])
    # an unknown length is float64 with weights; NumPy makes an empty input int64 (the one
    # value-dependent dtype, documented): the graph is float64 there, equal in value
    out = check_known_dims_used(lambda x, w: np.bincount(x, weights=w),
                                [((None,), np.int64), ((None,), np.float32)])
    assert out == (None,)


def test_append():
    for s in SHAPES:
        for d in ALL_DTYPES[::3]:
            check_rule(lambda x, v: np.append(x, v), [(s, d), ((None,), np.float32)])
            check_rule(lambda x: np.append(x, [1.5]), [(s, d)])
    for axis in (0, 1, -1):
        check_rule(lambda x, v, axis=axis: np.append(x, v, axis=axis),
                   [((2, None), np.int32), ((None, 3), np.int64)])


@pytest.mark.parametrize("name", ["zeros", "ones", "empty"])
def test_filled_with_symbolic_sizes(name):
    f = getattr(np, name)
    for dt in (None, np.int32, np.float32, bool, np.complex64):
        kw = {} if dt is None else {"dtype": dt}
        check_rule(lambda n, kw=kw: creator_call(f, (n,), kw), SIZE)
        check_rule(lambda n, kw=kw: creator_call(f, ((n, 3),), kw), SIZE)
        check_rule(lambda n, m, kw=kw: creator_call(f, ((n, m + 1),), kw), SIZE * 2)
    for d in INTS:
        check_rule(lambda n: creator_call(f, (n,), {}), [((), d)])
    check_rule(lambda x: creator_call(f, (x,), {}), [((), np.float64)])  # a float size


def test_full_with_symbolic_size_and_value():
    for fill in (2, 2.5, True, np.float32(1.5), np.int8(3)):
        check_rule(lambda n, fill=fill: creator_call(np.full, (n, fill), {}), SIZE)
        check_rule(lambda n, fill=fill: creator_call(np.full, ((2, n), fill), {}), SIZE)
    for d in ALL_DTYPES:
        check_rule(lambda n, v: creator_call(np.full, (n, v), {}), [((), np.int64), ((), d)])
        check_rule(lambda n, v: creator_call(np.full, ((n, 3), v), {"dtype": np.float32}),
                   [((), np.int32), ((), d)])
    check_rule(lambda n, v: creator_call(np.full, ((n, 3), v), {}),
               [((), np.int64), ((3,), np.float32)])


def test_arange_with_symbolic_bounds():
    dtypes = [d for d in ALL_DTYPES if d.kind in "biuf"]
    for d in dtypes:
        check_rule(lambda k: creator_call(np.arange, (k,), {}), [((), d)])
        check_rule(lambda a, b: creator_call(np.arange, (a, b), {}), [((), d), ((), np.int64)])
        check_rule(lambda a, b: creator_call(np.arange, (a, b, 2), {}), [((), np.int8), ((), d)])
        check_rule(lambda k: creator_call(np.arange, (1, k, 0.5), {}), [((), d)])
        check_rule(lambda k: creator_call(np.arange, (k,), {"dtype": np.float32}), [((), d)])


def test_linspace_and_eye_with_symbolic_sizes():
    for d in (np.int64, np.int32, np.uint8):
        check_rule(lambda n: creator_call(np.linspace, (0, 1, n), {}), [((), d)])
        check_rule(lambda n: creator_call(np.linspace, (np.float32(0), 1, n), {}), [((), d)])
        check_rule(lambda n: creator_call(np.linspace, (0, 5, n), {"endpoint": False,
                                                                  "dtype": np.int32}), [((), d)])
        check_rule(lambda n: creator_call(np.eye, (n,), {}), [((), d)])
        check_rule(lambda n: creator_call(np.eye, (n, 3, 1), {"dtype": np.int8}), [((), d)])
        check_rule(lambda n: creator_call(np.identity, (n,), {}), [((), d)])
    for d in (np.float32, np.int64):
        check_rule(lambda a, n: creator_call(np.linspace, (a, 4, n), {}), [((), d), ((), np.int64)])


def test_reshape_repeat_tile_with_symbolic_counts():
    for s in [(6,), (2, 3), (None,), (None, 3), (0,)]:
        for d in ALL_DTYPES[::4]:
            check_rule(lambda x, n: np.reshape(x, (n, -1)), [(s, d), ((), np.int64)],
                       value_error=True)
            check_rule(lambda x, n: x.reshape(-1, n), [(s, d), ((), np.int32)], value_error=True)
            check_rule(lambda x, n: np.repeat(x, n), [(s, d), ((), np.int64)])
            check_rule(lambda x, n: np.repeat(x, n, axis=-1), [(s, d), ((), np.int64)])
            check_rule(lambda x, n: np.tile(x, n), [(s, d), ((), np.int64)])
            check_rule(lambda x, n: np.tile(x, (n, 2)), [(s, d), ((), np.int64)])


def test_pad_with_symbolic_value_or_width_and_np_size():
    for s in [(3,), (2, 3), (None,), (None, 2), (0,)]:
        for d in ALL_DTYPES[::3]:
            check_rule(lambda x, c: np.pad(x, 1, constant_values=c), [(s, d), ((), np.float64)])
            check_rule(lambda x, c: np.pad(x, ((1, 0),) * len(x.shape), constant_values=c),
                       [(s, d), ((), np.int8)])
            check_rule(lambda x, n: np.pad(x, n), [(s, d), ((), np.int64)])
    for s, axis in [((None,), 0), ((None, 2), 0), ((3, None), -1)]:  # known: ints (below)
        check_rule(lambda x: np.size(x), [(s, np.float32)])
        check_rule(lambda x, axis=axis: np.size(x, axis), [(s, np.float32)])
    assert trace(lambda x: np.size(x), [((2, None, 0), np.float32)]) == 0  # empty either way
    for s in [(3,), (2, 3), (0, 2)]:
        assert trace(lambda x: (np.size(x), np.size(x, -1)), [(s, np.float32)]) == \
            (np.size(np.zeros(s)), np.size(np.zeros(s), -1))


def test_broadcast_to_a_symbolic_shape():
    for s in [(), (1,), (3,), (1, 3), (None,), (2, 3), (None, 1)]:
        for d in ALL_DTYPES[::4]:
            check_rule(lambda x, n: np.broadcast_to(x, (n, 3)), [(s, d), ((), np.int64)],
                       value_error=True)
            check_rule(lambda x, n: np.broadcast_to(x, (2, n, 1)), [(s, d), ((), np.int64)],
                       value_error=True)


def test_extract_and_compress():
    for s in [(4,), (2, 3), (None,), (None, 3), (0,)]:
        for d in ALL_DTYPES[::3]:
            check_rule(lambda x: np.extract(x, x), [(s, d)])
            check_rule(lambda c, x: np.compress(c, x), [((None,), bool), (s, d)],
                       value_error=True)
    check_rule(lambda c, x: np.compress(c, x, axis=1), [((3,), bool), ((None, 3), np.int8)])
    check_rule(lambda c, x: np.compress(c, x, axis=0), [((None,), bool), ((None, 3), np.int8)],
               value_error=True)
