"""`np.linalg` as ops: decompositions (cholesky, qr, svd, svdvals, eigh, eigvalsh, eig,
eigvals), slogdet, pinv, lstsq, matrix_rank, matrix_power, cond, multi_dot and the
vector / matrix norms, each an op named after its NumPy function ("linalg.svd") whose
kernel is that function, so a graph computes exactly what NumPy computes (the same
LAPACK calls). Named-tuple results (`SVDResult`, `QRResult`, `EighResult`, `EigResult`,
`SlogdetResult`) come back with their type, so `res.U` works in graphs as eagerly.

The namespace's own array-API spellings (matmul, tensordot, vecdot, outer, cross, trace,
diagonal, matrix_transpose) check what NumPy checks and lower to the existing ops.
Shape/dtype rules: linalg_rules.py; gradients: runtime/autodiff/linalg_more_rules.py.
`det`, `inv`, `solve` and `norm` are registered in functions.py.
"""
from __future__ import annotations

import inspect

import numpy as np

from runtime.core.errors import where
from runtime.ops.functions import OPS, TABLE, leading_arrays, resolve_variables, sequence_op
from runtime.ops.functions_rules import RULES as _FUNCTION_RULES
from runtime.ops.linalg_rules import RULES
from runtime.ops.more import symbolic
from runtime.core.registry import bind
from runtime.core.tensor import Tensor
from runtime.ops.rules_common import shape, static_error

_la = np.linalg
_FUNCTION_RULES.update(RULES)  # one table of rules for every NumPy-function op
_results = _la._linalg  # where NumPy defines its result named tuples


def linalg_op(fn, n_arrays: int = 1, *, num_outputs: int = 1, kernel=None, name=None):
    """Register `np.linalg.<fn>` as op "linalg.<fn>" (its kernel: `fn` unless given)."""
    plain = TABLE.handlers.get(fn)
    name = name or "linalg." + fn.__name__
    op = leading_arrays(fn, n_arrays, name=name, abstract_eval=RULES[name])
    if plain is not None:  # a second op for `fn` (e.g. "linalg.pinv_tol"): keep its handler
        TABLE.handlers[fn] = plain
    op.num_outputs = num_outputs
    op.kernel_ref = f"np.linalg.{fn.__name__}"
    if kernel is not None:
        op.kernel, op.kernel_ref = kernel, name.replace(".", "_")
    return op


def _returning(fn, result_type):
    """Give `fn`'s multi-output handler NumPy's named-tuple result type."""
    plain = TABLE.handlers[fn]

    def handler(*args, **kwargs):
        return result_type(*plain(*args, **kwargs))

    TABLE.handlers[fn] = handler


def _svd_values(a, hermitian=False):
    return np.linalg.svd(a, compute_uv=False, hermitian=hermitian)


def _matrix_rank(A, **attrs):
    r = np.linalg.matrix_rank(A, **attrs)
    return np.intp(r) if type(r) is int else r  # a Python int for 1-D input: keep intp


CHOLESKY = linalg_op(_la.cholesky)
QR = linalg_op(_la.qr, num_outputs=2)
SVD = linalg_op(_la.svd, num_outputs=3)
SVDVALS = linalg_op(_la.svdvals, kernel=_svd_values)
EIGH = linalg_op(_la.eigh, num_outputs=2)
EIGVALSH = linalg_op(_la.eigvalsh)
EIG = linalg_op(_la.eig, num_outputs=2)
EIGVALS = linalg_op(_la.eigvals)
SLOGDET = linalg_op(_la.slogdet, num_outputs=2)
PINV = linalg_op(_la.pinv)
LSTSQ = linalg_op(_la.lstsq, 2, num_outputs=4)
MATRIX_RANK = linalg_op(_la.matrix_rank, kernel=_matrix_rank)
MATRIX_POWER = linalg_op(_la.matrix_power)
COND = linalg_op(_la.cond)
VECTOR_NORM = linalg_op(_la.vector_norm)
MATRIX_NORM = linalg_op(_la.matrix_norm)
MULTI_DOT = sequence_op(_la.multi_dot, name="linalg.multi_dot")
MULTI_DOT.kernel_ref = "np.linalg.multi_dot"
MULTI_DOT.format = lambda gen, ins, attrs: f"np.linalg.multi_dot([{', '.join(ins)}])"



def _pinv_tol(a, tol, tolerance="rtol", hermitian=False):
    return np.linalg.pinv(a, hermitian=hermitian, **{tolerance: tol})


def _matrix_rank_tol(A, tol, tolerance="rtol", hermitian=False):
    return _matrix_rank(A, hermitian=hermitian, **{tolerance: tol})


# a tolerance computed in the graph (one per stacked matrix) is an input, not an attribute
PINV_TOL = linalg_op(_la.pinv, 2, kernel=_pinv_tol, name="linalg.pinv_tol")
MATRIX_RANK_TOL = linalg_op(_la.matrix_rank, 2, kernel=_matrix_rank_tol,
                            name="linalg.matrix_rank_tol")


