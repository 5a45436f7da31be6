"""Ufunc ops (`np.add`, `x * y`, `np.exp`, comparisons, `@`, ...) as ONNX nodes.

Operands are first cast to the dtypes of the NumPy loop the ufunc picks
(`ufunc.resolve_dtypes`, NEP 50), so ONNX computes in NumPy's dtype; the result is cast
to the node's dtype when ONNX returns another. Where ONNX differs from NumPy the
converter spells NumPy's rule out: floor division and modulo of integers follow
Python's signs (ONNX `Div` truncates) and give 0 for a zero divisor (NumPy's result,
instead of a crash); `np.maximum`/`np.minimum` propagate NaN; bool `+`/`*` are or/and.
Float-only ops on integer/bool loops do not occur: the loop dtype is already float.
"""
from __future__ import annotations

import numpy as np

from runtime.core.tensor import Tensor
from runtime.onnx_export.context import OnnxExportError
from runtime.onnx_export.kernels import apply, where
from runtime.onnx_export.table import converter
from runtime.ops.ufuncs_rules import resolve

# NumPy ufunc name -> ONNX op of the same meaning on float (and, where ONNX has them,
# integer) loops.
UNARY = {
    "exp": "Exp", "log": "Log", "sqrt": "Sqrt", "sin": "Sin", "cos": "Cos", "tan": "Tan",
    "arcsin": "Asin", "arccos": "Acos", "arctan": "Atan", "sinh": "Sinh", "cosh": "Cosh",
    "tanh": "Tanh", "arcsinh": "Asinh", "arccosh": "Acosh", "arctanh": "Atanh",
    "floor": "Floor", "ceil": "Ceil", "rint": "Round", "absolute": "Abs", "fabs": "Abs",
    "negative": "Neg", "reciprocal": "Reciprocal", "isnan": "IsNaN", "isinf": "IsInf",
}
BINARY = {"add": "Add", "subtract": "Sub", "multiply": "Mul", "divide": "Div",
          "true_divide": "Div", "power": "Pow", "float_power": "Pow",
          "equal": "Equal", "less": "Less", "greater": "Greater",
          "less_equal": "LessOrEqual", "greater_equal": "GreaterOrEqual",
          "logical_and": "And", "logical_or": "Or", "logical_xor": "Xor",
          "bitwise_and": "BitwiseAnd", "bitwise_or": "BitwiseOr", "bitwise_xor": "BitwiseXor"}
_BOOL_BINARY = {"add": "Or", "multiply": "And", "bitwise_and": "And", "bitwise_or": "Or",
                "bitwise_xor": "Xor", "maximum": "Or", "minimum": "And"}
# ONNX integer ops that raise for a zero divisor where NumPy gives 0
_INT_DIVISION = {"floor_divide", "remainder", "fmod", "divmod"}
# ONNX comparison ops have no bool kernels in ONNX Runtime: compare as int8
_ORDERING = {"less", "greater", "less_equal", "greater_equal"}


def _loop(em, node):
    ufunc = node.op.kernel
    extra = set(node.attrs) - {"dtype", "casting", "signature"}
    if extra:
        raise em.error(f"the keyword(s) {sorted(extra)} of np.{ufunc.__name__} have no ONNX form")
    dtypes = resolve(ufunc, node.inputs, node.attrs)
    return [np.dtype(d) for d in dtypes[:ufunc.nin]], [np.dtype(d) for d in dtypes[ufunc.nin:]]


@converter("__ufunc__")
def convert_ufunc(em, node):
    name = node.op.name
    if not isinstance(node.op.kernel, np.ufunc):
        raise em.error("not a NumPy ufunc")
    loop_in, loop_out = _loop(em, node)
    if any(d.kind == "c" for d in loop_in + loop_out):
        raise em.error("complex numbers have no ONNX Runtime kernels")
    if name in _ORDERING or name in ("equal", "not_equal"):
        loop_in = _fit_python_ints(node.inputs, loop_in)
    if name == "power" and loop_in[1].kind == "i" and not _non_negative(node.inputs[1]):
        raise em.error("an integer power whose exponent may be negative: NumPy raises "
                       "ValueError for a negative one and ONNX cannot raise; use a float "
                       "base or exponent (x ** y.astype(np.float64)) or a constant "
                       "exponent >= 0")
    ins = [em.value(x, d) for x, d in zip(node.inputs, loop_in)]
    outs = _ufunc(em, name, ins, loop_in, loop_out[0])
    if not isinstance(outs, list):
        outs = [outs]
    return [em.cast(o, d, t.dtype) for o, d, t in zip(outs, loop_out, node.outputs)]


