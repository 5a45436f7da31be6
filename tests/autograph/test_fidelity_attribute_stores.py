"""`obj.attr[k] = v` reads `obj.attr` and writes into it; Python never assigns the
attribute back, so a property setter or `__setattr__` does not run
(autograph/converters/attribute_stores.py). Converted and traced code against Python."""
from __future__ import annotations

import dataclasses

import numpy as np
import pytest

import autograph as ag


class Counted:
    def __init__(self):
        self.sets = 0
        self._d = {"k": 0}
        self._rows = [0, 0]

    @property
    def d(self):
        return self._d

    @d.setter
    def d(self, value):
        self.sets += 1
        self._d = value

    @property
    def rows(self):
        return self._rows


@dataclasses.dataclass(frozen=True)
class Frozen:
    table: dict


def store_through_properties(c, x):
    c.d["k"] = 1
    c.d["k"] += 2
    c.rows[1] = 5  # a property without a setter: Python never needs one here
    return x * 2, c.sets, c.d["k"], list(c.rows)


def store_into_a_frozen_object(f, x):
    f.table["n"] = 3
    f.table["n"] *= 2
    return x + f.table["n"]


@pytest.mark.parametrize("wrap", [ag.to_graph, ag.function], ids=["to_graph", "function"])
def test_no_setter_runs_for_a_subscript_store(wrap):
    want = store_through_properties(Counted(), np.float64(1.0))
    c = Counted()
    got = wrap(store_through_properties)(c, np.float64(1.0))
    assert [np.asarray(v).tolist() for v in got] == [np.asarray(v).tolist() for v in want]
    assert c.sets == 0 and c.d == {"k": 3}


@pytest.mark.parametrize("wrap", [ag.to_graph, ag.function], ids=["to_graph", "function"])
def test_a_frozen_objects_container_is_written_in_place(wrap):
    f = Frozen({})
    assert wrap(store_into_a_frozen_object)(f, np.float64(1.0)) == 7.0
    assert f.table == {"n": 6}
