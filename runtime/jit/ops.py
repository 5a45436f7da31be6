"""The lowering table: how one node becomes numba source on scalars, with NumPy's semantics.

`lower_node(node, args, array_mode)` returns the statements computing the node's
results (one element at a time) and *guards*: boolean expressions that are true
whenever NumPy could have raised a floating-point or integer warning for that element
(overflow, division by zero, invalid, underflow). A compiled region that hits a guard
discards its work and reruns on the NumPy executor, which then warns, raises or
computes exactly as the default executor does under the caller's `np.errstate`. So a
guard may be conservative (a false alarm only costs speed); it must never miss.

Every operand is first cast to the ufunc's loop dtype as NumPy resolves it
(`ufunc.resolve_dtypes`, NEP 50 for Python scalars), and every result is cast to the
node's dtype: fixed-width integers wrap as NumPy's do. Ops whose compiled form could
differ from NumPy in any bit (transcendentals: libm vs NumPy's SIMD kernels; shifts past
the width; float16/complex/uint64 arithmetic) are not in the table: they stay NumPy calls.
"""
from __future__ import annotations

import math
import platform
import re
import sys

import numpy as np

from runtime.core.graph import Node
from runtime.core.tensor import Tensor
from runtime.jit.int_ranges import NO_BOUNDS, Bounds

SUPPORTED = {np.dtype(t) for t in ("bool", "int8", "int16", "int32", "int64", "uint8",
                                    "uint16", "uint32", "uint64", "float32", "float64")}
_ARITH_KINDS = ("i", "u", "f")
_ARITH = {"add": "+", "subtract": "-", "multiply": "*"}
_COMPARE = {"less": "<", "less_equal": "<=", "greater": ">", "greater_equal": ">=",
            "equal": "==", "not_equal": "!="}
_BITWISE = {"bitwise_and": "&", "bitwise_or": "|", "bitwise_xor": "^"}
_LOGICAL = {"logical_and": "and", "logical_or": "or"}
_ROUND = {"floor": "np.floor", "ceil": "np.ceil", "trunc": "np.trunc", "rint": "np.rint"}
# exact in IEEE arithmetic and as cheap as a load/store: worth fusing at any size
CHEAP = set(_ARITH) | set(_COMPARE) | set(_BITWISE) | set(_LOGICAL) | set(_ROUND) | {
    "divide", "floor_divide", "remainder", "negative", "positive", "absolute", "maximum",
    "minimum", "sqrt", "square", "logical_not", "logical_xor", "invert", "where", "astype"}
UFUNC_OPS = CHEAP - {"where", "astype"}


def dtype_of(x) -> np.dtype | None:
    """The dtype of an operand: a Tensor's, a NumPy scalar's or 0-d array's; None for a
    Python number (NumPy treats it as weak: its loop dtype comes from the other operand)."""
    if isinstance(x, Tensor):
        return x.dtype
    if isinstance(x, (np.generic, np.ndarray)):
        return x.dtype
    return None


def _weak_type(x):
    return type(x) if type(x) in (bool, int, float) else None


def loop_dtypes(node: Node, weak: bool = False) -> list[np.dtype] | None:
    """The dtypes NumPy casts the operands of a ufunc node to, or None if unknown
    (`weak`: with the weak Tensors given as the Python numbers they stand for)."""
    ufunc = node.op.kernel
    given = []
    for x in node.inputs:
        if weak and isinstance(x, Tensor) and x.weak:
            given.append(_PY_TYPE.get(x.dtype.kind))
            continue
        d = dtype_of(x)
        given.append(d if d is not None else _weak_type(x))
    if any(g is None for g in given):
        return None
    if all(g is int or g is float or g is bool or g.kind == "b" for g in given):
        # Python numbers only: NumPy makes each its default dtype first
        given = [np.dtype(np.int64) if g is int else np.dtype(np.float64) if g is float
                 else np.dtype(bool) for g in given]
    try:
        resolved = ufunc.resolve_dtypes(tuple(given) + (None,) * ufunc.nout)
    except Exception:  # noqa: BLE001 - NumPy refuses: not ours to lower
        return None
    return list(resolved[:ufunc.nin])


