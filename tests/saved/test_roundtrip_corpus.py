"""Every graph function of the compiler corpus, saved, loaded in a fresh process that never
imports the corpus, and called on the corpus's arguments: the same results (value,
dtype, shape) or the same exception type."""
from __future__ import annotations

import autograph as ag
from tests.autograph.corpus import CASES
from tests.saved.roundtrip import roundtrip


def _python_value(x):
    return x.item() if hasattr(x, "item") and getattr(x, "ndim", 1) == 0 else x


def test_every_corpus_function_round_trips_through_a_fresh_process(tmp_path):
    entries = []
    for case in CASES:
        if not case.graph:
            continue
        arg_sets = []
        for args in case.arg_sets:
            arg_sets.append(tuple(_python_value(a) if i in case.static else a
                                  for i, a in enumerate(args)))
        fn = ag.function(case.fn)
        fn.get_concrete_function(*arg_sets[0])
        entries.append((case.name, fn, arg_sets))
    assert len(entries) >= 80
    report = roundtrip(entries, tmp_path)
    assert len(report) == len(entries)
