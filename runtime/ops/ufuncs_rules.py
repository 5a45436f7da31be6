"""Shape/dtype rules of the ufunc ops (ufuncs.py): elementwise ufuncs and gufuncs
(`np.matmul`, `np.vecdot`, ...).

Dtypes come from the ufunc's own resolver (`ufunc.resolve_dtypes`), which applies NEP 50
(a Python scalar is weak: float32 + 1.0 is float32) and raises NumPy's TypeError when no
loop fits; shapes follow broadcasting, and a gufunc's core dimensions follow its
signature (optional `?` dims dropped for 1-d operands, as matmul does).
"""
from __future__ import annotations

import re

import numpy as np

from runtime.ops.rules_common import broadcast_shapes, reject, relocated, shape, static_error
from runtime.core.tensor import Tensor

_PYTHON_TYPE = {"f": float, "i": int, "u": int, "c": complex}
_UFUNC_KWARGS = {"dtype", "casting", "order", "subok", "signature"}


def all_weak(inputs) -> bool:
    """Every operand is a Python number or stands for one (and at least one is symbolic)."""
    return any(isinstance(x, Tensor) for x in inputs) and all(
        (isinstance(x, Tensor) and x.weak) or type(x) in (bool, int, float, complex)
        for x in inputs)


def _operand_dtype(x, weak_all: bool = False):
    if isinstance(x, np.dtype):
        return x
    if isinstance(x, Tensor):
        if x.weak and not weak_all and x.dtype.kind in _PYTHON_TYPE:
            return _PYTHON_TYPE[x.dtype.kind]
        return x.dtype
    if weak_all and type(x) in (int, float, complex):
        return np.asarray(x).dtype
    if isinstance(x, (bool, np.bool_)):
        return np.dtype(bool)
    if type(x) in (int, float, complex):
        return type(x)  # weak Python scalar (NEP 50)
    return np.asarray(x).dtype


def resolve(ufunc: np.ufunc, inputs: list, attrs: dict) -> tuple:
    """The ufunc's (input..., output...) dtypes for these operands (NumPy's resolver)."""
    weak = all_weak(inputs)
    signature = attrs.get("signature")
    if attrs.get("dtype") is not None:
        signature = (None,) * ufunc.nin + (np.dtype(attrs["dtype"]),) * ufunc.nout
    elif isinstance(signature, (str, np.dtype, type)):
        signature = (None,) * ufunc.nin + (np.dtype(signature),) * ufunc.nout
    elif signature is not None:
        signature = tuple(None if s is None else np.dtype(s) for s in signature)
    kw = {"casting": attrs["casting"]} if "casting" in attrs else {}
    if signature is not None:
        kw["signature"] = signature
    try:
        return ufunc.resolve_dtypes(tuple(_operand_dtype(x, weak) for x in inputs)
                                    + (None,) * ufunc.nout, **kw)
    except (TypeError, np.exceptions.DTypePromotionError) as e:
        raise relocated(e) from None


def ufunc_rule(op, inputs: list, attrs: dict) -> list:
    """Elementwise ufunc: broadcast shape; dtypes from the resolver."""
    ufunc = op.kernel
    reject(ufunc.__name__, attrs, _UFUNC_KWARGS)
    if len(inputs) != ufunc.nin:
        raise static_error(TypeError, f"{ufunc.__name__}() takes {ufunc.nin} positional "
                           f"arguments but {len(inputs)} were given")
    dtypes = resolve(ufunc, inputs, attrs)
    _check_python_ints(ufunc, inputs, dtypes)
    # after the dtypes, like NumPy: a dtype error wins over a broadcasting error
    if ufunc.signature is not None:
        outs = gufunc_shapes(ufunc, [shape(x) for x in inputs])
    else:
        outs = [broadcast_shapes(*(shape(x) for x in inputs))] * ufunc.nout
    return list(zip(outs, dtypes[ufunc.nin:], strict=True))


_COMPARISONS = {np.equal, np.not_equal, np.less, np.less_equal, np.greater, np.greater_equal}


def _check_python_ints(ufunc, inputs, dtypes) -> None:
    """NEP 50: a Python int that does not fit the loop's integer dtype is an OverflowError
    (comparisons excepted: NumPy compares those exactly)."""
    if ufunc in _COMPARISONS:
        return
    for x, dt in zip(inputs, dtypes, strict=False):
        if type(x) is int and dt.kind in "iu":
            info = np.iinfo(dt)
            if not info.min <= x <= info.max:
                raise static_error(OverflowError, f"Python integer {x} out of bounds for {dt}")


_GROUP = re.compile(r"\(([^()]*)\)")


def _parse(part: str) -> list:
    return [[(d.strip().rstrip("?"), d.strip().endswith("?")) for d in g.split(",") if d.strip()]
            for g in _GROUP.findall(part)]


def gufunc_shapes(ufunc: np.ufunc, shapes: list) -> list:
    """Output shapes of a generalized ufunc from its signature, e.g. (n?,k),(k,m?)->(n?,m?)."""
    sig = ufunc.signature
    ins, outs = (_parse(p) for p in sig.split("->"))
    sizes: dict = {}
    dropped: set = set()
    loops = []
    for i, (shp, core) in enumerate(zip(shapes, ins, strict=True)):
        if len(shp) < len(core):
            optional = [name for name, opt in core if opt]
            if len(shp) < len(core) - len(optional) or not optional:
                required = len(core) - len(optional)
                raise static_error(ValueError, f"{ufunc.__name__}: Input operand {i} does not "
                                   f"have enough dimensions (has {len(shp)}, gufunc core with "
                                   f"signature {sig} requires {required})")
            dropped.update(optional)
            core = [(n, o) for n, o in core if not o]
        k = len(shp) - len(core)
        loops.append(shp[:k])
        for j, ((name, _), d) in enumerate(zip(core, shp[k:], strict=True)):
            fixed = int(name) if name.isdigit() else None
            have = fixed if fixed is not None else sizes.get(name)
            if d is not None and have is not None and d != have:
                raise static_error(ValueError, f"{ufunc.__name__}: Input operand {i} has a "
                                   f"mismatch in its core dimension {j}, with gufunc signature "
                                   f"{sig} (size {d} is different from {have})")
            if d is not None:
                sizes[name] = d
            else:
                sizes.setdefault(name, None)
    loop = broadcast_shapes(*loops)
    return [loop + tuple(int(n) if n.isdigit() else sizes.get(n) for n, _ in core
                         if n not in dropped) for core in outs]
