"""Differential tests of the shape-manipulation, joining and einsum rules
(shaping_rules.py) against real NumPy calls, incl. 0-size and unknown dims."""
from __future__ import annotations

import numpy as np
import pytest

from tests.runtime.shape_rules_check import ALL_DTYPES, check_known_dims_used, check_rule

SHAPES = [(), (0,), (6,), (2, 3), (0, 4), (2, 1, 3), (None,), (None, 3), (2, None), (None, None),
          (None, 0, 2), (1, None, 1)]
SOME = ALL_DTYPES[::3]


def each(fn, shapes=SHAPES, dtypes=SOME):
    for s in shapes:
        for d in dtypes:
            check_rule(fn, [(s, d)])


@pytest.mark.parametrize("new", [(-1,), (2, -1), (-1, 3), (3, 2), (6,), (1, -1, 1), (0, -1),
                                 (-1, 0), (4, -1), (-2, 3), (-1, -1), (2, 3, 1), (), 6, -1])
def test_reshape(new):
    each(lambda x: np.reshape(x, new))
    each(lambda x: x.reshape(new), shapes=[(None, 3), (6,)])


def test_reshape_known_result_dims():
    """-1 is computed when every other dim is known; else it stays unknown."""
    f32 = np.float32
    assert check_known_dims_used(lambda x: x.reshape(2, -1), [((2, 6), f32)]) == (2, 6)
    assert check_known_dims_used(lambda x: x.reshape(2, -1), [((None,), f32)]) == (2, None)
    assert check_known_dims_used(lambda x: x.reshape(-1, 3), [((None, 3), f32)]) == (None, 3)
    assert check_known_dims_used(lambda x: x.reshape(-1), [((0, None), f32)]) == (0,)


def test_transpose_family():
    each(lambda x: np.transpose(x))
    for axes in ((1, 0), (0, 2, 1), (2, 0, 1), (0, 0), (1, 0, 3), (-1, 0)):
        each(lambda x, axes=axes: np.transpose(x, axes), shapes=[(2, 3), (2, 3, 4), (None, 3),
                                                                   (None, 2, None)])
    for a, b in ((0, 1), (-1, 0), (0, 2), (1, 1)):
        each(lambda x, a=a, b=b: np.swapaxes(x, a, b), shapes=[(2, 3), (None, 3, 0), (4,)])
    for src, dst in ((0, -1), (-1, 0), ((0, 1), (2, 0)), ((0, 1), (1,)), (0, 3), ((0, 0), (1, 2))):
        each(lambda x, s=src, d=dst: np.moveaxis(x, s, d), shapes=[(2, 3, 4), (None, 3, 1), (2,)])
    each(lambda x: x.T)
    each(lambda x: x.mT, shapes=[(2, 3), (None, 2, 3), (3,)])


def test_squeeze_expand_ravel():
    each(lambda x: np.squeeze(x), shapes=[s for s in SHAPES if None not in s])
    for axis in (0, -1, (0, 2), 1, 5):
        each(lambda x, axis=axis: np.squeeze(x, axis), shapes=[(1, 3, 1), (1, None, 1), (2, 3),
                                                               (None, 1), (1,)])
    for axis in (0, -1, (0, 2), (0, 0), 3, (1, -1)):
        each(lambda x, axis=axis: np.expand_dims(x, axis))
    each(lambda x: np.ravel(x))
    each(lambda x: x.flatten())


def test_squeeze_unknown_rank_is_a_clear_error():
    with pytest.raises(ValueError, match="np.squeeze without `axis`.*unknown"):
        check_known_dims_used(lambda x: np.squeeze(x), [((None, 3), np.float32)])


def test_broadcast_to_tile_repeat_pad():
    for target in ((2, 3), (4, 2, 3), (3,), (0, 3), (2, 1), 5, (-1, 3)):
        each(lambda x, t=target: np.broadcast_to(x, t), shapes=[(), (3,), (1, 3), (None, 3),
                                                                 (2, None), (1,)])
    for reps in (2, (2, 1), (1, 2, 3), 0, (1, 1)):
        each(lambda x, r=reps: np.tile(x, r))
    for reps, axis in ((2, None), (2, 0), ([1, 2], 0), ([1, 0, 2], 1), ([1, 2], None), (-1, 0),
                       ([3], 1), (2, 4)):
        each(lambda x, r=reps, a=axis: np.repeat(x, r, axis=a),
             shapes=[(2, 3), (None, 3), (2, None), (4,), (0, 3)])
    for width in (1, (1, 2), ((1, 0), (2, 3)), ((1, 2),), (0,), -1, ((1, 2, 3),)):
        each(lambda x, w=width: np.pad(x, w), shapes=[(2, 3), (None, 3), (3,), (0, 2)])
    each(lambda x: np.pad(x, 2, mode="edge"), shapes=[(2, 3), (None, 3)])
    each(lambda x: np.pad(x, 1, constant_values=7), shapes=[(2, 3)])


