"""Gradient rules of the np.linalg and np.fft ops (runtime/autodiff/linalg_more_rules.py,
norm_rules.py, fft_grad_rules.py) against central differences in float64, on an eager tape
and on a tape inside a traced function alike; and through `cond` / `while_loop` (programs
written twice, with Python control flow and with runtime.cond / while_loop).

`test_gradient_rules.py::test_every_rule_has_a_case` counts these cases too.
"""
from __future__ import annotations

import numpy as np
import pytest

import autograph as ag
from runtime import cond, while_loop
from tests.runtime.gradcheck import Programs, three_way
from tests.runtime.test_gradient_rules import A, check_covers

CASES: list = []   # (id, covers, fn, args, options)


def case(id_, covers, fn, *args, **options):
    CASES.append((id_, tuple(covers), fn, args, options))


def weighted(y):
    """y times fixed distinct weights (a misplaced gradient element shows)."""
    n = int(np.prod(y.shape))
    return np.sum(y * np.linspace(0.5, 2.0, max(n, 1))[:n].reshape(y.shape)) if y.shape \
        else y * 2.0


def spd(n, batch=(), seed=0):
    a = A(*batch, n, n, seed=seed)
    return a @ np.swapaxes(a, -1, -2) + n * np.eye(n)


SPD, SPD2 = spd(4), spd(3, (2,), seed=3)
SQ, TALL, WIDE = A(3, 3, seed=5) + 2 * np.eye(3), A(5, 3, seed=6), A(3, 5, seed=7)

# -- decompositions ---------------------------------------------------------------------------
case("cholesky", ["linalg.cholesky"], lambda x: weighted(np.linalg.cholesky(x)), SPD)
case("cholesky-batched-upper", ["linalg.cholesky"],
     lambda x: weighted(np.linalg.cholesky(x, upper=True)), SPD2)
case("eigh-values", ["linalg.eigh"], lambda x: weighted(np.linalg.eigh(x).eigenvalues), SPD)
case("eigh-vectors", ["linalg.eigh"],   # |v|: the sign of an eigenvector is arbitrary
     lambda x: weighted(np.abs(np.linalg.eigh(x, UPLO="U").eigenvectors)), SPD2)
case("eigvalsh", ["linalg.eigvalsh"], lambda x: weighted(np.linalg.eigvalsh(x)), SPD2)
case("svd-values", ["linalg.svd"], lambda x: weighted(np.linalg.svd(x).S), SQ)
case("svd-vectors-reduced", ["linalg.svd"],
     lambda x: weighted(np.abs(np.linalg.svd(x, full_matrices=False).U))
     + weighted(np.abs(np.linalg.svd(x, full_matrices=False).Vh)), TALL)
case("svd-wide-batched", ["linalg.svd"],
     lambda x: weighted((lambda r: r.U * r.S[..., None, :] @ r.Vh[..., :, :1])(
         np.linalg.svd(x, full_matrices=False))), np.stack([WIDE, WIDE * 0.5 + 0.1]))
case("svd-hermitian", ["linalg.svd"], lambda x: weighted(np.linalg.svd(x, hermitian=True).S),
     SPD)
case("svdvals", ["linalg.svdvals"], lambda x: weighted(np.linalg.svdvals(x)), WIDE)
case("svd-compute-uv-false", ["linalg.svdvals"],
     lambda x: weighted(np.linalg.svd(x, compute_uv=False)), TALL)
case("qr-tall", ["linalg.qr"],
     lambda x: weighted(np.linalg.qr(x).Q) + weighted(np.linalg.qr(x).R), TALL)
case("qr-wide", ["linalg.qr"],
     lambda x: weighted(np.linalg.qr(x).Q) + weighted(np.linalg.qr(x).R), WIDE)
case("qr-r-batched", ["linalg.qr"], lambda x: weighted(np.linalg.qr(x, mode="r")), SPD2)
case("slogdet", ["linalg.slogdet"], lambda x: weighted(np.linalg.slogdet(x).logabsdet), SPD2)
case("pinv-tall", ["linalg.pinv"], lambda x: weighted(np.linalg.pinv(x)), TALL)
case("pinv-wide-hermitian", ["linalg.pinv"],
     lambda x, y: weighted(np.linalg.pinv(x)) + weighted(np.linalg.pinv(y, hermitian=True)),
     WIDE, SPD)
case("lstsq-vector", ["linalg.lstsq"],
     lambda a, b: weighted(np.linalg.lstsq(a, b)[0]) + np.sum(np.linalg.lstsq(a, b)[1]),
     TALL, A(5, seed=8))
case("lstsq-matrix", ["linalg.lstsq"],
     lambda a, b: (lambda r: weighted(r[0]) + np.sum(r[1] ** 2) + weighted(r[3]))(
         np.linalg.lstsq(a, b)),
     TALL, A(5, 2, seed=9))