def _non_negative(x) -> bool:
    """Whether an exponent is known at export to be >= 0 (a Tensor's values are not)."""
    if isinstance(x, Tensor):
        return False
    return bool(np.all(np.asarray(x) >= 0))


def _fit_python_ints(inputs, loop_in):
    """NumPy compares an integer array with a Python int outside its range exactly
    (`uint8 > -1` is all True): compare in int64 then, instead of wrapping the int."""
    for x, d in zip(inputs, loop_in):
        if type(x) is int and d.kind in "iu" and not np.iinfo(d).min <= x <= np.iinfo(d).max:
            return [np.dtype(np.int64)] * len(loop_in)
    return loop_in


def _ufunc(em, name, ins, dts, out_dtype):
    dt = dts[0]
    kind = dt.kind
    if kind == "b" and name in _BOOL_BINARY:
        return em.op(_BOOL_BINARY[name], ins)
    if name in ("positive", "conjugate", "conj") or (name in ("absolute", "fabs") and kind == "b"):
        return em.op("Identity", ins)
    if name in ("absolute", "negative") and kind == "u":
        return em.op("Identity", ins) if name == "absolute" else em.op("Sub", [em.const(0, dt), ins[0]])
    if name in ("floor", "ceil", "trunc", "rint", "fix") and kind in "iub":
        return em.op("Identity", ins)
    if name == "trunc":
        return em.op("Where", [em.op("Less", [ins[0], em.const(0, dt)]),
                               em.op("Ceil", ins), em.op("Floor", ins)])
    if name in ("sign",):
        s = em.op("Sign", ins)
        return em.op("Where", [em.op("IsNaN", ins), ins[0], s]) if kind == "f" else s
    if name == "square":
        return em.op("Mul", [ins[0], ins[0]])
    if name == "isfinite":
        if kind != "f":
            return em.op("Expand", [em.const(True), em.op("Shape", ins)])
        return em.op("Not", [em.op("Or", [em.op("IsNaN", ins), em.op("IsInf", ins)])])
    if name in ("isnan", "isinf") and kind != "f":
        return em.op("Expand", [em.const(False), em.op("Shape", ins)])
    if name == "logical_not":
        return em.op("Not", [em.cast(ins[0], dt, np.bool_)])
    if name == "invert":
        return em.op("Not" if kind == "b" else "BitwiseNot", ins)
    if name == "reciprocal" and kind != "f":
        raise em.error("np.reciprocal of integers (integer division 1 // x) is not exported; "
                       "use 1.0 / x")
    if name in ("log2", "log10"):
        base = em.const(np.log(2.0 if name == "log2" else 10.0), dt)
        return em.op("Div", [em.op("Log", ins), base])
    if name == "log1p":
        return em.op("Log", [em.op("Add", [ins[0], em.const(1, dt)])])
    if name == "expm1":
        return em.op("Sub", [em.op("Exp", ins), em.const(1, dt)])
    if name == "exp2":
        return em.op("Pow", [em.const(2, dt), ins[0]])
    if name in ("deg2rad", "radians", "rad2deg", "degrees"):
        factor = np.pi / 180 if name in ("deg2rad", "radians") else 180 / np.pi
        return em.op("Mul", [ins[0], em.const(factor, dt)])
    if name == "cbrt":
        mag = em.op("Pow", [em.op("Abs", ins), em.const(1 / 3, dt)])
        return em.op("Mul", [em.op("Sign", ins), mag])
    if name == "tan" and dt == np.float64:  # no float64 Tan kernel: sin / cos is as exact
        return em.op("Div", [em.op("Sin", ins), em.op("Cos", ins)])
    if name == "cosh" and dt == np.float64:
        return em.op("Div", [em.op("Add", [em.op("Exp", ins), em.op("Exp", [em.op("Neg", ins)])]),
                             em.const(2, dt)])
    if name in UNARY and len(ins) == 1:
        return apply(em, UNARY[name], ins, dt, keep=name not in ("isnan", "isinf"))
    if name == "not_equal":
        return em.op("Not", [em.op("Equal", ins)])
    if name in _ORDERING and kind == "b":
        ins = [em.cast(i, dt, np.int8) for i in ins]
        return em.op(BINARY[name], ins)
    if name in _ORDERING or name == "equal":
        return apply(em, BINARY[name], ins, dt, keep=False)
    if name in ("maximum", "minimum", "fmax", "fmin"):
        return _extremum(em, name, ins, kind, dt)
    if name in _INT_DIVISION or name in ("floor_divide", "remainder"):
        return _division(em, name, ins, dt)
    if name == "matmul":
        return _matmul(em, ins, dt)
    if name in ("logical_and", "logical_or", "logical_xor"):  # loops may be float: truthiness
        return em.op(BINARY[name], [em.cast(i, d, np.bool_) for i, d in zip(ins, dts)])
    if name in BINARY:
        return apply(em, BINARY[name], ins, dt)
    if name == "arctan2":
        return _arctan2(em, ins, dt)
    if name == "hypot":
        return em.op("Sqrt", [em.op("Add", [em.op("Mul", [ins[0], ins[0]]),
                                            em.op("Mul", [ins[1], ins[1]])])])
    if name == "logaddexp":
        big = em.op("Max", ins)
        diff = em.op("Neg", [em.op("Abs", [em.op("Sub", ins)])])
        return em.op("Add", [big, em.op("Log", [em.op("Add", [em.const(1, dt),
                                                            em.op("Exp", [diff])])])])
    if name == "copysign":
        negative = _sign_bit(em, ins[1], dt)
        mag = em.op("Abs", [ins[0]])
        return em.op("Where", [negative, em.op("Neg", [mag]), mag])
    if name == "heaviside":
        x, h = ins
        zero, one = em.const(0, dt), em.const(1, dt)
        inner = em.op("Where", [em.op("Equal", [x, zero]), h, x])
        return em.op("Where", [em.op("Less", [x, zero]), zero,
                               em.op("Where", [em.op("Greater", [x, zero]), one, inner])])
    raise em.error(f"np.{name} on {dt} has no ONNX form in this exporter")


