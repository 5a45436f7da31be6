"""`logging.getLogger("autograph")`: one record per stage (convert, trace, optimize,
compile) at the documented levels, none on calls that reuse a trace, none by default, and
results unchanged by logging."""
from __future__ import annotations

import logging

import numpy as np
import pytest

import autograph as ag


def clip(x):
    if np.sum(x) > 0:
        x = np.minimum(x, 1.0)
    return x * 2


def _records(caplog, level):
    caplog.clear()
    f = ag.function(clip)
    with caplog.at_level(level, logger="autograph"):
        x = np.array([0.5, 3.0])
        first, second = f(x), f(x)
    for got in (first, second):
        np.testing.assert_array_equal(got, clip(x))
    return [(r.name, r.levelname, r.getMessage()) for r in caplog.records
            if r.name.startswith("autograph")]


def test_debug_names_every_stage_once_per_trace(caplog):
    records = _records(caplog, logging.DEBUG)
    names = [name for name, _, _ in records]
    assert names.count("autograph.trace") == 2  # start and end of the one trace
    assert names.count("autograph.optimize") == 1
    assert names.count("autograph.compile") == 1
    converted = [m for n, _, m in records if n == "autograph.convert"]
    assert any(m.startswith("converted clip (") and __file__ in m for m in converted)
    levels = {name: level for name, level, _ in records}
    assert levels == {"autograph.convert": "DEBUG", "autograph.trace": "INFO",
                      "autograph.optimize": "DEBUG", "autograph.compile": "DEBUG"}
    start, end = [m for n, _, m in records if n == "autograph.trace"]
    assert start == "tracing clip"
    assert end.startswith("traced clip(x: float64[2]) -> float64[2] in ") and end.endswith(" ms")


def test_info_shows_only_traces(caplog):
    records = _records(caplog, logging.INFO)
    assert [(n, lv) for n, lv, _ in records] == [("autograph.trace", "INFO")] * 2


def test_nothing_by_default(caplog):
    assert logging.getLogger("autograph").getEffectiveLevel() >= logging.WARNING
    caplog.clear()
    f = ag.function(clip)
    f(np.array([1.0, 2.0]))
    assert not [r for r in caplog.records if r.name.startswith("autograph")]


@pytest.mark.filterwarnings("ignore::UserWarning")  # the jit notes its NumPy fallbacks
@pytest.mark.parametrize("level", [logging.DEBUG, logging.INFO])
def test_jit_compile_is_logged_at_info(caplog, level):
    f = ag.function(clip, jit_compile=True)
    with caplog.at_level(level, logger="autograph"):
        got = f(np.array([0.5, 3.0]))
    np.testing.assert_array_equal(got, clip(np.array([0.5, 3.0])))
    jit = [r for r in caplog.records if r.name == "autograph.compile" and r.levelname == "INFO"]
    assert len(jit) == 1 and jit[0].getMessage().startswith("jit-compiled clip in ")


def long_trace(x):
    for k in [*range(200)]:  # a loop over a Python list: unrolled, 3 nodes per step
        x = np.sin(x) * 0.5 + k
    return x


class FakeClock:
    """Each reading is one `step` later: progress is tested without waiting."""

    def __init__(self, step: float):
        self.now, self.step = 0.0, step

    def __call__(self) -> float:
        self.now += self.step
        return self.now


@pytest.fixture
def fake_clock(monkeypatch):
    from runtime.core import log
    clock = FakeClock(1.0)
    monkeypatch.setattr(log, "clock", clock)
    monkeypatch.setattr(log, "PROGRESS_AFTER", 3.0)
    monkeypatch.setattr(log, "PROGRESS_EVERY", 2.0)
    return clock


def test_a_long_trace_logs_its_progress_at_info(caplog, fake_clock):
    from runtime.core import log
    x = np.array([0.5, 3.0])
    f = ag.function(long_trace)
    with caplog.at_level(logging.INFO, logger="autograph"):
        got = f(x)
    np.testing.assert_array_equal(got, long_trace(x))
    progress = [r.getMessage() for r in caplog.records
                if r.name == "autograph.trace" and "nodes so far" in r.getMessage()]
    counts = [int(m.split(": ")[1].split()[0]) for m in progress]
    assert counts and all(c % log._CHECK_EVERY == 0 for c in counts)
    # the clock is read once per 64 nodes and advances 1 s a reading: the first line
    # comes 3 s in, then one every 2 s
    assert counts == list(range(3 * 64, 600 + 1, 2 * 64))[:len(counts)]
    assert all(m.startswith("tracing long_trace: ") for m in progress)


def test_no_progress_without_info(caplog, fake_clock):
    f = ag.function(long_trace)
    with caplog.at_level(logging.WARNING, logger="autograph"):
        f(np.array([0.5, 3.0]))
    assert not [r for r in caplog.records if r.name.startswith("autograph")]


def test_a_slow_stage_is_logged_at_info(caplog, fake_clock):
    fake_clock.step = 10.0  # every stage seems to take 10 s
    f = ag.function(clip)
    with caplog.at_level(logging.INFO, logger="autograph"):
        f(np.array([0.5, 3.0]))
    slow = {r.name: r.getMessage() for r in caplog.records
            if r.name in ("autograph.optimize", "autograph.compile")}
    assert slow["autograph.optimize"].startswith("optimized clip in ")
    assert slow["autograph.compile"].startswith("generated the executor of clip in ")
    assert all(r.levelname == "INFO" for r in caplog.records if r.name.startswith("autograph"))
