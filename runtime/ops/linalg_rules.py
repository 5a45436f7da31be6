"""Shape/dtype rules of the `np.linalg` ops registered in linalg.py (decompositions,
eigenvalues, least squares, norms, powers, products), written out from NumPy's own
rules: stacked matrices `(..., M, N)` broadcast, integers and booleans compute in
float64, float32 / complex64 stay single precision, float16 is refused with NumPy's
TypeError. Singular or non-convergent matrices (`LinAlgError`) depend on values and are
left to run time, so an op the outputs do not need never raises. No rule runs a kernel.
"""
from __future__ import annotations

import operator

import numpy as np

from runtime.ops.functions_rules import _strong, dot_rule, real_dtype, reduced_shape
from runtime.ops.rules_common import (axis_index, broadcast_shapes, check_square, dtype,
                                      linalg_dtype, reject, registrar, shape, static_error)

RULES: dict = {}
_INTP = np.dtype(np.intp)
_F8 = np.dtype(np.float64)
_LinAlgError = np.linalg.LinAlgError


rule = registrar(RULES)


def dmin(a, b):
    """min of two static dims (None = unknown; 0 wins over unknown)."""
    if a == 0 or b == 0:
        return 0
    return None if a is None or b is None else min(a, b)


def at_least_2d(shp) -> None:
    if len(shp) < 2:
        raise static_error(_LinAlgError, f"{len(shp)}-dimensional array given. Array must be "
                           "at least two-dimensional")


def exactly_2d(shp) -> None:
    if len(shp) != 2:
        raise static_error(_LinAlgError, f"{len(shp)}-dimensional array given. Array must be "
                           "two-dimensional")


def square_dim(shp):
    check_square(shp)
    return shp[-1] if shp[-1] is not None else shp[-2]


@rule("linalg.cholesky")
def cholesky_rule(op, inputs, attrs):
    reject("linalg.cholesky", attrs, {"upper"})
    shp = shape(inputs[0])
    n = square_dim(shp)
    return [(shp[:-2] + (n, n), linalg_dtype(inputs[0]))]


@rule("linalg.qr")
def qr_rule(op, inputs, attrs):
    shp = shape(inputs[0])
    at_least_2d(shp)
    mode = attrs.get("mode", "reduced")
    dt = linalg_dtype(inputs[0])
    *batch, m, n = shp
    batch = tuple(batch)
    if mode == "complete":
        return [(batch + (m, m), dt), (batch + (m, n), dt)]
    k = dmin(m, n)
    return [(batch + (m, k), dt), (batch + (k, n), dt)]


@rule("linalg.svd")
def svd_rule(op, inputs, attrs):
    reject("linalg.svd", attrs, {"full_matrices", "hermitian"})
    shp = shape(inputs[0])
    at_least_2d(shp)
    if attrs.get("hermitian"):  # through eigh, which checks the shape first
        check_square(shp)
    dt = linalg_dtype(inputs[0])
    *batch, m, n = shp
    batch, k = tuple(batch), dmin(m, n)
    if attrs.get("full_matrices", True):
        return [(batch + (m, m), dt), (batch + (k,), real_dtype(dt)), (batch + (n, n), dt)]
    return [(batch + (m, k), dt), (batch + (k,), real_dtype(dt)), (batch + (k, n), dt)]


@rule("linalg.svdvals")
def svdvals_rule(op, inputs, attrs):
    shp = shape(inputs[0])
    at_least_2d(shp)
    if attrs.get("hermitian"):
        check_square(shp)
    dt = linalg_dtype(inputs[0])
    return [(shp[:-2] + (dmin(shp[-2], shp[-1]),), real_dtype(dt))]


def _eigh_rule(vectors: bool):
    """np.linalg.eigh (`vectors`: eigenvalues and eigenvectors) or eigvalsh."""
    def rule(op, inputs, attrs):
        return _eigh(op, inputs, attrs, vectors)
    return rule


def _eigh(op, inputs, attrs, vectors: bool):
    reject(op.name, attrs, {"UPLO"})
    if attrs.get("UPLO", "L") not in ("L", "U"):
        raise static_error(ValueError, "UPLO argument must be 'L' or 'U'")
    shp = shape(inputs[0])
    n = square_dim(shp)
    dt = linalg_dtype(inputs[0])
    values = (shp[:-2] + (n,), real_dtype(dt))
    return [values, (shp[:-2] + (n, n), dt)] if vectors else [values]


rule("linalg.eigh")(_eigh_rule(True))
rule("linalg.eigvalsh")(_eigh_rule(False))


def _eig_rule(vectors: bool):
    """np.linalg.eig (`vectors`: eigenvalues and eigenvectors) or eigvals."""
    def rule(op, inputs, attrs):
        return _eig(op, inputs, attrs, vectors)
    return rule


