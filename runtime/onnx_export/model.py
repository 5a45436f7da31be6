"""A ConcreteFunction as an `onnx.ModelProto` (opset 18): inputs, outputs, Variables.

Conventions (docs/onnx.md):
- graph inputs are the traced function's array arguments, named after the parameters
  (`x`, `pair_0` for the first array of a tuple argument); unknown dims (None) become
  symbolic dims (`dim_param` = "<input>_d<axis>");
- outputs are the function's array results in flattened order, `output_0`, `output_1`...
  (a result that is a Python constant of the trace becomes a constant output);
- arguments the function writes into come next, as `<argument>.new`;
- every Variable the function reads or assigns is an input named after the Variable,
  with an initializer of the same name holding its value at export time (so the model
  runs as is, and a caller may feed newer values); each Variable it assigns is also an
  output `<variable>.new` holding the value after the call.
"""
from __future__ import annotations

import numpy as np

from runtime.onnx_export.context import Emitter, OnnxExportError, _onnx, value_info
from runtime.onnx_export.lists import element_types
from runtime.onnx_export.table import assigned_variables, convert_nodes, used_variables
from runtime.core.tensor import Tensor

OPSET = 18
IR_VERSION = 9


def to_model(cf, name: str | None = None, optimized: bool = True, assertions: str = "error"):
    """The ONNX model of ConcreteFunction `cf` (checked with `onnx.checker`, full check)."""
    onnx = _onnx()
    from onnx import helper, numpy_helper

    state = getattr(cf, "state", None)
    if state is not None and state.runs_python():
        raise OnnxExportError(
            f"cannot export op 'python state' of {cf.name}: every call reads or writes "
            f"Python state ({', '.join(state.places())}), at {state.origin}; an ONNX model "
            "has no Python objects. Pass that state as arguments and return its new value.")
    graph = cf.optimized_graph if optimized else cf.graph
    out_leaves = _out_leaves(cf, graph, optimized)
    em = Emitter()
    em.shared["assertions"] = assertions
    em.shared["list_elems"] = element_types(graph)
    inputs = []
    for t in graph.inputs:
        n = em.fresh(t.name)
        em.bind(t, n)
        inputs.append(value_info(n, t.dtype, t.shape, n))
    initializers = em.shared["initializers"]
    for var in used_variables(graph):
        n = em.fresh(var.name)
        em.var_state[id(var)] = n
        em.shared["variables"][id(var)] = n
        value = var._value
        inputs.append(value_info(n, value.dtype, value.shape))
        initializers.append(numpy_helper.from_array(np.asarray(value), n))
    n_written = len(cf.writeback)
    finals = list(graph.outputs[len(graph.outputs) - n_written:]) if n_written else []
    convert_nodes(em, graph, graph.outputs)
    em.node = None
    outputs = []
    for i, leaf in enumerate(out_leaves):
        if isinstance(leaf, Tensor):
            src, dtype, shape = em.value(leaf), leaf.dtype, leaf.shape
        else:
            const = np.asarray(leaf)
            if const.dtype.kind not in "biuf":
                raise OnnxExportError(f"{cf.name}: result {i} is the Python value {leaf!r}, "
                                      "which has no ONNX form; return arrays or numbers")
            src, dtype, shape = em.const(const), const.dtype, const.shape
        outputs.append(_named_output(em, src, f"output_{i}", dtype, shape))
    for (_position, arg_name), t in zip(cf.writeback, finals):
        outputs.append(_named_output(em, em.value(t), f"{arg_name}.new", t.dtype, t.shape))
    for var in assigned_variables(graph):
        src = em.var_state[id(var)]
        outputs.append(_named_output(em, src, f"{em.shared['variables'][id(var)]}.new",
                                     var.dtype, var.shape))
    g = helper.make_graph(em.nodes, name or cf.name, inputs, outputs, initializers)
    model = helper.make_model(g, opset_imports=[helper.make_opsetid("", OPSET)],
                              producer_name="autograph-numpy", ir_version=IR_VERSION)
    model.doc_string = f"{cf.pretty_printed_signature()}"
    try:
        onnx.checker.check_model(model, full_check=True)
    except Exception as e:  # a converter bug, never the user's: say so plainly
        raise OnnxExportError(f"the exported model of {cf.name} fails onnx.checker: {e}") from e
    return model


def _named_output(em, src: str, wanted: str, dtype, shape):
    name = em.op("Identity", [src], hint=wanted)  # em.node is None: no doc_string
    return value_info(name, dtype, shape, name)


def _out_leaves(cf, graph, optimized: bool) -> list:
    """The result leaves of `cf` as values of `graph` (the optimized one renumbers them)."""
    leaves = cf._out_leaves
    if not optimized:
        return list(leaves)
    outputs = iter(graph.outputs)
    return [next(outputs) if isinstance(x, Tensor) else x for x in leaves]
