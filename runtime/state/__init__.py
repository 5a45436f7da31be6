"""state: what a NumPy program sees beyond values, traced into graphs.

- `views.py` (+ `view_recipes.py`): NumPy's aliasing model on immutable Tensors:
  writes through views and aliases, in-place operators (fills the Tensor protocol's
  write/resolve slots and the indexing op's view hook when it loads).
- `variables.py`: `Variable`, graph state read and assigned on every call.
- `effects.py`, `printing.py`, `checks.py`: graph side effects (`assert_`, `raise_`,
  `ag.print`) and run-time checks that raise what Python would.
- `in_place_functions.py`: NumPy functions that write into their argument
  (`np.put_along_axis`), added to the ops' NumPy function table when it loads.
- `writeback.py`, `random_watch.py`: what a call writes back into its arguments'
  containers, and random draws the tracer could not see, watched while tracing.
- `random_ops.py`: random draws as stateful graph ops (AutoGraph routes the calls
  there: autograph/operators/random_calls.py).
- `python_state.py` (+ `state_walk.py`, `state_kinds.py`, `append_log.py`): the Python
  state a traced function reaches (`self`, globals, closures, a function's attributes,
  the program's modules): guards, places read as inputs, writes done again by every
  call; `state_kinds.py` says what holds state and how each kind of container is read
  and put back. `escapes.py`: no symbolic value left in it after a trace.

May import: `runtime.core`, `runtime.ops`.
"""
from runtime.state import views, checks  # noqa: F401 - they fill core's Tensor protocol slots
from runtime.state import in_place_functions  # noqa: F401 - np.put_along_axis in the table