def _eig(op, inputs, attrs, vectors: bool):
    shp = shape(inputs[0])
    n = square_dim(shp)
    dt = linalg_dtype(inputs[0])
    if dt.kind != "c":
        name = op.name.split(".")[-1]
        raise static_error(TypeError, f"np.linalg.{name} of a real matrix is not supported in "
                           "graphs: NumPy returns real results when every eigenvalue happens to "
                           "be real and complex ones otherwise, so the dtype depends on the "
                           f"values. Use np.linalg.{name}(a.astype(np.complex128)) (always "
                           "complex), or np.linalg.eigh / eigvalsh for a symmetric matrix")
    values = (shp[:-2] + (n,), dt)
    return [values, (shp[:-2] + (n, n), dt)] if vectors else [values]


rule("linalg.eig")(_eig_rule(True))
rule("linalg.eigvals")(_eig_rule(False))


@rule("linalg.slogdet")
def slogdet_rule(op, inputs, attrs):
    shp = shape(inputs[0])
    check_square(shp)
    dt = linalg_dtype(inputs[0])
    return [(shp[:-2], dt), (shp[:-2], real_dtype(dt))]


def _tolerance_shape(inputs, attrs, names):
    """The tolerance's shape, or None: a symbolic tolerance is the op's second input
    ("linalg.pinv_tol"), a static one an attribute."""
    if len(inputs) > 1:
        return shape(inputs[1])
    for k in names:
        if attrs.get(k) is not None:
            return np.shape(attrs[k])
    return None


@rule("linalg.pinv", "linalg.pinv_tol")
def pinv_rule(op, inputs, attrs):
    reject("linalg.pinv", attrs, {"hermitian", "rcond", "rtol", "tolerance"})
    a = inputs[0]
    shp = shape(a)
    at_least_2d(shp)
    if attrs.get("rcond") is not None and "rtol" in attrs:
        raise static_error(ValueError, "`rtol` and `rcond` can't be both set.")
    if 0 in shp[-2:]:  # NumPy returns an empty array of the input's own dtype
        return [(shp[:-2] + (shp[-1], shp[-2]), dtype(a))]
    dt = linalg_dtype(a)
    if None in shp[-2:] and dt != dtype(a):
        raise static_error(TypeError, "np.linalg.pinv of a non-float array whose matrix "
                           "dimensions are unknown while tracing: NumPy keeps the input dtype "
                           "when the matrix is empty and computes in float64 otherwise; convert "
                           "it first with a.astype(np.float64)")
    if attrs.get("hermitian"):
        check_square(shp)
    batch = shp[:-2]
    tol = _tolerance_shape(inputs, attrs, ("rcond", "rtol"))
    if tol is not None:
        # cutoff = tol[..., None] * max(s, -1, keepdims) then written into s (..., K): the
        # tolerance broadcasts against the stack but may not enlarge it
        wide = broadcast_shapes(tol + (1,), batch + (1,))[:-1]
        if len(wide) > len(batch) or any(b == 1 and w not in (1, None)
                                         for b, w in zip(batch[::-1], wide[::-1])):
            raise static_error(ValueError, f"non-broadcastable output operand with shape "
                               f"{batch + (dmin(shp[-2], shp[-1]),)} doesn't match the "
                               f"broadcast shape {wide + (dmin(shp[-2], shp[-1]),)}")
    return [(batch + (shp[-1], shp[-2]), dt)]


@rule("linalg.lstsq")
def lstsq_rule(op, inputs, attrs):
    reject("linalg.lstsq", attrs, {"rcond"})
    a, b = inputs
    sa, sb = shape(a), shape(b)
    exactly_2d(sa)
    if len(sb) not in (1, 2):
        raise static_error(_LinAlgError, f"{len(sb)}-dimensional array given. Array must be "
                           "one or two-dimensional")
    m, n = sa
    if m is not None and sb[0] is not None and m != sb[0]:
        raise static_error(_LinAlgError, "Incompatible dimensions")
    dt = linalg_dtype(a, b)
    x = (n,) + sb[1:]
    # residuals: empty when M <= N or rank < N (a value), else one per column of b
    res = (0,) if m is not None and n is not None and m <= n else (None,)
    return [(x, dt), (res, real_dtype(dt)), ((), np.dtype(np.int32)),
            ((dmin(m, n),), real_dtype(dt))]


