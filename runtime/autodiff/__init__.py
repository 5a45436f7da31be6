"""Reverse-mode automatic differentiation: `GradientTape`, gradient rules, control flow."""
from runtime.autodiff.tape import GradientTape, TapeValue
# the gradient rules attach themselves to their op records (`OpDef.grad`) on import
from runtime.autodiff import function_rules as _function_rules  # noqa: F401
from runtime.autodiff import more_rules as _more_rules, rules as _ufunc_rules  # noqa: F401
from runtime.autodiff import dynamic_grads as _dynamic_grads  # noqa: F401

__all__ = ["GradientTape", "TapeValue"]