def literal(value, dtype: np.dtype) -> str | None:
    """Numba source for a constant operand, already of `dtype`; None when converting it
    is not exact or quiet: NumPy converts it on every call, and warns each time (1e300
    in a float32 loop overflows), or raises (300 in an int8 loop)."""
    v = np.asarray(value)
    if v.ndim != 0 or v.dtype not in SUPPORTED and v.dtype.kind not in "biuf":
        return None
    try:
        with np.errstate(all="raise"):
            x = v.astype(dtype)[()] if v.dtype != dtype else v[()]
    except (FloatingPointError, OverflowError):
        return None
    if dtype.kind in "iu" and v.dtype.kind in "iub" and int(x) != int(v):
        return None
    if dtype.kind == "b":
        return repr(bool(x))
    if dtype.kind == "f":
        f = float(x)
        text = repr(f) if math.isfinite(f) else ("np.nan" if f != f else
                                                 ("np.inf" if f > 0 else "-np.inf"))
        return f"np.{dtype.name}({text})"
    return f"np.{dtype.name}({int(x)})"


def cast(expr: str, src: np.dtype, dst: np.dtype) -> str:
    return expr if src == dst else f"np.{dst.name}({expr})"


def _limits(dtype: np.dtype) -> tuple[int, int]:
    info = np.iinfo(dtype)
    return int(info.min), int(info.max)


def _float_guards(r: str, ins: list[str], op: str) -> list[str]:
    """Element conditions under which IEEE flags NumPy reports may have been raised."""
    finite = " and ".join(f"abs({a}) < np.inf" for a in ins) or "True"
    not_nan = " and ".join(f"{a} == {a}" for a in ins) or "True"
    guards = [f"({r} != {r} and {not_nan})",                    # invalid
              f"(abs({r}) == np.inf and {finite})",             # overflow, divide by zero
              f"({r} != 0 and abs({r}) < {_TINY})"]             # underflow (subnormal)
    if op in ("multiply", "divide", "square", "cast"):
        nonzero = " and ".join(f"{a} != 0" for a in ins)
        guards.append(f"({r} == 0 and {nonzero} and {finite})")  # underflow to zero
    return guards


_TINY = repr(float(np.finfo(np.float32).tiny))  # float64 results below it are checked too


def _int_guards(op: str, a: list[str], r_wide: str, dt: np.dtype, scalar: bool,
                spans=(None, None)) -> list[str]:
    """NumPy warns for integer division by zero (and MIN // -1) on arrays and scalars,
    and for overflow of add/subtract/multiply/negate on scalars only (`spans`: the
    operands' intervals, when known)."""
    lo, hi = _limits(dt)
    guards = []
    if op in ("floor_divide", "remainder"):
        guards.append(f"{a[1]} == 0")
        if dt.kind == "i":
            guards.append(f"({a[0]} == {lo} and {a[1]} == -1)")
    if scalar and op in ("add", "subtract", "multiply", "negative", "absolute", "square"):
        if dt.itemsize < 8:
            guards.append(f"({r_wide} < {lo} or {r_wide} > {hi})")
        elif op in ("add", "subtract"):
            guards.extend(overflow_guard(op, a[0], a[1], r_wide, spans))
        elif op in ("negative", "absolute"):
            guards.append(f"{a[0]} == {lo}")
        else:  # the float product is within a relative 2**-52 of the exact one
            b = a[1] if op == "multiply" else a[0]
            guards.append(f"abs(np.float64({a[0]}) * np.float64({b})) >= 9.2e18")
    return guards


_I64_LO, _I64_HI = _limits(np.dtype(np.int64))


def _constant(text: str) -> int | None:
    m = re.fullmatch(r"np\.int64\((-?\d+)\)", text)
    return int(m.group(1)) if m else None


_NARROW = 1 << 32  # an operand within ±2**32 gets one-sided guards (see overflow_guard)


def _narrow(span) -> bool:
    return span is not None and -_NARROW <= span[0] and span[1] <= _NARROW


def overflow_guard(op: str, x: str, y: str, r: str, spans=(None, None)) -> list[str]:
    """When the int64 `x + y` (`x - y`), computed wrapping as `r`, left int64. With an
    operand known to be small (a constant, or `spans`: its interval from int_ranges.py)
    it is a comparison of the other (`i + 1`: `i > MAX - 1`; `d + c` of `c` in [0, 1]:
    `d > MAX - 1`), which the compiler often proves false for a loop counter. Such a
    guard may fire where NumPy would not (`d` = MAX, `c` = 0: the region reruns on NumPy,
    same result), never miss."""
    cx, cy = _constant(x), _constant(y)
    xs = (cx, cx) if cx is not None else spans[0]
    ys = (cy, cy) if cy is not None else spans[1]
    if _narrow(ys):
        lo, hi = ys if op == "add" else (-ys[1], -ys[0])  # x - y is x + (-y)
        return ([f"{x} > {_I64_HI - hi}"] if hi > 0 else []) + \
            ([f"{x} < {_I64_LO - lo}"] if lo < 0 else [])
    if _narrow(xs) and op == "add":
        return overflow_guard("add", y, x, r, (ys, xs))
    if _narrow(xs):  # c - y, c in [lo, hi]: above MAX when y < hi - MAX, below MIN when
        lo, hi = xs  # y > lo - MIN
        return ([f"{y} < {hi - _I64_HI}"] if hi >= 0 else []) + \
            ([f"{y} > {lo - _I64_LO}"] if lo < 0 else [])
    if op == "add":
        return [f"((({x} ^ {r}) & ({y} ^ {r})) < 0)"]
    return [f"((({x} ^ {y}) & ({x} ^ {r})) < 0)"]


