"""NumPy functions as ops: reductions, shape manipulation, linear algebra, selection.

`__array_function__` of Tensor lands in `dispatch_function`, which looks the NumPy
function up in `TABLE`. Most entries are "leading arrays + static keywords": the
first `n` parameters are array inputs (Tensors or constants) and the rest are static
attributes, so the kernel is the NumPy function itself and generated code reads
`np.sum(x, axis=1)`. Functions taking a sequence of arrays get a small kernel.
An unknown function raises a TypeError naming it; nothing is silently made constant.
Each op's shape/dtype rule is `RULES[name]` (functions_rules.py; shaping_rules.py for
the ops of shaping.py); registering an op without one fails at import.
"""
from __future__ import annotations

import inspect

import numpy as np

from runtime.core.errors import where
from runtime.ops.functions_rules import RULES
from runtime.core.registry import OpDef, OpTable, bind, numpy_ref
from runtime.ops.rules_common import broadcast_shapes
from runtime.core.protocol import TensorProtocol
from runtime.core.tensor import StateHandle, Tensor
from runtime.ops.shape import symbolic_shape

TABLE = OpTable()
OPS: dict[str, OpDef] = {}


def resolve_variables(values):
    """Replace Variables by their current value (a read node while tracing)."""
    return [v.read_value() if isinstance(v, StateHandle) else v for v in values]


def dispatch_function(func, args, kwargs):
    handler = TABLE.handlers.get(func)
    if handler is None:
        name = getattr(func, "__module__", "numpy").replace("numpy", "np", 1) + "." + func.__name__
        name = name.replace("np._core.", "np.").replace("np.core.", "np.")
        if name.startswith("np.lib."):
            name = "np." + func.__name__
        raise TypeError(
            f"{name} is not supported in graphs (called on a symbolic Tensor{where()}). "
            "Use a supported NumPy function, or compute it outside the decorated function "
            "and pass the result in as an argument."
        )
    return handler(*args, **kwargs)


def _no_out(name, kwargs):
    if kwargs.pop("out", None) is not None:
        raise TypeError(f"np.{name}(..., out=...) is not supported in graphs{where()}: "
                        "tensors are immutable; use the returned value.")


def _rule(name: str, given=None):
    """The op's shape/dtype rule: `given`, else the one registered under its name."""
    if given is not None:
        return given
    if name not in RULES:
        raise KeyError(f"no shape/dtype rule for op {name!r}: add one to "
                       "runtime/ops/functions_rules.py (or pass abstract_eval=)")
    return RULES[name]


def leading_arrays(fn, n_arrays: int = 1, *, name: str | None = None, abstract_eval=None,
                   aliases: dict | None = None) -> OpDef:
    """Register NumPy `fn` whose first `n_arrays` parameters are arrays, rest static."""
    sig = inspect.signature(fn)
    params = list(sig.parameters)
    array_params = params[:n_arrays]
    var_keyword = [p for p in params if sig.parameters[p].kind is inspect.Parameter.VAR_KEYWORD]
    positional_only = [p for p in params[n_arrays:]
                       if sig.parameters[p].kind is inspect.Parameter.POSITIONAL_ONLY]
    kernel, ref = fn, numpy_ref(fn)
    if positional_only:  # e.g. np.astype(x, dtype, /): pass those attributes positionally
        def kernel(*arrays, **attrs):
            # a Python number at run time (a loop's Python-int counter): as NumPy's scalar,
            # which `np.astype` accepts where a Python int is refused
            arrays = [np.asarray(a)[()] if type(a) in (int, float, bool, complex) else a
                      for a in arrays]
            return fn(*arrays, *[attrs[p] for p in positional_only if p in attrs],
                      **{k: v for k, v in attrs.items() if k not in positional_only})
        kernel.__name__ = fn.__name__
        ref = None
    op = OpDef(name or fn.__name__, kernel, _rule(name or fn.__name__, abstract_eval),
               kernel_ref=ref)
    OPS[op.name] = op

    def handler(*args, **kwargs):
        _no_out(op.name, kwargs)
        for alias, target in (aliases or {}).items():
            if alias in kwargs:
                kwargs[target] = kwargs.pop(alias)
        bound = sig.bind_partial(*args, **kwargs).arguments
        inputs = []
        for p in array_params:
            default = sig.parameters[p].default
            inputs.append(bound.pop(p, None if default is inspect.Parameter.empty or
                                   isinstance(default, type(np._NoValue)) else default))
        for p in var_keyword:  # np.pad(x, 1, constant_values=2): keyword arguments as attrs
            bound.update(bound.pop(p, {}))
        _static_only(op.name, bound)
        return bind(op, *resolve_variables(inputs), **bound)

    TABLE.handlers[fn] = handler
    return op


def _static_only(name, attrs) -> None:
    """Keyword arguments become node attributes: they must be static, not symbolic."""
    for k, v in attrs.items():
        if isinstance(v, (Tensor, StateHandle)):
            raise TypeError(f"np.{name}: argument {k!r} must be a static value (a Python or "
                            f"NumPy constant) in graphs, not a symbolic {type(v).__name__}"
                            f"{where()}.")


