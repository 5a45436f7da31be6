"""np.linalg ops (runtime/ops/linalg.py): graph vs eager NumPy vs the interpreter in value,
dtype, shape and result type (named tuples), and each op's static shape/dtype rule against
real NumPy calls over generated shapes (batched, 0-size, unknown dims) and dtypes."""
from __future__ import annotations

import numpy as np
import pytest

import runtime
from tests.helpers import check_three_ways
from tests.runtime.shape_rules_check import ALL_DTYPES, check_rule

RNG = np.random.default_rng(7)
LINALG_DTYPES = [d for d in ALL_DTYPES]
SQUARE = [(3, 3), (2, 3, 3), (0, 2, 2), (2, 0, 0), (None, 2, 2), (None, None), (2, 3), (3,),
          (1, 1)]
RECT = [(3, 2), (2, 3), (2, 4, 3), (0, 3), (3, 0), (None, 3), (2, None, None), (3,), (1, 1)]


def spd(n, batch=(), dtype=np.float64):
    a = RNG.standard_normal(batch + (n, n))
    return (a @ np.swapaxes(a, -1, -2) + n * np.eye(n)).astype(dtype)


def each(fn, shapes, dtypes=LINALG_DTYPES, kinds=("eye",), value_error=False):
    for s in shapes:
        for d in dtypes:
            check_rule(fn, [(s, d)], kinds=list(kinds), value_error=value_error)


# -- static rules ------------------------------------------------------------------------
SQUARE_FNS = {
    "cholesky": lambda x: np.linalg.cholesky(x),
    "cholesky-upper": lambda x: np.linalg.cholesky(x, upper=True),
    "eigh": lambda x: np.linalg.eigh(x),
    "eigh-U": lambda x: np.linalg.eigh(x, UPLO="U"),
    "eigvalsh": lambda x: np.linalg.eigvalsh(x),
    "eig": lambda x: np.linalg.eig(x),
    "eigvals": lambda x: np.linalg.eigvals(x),
    "slogdet": lambda x: np.linalg.slogdet(x),
    "matrix_power-3": lambda x: np.linalg.matrix_power(x, 3),
    "matrix_power-0": lambda x: np.linalg.matrix_power(x, 0),
    "matrix_power-neg": lambda x: np.linalg.matrix_power(x, -2),
    "cond-1": lambda x: np.linalg.cond(x, 1),
    "cond-fro": lambda x: np.linalg.cond(x, "fro"),
    "svd-hermitian": lambda x: np.linalg.svd(x, hermitian=True),
    "trace": lambda x: np.linalg.trace(x),
    "diagonal": lambda x: np.linalg.diagonal(x, offset=1),
}
RECT_FNS = {
    "qr": lambda x: np.linalg.qr(x),
    "qr-complete": lambda x: np.linalg.qr(x, mode="complete"),
    "qr-r": lambda x: np.linalg.qr(x, mode="r"),
    "svd": lambda x: np.linalg.svd(x),
    "svd-reduced": lambda x: np.linalg.svd(x, full_matrices=False),
    "svd-values": lambda x: np.linalg.svd(x, compute_uv=False),
    "svdvals": lambda x: np.linalg.svdvals(x),
    "pinv": lambda x: np.linalg.pinv(x),
    "pinv-rtol": lambda x: np.linalg.pinv(x, rtol=1e-3),
    "matrix_rank": lambda x: np.linalg.matrix_rank(x),
    "matrix_rank-tol": lambda x: np.linalg.matrix_rank(x, tol=0.5),
    "cond": lambda x: np.linalg.cond(x),
    "cond-2": lambda x: np.linalg.cond(x, -2),
    "matrix_norm": lambda x: np.linalg.matrix_norm(x),
    "matrix_norm-nuc": lambda x: np.linalg.matrix_norm(x, ord="nuc", keepdims=True),
    "matrix_norm-inf": lambda x: np.linalg.matrix_norm(x, ord=np.inf),
    "matrix_transpose": lambda x: np.linalg.matrix_transpose(x),
}


@pytest.mark.parametrize("name", list(SQUARE_FNS))
def test_square_rules(name):
    dtypes = LINALG_DTYPES
    if name.startswith("eig") and not name.startswith("eigh") and name != "eigvalsh":
        dtypes = [np.dtype(np.complex64), np.dtype(np.complex128)]
    # a boolean "identity-ish" matrix is not positive definite: a value error, at run time
    each(SQUARE_FNS[name], SQUARE, dtypes, value_error=name.startswith("cholesky"))