case("lstsq-underdetermined", ["linalg.lstsq"],
     lambda a, b: weighted(np.linalg.lstsq(a, b)[0]), WIDE, A(3, seed=10))
case("matrix-power", ["linalg.matrix_power"],
     lambda x: weighted(np.linalg.matrix_power(x, 3)) + weighted(np.linalg.matrix_power(x, 1)),
     SQ * 0.5)
case("matrix-power-negative", ["linalg.matrix_power"],
     lambda x: weighted(np.linalg.matrix_power(x, -2)) + np.sum(np.linalg.matrix_power(x, 0)),
     SQ)
case("multi-dot", ["linalg.multi_dot"],
     lambda a, b, c, d: weighted(np.linalg.multi_dot([a, b, c, d])), A(3, seed=1), SQ,
     TALL.T.copy(), A(5, 2, seed=2))
case("multi-dot-two", ["linalg.multi_dot"],
     lambda a, b: weighted(np.linalg.multi_dot([a, b])), SQ, A(3, seed=4))

# -- norms and condition numbers -------------------------------------------------------------
for _o in (None, 1, -1, 2, -2, np.inf, -np.inf, "fro", "nuc"):
    case(f"norm-matrix-{_o}", ["norm"], lambda x, o=_o: np.linalg.norm(x, o), SQ)
    case(f"norm-matrix-axes-{_o}", ["norm"],
         lambda x, o=_o: weighted(np.linalg.norm(x, o, axis=(2, 0), keepdims=True)),
         A(4, 3, 5, seed=11))
    case(f"matrix-norm-{_o}", ["linalg.matrix_norm"],
         lambda x, o=_o: weighted(np.linalg.matrix_norm(x, ord="fro" if o is None else o)),
         A(2, 4, 3, seed=12))
for _o in (None, 0, 1, 2, 3.5, -1, np.inf, -np.inf):
    case(f"norm-vector-{_o}", ["norm"],
         lambda x, o=_o: weighted(np.linalg.norm(x, o, axis=1)), A(3, 4, seed=13))
    case(f"vector-norm-{_o}", ["linalg.vector_norm"],
         lambda x, o=_o: weighted(np.linalg.vector_norm(x, ord=2 if o is None else o,
                                                        axis=(0, 2))), A(4, 3, 5, seed=14))
    case(f"vector-norm-all-{_o}", ["linalg.vector_norm"],
         lambda x, o=_o: np.linalg.vector_norm(x, ord=2 if o is None else o), A(3, 4, seed=15))
case("vector-norm-keepdims", ["linalg.vector_norm"],
     lambda x: weighted(np.linalg.vector_norm(x, axis=0, keepdims=True)), A(3, 4, seed=16))
for _p in (None, 2, -2, 1, -1, np.inf, -np.inf, "fro", "nuc"):
    case(f"cond-{_p}", ["linalg.cond"], lambda x, p=_p: np.linalg.cond(x, p), SQ)
case("cond-batched-tall", ["linalg.cond"], lambda x: weighted(np.linalg.cond(x)),
     np.stack([TALL, TALL[::-1] * 2]))

# -- fft: every transform, lengths cropped and padded, every norm ----------------------------
X = A(4, 6, seed=20)


def power(z):
    """A real loss of a complex spectrum: |z|^2 and the real and imaginary parts."""
    return weighted(np.abs(z) ** 2) + weighted(np.real(z)) - weighted(np.imag(z))


for _name in ("fft", "ifft", "rfft", "ihfft"):
    for _kw in ({}, {"n": 8}, {"n": 3, "axis": 0, "norm": "ortho"}, {"n": 5, "norm": "forward"}):
        case(f"{_name}-{_kw}", [f"fft.{_name}"],
             lambda x, n=_name, kw=_kw: power(getattr(np.fft, n)(x, **kw)), X)
for _name in ("irfft", "hfft"):
    for _kw in ({}, {"n": 8}, {"n": 5, "axis": 0, "norm": "ortho"}, {"n": 7, "norm": "forward"},
                {"n": 3}):
        case(f"{_name}-{_kw}", [f"fft.{_name}"],
             lambda x, n=_name, kw=_kw: weighted(getattr(np.fft, n)(x * (1 + 0.5j), **kw) ** 2),
             X)
    case(f"{_name}-of-real", [f"fft.{_name}"],
         lambda x, n=_name: weighted(getattr(np.fft, n)(x)), X)
case("fft-of-complex-input", ["fft.fft", "fft.ifft"],
     lambda x, y: power(np.fft.ifft(np.fft.fft(x + 1j * y, n=7) * (2 - 1j))), X, A(4, 6, seed=21))
for _name in ("fftn", "ifftn", "rfftn", "fft2", "ifft2", "rfft2"):
    for _kw in ({}, {"s": (3, 8), "axes": (1, 0)}, {"norm": "ortho", "axes": (0,)}):
        case(f"{_name}-{_kw}", [f"fft.{_name}"],
             lambda x, n=_name, kw=_kw: power(getattr(np.fft, n)(x, **kw)), X)
