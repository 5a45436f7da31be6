"""runtime: trace NumPy code into graphs, optimize them and run them as generated Python.

Knows nothing about ASTs (the `autograph` package builds on it). The pipeline reads from
the folder names:

- `tensor.py`, `tracing.py`, `graph.py`: the symbolic value, the tracing context, the IR.
- `ops/`: one record (`OpDef`) per op with its kernel and shape/dtype rule; `bind` adds
  a node. `constant` lives there too.
- `control_flow/`: `cond`, `while_loop` and graph lists, traced into subgraphs.
- `autodiff/`: `GradientTape` and the gradient rules.
- `passes/`: the optimizer (folding, CSE, simplification, hoisting, dead code).
- `exec/`: the code-generating executor, its buffer plan, and the reference interpreter.
- `function.py` (+ `signature.py`, `trace_args.py`): `Function`, tracing per signature
  and the cache.
- `variables.py`, `effects.py`, `printing.py`, `checks.py`, `views.py`,
  `writeback.py`: state, side effects and the NumPy aliasing model.
- `saved/`, `onnx_export/`: portable forms of a graph.
"""
from runtime.core.errors import GraphModeError
from runtime.core.tensor import Tensor
from runtime.core.tracing import in_graph_mode
from runtime.core.graph import Graph, Node
from runtime.ops import functions as _functions  # noqa: F401  (fills the NumPy table)
from runtime.ops import dynamic as _dynamic  # noqa: F401  (symbolic and data-dependent sizes)
from runtime.ops.indexing import index_update
from runtime.ops.shape import shape_of
from runtime.core.registry import OpDef, bind
from runtime.control_flow import cond, while_loop
from runtime.ops.constant import constant
from runtime.state.effects import assert_, print_
from runtime.state.variables import Variable
from runtime.control_flow.lists import list_append, list_len, list_new, list_stack
from runtime.frontend.signature import TensorSpec
from runtime.frontend.function import (
    ConcreteFunction, Function, RetracingWarning, function, functions_run_eagerly,
    run_functions_eagerly,
)
from runtime.exec.schedule import parallel_enabled, set_parallel
from runtime.state import views as _views, checks as _checks  # noqa: F401 (fill core/protocol.py)
from runtime.state import in_place_functions as _in_place_functions  # noqa: F401  (np.put_along_axis)
# the top layers register their engines with frontend/engines.py as they load
from runtime import jit as _jit  # noqa: F401  (jit_compile=True)
from runtime import onnx_export as _onnx_export  # noqa: F401  (ConcreteFunction.to_onnx)

__all__ = [
    "GraphModeError", "Tensor", "in_graph_mode", "Graph", "Node", "OpDef", "bind",
    "index_update", "shape_of", "cond", "constant", "while_loop", "assert_", "print_", "Variable", "list_new", "list_append", "list_stack", "list_len",
    "TensorSpec", "ConcreteFunction", "Function", "RetracingWarning", "function",
    "functions_run_eagerly", "run_functions_eagerly", "set_parallel", "parallel_enabled",
]
