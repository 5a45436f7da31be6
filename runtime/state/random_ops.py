"""Random draws as stateful graph operations: every call of a traced function draws from
the same generator object eager NumPy would draw from, in program order.

    draw(rng, "normal", (), {"loc": x, "size": (3,)})  # "random_draw": rng.normal(x, size=3)
    shuffle_into(rng, x, axis=0)                       # rng.shuffle(x) of a symbolic array
    make(np.random.default_rng, (seed,), {})           # "random_make": made again per run
    call(np.random.seed, (0,), {})                     # "random_call": reseeds per run

A "random_draw" node holds the generator (a `np.random.Generator` or `RandomState`; the
`np.random.*` functions are methods of NumPy's global RandomState) and the method's
name; its arguments are the call's own, symbolic ones as node inputs (0-d values passed
as NumPy scalars, as eager code holds them). All three ops are stateful effects: never
folded, merged, hoisted or removed (an unused draw still consumes the generator's state,
as in NumPy) and run in program order with the other effects. At run time the node
calls the method itself, so each call consumes the generator's state and returns
exactly NumPy's numbers (what is a Python number eagerly, `rng.normal()`, is a NumPy
scalar of its type in the graph, weak as NEP 50 treats the Python number).

The result's shape and dtype are found while tracing by calling the method on a copy of
the generator (the generator itself is untouched), with arrays of the inputs' static
shapes standing for the symbolic inputs; a draw whose inputs have an unknown dimension,
or whose number of values depends on an integer computed in the graph, is refused. A
generator the function makes itself (`np.random.default_rng(seed)`: a fresh one on every
eager call) is made again by its "random_make" node on every run, and its state copied
into the object the trace made (draws draw from that one; concurrent calls share it).

No gradient flows through a draw (differentiating raises); a shuffle or a permutation of
an array is a random `permutation(n)` draw followed by `np.take` (NumPy draws exactly
that), so its gradient is the permutation.
"""
from __future__ import annotations

import copy
import sys
import warnings
from typing import Any

import numpy as np

from runtime.core.errors import where
from runtime.core.registry import OpDef, bind
from runtime.core.structure import flatten, unflatten
from runtime.core.tensor import Tensor, _fmt_shape
from runtime.ops.functions import resolve_variables
from runtime.state.views import resolve, write


class _Input:
    """Stands for the node's k-th input inside the call's argument template."""

    __slots__ = ("index", "zero_d")

    def __init__(self, index: int, zero_d: bool):
        self.index = index
        self.zero_d = zero_d  # passed as a NumPy scalar (see `as_scalar`)

    def __repr__(self) -> str:
        return f"<input {self.index}>"


class Call:
    """A call's arguments with markers for the node's inputs (and, for draws, the static
    shape and dtype of the result): the listing shows it as the user wrote the call."""

    __slots__ = ("tree", "leaves", "result", "scalar")

    def __init__(self, tree, leaves: list, result: tuple | None = None):
        self.tree, self.leaves, self.result = tree, tuple(leaves), result
        self.scalar = None  # a Python number's NumPy type (the graph holds NumPy values)

    def __repr__(self) -> str:
        args, kwargs = unflatten(self.tree, list(self.leaves))
        return "(" + ", ".join([repr(a) for a in args] +
                               [f"{k}={v!r}" for k, v in kwargs.items()]) + ")"


def as_scalar(v):
    """A 0-d graph value stands for the NumPy scalar eager code holds (`x[0]`, `n + 1`),
    which is what seeds and sizes take."""
    return v[()] if type(v) is np.ndarray else v


def _fill(template: Call, values):
    return unflatten(template.tree, [
        (as_scalar(values[x.index]) if x.zero_d else values[x.index]) if type(x) is _Input
        else x for x in template.leaves])


def _draw_kernel(*values, generator, method, call):
    args, kwargs = _fill(call, values)
    drawn = getattr(generator, method)(*args, **kwargs)
    return drawn if call.scalar is None else call.scalar(drawn)


def _draw_abstract_eval(op, inputs, attrs):
    return [attrs["call"].result]


class _Code(str):
    """Generated-code text of an input (already an expression, not a constant)."""


def _expr(gen, value) -> str:
    if type(value) is _Code:
        return value
    if type(value) in (list, tuple):
        items = [_expr(gen, v) for v in value]
        closing = "," if type(value) is tuple and len(items) == 1 else ""
        body = ", ".join(items) + closing
        return f"({body})" if type(value) is tuple else f"[{body}]"
    if type(value) is dict:
        return "{" + ", ".join(f"{k!r}: {_expr(gen, v)}" for k, v in value.items()) + "}"
    return gen.lit(value)


def _call_text(gen, ins, template) -> str:
    args, kwargs = unflatten(template.tree, [
        (_Code(f"{gen.const(as_scalar, 'as_scalar')}({ins[x.index]})") if x.zero_d
         else _Code(ins[x.index])) if type(x) is _Input else x for x in template.leaves])
    return ", ".join([_expr(gen, a) for a in args] +
                     [f"{k}={_expr(gen, v)}" for k, v in kwargs.items()])


