"""The user-facing entry: `Function` (what `@ag.function` returns), tracing per input
signature and the cache of traces.

- `modes.py`: `run_functions_eagerly` and `RetracingWarning`.
- `function.py`: `Function`, `BoundFunction`, the `function` decorator; retracing when
  the Python state a trace read changed (`state.python_state`).
- `trace.py`: `trace_signature`, tracing one signature (Python state, write-backs,
  the escape check) into a ConcreteFunction.
- `concrete.py`: `ConcreteFunction`, one trace: graph, optimized graph, generated
  executor, and the write-backs around it.
- `signature.py`: `TensorSpec` and the cache key rules.
- `trace_args.py`: arguments turned into graph inputs, and checked against a signature.
- `tracebacks.py`: errors raised out of a Function keep the user's frames only
  (`set_traceback_filtering`); `warning_lines.py`: warnings raised in a generated
  executor are shown at the user's line.
- `engines.py`: the slots the layers above fill when they load (`jit` for
  `jit_compile=True`, `onnx_export` for `ConcreteFunction.to_onnx()`).

Layer: above `exec`. It may import `core`, `ops`, `state`, `control_flow`, `autodiff`,
`passes` and `exec`, never `jit`, `saved` or `onnx_export`: those register into
`engines.py` instead.
"""
from runtime.frontend import warning_lines  # noqa: F401  (installs itself once)
