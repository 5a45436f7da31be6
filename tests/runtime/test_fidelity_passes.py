"""Optimizer fidelity on special values: every rewrite keeps NumPy's bits and errors.

For each rewrite rule of the passes (simplify, fold, CSE, matmul chains, materialize,
inline_cond, hoist) graphs are built over signed zeros, NaN, infinities, integer extremes
and booleans, for every dtype, and run three ways: eager NumPy, the unoptimized graph and
the optimized graph. Results must be bitwise equal (NaN payloads aside), and under
`np.errstate(all="raise")` the three must raise the same exception or none.
"""
import warnings

import numpy as np
import pytest

import autograph as ag
import runtime
from runtime import cond, while_loop
from runtime.passes.hoist import cannot_raise_or_warn

DTYPES = [np.bool_, np.int8, np.uint8, np.int64, np.uint64, np.float16, np.float32,
          np.float64, np.complex64, np.complex128]


def specials(dtype) -> np.ndarray:
    dtype = np.dtype(dtype)
    if dtype.kind == "b":
        values = [False, True]
    elif dtype.kind in "iu":
        info = np.iinfo(dtype)
        values = [info.min, info.max, 0, 1, info.max - 1, info.min + (dtype.kind == "i")]
    elif dtype.kind == "f":
        info = np.finfo(dtype)
        values = [-0.0, 0.0, np.nan, np.inf, -np.inf, info.max, -info.max, info.tiny, 1.0, -1.0]
    else:
        real = specials(np.float32 if dtype == np.complex64 else np.float64)
        values = [complex(a, b) for a in real for b in real[:6]]
    return np.array(values, dtype)


def _parts(x):
    a = np.asarray(x)
    if a.dtype.kind == "c":
        return [a.real, a.imag]
    return [a]


def assert_bits(actual, expected, what):
    """Same type, dtype, shape and bits (every NaN equals every NaN)."""
    assert type(actual) is type(expected), f"{what}: {type(actual)} vs {type(expected)}"
    a, e = np.asarray(actual), np.asarray(expected)
    assert a.dtype == e.dtype and a.shape == e.shape, f"{what}: {a.dtype}{a.shape} vs {e.dtype}{e.shape}"
    for pa, pe in zip(_parts(a), _parts(e)):
        if pa.dtype.kind == "f":
            nan = np.isnan(pe)
            assert np.array_equal(np.isnan(pa), nan), f"{what}: NaN at {pa} vs {pe}"
            ints = np.dtype(f"u{pa.dtype.itemsize}")
            assert np.array_equal(pa[~nan].view(ints), pe[~nan].view(ints)), \
                f"{what}: bits differ: {pa!r} vs {pe!r} (signs {np.copysign(1, pa)} vs {np.copysign(1, pe)})"
        else:
            assert np.array_equal(pa, pe), f"{what}: {pa!r} vs {pe!r}"


def _outcome(fn, args):
    """(result, None) or (None, exception type), under errstate raise."""
    try:
        with np.errstate(all="raise"), warnings.catch_warnings():
            warnings.simplefilter("error")
            return fn(*args), None
    except Exception as error:  # noqa: BLE001 - the type is what is compared
        return None, type(error)


