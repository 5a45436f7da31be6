"""The parallel executor (runtime/exec/schedule.py): expensive independent nodes run on
the thread pool; results are bitwise those of serial execution and of eager NumPy, with
the same prints, exceptions and warnings, whatever the switches say."""
from __future__ import annotations

import re
import warnings

import numpy as np
import pytest

import autograph as ag
from runtime.exec import schedule

BIG = 200_000  # sorts of this many elements are worth a thread hand-off


def _bits(tree):
    leaves = tree if isinstance(tree, (tuple, list)) else (tree,)
    return [(np.asarray(a).dtype, np.shape(a), np.asarray(a).tobytes()) for a in leaves]


def _three_ways(fn, *args, autograph=False):
    """eager, parallel graph, serial graph (parallel=False) and the runtime switch off."""
    want = fn(*args)
    par = ag.function(fn, autograph=autograph)
    ser = ag.function(fn, autograph=autograph, parallel=False)
    got_par, got_ser = par(*args), ser(*args)
    schedule.set_parallel(False)
    try:
        got_off = par(*args)
    finally:
        schedule.set_parallel(True)
    assert _bits(got_par) == _bits(want)
    assert _bits(got_ser) == _bits(want)
    assert _bits(got_off) == _bits(want)
    return par, ser


def _code(f, *args):
    return f.get_concrete_function(*args).python_code


@pytest.fixture
def aggressive(monkeypatch):
    """Offload every node the executor may offload, whatever its size."""
    monkeypatch.setattr(schedule, "MIN_OFFLOAD_SECONDS", 0.0)
    monkeypatch.setattr(schedule, "WORKERS", max(1, schedule.WORKERS))


def test_two_large_sorts_run_concurrently_and_match():
    rng = np.random.default_rng(0)
    a, b = rng.standard_normal(BIG), rng.standard_normal(BIG)

    def two_sorts(a, b):
        return np.sort(a) + np.sort(b)

    par, ser = _three_ways(two_sorts, a, b)
    if schedule.WORKERS:
        code = _code(par, a, b)
        assert re.search(r"(\w+) = ag_submit\(np_sort, a\)", code), code
        assert "v1 = v1.result()" in code
    assert "ag_submit" not in _code(ser, a, b)


def test_small_graphs_keep_the_serial_code():
    """The cost model leaves small work alone: same code as parallel=False."""
    def fn(a, b):
        return np.sort(a) + np.sort(b), np.sum(a.astype(np.int64))

    a = b = np.arange(1000.0)
    assert _code(ag.function(fn, autograph=False), a, b) == \
        _code(ag.function(fn, autograph=False, parallel=False), a, b)


def test_unknown_dimensions_stay_serial():
    spec = ag.TensorSpec((None,), np.float64)
    f = ag.function(lambda a, b: np.sort(a) + np.sort(b), autograph=False,
                    input_signature=[spec, spec])
    assert "ag_submit" not in f.get_concrete_function().python_code


def _windows(code: str):
    """(names the offloaded node reads, lines that run before its result is joined)."""
    lines = code.splitlines()
    for i, line in enumerate(lines):
        m = re.match(r"\s*(\w+) = ag_submit\(\w+, (.*)\)", line.split("  #")[0])
        if m:
            name = m.group(1)
            end = next(j for j in range(i + 1, len(lines))
                       if re.match(rf"\s*{name} = {name}\.result\(\)", lines[j]))
            yield name, set(re.findall(r"\b[a-z_]\w*\b", m.group(2))), lines[i + 1:end]


def test_inputs_of_an_offloaded_node_are_not_written_until_it_is_joined(aggressive):
    """`out=` into a dying input's buffer, or a spare buffer, must wait for the join when
    a pool thread may still read that buffer (an int matmul is a ufunc: its operands
    would otherwise qualify)."""
    rng = np.random.default_rng(1)
    a = rng.integers(-5, 5, (40, 40))
    b = rng.standard_normal(BIG)

    def fn(a, b):
        x = a * 3                 # fresh: its buffer could be reused once x is dead
        m = x @ a                 # offloaded; x's last use
        s = np.sort(b)            # runs meanwhile
        y = (a + 1) * 2           # elementwise work that would like x's buffer
        z = np.tanh(s) * 2.0
        return m + y, z

    par, _ = _three_ways(fn, a, b)
    code = _code(par, a, b)
    windows = list(_windows(code))
    assert windows, code
    for name, reads, window in windows:
        for line in window:
            stmt = line.split("  #")[0]
            for r in reads | {name}:
                assert not re.match(rf"\s*{r}\b[^=]*=(?!=)", stmt), (r, stmt, code)
                assert not re.search(rf"(out={r}\)|, {r}\)$)", stmt.strip()) or "=" in stmt, \
                    (r, stmt, code)


def test_effects_keep_program_order(capsys, aggressive):
    """A print or an assignment after an offloaded node waits for its result."""
    v = ag.Variable(np.zeros(5, np.int64))

    def fn(a, b):
        s = np.sort(a)
        ag.print("between", np.sum(b))
        v.assign(np.sort(b)[:5])
        t = np.argsort(b)
        return s, t, v.read_value() if hasattr(v, "read_value") else v.value

    a = np.arange(20, 0, -1)
    b = np.arange(10)[::-1].copy()
    f = ag.function(fn, autograph=False)
    out = f(a, b)
    printed = capsys.readouterr().out
    assert printed == "between 45\n"
    assert _bits(out[:2]) == _bits((np.sort(a), np.argsort(b)))
    np.testing.assert_array_equal(v.numpy(), np.sort(b)[:5])
    code = _code(f, a, b)
    assert "ag_submit" in code, code
    for _name, _, window in _windows(code):
        assert not any("between" in line or "assign" in line for line in window), code


