"""Gradient rules for the np.fft ops: every transform is linear, so its rule is the
adjoint transform.

Complex cotangents follow the convention of the other rules (np.abs: g * x / |x|): the
cotangent of z is dL/dRe(z) + i dL/dIm(z), so a linear map's rule is its conjugate
transpose. The adjoint of fft with `norm` is ifft with the dual norm (backward <->
forward, ortho stays), and padding / cropping to `n` become cropping / padding back. The
real transforms need the Hermitian weighting: rfft keeps only half the spectrum, so its
adjoint halves the bins that stand for two (all but the DC and Nyquist bins) before
irfft; irfft counts those bins twice, so its adjoint doubles them after rfft. hfft and
ihfft are irfft / rfft of conjugates with swapped norms (as NumPy defines them).
"""
from __future__ import annotations

import numpy as np

from runtime.autodiff.rule_base import rule
from runtime.autodiff.shapes import shape_of_value
from runtime.ops.fft_rules import cook_nd

_DUAL = {None: "forward", "backward": "forward", "forward": "backward", "ortho": "ortho"}
_SWAP = _DUAL  # NumPy's _swap_direction: the same exchange


def _length(x, axis):
    n = shape_of_value(x)[axis]
    if n is None:
        raise NotImplementedError("gradient of an FFT with an explicit length along an axis "
                                  "whose size is unknown while tracing")
    return n


def _resize(g, axis: int, have: int, want: int):
    """Crop or zero-pad `g` along `axis` from length `have` to `want`."""
    if have == want:
        return g
    moved = np.moveaxis(g, axis, -1)
    if have > want:
        moved = moved[..., :want]
    else:
        pad = [(0, 0)] * (np.ndim(g) - 1) + [(0, want - have)]
        moved = np.pad(moved, pad)
    return np.moveaxis(moved, -1, axis)


def _along(weights: np.ndarray, axis: int, nd: int) -> np.ndarray:
    return weights.reshape((-1,) + (1,) * (nd - 1 - axis % nd))


def adjoint_c2c(g, inverse: bool, n, axis, norm, in_len):
    """Adjoint of fft (or ifft when `inverse`) of an input of length `in_len` to length `n`."""
    back = np.fft.fft if inverse else np.fft.ifft
    g = back(g, axis=axis, norm=_DUAL[norm])
    return g if n is None else _resize(g, axis, n, in_len)


def adjoint_r2c(g, n, axis, norm, in_len):
    """Adjoint of rfft(x, n): halve the two-sided bins, then irfft with the dual norm."""
    n = in_len if n is None else n
    bins = n // 2 + 1
    weights = np.full(bins, 0.5)
    weights[0] = 1.0
    if n % 2 == 0:
        weights[-1] = 1.0
    nd = np.ndim(g)
    g = np.fft.irfft(g * _along(weights, axis, nd), n=n, axis=axis, norm=_DUAL[norm])
    return _resize(g, axis, n, in_len)


def adjoint_c2r(g, n, axis, norm, in_len):
    """Adjoint of irfft(z, n): rfft with the dual norm, then double the two-sided bins."""
    n = 2 * (in_len - 1) if n is None else n
    bins = n // 2 + 1
    weights = np.full(bins, 2.0)
    weights[0] = 1.0
    if n % 2 == 0:
        weights[-1] = 1.0
    nd = np.ndim(g)
    g = np.fft.rfft(g, n=n, axis=axis, norm=_DUAL[norm]) * _along(weights, axis, nd)
    return _resize(g, axis, bins, in_len)


def _one_d(rec):
    x = rec.inputs[0]
    axis = rec.attrs.get("axis", -1) % np.ndim(x)
    return x, rec.attrs.get("n"), axis, rec.attrs.get("norm")


def _fft_rule(inverse: bool):
    """np.fft.fft, or np.fft.ifft (`inverse`)."""
    def grad(rec, cts):
        x, n, axis, norm = _one_d(rec)
        in_len = None if n is None else _length(x, axis)
        return [adjoint_c2c(cts[0], inverse, n, axis, norm, in_len)]
    return grad


