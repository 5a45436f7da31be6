"""Gradient rules for the ufunc ops, written with NumPy calls (so they run eagerly on
arrays and record graph nodes on Tensors).

A rule takes the forward record (`inputs`, `outputs`, `attrs`) and the output
cotangents, and returns one cotangent per input (None: no gradient). Broadcasting
is undone by `sum_to`. Each rule becomes the `grad` of its ufunc's op record when this
module loads. Rules for the other ops sit in `function_rules.py`.
"""
from __future__ import annotations

import math

import numpy as np

from runtime.autodiff.rule_base import attach_grad
from runtime.autodiff.shapes import sum_to
from runtime.ops.path_arith import PATH_ARITH
from runtime.ops.ufuncs import ufunc_op

_LN2, _LN10 = math.log(2.0), math.log(10.0)  # Python floats: they keep float32 float32


def ufunc_rule(*ufuncs):
    def deco(fn):
        for u in ufuncs:
            attach_grad(ufunc_op(u), fn)
        return fn
    return deco


def _unary(fn):
    """Rule for y = f(x) given dy/dx as a function of (x, y)."""
    def rule(rec, cts):
        x, y = rec.inputs[0], rec.outputs[0]
        return [cts[0] * fn(x, y)]
    return rule


@ufunc_rule(np.add)
def _add(rec, cts):
    g = cts[0]
    return [sum_to(g, rec.inputs[0]), sum_to(g, rec.inputs[1])]


@ufunc_rule(np.subtract)
def _subtract(rec, cts):
    g = cts[0]
    return [sum_to(g, rec.inputs[0]), sum_to(-g, rec.inputs[1])]


def _conj(x):
    """x's complex conjugate (a complex cotangent is dL/dRe + i dL/dIm); real x as is."""
    dt = getattr(x, "dtype", None)
    return np.conjugate(x) if (dt is not None and dt.kind == "c") or type(x) is complex else x


@ufunc_rule(np.multiply)
def _multiply(rec, cts):
    g = cts[0]
    a, b = rec.inputs
    return [sum_to(g * _conj(b), a), sum_to(g * _conj(a), b)]


@ufunc_rule(np.true_divide)
def _divide(rec, cts):
    g = cts[0]
    a, b = rec.inputs
    return [sum_to(g / _conj(b), a), sum_to(-g * _conj(rec.outputs[0] / b), b)]


@ufunc_rule(np.negative)
def _negative(rec, cts):
    return [-cts[0]]


@ufunc_rule(np.positive)
def _positive(rec, cts):
    return [cts[0]]


@ufunc_rule(np.power, np.float_power)
def _power(rec, cts):
    g = cts[0]
    a, b = rec.inputs
    y = rec.outputs[0]
    ga = sum_to(g * b * np.power(a, b - 1), a)
    # d/db a**b = a**b log a, taken as 0 where a == 0 (the limit for b > 0)
    safe = np.where(a == 0, 1, a)
    gb = sum_to(g * y * np.where(a == 0, 0, np.log(np.abs(safe))), b)
    return [ga, gb]


@ufunc_rule(np.maximum, np.minimum, np.fmax, np.fmin)
def _extremum(rec, cts):
    # ties split the gradient evenly between the two inputs
    g = cts[0]
    a, b = rec.inputs
    y = rec.outputs[0]
    wa = np.where(a == y, np.where(b == y, 0.5, 1.0), 0.0)
    return [sum_to(g * wa, a), sum_to(g * (1.0 - wa), b)]


@ufunc_rule(np.matmul)
def _matmul(rec, cts):
    g = cts[0]
    a, b = rec.inputs
    a_nd, b_nd = np.ndim(a), np.ndim(b)
    if a_nd == 1 and b_nd == 1:
        return [g * b, g * a]
    if a_nd == 1:
        ga = np.matmul(b, g[..., None])[..., 0] if b_nd > 2 else np.matmul(b, g)
        return [sum_to(ga, a), sum_to(a[:, None] * g[..., None, :], b)]
    if b_nd == 1:
        return [sum_to(g[..., :, None] * b, a), sum_to(np.matmul(np.swapaxes(a, -1, -2), g[..., None])[..., 0], b)]
    ga = np.matmul(g, np.swapaxes(b, -1, -2))
    gb = np.matmul(np.swapaxes(a, -1, -2), g)
    return [sum_to(ga, a), sum_to(gb, b)]


for _u, _d in [
    (np.exp, lambda x, y: y),
    (np.expm1, lambda x, y: y + 1),
    (np.log, lambda x, y: 1 / x),
    (np.log1p, lambda x, y: 1 / (1 + x)),
    (np.log2, lambda x, y: 1 / (x * _LN2)),
    (np.log10, lambda x, y: 1 / (x * _LN10)),
    (np.sqrt, lambda x, y: 0.5 / y),
    (np.cbrt, lambda x, y: 1 / (3 * y * y)),
    (np.square, lambda x, y: 2 * x),
    (np.reciprocal, lambda x, y: -y * y),
    (np.absolute, lambda x, y: np.sign(x)),
    (np.fabs, lambda x, y: np.sign(x)),
    (np.sin, lambda x, y: np.cos(x)),
    (np.cos, lambda x, y: -np.sin(x)),
    (np.tan, lambda x, y: 1 + y * y),
    (np.tanh, lambda x, y: 1 - y * y),
    (np.sinh, lambda x, y: np.cosh(x)),
    (np.cosh, lambda x, y: np.sinh(x)),
    (np.arctan, lambda x, y: 1 / (1 + x * x)),
    (np.arcsin, lambda x, y: 1 / np.sqrt(1 - x * x)),
    (np.arccos, lambda x, y: -1 / np.sqrt(1 - x * x)),
    (np.arctanh, lambda x, y: 1 / (1 - x * x)),
    (np.arcsinh, lambda x, y: 1 / np.sqrt(x * x + 1)),
    (np.arccosh, lambda x, y: 1 / np.sqrt(x * x - 1)),
    (np.deg2rad, lambda x, y: math.pi / 180),
    (np.radians, lambda x, y: math.pi / 180),
    (np.rad2deg, lambda x, y: 180 / math.pi),
    (np.degrees, lambda x, y: 180 / math.pi),
    (np.conjugate, lambda x, y: 1.0),
    (np.exp2, lambda x, y: y * _LN2),
]:
    attach_grad(ufunc_op(_u), _unary(_d))


