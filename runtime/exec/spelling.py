"""How the executor spells a 2-D float matmul: `np.dot` or `np.matmul`, chosen by size and
by what is known of the operands' memory layout.

Eager NumPy code writes `a @ b` (`np.matmul`); the graph must give bitwise the same
result. `np.dot` calls the same BLAS routines for operands in a BLAS layout (C- or
F-contiguous), so its result is bitwise equal there, and it dispatches faster (it is not
a ufunc): at 4..64 square it costs ~0.7 µs less a call. It is spelled as the method,
`a.dot(b, out)`, which calls the same product without `np.dot`'s `__array_function__`
dispatch (1×64 by 64×64 float32 into a buffer: 0.46 µs against 0.59 µs). But for
operands that are not in a BLAS layout (a reversed or stepped slice: `a[::-1] @ v`)
`np.dot` copies them and calls BLAS, while `np.matmul` runs its own loop: the results
differ in the last bits. And for larger operands `np.matmul` is the faster one (256×256
float32 on this 2-core machine: matmul ~130-145 µs, dot ~145-161 µs; `python
benchmarks/matmul_spelling.py` prints the table these thresholds were read from).

So: `np.dot` only when both operands are known to be in a BLAS layout (constant arrays
checked now; results of ufuncs and matmuls of the same graph body, which NumPy always
allocates contiguous; an argument is checked when the call runs: `x.dot(c) if
x.flags.forc else x @ c`) and the product is small (m·k·n ≤ `DOT_MAX_WORK`); otherwise
`np.matmul` (the `@` operator when the result is fresh, `np.matmul(a, b, out)` into a
spare C-contiguous buffer, which writes bitwise what a fresh result would hold).
"""
from __future__ import annotations

import numpy as np

from runtime.core.graph import Node
from runtime.core.tensor import Tensor

# m*k*n at or below which np.dot's cheaper dispatch wins (64×64×64, float32 and float64:
# dot 3.9 µs, matmul 4.2 µs; at 96 they tie; above, matmul is as fast or faster)
DOT_MAX_WORK = 64 ** 3


def is_float_2d_matmul(node: Node) -> bool:
    """A matmul of two 2-D float operands (BLAS-backed; may take a C-contiguous `out`)."""
    return node.op.kernel is np.matmul and not node.attrs and len(node.inputs) == 2 and all(
        isinstance(x, (Tensor, np.ndarray)) and x.ndim == 2 and x.dtype.kind == "f"
        for x in node.inputs)


def _blas_layout(x, produced: dict) -> bool | None:
    """Whether `x` is certainly C- or F-contiguous when the node runs; None for an
    argument of the body, whose layout only the call knows."""
    if isinstance(x, np.ndarray):
        return x.flags.c_contiguous or x.flags.f_contiguous
    producer = produced.get(id(x))
    if producer is None:
        return None  # an argument or loop variable: any layout (views included)
    k = producer.op.kernel
    # ufunc results are fresh arrays in one of the axis orders (C or F for 2-D), also
    # when written into a spare buffer (itself such a result); matmul results are C
    return (isinstance(k, np.ufunc) and k.nout == 1 and not producer.attrs) \
        or is_float_2d_matmul(producer)


def spell_as_dot(node: Node, produced: dict) -> tuple | None:
    """Whether to spell this 2-D float matmul as `a.dot(b)` (bitwise equal here, and
    faster): None if not; else the operands whose layout the generated code checks
    first (`a.flags.forc`: C- or F-contiguous), empty when none need it."""
    if not is_float_2d_matmul(node):
        return None
    (m, k), (_, n) = (x.shape for x in node.inputs)
    if None in (m, k, n) or m * k * n > DOT_MAX_WORK:
        return None
    layouts = [_blas_layout(x, produced) for x in node.inputs]
    if False in layouts:
        return None
    return tuple(x for x, known in zip(node.inputs, layouts) if known is None)
