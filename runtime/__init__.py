"""runtime: trace NumPy code into graphs, optimize them and run them as generated Python.

Knows nothing about ASTs (the `autograph` package builds on it). Its folders are layers,
lowest first; each imports only the ones below it (tests/runtime/test_structure_layers.py
reads every import and fails on an upward one or on any import cycle between files):

- `core/`: `Tensor`, the tracing context, the Graph IR (printer, verifier, liveness,
  cloning), the op record `OpDef` and `bind`, errors, structure utilities.
- `ops/`: one record per op with its kernel and shape/dtype rule.
- `state/`: NumPy's aliasing model (views, in-place writes), `Variable`, graph side
  effects (`print_`, `assert_`), run-time checks, write-back into arguments.
- `control_flow/`: `cond`, `while_loop` and graph lists, traced into subgraphs.
- `autodiff/`: `GradientTape` and the gradient rules (attached to the op records),
  jacobians, hessians and forward mode.
- `transforms/`: vmap, a batching transform whose rules are attached to the op records.
- `passes/`: the optimizer (folding, CSE, simplification, hoisting, dead code).
- `exec/`: the code-generating executor, its buffer plan and schedule, the reference
  interpreter (both attach their control-flow hooks to the records).
- `frontend/`: `Function`, tracing per signature, the cache, argument handling.
- `jit/`, `saved/`, `onnx_export/`: numba lowering, saved graphs, ONNX export.

Where a lower layer needs a higher one, the higher one registers when it loads: the
Tensor's NumPy protocol (`core/protocol.py`) is filled by ops/ and state/, gradients and
executor hooks are fields of the op records, jit and ONNX export fill
`frontend/engines.py`. This module is the facade: it imports every layer, so every slot
is filled before any Tensor exists; nothing inside the package imports it.
"""
# every layer, lowest first: each one fills the slots of the layers below it as it loads
from runtime import core, ops, state, control_flow, autodiff, transforms, passes  # noqa: F401
from runtime import exec as _exec, frontend  # noqa: F401
from runtime import jit, onnx_export  # noqa: F401  (they register with frontend/engines.py)

from runtime.core.errors import GraphModeError
from runtime.core.tensor import Tensor
from runtime.core.tracing import in_graph_mode
from runtime.core.graph import Graph, Node
from runtime.core.registry import OpDef, bind
from runtime.ops.indexing import index_update
from runtime.ops.shape import shape_of
from runtime.ops.constant import constant
from runtime.state.effects import assert_, print_
from runtime.state.variables import Variable
from runtime.control_flow import cond, while_loop
from runtime.control_flow.lists import list_append, list_len, list_new, list_stack
from runtime.exec.schedule import parallel_enabled, set_parallel
from runtime.frontend.signature import TensorSpec
from runtime.frontend.function import (
    ConcreteFunction, Function, RetracingWarning, function, functions_run_eagerly,
    run_functions_eagerly,
)

__all__ = [
    "GraphModeError", "Tensor", "in_graph_mode", "Graph", "Node", "OpDef", "bind",
    "index_update", "shape_of", "cond", "constant", "while_loop", "assert_", "print_", "Variable", "list_new", "list_append", "list_stack", "list_len",
    "TensorSpec", "ConcreteFunction", "Function", "RetracingWarning", "function",
    "functions_run_eagerly", "run_functions_eagerly", "set_parallel", "parallel_enabled",
]