def three_ways(fn, *args, what=""):
    """Eager, unoptimized graph, optimized graph: same bits and same error or none."""
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            expected = fn(*args)
        except Exception as error:  # noqa: BLE001
            expected = error
    graphs = {"unoptimized": ag.function(fn, autograph=False, optimize=False),
              "optimized": ag.function(fn, autograph=False)}
    if isinstance(expected, Exception):
        for g in graphs.values():
            with pytest.raises(type(expected)), np.errstate(all="ignore"):
                g(*args)
        return None
    _, eager_error = _outcome(fn, args)
    for name, g in graphs.items():
        with np.errstate(all="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            got = g(*args)
        assert_bits(got, expected, f"{what} [{name}]")
        _, error = _outcome(g, args)
        assert error == eager_error, f"{what} [{name}]: raises {error}, eager {eager_error}"
    return graphs["optimized"]


def constants(dtype, value):
    """Ways one constant `value` can reach an op: weak Python scalars, NumPy scalars, 0-d."""
    dtype = np.dtype(dtype)
    out = [value, float(value), bool(value), np.array(value, dtype)[()], np.array(value, dtype)]
    if value == 0:
        out += [-0.0, np.float16(-0.0)]
        if dtype.kind in "fc":
            out += [np.array(-0.0, dtype)[()], np.array(-0.0, dtype)]
    return out


def _inputs(dtype):
    x = specials(dtype)
    return [x, x[0], x[-1]]  # arrays and NumPy scalars (scalar arithmetic differs)


def const(value):
    """A graph constant while tracing (so the passes see it), the 0-d array eagerly."""
    return runtime.constant(value) if runtime.core.tracing.in_graph_mode() else np.asarray(value)


def _wrap(expr):
    return np.expand_dims(expr, 0)  # keeps the rewritten value from being a graph result


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
def test_identity_rewrites_keep_bits_on_special_values(dtype):
    for x in _inputs(dtype):
        for one in constants(dtype, 1):
            three_ways(lambda x: _wrap(x * one), x, what=f"x * {one!r}, x={x!r}")
            three_ways(lambda x: _wrap(one * x), x, what=f"{one!r} * x, x={x!r}")
            three_ways(lambda x: _wrap(x / one), x, what=f"x / {one!r}, x={x!r}")
        for zero in constants(dtype, 0):
            three_ways(lambda x: _wrap(x - zero), x, what=f"x - {zero!r}, x={x!r}")
            three_ways(lambda x: _wrap(x + zero), x, what=f"x + {zero!r}, x={x!r}")
            three_ways(lambda x: _wrap(zero + x), x, what=f"{zero!r} + x, x={x!r}")
        three_ways(lambda x: _wrap(x - x), x, what=f"x - x, x={x!r}")
        three_ways(lambda x: _wrap(x.astype(x.dtype)), x, what=f"astype, x={x!r}")
        three_ways(lambda x: _wrap(np.reshape(x, np.shape(x))), x, what=f"reshape, x={x!r}")
        three_ways(lambda x: _wrap(np.transpose(x)), x, what=f"transpose, x={x!r}")


def test_minus_negative_zero_is_not_dropped():
    x = np.array([-0.0, 0.0, 1.0])
    f = three_ways(lambda x: _wrap(x - (-0.0)), x, what="x - (-0.0)")
    assert np.copysign(1.0, f(x)[0, 0]) == 1.0  # -0.0 - (-0.0) is +0.0


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
def test_matrix_rewrites_keep_bits_on_special_values(dtype):
    x = specials(dtype)
    m = np.resize(x, (3, 3))
    eye = np.eye(3, dtype=dtype)
    three_ways(lambda m: _wrap(m @ eye), m, what="m @ I")
    three_ways(lambda m: _wrap(eye @ m), m, what="I @ m")
    three_ways(lambda m: _wrap(np.transpose(np.transpose(m))), m, what="transpose twice")
    three_ways(lambda m, v: _wrap(m @ (m @ (m @ (m @ (m @ v))))), m, x[:3], what="chain of 5")
    three_ways(lambda m: _wrap(m @ m @ m @ m @ m), m, what="power chain")


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
def test_materialized_and_merged_constants_keep_bits(dtype):
    x = specials(dtype)
    for c in [v for v in specials(dtype)[:6]] + [-0.0, 0.0, 1, True]:
        # CSE must not merge x*c with x*(-c); materialize casts c to the loop's dtype
        with np.errstate(all="ignore"):
            neg = c if np.dtype(dtype).kind == "b" else -c
        three_ways(lambda x: _wrap(x * c) + _wrap(x * neg), x, what=f"x * {c!r} and x * {neg!r}")
        three_ways(lambda x: _wrap(np.maximum(x, c)), x, what=f"maximum(x, {c!r})")
        three_ways(lambda x: _wrap(x == c), x, what=f"x == {c!r}")


@pytest.mark.parametrize("dtype", [np.int8, np.uint64, np.float16, np.float64, np.complex64])
def test_folding_keeps_errors_and_warnings_of_special_constants(dtype):
    for a in specials(dtype)[:6]:
        for b in specials(dtype)[:6]:
            def fn(x):
                ca, cb = const(a), const(b)
                return _wrap(x + ca * cb - ca / cb)
            three_ways(fn, specials(dtype), what=f"fold {a!r}, {b!r}")


def test_folding_leaves_warning_op_to_each_call():
    def fn(x):
        return x + np.float64(1.0) / const(np.float64(0.0))
    f = ag.function(fn, autograph=False)
    x = np.ones(2)
    with np.errstate(divide="raise"), pytest.raises(FloatingPointError):
        f(x)  # the trace happens here: errstate of the call, not of the trace
    with np.errstate(divide="raise"), pytest.raises(FloatingPointError):
        f(x)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        f(x)
    assert [w.category for w in caught] == [RuntimeWarning]
    with np.errstate(divide="ignore"):
        np.testing.assert_array_equal(f(x), np.full(2, np.inf))


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
def test_inlined_cond_keeps_bits(dtype):
    x = specials(dtype)

    one = np.array(1, dtype)[()]

    def fn(x):
        return _wrap(cond(const(True), lambda: x * one, lambda: x))
    three_ways(fn, x, what="inlined cond")


# --- hoisting: speculation must be invisible ---------------------------------------

def _loop(body_op):
    def fn(x, n):
        def body(i, s):
            return i + 1, s + body_op(x)
        return while_loop(lambda i, s: i < n, body, (np.int64(0), np.zeros_like(body_op(x))))
    return fn


def test_zero_trip_loop_does_not_run_invariant_division():
    fn = _loop(lambda x: 1 / x)
    f = ag.function(fn, autograph=False)
    x = np.array([0.0, 2.0])
    with np.errstate(divide="raise"):
        i, s = f(x, np.int64(0))  # eager: the body never runs, nothing raises
        np.testing.assert_array_equal(s, np.zeros(2))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        f(x, np.int64(0))
    with np.errstate(divide="raise"), pytest.raises(FloatingPointError):
        f(x, np.int64(2))


def test_zero_trip_loop_does_not_warn_from_invariants():
    for op in (np.exp, np.log, lambda x: x * x, lambda x: x.astype(np.int8) // 0,
               lambda x: -x.astype(np.int8)[0], lambda x: np.int8(100) + x.astype(np.int8)[0]):
        f = ag.function(_loop(op), autograph=False)
        x = np.array([1000.0, 0.0])
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            with np.errstate(all="raise"):
                f(x, np.int64(0))


def test_effects_before_a_failing_invariant_run_first():
    v = ag.Variable(np.int64(0))

    def fn(x, n):
        def body(i, s):
            v.assign_add(1)
            return i + 1, s + 1 / x
        return while_loop(lambda i, s: i < n, body, (np.int64(0), np.zeros_like(x)))
    f = ag.function(fn, autograph=False)
    with np.errstate(divide="raise"), pytest.raises(FloatingPointError):
        f(np.zeros(2), np.int64(3))
    assert v.numpy() == 1  # eager: the first iteration's assign happened, then 1/0 raised


def test_safe_invariants_are_still_hoisted():
    def op(x):
        return np.maximum(x, 0.5) > np.float64(1.0)
    fn = _loop(lambda x: op(x).astype(np.int64) * 3)
    f = ag.function(fn, autograph=False)
    cf = f.get_concrete_function(np.ones(3), np.int64(2))
    loop = next(n for n in cf.optimized_graph.nodes if n.op.name == "while_loop")
    body_ops = [n.op.name for n in loop.attrs["body"].walk()]
    assert "maximum" not in body_ops and "greater" not in body_ops
    for n in (0, 1, 4):
        x = np.array([0.0, 2.0, np.nan])
        assert_bits(f(x, np.int64(n))[1], fn(x, np.int64(n))[1], f"n={n}")


def _traced(ufunc_name, dtype, ndim):
    """(Function, its node) for `ufunc(a[, b])` on values of `dtype` with `ndim` dims."""
    ufunc = getattr(np, ufunc_name)
    spec = ag.TensorSpec((2,) * ndim, dtype)
    f = ag.function(lambda *xs: ufunc(*xs), autograph=False, optimize=False)
    try:
        cf = f.get_concrete_function(*[spec] * ufunc.nin)
    except TypeError:
        return None, None
    return f, next(n for n in cf.graph.nodes if n.op.kernel is ufunc)


@pytest.mark.parametrize("name", sorted(
    ["equal", "not_equal", "less", "less_equal", "greater", "greater_equal", "isnan", "isinf",
     "isfinite", "signbit", "logical_and", "logical_or", "logical_xor", "logical_not",
     "negative", "positive", "conjugate", "absolute", "fabs", "copysign", "maximum",
     "minimum", "fmax", "fmin", "add", "subtract", "multiply", "bitwise_and", "bitwise_or",
     "bitwise_xor", "invert", "left_shift", "right_shift", "floor", "ceil", "trunc", "rint",
     "sign", "square", "exp", "true_divide", "floor_divide", "remainder", "power"]))
def test_hoistable_ops_never_raise_or_warn(name):
    """What the hoisting pass calls safe never raises or warns on any special value, as
    arrays and as 0-d values (the executor's NumPy scalar arithmetic), run by the
    generated code under `errstate(all="raise")` with warnings as errors."""
    ufunc = getattr(np, name)
    checked = 0
    for dtype in DTYPES:
        for ndim in (0, 1):
            f, node = _traced(name, dtype, ndim)
            if node is None or not cannot_raise_or_warn(node):
                continue
            values = specials(dtype)
            pairs = [p.ravel() for p in np.broadcast_arrays(values[:, None], values[None, :])]
            args = [values] if ufunc.nin == 1 else pairs
            calls = [[a.reshape(-1, 2) for a in args]] if ndim else list(zip(*args))
            with np.errstate(all="raise"), warnings.catch_warnings():
                warnings.simplefilter("error")
                for call in calls:
                    if ndim:
                        for row in zip(*call):
                            f(*row)
                    else:
                        f(*call)
            checked += 1
    unsafe = {"sign", "square", "exp", "true_divide", "floor_divide", "remainder", "power"}
    assert (checked == 0) == (name in unsafe), f"{name}: checked {checked} dtype forms"
