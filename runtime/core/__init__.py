"""core: what every other layer builds on, importing nothing above it.

- `tensor.py` (+ `tensor_text.py`): `Tensor`, the symbolic NumPy value, and
  `StateHandle`, the base the layers below state know a Variable by;
  `protocol.py`: the slots its NumPy protocol calls, filled by ops/ and state/.
- `tracing.py`: which graph is being traced on this thread.
- `graph.py` (+ `tensor_map.py`, `printer.py`, `verify.py`, `liveness.py`,
  `rewrite.py`): the IR `Graph(inputs, nodes, outputs)`, its one printer, its
  verifier, where values die, and cloning / rewriting graphs.
- `registry.py`: the op record `OpDef` and `bind`, the one dispatch point.
- `errors.py`, `structure.py`, `autodiff_hooks.py`: user-facing errors and origins,
  nested-structure utilities, the slot a gradient tape uses to watch Variable reads.

May import: the standard library and NumPy only (no other runtime layer).
"""
