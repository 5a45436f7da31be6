"""Every gradient rule against central differences, eager tape and graph tape alike (float64).

Each case says which rules it covers; running it checks that the eager tape or the
graph really recorded those ops. `test_every_rule_has_a_case` enumerates the op records
whose `grad` comes from the gradient rule modules (runtime/autodiff/*rules.py), so a new
rule without a case here (ufuncs, reductions) or in `test_gradient_rules_arrays.py`
(shapes, indexing, selection, linear algebra) fails.
"""
from __future__ import annotations

import numpy as np
import pytest

import autograph as ag
import runtime
from runtime.saved.optable import op_table
from tests.runtime.gradcheck import assert_grads, numeric_grads, three_way


def A(*shape, lo=-2.0, hi=2.0, seed=0):
    """Deterministic float64 sample of `shape`, uniform in [lo, hi)."""
    rng = np.random.default_rng(seed + 7919 * len(shape) + sum(shape))
    return rng.uniform(lo, hi, shape)


def away_from_integers(*shape, seed=0):
    return np.floor(A(*shape, lo=-3, hi=3, seed=seed)) + A(*shape, lo=0.2, hi=0.8, seed=seed + 1)


CASES: list = []   # (id, covers, fn, args, options)
K = np.array([[1, -2, 3], [0, 4, 5]])  # integer sample


def case(id_, covers, fn, *args, **options):
    CASES.append((id_, tuple(covers), fn, args, options))


def key_name(k):
    return getattr(k, "__name__", k)


# -- binary ufuncs: same shapes, broadcasting both ways, 0-d ------------------------------
DOMAINS = {"any": (-2.0, 2.0), "pos": (0.3, 2.0), "unit": (-0.9, 0.9), "gt1": (1.2, 3.0)}
BINARY = {
    np.add: ("any", "any"), np.subtract: ("any", "any"), np.multiply: ("any", "any"),
    np.divide: ("any", "pos"), np.power: ("pos", "any"), np.maximum: ("any", "any"),
    np.minimum: ("any", "any"), np.arctan2: ("any", "pos"), np.logaddexp: ("any", "any"),
    np.fmax: ("any", "any"), np.fmin: ("any", "any"), np.hypot: ("any", "any"),
    np.logaddexp2: ("any", "any"), np.remainder: ("any", "pos"), np.fmod: ("any", "pos"),
    np.copysign: ("any", "any"), np.float_power: ("pos", "any"),
    np.floor_divide: ("any", "pos"),
}
SHAPE_PAIRS = [((2, 3), (2, 3)), ((2, 3), (3,)), ((3, 1), (1, 4)), ((), (2, 3)), ((4,), ())]
for _u, (_da, _db) in BINARY.items():
    for _n, (_sa, _sb) in enumerate(SHAPE_PAIRS):
        case(f"{_u.__name__}-{_sa}-{_sb}", [_u], _u,
             A(*_sa, lo=DOMAINS[_da][0], hi=DOMAINS[_da][1], seed=_n),
             A(*_sb, lo=DOMAINS[_db][0], hi=DOMAINS[_db][1], seed=_n + 50))

case("operators", [np.add, np.subtract, np.multiply, np.divide, np.power, np.negative,
                   np.positive, np.matmul],
     lambda a, b: (-a + 2.0) * (+b) - a / (b * b + 1.0) + np.sum((a ** 2) @ b.T) + 2.0 ** a - a ** 3.0,
     A(2, 3), A(2, 3, seed=1))
case("power-int-exponent", [np.power], lambda x: x ** 3 + np.power(x, 2), A(3, 2))
case("power-zero-base", [np.power], lambda x, p: np.power(x, p),
     np.array([0.0, 1.5, 2.0]), np.array([2.0, 2.5, 3.0]))