def _format_draw(gen, ins, attrs):
    """`rng_normal(x, size=(3,))`: the generator's own method, called as the user did."""
    method = attrs["method"]
    callee = gen.const(getattr(attrs["generator"], method), f"draw_{method}")
    text = f"{callee}({_call_text(gen, ins, attrs['call'])})"
    scalar = attrs["call"].scalar
    return text if scalar is None else f"{gen.lit(scalar)}({text})"


def _no_gradient(rec, cts):
    raise NotImplementedError(
        f"No gradient flows through a random draw ({rec.attrs['method']} of "
        f"{type(rec.attrs['generator']).__name__}). To differentiate through a sample, draw "
        "a standard one and transform it: `mu + sigma * rng.standard_normal(size)`.")


RANDOM_DRAW = OpDef("random_draw", _draw_kernel, _draw_abstract_eval, stateful=True,
                    effect=True, grad=_no_gradient, format=_format_draw)


def _call_kernel(*values, function, call):
    args, kwargs = _fill(call, values)
    function(*args, **kwargs)


def _format_call(gen, ins, attrs):
    return f"{gen.const(attrs['function'], attrs['function'].__name__)}({_call_text(gen, ins, attrs['call'])})"


# `np.random.seed(0)`, `np.random.set_state(s)`: done again each time the graph runs
RANDOM_CALL = OpDef("random_call", _call_kernel, lambda op, ins, attrs: [], num_outputs=0,
                    stateful=True, effect=True, format=_format_call)


def _state_of(obj):
    return obj.get_state() if hasattr(obj, "get_state") else \
        getattr(obj, "bit_generator", obj).state


def _make_kernel(*values, made, function, call):
    args, kwargs = _fill(call, values)
    fresh = function(*args, **kwargs)
    if fresh is not made:  # `default_rng(rng)` hands back `rng` itself
        if hasattr(made, "set_state"):
            made.set_state(_state_of(fresh))
        else:
            getattr(made, "bit_generator", made).state = _state_of(fresh)


RANDOM_MAKE = OpDef("random_make", _make_kernel, lambda op, ins, attrs: [], num_outputs=0,
                    stateful=True, effect=True)


# -- tracing -----------------------------------------------------------------------------
def _template(what: str, args: tuple, kwargs: dict):
    """The call's template (its leaves with _Input markers) and its symbolic inputs."""
    leaves, tree = flatten((tuple(args), dict(kwargs)))
    leaves = resolve_variables(leaves)
    inputs, marked = [], []
    for x in leaves:
        if isinstance(x, Tensor):
            x = resolve(x)
            if None in x.shape:
                raise TypeError(
                    f"{what}: an argument of shape {_fmt_shape(x.shape)} has a dimension "
                    f"unknown while tracing{where()}; a random draw needs static shapes. "
                    "Give the function an input_signature with that dimension fixed, or "
                    "draw outside the function and pass the numbers in.")
            marked.append(_Input(len(inputs), x.ndim == 0))
            inputs.append(x)
        else:
            marked.append(x)
    return Call(tree, marked), inputs


_FILLS = ("ones", "counting", "fractions")


def _stand_in(t: Tensor, k: int, fill: str) -> np.ndarray:
    """A concrete array of `t`'s shape and dtype with values most draws accept."""
    shape = tuple(t.shape)
    value = {"ones": 1, "counting": k + 1,
             "fractions": 1 / max(1, shape[-1] if shape else 1)}[fill]
    if t.dtype.kind in "biu":
        value = max(1, int(value))
    return np.full(shape, value, dtype=t.dtype)


def _try(generator, method: str, template, stand_ins: list):
    args, kwargs = _fill(template, stand_ins)
    # stand-in values may make NumPy warn (a singular covariance): only the shape counts
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        return getattr(copy.deepcopy(generator), method)(*args, **kwargs)


def _shape_follows_values(generator, method, template, stand_ins, shape) -> bool:
    """Whether the number of values drawn depends on an integer computed in the graph
    (`size=n`, `permutation(n)`): drawn again with those integers one larger."""
    if not any(a.dtype.kind in "iu" for a in stand_ins):
        return False
    bigger = [a + 1 if a.dtype.kind in "iu" else a for a in stand_ins]
    try:
        return np.shape(_try(generator, method, template, bigger)) != shape
    except (ValueError, TypeError, OverflowError):
        return False


def _probe(generator, method: str, template, inputs: list, what: str):
    """The (shape, dtype, weak) of the draw's result, drawn from a copy of the generator
    (the generator itself is untouched)."""
    error = None
    for fill in _FILLS if inputs else _FILLS[:1]:
        stand_ins = [_stand_in(t, k, fill) for k, t in enumerate(inputs)]
        try:
            result = _try(generator, method, template, stand_ins)
        except (ValueError, TypeError, OverflowError) as e:
            if not inputs:
                raise  # static arguments NumPy refuses: the error eager code gets
            error = error or e
            continue
        if _shape_follows_values(generator, method, template, stand_ins, np.shape(result)):
            raise TypeError(
                f"{what}: how many numbers it draws depends on an integer computed in the "
                f"graph{where()}; a random draw needs static shapes. Pass sizes as Python "
                "ints (a dimension known while tracing), or draw outside the function.")
        if type(result) in (float, int, bool):
            return (), np.dtype(type(result)), True
        if isinstance(result, (np.ndarray, np.generic)) and result.dtype.kind in "biufc":
            return result.shape, result.dtype, False
        raise TypeError(f"{what} returns a {type(result).__name__}, which a graph cannot "
                        f"hold{where()}; draw it outside the function and pass it in.")
    raise TypeError(f"{what}: the shape of the numbers it draws could not be worked out "
                    f"from its symbolic arguments ({error}){where()}. Pass the arguments "
                    "that decide the shape (size, p, ...) as Python values.") from error


