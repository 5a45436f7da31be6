"""Gradient rules of the array ops (shapes, joining, selection, indexing, linear algebra)
against central differences, eager tape and graph tape alike (float64).

`test_gradient_rules.py::test_every_rule_has_a_case` counts these cases too.
"""
from __future__ import annotations

import numpy as np
import pytest

import runtime
from runtime.autodiff import shapes
from runtime.core.registry import bind
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

case("moveaxis", ["moveaxis"], lambda x: weighted(np.moveaxis(x, 0, -1)), A(2, 3, 4))
case("moveaxis-tuples", ["moveaxis"], lambda x: weighted(np.moveaxis(x, (0, 1), (2, 0))),
     A(2, 3, 4))
case("repeat-none", ["repeat"], lambda x: weighted(np.repeat(x, 2)), A(2, 2))
case("repeat-axis", ["repeat"], lambda x: weighted(np.repeat(x, 3, axis=1)), A(2, 2))
case("repeat-array", ["repeat"], lambda x: weighted(x.repeat(np.array([2, 0, 1]), axis=0)), A(3, 2))
case("tile", ["tile"], lambda x: weighted(np.tile(x, 2)), A(2, 3))
case("tile-more-reps", ["tile"], lambda x: weighted(np.tile(x, (2, 1, 3))), A(2, 2))
case("roll", ["roll"], lambda x: weighted(np.roll(x, 2)), A(2, 3))
case("roll-axes", ["roll"], lambda x: weighted(np.roll(x, (1, -1), axis=(0, 1))), A(2, 3))
case("pad", ["pad"], lambda x: weighted(np.pad(x, 1)), A(2, 3))
case("pad-widths", ["pad"], lambda x: weighted(np.pad(x, ((1, 2), (0, 1)), constant_values=0.5)),
     A(2, 3))
case("diff", ["diff"], lambda x: weighted(np.diff(x)), A(2, 4))
case("diff-n2-axis0", ["diff"], lambda x: weighted(np.diff(x, n=2, axis=0)), A(4, 2))
case("tril-triu", ["tril", "triu"], lambda x: weighted(np.tril(x) + np.triu(x, 1) * 3.0), A(3, 3))
case("tril-k", ["tril"], lambda x: weighted(np.tril(x, -1)), A(3, 4))
case("prod", ["prod"], lambda x: np.prod(x), A(2, 3))
case("prod-axis", ["prod"], lambda x: weighted(np.prod(x, axis=1)), A(3, 4))
case("prod-axes-keepdims", ["prod"], lambda x: weighted(np.prod(x, axis=(0, 2), keepdims=True)),
     A(2, 3, 2))
case("prod-zeros", ["prod"], lambda x: weighted(np.prod(x, axis=1)),
     np.array([[0.0, 2.0, 3.0], [0.0, 0.0, 1.5], [1.0, 2.0, 0.5]]))
case("cumprod", ["cumprod"], lambda x: weighted(np.cumprod(x)), A(2, 3))
case("cumprod-axis", ["cumprod"], lambda x: weighted(np.cumprod(x, axis=0)), A(3, 2))
case("cumprod-zeros", ["cumprod"], lambda x: weighted(np.cumprod(x, axis=-1)),
     np.array([[1.5, 0.0, 2.0, 0.0], [0.0, -1.0, 3.0, 0.5]]))
case("atleast", ["atleast_1d", "atleast_2d", "atleast_3d"],
     lambda x, y: np.sum(weighted(np.atleast_3d(y))) + np.sum(np.atleast_1d(x) * 3.0)
     + np.sum(weighted(np.atleast_2d(y))), np.float64(0.7), A(3))

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

case("hstack", ["hstack"], lambda a, b: weighted(np.hstack([a, b])), A(2), A(3, seed=1))
case("hstack-2d", ["hstack"], lambda a, b: weighted(np.hstack((a, b))), A(2, 1), A(2, 3, seed=1))
case("vstack", ["vstack"], lambda a, b: weighted(np.vstack([a, b])), A(3), A(2, 3, seed=1))
case("column-stack", ["column_stack"], lambda a, b: weighted(np.column_stack([a, b])), A(3),
     A(3, 2, seed=1))

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

case("sort", ["sort"], lambda x: weighted(np.sort(x)), np.array([0.3, -1.0, 2.0, 0.1]))
case("sort-axis0", ["sort"], lambda x: weighted(np.sort(x, axis=0)), A(3, 2))
case("sort-none", ["sort"], lambda x: weighted(np.sort(x, axis=None)), A(2, 3))
case("nan-to-num", ["nan_to_num"], lambda x: weighted(np.nan_to_num(x)),
     np.array([1.0, np.nan, -2.0]))
case("real-imag", ["real", "imag"], lambda x: weighted(np.real(x)) + np.imag(x) * x, A(3))
case("round", ["round", "around"], lambda x: np.round(x, 1) * x + np.around(x) * 2.0,
     np.array([0.12, -1.37, 2.21]))