def sequence_op(fn, name: str | None = None) -> OpDef:
    """Register NumPy `fn(arrays, **static)` taking a sequence of arrays first."""
    def kernel(*arrays, **attrs):
        return fn(arrays, **attrs)

    kernel.__name__ = name or fn.__name__
    op = OpDef(name or fn.__name__, kernel, _rule(name or fn.__name__),
               format=lambda gen, ins, attrs: f"np.{fn.__name__}([{', '.join(ins)}]{_kw(gen, attrs)})")
    OPS[op.name] = op

    def handler(arrays, *args, **kwargs):
        _no_out(op.name, kwargs)
        bound = inspect.signature(fn).bind_partial(arrays, *args, **kwargs).arguments
        bound.pop(next(iter(bound)))
        _static_only(op.name, bound)
        return bind(op, *resolve_variables(list(arrays)), **bound)

    TABLE.handlers[fn] = handler
    return op


def _kw(gen, attrs) -> str:
    return "".join(f", {k}={gen.lit(v)}" for k, v in attrs.items())


# -- reductions -----------------------------------------------------------------------
for _fn in (np.sum, np.mean, np.prod, np.max, np.min, np.amax, np.amin, np.any, np.all,
            np.std, np.var, np.argmax, np.argmin, np.nansum, np.nanmean, np.nanmax, np.nanmin):
    leading_arrays(_fn)

# -- elementwise-ish and selection ----------------------------------------------------
leading_arrays(np.where, 3)
leading_arrays(np.clip, 3, aliases={"min": "a_min", "max": "a_max"})
for _fn in (np.cumsum, np.cumprod, np.zeros_like, np.ones_like, np.empty_like, np.copy,
            np.astype, np.round, np.around, np.flip, np.sort, np.argsort,
            np.diagonal, np.trace, np.roll, np.nan_to_num,
            np.real, np.imag, np.count_nonzero, np.linalg.norm):
    leading_arrays(_fn)
leading_arrays(np.full_like, 2)
for _name in ("zeros_like", "ones_like", "full_like"):  # read the shape, not the values
    OPS[_name].shape_only = (0,)
for _name in ("zeros_like", "ones_like", "full_like", "empty_like", "copy", "sort", "argsort",
              "cumsum", "cumprod"):
    OPS[_name].fresh_result = True  # a new array: the executor may write into it
leading_arrays(np.take, 2)
leading_arrays(np.dot, 2)
leading_arrays(np.vdot, 2)
leading_arrays(np.inner, 2)
leading_arrays(np.outer, 2)
leading_arrays(np.tensordot, 2)
leading_arrays(np.allclose, 2)
leading_arrays(np.isclose, 2)
leading_arrays(np.array_equal, 2)
leading_arrays(np.cross, 2)


for _fn, _n in ((np.linalg.inv, 1), (np.linalg.det, 1), (np.linalg.solve, 2)):
    leading_arrays(_fn, _n)
# -- array construction from values: np.array / np.asarray of tensors ---------------------
@TABLE.register(np.asarray, np.asanyarray, np.ascontiguousarray)
def _asarray(a, dtype=None, *args, copy=None, **kwargs):
    if isinstance(a, Tensor):
        if dtype is not None and np.dtype(dtype) != a.dtype:
            return np.astype(a, dtype)
        # copy=True: a new array, so a write to the result is not seen through `a`
        return np.copy(a) if copy else a
    if isinstance(a, (list, tuple)):
        stacked = np.stack([_asarray(x) for x in a])
        return stacked if dtype is None else np.astype(stacked, dtype)
    return np.asarray(a, dtype=dtype)


@TABLE.register(np.array)
def _array(a, dtype=None, *args, copy=True, **kwargs):
    """np.array copies unless told not to (`copy=False` / `None` may return `a` itself)."""
    return _asarray(a, dtype, *args, copy=copy, **kwargs)


@TABLE.register(np.shape)
def _shape(a):
    if not isinstance(a, Tensor):  # e.g. an eager tape's value
        return a.shape
    return symbolic_shape(a)  # as x.shape: a symbolic int64 scalar where a dim is unknown


@TABLE.register(np.ndim)
def _ndim(a):
    return a.ndim


@TABLE.register(np.result_type)
def _result_type(*arrays_and_dtypes):
    return np.result_type(*(x.dtype if isinstance(x, Tensor) else x for x in arrays_and_dtypes))


def _broadcast_arrays(*args, subok=False):
    shape = broadcast_shapes(*(a.shape if isinstance(a, Tensor) else np.shape(a) for a in args))
    if None in shape:
        raise TypeError(f"np.broadcast_arrays with unknown dimensions is not supported{where()}")
    return tuple(np.broadcast_to(a, shape) for a in args)  # a tuple, as in NumPy 2


TABLE.handlers[np.broadcast_arrays] = _broadcast_arrays
TensorProtocol.dispatch_function = dispatch_function
# the other files of NumPy functions (shaping, more, linalg, fft, dynamic) add their
# handlers to TABLE when they load: runtime/ops/__init__.py loads them all
