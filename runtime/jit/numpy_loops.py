"""NumPy's own inner loops inside compiled array kernels: `tanh`, `exp`, `log`... by pointer.

A transcendental ufunc has no numba lowering with NumPy's bits (numba calls the C
library, NumPy its own SIMD code), so it used to split an array region in two, with a
NumPy call between the halves. A kernel now calls the very loop NumPy's ufunc calls,
found through NumPy's interface for that (`ufunc._resolve_dtypes_and_context` and
`ufunc._get_strided_loop`, which give the strided loop, its context and data), on a
block of the kernel's values held in a small buffer: the whole chain runs in one pass
over memory, and the result is NumPy's bit for bit because the same machine code
computes it.

The pointers are valid in this process only, so they are arguments of the compiled
kernel (an int64 array of `(loop, context, auxdata)` per call site) and never part of
its text: numba's on-disk cache stays valid in every process. The loop is called from
compiled code by `numpy_loop` (`LOOP_DECLARATIONS`, part of a kernel module's text),
which casts the integer to the C signature of NumPy's strided loop:

    int loop(PyArrayMethod_Context *, char *const *data, const npy_intp *dimensions,
             const npy_intp *strides, NpyAuxData *)

Only loops that need no Python (`requires_pyapi` false) and whose operands and result
have one float dtype, as NumPy resolves them, are called this way. NumPy clears and
tests the IEEE flags around each ufunc call; a kernel reads the flags before each
loop call and at its end, and any flag NumPy reports sends the slice to NumPy (as for
the kernel's own arithmetic).
"""
from __future__ import annotations

import ctypes

import numpy as np

from runtime.core.graph import Node
from runtime.core.tensor import Tensor
from runtime.jit.ops import fe_flags, is_cheap


class _CallInfo(ctypes.Structure):
    # NumPy's `ufunc_call_info` (the capsule "numpy_1.24_ufunc_call_info")
    _fields_ = [("strided_loop", ctypes.c_void_p), ("context", ctypes.c_void_p),
                ("auxdata", ctypes.c_void_p), ("requires_pyapi", ctypes.c_ubyte),
                ("no_floatingpoint_errors", ctypes.c_ubyte)]


_CAPSULE = b"numpy_1.24_ufunc_call_info"
_get_pointer = ctypes.pythonapi.PyCapsule_GetPointer
_get_pointer.restype = ctypes.c_void_p
_get_pointer.argtypes = [ctypes.py_object, ctypes.c_char_p]

# (ufunc, dtype) -> ((loop, context, auxdata), capsule) or None; the capsule owns the
# context and auxdata, so it is kept as long as the process (a handful of entries)
_loops: dict = {}


def loop_pointers(ufunc: np.ufunc, dtype: np.dtype) -> tuple[int, int, int] | None:
    """(strided loop, context, auxdata) NumPy calls for `ufunc` on contiguous operands
    and result of `dtype`, or None when there is none usable from compiled code."""
    key = (ufunc, np.dtype(dtype))
    if key not in _loops:
        _loops[key] = _find(ufunc, np.dtype(dtype))
    found = _loops[key]
    return None if found is None else found[0]


def _find(ufunc: np.ufunc, dtype: np.dtype):
    n = ufunc.nin + ufunc.nout
    try:
        dtypes, capsule = ufunc._resolve_dtypes_and_context((dtype,) * n)
        if tuple(dtypes) != (dtype,) * n:
            return None
        ufunc._get_strided_loop(capsule, fixed_strides=(dtype.itemsize,) * n)
        info = _CallInfo.from_address(_get_pointer(capsule, _CAPSULE))
    except (AttributeError, TypeError, ValueError):  # another NumPy, or no such loop
        return None
    if info.requires_pyapi or not info.strided_loop:
        return None
    return (info.strided_loop, info.context or 0, info.auxdata or 0), capsule


def is_numpy_loop(node: Node) -> bool:
    """A one-output float ufunc (no keywords) whose operands are all arrays of its output's
    dtype: a kernel calls NumPy's own loop for it (the caller checks the shapes)."""
    k = node.op.kernel
    if not isinstance(k, np.ufunc) or k.nout != 1 or k.nin not in (1, 2) \
            or k.signature is not None or node.attrs or len(node.outputs) != 1 \
            or node.op.format is not None or node.has_effects:
        return False
    dtype = node.outputs[0].dtype
    if dtype not in (np.dtype(np.float64), np.dtype(np.float32)):
        return False
    if not all(isinstance(x, Tensor) and x.ndim and x.dtype == dtype for x in node.inputs):
        return False
    return loop_pointers(k, dtype) is not None


def numpy_loop_node(node: Node) -> bool:
    """A node an array kernel computes by calling NumPy's loop: not one it lowers itself,
    and on a platform whose IEEE flag values are known (the loops' guards are the flags)."""
    return not is_cheap(node.op) and fe_flags() is not None and is_numpy_loop(node)


# Part of a kernel module's text when it calls NumPy loops (the module imports numba).
# The loop's operand addresses, its length and strides go in arrays on the calling
# frame's stack, filled at each call: no heap array whose lifetime numba decides holds
# them (kernels running on two threads at once read freed, reused memory that way).
LOOP_DECLARATIONS = '''from numba.core import cgutils
from numba.extending import intrinsic
from llvmlite import ir


@intrinsic
def numpy_loop(typingctx, loop, context, auxdata, n, data, strides):
    """Call NumPy's strided loop at address `loop` on `n` elements; `data` and `strides`
    are tuples of addresses and byte strides, one per operand."""
    if not isinstance(data, types.UniTuple) or not isinstance(strides, types.UniTuple) \\
            or len(data) != len(strides):
        return None
    k = len(data)
    sig = types.intc(loop, context, auxdata, n, data, strides)

    def codegen(cgctx, builder, signature, args):
        i64, ptr = ir.IntType(64), ir.IntType(8).as_pointer()
        operands = cgutils.alloca_once(builder, i64, size=k)
        steps = cgutils.alloca_once(builder, i64, size=k)
        length = cgutils.alloca_once(builder, i64)
        for i in range(k):
            at = ir.Constant(i64, i)
            builder.store(builder.extract_value(args[4], i), builder.gep(operands, [at]))
            builder.store(builder.extract_value(args[5], i), builder.gep(steps, [at]))
        builder.store(args[3], length)
        fnty = ir.FunctionType(ir.IntType(32), [ptr] * 5)
        fn = builder.inttoptr(args[0], fnty.as_pointer())
        return builder.call(fn, [builder.inttoptr(args[1], ptr),
                                 builder.bitcast(operands, ptr), builder.bitcast(length, ptr),
                                 builder.bitcast(steps, ptr), builder.inttoptr(args[2], ptr)])
    return sig, codegen
'''