@pytest.mark.parametrize("parallel", [True, False])
def test_warnings_and_errstate_as_eager(parallel, aggressive):
    """Work beside an offloaded node warns as eagerly, on the calling thread, and honours the
    caller's errstate; the offloaded ops themselves never warn."""
    def fn(a, b, c):
        return np.sort(a) + np.sort(b) / c

    a = np.arange(10.0)
    b = np.arange(10.0)[::-1].copy()
    c = np.zeros(10)
    f = ag.function(fn, autograph=False, parallel=parallel)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        got = f(a, b, c)
    with warnings.catch_warnings(record=True) as eager_caught:
        warnings.simplefilter("always")
        want = fn(a, b, c)
    assert _bits(got) == _bits(want)
    assert [str(w.message) for w in caught] == [str(w.message) for w in eager_caught]
    # raised by the calling thread (the generated code's line), never by a pool thread
    assert not any("concurrent" in w.filename or "threading" in w.filename for w in caught)
    with np.errstate(divide="raise"):
        with pytest.raises(FloatingPointError):
            fn(a, b, c)
        with pytest.raises(FloatingPointError):
            f(a, b, c)


def test_errstate_reaches_pool_threads(aggressive):
    """The pool runs each node in a copy of the caller's context (NumPy's errstate)."""
    seen = []

    def probe(x):
        seen.append(np.geterr()["over"])
        return x

    with np.errstate(over="raise"):
        assert schedule.submit(probe, 1).result() == 1
    assert seen == ["raise"]


def test_an_exception_beside_an_offloaded_node_is_eagers(aggressive):
    def fn(a, i):
        s = np.sort(a)
        return s + a[i]          # IndexError while the sort may still run

    a = np.arange(5.0)
    f = ag.function(fn, autograph=False)
    with pytest.raises(IndexError):
        fn(a, 7)
    with pytest.raises(IndexError):
        f(a, np.int64(7))
    assert _bits(f(a, np.int64(2))) == _bits(fn(a, 2))


CORPUS = {
    "sorts along axes": (lambda a, b: (np.sort(a, axis=0) - np.sort(b, axis=1),
                                       np.argsort(a, axis=-1, kind="stable")), "f"),
    "nan and signed zeros": (lambda a, b: np.sort(np.concatenate([np.ravel(a), [np.nan, -0.0, 0.0]]))
                             + np.sort(np.ravel(b))[0], "f"),
    "int reductions": (lambda a, b: (np.sum(a, axis=0) + np.max(b, axis=1, keepdims=True),
                                     np.prod(a % 3, axis=1), np.any(b > 2), np.min(a)), "i"),
    "int matmuls": (lambda a, b: ((a @ b) + (b @ a), (a @ b.T) @ a), "i"),
    "bool reductions": (lambda a, b: (np.all(a > 0, axis=0), np.sum(b > 0)), "i"),
    "chained": (lambda a, b: np.sort(np.sort(a, axis=0) * 2 + np.argsort(b, axis=0), axis=1), "f"),
    "uint and int8": (lambda a, b: (np.sort(a.astype(np.uint8)), np.sum(b.astype(np.int8))), "i"),
}


@pytest.mark.parametrize("name", list(CORPUS))
def test_corpus_parallel_equals_serial_equals_eager(name, aggressive):
    fn, kind = CORPUS[name]
    rng = np.random.default_rng(len(name))
    if kind == "f":
        a, b = rng.standard_normal((6, 6)), rng.standard_normal((6, 6))
    else:
        a, b = rng.integers(-4, 5, (6, 6)), rng.integers(-4, 5, (6, 6))
    par, _ = _three_ways(fn, a, b)
    assert "ag_submit" in _code(par, a, b)


def test_offloaded_nodes_inside_loops_and_branches(aggressive):
    def fn(x, n):
        total = np.zeros(x.shape[0])
        i = 0
        while i < n:
            s = np.sort(x + i)
            t = np.sort(x - i)
            if np.sum(s) > 0:
                total = total + s - t
            else:
                total = total - s
            i += 1
        return total

    x = np.random.default_rng(3).standard_normal(50)
    par, _ = _three_ways(fn, x, np.int64(4), autograph=True)
    assert "ag_submit" in _code(par, x, np.int64(4))


def test_a_reduction_that_may_raise_is_never_offloaded(aggressive):
    """max of an empty array raises (at run time when the length is unknown): such a
    reduction stays on the calling thread, in program order."""
    def fn(a, b):
        return np.max(a), np.sort(b)

    spec = ag.TensorSpec((None,), np.int64)
    f = ag.function(fn, autograph=False, input_signature=[spec, spec])
    a, b = np.zeros(0, np.int64), np.arange(5)
    with pytest.raises(ValueError):
        fn(a, b)
    with pytest.raises(ValueError):
        f(a, b)
    assert "ag_submit(np_max" not in f.get_concrete_function().python_code
    assert _bits(f(b, b)) == _bits(fn(b, b))
