"""`quiet_op(op)`: an op's record with floating-point errors silenced.

vmap runs both sides of a per-example `if` and every example of a `while` until all are
done; the values of examples a region does not run for are computed and discarded, so
their overflow or invalid-value warnings must not show (runtime/transforms/). The quiet
record keeps the op's name, shape rule, gradient and batching rule, and names its
original (`derived`), which is how a saved graph stores it.

    bind(quiet_op(ufunc_op(np.log)), x)   # np.log(x) under np.errstate(all="ignore")
"""
from __future__ import annotations

import numpy as np

from runtime.core.registry import OpDef

try:  # what np.errstate sets, without its per-use cost (~6 us against ~1 us)
    from numpy._core._multiarray_umath import _extobj_contextvar, _make_extobj
    _IGNORE = _make_extobj(all="ignore")
except ImportError:  # another NumPy layout: np.errstate itself
    _extobj_contextvar = _IGNORE = None
# for the executor, which silences a run of quiet ops at once (runtime/exec/quiet_groups.py)
errstate_var, ignore_all = _extobj_contextvar, _IGNORE


def _quiet_kernel(kernel):
    if _extobj_contextvar is None:
        def quiet(*args, **kwargs):
            with np.errstate(all="ignore"):
                return kernel(*args, **kwargs)
    else:
        def quiet(*args, **kwargs):
            token = _extobj_contextvar.set(_IGNORE)
            try:
                return kernel(*args, **kwargs)
            finally:
                _extobj_contextvar.reset(token)
    quiet.__name__ = getattr(kernel, "__name__", "kernel")
    return quiet


def never_warns(kernel) -> bool:
    """A ufunc whose every loop gives booleans (comparisons, logic, isnan...): it sets
    no floating-point error flag, so it needs no silencing."""
    return isinstance(kernel, np.ufunc) and all(t.endswith("?") for t in kernel.types
                                                if "O" not in t)


_QUIET_OPS: dict = {}


def quiet_op(op: OpDef) -> OpDef:
    """`op` with floating-point errors silenced (for examples whose result is discarded)."""
    if op.format is not None or op.kernel is None or never_warns(op.kernel) or \
            op.derived is not None and op.derived[0] == "quiet":  # (quiet already)
        return op
    rec = _QUIET_OPS.get(op)
    if rec is None:
        rec = _QUIET_OPS[op] = OpDef(op.name, _quiet_kernel(op.kernel),
                                     lambda _, ins, attrs: op.abstract_eval(op, ins, attrs),
                                     num_outputs=op.num_outputs, grad=op.grad, batch=op.batch,
                                     derived=("quiet", op))
    return rec


_SILENCED_OPS: dict = {}


def silenced_op(op: OpDef) -> OpDef:
    """`op` with floating-point errors silenced, also when the executor writes it as an
    expression (`x * y`): then its kernel is called instead. For an operation run a
    second time to give a value again (a `try` handler's copy of the body's value,
    runtime/control_flow/try_op.py): its warnings were already shown once."""
    if op.format is None or op.kernel is None or never_warns(op.kernel):
        return quiet_op(op)
    rec = _SILENCED_OPS.get(op)
    if rec is None:
        rec = _SILENCED_OPS[op] = OpDef(op.name, _quiet_kernel(op.kernel),
                                        lambda _, ins, attrs: op.abstract_eval(op, ins, attrs),
                                        num_outputs=op.num_outputs, grad=op.grad,
                                        batch=op.batch, derived=("quiet", op))
    return rec