rule("fft.fft")(_fft_rule(False))
rule("fft.ifft")(_fft_rule(True))


@rule("fft.rfft")
def _rfft(rec, cts):
    x, n, axis, norm = _one_d(rec)
    return [adjoint_r2c(cts[0], n, axis, norm, _length(x, axis))]


@rule("fft.irfft")
def _irfft(rec, cts):
    x, n, axis, norm = _one_d(rec)
    return [adjoint_c2r(cts[0], n, axis, norm, _length(x, axis))]


@rule("fft.hfft")
def _hfft(rec, cts):  # irfft(conj(a), n, norm=swapped)
    x, n, axis, norm = _one_d(rec)
    return [np.conjugate(adjoint_c2r(cts[0], n, axis, _SWAP[norm], _length(x, axis)))]


@rule("fft.ihfft")
def _ihfft(rec, cts):  # conj(rfft(a, n, norm=swapped))
    x, n, axis, norm = _one_d(rec)
    return [adjoint_r2c(np.conjugate(cts[0]), n, axis, _SWAP[norm], _length(x, axis))]


def _n_d(rec, inverse_real: bool, two_d: bool):
    """`two_d`: the fft2 family (last two axes by default)."""
    x = rec.inputs[0]
    nd = np.ndim(x)
    default_axes = (-2, -1) if two_d else None
    axes_attr = rec.attrs.get("axes", default_axes)
    s, axes = cook_nd(shape_of_value(x), rec.attrs.get("s"), axes_attr, inverse_real)
    axes = [a % nd for a in axes]
    if len(set(axes)) != len(axes):
        raise NotImplementedError(f"gradient of np.{rec.op.name} over repeated axes")
    explicit = rec.attrs.get("s") is not None
    return x, (s if explicit else [None] * len(axes)), axes, rec.attrs.get("norm")


def _fftn_rule(inverse: bool, two_d: bool):
    """np.fft.fftn / ifftn (`inverse`), or fft2 / ifft2 (`two_d`)."""
    def grad(rec, cts):
        x, s, axes, norm = _n_d(rec, False, two_d)
        g = cts[0]
        for n, axis in zip(s, axes):
            g = adjoint_c2c(g, inverse, n, axis, norm, None if n is None else _length(x, axis))
        return [g]
    return grad


rule("fft.fftn")(_fftn_rule(False, False))
rule("fft.ifftn")(_fftn_rule(True, False))
rule("fft.fft2")(_fftn_rule(False, True))
rule("fft.ifft2")(_fftn_rule(True, True))


def _rfftn_rule(two_d: bool):
    """np.fft.rfftn, or rfft2 (`two_d`)."""
    def grad(rec, cts):
        x, s, axes, norm = _n_d(rec, False, two_d)
        g = cts[0]
        for n, axis in zip(s[:-1], axes[:-1]):  # the forward ran rfft on the last axis first
            g = adjoint_c2c(g, False, n, axis, norm, None if n is None else _length(x, axis))
        return [adjoint_r2c(g, s[-1], axes[-1], norm, _length(x, axes[-1]))]
    return grad


def _irfftn_rule(two_d: bool):
    """np.fft.irfftn, or irfft2 (`two_d`)."""
    def grad(rec, cts):
        x, s, axes, norm = _n_d(rec, True, two_d)
        g = adjoint_c2r(cts[0], s[-1], axes[-1], norm, _length(x, axes[-1]))
        for n, axis in zip(s[:-1], axes[:-1]):
            g = adjoint_c2c(g, True, n, axis, norm, None if n is None else _length(x, axis))
        return [g]
    return grad


rule("fft.rfftn")(_rfftn_rule(False))
rule("fft.rfft2")(_rfftn_rule(True))
rule("fft.irfftn")(_irfftn_rule(False))
rule("fft.irfft2")(_irfftn_rule(True))


@rule("fft.fftshift")
def _fftshift(rec, cts):
    return [np.fft.ifftshift(cts[0], axes=rec.attrs.get("axes"))]


@rule("fft.ifftshift")
def _ifftshift(rec, cts):
    return [np.fft.fftshift(cts[0], axes=rec.attrs.get("axes"))]