@pytest.mark.parametrize("name", list(RECT_FNS))
def test_rectangular_rules(name):
    shapes = RECT
    dtypes = LINALG_DTYPES
    if name.startswith("pinv"):  # NumPy keeps an empty input's dtype: floats with unknown dims
        each(RECT_FNS[name], [s for s in shapes if None not in s], dtypes)
        dtypes = [d for d in dtypes if d.kind in "fc" and d != np.float16]
    each(RECT_FNS[name], shapes, dtypes)


def test_cross_needs_a_known_vector_length():
    import autograph as ag

    f = runtime.function(lambda a, b: np.linalg.cross(a, b),
                         input_signature=[ag.TensorSpec((None,), np.float64)] * 2)
    with pytest.raises(ValueError, match="unknown while tracing"):
        f(np.ones(3), np.ones(3))


def test_eig_of_a_real_matrix_says_why():
    with pytest.raises(TypeError, match="dtype depends on the values"):
        runtime.function(lambda x: np.linalg.eig(x))(np.eye(2))


def test_lstsq_rules():
    for sa, sb in [((4, 2), (4,)), ((4, 2), (4, 3)), ((2, 4), (2,)), ((3, 3), (3, 2)),
                   ((None, 2), (None,)), ((4, None), (4, 2)), ((4, 2), (3,)), ((2, 4, 2), (4,)),
                   ((4, 2), (4, 2, 1)), ((0, 2), (0,)), ((3, 0), (3, 2))]:
        for d in LINALG_DTYPES[::2]:
            check_rule(lambda a, b: np.linalg.lstsq(a, b), [(sa, d), (sb, np.float32)],
                       kinds=["eye", "any"])


def test_multi_dot_rules():
    for shapes in [[(2, 3), (3, 4), (4, 2)], [(3,), (3, 4), (4,)], [(3,), (3, 4), (4, 2)],
                   [(2, 3), (3, 4), (4,)], [(2, 3), (4, 4), (4, 2)], [(2, 3), (3, 4)],
                   [(2, 2, 3), (3, 4)], [(None, 3), (3, None), (None, 2), (2, 5)],
                   [(2, 3), (3, 2, 2), (2, 2)], [(0, 3), (3, 4), (4, 0)]]:
        for d in (np.int32, np.float32, np.complex64, bool):
            check_rule(lambda *xs: np.linalg.multi_dot(list(xs)),
                       [(s, d if i else np.float64) for i, s in enumerate(shapes)])


def test_vector_norm_rules():
    for ordv in (2, 1, np.inf, -np.inf, 0, 3, -1):
        for axis in (None, 0, -1, (0, 1), (1, 0), (0, 0)):
            for keep in (False, True):
                each(lambda x, o=ordv, a=axis, k=keep: np.linalg.vector_norm(x, ord=o, axis=a,
                                                                              keepdims=k),
                     [(3,), (2, 3), (None, 3), (2, 2, 2), (0, 3)], ALL_DTYPES[::3], ["any"])


def test_namespace_spellings_rules():
    for sa, sb in [((3,), (3,)), ((2, 3), (3,)), ((3,), (2,)), ((2, 3), (4, 3)), ((None,), (3,))]:
        for d in (np.float32, np.int64):
            for f in (lambda a, b: np.linalg.outer(a, b),
                      *([] if None in sa else [lambda a, b: np.linalg.cross(a, b)]),
                      lambda a, b: np.linalg.vecdot(a, b), lambda a, b: np.linalg.matmul(a, b),
                      lambda a, b: np.linalg.tensordot(a, b, axes=1)):
                check_rule(f, [(sa, d), (sb, np.float64)])


# -- three ways: generated code, interpreter, eager ----------------------------------------
def _three(fn, *args, rtol=1e-6):
    return check_three_ways(fn, *args, rtol=rtol)


@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.complex128, np.int64])
@pytest.mark.parametrize("batch", [(), (2,), (0,)])
def test_decompositions_three_ways(dtype, batch):
    a = spd(3, batch)
    if np.dtype(dtype).kind == "c":
        a = a + 1j * (RNG.standard_normal(a.shape) - np.swapaxes(RNG.standard_normal(a.shape),
                                                                  -1, -2)) * 0.1
        a = (a + np.conj(np.swapaxes(a, -1, -2))) / 2
    a = (a * 4).astype(dtype) if np.dtype(dtype).kind == "i" else a.astype(dtype)
    r = RNG.standard_normal(batch + (4, 3)).astype(a.dtype if a.dtype.kind != "i" else np.float64)
    for fn in list(SQUARE_FNS.values()) + list(RECT_FNS.values()):
        if fn is SQUARE_FNS["eig"] or fn is SQUARE_FNS["eigvals"]:
            if a.dtype.kind != "c":
                continue
        _three(fn, a)
    for fn in RECT_FNS.values():
        _three(fn, r)


