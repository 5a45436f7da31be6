"""The value a graph value has while tracing, when it is computed from constants only.

    a = np.array([p, p + 1])      # p a Python int: `a` is a graph array (writes to it land)
    if any(a < 0): ...            # `a < 0` is known now: the `if` is decided while tracing

An array the function creates is a graph value, so that writes through its aliases and
views land as NumPy lands them; reading it as a Python bool, int or float must still
work as it does on the NumPy array it stands for. `known_value` evaluates the pure ops
that led to such a value, on their constant inputs, as constant folding would. Anything
else (a graph input, a stateful or effectful op, a control-flow op, an op that raises or
warns) leaves the value unknown, and the caller raises its usual error.
"""
from __future__ import annotations

import warnings

import numpy as np

UNKNOWN = object()
_MAX_NODES = 256  # a longer chain is not worth evaluating on a conversion's error path
_MAX_ELEMENTS = 1 << 16


def known_value(t, tensor_type: type):
    """`t`'s value (a NumPy value), or UNKNOWN. `tensor_type` is the graph value type."""
    memo: dict = {}
    try:
        return _value(t, tensor_type, memo)
    except _Unknown:
        return UNKNOWN


class _Unknown(Exception):
    pass


def _value(x, tensor_type: type, memo: dict):
    if not isinstance(x, tensor_type):
        return x
    node = x.node
    if node is None:  # a graph input
        raise _Unknown
    if id(node) not in memo:
        op = node.op
        if (len(memo) >= _MAX_NODES or op.kernel is None or op.stateful or op.effect
                or node.subgraphs() or x.size is None or x.size > _MAX_ELEMENTS):
            raise _Unknown
        inputs = [_value(i, tensor_type, memo) for i in node.inputs]
        try:
            with warnings.catch_warnings(), np.errstate(all="raise"):
                warnings.simplefilter("error")
                result = op.kernel(*inputs, **node.attrs)
        except Exception:
            raise _Unknown from None  # it raises or warns when the graph runs: unknown
        memo[id(node)] = [result] if op.num_outputs == 1 else list(result)
    value = memo[id(node)][x.index]
    if np.shape(value) != tuple(x.shape) or np.asarray(value).dtype != x.dtype:
        raise _Unknown
    return value
