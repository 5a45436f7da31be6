"""jit_compile=True on whole programs: native scalar loops, fused elementwise runs around
an op left to NumPy (noted once), the numba source and report, the on-disk cache across
processes, and the error when numba is missing."""
from __future__ import annotations

import json
import os
import subprocess
import sys
import warnings

import numpy as np
import pytest

import autograph as ag
from runtime.jit import JitFallbackWarning
from tests.runtime.jit_harness import check_jit, compiled_regions

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "benchmarks"))
import workloads as w  # noqa: E402

pytestmark = pytest.mark.usefixtures("small_jit_regions")


@pytest.mark.parametrize("n", [27, 1, 0, -5, 97, 2**40 + 1, 2**62 + 1])
def test_collatz_is_one_native_loop(n):
    jit = check_jit(w.collatz, np.int64(n))
    cf = jit.get_concrete_function(np.int64(n))
    assert compiled_regions(jit, np.int64(n)) == 1
    assert "while True:" in cf.jit_code and "k_jit_region" in cf.python_code


def _tanh_in_the_middle(x):
    y = x * 2.0 + 1.0
    y = np.tanh(y) * x
    return np.sqrt(np.abs(y - x / 3.0)) + 0.5


def _arctan2_in_the_middle(x):
    y = x * 2.0 + 1.0
    y = np.arctan2(y, 0.5) * x      # a 0-d operand: no NumPy loop of one dtype for it
    return np.sqrt(np.abs(y - x / 3.0)) + 0.5


def test_elementwise_chain_is_one_kernel_calling_numpys_tanh_loop():
    x = np.linspace(-3, 3, 1001)
    check_jit(w.elementwise_chain, x)
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        jit = ag.function(_tanh_in_the_middle, jit_compile=True)
        jit(x)
    assert not [m for m in seen if m.category is JitFallbackWarning]
    assert compiled_regions(jit, x) == 1
    cf = jit.get_concrete_function(x)
    assert "numpy_loop(" in cf.jit_code and not any("NumPy:" in line for line in cf.jit_report)


def test_an_op_without_a_loop_splits_the_chain_and_is_noted_once():
    x = np.linspace(-3, 3, 1001)
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        jit = ag.function(_arctan2_in_the_middle, jit_compile=True)
        jit(x)
        jit(np.ones(7))  # a second trace: the same op and line are not noted again
    check_jit(_arctan2_in_the_middle, x)
    notes = [str(m.message) for m in seen if m.category is JitFallbackWarning]
    line = _arctan2_in_the_middle.__code__.co_firstlineno + 2
    assert len(notes) == 1 and "`arctan2`" in notes[0] and f"test_jit_programs.py:{line}" in notes[0]
    assert compiled_regions(jit, x) == 2  # before and after the arctan2
    report = jit.get_concrete_function(x).jit_report
    assert any("NumPy: arctan2" in line for line in report)


def test_large_chain_runs_in_slices_across_the_cores_and_matches():
    x = np.random.default_rng(0).standard_normal(1 << 18)
    jit = check_jit(w.elementwise_chain, x, errstates=(None,))
    code = jit.get_concrete_function(x).python_code
    region = code[code.index("def region"):]  # one slice: one kernel, tanh inside it
    assert "ag_chunked(" in code and region.count("k_jit_region") == 1 and "np_tanh" not in region


def _warns_in_one_slice(x):
    y = np.sqrt(x * 2.0 - 1.0) + 1.0      # invalid where x < 0.5
    z = np.tanh(y) * (y / x)              # divide by zero where x == 0
    return z - x * 1e300 * 1e10           # overflow where |x| is large


@pytest.mark.parametrize("where", [0, 70000, (1 << 18) - 1])
def test_a_warning_in_one_slice_comes_out_as_from_the_default_executor(where):
    """The kernels run slice by slice on both cores; a slice whose IEEE flags NumPy
    would report reruns on NumPy, and the region reruns whole under the caller's
    errstate: the same warnings (or exception) as the default executor, in its order."""
    x = np.full(1 << 18, 2.0)
    x[where] = 0.0
    check_jit(_warns_in_one_slice, x)
    x[where] = 1e10
    check_jit(_warns_in_one_slice, x)
    quiet = check_jit(_warns_in_one_slice, np.full(1 << 18, 2.0))
    assert "ag_chunked(" in quiet.get_concrete_function(x).python_code


def test_unlowerable_op_in_the_middle_of_a_scalar_loop():
    def f(x, n):
        i = np.int64(0)
        while i < n:
            x = np.exp(x) * 0.5 + x / 4.0  # exp stays NumPy: the loop does too
            i = i + 1
        return x

    jit = check_jit(f, np.float64(0.25), np.int64(5))
    assert compiled_regions(jit, np.float64(0.25), np.int64(5)) == 0


