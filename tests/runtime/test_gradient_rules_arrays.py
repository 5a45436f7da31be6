"""Gradient rules of the array ops (shapes, joining, selection, indexing, linear algebra)
against central differences, eager tape and graph tape alike (float64).

`test_gradient_rules.py::test_every_rule_has_a_case` counts these cases too.
"""
from __future__ import annotations

import numpy as np
import pytest

import runtime
from tests.runtime.gradcheck import three_way
from tests.runtime.test_gradient_rules import A, check_covers

CASES: list = []   # (id, covers, fn, args, options)


def case(id_, covers, fn, *args, **options):
    CASES.append((id_, tuple(covers), fn, args, options))


W = np.arange(1.0, 25.0)  # fixed weights make every output element's gradient distinct


def weighted(y):
    """y times distinct weights (so a misplaced gradient element shows)."""
    n = int(np.prod(y.shape))
    return y * W[:n].reshape(y.shape) if y.shape else y * 2.0


# -- reshapes and transposes ------------------------------------------------------------
case("reshape", ["reshape"], lambda x: weighted(np.reshape(x, (3, 4))), A(2, 6))
case("reshape-method-minus1", ["reshape"], lambda x: weighted(x.reshape(-1, 2)), A(2, 3, 2))
case("ravel", ["ravel"], lambda x: weighted(np.ravel(x)), A(2, 3))
case("squeeze", ["squeeze"], lambda x: weighted(np.squeeze(x)), A(1, 3, 1))
case("squeeze-axis", ["squeeze"], lambda x: weighted(np.squeeze(x, axis=0)), A(1, 3, 1))
case("expand-dims", ["expand_dims"], lambda x: weighted(np.expand_dims(x, (0, 2))), A(2, 3))
case("transpose", ["transpose"], lambda x: weighted(np.transpose(x)), A(2, 3, 4))
case("transpose-axes", ["transpose"], lambda x: weighted(np.transpose(x, (1, 2, 0))), A(2, 3, 4))
case("transpose-negative-axes", ["transpose"], lambda x: weighted(np.transpose(x, (-1, 0, 1))),
     A(2, 3, 4))
case("dot-T", ["transpose"], lambda x: weighted(x.T), A(2, 3))
case("swapaxes", ["swapaxes"], lambda x: weighted(np.swapaxes(x, 0, -1)), A(2, 3, 4))
case("broadcast-to", ["broadcast_to"], lambda x: weighted(np.broadcast_to(x, (2, 4, 3))), A(4, 1))
case("astype-copy", ["astype", "copy"], lambda x: weighted(np.copy(x.astype(np.float64))), A(5))
case("flip", ["flip"], lambda x: weighted(np.flip(x)), A(2, 3))
case("flip-axis", ["flip"], lambda x: weighted(np.flip(x, axis=1)), A(2, 3))

# -- joining ------------------------------------------------------------------------------
case("concatenate-0", ["concatenate"], lambda a, b: weighted(np.concatenate([a, b])),
     A(2, 3), A(1, 3))
case("concatenate-1", ["concatenate"], lambda a, b, c: weighted(np.concatenate([a, b, c], axis=1)),
     A(2, 1), A(2, 3), A(2, 2))
case("concatenate-neg", ["concatenate"], lambda a, b: weighted(np.concatenate((a, b), axis=-1)),
     A(2, 2, 1), A(2, 2, 2))
case("concatenate-same", ["concatenate"], lambda a: weighted(np.concatenate([a, a * 2.0])), A(3))
case("stack-0", ["stack"], lambda a, b: weighted(np.stack([a, b])), A(2, 3), A(2, 3, seed=1))
case("stack-1", ["stack"], lambda a, b, c: weighted(np.stack([a, b, c], axis=1)),
     A(2, 3), A(2, 3, seed=1), A(2, 3, seed=2))
case("stack-neg", ["stack"], lambda a, b: weighted(np.stack([a, b], axis=-1)), A(4), A(4, seed=5))

# -- selection ----------------------------------------------------------------------------
case("where", ["where"], lambda x, y: np.where(x > 0, x * y, y - x), A(2, 3), A(2, 3, seed=1))
case("where-broadcast", ["where"], lambda x, y: weighted(np.where(x > y, x, y)), A(2, 3), A(3, seed=1))
case("where-scalars", ["where"], lambda x: np.where(x > 0, x, 0.0) + np.where(x < 1, 1.0, x * x),
     A(5))
case("clip", ["clip"], lambda x: weighted(np.clip(x, -0.5, 0.7)), np.array([-1.0, -0.2, 0.3, 1.2]))
case("clip-one-sided", ["clip"],
     lambda x: weighted(np.clip(x, None, 0.5)) + np.clip(x, -0.5, None), np.array([-1.0, 0.3, 1.2]))
case("clip-array-bounds", ["clip"], lambda x, lo, hi: weighted(np.clip(x, lo, hi)),
     np.array([[-1.0, 0.2, 1.5], [0.1, -0.3, 2.0]]), np.array([-0.5, 0.0, 0.5]),
     np.array([[0.5], [1.0]]))
case("clip-method", ["clip"], lambda x: weighted(x.clip(-1.0, 1.0)), np.array([-1.5, 0.3, 1.2]))
case("cumsum-none", ["cumsum"], lambda x: weighted(np.cumsum(x)), A(2, 3))
case("cumsum-0", ["cumsum"], lambda x: weighted(np.cumsum(x, axis=0)), A(3, 2))
case("cumsum-1", ["cumsum"], lambda x: weighted(np.cumsum(x, axis=1)), A(2, 4))
case("cumsum-neg", ["cumsum"], lambda x: weighted(np.cumsum(x, axis=-1)), A(2, 2, 3))

