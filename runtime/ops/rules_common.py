"""Building blocks of the explicit shape/dtype rules (the `*_rules.py` modules).

A rule maps input avals to output avals without running a kernel: shapes are tuples
whose entries may be None (unknown while tracing), dtypes follow NumPy 2 promotion with
Python scalars weak (NEP 50). Static errors (broadcast mismatch, bad axis, no loop for
these dtypes) are raised here with NumPy's exception type and the user's line; errors
that depend on values (an index out of bounds, a singular matrix) are left to the
kernel, so an op that never runs never raises.
"""
from __future__ import annotations

import operator
from typing import Any

import numpy as np

from runtime.core.errors import where
from runtime.core.tensor import Tensor

_PYTHON_TYPE = {"b": bool, "f": float, "i": int, "u": int, "c": complex}


def shape(x: Any) -> tuple:
    """Static shape of an op input (a Tensor or a constant)."""
    return x.static_shape if isinstance(x, Tensor) else np.shape(x)


def ndim(x: Any) -> int:
    return len(shape(x))


def dtype(x: Any) -> np.dtype:
    """The (strong) dtype of an op input (or of a dtype itself)."""
    if isinstance(x, Tensor):
        return x.dtype
    if isinstance(x, np.dtype):
        return x
    dt = getattr(x, "dtype", None)
    return dt if isinstance(dt, np.dtype) else np.asarray(x).dtype


def is_weak(x: Any) -> bool:
    """A Python number, or a Tensor standing for one: its dtype yields (NEP 50)."""
    return type(x) in (int, float, complex) or (isinstance(x, Tensor) and x.weak)


def promotable(x: Any):
    """What `np.result_type` should see for input `x`: Python numbers stay weak."""
    if type(x) in (bool, int, float, complex) or isinstance(x, np.dtype):
        return x
    if isinstance(x, Tensor):
        if x.weak and x.dtype.kind in _PYTHON_TYPE:
            return _PYTHON_TYPE[x.dtype.kind](0)
        return x.dtype
    return dtype(x)


def result_type(*xs: Any) -> np.dtype:
    """`np.result_type` of op inputs (NEP 50), a static TypeError at the user's line."""
    try:
        return np.result_type(*(promotable(x) for x in xs if x is not None))
    except TypeError as e:
        raise relocated(e) from None


def relocated(e: Exception) -> Exception:
    """`e` again, its message naming the user's line, of the same type as NumPy's."""
    msg = f"{e}{where()}"
    try:
        new = type(e)(msg)
        if str(new) == msg:
            return new
    except Exception:  # noqa: BLE001 - e.g. NumPy's UFuncTypeError takes other arguments
        pass
    cls = _LOCATED.get(type(e))
    if cls is None:  # a subclass that only changes the message, so `except` clauses match
        cls = _LOCATED[type(e)] = type(type(e).__name__, (type(e),), {
            "__str__": lambda self: self.located_message, "__module__": type(e).__module__})
    new = cls.__new__(cls)
    new.__dict__.update(getattr(e, "__dict__", {}))
    new.args = e.args
    new.located_message = msg
    return new


_LOCATED: dict = {}


def cast_error(ufunc, src, dst, index: int = 0) -> Exception:
    """NumPy's error for a ufunc output that cannot be cast (same_kind) to `dst`."""
    try:
        e = np._core._exceptions._UFuncOutputCastingError(ufunc, "same_kind", np.dtype(src),
                                                          np.dtype(dst), index)
    except (AttributeError, TypeError):  # NumPy moved it: the public base type will do
        e = TypeError(f"Cannot cast ufunc {ufunc.__name__!r} output from {np.dtype(src)!r} to "
                      f"{np.dtype(dst)!r} with casting rule 'same_kind'")
    return relocated(e)


def static_error(kind: type, message: str) -> Exception:
    """An error of NumPy's `kind` for a static problem, naming the user's line."""
    return kind(f"{message}{where()}")


def registrar(table: dict):
    """`rule = registrar(RULES)`; then `@rule("name", ...)` files a rule under those op names."""
    def rule(*names):
        def deco(fn):
            for n in names:
                table[n] = fn
            return fn
        return deco
    return rule


def broadcast_shapes(*shapes, error=ValueError,
                     message="operands could not be broadcast together with shapes") -> tuple:
    """Broadcast static shapes whose entries may be None (unknown).

    An unknown dim against a known one != 1 takes the known one (anything else fails when
    the graph runs); against 1 or unknown it stays unknown. Known dims that differ raise
    `error(message + the shapes)` at the user's line.
    """
    nd = max((len(s) for s in shapes), default=0)
    out = []
    for axis in range(-nd, 0):
        dims = [s[axis] for s in shapes if len(s) >= -axis]
        known = {d for d in dims if d is not None and d != 1}
        if len(known) > 1:
            raise static_error(error, f"{message} " + " ".join(str(tuple(s)) for s in shapes))
        if known:
            out.append(known.pop())
        elif None in dims:
            out.append(None)
        else:
            out.append(1)
    return tuple(out)