def _tolerance_handler(fn, op, names):
    """`fn`'s handler, binding `op` (the tolerance as an input) when the tolerance
    argument named in `names` is symbolic; NumPy's own checks first."""
    plain, sig = TABLE.handlers[fn], inspect.signature(fn)
    first = next(iter(sig.parameters))

    def handler(*args, **kwargs):
        bound = sig.bind(*args, **kwargs).arguments
        given = [k for k in names if k in bound and bound[k] is not None]
        if not any(symbolic(bound[k]) for k in given):
            return plain(*args, **kwargs)
        if len(given) > 1:
            raise static_error(ValueError, f"`{given[1]}` and `{given[0]}` can't be both set.")
        (a, tol) = resolve_variables([bound[first], bound[given[0]]])
        attrs = {"tolerance": given[0]}
        if bound.get("hermitian"):
            attrs["hermitian"] = True
        return bind(op, a, tol, **attrs)

    TABLE.handlers[fn] = handler


_tolerance_handler(_la.pinv, PINV_TOL, ("rcond", "rtol"))
_tolerance_handler(_la.matrix_rank, MATRIX_RANK_TOL, ("tol", "rtol"))

for _fn, _type in ((_la.eigh, _results.EighResult), (_la.eig, _results.EigResult),
                   (_la.slogdet, _results.SlogdetResult)):
    _returning(_fn, _type)


@TABLE.register(_la.svd)
def _svd(a, full_matrices=True, compute_uv=True, hermitian=False):
    (a,) = resolve_variables([a])
    if not compute_uv:
        return bind(SVDVALS, a, **({"hermitian": True} if hermitian else {}))
    attrs = {"full_matrices": bool(full_matrices)}
    if hermitian:
        attrs["hermitian"] = True
    return _results.SVDResult(*bind(SVD, a, **attrs))


@TABLE.register(_la.svdvals)
def _svdvals(x):
    return bind(SVDVALS, *resolve_variables([x]))


@TABLE.register(_la.qr)
def _qr(a, mode="reduced"):
    (a,) = resolve_variables([a])
    if mode == "raw":
        raise TypeError(f"np.linalg.qr(..., mode='raw') is not supported in graphs{where()}: "
                        "its Householder form has no gradient and no other use here; use "
                        "mode='reduced', 'complete' or 'r'.")
    if mode not in ("reduced", "complete", "r"):
        raise static_error(ValueError, f"Unrecognized mode '{mode}'")
    q, r = bind(QR, a, mode="complete" if mode == "complete" else "reduced")
    return r if mode == "r" else _results.QRResult(q, r)


# -- the array-API spellings in np.linalg: NumPy's checks, then the existing ops ------------
@TABLE.register(_la.matmul)
def _matmul(x1, x2, /):
    return np.matmul(x1, x2)


@TABLE.register(_la.tensordot)
def _tensordot(x1, x2, /, *, axes=2):
    return np.tensordot(x1, x2, axes=axes)


@TABLE.register(_la.vecdot)
def _vecdot(x1, x2, /, *, axis=-1):
    if axis == -1:
        return np.vecdot(x1, x2)
    return np.vecdot(np.moveaxis(x1, axis, -1), np.moveaxis(x2, axis, -1))


@TABLE.register(_la.outer)
def _outer(x1, x2, /):
    n1, n2 = len(shape(x1)), len(shape(x2))
    if n1 != 1 or n2 != 1:
        raise static_error(ValueError, "Input arrays must be one-dimensional, but they are "
                           f"x1.ndim={n1} and x2.ndim={n2}.")
    return np.outer(x1, x2)


@TABLE.register(_la.cross)
def _cross(x1, x2, /, *, axis=-1):
    d1, d2 = shape(x1)[axis], shape(x2)[axis]
    if None in (d1, d2):
        raise static_error(ValueError, "np.linalg.cross: the length of the vector axis is "
                           "unknown while tracing; NumPy requires it to be 3")
    if d1 != 3 or d2 != 3:
        raise static_error(ValueError, "Both input arrays must be (arrays of) 3-dimensional "
                           f"vectors, but they are {d1} and {d2} dimensional instead.")
    return np.cross(x1, x2, axis=axis)


@TABLE.register(_la.trace)
def _trace(x, /, *, offset=0, dtype=None):
    return np.trace(x, offset, axis1=-2, axis2=-1, dtype=dtype)


@TABLE.register(_la.diagonal)
def _diagonal(x, /, *, offset=0):
    return np.diagonal(x, offset, axis1=-2, axis2=-1)


@TABLE.register(_la.matrix_transpose, np.matrix_transpose)
def _matrix_transpose(x, /):
    nd = len(shape(x))
    if nd < 2:
        raise static_error(ValueError, "Input array must be at least 2-dimensional, but it "
                           f"is {nd}")
    return np.swapaxes(x, -1, -2)


LINALG_OPS = {name: op for name, op in OPS.items() if name.startswith("linalg.")}


def _rank_of_a_vector_is_a_python_int() -> None:
    """NumPy returns `int(not all(A == 0))` for the rank of a 0-d or 1-D `A`: the graph's
    intp value stands for that Python int (weak, returned as one)."""
    plain = TABLE.handlers[_la.matrix_rank]

    def handler(*args, **kwargs):
        out = plain(*args, **kwargs)
        a = args[0] if args else kwargs.get("A")
        if isinstance(out, Tensor) and np.ndim(a) < 2:
            out.weak = True
        return out

    TABLE.handlers[_la.matrix_rank] = handler


_rank_of_a_vector_is_a_python_int()
