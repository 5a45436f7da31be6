"""runtime: trace NumPy code into graphs, optimize them and run them as generated Python.

Knows nothing about ASTs (the `autograph` package builds on it). Main pieces:
`Tensor` (symbolic NumPy value), op records and `bind` (`ops/`), the graph IR
(`graph.py`), `cond` / `while_loop` (`control_flow.py`, `loops.py`), `Variable`,
`Function` (tracing + cache, `function.py`) and the code-generating executor
(`codegen.py`), with `interpreter.py` as the reference semantics.
"""
from runtime.errors import GraphModeError
from runtime.tensor import Tensor
from runtime.tracing import in_graph_mode
from runtime.graph import Graph, Node
from runtime.ops import functions as _functions  # noqa: F401  (fills the NumPy table)
from runtime.ops import dynamic as _dynamic  # noqa: F401  (symbolic and data-dependent sizes)
from runtime.ops.indexing import index_update
from runtime.ops.shape import shape_of
from runtime.ops.registry import OpDef, bind
from runtime.control_flow import cond, constant
from runtime.loops import while_loop
from runtime.effects import assert_, print_
from runtime.variables import Variable
from runtime.lists import list_append, list_len, list_new, list_stack
from runtime.signature import TensorSpec
from runtime.function import (
    ConcreteFunction, Function, RetracingWarning, function, functions_run_eagerly,
    run_functions_eagerly,
)

__all__ = [
    "GraphModeError", "Tensor", "in_graph_mode", "Graph", "Node", "OpDef", "bind",
    "index_update", "shape_of", "cond", "constant", "while_loop", "assert_", "print_", "Variable", "list_new", "list_append", "list_stack", "list_len",
    "TensorSpec", "ConcreteFunction", "Function", "RetracingWarning", "function",
    "functions_run_eagerly", "run_functions_eagerly",
]
