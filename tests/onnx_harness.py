"""Differential ONNX check: a trace exported to ONNX and run in onnxruntime gives what the
graph executor gives (value, dtype, shape), and leaves Variables as the executor does.

Tolerances per dtype (ONNX Runtime uses other kernels and summation orders than NumPy):
float16 rtol 2e-3; float32 rtol 2e-5 / atol 1e-6; float64 rtol 1e-11 / atol 1e-12;
integers and bools exactly.

`check_export(cf, args)` exports `cf` (raising OnnxExportError when it cannot), runs the
model in onnxruntime and the executor on copies of `args`, and compares every result,
every argument the function writes into and every Variable it assigns.
`Tally` counts exported functions and groups the rest by the op that has no ONNX form.
"""
from __future__ import annotations

import collections
import copy
import re

import numpy as np

TOLERANCE = {"float16": (2e-3, 1e-3), "float32": (2e-5, 1e-6), "float64": (1e-11, 1e-12)}


def compare(actual, expected, what: str) -> None:
    a = np.asarray(actual)
    if type(expected) in (bool, int, float, complex):  # a Python number on the path taken:
        e = np.asarray(expected, a.dtype)                # ONNX holds the shared dtype
        assert e == expected, f"{what}: {expected!r} does not fit ONNX's {a.dtype}"
    else:
        e = np.asarray(expected)
    assert a.dtype == e.dtype, f"{what}: ONNX gives dtype {a.dtype}, the graph {e.dtype}"
    assert a.shape == e.shape, f"{what}: ONNX gives shape {a.shape}, the graph {e.shape}"
    if e.dtype.kind == "f":
        rtol, atol = TOLERANCE[e.dtype.name]
        np.testing.assert_allclose(a, e, rtol=rtol, atol=atol, equal_nan=True, err_msg=what)
    else:
        np.testing.assert_array_equal(a, e, err_msg=what)


def _session(model):
    import onnxruntime as ort

    options = ort.SessionOptions()
    options.log_severity_level = 3
    return ort.InferenceSession(model.SerializeToString(), options,
                                providers=["CPUExecutionProvider"])


def check_export(cf, args, assertions: str = "error") -> None:
    """Export `cf`, run it in onnxruntime and through the executor on `args`; compare."""
    from runtime.onnx_export import to_onnx
    from runtime.onnx_export.table import assigned_variables
    from runtime.frontend.signature import key_of
    from runtime.core.structure import flatten

    model = to_onnx(cf, assertions=assertions)  # Variables' current values as initializers
    variables = assigned_variables(cf.optimized_graph)
    leaves: list = []
    for a in args:
        key_of(a, leaves)
    feed = {i.name: np.asarray(v) for i, v in zip(model.graph.input, leaves)}
    got = _session(model).run(None, feed)
    call_args = copy.deepcopy(list(args))
    expected = flatten(cf(*call_args))[0]
    names = [o.name for o in model.graph.output]
    results = got[:len(expected)]
    for k, (g, e) in enumerate(zip(results, expected)):
        compare(g, e, f"{cf.name} result {k}")
    rest = got[len(expected):]
    for (_, arg), g in zip(cf.writeback, rest):
        compare(g, _arg_value(cf, call_args, arg), f"{cf.name} argument {arg} after the call")
    rest = rest[len(cf.writeback):]
    for var, g, name in zip(variables, rest, names[len(names) - len(variables):]):
        compare(g, var.numpy(), f"{cf.name} Variable {var.name} ({name}) after the call")


def _arg_value(cf, call_args, graph_input_name):
    """The argument array behind graph input `graph_input_name`, after the call."""
    from runtime.frontend.signature import key_of

    leaves: list = []
    for a in call_args:
        key_of(a, leaves)
    inputs = [t.name for t in cf.graph.inputs]
    return leaves[inputs.index(graph_input_name)]


def reason(error: Exception) -> str:
    """`op 'name'` of an OnnxExportError, for grouping; else the exception type."""
    m = re.search(r"export op '([^']+)'", str(error))
    if m:
        return f"op {m.group(1)}"
    return type(error).__name__


class Tally:
    """How many functions export; for the rest, why (grouped by op)."""

    def __init__(self):
        self.exported = 0
        self.refused: collections.Counter = collections.Counter()
        self.examples: dict = {}

    def run(self, label: str, cf, args, assertions: str = "error") -> bool:
        from runtime.onnx_export import OnnxExportError

        try:
            check_export(cf, args, assertions)
        except OnnxExportError as e:
            why = reason(e)
            self.refused[why] += 1
            self.examples.setdefault(why, (label, str(e)))
            return False
        self.exported += 1
        return True

    def summary(self) -> str:
        lines = [f"exported and verified in onnxruntime: {self.exported}; "
                 f"not exportable: {sum(self.refused.values())}"]
        for why, n in self.refused.most_common():
            label, message = self.examples[why]
            lines.append(f"  {n:4d} x {why}  (e.g. {label}: {message[:160]})")
        return "\n".join(lines)
