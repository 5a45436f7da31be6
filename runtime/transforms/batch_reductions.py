"""A float sum over a short per-example vector, batched as NumPy's own order of additions.

`np.sum(x)` of one example's vector of n floats is NumPy's pairwise summation: from the
identity +0, with n < 8 the elements one by one; with 8 <= n <= 128 eight running sums
(element j, j + 8, ...), added as a tree `((r0 + r1) + (r2 + r3)) + ((r4 + r5) + (r6 +
r7))`, then the rest one by one. Batched, `np.sum(xs, axis=1)` calls that loop once
per example (~45 ns each: at 1024 examples of 4 the sum costs 10x the elementwise ops
below), and for a batch that is not C-contiguous NumPy runs the additions column by
column instead, in another order. So where the batch is large enough for it to pay
(`_columns_pay`), the batched form spells the same additions on the columns, each an
elementwise op over the batch:

    per example: 0 + (((-0 + x0) + x1) + x2)      batched: ((xs[:, 0] + xs[:, 1]) + xs[:, 2]) + 0

bitwise the per-example sums (-0 + x0 is x0; +0 at the end turns a total -0 into +0, as
the identity does), whatever the batch's layout. Checked against NumPy for every n up to
the limit in tests/runtime/test_vmap_ops.py.

`np.max` / `np.min` of a short vector likewise: per example NumPy runs a chain
`m = op(op(x0, x1), x2)` (its vector loop only past a CPU-dependent length); batched, the
same chain on the columns. Max and min pick one element, so orders can differ only in
which of +0 and -0, or which NaN, comes out; the first use for a ufunc, dtype and length
runs both on every arrangement of such values (and 1, -1) and uses the chain only when
they agree bitwise.
"""
from __future__ import annotations

import numpy as np

from runtime.core.tensor import Tensor
from runtime.ops.ufuncs import ufunc_op

PAIRWISE_BLOCK = 128  # NumPy's PW_BLOCKSIZE: longer sums split in halves (not done here)
CHAIN_MAX_LENGTH = 5  # max/min: the first-use check runs 7**n arrangements (~10 ms)
_ADD = ufunc_op(np.add)
_CHAINS = {"max": np.maximum, "amax": np.maximum, "min": np.minimum, "amin": np.minimum}
_CHAIN_AGREES: dict = {}
# Costs (ns) on the 2-core development machine: an elementwise op on strided columns,
# fixed and per example; one example's reduction call in `np.sum(xs, axis=1)` and
# `np.max(xs, axis=1)`. (At batch 1024, 4 elements: sum 50 us -> 5 us; at 64, 10
# elements, the per-example calls stay: 5.5 us against 11 us.)
_COLUMN_OP_NS, _COLUMN_NS, _SUM_ROW_NS, _CHAIN_ROW_NS = 600.0, 1.2, 45.0, 100.0


def _axis_is_whole_vector(axis) -> bool:
    return axis is None or axis in (0, -1) or (isinstance(axis, tuple) and axis in ((0,), (-1,)))


def _vector_length(node) -> int | None:
    """n when `node` reduces one example's whole float vector of static length n."""
    t, attrs = node.inputs[0], node.attrs
    if not isinstance(t, Tensor) or len(t.shape) != 1 or t.dtype not in (np.float32, np.float64):
        return None
    if len(node.inputs) != 1 or set(attrs) - {"axis", "keepdims"} or \
            not _axis_is_whole_vector(attrs.get("axis")):
        return None
    return t.shape[0]


def short_reduction(batcher, node, x):
    """The batched form of `node` (np.sum, max or min of one example's short float
    vector) on `x`, batch on axis 0, as NumPy computes each example; else None."""
    n = _vector_length(node)
    name = node.op.name
    if n is None or n < 1:
        return None
    if name == "sum" and n <= PAIRWISE_BLOCK and _columns_pay(batcher.size, n, _SUM_ROW_NS):
        total = _pairwise(batcher, x, n, node.inputs[0].dtype)
    elif name in _CHAINS and n <= CHAIN_MAX_LENGTH and \
            _columns_pay(batcher.size, n, _CHAIN_ROW_NS) and \
            _chain_agrees(_CHAINS[name], node.inputs[0].dtype, n):
        total = x[:, 0]
        for j in range(1, n):
            total = batcher.bind(ufunc_op(_CHAINS[name]), total, x[:, j])
    else:
        return None
    return np.reshape(total, (-1, 1)) if node.attrs.get("keepdims") else total


def _columns_pay(size, n: int, row_ns: float) -> bool:
    """Whether ~n elementwise ops on the columns cost less than one reduction call per
    example (batch `size`, None when not static: the per-example calls)."""
    return size is not None and n * (_COLUMN_OP_NS + _COLUMN_NS * size) < row_ns * size


def _chain_agrees(ufunc, dtype, n: int) -> bool:
    """Whether `ufunc.reduce` of a contiguous vector of n equals the chain on columns
    (C- and F-ordered batches), bitwise, on every arrangement of +-0, NaNs and +-1."""
    key = (ufunc, np.dtype(dtype), n)
    if key not in _CHAIN_AGREES:
        bits = np.uint64 if np.dtype(dtype).itemsize == 8 else np.uint32
        nans = [0x7FF8000000000000, 0xFFF8000000000000, 0x7FF8000000000001] if bits is \
            np.uint64 else [0x7FC00000, 0xFFC00000, 0x7FC00001]
        values = np.concatenate([np.array([0.0, -0.0, 1.0, -1.0], dtype),
                                 np.array(nans, bits).view(dtype)])
        rows = values[np.indices((len(values),) * n).reshape(n, -1).T]
        with np.errstate(all="ignore"):
            expected = ufunc.reduce(rows, axis=1).tobytes()
            agree = True
            for layout in (rows, np.asfortranarray(rows)):
                chain = layout[:, 0]
                for j in range(1, n):
                    chain = ufunc(chain, layout[:, j])
                agree = agree and chain.tobytes() == expected
        _CHAIN_AGREES[key] = agree
    return _CHAIN_AGREES[key]


def _pairwise(batcher, x, n: int, dtype):
    """NumPy's pairwise sum of the n columns of `x` (module docstring)."""
    def add(a, b):
        return batcher.bind(_ADD, a, b)
    if n < 8:
        total = x[:, 0]
        for j in range(1, n):
            total = add(total, x[:, j])
    else:
        sums = [x[:, j] for j in range(8)]
        end = n - n % 8
        for i in range(8, end, 8):
            sums = [add(r, x[:, i + j]) for j, r in enumerate(sums)]
        total = add(add(add(sums[0], sums[1]), add(sums[2], sums[3])),
                    add(add(sums[4], sums[5]), add(sums[6], sums[7])))
        for j in range(end, n):
            total = add(total, x[:, j])
    return add(total, np.dtype(dtype).type(0))