class Lowered:
    """Statements for one node: `lines` assign `outs`; `guards` flag NumPy warnings.
    `ieee`: the guards only restate IEEE exception flags (invalid, divide by zero,
    overflow, underflow) that the hardware raises for the same operation, so an array
    kernel may test those flags once instead (see source.py)."""

    def __init__(self, lines: list[str], guards: list[str], ieee: bool = False,
                 checks: list[str] | None = None, result: str | None = None,
                 defers: bool = False):
        self.lines = lines
        self.defers = defers        # the lines set `deferred` themselves (array_ops.py)
        self.guards = guards
        self.ieee = ieee
        self.checks = checks or []  # tested before the lines run (an index, a cast)
        self.result = result        # the variable holding the result, if not `out`


def cast_checks(name: str, src: np.dtype, dst: np.dtype) -> list[str] | None:
    """Conditions on `name` (of `src`) under which converting it to `dst` could differ
    from NumPy's conversion of the same value or make NumPy warn or raise (a Python int
    out of an int32's range raises; a float64 beyond float32's range overflows); None
    when the conversion is not lowered at all."""
    if src == dst or np.can_cast(src, dst, "safe"):
        return []
    if np.dtype(np.uint64) in (src, dst):
        return None
    if src.kind in "iub" and dst.kind == "f":
        limit = 1 << (24 if dst.itemsize == 4 else 53)  # exact in the float: no rounding
        return [f"not ({-limit} <= {name} <= {limit})"]
    if src.kind in "iu" and dst.kind in "iu":
        lo, hi = _limits(dst)
        return [f"not ({lo} <= {name} <= {hi})"]
    if src.kind == "f" and dst.kind == "f":
        return [f"(abs({name}) < np.inf and not (abs(np.{dst.name}({name})) < np.inf))",
                f"({name} != 0 and abs({name}) < {float(np.finfo(dst).tiny)!r})"]
    return None


_PYTHON_NUMBER = {"python_number": True}
_WHERE = {"where": True}
_PY_TYPE = {"b": np.dtype(bool), "i": int, "u": int, "f": float}  # a bool promotes as np.bool_


def _from_python_number(x) -> bool:
    """A value the default executor holds as a Python number (a `python_number` result):
    NumPy promotes it as a weak scalar (NEP 50)."""
    return isinstance(x, Tensor) and x.node is not None and \
        _PYTHON_NUMBER.get(x.node.op.name, False)


def lower_node(node: Node, args: list, out: str, scalar: bool,
               bounds: Bounds = NO_BOUNDS) -> Lowered | None:
    """Source computing `out` (the node's one result) from `args`: the source of each
    Tensor operand (of that operand's dtype), None for a constant operand. None when the
    node cannot be lowered exactly. `bounds` (int_ranges.py) drops the guards and checks
    its intervals prove needless."""
    low = _lower_node(node, args, out, scalar, bounds)
    if low is None or not node.inputs or not any(
            isinstance(x, Tensor) and x.weak for x in node.inputs):
        return low
    # a weak value (a Python number at run time) NumPy converts to the loop's dtype:
    # where that conversion narrows it, values it could refuse or round go to NumPy
    if not scalar or name_needs_strict(node):
        return None
    loops = loop_dtypes(node, weak=True) if isinstance(node.op.kernel, np.ufunc) else None
    for i, x in enumerate(node.inputs):
        if isinstance(x, Tensor) and x.weak and loops is not None:
            more = cast_checks(args[i], x.dtype, loops[i])
            if more and _exact_in(bounds, x, loops[i]):
                more = []  # every value it can hold converts exactly and quietly
            if more is None:
                return None
            low.checks = more + low.checks
    return low


def name_needs_strict(node: Node) -> bool:
    """`where` with a weak value of another dtype than its result: its promotion at run
    time depends on the value's Python type, which is not lowered."""
    if not _WHERE.get(node.op.name, False):
        return False
    rdt = node.outputs[0].dtype
    return any(isinstance(x, Tensor) and x.weak and x.dtype != rdt for x in node.inputs[1:])


