"""Every graph function of the compiler corpus, saved, loaded in a fresh process that never
imports the corpus, and called on the corpus's arguments: the same results (value,
dtype, shape) or the same exception type."""
from __future__ import annotations

import pytest

import autograph as ag
from runtime.saved.format import SaveError
from tests.autograph.corpus import CASES
from tests.saved.roundtrip import roundtrip


def _python_value(x):
    return x.item() if hasattr(x, "item") and getattr(x, "ndim", 1) == 0 else x


def test_every_corpus_function_round_trips_through_a_fresh_process(tmp_path):
    entries, refused = [], []
    for case in CASES:
        if not case.graph:
            continue
        arg_sets = []
        for args in case.arg_sets:
            arg_sets.append(tuple(_python_value(a) if i in case.static else a
                                  for i, a in enumerate(args)))
        fn = ag.function(case.fn)
        cf = fn.get_concrete_function(*arg_sets[0])
        if cf.state is not None and cf.state.runs_python():
            # every call writes Python state (a global): a saved graph cannot, and says so
            with pytest.raises(SaveError, match="Python state"):
                ag.save(fn, str(tmp_path / f"{case.name}.agz"))
            refused.append(case.name)
            continue
        entries.append((case.name, fn, arg_sets))
    assert len(entries) >= 80 and len(refused) <= 3, refused
    report = roundtrip(entries, tmp_path)
    assert len(report) == len(entries)