def _sign_bit(em, x, dt):
    """x < 0, or x is -0.0 (1/x is -inf)."""
    zero = em.const(0, dt)
    neg_zero = em.op("And", [em.op("Equal", [x, zero]),
                             em.op("Less", [em.op("Div", [em.const(1, dt), x]), zero])])
    return em.op("Or", [em.op("Less", [x, zero]), neg_zero])


def _extremum(em, name, ins, kind, dt):
    op = "Max" if name in ("maximum", "fmax") else "Min"
    out = apply(em, op, ins, dt)
    if kind != "f":
        return out
    a_nan, b_nan = em.op("IsNaN", [ins[0]]), em.op("IsNaN", [ins[1]])
    if name in ("maximum", "minimum"):  # NaN wins
        return em.op("Where", [a_nan, ins[0], em.op("Where", [b_nan, ins[1], out])])
    return em.op("Where", [a_nan, ins[1], em.op("Where", [b_nan, ins[0], out])])  # NaN loses


def _division(em, name, ins, dt):
    a, b = ins
    if dt.kind == "f":
        return _float_division(em, name, a, b, dt)
    zero, one = em.const(0, dt), em.const(1, dt)
    b_zero = em.op("Equal", [b, zero])
    special = b_zero
    if dt.kind == "i":  # INT_MIN // -1 overflows (a hardware trap): NumPy wraps
        b_minus = em.op("Equal", [b, em.const(-1, dt)])
        special = em.op("Or", [b_zero, b_minus])
    safe_b = where(em, special, one, b, dt)
    wide = dt.itemsize < 4  # ONNX Runtime integer kernels start at 32 bits
    work = np.dtype(np.int64 if dt.kind == "i" else np.uint64) if wide else dt
    a_w, b_w = em.cast(a, dt, work), em.cast(safe_b, dt, work)
    q = em.op("Div", [a_w, b_w])  # truncates toward zero
    r = em.op("Sub", [a_w, em.op("Mul", [q, b_w])])
    if dt.kind == "i" and name != "fmod":
        z = em.const(0, work)
        adjust = em.op("And", [em.op("Not", [em.op("Equal", [r, z])]),
                               em.op("Xor", [em.op("Less", [r, z]), em.op("Less", [b_w, z])])])
        q = em.op("Sub", [q, em.cast(adjust, np.bool_, work)])
        r = em.op("Where", [adjust, em.op("Add", [r, b_w]), r])
    q, r = em.cast(q, work, dt), em.cast(r, work, dt)
    if dt.kind == "i":
        q = where(em, b_minus, apply(em, "Sub", [zero, a], dt), q, dt)
        r = where(em, b_minus, zero, r, dt)
    q = where(em, b_zero, zero, q, dt)
    r = where(em, b_zero, zero, r, dt)
    if name == "divmod":
        return [q, r]
    return q if name == "floor_divide" else r


