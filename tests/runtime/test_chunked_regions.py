"""Chunked elementwise regions (runtime/exec/chunks.py): slices of a run of ufuncs over
large arrays, across the cores — bitwise eager's results, warnings and exceptions."""
from __future__ import annotations

import threading
import tracemalloc
import warnings

import numpy as np
import pytest

import autograph as ag
from runtime.exec import chunks, schedule


def _bits(tree):
    leaves = tree if isinstance(tree, (tuple, list)) else (tree,)
    return [(np.asarray(a).dtype, np.shape(a), np.asarray(a).tobytes()) for a in leaves]


@pytest.fixture
def small_chunks(monkeypatch):
    """Regions from 1000 elements on, in 64-element slices: many slice boundaries."""
    monkeypatch.setattr(chunks, "MIN_REGION_ELEMENTS", 0)
    monkeypatch.setattr(chunks, "MIN_REGION_WORK", 0)
    monkeypatch.setattr(chunks, "MEMORY_BOUND", frozenset())  # every run may be a region
    monkeypatch.setattr(chunks, "CHUNK_ELEMENTS", 64)
    monkeypatch.setattr(schedule, "WORKERS", max(1, schedule.WORKERS))


def _special_values(dtype, n):
    dtype = np.dtype(dtype)
    rng = np.random.default_rng(n)
    if dtype.kind == "f":
        base = rng.standard_normal(n) * 10
        extra = [0.0, -0.0, np.nan, np.inf, -np.inf, np.finfo(dtype).max, np.finfo(dtype).tiny,
                 -np.finfo(dtype).max, 1e-310, 0.5, -0.5, 1.0, -1.0, 710.0, -745.0]
        base[:len(extra)] = extra
        return rng.permutation(base).astype(dtype)
    info = np.iinfo(dtype)
    base = rng.integers(info.min // 2, info.max // 2, n, dtype=dtype)
    base[:6] = [info.min, info.max, 0, 1, info.max - 1, info.min + 1]
    return rng.permutation(base)


UNARY = [np.tanh, np.exp, np.log, np.sqrt, np.sin, np.cos, np.arctan, np.expm1, np.log1p,
         np.cbrt, np.abs, np.negative, np.square, np.reciprocal, np.exp2, np.log2, np.log10,
         np.sinh, np.cosh, np.arcsinh, np.floor, np.rint, np.sign, np.isnan]
BINARY = [np.add, np.subtract, np.multiply, np.divide, np.power, np.maximum, np.minimum,
          np.fmax, np.arctan2, np.hypot, np.floor_divide, np.remainder, np.copysign, np.less]


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
@pytest.mark.parametrize("ufunc", UNARY, ids=lambda u: u.__name__)
def test_unary_ufuncs_bitwise(ufunc, dtype, small_chunks):
    x = _special_values(dtype, 1000)

    def fn(x):
        return ufunc(x * 1.5) + x

    _check(fn, x)


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32, np.int64, np.uint8])
@pytest.mark.parametrize("ufunc", BINARY, ids=lambda u: u.__name__)
def test_binary_ufuncs_bitwise(ufunc, dtype, small_chunks):
    x, y = _special_values(dtype, 999), _special_values(dtype, 1001)[:999]
    if ufunc is np.power and np.dtype(dtype).kind in "iu":
        y = np.abs(y) % 5  # negative integer powers raise
    if np.dtype(dtype).kind in "iu" and ufunc in (np.arctan2, np.hypot, np.copysign):
        x, y = x.astype(np.float64), y.astype(np.float64)

    def fn(x, y):
        return ufunc(x + y, y) - x, ufunc(y, x)

    _check(fn, x, y)