# -- indexing: slices, integers, None/..., advanced indices with repeats, masks ------------
case("getitem-basic", ["getitem"], lambda x: weighted(x[1:, ::2]) + x[0, -1], A(3, 5))
case("getitem-negative-step", ["getitem"], lambda x: weighted(x[::-2]), A(5))
case("getitem-newaxis-ellipsis", ["getitem"], lambda x: weighted(x[None, ..., 1]), A(2, 3, 4))
case("getitem-repeated", ["getitem"], lambda x: weighted(x[np.array([0, 2, 0, 0])]), A(3, 2))
case("getitem-repeated-list", ["getitem"], lambda x: weighted(x[[1, 1, 2]]), A(4))
case("getitem-2d-advanced", ["getitem"], lambda x: weighted(x[np.array([[0, 1], [1, 1]])]), A(3))
case("getitem-mixed", ["getitem"], lambda x: weighted(x[1:, np.array([0, 0, 2])]), A(3, 3))
case("getitem-pairs", ["getitem"],
     lambda x: weighted(x[np.array([0, 1, 1]), np.array([2, 2, 0])]), A(2, 3))
case("getitem-mask", ["getitem"],
     lambda x: weighted(x[np.array([[True, False, True], [False, False, True]])]), A(2, 3))
case("getitem-iterate", ["getitem"], lambda x: sum(r * float(i + 1) for i, r in enumerate(x)),
     A(3, 2))
case("take-none-repeated", ["take"], lambda x: weighted(np.take(x, np.array([5, 0, 5, 5]))),
     A(2, 3))
case("take-axis0", ["take"], lambda x: weighted(np.take(x, np.array([1, 1, 0]), axis=0)), A(2, 3))
case("take-axis1-2d", ["take"], lambda x: weighted(np.take(x, np.array([[0, 2], [2, 2]]), axis=1)),
     A(2, 3))
case("take-axis-neg", ["take"], lambda x: weighted(np.take(x, np.array([0, 0]), axis=-1)),
     A(2, 2, 3))
case("take-int-indices-arg", ["take"], lambda x, i: weighted(np.take(x, i)), A(4),
     np.array([3, 3, 1]))
case("index-update-set", ["index_update"],
     lambda x, v: weighted(runtime.index_update(x, np.s_[1:3], v)), A(4, 2), A(2, 2, seed=1))
case("index-update-set-broadcast", ["index_update"],
     lambda x, v: weighted(runtime.index_update(x, (slice(None), 1), v)), A(3, 2), A(1))
case("index-update-set-scalar", ["index_update"],
     lambda x: weighted(runtime.index_update(x, 2, 7.0)) + x[2] * 0.5, A(4))
case("index-update-add-repeated", ["index_update"],
     lambda x, v: weighted(runtime.index_update(x, np.array([0, 2, 0]), v, mode="add")),
     A(3, 2), A(3, 2, seed=1))
case("index-update-add-scalar-value", ["index_update"],
     lambda x, v: weighted(runtime.index_update(x, np.array([1, 1]), v, mode="add")),
     A(3), np.float64(0.25))
case("index-update-mask", ["index_update"],
     lambda x, v: weighted(runtime.index_update(x, np.array([True, False, True]), v)),
     A(3), A(2, seed=4))

# -- linear algebra ------------------------------------------------------------------------
MATMUL_SHAPES = [((3,), (3,)), ((3,), (3, 2)), ((2, 3), (3,)), ((2, 3), (3, 4)),
                 ((2, 2, 3), (3, 4)), ((2, 3), (2, 3, 4)), ((2, 2, 3), (2, 3, 4)),
                 ((3,), (2, 3, 4)), ((2, 2, 3), (3,)), ((2, 1, 2, 3), (3, 3, 2))]
for _sa, _sb in MATMUL_SHAPES:
    case(f"matmul-{_sa}-{_sb}", [np.matmul], lambda a, b: weighted(np.matmul(a, b)),
         A(*_sa), A(*_sb, seed=1))
for _sa, _sb in [((3,), (3,)), ((2, 3), (3, 4)), ((2, 3), (3,)), ((3,), (3, 2))]:
    case(f"dot-{_sa}-{_sb}", ["dot"], lambda a, b: weighted(np.dot(a, b)), A(*_sa), A(*_sb, seed=1))
case("dot-method", ["dot"], lambda a, b: weighted(a.dot(b)), A(2, 3), A(3, 2, seed=1))
EINSUMS = [("ij,jk->ik", (2, 3), (3, 4)), ("bij,bjk->bik", (2, 2, 3), (2, 3, 2)),
           ("i,i->", (3,), (3,)), ("i,j->ij", (2,), (3,)), ("ij,j->i", (2, 3), (3,)),
           ("ij->j", (2, 3)), ("ij->ji", (2, 3)), ("ij->", (2, 3)), ("ij,kj->ikj", (2, 3), (4, 3)),
           ("ij,jk", (2, 3), (3, 2)), ("ij,ij", (2, 3), (2, 3)), ("ii->i", (3, 3)),
           ("ii", (3, 3)), ("ij,jk,kl->il", (2, 3), (3, 2), (2, 2)), ("...ij,...jk->...ik",
                                                                       (2, 2, 3), (2, 3, 1))]
for _spec, *_shapes in EINSUMS:
    case(f"einsum-{_spec}", ["einsum"], lambda *xs, s=_spec: weighted(np.einsum(s, *xs)),
         *[A(*s, seed=i) for i, s in enumerate(_shapes)])


@pytest.mark.parametrize("id_, covers, fn, args, options", CASES, ids=[c[0] for c in CASES])
def test_rule(id_, covers, fn, args, options):
    ops = three_way(fn, *args, **options)
    check_covers(ops, covers, fn, args)
