"""transforms: function transformations on traced graphs (vmap).

- `batching.py`: `vmap_call` traces a function for one example and `Batcher` emits its
  batched form (each op's batching rule is its record's `OpDef.batch`; an op without one
  runs as a loop over the batch for that op only).
- `batch_rules.py`: the rules of the common ops; `batch_control.py`: `cond` (both branches
  and a select, or a real `cond` when the predicate is the same for every example) and
  `while_loop` (a per-example "still running" mask); `batch_grad.py`: the gradient of an
  op run per example (its own rule, batched); `batch_reductions.py`: a sum, max or min of
  a short per-example vector in NumPy's own order of operations, on the batch's columns.

May import: `runtime.core`, `ops`, `state`, `control_flow`, `autodiff` (and this folder);
never `passes`, `exec`, `frontend` or the top layers.
"""
from runtime.transforms.batching import VmapFallbackWarning, vmap_call
# the batching rules attach themselves to their op records (`OpDef.batch`) on import
from runtime.transforms import batch_control, batch_grad, batch_rules  # noqa: F401

__all__ = ["VmapFallbackWarning", "vmap_call"]
