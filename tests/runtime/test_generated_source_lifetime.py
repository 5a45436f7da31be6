"""Generated executors' source is in `linecache` while their function lives (tracebacks
show it) and is dropped with it: traces and loaded graphs that are gone leave nothing."""
from __future__ import annotations

import gc
import linecache
import traceback

import numpy as np

import autograph as ag


def _generated() -> set:
    return {k for k in linecache.cache if k.startswith("<autograph-graph ")}


def _fails(x):
    return np.sum(x[np.array([5])])  # index out of range at run time


def test_source_lives_with_its_function_and_is_dropped_after(tmp_path):
    gc.collect()
    before = _generated()
    f = ag.function(lambda x: np.tanh(x) * 2.0)
    x = np.linspace(-1.0, 1.0, 4)
    np.testing.assert_allclose(f(x), np.tanh(x) * 2.0)
    ag.save(f, tmp_path / "f.agz")
    loaded = ag.load(tmp_path / "f.agz")
    np.testing.assert_allclose(loaded(x), np.tanh(x) * 2.0)
    new = _generated() - before
    assert len(new) >= 2
    for cf in (f.concrete_functions[0], loaded.concrete_functions[0]):
        lines = linecache.getlines(cf._filename)
        assert "".join(lines) == cf.python_code
    del f, loaded, cf
    gc.collect()
    assert not (_generated() & new)


def test_a_traceback_shows_the_generated_line_while_the_function_lives():
    f = ag.function(_fails)
    x = np.arange(3.0)
    try:
        _fails(x)
    except IndexError as e:
        eager = type(e)
    ag.set_traceback_filtering(False)  # the executor's own frames, which filtering hides
    try:
        f(x)
    except Exception as e:  # noqa: BLE001 - compared with the eager error below
        graph_error = e
    finally:
        ag.set_traceback_filtering(True)
    assert type(graph_error) is eager
    frames = [(fs.filename, fs.lineno) for fs in traceback.extract_tb(graph_error.__traceback__)
              if fs.filename.startswith("<autograph-graph ")]
    assert frames and all(linecache.getline(name, line).strip() for name, line in frames)
