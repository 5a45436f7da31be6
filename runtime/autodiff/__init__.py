"""autodiff: reverse-mode automatic differentiation.

- `tape.py` (+ `backprop.py`): `GradientTape`, which records eagerly and, while tracing,
  differentiates the graph; `tape_values.py`: the tape values it hands back eagerly and
  how NumPy calls on them are recorded; `control_flow_grads.py`: gradients of
  `cond`/`while_loop`.
- `rule_base.py`: `@rule(names)` attaches a gradient rule to op records (`OpDef.grad`),
  and the helpers rules share; `shapes.py`: the ops gradients need (`sum_to`, ...).
- `rules.py` (ufuncs), `function_rules.py`, `array_rules.py`, `linalg_rules.py`,
  `linalg_more_rules.py`, `norm_rules.py`, `fft_grad_rules.py`, `more_rules.py`,
  `dynamic_grads.py`, `ufunc_method_rules.py`: the rules, written with NumPy calls so they run eagerly and traced.

May import: `runtime.core`, `ops`, `state`, `control_flow` (and this folder); never
`passes`, `exec`, `frontend` or the top layers.
"""
from runtime.autodiff.tape import GradientTape, TapeValue
# the gradient rules attach themselves to their op records (`OpDef.grad`) on import; this
# is the one place that loads the rule modules (each builds on rule_base.py only)
from runtime.autodiff import array_rules, fft_grad_rules, function_rules  # noqa: F401
from runtime.autodiff import dynamic_grads, linalg_more_rules, linalg_rules  # noqa: F401
from runtime.autodiff import more_rules, norm_rules, rules, ufunc_method_rules  # noqa: F401

__all__ = ["GradientTape", "TapeValue"]
