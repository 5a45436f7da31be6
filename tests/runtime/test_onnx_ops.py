"""The op harness (tests/runtime/test_ops*.py) in onnxruntime: every `check(fn, *args)` and
`check_spec(fn, specs, *arg_sets)` case of those tests whose eager NumPy call succeeds is
traced, exported to ONNX and run in onnxruntime against the graph executor
(tests/onnx_harness.py: value, dtype, shape); `check_spec` traces with unknown dims, so
those models run on several input sizes.

The harness tests are re-run with their own parameters and a `check` fixture of ours.
A case the exporter refuses must be refused with OnnxExportError naming the op; any
other exception or a value mismatch fails. Each module's tally (how many export, and
the refused ones grouped by op) is printed; run with -s to see it.
"""
from __future__ import annotations

import inspect
import itertools
import warnings

import numpy as np
import pytest

pytest.importorskip("onnx")
pytest.importorskip("onnxruntime")

import runtime  # noqa: E402
from tests.onnx_harness import Tally  # noqa: E402
from tests.runtime import test_ops, test_ops_indexing, test_ops_shapes, test_ops_ufuncs  # noqa: E402
from tests.runtime.conftest import make_array  # noqa: E402

MODULES = [test_ops, test_ops_ufuncs, test_ops_indexing, test_ops_shapes]


def _expand(fn):
    """Every parameter combination of a parametrized test function, as kwargs dicts."""
    axes = []
    for mark in getattr(fn, "pytestmark", []):
        if mark.name != "parametrize":
            continue
        names, values = mark.args[0], mark.args[1]
        names = [n.strip() for n in names.split(",")] if isinstance(names, str) else list(names)
        combos = []
        for v in values:
            v = v.values if hasattr(v, "values") and not isinstance(v, dict) else v
            combos.append(dict(zip(names, v if len(names) > 1 else (v,))))
        axes.append(combos)
    for parts in itertools.product(*axes):
        kw = {}
        for p in parts:
            kw.update(p)
        yield kw


def _cases(module):
    for name, fn in inspect.getmembers(module, inspect.isfunction):
        params = inspect.signature(fn).parameters if name.startswith("test_") else {}
        if "check" in params or "check_spec" in params:
            yield name, fn


class _Checker:
    def __init__(self, tally: Tally, label: str, failures: list):
        self.tally, self.label, self.failures = tally, label, failures

    def __call__(self, fn, *args, **_tolerances):
        with np.errstate(all="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                fn(*[a.copy() if isinstance(a, np.ndarray) else a for a in args])
            except Exception:
                return None  # NumPy raises: nothing to export (the harness checks the graph)
            cf = runtime.function(fn).get_concrete_function(*args)
            try:
                self.tally.run(self.label, cf, list(args))
            except Exception as e:  # a wrong value or a model ONNX Runtime rejects
                self.failures.append(f"{self.label}: {type(e).__name__}: {str(e)[:300]}")
        return cf

    def spec(self, fn, specs, *arg_sets, **_tolerances):
        """check_spec: one trace for TensorSpecs (unknown dims), run on every arg set."""
        with np.errstate(all="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            cf = runtime.function(fn).get_concrete_function(*specs)
            for args in arg_sets:
                try:
                    fn(*args)
                except Exception:
                    continue
                try:
                    self.tally.run(self.label, cf, list(args))
                except Exception as e:
                    self.failures.append(f"{self.label}: {type(e).__name__}: {str(e)[:300]}")
        return cf


@pytest.mark.parametrize("module", MODULES, ids=lambda m: m.__name__.rsplit(".", 1)[-1])
def test_op_harness_in_onnxruntime(module):
    tally, failures = Tally(), []
    for name, fn in _cases(module):
        for kw in _expand(fn):
            args = {k: v for k, v in kw.items() if k in inspect.signature(fn).parameters}
            check = _Checker(tally, f"{name}{sorted(args.items())!r}"[:120], failures)
            fixtures = {"check": check, "check_spec": check.spec, "arr": make_array}
            fn(**{k: fixtures[k] for k in inspect.signature(fn).parameters if k in fixtures},
               **args)
    print(f"\n{module.__name__}: {tally.summary()}")
    assert not failures, f"{len(failures)} cases differ in onnxruntime:\n" + "\n".join(failures)
    assert tally.exported > 0
