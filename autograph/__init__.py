"""autograph: write Python + NumPy with real control flow, run it as an optimized graph.

Pipeline of `@ag.function` on the first call with a new input signature:

    source ─► parse (gast, with origin info) ─► analyse (activity, definitions, liveness)
           ─► converters (ordered pipeline) ─► unparse + load   [autograph/]
           ─► trace into a graph ─► optimize ─► generate Python/NumPy code   [runtime/]

Later calls with a matching signature run the generated code directly.

The graph library installs as the top-level package `runtime`, a name a user's own
`runtime.py` can take; `_check_own_runtime` finds that out before anything imports it.
"""
import importlib.util as _importlib_util
import os as _os
import sys as _sys


def _check_own_runtime() -> None:
    """Raise ImportError naming the file if `import runtime` would not reach ours.

    Runs once, before the first `import runtime`: `find_spec` locates a top-level module
    without executing it, so a user's `runtime.py` is named, never run.
    """
    ours = _os.path.join(_os.path.dirname(_os.path.dirname(_os.path.abspath(__file__))),
                         "runtime", "__init__.py")
    if not _os.path.isfile(ours):
        return  # an unusual install layout: nothing to compare with
    loaded = _sys.modules.get("runtime")
    if loaded is not None:
        found = getattr(loaded, "__file__", None)
        how, note = "was already imported from", ""
    else:
        try:
            spec = _importlib_util.find_spec("runtime")
        except (ImportError, ValueError):
            spec = None
        found = spec.origin if spec is not None else None
        if found is None and spec is not None and spec.submodule_search_locations:
            found = list(spec.submodule_search_locations)[0]
        how, note = "resolves to", " (autograph has not run it)"
    if found and _os.path.isfile(found) and _os.path.samefile(found, ours):
        return
    found = found or "nothing importable"
    raise ImportError(
        f"autograph cannot use its graph library: the module name `runtime` {how} "
        f"{found}{note}, not autograph's own {ours}. A file or folder named `runtime` in "
        f"the script's directory (or earlier on sys.path) shadows it: rename it, or run "
        f"from another directory.",
        name="runtime", path=found)


_check_own_runtime()

from runtime import (  # noqa: E402  (after the check above)
    GraphModeError, RetracingWarning, TensorSpec, Variable, functions_run_eagerly,
    parallel_enabled, run_functions_eagerly, set_parallel,
)
from runtime import print_ as print  # noqa: A001,E402  (ag.print runs every time the graph runs)
from runtime.autodiff import GradientTape  # noqa: E402
from autograph.api import do_not_convert, function, set_loop_options, to_code, to_graph  # noqa: E402
from autograph.errors import ConversionError  # noqa: E402
from autograph.transforms import hessian, jvp, vectorized_map, vmap  # noqa: E402
from runtime.saved import LoadError, SaveError, load, save  # noqa: E402
from runtime.jit import JitFallbackWarning  # noqa: E402
from runtime.frontend.tracebacks import set_traceback_filtering, traceback_filtering  # noqa: E402
from autograph import dask  # noqa: E402  (ag.dask.map_blocks; imports Dask only when used)
from runtime.onnx_export import OnnxExportError, export_onnx  # noqa: E402  onnx only when called


__all__ = [
    "function", "to_code", "to_graph", "do_not_convert", "set_loop_options",
    "run_functions_eagerly", "functions_run_eagerly", "print", "TensorSpec", "Variable",
    "GraphModeError", "RetracingWarning", "ConversionError", "GradientTape",
    "save", "load", "LoadError", "SaveError", "dask", "export_onnx", "OnnxExportError",
    "JitFallbackWarning", "set_parallel", "parallel_enabled",
    "hessian", "jvp", "vmap", "vectorized_map",
    "set_traceback_filtering", "traceback_filtering",
]
