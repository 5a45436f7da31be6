"""ONNX never differs silently on edge inputs: empty arrays (static and unknown sizes),
NaN/inf, integer overflow and negative integer exponents, for every reduction and the
arithmetic ufuncs. Each case is exported and run in onnxruntime against eager NumPy
(tests/onnx_harness.py: value, dtype, shape), or refused at export with OnnxExportError
naming the op; where NumPy raises, the export must be refused."""
from __future__ import annotations

import warnings

import numpy as np
import pytest

pytest.importorskip("onnx")
pytest.importorskip("onnxruntime")

import autograph as ag  # noqa: E402
from tests.onnx_harness import check_export, compare  # noqa: E402

REDUCTIONS = {
    "sum": np.sum, "nansum": np.nansum, "prod": np.prod, "mean": np.mean,
    "nanmean": np.nanmean, "max": np.max, "min": np.min, "nanmax": np.nanmax,
    "nanmin": np.nanmin, "std": np.std, "var": np.var, "argmax": np.argmax,
    "argmin": np.argmin, "any": np.any, "all": np.all,
}
F = np.float64
I64 = np.int64
BIG = 2**62
INPUTS = {
    "empty": np.zeros(0, F),
    "empty rows": np.zeros((0, 3), F),
    "empty columns": np.zeros((3, 0), F),
    "nan and inf": np.array([1.0, np.nan, -np.inf, np.inf], F),
    "all nan": np.full((2, 2), np.nan, F),
    "int overflow": np.array([BIG, BIG, BIG, -5], I64),
    "int32 overflow": np.array([2**30, 2**30, 2**30], np.int32),
    "empty ints": np.zeros((0, 2), I64),
}


def _exports_or_refuses(fn, args, specs=None):
    """Eager NumPy raises -> the export is refused naming the op; else the export runs in
    onnxruntime equal to NumPy, or is refused naming the op. Returns the outcome."""
    from runtime.onnx_export import OnnxExportError

    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            expected = fn(*[np.copy(a) for a in args])
            numpy_raises = False
        except Exception:  # noqa: BLE001 - NumPy's own refusal (empty max, negative power)
            numpy_raises = True
        f = ag.function(fn)
        try:
            cf = f.get_concrete_function(*(specs or args))
        except Exception:  # noqa: BLE001 - the trace itself raises, as NumPy does
            assert numpy_raises, "the trace raises where NumPy does not"
            return "raises at trace"
        try:
            model = cf.to_onnx()
        except ag.OnnxExportError as e:
            assert "Cannot export op '" in str(e), str(e)
            return "refused"
        assert not numpy_raises, "NumPy raises but the export succeeded"
        del model
        try:
            check_export(cf, list(args))
        except OnnxExportError:
            return "refused"
        from runtime.onnx_export import to_onnx
        from tests.onnx_harness import _session

        model = to_onnx(cf)
        feed = {i.name: np.asarray(a) for i, a in zip(model.graph.input, args)}
        compare(_session(model).run(None, feed)[0], expected, "onnxruntime vs NumPy")
        return "exported"


def _cases():
    for name, reduction in REDUCTIONS.items():
        for label, x in INPUTS.items():
            for axis in (None, 0, -1):
                if axis is not None and x.ndim < 2 and axis == -1:
                    continue
                yield f"{name}-{label}-axis{axis}", reduction, x, axis


CASES = list(_cases())


@pytest.mark.parametrize("name,reduction,x,axis", CASES, ids=[c[0] for c in CASES])
def test_reductions_on_edge_inputs(name, reduction, x, axis):
    fn = (lambda v: reduction(v)) if axis is None else (lambda v: reduction(v, axis=axis))
    _exports_or_refuses(fn, [x])
    # the same with every dimension unknown at export
    spec = ag.TensorSpec((None,) * x.ndim, x.dtype)
    _exports_or_refuses(fn, [x], specs=[spec])


BINARY = {"add": lambda a, b: a + b, "subtract": lambda a, b: a - b,
          "multiply": lambda a, b: a * b, "power": lambda a, b: a ** b,
          "negative": lambda a, b: np.negative(a) + b}
BINARY_INPUTS = {
    "int overflow": (np.array([BIG, -BIG, 3], I64), np.array([BIG, -BIG, 4], I64)),
    "negative exponent": (np.array([2, 3, 4], I64), np.array([1, -1, 2], I64)),
    "non-negative exponent": (np.array([2, 3, 4], I64), np.array([0, 1, 2], I64)),
    "empty": (np.zeros(0, F), np.zeros(0, F)),
    "nan and inf": (np.array([np.nan, np.inf, -np.inf], F), np.array([0.0, -np.inf, 2.0], F)),
}


@pytest.mark.parametrize("op", sorted(BINARY))
@pytest.mark.parametrize("inputs", sorted(BINARY_INPUTS))
def test_arithmetic_on_edge_inputs(op, inputs):
    _exports_or_refuses(BINARY[op], list(BINARY_INPUTS[inputs]))


@pytest.mark.parametrize("exponent", [-1, 2])
def test_integer_power_by_a_constant(exponent):
    outcome = _exports_or_refuses(lambda x: x ** exponent, [np.array([2, 3], I64)])
    assert outcome == ("exported" if exponent >= 0 else
                       outcome if outcome == "raises at trace" else "refused")


def test_the_issue_cases_now_match_or_are_refused():
    empty = np.zeros(0, np.float32)
    assert _exports_or_refuses(lambda v: np.mean(v), [empty]) == "exported"
    assert _exports_or_refuses(lambda v: np.mean(v, axis=0), [np.zeros((0, 3))]) == "exported"
    assert _exports_or_refuses(lambda v: np.sum(v), [np.array([BIG] * 3, I64)]) == "exported"
    assert _exports_or_refuses(lambda v: np.max(v), [empty],
                               [ag.TensorSpec((None,), np.float32)]) \
        == "refused"