for _name in ("irfftn", "irfft2"):
    for _kw in ({}, {"s": (3, 8), "axes": (1, 0)}, {"norm": "forward", "axes": (0, 1)}):
        case(f"{_name}-{_kw}", [f"fft.{_name}"],
             lambda x, n=_name, kw=_kw: weighted(getattr(np.fft, n)(x * (1 - 2j), **kw) ** 2), X)
case("fftshift", ["fft.fftshift", "fft.ifftshift"],
     lambda x: weighted(np.fft.fftshift(x, axes=1)) + weighted(np.fft.ifftshift(x) ** 2), X)
case("spectral-filter", ["fft.rfft", "fft.irfft"],
     lambda x: weighted(np.fft.irfft(np.fft.rfft(x) * np.exp(-np.arange(4.0)), n=6)), X)


@pytest.mark.parametrize("id_, covers, fn, args, options", CASES, ids=[c[0] for c in CASES])
def test_rule(id_, covers, fn, args, options):
    ops = three_way(fn, *args, **options)
    check_covers(ops, covers)


def test_gradient_in_a_graph_with_unknown_batch():
    """A traced tape over unknown dims (one trace for every size)."""
    three_way(lambda x: np.sum(np.linalg.cholesky(x) ** 2), SPD2, relaxed=True)
    three_way(lambda x: np.sum(np.sin(np.abs(np.fft.fft(x)))), X, relaxed=True)


NO_RULE = [
    ("svd-full-non-square", lambda x: np.sum(np.linalg.svd(x).U), TALL),
    ("qr-complete-tall", lambda x: np.sum(np.linalg.qr(x, mode="complete").Q), TALL),
    ("cholesky-complex", lambda x: np.sum(np.abs(np.linalg.cholesky(x * (1 + 0j)))), SPD),
]


@pytest.mark.parametrize("name", [n for n, _, _ in NO_RULE])
def test_undefined_gradients_raise(name):
    _, fn, x = next(c for c in NO_RULE if c[0] == name)
    with pytest.raises(NotImplementedError, match="gradient"):
        with ag.GradientTape() as tape:
            xw = tape.watch(x)
            y = fn(xw)
        tape.gradient(y, xw)


# -- through cond and while_loop ---------------------------------------------------------------
programs = Programs()
_B = A(6, seed=30)
_T = np.linspace(0.0, 1.0, 6)


@programs("gauss-newton-while", ({"p": np.array([0.8, -0.3])}, _T, _B, np.int64(3)))
def _():
    """A few Gauss-Newton steps of fitting b ~ p0 * exp(p1 * t), solved with lstsq."""
    def step(p, t, b):
        r = p[0] * np.exp(p[1] * t) - b
        jac = np.stack([np.exp(p[1] * t), p[0] * t * np.exp(p[1] * t)], axis=1)
        return p - np.linalg.lstsq(jac, r)[0]

    def eager(params, t, b, n):
        p, i = params["p"], 0
        while i < n:
            p, i = step(p, t, b), i + 1
        return p

    def graph(params, t, b, n):
        return while_loop(lambda p, i: i < n, lambda p, i: (step(p, t, b), i + 1),
                          (params["p"], np.int64(0)))[0]
    return eager, graph


@programs("cholesky-or-svd-cond", ({"x": SPD},), ({"x": -SPD},))
def _():
    def eager(p):
        x = p["x"]
        if np.trace(x) > 0:
            return np.sum(np.linalg.cholesky(x)) + np.linalg.slogdet(x).logabsdet
        return np.sum(np.linalg.svd(x).S * np.arange(1.0, 5.0))

    def graph(p):
        x = p["x"]
        return cond(np.trace(x) > 0,
                    lambda: np.sum(np.linalg.cholesky(x)) + np.linalg.slogdet(x).logabsdet,
                    lambda: np.sum(np.linalg.svd(x).S * np.arange(1.0, 5.0)))
    return eager, graph


@programs("spectral-smoothing-while", ({"x": X},), ({"x": X * 3},))
def _():
    """Low-pass filter until the signal's norm falls below a threshold."""
    def smooth(x):
        return np.fft.irfft(np.fft.rfft(x, norm="ortho") * np.array([0.9, 0.8, 0.5, 0.2]),
                            n=6, norm="ortho")

    def eager(p):
        x = p["x"]
        while np.linalg.norm(x) > 2.0:
            x = smooth(x)
        return x

    def graph(p):
        return while_loop(lambda x: np.linalg.norm(x) > 2.0, lambda x: (smooth(x),), (p["x"],))[0]
    return eager, graph


@pytest.mark.parametrize("name, k", programs.params())
def test_program(name, k):
    programs.check(name, k)
