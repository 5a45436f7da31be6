"""Shape/dtype rules of the `np.fft` ops (fft.py), written out from NumPy's pocketfft
wrapper: an n-d transform is a chain of 1-d ones, last axis first (`_raw_fftnd`,
`rfftn`, `irfftn`), each replacing one axis length and fixing the dtype the way
`_raw_fft` does (complex output: `result_type(a, 1j)`; real output:
`result_type(a.real, 1.0)`, so float16 in gives float16 out of irfft but float32 out of
irfftn). Invalid sizes and norms are static ValueErrors at the user's line; a default
size that comes from an unknown dimension is checked when the graph runs.
"""
from __future__ import annotations

import operator

import numpy as np

from runtime.ops.functions_rules import real_dtype
from runtime.ops.rules_common import (
    axes_tuple, axis_index, dtype, registrar, reject, shape, static_error,
)

RULES: dict = {}
_NORMS = (None, "backward", "ortho", "forward")


rule = registrar(RULES)


def _check_norm(attrs) -> None:
    norm = attrs.get("norm")
    if norm not in _NORMS:
        raise static_error(ValueError, f'Invalid norm value {norm}; should be "backward",'
                           '"ortho" or "forward".')


def _size(n, default):
    """A transform length: `n` (static int) or the default (None when unknown)."""
    if n is None:
        n = default
    if n is None:
        return None
    try:
        n = operator.index(n)
    except TypeError:
        raise static_error(TypeError, f"the FFT length must be a static integer in graphs, "
                           f"not {type(n).__name__}") from None
    if n < 1:
        raise static_error(ValueError, f"Invalid number of FFT data points ({n}) specified.")
    return n


def step(shp: tuple, dt: np.dtype, kind: str, n, axis: int, attrs: dict) -> tuple:
    """One 1-d transform of `kind` ("c2c", "r2c", "c2r") along `axis`: new (shape, dtype).
    Checked in NumPy's order: the default length, the length, the norm, the axis."""
    if n is None:
        try:
            length = shp[operator.index(axis)]
        except IndexError:
            raise static_error(IndexError, "tuple index out of range") from None
        n = _size(None, None if length is None else (length - 1) * 2 if kind == "c2r"
                  else length)
    else:
        n = _size(n, None)
    _check_norm(attrs)
    ax = axis_index(axis, len(shp))
    out_len = n
    if kind == "r2c":
        if dt.kind == "c":
            raise static_error(TypeError, f"ufunc 'rfft_n_{'even' if (n or 0) % 2 == 0 else 'odd'}'"
                               " not supported for the input types, and the inputs could not "
                               "be safely coerced to any supported types according to the "
                               "casting rule ''safe''")
        out_len = None if n is None else n // 2 + 1
    if kind == "c2r":
        out_dt = np.result_type(real_dtype(dt), 1.0)
    else:
        out_dt = np.result_type(dt, 1j)
    return shp[:ax] + (out_len,) + shp[ax + 1:], out_dt


def _one_d_rule(kind: str):
    """A 1-d transform: `kind` is c2c (complex to complex), r2c or c2r."""
    def rule(op, inputs, attrs):
        reject(op.name, attrs, {"n", "axis", "norm"})
        x = inputs[0]
        return [step(shape(x), dtype(x), kind, attrs.get("n"), attrs.get("axis", -1), attrs)]
    return rule


for _name, _kind in (("fft.fft", "c2c"), ("fft.ifft", "c2c"), ("fft.rfft", "r2c"),
                     ("fft.irfft", "c2r"), ("fft.hfft", "c2r"), ("fft.ihfft", "r2c")):
    rule(_name)(_one_d_rule(_kind))


def cook_nd(shp: tuple, s, axes, inverse_real: bool) -> tuple[list, list]:
    """NumPy's `_cook_nd_args`: the lengths and axes of an n-d transform."""
    shapeless = s is None
    if s is None:
        if axes is None:
            s = list(shp)
        else:
            try:
                s = [shp[operator.index(a)] for a in axes]
            except IndexError:
                raise static_error(IndexError, "index out of range for the axes of the "
                                   "transform") from None
    s = list(s)
    if axes is None:
        axes = list(range(-len(s), 0))
    axes = list(axes)
    if len(s) != len(axes):
        raise static_error(ValueError, "Shape and axes have different lengths.")
    if inverse_real and shapeless and s:
        last = s[-1]
        s[-1] = None if last is None else (last - 1) * 2
    out = []
    for n, a in zip(s, axes):
        if n == -1:
            n = shp[axis_index(a, len(shp))]
        out.append(n)
    return out, axes


def _n_d_rule(kind: str, two_d: bool):
    """An n-d transform of `kind` (see _one_d_rule); `two_d`: the *2 forms, which
    default to the last two axes."""
    def rule(op, inputs, attrs):
        return _n_d(op, inputs, attrs, kind, (-2, -1) if two_d else None)
    return rule


def _n_d(op, inputs, attrs, kind: str, default_axes):
    reject(op.name, attrs, {"s", "axes", "norm"})
    x = inputs[0]
    shp, dt = shape(x), dtype(x)
    s, axes = cook_nd(shp, attrs.get("s"), attrs.get("axes", default_axes), kind == "c2r")
    if kind == "r2c":  # rfft along the last axis, then fft along the others
        order = [(len(axes) - 1, "r2c")] + [(i, "c2c") for i in range(len(axes) - 2, -1, -1)]
    elif kind == "c2r":  # ifft along all but the last, then irfft along the last
        order = [(i, "c2c") for i in range(len(axes) - 1)] + [(len(axes) - 1, "c2r")]
    else:
        order = [(i, "c2c") for i in range(len(axes) - 1, -1, -1)]
    for i, k in order:
        shp, dt = step(shp, dt, k, s[i], axes[i], attrs)
    if not axes:
        _check_norm(attrs)
    return [(shp, dt)]


for _name, _kind, _two_d in (("fftn", "c2c", False), ("ifftn", "c2c", False),
                             ("fft2", "c2c", True), ("ifft2", "c2c", True),
                             ("rfftn", "r2c", False), ("rfft2", "r2c", True),
                             ("irfftn", "c2r", False), ("irfft2", "c2r", True)):
    rule("fft." + _name)(_n_d_rule(_kind, _two_d))


@rule("fft.fftshift", "fft.ifftshift")
def shift_rule(op, inputs, attrs):
    reject(op.name, attrs, {"axes"})
    shp = shape(inputs[0])
    axes = attrs.get("axes")
    if axes is not None:
        axes_tuple(axes, len(shp), allow_repeats=True)
    return [(shp, dtype(inputs[0]))]