def test_tri_diff_roll_flip():
    for f in (np.tril, np.triu):
        each(lambda x, f=f: f(x), dtypes=ALL_DTYPES[::2])
        each(lambda x, f=f: f(x, -1), shapes=[(3, 4), (None, 2, 2)])
    for n, axis in ((1, -1), (2, 0), (0, -1), (5, -1), (-1, 0), (1, 3)):
        each(lambda x, n=n, a=axis: np.diff(x, n=n, axis=a), dtypes=ALL_DTYPES[::2])
    for pre in (0, [1.5], np.zeros((2, 1), np.int8)):
        each(lambda x, p=pre: np.diff(x, prepend=p, append=p), shapes=[(2, 3), (2, None)],
             dtypes=ALL_DTYPES[::2])
    for shift, axis in ((1, None), (2, 0), ((1, 2), (0, 1)), ((1, 2), 0), (1, (0, 1, 0)),
                        ((1, 2, 3), (0, 1))):
        each(lambda x, s=shift, a=axis: np.roll(x, s, axis=a), shapes=[(2, 3), (None, 3), (4,)])


def test_joining():
    shapes = [(2, 3), (1, 3), (2, 4), (None, 3), (2, None), (3,), (), (0, 3), (2, 3, 1)]
    for f in (np.concatenate, np.stack, np.vstack, np.hstack, np.column_stack):
        for sa in shapes:
            for sb in shapes:
                check_rule(lambda a, b, f=f: f([a, b]), [(sa, np.float32), (sb, np.int64)])
        for a in ALL_DTYPES:
            for b in ALL_DTYPES[::2]:
                check_rule(lambda x, y, f=f: f((x, y)), [((2, 2), a), ((2, 2), b)])
    for axis in (1, -1, None, 2, 3):
        check_rule(lambda a, b, axis=axis: np.concatenate([a, b], axis=axis),
                   [((2, 3), np.float32), ((2, None), np.float32)])
        check_rule(lambda a, b, axis=axis: np.stack([a, b], axis=axis),
                   [((2, 3), np.float32), ((None, 3), np.float32)])
    check_rule(lambda a, b: np.concatenate([a, b], dtype=np.float16), [((2,), int), ((3,), int)])
    check_rule(lambda a: np.stack([a, a, a], dtype=np.int8, casting="unsafe"), [((2,), float)])
    for n in (1, 2, 3):
        each(lambda x, n=n: getattr(np, f"atleast_{n}d")(x), dtypes=ALL_DTYPES[::4])


@pytest.mark.parametrize("spec,shapes", [
    ("ij,jk->ik", [(2, 3), (3, 4)]), ("ij,jk", [(None, 3), (3, None)]), ("ii->i", [(3, 3)]),
    ("ii", [(None, None)]), ("ij->", [(2, 0)]), ("ij,ij->i", [(None, 3), (None, 3)]),
    ("...j,j->...", [(2, None, 3), (3,)]), ("i,i", [(3,), (4,)]), ("ij,jk->ik", [(2, 3), (4, 5)]),
    ("i...->...", [(2, 3, 4)]), ("ij,kl->ijkl", [(1, 2), (3, 1)]), ("ba", [(2, 3)]),
    ("ij,j->i", [(2, 1), (3,)]), ("ij->ik", [(2, 3)]), ("ij", [(2, 3, 4)]),
    ("...i,...i->...", [(2, None, 3), (None, 1, 3)]), ("i,j", [(3,), (4,)]),
])
def test_einsum(spec, shapes):
    for dts in ((np.float32, np.float32), (np.int8, np.float64), (bool, bool),
                (np.complex64, np.int16)):
        check_rule(lambda *xs: np.einsum(spec, *xs), list(zip(shapes, dts, strict=False)))
    check_rule(lambda *xs: np.einsum(spec, *xs, dtype=np.float64),
               [(s, np.float32) for s in shapes])
