"""Reverse-mode automatic differentiation: `GradientTape`, gradient rules, control flow."""
from runtime.autodiff.tape import GradientTape, TapeValue
# the gradient rules attach themselves to their op records (`OpDef.grad`) on import; this
# is the one place that loads the rule modules (each builds on rule_base.py only)
from runtime.autodiff import array_rules, fft_grad_rules, function_rules  # noqa: F401
from runtime.autodiff import dynamic_grads, linalg_more_rules, linalg_rules  # noqa: F401
from runtime.autodiff import more_rules, norm_rules, rules  # noqa: F401

__all__ = ["GradientTape", "TapeValue"]