@rule("linalg.matrix_rank", "linalg.matrix_rank_tol")
def matrix_rank_rule(op, inputs, attrs):
    reject("linalg.matrix_rank", attrs, {"hermitian", "tol", "rtol", "tolerance"})
    if attrs.get("tol") is not None and attrs.get("rtol") is not None:
        raise static_error(ValueError, "`tol` and `rtol` can't be both set.")
    shp = shape(inputs[0])
    if len(shp) < 2:
        return [((), _INTP)]
    linalg_dtype(inputs[0])
    if attrs.get("hermitian"):
        check_square(shp)
    batch, tol = shp[:-2], _tolerance_shape(inputs, attrs, ("tol", "rtol"))
    if tol is not None:  # compared with the singular values (..., K) as (..., 1)
        batch = broadcast_shapes(batch + (1,), tol + (1,))[:-1]
    return [(batch, _INTP)]


@rule("linalg.matrix_power")
def matrix_power_rule(op, inputs, attrs):
    shp = shape(inputs[0])
    try:
        n = operator.index(attrs["n"])
    except TypeError:
        raise static_error(TypeError, "exponent must be an integer") from None
    at_least_2d(shp)
    k = square_dim(shp)
    dt = dtype(inputs[0])
    if n < 0:  # through np.linalg.inv
        dt = linalg_dtype(inputs[0])
    return [(shp[:-2] + (k, k), dt)]


@rule("linalg.multi_dot")
def multi_dot_rule(op, inputs, attrs):
    if len(inputs) < 2:
        raise static_error(ValueError, "Expecting at least two arrays.")
    if len(inputs) == 2:
        return dot_rule(op, inputs, attrs)
    shapes = [shape(x) for x in inputs]
    first, last = shapes[0], shapes[-1]
    shapes[0] = (1,) + first if len(first) == 1 else first
    shapes[-1] = last + (1,) if len(last) == 1 else last
    for s in shapes:
        exactly_2d(s)
    for s, t in zip(shapes, shapes[1:]):
        if s[1] is not None and t[0] is not None and s[1] != t[0]:
            raise static_error(ValueError, f"shapes {s} and {t} not aligned: {s[1]} (dim 1) != "
                               f"{t[0]} (dim 0)")
    out = (() if len(first) == 1 else (shapes[0][0],)) + (() if len(last) == 1 else
                                                           (shapes[-1][1],))
    return [(out, np.result_type(*_strong(inputs)))]


def _norm_dtype(dt):
    return real_dtype(dt) if dt.kind in "fc" else _F8


@rule("linalg.cond")
def cond_rule(op, inputs, attrs):
    shp = shape(inputs[0])
    p = attrs.get("p")
    at_least_2d(shp)
    if 0 in shp[-2:]:
        raise static_error(_LinAlgError, "cond is not defined on empty arrays")
    if p not in (None, 2, -2):
        check_square(shp)
    dt = linalg_dtype(inputs[0])
    if p not in (None, 2, -2, 1, -1, np.inf, -np.inf, "fro", "nuc"):
        raise static_error(ValueError, "Invalid norm order for matrices.")
    return [(shp[:-2], real_dtype(dt))]


@rule("linalg.vector_norm")
def vector_norm_rule(op, inputs, attrs):
    shp, dt = shape(inputs[0]), dtype(inputs[0])
    axis, keep = attrs.get("axis"), attrs.get("keepdims", False)
    if axis is None:
        axes = tuple(range(len(shp)))
    else:
        items = tuple(axis) if isinstance(axis, (tuple, list)) else (axis,)
        axes = tuple(axis_index(a, len(shp)) for a in items)
        if len(set(axes)) != len(axes):
            raise static_error(ValueError, "repeated axis")
    ord_ = attrs.get("ord", 2)
    if isinstance(ord_, str):
        raise static_error(ValueError, f"Invalid norm order '{ord_}' for vectors")
    if ord_ == -np.inf and 0 in [shp[a] for a in axes]:  # a min; the max starts at 0
        raise static_error(ValueError, "zero-size array to reduction operation minimum which "
                           "has no identity")
    return [(reduced_shape(shp, axes, keep) if keep or axis is not None else (),
             _norm_dtype(dt))]


@rule("linalg.matrix_norm")
def matrix_norm_rule(op, inputs, attrs):
    shp, dt = shape(inputs[0]), dtype(inputs[0])
    ord_ = attrs.get("ord", "fro")
    axis_index(-2, len(shp))  # NumPy's AxisError for fewer than two dimensions
    out_dt = _norm_dtype(dt)
    if ord_ in (2, -2, "nuc"):
        out_dt = real_dtype(linalg_dtype(out_dt))
    elif ord_ not in (1, -1, np.inf, -np.inf, "fro", "f"):
        raise static_error(ValueError, "Invalid norm order for matrices.")
    axes = (len(shp) - 2, len(shp) - 1)
    return [(reduced_shape(shp, axes, attrs.get("keepdims", False)), out_dt)]
