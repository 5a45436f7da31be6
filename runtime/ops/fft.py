"""`np.fft` as ops: every transform (fft, ifft, rfft, irfft, hfft, ihfft, their n-d and
2-d forms) and fftshift / ifftshift is an op named after its NumPy function
("fft.rfft") whose kernel is that function, so a graph computes bit for bit what
NumPy computes; lengths (`n`, `s`), axes and `norm` are static attributes.

`np.fft.fftfreq` / `rfftfreq` do not dispatch on their arguments: with a static `n`
(a Python int, or `x.shape[i]` of a known dimension) NumPy's own function runs, and a
symbolic `d` becomes a graph multiplication. A symbolic `n` (an unknown dimension)
reaches NumPy's own check, which raises ValueError("n should be an integer"): NumPy
calls are not routed through converted_call, so nothing here can see that call.
Shape/dtype rules: fft_rules.py; gradients (the adjoint transforms):
runtime/autodiff/fft_grad_rules.py.
"""
from __future__ import annotations

import numpy as np

from runtime.ops.fft_rules import RULES
from runtime.ops.functions import OPS, leading_arrays
from runtime.ops.functions_rules import RULES as _FUNCTION_RULES

_FUNCTION_RULES.update(RULES)  # one table of rules for every NumPy-function op

TRANSFORMS = ("fft", "ifft", "rfft", "irfft", "hfft", "ihfft", "fftn", "ifftn", "rfftn",
              "irfftn", "fft2", "ifft2", "rfft2", "irfft2", "fftshift", "ifftshift")

for _name in TRANSFORMS:
    _op = leading_arrays(getattr(np.fft, _name), 1, name="fft." + _name,
                         abstract_eval=RULES["fft." + _name])
    _op.kernel_ref = f"np.fft.{_name}"

FFT_OPS = {name: op for name, op in OPS.items() if name.startswith("fft.")}