# -- unary ufuncs on (), (3,), (2, 3) -----------------------------------------------------
UNARY = {
    np.exp: "any", np.expm1: "any", np.log: "pos", np.log1p: "pos", np.log2: "pos",
    np.log10: "pos", np.sqrt: "pos", np.cbrt: "pos", np.square: "any", np.reciprocal: "pos",
    np.absolute: "any", np.sin: "any", np.cos: "any", np.tan: "unit", np.tanh: "any",
    np.sinh: "any", np.cosh: "any", np.arctan: "any", np.arcsin: "unit", np.arccos: "unit",
    np.arctanh: "unit", np.arcsinh: "any", np.exp2: "any", np.negative: "any",
    np.positive: "any", np.arccosh: "gt1", np.deg2rad: "any", np.radians: "any",
    np.rad2deg: "any", np.degrees: "any", np.conjugate: "any", np.fabs: "any",
}
for _u, _d in UNARY.items():
    for _n, _s in enumerate([(), (3,), (2, 3)]):
        case(f"{_u.__name__}-{_s}", [_u], _u, A(*_s, lo=DOMAINS[_d][0], hi=DOMAINS[_d][1], seed=_n))
case("heaviside", [np.heaviside], np.heaviside, np.array([-1.0, 0.0, 2.0, 0.0]),
     np.array([0.3, 0.5, 0.7, 0.9]), expected=[np.zeros(4), np.array([0.0, 1.0, 0.0, 1.0])])
case("ldexp", [np.ldexp], lambda x, e: np.ldexp(x, e), A(2, 3), K)
case("cbrt-negative", [np.cbrt], np.cbrt, np.array([-2.0, -0.5, 1.5]))
case("absolute-negative", [np.absolute], lambda x: np.abs(x) * x, np.array([-2.0, -0.5, 1.5]))

# piecewise constant ufuncs: zero gradient (checked away from the jumps)
for _u in (np.sign, np.floor, np.ceil, np.rint, np.trunc):
    case(f"{_u.__name__}", [_u, np.multiply], lambda x, u=_u: u(x) * x, away_from_integers(2, 3))
    case(f"{_u.__name__}-0d", [_u], _u, np.float64(1.3))

# -- ties of maximum / minimum: the gradient is split evenly ----------------------------
_a = np.array([1.0, 2.0, 3.0, -1.0])
_b = np.array([1.0, 0.0, 3.0, 2.0])
case("maximum-ties", [np.maximum], np.maximum, _a, _b,
     expected=[np.array([0.5, 1.0, 0.5, 0.0]), np.array([0.5, 0.0, 0.5, 1.0])])
case("minimum-ties", [np.minimum], np.minimum, _a, _b,
     expected=[np.array([0.5, 0.0, 0.5, 1.0]), np.array([0.5, 1.0, 0.5, 0.0])])
case("fmin-ties", [np.fmin], np.fmin, _a, _b,
     expected=[np.array([0.5, 0.0, 0.5, 1.0]), np.array([0.5, 1.0, 0.5, 0.0])])
case("maximum-same-input", [np.maximum], lambda x: np.maximum(x, x), A(3),
     expected=[np.ones(3)])
case("relu-at-zero", [np.maximum], lambda x: np.maximum(x, 0.0), np.array([-1.0, 0.0, 2.0]),
     expected=[np.array([0.0, 0.5, 1.0])])
case("max-three-way-tie", ["max"], np.max, np.array([3.0, 1.0, 3.0, 3.0]),
     expected=[np.array([1 / 3, 0.0, 1 / 3, 1 / 3])])
case("max-axis-ties", ["max"], lambda x: np.max(x, axis=1),
     np.array([[2.0, 2.0, 1.0], [0.0, 5.0, 4.0]]),
     expected=[np.array([[0.5, 0.5, 0.0], [0.0, 1.0, 0.0]])])
case("min-keepdims-ties", ["min"], lambda x: np.min(x, axis=0, keepdims=True) * np.arange(1.0, 4.0),
     np.array([[1.0, 0.0, 4.0], [1.0, 3.0, 4.0]]),
     expected=[np.array([[0.5, 2.0, 1.5], [0.5, 0.0, 1.5]])])
case("amax-amin-ties", ["amax", "amin"], lambda x: np.amax(x) - np.amin(x),
     np.array([[4.0, 0.0], [4.0, 0.0]]), expected=[np.array([[0.5, -0.5], [0.5, -0.5]])])

# -- reductions: axis, negative axis, tuple axes, keepdims, ddof --------------------------
X3 = A(2, 3, 4, seed=3)
for _name, _fn in (("sum", np.sum), ("nansum", np.nansum), ("mean", np.mean), ("max", np.max),
                   ("min", np.min), ("amax", np.amax), ("amin", np.amin), ("std", np.std),
                   ("var", np.var), ("nanmax", np.nanmax), ("nanmin", np.nanmin),
                   ("nanmean", np.nanmean)):
    for _kw in ({}, {"axis": 0}, {"axis": -1}, {"axis": (0, 2)}, {"axis": 1, "keepdims": True},
                {"axis": None, "keepdims": True}):
        case(f"{_name}-{_kw}", [_name], lambda x, f=_fn, kw=_kw: f(x, **kw) * 1.5, X3)