def _exact_in(bounds: Bounds, x, dtype: np.dtype) -> bool:
    """Whether `bounds` proves every integer value of `x` exact in `dtype`."""
    if dtype.kind in "iu":
        lo, hi = _limits(dtype)
    elif dtype.kind == "f":
        hi = 1 << (24 if dtype.itemsize == 4 else 53)
        lo = -hi
    else:
        return False
    return isinstance(x, Tensor) and x.dtype.kind in "iub" and bounds.within(x, lo, hi)


def _lower_node(node: Node, args: list, out: str, scalar: bool,
                bounds: Bounds = NO_BOUNDS) -> Lowered | None:
    name = node.op.name
    if len(node.outputs) != 1 or any(isinstance(x, Tensor) and x.weak and x.ndim != 0
                                     for x in node.inputs):
        return None
    rdt = node.outputs[0].dtype
    in_dts = [dtype_of(x) for x in node.inputs]
    if rdt not in SUPPORTED or any(d is not None and d not in SUPPORTED for d in in_dts):
        return None

    def operand(i: int, target: np.dtype) -> str | None:
        if args[i] is None:
            return literal(node.inputs[i], target)
        return cast(args[i], in_dts[i], target)

    if name == "where" and len(node.inputs) == 3 and not node.attrs:
        c, a, b = operand(0, np.dtype(bool)), operand(1, rdt), operand(2, rdt)
        if None in (c, a, b):
            return None
        return Lowered([f"{out} = {a} if {c} else {b}"], [])
    if name == "astype" and set(node.attrs) <= {"dtype"} and len(node.inputs) == 1:
        return None if args[0] is None else _lower_cast(args[0], in_dts[0], rdt, out)
    if name not in UFUNC_OPS or node.attrs or not isinstance(node.op.kernel, np.ufunc):
        return None
    loops = loop_dtypes(node)
    weak = loop_dtypes(node, weak=True)
    if loops != weak:  # NumPy's loop depends on whether a weak operand is a Python number
        if not all(_from_python_number(x) for x in node.inputs
                   if isinstance(x, Tensor) and x.weak):
            return None
        loops = weak
    if loops is None or any(d not in SUPPORTED for d in loops):
        return None
    lt = loops[0]
    if any(d != lt for d in loops):
        return None  # mixed loops (ldexp-like): none in the table
    a = [operand(i, lt) for i in range(len(args))]
    if None in a:
        return None
    spans = tuple(bounds.interval(x) for x in node.inputs) if len(a) == 2 else (None, None)
    return _lower_ufunc(name, a, lt, rdt, out, scalar, bounds.fits(node, lt), spans)


def _lower_cast(a: str, src: np.dtype, dst: np.dtype, out: str) -> Lowered | None:
    if dst.kind == "b":
        return Lowered([f"{out} = {a} != 0"], [])
    if src.kind == "f" and dst.kind in "iu":
        lo, hi = _limits(dst)  # NumPy warns (and the result is undefined) outside the range
        return Lowered([f"{out} = np.{dst.name}({a}) if {float(lo)!r} <= {a} < {float(hi) + 1!r} "
                        f"else np.{dst.name}(0)"],
                       [f"not ({float(lo)!r} <= {a} < {float(hi) + 1!r})"])
    if src.kind == "f" and dst.kind == "f" and dst.itemsize < src.itemsize:
        return Lowered([f"{out} = np.{dst.name}({a})"], _float_guards(out, [a], "cast"), True)
    if src.kind == "u" and src.itemsize == 8 or dst.kind == "u" and dst.itemsize == 8 \
            and src.kind != "u":
        return None  # numba's uint64 conversions are not worth the doubt
    return Lowered([f"{out} = {cast(a, src, dst)}"], [])


