"""frontend: what a user calls: `Function` (trace per input signature, cache, call).

- `function.py`: `Function`, `ConcreteFunction`, `function`, `run_functions_eagerly`.
- `signature.py`: `TensorSpec` and the trace cache key of a call's arguments.
- `trace_args.py`: turning a call's arguments into graph inputs and back.

May import: `runtime.core`, `ops`, `state`, `control_flow`, `autodiff`, `passes`, `exec`.
"""
