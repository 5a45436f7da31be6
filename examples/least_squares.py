"""Least squares and spectral filtering in graphs: np.linalg and np.fft with gradients.

Shows: a Gauss-Newton fit of y = a * exp(-b * t) + c whose `while` loop runs until the
step is small (each step solves a least-squares problem with np.linalg.lstsq, the
normal equations are checked with np.linalg.cholesky); a low-pass filter built from
np.fft.rfft / irfft; and the gradient of the filtered signal's fit error with respect to
the filter's gains, through the FFTs and the loop, checked against finite differences.
Every result is compared with the same function run eagerly as plain NumPy.
"""
import numpy as np

import autograph as ag

rng = np.random.default_rng(0)
t = np.linspace(0.0, 4.0, 64)
truth = np.array([2.0, 1.3, 0.5])
clean = truth[0] * np.exp(-truth[1] * t) + truth[2]
noisy = clean + 0.05 * rng.standard_normal(t.shape)


def model(p, t):
    return p[0] * np.exp(-p[1] * t) + p[2]


@ag.function
def gauss_newton(p, t, y, tol):
    step = np.full(3, np.inf)
    n = 0
    while np.linalg.norm(step) > tol and n < 50:
        e = np.exp(-p[1] * t)
        r = p[0] * e + p[2] - y
        jac = np.stack([e, -p[0] * t * e, np.ones_like(t)], axis=1)
        step, _, rank, sv = np.linalg.lstsq(jac, -r)
        p = p + step
        n += 1
    # the normal matrix J^T J at the solution is positive definite: its Cholesky factor
    # gives the parameters' standard errors
    low = np.linalg.cholesky(jac.T @ jac)
    cov = np.linalg.inv(low).T @ np.linalg.inv(low)
    sigma = np.linalg.norm(r) / np.sqrt(t.shape[0] - 3)
    return p, n, sigma * np.sqrt(np.diagonal(cov)), np.linalg.cond(jac)


@ag.function
def low_pass(x, gains):
    spectrum = np.fft.rfft(x, norm="ortho")
    keep = np.concatenate([gains, np.zeros(spectrum.shape[0] - gains.shape[0])])
    return np.fft.irfft(spectrum * keep, n=x.shape[0], norm="ortho")


start = np.array([1.0, 1.0, 0.0])
p, n, stderr, cond = gauss_newton(start, t, noisy, 1e-10)
expected = gauss_newton.python_function(start, t, noisy, 1e-10)
for got, want in zip((p, n, stderr, cond), expected):
    np.testing.assert_allclose(got, want, rtol=1e-9)
print(f"Gauss-Newton: {int(n)} steps, a, b, c = {np.round(p, 3)} (truth {truth})")
print(f"  standard errors {np.round(stderr, 4)}, cond(J) = {cond:.1f}")

# a periodic signal (two tones) with noise, filtered by gains on the lowest 8 frequencies
s = np.arange(128) / 128
tones = np.sin(2 * np.pi * 3 * s) + 0.5 * np.cos(2 * np.pi * 5 * s)
hiss = tones + 0.3 * rng.standard_normal(s.shape)
gains = np.linspace(1.0, 0.3, 8)
smooth = low_pass(hiss, gains)
np.testing.assert_allclose(smooth, low_pass.python_function(hiss, gains), rtol=1e-12)
print(f"Low-pass filter: error vs the clean tones {np.linalg.norm(hiss - tones):.3f} -> "
      f"{np.linalg.norm(smooth - tones):.3f}")


@ag.function
def filter_error_and_gradient(gains, x, target):
    with ag.GradientTape() as tape:
        tape.watch(gains)
        err = np.sum((low_pass.python_function(x, gains) - target) ** 2)
    return err, tape.gradient(err, gains)


err, grad = filter_error_and_gradient(gains, hiss, tones)
eps = 1e-6
numeric = np.array([(np.sum((low_pass.python_function(hiss, gains + eps * e) - tones) ** 2)
                     - np.sum((low_pass.python_function(hiss, gains - eps * e) - tones) ** 2))
                    / (2 * eps) for e in np.eye(8)])
np.testing.assert_allclose(grad, numeric, rtol=1e-5, atol=1e-8)
print(f"d(error)/d(gains) through rfft/irfft matches finite differences: {np.round(grad, 2).tolist()}")

# gradient descent on the gains (the step is small: the curvature is |spectrum|^2)
for _ in range(40):
    err, grad = filter_error_and_gradient(gains, hiss, tones)
    gains = np.clip(gains - 0.03 * grad, 0.0, 1.0)
print(f"Tuned gains {np.round(gains, 2)}: squared error {err:.4f}")
print("Signatures:", gauss_newton.pretty_printed_concrete_signatures())
