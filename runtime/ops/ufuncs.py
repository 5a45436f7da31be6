"""Every NumPy ufunc as an op: `np.add(x, 1)`, `x * y`, `np.exp(x)`, `x @ w`, ...

One `OpDef` per ufunc is made on first use; its kernel is the ufunc itself, so
generated code reads `np.add(x, 1.0)`. The shape/dtype rule (ufuncs_rules.py) follows
broadcasting and the ufunc's own dtype resolver (NEP 50: float32 + 1.0 is float32).
"""
from __future__ import annotations

import numpy as np

from runtime.core.errors import StateArrayWrite, where
from runtime.core.registry import OpDef, bind
from runtime.ops.rules_common import broadcast_shapes  # noqa: F401 - re-exported
from runtime.ops.ufuncs_rules import _parse, all_weak, ufunc_rule
from runtime.core.protocol import TensorProtocol
from runtime.core.tensor import OPERATOR, Tensor
from runtime.core.tensor_map import TensorMap
from runtime.ops.exact_ints import EXACT, exact_int, stands_for_int
from runtime.ops.functions import _asarray, resolve_variables
from runtime.ops.path_arith import applies as path_dependent, path_arith
from runtime.ops.ufunc_methods import dispatch_method
from runtime.ops.rules_common import static_error

_OPS: dict[np.ufunc, OpDef] = {}


def ufunc_op(ufunc: np.ufunc) -> OpDef:
    op = _OPS.get(ufunc)
    if op is None:
        op = OpDef(ufunc.__name__, ufunc, ufunc_rule, num_outputs=ufunc.nout,
                   kernel_ref=f"np.{ufunc.__name__}", layout="numpy")
        _OPS[ufunc] = op
    return op


def _python_number_kernel(v):
    return v.item() if isinstance(v, (np.generic, np.ndarray)) else v


# A value standing for a Python number (`x.shape[i]` of an unknown dimension, a Python int
# carried by a loop) is a NumPy scalar when the graph runs; mixed with typed operands it
# must promote as the Python number does, so the ufunc is given the number itself.
PYTHON_NUMBER = OpDef("python_number", _python_number_kernel,
                      lambda op, ins, attrs: [(ins[0].static_shape, ins[0].dtype)],
                      bookkeeping=True, passes_kind=True)


PYTHON_NUMBER.grad = lambda rec, cts: [cts[0]]  # the same number


def python_number(x: Tensor) -> Tensor:
    out = bind(PYTHON_NUMBER, x)
    out.weak = True
    return out


_AUGMENTED = {np.add: "+", np.subtract: "-", np.multiply: "*", np.true_divide: "/",
              np.floor_divide: "//", np.remainder: "%", np.power: "**", np.matmul: "@",
              np.bitwise_and: "&", np.bitwise_or: "|", np.bitwise_xor: "^",
              np.left_shift: "<<", np.right_shift: ">>"}


def dispatch_ufunc(ufunc, method, inputs, kwargs):
    """`__array_ufunc__` of Tensor: record `ufunc(*inputs)` as a node."""
    by_operator = OPERATOR.active  # `a + b` (Python's rules on numbers), not `np.add(a, b)`
    OPERATOR.active = False
    if method != "__call__":  # .at, .outer, .reduce, .accumulate, .reduceat
        return dispatch_method(ufunc, method, inputs, kwargs)
    out = kwargs.get("out")
    if out is not None:
        arrays = [o for o in (out if isinstance(out, tuple) else (out,))
                  if isinstance(o, np.ndarray)]
        if arrays:
            # `self.grads["W"] += dw`: a graph value written into an array of Python state
            raise StateArrayWrite(
                f"np.{ufunc.__name__}(..., out=array) (or `a {_AUGMENTED.get(ufunc, 'op')}= v`)"
                f"{where()} writes a value computed in the graph into a NumPy array that is "
                "not an array of the trace (one held by an object, a global or a closure, or "
                "an argument's attribute, or one NumPy made from constants, `G * 2`): a cached "
                "graph cannot write into it on later calls. Compute the new value "
                "(`a = a + v`) and return it, make the array in the function with "
                "np.array(...)/.copy()/np.zeros(...), or keep the state in an ag.Variable "
                "created outside the function (`var.assign_add(v)`).", arrays[0])
        raise TypeError(f"np.{ufunc.__name__}(..., out=...) is not supported in graphs{where()}: "
                        "tensors are immutable; use the returned value.")
    if "where" in kwargs:
        raise TypeError(f"np.{ufunc.__name__}(..., where=...) is not supported in graphs{where()}; "
                        "use np.where on the result.")
    kwargs = {k: v for k, v in kwargs.items() if k != "out"}
    inputs = resolve_variables(inputs)
    if any(type(x) in (list, tuple) and _has_tensor(x) for x in inputs):
        # `values - m` with a Python list of symbolic values: the array NumPy makes of it
        inputs = [_asarray(x) if type(x) in (list, tuple) and _has_tensor(x) else x
                  for x in inputs]
    if ufunc.signature is not None and ("axis" in kwargs or "axes" in kwargs):
        return _with_core_axes(ufunc, inputs, kwargs)
    # Python numbers in, a Python number out - through Python's operators only: NumPy's
    # functions give NumPy scalars (`np.sqrt(n)` of a counter is an np.float64)
    if by_operator and not kwargs and path_dependent(ufunc, inputs):
        return path_arith(ufunc, inputs)  # Python's rules on a path where it is Python's
    weak_all = all_weak(inputs) and by_operator
    if weak_all and not kwargs and ufunc in EXACT and stands_for_int(inputs):
        return exact_int(ufunc, inputs)  # Python ints in the graph: exact, never wrapped
    # a weak value among typed ones, or given to a NumPy function: NumPy sees the Python
    # number (NEP 50)
    inputs = [python_number(x) if isinstance(x, Tensor) and x.weak and not weak_all else x
              for x in inputs]
    result = bind(ufunc_op(ufunc), *inputs, **kwargs)
    for r in result if isinstance(result, tuple) else (result,):
        if isinstance(r, Tensor):
            r.weak = weak_all
            if by_operator and r.ndim == 0:
                _by_operator(r.graph)[r] = True
    return result