def broadcast_into(src: tuple, dst: tuple, what: str = "input array", strict: bool = False):
    """Check that shape `src` broadcasts to exactly `dst` (ValueError if it cannot); extra
    leading dims of size 1 are allowed unless `strict`."""
    extra = src[:max(len(src) - len(dst), 0)]
    bad = bool(extra) and (strict or any(d not in (1, None) for d in extra))
    for s, d in zip(reversed(src), reversed(dst)):
        if s is not None and d is not None and s != 1 and s != d:
            bad = True
    if bad:
        raise static_error(ValueError, f"could not broadcast {what} from shape {tuple(src)} "
                           f"into shape {tuple(dst)}")


def axis_index(axis: Any, nd: int) -> int:
    """Normalize one axis to 0..nd-1 (AxisError like NumPy)."""
    try:
        a = operator.index(axis)
    except TypeError:
        raise static_error(TypeError, f"'{type(axis).__name__}' object cannot be interpreted "
                           "as an integer") from None
    if not -nd <= a < nd:
        raise static_error(np.exceptions.AxisError,
                           f"axis {a} is out of bounds for array of dimension {nd}")
    return a % nd


def axes_tuple(axis: Any, nd: int, *, allow_repeats: bool = False) -> tuple:
    """Normalize None / an int / a sequence of axes; None means all axes."""
    if axis is None:
        return tuple(range(nd))
    items = tuple(axis) if isinstance(axis, (tuple, list)) else (axis,)
    out = tuple(axis_index(a, nd) for a in items)
    if not allow_repeats and len(set(out)) != len(out):
        raise static_error(ValueError, "duplicate value in 'axis'")
    return out


def size(shp: tuple):
    """Number of elements, or None when a dim is unknown (0 wins over unknown)."""
    if 0 in shp:
        return 0
    n = 1
    for d in shp:
        if d is None:
            return None
        n *= d
    return n


def dim_sum(*dims):
    return None if None in dims else sum(dims)


def static_int(v: Any, what: str) -> int:
    """A static integer argument (a symbolic value here is a clear TypeError)."""
    try:
        return operator.index(v)
    except TypeError:
        raise static_error(TypeError, f"{what} must be a static integer in graphs, not "
                           f"{type(v).__name__}") from None


def int_tuple(v: Any, what: str) -> tuple:
    """An int or a sequence of ints (a shape, reps, ...)."""
    if isinstance(v, (tuple, list, np.ndarray)):
        return tuple(static_int(x, what) for x in np.asarray(v, dtype=object).ravel()) \
            if isinstance(v, np.ndarray) else tuple(static_int(x, what) for x in v)
    return (static_int(v, what),)


def reject(name: str, attrs: dict, allowed: set, defaults: dict | None = None) -> None:
    """Attributes a rule does not model raise a clear TypeError (no silent guess)."""
    for k, v in attrs.items():
        if k in allowed or (defaults and k in defaults and _same(v, defaults[k])):
            continue
        raise static_error(TypeError, f"np.{name}(..., {k}=...) is not supported in graphs; "
                           "compute it outside the decorated function or without that argument")


def _same(a, b) -> bool:
    return a is b or (type(a) is type(b) and a == b)


# -- linear algebra (functions_rules.py and linalg_rules.py) ---------------------------
def linalg_dtype(*xs) -> np.dtype:
    """NumPy linalg computes in float64 for ints, else the inputs' common inexact type."""
    dts = [dtype(x) for x in xs]
    for dt in dts:
        if dt.kind not in "biufc" or dt == np.float16 or dt.itemsize > 16 or \
                (dt.kind == "f" and dt.itemsize > 8) or (dt.kind == "c" and dt.itemsize > 16):
            raise static_error(TypeError, f"array type {dt} is unsupported in linalg")
    return np.result_type(*(dt if dt.kind in "fc" else np.dtype(np.float64) for dt in dts))


def check_square(shp, name: str = "array"):
    if len(shp) < 2:
        raise static_error(np.linalg.LinAlgError, f"{len(shp)}-dimensional array given. "
                           "Array must be at least two-dimensional")
    if shp[-1] is not None and shp[-2] is not None and shp[-1] != shp[-2]:
        raise static_error(np.linalg.LinAlgError, "Last 2 dimensions of the array must be "
                           "square")
