"""ONNX export of traced graphs: `export_onnx(fn_or_cf, path)` and `to_onnx(cf)`.

Every graph op maps to standard ONNX ops (opset 18): ufuncs (elementwise.py),
reductions (reductions.py), shape and joining ops (shapes.py), indexing (indexing.py),
control flow, constants and Variables (control.py). `model.py` assembles the model and
states the input/output conventions (also in docs/onnx.md). An op with no ONNX form
raises `OnnxExportError` naming the op and the user's line. `onnx` (and `onnxruntime`
to run the result) is the optional extra `pip install -e ".[onnx]"`.

Layer: top, beside `jit` and `saved`. It may import every layer up to `frontend`, never
its two neighbours. `ConcreteFunction.to_onnx()` reaches `to_onnx` through the engine
slot of frontend/engines.py, which this package fills when it loads; importing it stays
cheap: onnx, the optional engine, is imported only when a model is built.
"""
from __future__ import annotations

from typing import Any

from runtime.core.error_index import with_error_index
from runtime.frontend.engines import register_engine
from runtime.frontend.function import BoundFunction, ConcreteFunction, Function
# each op-family module fills the converter table (table.py) when it loads
from runtime.onnx_export import (  # noqa: F401
    control, elementwise, indexing, lists, reductions, shapes)
from runtime.onnx_export.context import OnnxExportError
from runtime.onnx_export.model import to_model


def _concrete(fn_or_cf, args, kwargs):
    if isinstance(fn_or_cf, ConcreteFunction):
        if args or kwargs:
            raise TypeError("export_onnx: a ConcreteFunction takes no example arguments")
        return fn_or_cf
    if isinstance(fn_or_cf, (Function, BoundFunction)):
        if args or kwargs or fn_or_cf.input_signature is not None:
            return fn_or_cf.get_concrete_function(*args, **kwargs)
        traces = fn_or_cf.concrete_functions
        if len(traces) == 1:
            return traces[0]
        raise TypeError(
            f"export_onnx({fn_or_cf.__name__}): the function has {len(traces)} traces; pass "
            "example arguments or TensorSpecs (export_onnx(f, path, ag.TensorSpec((None, 3), "
            "np.float32))), or one ConcreteFunction (f.get_concrete_function(...)).")
    raise TypeError(f"export_onnx expects an ag.function or a ConcreteFunction, not "
                    f"{type(fn_or_cf).__name__}")


@with_error_index
def to_onnx(cf, *, assertions: str = "error", optimized: bool = True):
    """The `onnx.ModelProto` of ConcreteFunction `cf` (checked by `onnx.checker`)."""
    if assertions not in ("error", "drop"):
        raise ValueError(f"assertions must be 'error' or 'drop', not {assertions!r}")
    return to_model(cf, optimized=optimized, assertions=assertions)


@with_error_index
def export_onnx(fn_or_cf: Any, path: Any = None, *args: Any, assertions: str = "error",
                **kwargs: Any) -> Any:
    """Write the ONNX model of `fn_or_cf` to `path` (when given); returns the ModelProto.

    `cond` becomes ONNX `If`, `while_loop` becomes `Loop`; unknown dimensions stay
    symbolic. Needs the `onnx` extra (`pip install "autograph-numpy[onnx]"`).

    Args:
        fn_or_cf: a ConcreteFunction, or an `ag.function` with one trace, an
            input_signature, or example arguments / TensorSpecs passed after `path`.
        path: the `.onnx` file to write, or None to only return the model.
        *args: example arguments or `ag.TensorSpec`s choosing the trace to export.
        assertions: `"error"` (default) refuses a graph with assertions (ONNX cannot
            raise); `"drop"` exports without them.
        **kwargs: keyword example arguments, as for `*args`.

    Returns:
        The `onnx.ModelProto`.

    Raises:
        ag.OnnxExportError: an op of the graph has no ONNX form (named, with its line).
        TypeError: which trace to export is ambiguous (several traces, no arguments).
        ValueError: `assertions` is not `"error"` or `"drop"`.
        ImportError: the `onnx` package is not installed.

    Example:
        ```python
        import numpy as np
        import autograph as ag

        @ag.function
        def double_abs(x):
            return np.abs(x) * 2.0

        model = ag.export_onnx(double_abs, "double_abs.onnx", ag.TensorSpec((None,), np.float32))
        [node.op_type for node in model.graph.node]  # -> ['Abs', 'Mul', 'Identity']
        ```
    """
    cf = _concrete(fn_or_cf, args, kwargs)
    model = to_onnx(cf, assertions=assertions)
    if path is not None:
        import onnx

        onnx.save_model(model, str(path))
    return model


# `ConcreteFunction.to_onnx()` exports through the slot frontend keeps for this layer
register_engine("onnx", to_onnx)

__all__ = ["export_onnx", "to_onnx", "OnnxExportError"]