def _by_operator(graph) -> TensorMap:
    table = getattr(graph, "operator_results", None)
    if table is None:
        table = graph.operator_results = TensorMap()
    return table


def made_by_operator(x: Tensor) -> bool:
    """Whether 0-d value `x` is the result of a Python operator (`r + 1`), whose result
    on Python numbers Python gives as a Python number."""
    table = getattr(x.graph, "operator_results", None)
    return table is not None and x in table


def _with_core_axes(ufunc, inputs, kwargs):
    """A gufunc given `axis=` / `axes=` (`np.vecdot(a, b, axis=0)`): NumPy takes each
    operand's core dimensions from those axes instead of the last ones, which is the
    gufunc on the operands with those axes moved last (outputs' core axes moved back)."""
    kwargs = dict(kwargs)
    axis, axes = kwargs.pop("axis", None), kwargs.pop("axes", None)
    if axis is not None and axes is not None:
        raise static_error(TypeError, "cannot specify both 'axis' and 'axes'")
    if isinstance(axis, Tensor) or _has_tensor(axes):
        raise TypeError(f"np.{ufunc.__name__}: `axis` / `axes` must be static in graphs{where()}")
    if kwargs.get("keepdims"):
        raise TypeError(f"np.{ufunc.__name__}(..., keepdims=True) is not supported in graphs"
                        f"{where()}; add the axis back with np.expand_dims on the result")
    ins, outs = (_parse(p) for p in ufunc.signature.split("->"))
    if any(o and np.ndim(x) < len(core) for x, core in zip(inputs, ins) for _, o in core):
        raise TypeError(f"np.{ufunc.__name__}(..., axes=...) with its optional core "
                        f"dimensions ({ufunc.signature}) is not supported in graphs{where()}; "
                        "move the axes last with np.moveaxis and call it without axes=")
    if axis is not None:
        names = {n for core in ins for n, _ in core}
        if any(len(core) != 1 for core in ins) or any(outs_ for outs_ in outs) or len(names) != 1:
            n = len({n for core in ins + outs for n, _ in core})
            raise static_error(TypeError, f"{ufunc.__name__}: axis can only be used with a "
                               f"single shared core dimension, not with the {n} distinct ones "
                               f"implied by signature {ufunc.signature}.")
        axes = [(axis,)] * len(ins)
    axes = [a if isinstance(a, (tuple, list)) else (a,) for a in axes]
    if len(axes) == len(ins) and any(outs):
        raise static_error(ValueError, f"axes should be a list with an entry for all "
                           f"{len(ins) + len(outs)} inputs and outputs; entries for outputs can "
                           "only be omitted if none of them has core axes.")
    if len(axes) not in (len(ins), len(ins) + len(outs)):
        raise static_error(ValueError, f"axes should be a list with an entry for all "
                           f"{len(ins) + len(outs)} inputs and outputs")
    for k, (a, core) in enumerate(zip(axes, ins + outs)):
        if len(a) != len(core):
            raise static_error(np.exceptions.AxisError, f"{ufunc.__name__}: operand {k} has "
                               f"{len(core)} core dimensions, but {len(a)} dimensions are "
                               "specified by axes tuple.")
    moved = [np.moveaxis(x, a, tuple(range(-len(a), 0))) if np.ndim(x) >= len(a) and a else x
             for x, a in zip(inputs, axes)]
    result = dispatch_ufunc(ufunc, "__call__", moved, kwargs)
    if len(axes) == len(ins):
        return result
    results = result if isinstance(result, tuple) else (result,)
    placed = tuple(np.moveaxis(r, tuple(range(-len(a), 0)), a) if a else r
                   for r, a in zip(results, axes[len(ins):]))
    return placed if isinstance(result, tuple) else placed[0]


def _has_tensor(v) -> bool:
    return isinstance(v, Tensor) or (isinstance(v, (list, tuple)) and any(map(_has_tensor, v)))


TensorProtocol.dispatch_ufunc = dispatch_ufunc