for _name, _fn in (("std", np.std), ("var", np.var)):
    case(f"{_name}-ddof", [_name], lambda x, f=_fn: f(x, axis=1, ddof=1), A(3, 4))
    case(f"{_name}-ddof-keepdims", [_name], lambda x, f=_fn: f(x, ddof=1, keepdims=True), A(5))
case("method-reductions", ["sum", "mean", "max", "min", "std", "var"],
     lambda x: x.sum(axis=0) + x.mean(1).sum() + x.max() - x.min(0) + x.std() + x.var(axis=0),
     A(3, 4))
case("sum-of-0d", ["sum"], np.sum, np.float64(1.5))
XNAN = np.array([[1.0, np.nan, -2.0], [0.5, 3.0, np.nan]])
for _name, _fn in (("nansum", np.nansum), ("nanmean", np.nanmean), ("nanmax", np.nanmax),
                   ("nanmin", np.nanmin)):
    case(f"{_name}-with-nan", [_name], lambda x, f=_fn: f(x, axis=1) * np.array([1.0, 2.0]), XNAN)

# -- integer and boolean inputs: no gradient, and not propagated --------------------------
case("int-multiplier", [np.multiply], lambda x, k: x * k, A(2, 3), K)
case("int-exponent", [np.power], lambda x, k: x ** k, A(2, 3, lo=0.5), np.abs(K))
case("int-to-float", ["astype", np.add],
     lambda x, k: x + k.astype(np.float64) * 2.0, A(2, 3), K)
case("float-to-int-cuts", ["astype", np.multiply],
     lambda x: x.astype(np.int64) * x, away_from_integers(4))
case("bool-mask", ["where"], lambda x, m: np.where(m, x * x, 1.0), A(2, 3), K > 0)
case("int-index", ["getitem"], lambda x, i: x[i] * 2.0, A(5), np.array([0, 3, 3]))


# -- ops that have no gradient of their own, next to ones that do --------------------------
case("zero-gradient-ops",
     ["zeros_like", "ones_like", "full_like", "argmax", "argmin", "argsort", "any", "all",
      "count_nonzero"],
     lambda x: (np.zeros_like(x) + np.ones_like(x) * x + np.full_like(x, 2.0) * x
                + x[np.argmax(x)] - x[np.argmin(x)] + x[np.argsort(x)] * np.arange(4.0)
                + np.any(x) * x + np.all(x) * x + np.count_nonzero(x) * x),
     np.array([0.5, -1.0, 2.0, 1.5]))
case("full-like-fill-value", ["full_like"], lambda x, v: np.full_like(x, v) * x, A(2, 3), A(3, seed=1))
case("empty-like", ["empty_like", "where"],
     lambda x: np.where(np.ones(x.shape, bool), x * 3.0, np.empty_like(x)), A(3))


# -- unknown dimensions: the same rules on a trace for TensorSpec(None, ...) ---------------
case("relaxed-mean", ["mean"], lambda x: np.mean(x, axis=0) * np.mean(x), A(4, 3), relaxed=True)
case("relaxed-std-var", ["std", "var"], lambda x: np.std(x, axis=1) + np.var(x), A(2, 3),
     relaxed=True)
case("relaxed-broadcast", [np.multiply, np.add, "sum"],
     lambda x, y: x * y + np.sum(x, axis=1, keepdims=True), A(2, 3), A(3, seed=1), relaxed=True)
case("relaxed-reshape", ["reshape", "ravel", "cumsum"],
     lambda x: np.reshape(x, (-1,)) * np.cumsum(np.ravel(x)), A(2, 3), relaxed=True)
case("relaxed-shape-of", ["shape_of"], lambda x: np.sum(x * x) / runtime.shape_of(x)[0],
     A(3, 2), relaxed=True)
case("relaxed-max-min", ["max", "min"], lambda x: np.max(x, axis=0) - np.min(x), A(5, 3),
     relaxed=True)
