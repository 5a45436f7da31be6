"""Round trips through a fresh process: save functions here, load and call them in a new
Python process that never imports the modules that defined them, compare.

`roundtrip(entries, tmp_path)`: entries are (label, Function, [argument tuples]); each
Function must be traced already (for the argument tuples' signatures). Here: save it,
then call the original on each argument tuple (results, or the exception's type), and
note its Variables' values after the calls. There: `ag.load` each file, call it the same
way, report the same. Returns the child's report, after checking it imported no test
module.
"""
from __future__ import annotations

import os
import pickle
import subprocess
import sys

import numpy as np

import autograph as ag
from tests.helpers import assert_same

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

# the harness's own data (arguments and results) travels by pickle; the saved functions
# themselves are only ever read by ag.load
CHILD = r"""
import pickle, sys
import autograph as ag
with open("inputs.pkl", "rb") as f:
    todo = pickle.load(f)
report = {}
for label, path, arg_sets in todo:
    fn = ag.load(path)
    before = [v.numpy() for v in fn.variables]
    results = []
    for args in arg_sets:
        try:
            results.append(("ok", fn(*args)))
        except Exception as e:
            results.append(("error", type(e).__name__))
    report[label] = (results, before, [v.numpy() for v in fn.variables])
report["__modules__"] = sorted(m for m in sys.modules if m == "tests" or m.startswith("tests."))
with open("outputs.pkl", "wb") as f:
    pickle.dump(report, f)
"""


def _call(fn, args):
    try:
        return ("ok", fn(*args))
    except Exception as e:  # noqa: BLE001 - the loaded function must raise the same type
        return ("error", type(e).__name__)


def roundtrip(entries, tmp_path) -> dict:
    todo, expected = [], {}
    for label, fn, arg_sets in entries:
        path = str(tmp_path / f"{label}.agz")
        ag.save(fn, path)
        variables = _variables(fn)
        before = [v.numpy() for v in variables]
        results = [_call(fn, args) for args in arg_sets]
        expected[label] = (results, before, [v.numpy() for v in variables])
        todo.append((label, path, arg_sets))
    with open(tmp_path / "inputs.pkl", "wb") as f:
        pickle.dump(todo, f)
    env = dict(os.environ, PYTHONPATH=ROOT)
    proc = subprocess.run([sys.executable, "-c", CHILD], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    with open(tmp_path / "outputs.pkl", "rb") as f:
        report = pickle.load(f)
    assert report.pop("__modules__") == [], "the fresh process imported test modules"
    for label, (results, before, after) in expected.items():
        got_results, got_before, got_after = report[label]
        for k, (want, got) in enumerate(zip(results, got_results, strict=True)):
            assert got[0] == want[0], f"{label} call {k}: {got} != {want}"
            if want[0] == "ok":
                assert_same(got[1], want[1], rtol=0)
            else:
                assert got[1] == want[1], f"{label} call {k}: raised {got[1]}, not {want[1]}"
        for what, a, b in (("before", got_before, before), ("after", got_after, after)):
            assert len(a) == len(b), f"{label}: {len(a)} Variables restored, not {len(b)}"
            for x, y in zip(a, b):
                assert x.dtype == y.dtype and x.shape == y.shape
                np.testing.assert_array_equal(x, y, err_msg=f"{label}: Variables {what} calls")
    return report


def _variables(fn) -> list:
    """The Variables a Function's graphs read or write, in the order save() numbers them."""
    from runtime.saved.format import Encoder
    from runtime.saved.save import _concrete

    enc = Encoder()
    for cf in fn.concrete_functions:
        _concrete(cf, enc)
    return enc.variables