# the ops themselves (gradients use them only where static shapes are unknown)
case("own-shape-ops", ["sum_to_shape_of", "broadcast_like"],
     lambda x, y: weighted(bind(shapes.SUM_TO, x, y)) + bind(shapes.BROADCAST_LIKE, y, x) * x,
     A(2, 3), A(3, seed=1))
case("own-reshape-like", ["reshape_like"],
     lambda x, y: np.sum(shapes.reshape_like(x, y) * y), A(2, 3), A(3, 2, seed=1), relaxed=True)

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

for _sa, _sb in [((3,), (3,)), ((2, 3), (3,)), ((2, 3), (4, 3)), ((), (2,))]:
    case(f"inner-{_sa}-{_sb}", ["inner"], lambda a, b: weighted(np.inner(a, b)), A(*_sa), A(*_sb, seed=1))
case("dot-3d", ["dot"], lambda a, b: weighted(np.dot(a, b)), A(2, 2, 3), A(2, 3, 2, seed=1))
case("dot-scalar", ["dot"], lambda a, b: weighted(np.dot(a, b)), np.float64(1.5), A(3, seed=1))
case("tensordot-2", ["tensordot"], lambda a, b: weighted(np.tensordot(a, b)), A(2, 3, 2),
     A(3, 2, 2, seed=1))
case("tensordot-1", ["tensordot"], lambda a, b: weighted(np.tensordot(a, b, axes=1)), A(2, 3),
     A(3, 2, seed=1))
case("tensordot-pairs", ["tensordot"],
     lambda a, b: weighted(np.tensordot(a, b, axes=([1, 0], [0, 1]))), A(2, 3, 2), A(3, 2, 4, seed=1))
case("outer", ["outer"], lambda a, b: weighted(np.outer(a, b)), A(2, 2), A(3, seed=1))
case("vdot", ["vdot"], lambda a, b: np.vdot(a, b), A(2, 3), A(3, 2, seed=1))
case("diagonal", ["diagonal"], lambda x: weighted(np.diagonal(x)), A(3, 4))
case("diagonal-offsets", ["diagonal"],
     lambda x: weighted(np.diagonal(x, 1)) + np.sum(x.diagonal(-1) * 2.0), A(3, 3))
case("diagonal-axes", ["diagonal"], lambda x: weighted(np.diagonal(x, 0, 1, 2)), A(2, 3, 3))
case("trace", ["trace"], lambda x: np.trace(x) + x.trace(1) * 2.0, A(3, 4))
case("trace-axes", ["trace"], lambda x: weighted(np.trace(x, 0, 0, 2)), A(3, 2, 3))
SPD = np.array([[2.0, 0.3, 0.1], [0.3, 1.5, -0.2], [0.1, -0.2, 1.8]])
case("inv", ["inv"], lambda x: weighted(np.linalg.inv(x)), SPD)
case("inv-batched", ["inv"], lambda x: weighted(np.linalg.inv(x)), np.stack([SPD, SPD.T * 1.5]))
case("det", ["det"], lambda x: np.linalg.det(x), SPD + A(3, 3) * 0.2)
case("det-batched", ["det"], lambda x: weighted(np.linalg.det(x)), np.stack([SPD, SPD * 0.7]))
case("solve-vector", ["solve"], lambda a, b: weighted(np.linalg.solve(a, b)), SPD, A(3))
case("solve-matrix", ["solve"], lambda a, b: weighted(np.linalg.solve(a, b)), SPD, A(3, 2))
case("solve-batched", ["solve"], lambda a, b: weighted(np.linalg.solve(a, b)),
     np.stack([SPD, SPD.T * 1.2]), A(2, 3, 2))
case("norm", ["norm"], lambda x: np.linalg.norm(x), A(2, 3))
case("norm-axis", ["norm"], lambda x: weighted(np.linalg.norm(x, axis=1)), A(2, 3))
case("norm-2-keepdims", ["norm"], lambda x: weighted(np.linalg.norm(x, 2, axis=0, keepdims=True)),
     A(2, 3))
if hasattr(np, "matvec"):  # NumPy >= 2.2
    case("vecdot", [np.vecdot], lambda a, b: weighted(np.vecdot(a, b)), A(2, 3), A(3, seed=1))
    case("matvec", [np.matvec], lambda a, b: weighted(np.matvec(a, b)), A(2, 2, 3), A(3, seed=1))
    case("vecmat", [np.vecmat], lambda a, b: weighted(np.vecmat(a, b)), A(3), A(2, 3, 2, seed=1))
case("cross", ["cross"], lambda a, b: weighted(np.cross(a, b)), A(2, 3), A(3, seed=1))


@pytest.mark.parametrize("id_, covers, fn, args, options", CASES, ids=[c[0] for c in CASES])
def test_rule(id_, covers, fn, args, options):
    ops = three_way(fn, *args, **options)
    check_covers(ops, covers)


def test_static_arguments_are_kept_by_value():
    def f(x):
        widths = [(1, 0)]
        a = np.pad(x, widths)
        widths[0] = (0, 1)
        return a - np.pad(x, widths)

    x = np.array([1.0, 2.0])
    np.testing.assert_array_equal(runtime.function(f)(x), f(x))
