"""A loaded function's graphs show the user's variable names and lines as the traced ones
did: the listing (`str(cf.graph)`) and the picture (`cf.graph.to_dot()`) of each trace,
as traced and as optimized, are the same before `ag.save` and after `ag.load`, also when
the source file is gone (names are saved, not read again from the source)."""
from __future__ import annotations

import importlib.util
import linecache
import textwrap

import numpy as np

import autograph as ag
from runtime.core import naming

SOURCE = textwrap.dedent("""
    import numpy as np


    def accumulate(x, n):
        total = np.zeros_like(x)
        i = np.int64(0)
        while i < n:
            step = x * 2.0
            total = total + step
            i += 1
        if np.sum(total) > 0:
            out = total
        else:
            out = -total
        low, high = np.min(out), np.max(out)
        return out, high - low
""")


def _module(tmp_path):
    path = tmp_path / "user_module.py"
    path.write_text(SOURCE)
    spec = importlib.util.spec_from_file_location("user_module_for_saving", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module, path


def _pictures(concrete_functions) -> list:
    return [(str(cf.graph), cf.graph.to_dot(), str(cf.optimized_graph),
             cf.optimized_graph.to_dot()) for cf in concrete_functions]


def test_listing_and_picture_are_the_same_after_loading_without_the_source(tmp_path):
    module, source = _module(tmp_path)
    f = ag.function(module.accumulate)
    args = [(np.ones(3), np.int64(2)), (np.ones((2, 2), np.float32), np.int64(1))]
    expected = [f(*a) for a in args]
    before = _pictures(f.get_concrete_function(*a) for a in args)
    assert "(total)" in before[0][0] and "total" in before[0][1]  # the user's names
    assert "user_module.py:" in before[0][0]  # and lines
    ag.save(f, tmp_path / "accumulate.agf")

    source.unlink()  # as in another process, on another machine
    linecache.clearcache()
    naming._TARGETS_BY_FILE.clear()
    loaded = ag.load(tmp_path / "accumulate.agf")
    after = _pictures(loaded.concrete_functions)
    assert after == before
    for a, want in zip(args, expected):
        got = loaded(*a)
        for g, w in zip(got, want):
            np.testing.assert_array_equal(g, w)
            assert np.asarray(g).dtype == np.asarray(w).dtype


def test_listing_is_the_same_after_loading_with_the_source(tmp_path):
    module, _ = _module(tmp_path)
    f = ag.function(module.accumulate)
    before = _pictures([f.get_concrete_function(np.ones(4), np.int64(3))])
    ag.save(f, tmp_path / "accumulate.agf")
    assert _pictures(ag.load(tmp_path / "accumulate.agf").concrete_functions) == before