def test_branches_and_mixed_dtypes_in_a_loop():
    def f(x, y, n):
        i = np.int32(0)
        acc = np.float32(0)
        while i < n:
            if (x > y) & (i % 3 != 0):
                acc = acc + x.astype(np.float32) * np.float32(0.5)
            else:
                acc = np.maximum(acc - np.float32(1.5), np.float32(-4))
            i = i + np.int32(1)
        return acc, i

    for args in [(np.int64(3), np.int64(2), np.int32(9)), (np.int64(-1), np.int64(2), np.int32(4))]:
        jit = check_jit(f, *args)
    assert compiled_regions(jit, *args) == 1


def test_overflow_in_a_scalar_loop_warns_as_numpy_does():
    def f(x, n):
        i = np.int64(0)
        while i < n:
            x = x * np.int64(3) + np.int64(1)
            i = i + 1
        return x

    check_jit(f, np.int64(5), np.int64(50))  # wraps past int64: NumPy warns (or raises)


def test_integer_division_by_zero_in_arrays():
    x = np.array([5, -7, 0, 9], np.int32)
    y = np.array([2, 0, 0, -3], np.int32)
    check_jit(lambda x, y: (x // y) + (x % y), x, y)


def test_missing_numba_says_how_to_install(monkeypatch):
    monkeypatch.setitem(sys.modules, "numba", None)
    f = ag.function(lambda x: x + 1, jit_compile=True)
    with pytest.raises(ImportError, match=r"autograph-numpy\[jit\]"):
        f(np.ones(3))


_CHILD = """
import json, sys, time
import numpy as np
sys.path.insert(0, {bench!r})
import autograph as ag, workloads as w
from runtime.jit import set_cache_dir

set_cache_dir({cache!r})
f = ag.function(w.collatz, jit_compile=True)
start = time.perf_counter()
result = int(f(np.int64(27)))
first = time.perf_counter() - start
print(json.dumps({{"result": result, "first_call": first,
                  "report": f.get_concrete_function(np.int64(27)).jit_report}}))
"""


def test_a_second_process_loads_the_compiled_code_from_disk(tmp_path):
    code = _CHILD.format(bench=os.path.join(ROOT, "benchmarks"), cache=str(tmp_path))
    env = dict(os.environ, PYTHONPATH=ROOT)
    runs = []
    for _ in range(2):
        out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                             text=True, check=True, cwd=ROOT)
        runs.append(json.loads(out.stdout.strip().splitlines()[-1]))
    assert runs[0]["result"] == runs[1]["result"] == int(w.collatz(np.int64(27)))
    assert "compiled" in runs[0]["report"][0] and "cache hit" not in runs[0]["report"][0]
    assert "cache hit" in runs[1]["report"][0]  # numba's own cache statistics


def test_small_array_regions_stay_numpy_by_default(monkeypatch):
    """Below `MIN_ARRAY_ELEMENTS` a kernel gains nothing on NumPy's own calls; from it on,
    the region is compiled."""
    from runtime.jit import regions

    monkeypatch.setattr(regions, "MIN_ARRAY_ELEMENTS", 1 << 13)  # the default

    def step(t, x, s):
        return s + t * x

    for n, compiled in ((64, 0), (128, 1)):
        t, x, s = (np.full((n, n), v, np.float32) for v in (1.5, 2.0, -3.0))
        f = ag.function(step, autograph=False, jit_compile=True)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", JitFallbackWarning)
            got = f(t, x, s)
        np.testing.assert_array_equal(got, step(t, x, s))
        report = f.get_concrete_function(t, x, s).jit_report
        assert sum("region" in line and "array" in line for line in report) == compiled, report


def _kernels_in_a_loop(x, n):
    i = np.int64(0)
    while i < n:
        x = np.sqrt(np.abs(x * 0.5 - 1.0)) + np.tanh(x) * 2.0 - x / 7.0
        i = i + 1
    return x


def _kernels_in_a_branch(x, flag):
    if flag > 0:
        y = x * 3.0 + 1.0
        y = np.exp(y) / (y - 4.0)   # divide by zero where x == 1
    else:
        y = x - 2.0
    return y


def test_array_kernels_in_loop_bodies_and_branches_run_in_slices():
    x = np.random.default_rng(0).standard_normal(300_000)
    jit = check_jit(_kernels_in_a_loop, x, np.int64(4))
    assert compiled_regions(jit, x, np.int64(4)) == 1  # NumPy's tanh loop inside the kernel
    x[1000] = 1.0
    for flag in (np.int64(1), np.int64(-1)):
        jit = check_jit(_kernels_in_a_branch, x, flag)
    assert compiled_regions(jit, x, np.int64(1)) == 1  # exp's NumPy loop inside it
