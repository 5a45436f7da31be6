"""Shape manipulation and joining as ops: reshape, ravel, transpose, swapaxes, moveaxis,
squeeze, expand_dims, broadcast_to, tril/triu, diff, repeat, tile, pad, concatenate,
stack, vstack, hstack, column_stack, atleast_1d/2d/3d and einsum.

Registered with the NumPy-function registrars of functions.py (the kernel is the NumPy
function, generated code reads `np.reshape(x, (2, 3))`). Their shape/dtype rules are in
shaping_rules.py; their symbolic-size forms (a reshape to a run-time shape, ...) are in
dynamic.py.
"""
from __future__ import annotations

import numpy as np

from runtime.core.errors import where
from runtime.ops import shaping_rules  # noqa: F401 - files the rules before the ops register
from runtime.ops.functions import (OPS, TABLE, _kw, _no_out, _rule, leading_arrays,
                                   resolve_variables, sequence_op)
from runtime.core.registry import OpDef, bind, numpy_ref

for _fn in (np.transpose, np.squeeze, np.expand_dims, np.reshape, np.broadcast_to, np.diff,
            np.tril, np.triu, np.swapaxes, np.moveaxis, np.ravel, np.repeat, np.tile, np.pad):
    leading_arrays(_fn)
for _fn in (np.concatenate, np.stack, np.vstack, np.hstack, np.column_stack):
    sequence_op(_fn)
# NumPy's own kernels, views where NumPy gives views: laid out as eagerly (ops/strided.py)
for _name in ("transpose", "squeeze", "expand_dims", "reshape", "broadcast_to", "swapaxes",
              "moveaxis", "ravel"):
    OPS[_name].layout = "numpy"


def _atleast(fn):
    """np.atleast_1d/2d/3d(*arrays): one node per array, a tuple for several (like NumPy)."""
    op = OpDef(fn.__name__, fn, _rule(fn.__name__), kernel_ref=numpy_ref(fn))
    OPS[op.name] = op

    def handler(*arys):
        outs = [bind(op, a) for a in resolve_variables(arys)]
        return outs[0] if len(outs) == 1 else tuple(outs)

    TABLE.handlers[fn] = handler


for _fn in (np.atleast_1d, np.atleast_2d, np.atleast_3d):
    _atleast(_fn)


# -- einsum: the subscripts string is static, operands are arrays -------------------------
def _einsum_kernel(*operands, subscripts, **attrs):
    return np.einsum(subscripts, *operands, **attrs)


EINSUM = OpDef("einsum", _einsum_kernel, _rule("einsum"),
               format=lambda gen, ins, attrs: f"np.einsum({attrs['subscripts']!r}, {', '.join(ins)}"
               + _kw(gen, {k: v for k, v in attrs.items() if k != 'subscripts'}) + ")")
OPS["einsum"] = EINSUM


@TABLE.register(np.einsum)
def _einsum(subscripts, *operands, **kwargs):
    if not isinstance(subscripts, str):
        raise TypeError(f"np.einsum in graphs needs the subscripts string form{where()}")
    _no_out("einsum", kwargs)
    return bind(EINSUM, *resolve_variables(operands), subscripts=subscripts, **kwargs)