case("relaxed-matmul", [np.matmul], lambda a, b: a @ b, A(2, 3), A(3, 4, seed=1), relaxed=True)


@pytest.mark.parametrize("id_, covers, fn, args, options", CASES, ids=[c[0] for c in CASES])
def test_rule(id_, covers, fn, args, options):
    ops = three_way(fn, *args, **options)
    check_covers(ops, covers)


def check_covers(ops, covers):
    """The ops a case claims to cover were recorded (eager tape) or traced (graph)."""
    missing = [key_name(c) for c in covers if c not in ops]
    assert not missing, f"the case does not use {missing}"


def test_every_rule_has_a_case():
    from tests.runtime.test_gradient_cov_gaps import CASES as COV_GAPS_CASES
    from tests.runtime.test_gradient_linalg_fft import CASES as LINALG_FFT_CASES
    from tests.runtime.test_gradient_more import CASES as MORE_CASES
    from tests.runtime.test_gradient_rules_arrays import CASES as ARRAY_CASES

    covered = {k for cases in (CASES, ARRAY_CASES, MORE_CASES, LINALG_FFT_CASES, COV_GAPS_CASES)
               for c in cases for k in c[1]}
    missing = [key_name(k) for k in _rule_module_keys() if k not in covered]
    assert not missing, f"gradient rules without a finite-difference case: {missing}"


def _rule_module_keys() -> list:
    """Ops whose gradient rule a rule module attached: a ufunc op by its ufunc (cases
    name `np.add`), any other op by its name."""
    import runtime.autodiff  # noqa: F401 - the rule modules attach their rules

    return [op.kernel if isinstance(op.kernel, np.ufunc) else name
            for name, op in op_table().items()
            if op.grad is not None and op.grad.__module__.startswith("runtime.autodiff.")
            and op.grad.__module__.endswith("rules")]


def test_one_trace_serves_every_shape():
    def step(x):
        with ag.GradientTape() as tape:
            tape.watch(x)
            y = np.mean(x, axis=0) * np.std(x)
        return tape.gradient(y, x)

    f = ag.function(step, autograph=False, input_signature=[ag.TensorSpec((None, 3), np.float64)])
    for rows in (2, 5):
        x = A(rows, 3, seed=rows)
        assert_grads([f(x)], numeric_grads(lambda x: np.mean(x, axis=0) * np.std(x), [x]),
                     f"rows={rows}")
    assert f.tracing_count == 1


# -- no rule: a clear NotImplementedError, never a silent zero --------------------------------
NO_RULE = [
    ("nextafter", lambda x: np.nextafter(x, 5.0) * x),                      # ufunc without a rule
    ("modf", lambda x: np.modf(x)[0] * 2.0),                               # two outputs
    ("spacing", lambda x: np.spacing(x) + x),
    ("pad", lambda x: np.pad(x, 1, mode="reflect")),                       # rule, unsupported mode
    ("diff-prepend", lambda x: np.diff(x, prepend=0.0)),                   # rule, unsupported option
]


@pytest.mark.parametrize("name", [n for n, _ in NO_RULE])
def test_missing_rule_raises(name):
    fn = dict(NO_RULE)[name]
    x = A(3, lo=0.5)
    with pytest.raises(NotImplementedError, match="gradient"):
        with ag.GradientTape() as tape:
            xw = tape.watch(x)
            y = fn(xw)
        tape.gradient(y, xw)

    def step(x):
        with ag.GradientTape() as tape:
            tape.watch(x)
            y = fn(x)
        return tape.gradient(y, x)

    with pytest.raises(NotImplementedError, match="gradient"):
        ag.function(step, autograph=False)(x)


def test_op_without_rule_off_the_path_is_fine():
    def step(x):
        with ag.GradientTape() as tape:
            tape.watch(x)
            unused = np.nextafter(x, 5.0)   # no rule, but the target does not use it
            y = np.sum(x * x) + np.sum(np.floor(unused)) * 0.0
        return tape.gradient(y, x)

    x = A(3)
    with pytest.raises(NotImplementedError):   # on the path through floor: a clear error
        ag.function(step, autograph=False)(x)

    def step2(x):
        with ag.GradientTape() as tape:
            tape.watch(x)
            np.nextafter(x, 5.0)
            y = np.sum(x * x)
        return tape.gradient(y, x)

    np.testing.assert_allclose(ag.function(step2, autograph=False)(x), 2 * x)