@ufunc_rule(np.sign, np.floor, np.ceil, np.rint, np.trunc)
def _zero(rec, cts):
    return [np.zeros_like(rec.inputs[0]) if np.ndim(rec.inputs[0]) else cts[0] * 0]


@ufunc_rule(np.arctan2)
def _arctan2(rec, cts):
    g = cts[0]
    y, x = rec.inputs
    d = x * x + y * y
    return [sum_to(g * x / d, y), sum_to(-g * y / d, x)]


def _log_add_exp_rule(exp):
    """log(exp(a) + exp(b)) in base e or 2: each input's share is exp(input - out)."""
    def rule(rec, cts):
        g = cts[0]
        a, b = rec.inputs
        out = rec.outputs[0]
        return [sum_to(g * exp(a - out), a), sum_to(g * exp(b - out), b)]
    return rule


attach_grad(ufunc_op(np.logaddexp), _log_add_exp_rule(np.exp))
attach_grad(ufunc_op(np.logaddexp2), _log_add_exp_rule(np.exp2))


@ufunc_rule(np.hypot)
def _hypot(rec, cts):
    g = cts[0]
    a, b = rec.inputs
    safe = np.where(rec.outputs[0] == 0, 1.0, rec.outputs[0])
    return [sum_to(g * a / safe, a), sum_to(g * b / safe, b)]


@ufunc_rule(np.remainder, np.fmod)
def _remainder(rec, cts):
    # a - q * b with q = floor(a / b) (remainder) or trunc(a / b) (fmod), q piecewise constant
    g = cts[0]
    a, b = rec.inputs
    q = np.floor_divide(a, b) if rec.op.kernel is np.remainder else np.trunc(np.divide(a, b))
    return [sum_to(g * np.ones_like(q), a), sum_to(-g * q, b)]


@ufunc_rule(np.floor_divide, np.heaviside)
def _piecewise_constant(rec, cts):
    a, b = rec.inputs
    zero = np.zeros_like(cts[0])
    if rec.op.kernel is np.heaviside:  # the second argument is the value at a == 0
        return [sum_to(zero, a), sum_to(np.where(a == 0, cts[0], zero), b)]
    return [sum_to(zero, a), sum_to(zero, b)]


@ufunc_rule(np.copysign)
def _copysign(rec, cts):
    g = cts[0]
    a, b = rec.inputs
    flip = np.copysign(1.0, a) * np.copysign(1.0, b)
    return [sum_to(g * flip, a), sum_to(np.zeros_like(g), b)]


@ufunc_rule(np.ldexp)
def _ldexp(rec, cts):
    x, e = rec.inputs
    return [sum_to(np.ldexp(cts[0], e), x), None]


# NumPy 2 gufuncs: vecdot(a, b) = sum(a * b, -1), matvec(A, v) = A @ v, vecmat(v, A) = v @ A
@ufunc_rule(*[u for u in (getattr(np, n, None) for n in ("vecdot", "matvec", "vecmat")) if u])
def _vector_products(rec, cts):
    if rec.attrs:
        raise NotImplementedError(f"gradient of np.{rec.op.name} with {sorted(rec.attrs)}")
    g = cts[0]
    a, b = rec.inputs
    name = rec.op.kernel.__name__
    if name == "vecdot":
        return [sum_to(g[..., None] * b, a), sum_to(g[..., None] * a, b)]
    if name == "matvec":
        return [sum_to(g[..., :, None] * b[..., None, :], a),
                sum_to(np.matmul(np.swapaxes(a, -1, -2), g[..., None])[..., 0], b)]
    return [sum_to(np.matmul(b, g[..., None])[..., 0], a),
            sum_to(a[..., :, None] * g[..., None, :], b)]


class _AsUfunc:
    """A `path_arith` record seen as the record of its ufunc on the shared values."""

    __slots__ = ("op", "inputs", "attrs", "outputs", "origin")


def _path_arith_rule(rec, cts):
    """`path_arith` (runtime/ops/path_arith.py): its ufunc's gradient on the shared values
    (on a Python-number path the value is a constant of the branch that made it)."""
    parts, values, slots, k = rec.attrs["parts"], [], [], 0
    for part in parts:
        k += 3 if part == "k" else 1
        slots.append(k - 1)
        values.append(rec.inputs[k - 1])
    op = ufunc_op(getattr(np, rec.attrs["ufunc"]))
    shim = _AsUfunc()
    shim.op, shim.inputs, shim.attrs, shim.outputs = op, values, {}, rec.outputs[:1]
    shim.origin = getattr(rec, "origin", None)
    grads = op.grad(shim, cts[:1])
    out = [None] * len(rec.inputs)
    for slot, g in zip(slots, grads):
        out[slot] = g
    return out


attach_grad(PATH_ARITH, _path_arith_rule)
