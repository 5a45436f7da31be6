"""The state of one export: ONNX nodes being emitted, value names, constants, Variables.

`Emitter` is what every op converter receives. It hands out unique value names (ONNX
wants one name per value across the whole model, subgraphs included), turns graph
values and immediates (Python numbers, NumPy arrays) into ONNX value names, inserts
`Cast`s, and keeps the current value of each Variable (`var_state`): a Variable is a
functional value in ONNX, threaded through `If` branches and `Loop` bodies.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from runtime.core.errors import Origin
from runtime.core.tensor import Tensor


class OnnxExportError(TypeError):
    """A graph (or one of its ops) has no ONNX form; the message names the op and line.

    A subclass of TypeError. Printing (`ag.print`), Python state and a few NumPy
    functions have no ONNX operator.

    Example:
        ```python
        import numpy as np
        import autograph as ag

        @ag.function
        def noisy(x):
            ag.print(x)
            return x + 1

        try:
            ag.export_onnx(noisy, None, ag.TensorSpec((2,), np.float32))
        except ag.OnnxExportError as e:
            print(type(e).__name__)  # -> OnnxExportError
        ```
    """


def _onnx():
    try:
        import onnx  # noqa: F401
    except ImportError as e:  # the optional extra is missing
        raise ImportError(
            "ONNX export needs the `onnx` package (and `onnxruntime` to run the model): "
            "install them with `pip install -e \".[onnx]\"` (or `pip install onnx onnxruntime`)."
        ) from e
    return onnx


def onnx_dtype(dtype) -> int:
    """The TensorProto element type of a NumPy dtype (a clear error when there is none)."""
    from onnx import helper

    dtype = np.dtype(dtype)
    try:
        return helper.np_dtype_to_tensor_dtype(dtype)
    except (KeyError, ValueError, TypeError):
        raise OnnxExportError(f"the dtype {dtype} has no ONNX element type") from None


def value_info(name: str, dtype, shape, dims_prefix: str | None = None):
    """A typed ValueInfo; unknown dims are symbolic (named when `dims_prefix` is given)."""
    from onnx import helper

    dims = []
    for axis, d in enumerate(shape):
        dims.append(d if d is not None else
                    (f"{dims_prefix}_d{axis}" if dims_prefix is not None else None))
    return helper.make_tensor_value_info(name, onnx_dtype(dtype), dims)


def at(origin: Origin | None) -> str:
    return f" (recorded at {origin.filename}:{origin.lineno} in {origin.function})" \
        if origin is not None else ""


class Emitter:
    """Emits the nodes of one ONNX graph; `child()` makes the emitter of a subgraph."""

    def __init__(self, shared: dict | None = None, parent: "Emitter | None" = None):
        # shared across a whole model: name counter, initializers, Variable inputs
        self.shared = shared if shared is not None else {
            "count": [0], "initializers": [], "const_cache": {}, "variables": {}, "used": set(),
            "opset": 18}
        self.parent = parent
        self.nodes: list = []
        self.names: dict[int, str] = dict(parent.names) if parent is not None else {}
        self.var_state: dict[int, str] = dict(parent.var_state) if parent is not None else {}
        self.node = None  # the graph node being converted (for error messages)

    def child(self) -> "Emitter":
        return Emitter(self.shared, self)

    # -- names --------------------------------------------------------------------------
    def fresh(self, hint: str = "v") -> str:
        used = self.shared["used"]
        hint = "".join(c if c.isalnum() or c in "_.:" else "_" for c in hint) or "v"
        name = hint
        while name in used:
            self.shared["count"][0] += 1
            name = f"{hint}_{self.shared['count'][0]}"
        used.add(name)
        return name

    def bind(self, tensor, name: str) -> None:
        self.names[id(tensor)] = name

    # -- emitting -----------------------------------------------------------------------
    def op(self, op_type: str, inputs: list[str], n_out: int = 1, hint: str = "t",
           **attrs: Any):
        """Emit one ONNX node; returns its output name (or names when n_out != 1)."""
        from onnx import helper

        outs = [self.fresh(hint) for _ in range(n_out)]
        origin = getattr(self.node, "origin", None)
        doc = f"{origin.filename}:{origin.lineno}" if origin is not None else None
        self.nodes.append(helper.make_node(op_type, inputs, outs, doc_string=doc,
                                           name=self.fresh(f"n_{op_type}"), **attrs))
        return outs[0] if n_out == 1 else outs

    def const(self, value, dtype=None) -> str:
        """An initializer holding `value` (cast to `dtype` when given); shared by value."""
        from onnx import numpy_helper

        array = np.asarray(value, dtype=dtype)
        if array.dtype.kind in "OUSV":
            raise self.error(f"the constant {value!r} (dtype {array.dtype}) has no ONNX form")
        key = (array.dtype.str, array.shape, array.tobytes())
        cache = self.shared["const_cache"]
        if key not in cache:
            name = self.fresh("const")
            self.shared["initializers"].append(numpy_helper.from_array(array, name))
            cache[key] = name
        return cache[key]

    def cast(self, name: str, src, dst) -> str:
        src, dst = np.dtype(src), np.dtype(dst)
        if src == dst:
            return name
        return self.op("Cast", [name], hint="cast", to=onnx_dtype(dst))

    def value(self, x, dtype=None) -> str:
        """The ONNX name of graph value or immediate `x`, cast to `dtype` when given."""
        if isinstance(x, Tensor):
            name = self.names.get(id(x))
            if name is None:
                raise self.error(f"the value {x.name} is used before it is defined")
            return self.cast(name, x.dtype, dtype) if dtype is not None else name
        if x is None:
            raise self.error("an input is None")
        if dtype is None:
            with np.errstate(all="ignore"):
                return self.const(np.asarray(x))
        with np.errstate(all="ignore"):
            return self.const(np.asarray(x).astype(dtype))

    def shape_const(self, values) -> str:
        return self.const(np.asarray(values, dtype=np.int64).reshape(-1))

    # -- errors -------------------------------------------------------------------------
    def error(self, message: str) -> OnnxExportError:
        node = self.node
        name = node.op.name if node is not None else "graph"
        origin = node.origin if node is not None else None
        return OnnxExportError(f"Cannot export op {name!r}{at(origin)} to ONNX: {message}")