def _lower_ufunc(name: str, a: list[str], lt: np.dtype, rdt: np.dtype, out: str,
                 scalar: bool, exact: bool = False, spans=(None, None)) -> Lowered | None:
    """`exact`: the integer result is proven inside `lt`, its divisor nonzero (no guard);
    `spans`: the operands' intervals (narrower guards)."""
    kind = lt.kind
    wide = kind in "iu" and lt.itemsize < 8  # computed in int64, then wrapped to the dtype
    if kind == "u" and lt.itemsize == 8 and name not in _COMPARE and name not in _BITWISE:
        return None
    w = [f"np.int64({x})" for x in a] if wide else a
    if name in _COMPARE:
        return Lowered([f"{out} = {a[0]} {_COMPARE[name]} {a[1]}"], [])
    if name in _BITWISE or name == "invert":
        if kind == "f":
            return None
        if name == "invert":
            expr = f"not {a[0]}" if kind == "b" else f"~{a[0]}"
        else:
            expr = f"{a[0]} {_BITWISE[name]} {a[1]}"
        return Lowered([f"{out} = {expr}" if kind == "b" else f"{out} = np.{rdt.name}({expr})"],
                       [])
    if name in _LOGICAL or name in ("logical_not", "logical_xor"):
        t = [f"({x} != 0)" for x in a]
        expr = {"logical_not": f"not {t[0]}", "logical_xor": f"{t[0]} != {t[-1]}"}.get(
            name, f"{t[0]} {_LOGICAL.get(name, 'and')} {t[-1]}")
        return Lowered([f"{out} = {expr}"], [])
    if kind == "b" and name in ("add", "multiply", "maximum", "minimum"):
        expr = " or " if name in ("add", "maximum") else " and "  # NumPy's bool loops
        return Lowered([f"{out} = {expr.join(a)}"], [])
    if kind not in _ARITH_KINDS:
        return None
    if name in ("maximum", "minimum"):  # NaN propagates; equal values give the second
        op = ">" if name == "maximum" else "<"
        nan = f" or {a[0]} != {a[0]}" if kind == "f" else ""
        return Lowered([f"{out} = {a[0]} if ({a[0]} {op} {a[1]}{nan}) else {a[1]}"], [])
    if name in _ROUND:
        if kind != "f":
            return None
        return Lowered([f"{out} = {_ROUND[name]}({a[0]})"], [])
    if name == "sqrt":
        if kind != "f":
            return None
        return Lowered([f"{out} = np.sqrt({a[0]})"], _float_guards(out, a, name), True)
    if name == "divide":
        if kind != "f":
            return None
        return Lowered([f"{out} = {a[0]} / {a[1]}"], _float_guards(out, a, name), True)
    expr = {"add": f"{w[0]} + {w[-1]}", "subtract": f"{w[0]} - {w[-1]}",
            "multiply": f"{w[0]} * {w[-1]}", "square": f"{w[0]} * {w[0]}",
            "negative": f"-{w[0]}", "positive": f"{w[0]}",
            "absolute": f"abs({w[0]})", "floor_divide": f"{w[0]} // {w[-1]}",
            "remainder": f"{w[0]} % {w[-1]}"}.get(name)
    if expr is None:
        return None
    if kind == "f":
        if name in ("floor_divide", "remainder"):
            return None  # NumPy's divmod raises flags (underflow) its result does not show
        return Lowered([f"{out} = np.{rdt.name}({expr})"], _float_guards(out, a, name), True)
    raw = f"{out}_w"
    guards = [] if exact else _int_guards(name, a, raw, lt, scalar, spans)
    if name in ("floor_divide", "remainder") and guards:  # never divide by zero or MIN // -1 in numba
        ok = " or ".join(guards)
        expr = f"{expr} if not ({ok}) else np.{'int64' if wide else lt.name}(0)"
    return Lowered([f"{raw} = {expr}", f"{out} = np.{rdt.name}({raw})"], guards)


# The backend's tables are keyed by op name (as the ONNX exporter's are): a lookup, so the
# partition never tests which op a node is.
_CHEAP_BY_NAME = dict.fromkeys(CHEAP, True)
_CONTROL_BY_NAME = {"cond": "cond", "while_loop": "while"}


def is_cheap(op) -> bool:
    """An elementwise op the array regions lower (arithmetic, comparisons, casts...)."""
    return _CHEAP_BY_NAME.get(op.name, False)


def control_kind(op) -> str | None:
    """'cond' or 'while' for a control-flow op the scalar regions lower as native code."""
    return _CONTROL_BY_NAME.get(op.name) if op.subgraph_attrs else None


def fe_flags() -> tuple[int, int] | None:
    """(every exception flag, the flags NumPy reports) in this platform's <fenv.h>, or None
    where they are not known here (the float guards are then tested per element)."""
    machine = platform.machine().lower()
    if sys.platform.startswith(("linux", "darwin")):
        if machine in ("x86_64", "amd64", "i386", "i686"):
            return 0x3D, 0x1D   # invalid 1, divbyzero 4, overflow 8, underflow 16; inexact 32
        if machine in ("aarch64", "arm64"):
            return 0x1F, 0x0F   # invalid 1, divbyzero 2, overflow 4, underflow 8; inexact 16
    return None
