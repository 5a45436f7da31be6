"""Which element types ONNX Runtime's CPU kernels accept, and widening where they don't.

ONNX allows more types than ONNX Runtime implements (no 8/16-bit integer `Max`, no
float64 `Atan`, ...). `apply(em, op, inputs, dtype)` runs `op` in `dtype` when a kernel
exists, else in a wider type of the same kind (small integers in 64 bits, float16 in
float32) and casts the result back, which gives NumPy's wrap-around results. A float64
op with no float64 kernel is refused with a clear error: computing it in float32 would
silently lose precision.
"""
from __future__ import annotations

import numpy as np

_F = {"float16", "float32", "float64"}
_F32 = {"float16", "float32"}
_I = {"int8", "int16", "int32", "int64", "uint8", "uint32", "uint64"}
_I64 = {"int32", "int64"}
_ALL = _F | _I
_SMALL = {"int8", "int32", "int64", "uint8"}

SUPPORT: dict[str, set] = {
    **{op: _F for op in ("Exp", "Log", "Sqrt", "Sin", "Cos", "Tanh", "Floor", "Ceil",
                         "Round", "Reciprocal", "IsNaN", "IsInf", "Erf")},
    **{op: _F32 for op in ("Tan", "Asin", "Acos", "Atan", "Sinh", "Cosh", "Asinh", "Acosh",
                           "Atanh")},
    "Abs": _ALL, "Sign": _ALL, "Neg": _F | {"int8", "int16", "int32", "int64"},
    "Add": _ALL, "Sub": _ALL, "Mul": _ALL, "Div": _ALL, "Mod": _ALL,
    "Pow": _F | _I64, "Max": _F | _I - {"int16"}, "Min": _F | _I - {"int16"},
    "MatMul": _F | {"int32", "int64", "uint32", "uint64"},
    "Less": _ALL, "Greater": _ALL, "LessOrEqual": _ALL, "GreaterOrEqual": _ALL,
    "Equal": _ALL | {"bool"},
    "BitwiseAnd": _I, "BitwiseOr": _I, "BitwiseXor": _I, "BitwiseNot": _I,
    "ReduceSum": _F | _I64, "ReduceProd": _F | _I64, "ReduceMean": _F | _I64,
    "ReduceMax": _F | _SMALL, "ReduceMin": _F | _SMALL,
    "ArgMax": _F | _SMALL, "ArgMin": _F | _SMALL, "CumSum": _F | _I64 | {"uint32", "uint64"},
}


def wider(dtype) -> np.dtype | None:
    dtype = np.dtype(dtype)
    if dtype.kind == "i":
        return np.dtype(np.int64)
    if dtype.kind in "ub":
        return np.dtype(np.uint64) if dtype.kind == "u" else np.dtype(np.int64)
    if dtype == np.float16:
        return np.dtype(np.float32)
    return None


def work_dtype(em, op: str, dtype) -> np.dtype:
    """The dtype to run `op` in for values of `dtype` (an error when there is none)."""
    dtype = np.dtype(dtype)
    ok = SUPPORT.get(op)
    if ok is None or dtype.name in ok:
        return dtype
    w = wider(dtype)
    if w is None or w.name not in ok:
        raise em.error(f"ONNX Runtime has no {dtype} kernel for {op}; cast the operand "
                       f"(e.g. .astype(np.float32)) before this operation")
    return w


def apply(em, op: str, inputs: list[str], dtype, keep: bool = True, **attrs) -> str:
    """`op(*inputs)` computed in a dtype ONNX Runtime supports; cast back when `keep`."""
    dtype = np.dtype(dtype)
    work = work_dtype(em, op, dtype)
    if work == dtype:
        return em.op(op, inputs, **attrs)
    out = em.op(op, [em.cast(i, dtype, work) for i in inputs], **attrs)
    return em.cast(out, work, dtype) if keep else out


# `Where` has no bool, 16-bit or uint64 kernels: select on a same-size (or wider) stand-in
# (Cast between int64 and uint64 keeps the bits, so the round trip is exact).
_WHERE_VIA = {"bool": np.uint8, "int16": np.int32, "uint16": np.uint32, "uint64": np.int64}


def where(em, cond: str, x: str, y: str, dtype) -> str:
    """`np.where(cond, x, y)` for values of `dtype` (cond already bool)."""
    dtype = np.dtype(dtype)
    via = _WHERE_VIA.get(dtype.name)
    if via is None:
        return em.op("Where", [cond, x, y])
    out = em.op("Where", [cond, em.cast(x, dtype, via), em.cast(y, dtype, via)])
    return em.cast(out, via, dtype)
