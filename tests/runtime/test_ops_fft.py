"""np.fft ops (runtime/ops/fft.py): graph vs eager NumPy vs the interpreter (value, dtype,
shape), and each op's static shape/dtype rule against real NumPy calls over generated
shapes (0-size, unknown dims), dtypes, lengths, axes and norms."""
from __future__ import annotations

import numpy as np
import pytest

import autograph as ag
import runtime
from tests.helpers import check_three_ways
from tests.runtime.shape_rules_check import ALL_DTYPES, check_rule

RNG = np.random.default_rng(3)
ONE_D = ["fft", "ifft", "rfft", "irfft", "hfft", "ihfft"]
N_D = ["fftn", "ifftn", "rfftn", "irfftn", "fft2", "ifft2", "rfft2", "irfft2"]
SHAPES = [(8,), (5,), (2, 6), (3, 4, 5), (0, 4), (4, 0), (1,), (None,), (None, 4), (2, None)]


@pytest.mark.parametrize("name", ONE_D)
def test_one_d_rules(name):
    f = getattr(np.fft, name)
    for kw in ({}, {"n": 6}, {"n": 5, "axis": 0}, {"n": 1}, {"n": 0}, {"axis": -2},
               {"norm": "ortho"}, {"norm": "forward", "n": 7}, {"norm": "bad"}, {"axis": 3}):
        for s in SHAPES + [()]:
            for d in ALL_DTYPES:
                check_rule(lambda x, kw=kw: f(x, **kw), [(s, d)])


@pytest.mark.parametrize("name", N_D)
def test_n_d_rules(name):
    f = getattr(np.fft, name)
    for kw in ({}, {"axes": (0,)}, {"s": (4, 6), "axes": (0, 1)}, {"s": (3,), "axes": (-1,)},
               {"axes": (0, 0)}, {"s": (-1, 5), "axes": (0, 1)}, {"s": (2, 3, 4), "axes": (0, 1)},
               {"norm": "ortho"}, {"axes": (1, 0), "norm": "forward"}):
        for s in [(2, 6), (3, 4, 5), (0, 4), (4, 0), (None, 4), (2, None), (6,)]:
            for d in ALL_DTYPES[::2] + [np.dtype(np.float16), np.dtype(np.complex64)]:
                check_rule(lambda x, kw=kw: f(x, **kw), [(s, d)])


def test_shift_rules():
    for f in (np.fft.fftshift, np.fft.ifftshift):
        for axes in (None, 0, -1, (0, 1), (1, 1), 2):
            for s in [(5,), (2, 3), (0, 4), (None, 3)]:
                for d in ALL_DTYPES[::3]:
                    check_rule(lambda x, a=axes: f(x, axes=a), [(s, d)])


@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.complex128, np.complex64,
                                   np.int32, bool])
def test_transforms_three_ways(dtype):
    x = RNG.standard_normal((3, 8))
    if np.dtype(dtype).kind == "c":
        x = x + 1j * RNG.standard_normal((3, 8))
    x = (x > 0) if dtype is bool else (x * 4).astype(dtype) if np.dtype(dtype).kind == "i" \
        else x.astype(dtype)
    for name in ONE_D + N_D + ["fftshift", "ifftshift"]:
        f = getattr(np.fft, name)
        if name in ("rfft", "ihfft", "rfftn", "rfft2") and x.dtype.kind == "c":
            continue
        rtol = 1e-4 if x.dtype in (np.float32, np.complex64) else 1e-10
        check_three_ways(lambda x: f(x), x, rtol=rtol)
        if name in ONE_D:
            for norm in ("ortho", "forward"):
                check_three_ways(lambda x, norm=norm: f(x, n=6, axis=0, norm=norm), x, rtol=rtol)
        elif name in N_D:
            check_three_ways(lambda x: f(x, s=(4, 5), axes=(1, 0), norm="ortho"), x, rtol=rtol)


def test_unknown_lengths_and_batches():
    x = RNG.standard_normal((4, 6))
    f = runtime.function(lambda x: np.fft.irfft(np.fft.rfft(x) * 0.5),
                         input_signature=[ag.TensorSpec((None, None), np.float64)])
    np.testing.assert_array_equal(f(x), np.fft.irfft(np.fft.rfft(x) * 0.5))
    np.testing.assert_array_equal(f(x[:, :5]), np.fft.irfft(np.fft.rfft(x[:, :5]) * 0.5))
    with pytest.raises(ValueError, match="Invalid number of FFT data points"):
        f(np.ones((2, 0)))


def test_fftfreq_with_static_n_and_symbolic_d():
    def f(x, d):
        return np.fft.fftfreq(x.shape[0], d), np.fft.rfftfreq(x.shape[0], d)

    check_three_ways(f, np.ones(7), np.float64(0.1))
    check_three_ways(f, np.ones(8), np.float32(0.5))

