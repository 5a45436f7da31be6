"""autograph: write Python + NumPy with real control flow, run it as an optimized graph.

Pipeline of `@ag.function` on the first call with a new input signature:

    source ─► parse (gast, with origin info) ─► analyse (activity, definitions, liveness)
           ─► converters (ordered pipeline) ─► unparse + load   [autograph/]
           ─► trace into a graph ─► optimize ─► generate Python/NumPy code   [runtime/]

Later calls with a matching signature run the generated code directly.

`import autograph` loads nothing else (a module written by `autograph convert` imports
the package, and must cost nothing to import): each public name imports its module on
first use (PEP 562 `__getattr__`).

The graph library installs as the top-level package `runtime`, a name a user's own
`runtime.py` can take; `_check_own_runtime` finds that out before anything imports it.
"""
import importlib as _importlib
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

# public name -> (module, attribute), imported on first use; `from autograph import
# function` goes through `__getattr__` too.
_PUBLIC = {
    "function": ("autograph.api", "function"),
    "to_code": ("autograph.api", "to_code"),
    "to_graph": ("autograph.api", "to_graph"),
    "do_not_convert": ("autograph.api", "do_not_convert"),
    "set_loop_options": ("autograph.api", "set_loop_options"),
    "run_functions_eagerly": ("runtime", "run_functions_eagerly"),
    "functions_run_eagerly": ("runtime", "functions_run_eagerly"),
    "print": ("runtime", "print_"),  # ag.print runs every time the graph runs
    "TensorSpec": ("runtime", "TensorSpec"),
    "Variable": ("runtime", "Variable"),
    "GraphModeError": ("runtime", "GraphModeError"),
    "RetracingWarning": ("runtime", "RetracingWarning"),
    "ConversionError": ("autograph.errors", "ConversionError"),
    "GradientTape": ("runtime.autodiff", "GradientTape"),
    "save": ("runtime.saved", "save"),
    "load": ("runtime.saved", "load"),
    "LoadError": ("runtime.saved", "LoadError"),
    "SaveError": ("runtime.saved", "SaveError"),
    "dask": ("autograph.dask", None),  # ag.dask.map_blocks; imports Dask only when used
    "export_onnx": ("runtime.onnx_export", "export_onnx"),  # onnx only when called
    "OnnxExportError": ("runtime.onnx_export", "OnnxExportError"),
    "JitFallbackWarning": ("runtime.jit", "JitFallbackWarning"),
    "set_parallel": ("runtime", "set_parallel"),
    "parallel_enabled": ("runtime", "parallel_enabled"),
    "hessian": ("autograph.transforms", "hessian"),
    "jvp": ("autograph.transforms", "jvp"),
    "vmap": ("autograph.transforms", "vmap"),
    "vectorized_map": ("autograph.transforms", "vectorized_map"),
    "set_traceback_filtering": ("runtime.frontend.tracebacks", "set_traceback_filtering"),
    "traceback_filtering": ("runtime.frontend.tracebacks", "traceback_filtering"),
}

__all__ = list(_PUBLIC)

TYPE_CHECKING = False  # (`typing` itself costs ~3 ms: the names for static readers only)
if TYPE_CHECKING:  # what type checkers and the API docs read: the same names, eagerly
    from runtime import (  # noqa: F401
        GraphModeError, RetracingWarning, TensorSpec, Variable, functions_run_eagerly,
        parallel_enabled, run_functions_eagerly, set_parallel,
    )
    from runtime import print_ as print  # noqa: A001,F401
    from runtime.autodiff import GradientTape  # noqa: F401
    from autograph.api import (  # noqa: F401
        do_not_convert, function, set_loop_options, to_code, to_graph,
    )
    from autograph.errors import ConversionError  # noqa: F401
    from autograph.transforms import hessian, jvp, vectorized_map, vmap  # noqa: F401
    from runtime.saved import LoadError, SaveError, load, save  # noqa: F401
    from runtime.jit import JitFallbackWarning  # noqa: F401
    from runtime.frontend.tracebacks import (  # noqa: F401
        set_traceback_filtering, traceback_filtering,
    )
    from autograph import dask  # noqa: F401
    from runtime.onnx_export import OnnxExportError, export_onnx  # noqa: F401
del TYPE_CHECKING


def __getattr__(name: str):
    """A public name on first use (then bound here, so later reads are plain attribute
    reads); a submodule (`autograph.impl`) as `import autograph` used to leave it loaded."""
    where = _PUBLIC.get(name)
    if where is not None:
        module = _importlib.import_module(where[0])
        value = module if where[1] is None else getattr(module, where[1])
        globals()[name] = value
        return value
    if not name.startswith("__"):
        try:
            return _importlib.import_module(f"{__name__}.{name}")
        except ModuleNotFoundError as e:
            if e.name != f"{__name__}.{name}":
                raise
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list:
    return sorted(set(globals()) | set(_PUBLIC))