def test_named_tuples_keep_their_type_and_fields():
    a = spd(3)

    def f(x):
        u, s, vh = np.linalg.svd(x)
        res = np.linalg.svd(x)
        q = np.linalg.qr(x)
        e = np.linalg.eigh(x)
        sl = np.linalg.slogdet(x)
        return res, (res.U * res.S) @ res.Vh, q.Q, e.eigenvalues, sl.logabsdet, u, vh

    f_graph = _three(f, a)
    out = f_graph(a)
    assert type(out[0]) is type(np.linalg.svd(a))
    for fn in (np.linalg.qr, np.linalg.eigh, np.linalg.slogdet):
        assert type(runtime.function(fn)(a)) is type(fn(a))
    assert type(runtime.function(np.linalg.eig)(a.astype(complex))) is \
        type(np.linalg.eig(a.astype(complex)))


def test_lstsq_three_ways():
    for m, n in ((5, 3), (3, 5), (4, 4)):
        a = RNG.standard_normal((m, n))
        _three(lambda a, b: np.linalg.lstsq(a, b), a, RNG.standard_normal(m))
        _three(lambda a, b: np.linalg.lstsq(a, b, rcond=1e-3), a, RNG.standard_normal((m, 2)))
    deficient = np.ones((5, 3))
    _three(lambda a, b: np.linalg.lstsq(a, b), deficient, RNG.standard_normal(5))


def test_linalg_error_only_when_it_runs():
    """A singular matrix raises LinAlgError when the op runs, and not when it is unused."""
    singular = np.zeros((2, 2))

    def unused(x):
        np.linalg.cholesky(x)
        return x + 1

    assert np.array_equal(runtime.function(unused)(singular), singular + 1)
    with pytest.raises(np.linalg.LinAlgError):
        runtime.function(lambda x: np.linalg.cholesky(x))(singular)


def test_others_three_ways():
    a = spd(3)
    v = RNG.standard_normal(3)
    _three(lambda a, b, c: np.linalg.multi_dot([a, b, c]), v, a, a)
    _three(lambda a, b, c, d: np.linalg.multi_dot([a, b, c, d]), a, a[:, :2], a[:2], v)
    _three(lambda x: np.linalg.matrix_rank(x), v)
    _three(lambda x: np.linalg.matrix_rank(x, hermitian=True, rtol=0.1), a)
    _three(lambda x: np.linalg.pinv(x, hermitian=True), a)
    _three(lambda x, y: np.linalg.cross(x, y), v, v[::-1])
    _three(lambda x, y: np.linalg.vecdot(x, y, axis=0), a, a)
    for ordv in (None, 1, -1, 2, -2, np.inf, -np.inf, "fro", "nuc"):
        _three(lambda x, o=ordv: np.linalg.cond(x, o), a)
        _three(lambda x, o=ordv: np.linalg.norm(x, o), a)
        _three(lambda x, o=ordv: np.linalg.norm(x, o, axis=(1, 0), keepdims=True), a)
    for ordv in (None, 0, 1, -1, 2, 3.5, np.inf, -np.inf):
        _three(lambda x, o=ordv: np.linalg.norm(x, o, axis=1), a)
        _three(lambda x, o=ordv: np.linalg.vector_norm(x, ord=2 if o is None else o,
                                                        axis=(0, 1)), a)


def test_cond_of_a_singular_matrix_is_inf_as_in_numpy():
    _three(lambda x: np.linalg.cond(x, 1), np.ones((2, 2)))


def test_results_are_bitwise_those_of_numpy():
    """The graph calls the same LAPACK routines: singular vectors and eigenvectors come back
    with NumPy's very signs, so no sign normalisation is needed to compare them."""
    s = spd(5, (2,))
    for fn in (np.linalg.svd, np.linalg.eigh, np.linalg.qr, np.linalg.cholesky, np.linalg.pinv,
               np.linalg.slogdet, lambda x: np.linalg.lstsq(x[0], x[1]),
               lambda x: np.linalg.cond(x, 1), lambda x: np.linalg.matrix_norm(x, ord=2),
               lambda x: np.fft.rfft2(x)):
        expected, got = fn(s), runtime.function(fn)(s)
        pairs = zip(expected, got) if isinstance(expected, tuple) else [(expected, got)]
        for e, g in pairs:
            assert np.array_equal(e, g), fn