def _check(fn, *args):
    par = ag.function(fn, autograph=False)
    with np.errstate(all="ignore"):
        try:
            want = fn(*args)
        except ValueError as error:  # integers to negative powers: the same error
            for f in (par, ag.function(fn, autograph=False, parallel=False)):
                with pytest.raises(ValueError, match=str(error)):
                    f(*args)
            assert "ag_chunked" in par.get_concrete_function(*args).python_code
            return par
        got = par(*args)
        got_serial = ag.function(fn, autograph=False, parallel=False)(*args)
    assert _bits(got) == _bits(want)
    assert _bits(got_serial) == _bits(want)
    code = par.get_concrete_function(*args).python_code
    assert "ag_chunked" in code, code
    return par


def test_the_benchmark_chain_is_chunked_by_default():
    x = np.random.default_rng(0).standard_normal(1_000_000)

    def chain(x):
        y = x * 2.0 + 1.0
        y = np.tanh(y) * x
        y = y - x / 3.0
        return np.sqrt(np.abs(y)) + 0.5

    f = _check(chain, x)
    assert "ag_chunked" not in ag.function(chain, autograph=False, parallel=False) \
        .get_concrete_function(x).python_code
    tracemalloc.start()
    chain(x)
    eager_peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    f(x)
    tracemalloc.start()
    f(x)
    graph_peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert graph_peak <= eager_peak, (graph_peak, eager_peak)


def test_values_used_after_the_region_and_inputs_of_any_layout(small_chunks):
    def fn(x, y):
        a = np.exp(x) * y          # read again after the region
        b = np.tanh(a) + 1.0
        c = np.sum(a)              # not elementwise: ends the region
        return b * c, a

    rng = np.random.default_rng(4)
    x, y = rng.standard_normal((128, 40)), rng.standard_normal((128, 40))
    f = _check(fn, x, y)
    for args in ((x.T.copy().T, y), (x[::-1], y[:, ::-1]), (np.asfortranarray(x), y)):
        assert _bits(f(*args)) == _bits(fn(*args))


@pytest.mark.parametrize("parallel", [True, False])
def test_warnings_as_eager(parallel, small_chunks):
    """Each op warns once, in eager's order, whatever the number of slices."""
    def fn(x, y):
        return np.sqrt(x) / y + np.log(y)

    x = np.linspace(-5, 5, 2000)
    y = np.linspace(-1, 1, 2000)
    y[1000] = 0.0
    f = ag.function(fn, autograph=False, parallel=parallel)
    with warnings.catch_warnings(record=True) as eager_caught:
        warnings.simplefilter("always")
        want = fn(x, y)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        got = f(x, y)
    assert _bits(got) == _bits(want)
    assert [str(w.message) for w in caught] == [str(w.message) for w in eager_caught]
    assert len(caught) >= 3
    with np.errstate(divide="raise"), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # sqrt's 'invalid' still warns
        with pytest.raises(FloatingPointError, match="divide by zero"):
            fn(x, y)
        with pytest.raises(FloatingPointError, match="divide by zero"):
            f(x, y)
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("error")
        assert _bits(f(x, y)) == _bits(want)


def test_runtime_switch_off_gives_the_same_bits(small_chunks):
    def fn(x):
        return np.exp(np.tanh(x) * 3.0) - x

    x = np.random.default_rng(2).standard_normal(5000)
    f = _check(fn, x)
    schedule.set_parallel(False)
    try:
        assert _bits(f(x)) == _bits(fn(x))
    finally:
        schedule.set_parallel(True)


def test_inside_a_loop_body(small_chunks):
    def fn(x, n):
        i = 0
        while i < n:
            x = np.tanh(x) * 1.5 + 0.25
            i += 1
        return x

    x = np.random.default_rng(5).standard_normal(3000)
    want = fn(x, 4)
    f = ag.function(fn)
    assert _bits(f(x, np.int64(4))) == _bits(fn(x, np.int64(4))) == _bits(want)
    assert "ag_chunked" in f.get_concrete_function(x, np.int64(4)).python_code


