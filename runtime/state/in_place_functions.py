"""NumPy functions that write into an argument in place, in graphs: their handlers in the
NumPy function table (`runtime.ops.functions.TABLE`), registered when this module loads
(runtime/__init__.py imports it).

- `np.put_along_axis(arr, indices, values, axis)`: op "put_along_axis"
  (runtime/ops/more_arrays.py, the updated copy) made `arr`'s new value through views.py,
  exactly like `arr[i] = v`: aliases and views see it, and an argument array is written
  back after the call. axis=None is refused (see more_arrays.py).
"""
from __future__ import annotations

import numpy as np

from runtime.core import tracing
from runtime.core.errors import where
from runtime.core.tensor import Tensor
from runtime.ops.functions import TABLE, resolve_variables
from runtime.ops.more_arrays import put_along_axis_value
from runtime.state.views import resolve, write


@TABLE.register(np.put_along_axis)
def _put_along_axis(arr, indices, values, axis):
    if isinstance(axis, Tensor):
        raise TypeError(f"np.put_along_axis: `axis` must be static in graphs{where()}")
    if not isinstance(arr, Tensor):
        if tracing.current_graph() is None:  # an eager GradientTape's values
            raise TypeError(f"np.put_along_axis writes into `arr` in place, which an eager "
                            f"GradientTape cannot record{where()}; run the code in an "
                            "ag.function (where it is differentiable), or build the result "
                            "with np.where / np.concatenate.")
        raise TypeError(
            f"np.put_along_axis(arr, ...) with indices or values computed in the graph"
            f"{where()}: `arr` is a NumPy array (a constant of the trace), which the graph "
            "cannot write into. Make `arr` a graph value: pass it in as an argument, or "
            "build it from one (e.g. `arr = np.zeros_like(x)`, `arr = x.copy()`).")
    if axis is None:
        raise TypeError(
            f"np.put_along_axis(..., axis=None) is not supported in graphs{where()}: NumPy "
            "writes through a flattened view of `arr` only when its memory is C-contiguous "
            "(and raises otherwise), which a graph does not know. Write the flat positions "
            "by index instead: `arr[np.unravel_index(indices, arr.shape)] = values`.")
    indices, values = resolve_variables([indices, values])
    new = put_along_axis_value(resolve(arr), resolve(indices), resolve(values), axis)
    try:
        write(arr, new)
    except ValueError as e:
        if "defined outside the symbolic" not in str(e):
            raise
        # AutoGraph carries the arrays a block assigns (`x[i] = v` is one); a call that
        # writes in place is not an assignment it sees
        raise ValueError(
            f"np.put_along_axis writes into `arr` in place inside a symbolic `if` / loop"
            f"{where()}, but `arr` is not assigned in that block, so the block does not "
            "carry its new value out. Assign the array in the block before the call (e.g. "
            "`y = y.copy()`, or compute it there), which makes it a variable of the block.") \
            from None
