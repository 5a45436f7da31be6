"""Reverse-mode automatic differentiation: `GradientTape`, gradient rules, control flow."""
from runtime.autodiff.tape import GradientTape, TapeValue

__all__ = ["GradientTape", "TapeValue"]