def test_complex_values_are_not_chunked(small_chunks):
    def fn(x):
        return np.exp(x) * x + 1.0

    x = np.linspace(-1, 1, 1000) * (1 + 2j)
    f = ag.function(fn, autograph=False)
    assert _bits(f(x)) == _bits(fn(x))
    assert "ag_chunked" not in f.get_concrete_function(x).python_code


def _matmul_loop(s, y, x):
    for _ in range(10):
        s = s + (s @ y) * x
    return s


def test_small_regions_keep_the_serial_code():
    """2 ops on 256×256 float32: in-place calls beat slices (the cost model says no)."""
    s = np.random.default_rng(0).standard_normal((256, 256)).astype(np.float32)
    args = (s, s.copy(), s.copy())
    assert ag.function(_matmul_loop, autograph=False).get_concrete_function(*args).python_code \
        == ag.function(_matmul_loop, autograph=False, parallel=False) \
        .get_concrete_function(*args).python_code


def test_regions_that_compute_the_same_share_one_function(small_chunks):
    s = np.random.default_rng(0).standard_normal((256, 256)).astype(np.float32)
    args = (s, s.copy(), s.copy())
    f = _check(_matmul_loop, *args)
    code = f.get_concrete_function(*args).python_code
    assert code.count("ag_chunked(") == 10 and code.count("def region") == 1, code


def test_a_run_of_memory_bound_ops_stays_serial():
    """`s + t * x` over 1M float32 moves more memory than it computes: chunking it across
    threads lost to the serial in-place calls (the seeds' 1000×1000 matmul loop)."""
    s, t, x = (np.full((1000, 1000), v, np.float32) for v in (1.0, 2.0, 3.0))

    def step(s, t, x):
        return s + t * x

    f = ag.function(step, autograph=False)
    assert "ag_chunked" not in f.get_concrete_function(s, t, x).python_code
    assert _bits(f(s, t, x)) == _bits(step(s, t, x))


def _in_thread(fn, *args) -> tuple:
    """Run `fn(*args)` on a new thread; (thread, list that receives its result)."""
    box: list = []
    t = threading.Thread(target=lambda: box.append(fn(*args)), daemon=True)
    t.start()
    return t, box


@pytest.mark.parametrize("jit", [False, True])
def test_a_busy_pool_worker_does_not_hold_the_region(jit, small_chunks):
    """The slices go to whichever thread is free: with the pool's workers all busy with
    another job, the calling thread computes every slice and returns before that job
    ends (it used to wait for its helpers' fixed share)."""
    if jit:
        pytest.importorskip("numba")
    x = np.random.default_rng(7).standard_normal(5000)

    def chain(x):
        return np.sqrt(np.abs(np.tanh(x * 2.0 + 1.0) * x - x / 3.0)) + 0.5

    f = ag.function(chain, autograph=False, jit_compile=jit)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ag.JitFallbackWarning)
        assert _bits(f(x)) == _bits(chain(x))  # traced (and compiled) before the pool waits
    assert "ag_chunked" in f.get_concrete_function(x).python_code
    release = threading.Event()
    busy = [schedule.submit(release.wait, 120) for _ in range(schedule.WORKERS)]
    try:
        caller, box = _in_thread(f, x)
        caller.join(60)  # only a failing run waits this long
        finished = not caller.is_alive()
    finally:
        release.set()
        for b in busy:
            b.result()
    caller.join()
    assert finished, "the region waited for a pool worker busy with another job"
    assert _bits(box[0]) == _bits(chain(x))


def test_a_region_run_on_a_pool_thread_completes(small_chunks):
    """A graph run by a pool worker (whose helpers would queue behind itself) computes
    its slices alone."""
    x = np.random.default_rng(8).standard_normal(3000)

    def fn(x):
        return np.exp(np.tanh(x) * 3.0) - x

    f = ag.function(fn, autograph=False)
    f(x)
    caller, box = _in_thread(lambda: schedule.submit(f, x).result())
    caller.join(60)
    assert not caller.is_alive(), "a region on a pool thread waited for itself"
    assert _bits(box[0]) == _bits(fn(x))
