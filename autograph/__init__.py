"""autograph: write Python + NumPy with real control flow, run it as an optimized graph.

Pipeline of `@ag.function` on the first call with a new input signature:

    source ─► parse (gast, with origin info) ─► analyse (activity, definitions, liveness)
           ─► converters (ordered pipeline) ─► unparse + load   [autograph/]
           ─► trace into a graph ─► optimize ─► generate Python/NumPy code   [runtime/]

Later calls with a matching signature run the generated code directly.
"""
from runtime import (
    GraphModeError, RetracingWarning, TensorSpec, Variable, functions_run_eagerly,
    parallel_enabled, run_functions_eagerly, set_parallel,
)
from runtime import print_ as print  # noqa: A001  (ag.print runs every time the graph runs)
from runtime.autodiff import GradientTape
from autograph.api import do_not_convert, function, set_loop_options, to_code, to_graph
from autograph.errors import ConversionError
from runtime.saved import LoadError, SaveError, load, save
from runtime.jit import JitFallbackWarning
from autograph import dask  # noqa: E402  (ag.dask.map_blocks; imports Dask only when used)
from runtime.onnx_export import OnnxExportError, export_onnx  # onnx needed only when called


__all__ = [
    "function", "to_code", "to_graph", "do_not_convert", "set_loop_options",
    "run_functions_eagerly", "functions_run_eagerly", "print", "TensorSpec", "Variable",
    "GraphModeError", "RetracingWarning", "ConversionError", "GradientTape",
    "save", "load", "LoadError", "SaveError", "dask", "export_onnx", "OnnxExportError",
    "JitFallbackWarning", "set_parallel", "parallel_enabled",
]