def _float_division(em, name, a, b, dt):
    """NumPy's npy_divmod: floor division and a modulo with the divisor's sign."""
    zero, one, half = em.const(0, dt), em.const(1, dt), em.const(0.5, dt)
    fm = em.op("Mod", [a, b], fmod=1)
    if name == "fmod":
        return fm
    div = em.op("Div", [em.op("Sub", [a, fm]), b])
    adjust = em.op("And", [em.op("Not", [em.op("Equal", [fm, zero])]),
                           em.op("Xor", [em.op("Less", [b, zero]), em.op("Less", [fm, zero])])])
    mod = em.op("Where", [adjust, em.op("Add", [fm, b]), fm])
    div = em.op("Where", [adjust, em.op("Sub", [div, one]), div])
    floor = em.op("Floor", [div])
    floor = em.op("Where", [em.op("Greater", [em.op("Sub", [div, floor]), half]),
                            em.op("Add", [floor, one]), floor])
    quotient = em.op("Div", [a, b])
    floor = em.op("Where", [em.op("Equal", [div, zero]), em.op("Mul", [quotient, zero]), floor])
    floor = em.op("Where", [em.op("Equal", [b, zero]), quotient, floor])
    if name == "divmod":
        return [floor, mod]
    return floor if name == "floor_divide" else mod


def _matmul(em, ins, dt):
    if dt.kind == "b":  # NumPy: or of ands
        a, b = (em.cast(i, dt, np.int64) for i in ins)
        return em.op("Greater", [em.op("MatMul", [a, b]), em.const(0, np.int64)])
    if dt.kind in "iu" and dt.itemsize < 4:
        a, b = (em.cast(i, dt, np.int64) for i in ins)
        return em.cast(em.op("MatMul", [a, b]), np.int64, dt)
    return em.op("MatMul", ins)  # ONNX MatMul promotes 1-D operands as np.matmul does


def _arctan2(em, ins, dt):
    y, x = ins
    zero, pi = em.const(0, dt), em.const(np.pi, dt)
    base = apply(em, "Atan", [em.op("Div", [y, x])], dt)
    y_neg = _sign_bit(em, y, dt)
    shift = em.op("Where", [y_neg, em.op("Neg", [pi]), pi])
    x_neg = _sign_bit(em, x, dt)
    out = em.op("Where", [x_neg, em.op("Add", [base, shift]), base])
    half_pi = em.op("Where", [y_neg, em.const(-np.pi / 2, dt), em.const(np.pi / 2, dt)])
    y_zero = em.op("Equal", [y, zero])
    at_zero = em.op("Where", [x_neg, shift, em.op("Where", [y_neg, em.const(-0.0, dt), zero])])
    out = em.op("Where", [em.op("And", [em.op("Equal", [x, zero]),
                                         em.op("Not", [y_zero])]), half_pi, out])
    return em.op("Where", [y_zero, at_zero, out])


@converter("exact_int")
def convert_exact_int(em, node):
    """Python-int arithmetic (exact in the graph, OverflowError beyond int64): ONNX has no
    exceptions, so the exported model computes it in int64, as ONNX computes every int64
    (README: "Python ints stay exact or fail loudly")."""
    if node.attrs.get("masked"):
        raise OnnxExportError(f"exact_int under vmap's mask (at {node.origin}): export "
                              "the per-example function instead")
    i64 = np.dtype(np.int64)
    ins = [em.value(x, i64) for x in node.inputs]
    return [_ufunc(em, node.attrs["ufunc"], ins, [i64] * len(ins), i64)]


@converter("path_arith")
def convert_path_arith(em, node):
    """Arithmetic whose operands are Python numbers on some paths (runtime/ops/
    path_arith.py): the exported model computes the shared value, as it returns it for
    `path_result`, in the value's dtype (ONNX has no exceptions: a Python path's
    ZeroDivisionError is not raised there, as for `exact_int`)."""
    dt = np.dtype(node.attrs["value_dtype"])
    values, k = [], 0
    for part in node.attrs["parts"]:
        values.append(node.inputs[k + 2] if part == "k" else node.inputs[k])
        k += 3 if part == "k" else 1
    ins = [em.value(x, dt) for x in values]
    value = em.cast(_ufunc(em, node.attrs["ufunc"], ins, [dt] * len(ins), dt), dt,
                    node.outputs[0].dtype)
    return [value, em.value(np.int8(0)),
            em.value(np.dtype(node.attrs["number_dtype"]).type(0))]