def draw(generator, method: str, args: tuple, kwargs: dict, what: str = "") -> Any:
    """`getattr(generator, method)(*args, **kwargs)` as a node of the current trace."""
    what = what or f"{type(generator).__name__}.{method}"
    if kwargs.get("out") is not None:
        raise TypeError(f"{what}(..., out=...) is not supported in graphs{where()}: use the "
                        "returned value.")
    template, inputs = _template(what, args, kwargs)
    shape, dtype, weak = _probe(generator, method, template, inputs, what)
    template.result = (shape, dtype)
    if weak:  # a Python number eagerly: a NumPy scalar in the graph, weak (NEP 50)
        template.scalar = dtype.type
    out = bind(RANDOM_DRAW, *inputs, generator=generator, method=method, call=template)
    if weak:
        out.weak = True
    return out


def make(function, args: tuple, kwargs: dict) -> Any:
    """`np.random.default_rng(seed)` (a generator or bit generator made by the function):
    made now, for the trace, and each time the graph runs made again and its state copied
    into this object, which the trace's draws draw from. So every call starts it afresh
    (from the seed, or from fresh entropy), as eagerly, and where the function stores it
    (`self.rng = ...`) the object is left where eager code leaves its new one."""
    what = f"np.random.{getattr(function, '__name__', 'make')}"
    template, inputs = _template(what, args, kwargs)
    args, kwargs = _fill(template, [_stand_in(t, k, "ones") for k, t in enumerate(inputs)])
    made = function(*args, **kwargs)
    bind(RANDOM_MAKE, *inputs, made=made, function=function, call=template)
    return made


def _static_axis(x: Tensor, axis, what: str) -> int:
    if x.ndim == 0:
        raise TypeError(f"{what}: x must be an array of at least one dimension{where()}")
    if not isinstance(axis, int) or not -x.ndim <= axis < x.ndim:
        raise TypeError(f"{what}: axis must be a Python int within the array's dimensions"
                        f"{where()}")
    if x.shape[axis] is None:
        raise TypeError(f"{what} of an array whose length along axis {axis} is unknown while "
                        f"tracing{where()}: a random draw needs static shapes. Give the "
                        "function an input_signature with that dimension fixed.")
    return axis


def permuted_copy(generator, x: Tensor, axis: int = 0, what: str = "permutation") -> Tensor:
    """`generator.permutation(x[, axis])` of a symbolic array: NumPy draws one random
    permutation of the axis' length (even for an empty array) and takes along it; so does
    the graph, which makes its gradient the permutation."""
    x = resolve(x)
    axis = _static_axis(x, axis, what)
    order = draw(generator, "permutation", (x.shape[axis],), {}, what=what)
    return np.take(x, order, axis=axis)


def shuffle_into(generator, x: Tensor, axis: int = 0, what: str = "shuffle") -> None:
    """`generator.shuffle(x[, axis])` of a symbolic array: the same state NumPy's shuffle
    consumes (one random permutation of the axis' length; none for an empty array) and
    the same order, written into `x` as NumPy writes in place (aliases and views see it;
    an argument array is written back after the call)."""
    x = resolve(x)
    axis = _static_axis(x, axis, what)
    if None in x.shape:
        raise TypeError(f"{what} of an array of shape {_fmt_shape(x.shape)}, unknown while "
                        f"tracing{where()}: a random draw needs static shapes (NumPy draws "
                        "nothing for an empty array). Give the function an input_signature "
                        "with the dimensions fixed.")
    if 0 in x.shape:
        return  # NumPy shuffles nothing and draws nothing
    try:
        write(x, permuted_copy(generator, x, axis, what))
    except ValueError as e:
        if "defined outside the symbolic" not in str(e):
            raise
        raise ValueError(
            f"{what}(a) shuffles the array `a` in place inside a symbolic `if` / loop"
            f"{where()}, but `a` is not assigned in that block, so the block does not carry "
            "its new value out. Assign the array in the block before the call (e.g. "
            "`a = a.copy()`).") from None


def call(function, args: tuple, kwargs: dict) -> None:
    """`np.random.seed(...)` / `set_state(...)`: done at run time, in program order."""
    template, inputs = _template(f"np.random.{function.__name__}", args, kwargs)
    bind(RANDOM_CALL, *inputs, function=function, call=template)


def global_generator():
    """NumPy's legacy global RandomState (what `np.random.normal` and friends draw from)."""
    return sys.modules["numpy.random"].mtrand._rand
