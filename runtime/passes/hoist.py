"""Loop-invariant code motion: compute in front of a loop what no iteration changes.

    before:  while i < n:            after:  v9 = exp(w)
                 v2 = exp(w)                  while i < n:
                 s = s + v2 * i                   s = s + v9 * i

A hoisted op runs even when the loop does zero iterations, and before the effects of the
first one; so only ops that can neither raise nor warn, whatever the values and the
caller's `np.errstate`, move (speculation must be invisible). Per op class:
- comparisons, logical and bitwise ops, sign and rounding ops, max/min, copysign: never
  a floating-point error, on booleans, integers and floats (complex order comparisons
  and `sign` raise "invalid" on NaN: not those);
- `+ - *`, `negative`, `absolute` on integer/boolean arrays: they wrap silently (on
  0-d values the executor runs NumPy scalar arithmetic, which warns on overflow: not
  those), and `negative`/`absolute` on floats (sign-bit operations);
- nothing else: float arithmetic overflows or makes NaN (`1 / x`, `exp`, `inf - inf`),
  integer division, remainder and power raise or warn, indexing can raise.
Shapes must be fully known, so that no broadcast can fail. The lists are checked against
NumPy on special values in tests/runtime/test_fidelity_passes.py.
"""
from __future__ import annotations

import numpy as np

from runtime.core.graph import Graph, Node
from runtime.core.rewrite import each_graph, is_pure, replace_uses
from runtime.core.tensor import Tensor


# ufunc -> the dtype kinds (of every input and output) on which it never raises or warns
_NEVER_WARN = {
    **dict.fromkeys(["equal", "not_equal", "isnan", "isinf", "isfinite", "conjugate",
                     "positive", "logical_and", "logical_or", "logical_xor",
                     "logical_not"], "biufc"),
    **dict.fromkeys(["less", "less_equal", "greater", "greater_equal", "signbit",
                     "copysign", "fabs", "maximum", "minimum", "fmax", "fmin",
                     "floor", "ceil", "trunc", "rint"], "biuf"),
    **dict.fromkeys(["bitwise_and", "bitwise_or", "bitwise_xor", "invert",
                     "left_shift", "right_shift"], "biu"),
    **dict.fromkeys(["negative", "absolute"], "f"),
}
# silent on arrays (wrap around), but NumPy scalar arithmetic warns on overflow
_SILENT_ON_ARRAYS = {"add": "biu", "subtract": "biu", "multiply": "biu",
                     "negative": "biuf", "absolute": "biuf"}


def _kinds(node: Node) -> set:
    return {np.result_type(x).kind if not isinstance(x, Tensor) else x.dtype.kind
            for x in list(node.inputs) + node.outputs}


def cannot_raise_or_warn(node: Node) -> bool:
    """Whether running `node` can never raise or warn, whatever its input values."""
    kernel = node.op.kernel
    if node.op.derived is not None and node.op.derived[0] == "quiet":
        return _quiet_float_ufunc(node)
    if not (is_pure(node) and isinstance(kernel, np.ufunc)) or node.attrs:
        return False
    # with unknown dims a broadcast could fail at run time, in a loop that may not run
    if not all(None not in x.shape for x in node.inputs if isinstance(x, Tensor)):
        return False
    try:
        kinds = _kinds(node)
    except (TypeError, ValueError):
        return False
    if kinds <= set(_NEVER_WARN.get(kernel.__name__, "")):
        return True
    return node.outputs[0].ndim >= 1 and kinds <= set(_SILENT_ON_ARRAYS.get(kernel.__name__, ""))


def _quiet_float_ufunc(node: Node) -> bool:
    """A quiet op (vmap's discarded examples: floating-point errors ignored,
    runtime/ops/quiet.py) of an elementwise ufunc on floats: it cannot warn, and on
    floats no ufunc raises (an integer power with a negative exponent would)."""
    kernel = node.op.derived[1].kernel
    if not (isinstance(kernel, np.ufunc) and kernel.signature is None) or node.attrs:
        return False
    if not all(None not in x.shape for x in node.inputs if isinstance(x, Tensor)):
        return False
    try:
        return _kinds(node) <= set("fc")
    except (TypeError, ValueError):
        return False


_movable = cannot_raise_or_warn


def hoist_loop_invariants(graph: Graph) -> bool:
    changed = False
    for g in list(each_graph(graph)):
        for node in list(g.nodes):
            if node.op.loop:
                changed |= _hoist_from(g, node)
    return changed


def _hoist_from(outer: Graph, loop: Node) -> bool:
    body, cond = loop.attrs["body"], loop.attrs["cond"]
    n_vars = len(loop.outputs)
    has_max = loop.attrs["has_max"]
    # body placeholders for captures -> the outer values the loop passes in
    n_pass = len(loop.inputs) - (1 if has_max else 0)
    outer_of = {id(ph): loop.inputs[i] for i, ph in enumerate(body.inputs) if i >= n_vars and i < n_pass}
    moved = False
    for node in list(body.nodes):
        if not _movable(node):
            continue
        if not all(not isinstance(x, Tensor) or id(x) in outer_of for x in node.inputs):
            continue
        # Rebuild the node in the outer graph, just before the loop.
        inputs = [outer_of[id(x)] if isinstance(x, Tensor) else x for x in node.inputs]
        hoisted = Node(node.op, inputs, dict(node.attrs), node.origin)
        hoisted.outputs = [Tensor(outer, hoisted, i, o.static_shape, o.dtype, outer.fresh_name(), o.weak)
                           for i, o in enumerate(node.outputs)]
        outer.nodes.insert(outer.nodes.index(loop), hoisted)
        replacements = {}
        for o, h in zip(node.outputs, hoisted.outputs):
            ph_body = _add_capture(body, h, n_pass)
            _add_capture(cond, h, n_pass)
            loop.inputs.insert(n_pass, h)
            n_pass += 1
            outer_of[id(ph_body)] = h
            replacements[id(o)] = ph_body
        body.nodes.remove(node)
        replace_uses(body, replacements)
        moved = True
    return moved


def _add_capture(sub: Graph, outer_value: Tensor, position: int) -> Tensor:
    ph = Tensor(sub, None, 0, outer_value.static_shape, outer_value.dtype, sub.fresh_name("c"),
                outer_value.weak)
    sub.inputs.insert(position, ph)
    sub.captures[outer_value] = ph
    return ph
