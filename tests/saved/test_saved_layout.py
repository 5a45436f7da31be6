"""The compact layout of format version 4 (docs/saved_format.md): nodes and values are
lists, inputs are value numbers or `[value]`, origins one table. Every way of bending
that layout is refused with a LoadError saying what is wrong; a file of an older version
is refused with a message saying to save again; the unaltered file loads and answers as
the original. (Nodes with extras round-trip in test_vmap_control.py.)"""
from __future__ import annotations

import copy

import numpy as np
import pytest

import autograph as ag
from runtime.saved import LoadError
from runtime.saved.format import VERSION
from tests.saved.tamper import read_agz, write_agz

X = np.array([0.5, -1.0, 2.0, 3.0])


def _f(x, n):
    y = x * 2.0 + 1.0
    if np.sum(y) > 0:
        y = y - n
    return y


@pytest.fixture
def saved(tmp_path):
    fn = ag.function(_f)
    expected = fn(X, np.int64(3))
    ag.save(fn, tmp_path / "f.agz")
    description, npz = read_agz(tmp_path / "f.agz")

    def load(edit):
        d = copy.deepcopy(description)
        edit(d)
        return ag.load(write_agz(tmp_path / "case.agz", d, npz))  # a matching manifest
    return description, load, expected


def _graph(d):
    return d["concrete_functions"][0]["graph"]


def _plain(d):
    """The first node of the trace's graph that has no extras."""
    return next(n for n in _graph(d)["nodes"] if len(n) == 5)


def _cond(d):
    return next(n for n in _graph(d)["nodes"] if n[0] == "cond")


def test_the_unaltered_file_loads_and_answers_as_the_original(saved):
    _, load, expected = saved
    loaded = load(lambda d: None)
    np.testing.assert_array_equal(loaded(X, np.int64(3)), expected)
    assert loaded(X, np.int64(3)).dtype == expected.dtype


def _set(path, value):
    """An edit setting the item at `path` (a function of the description) to `value`."""
    def edit(d):
        container, key = path(d)
        container[key] = value
    return edit


CASES = {
    "a value number not yet defined": (
        lambda d: _plain(d)[1].__setitem__(0, 10**6), "not defined before it"),
    "a negative value number": (
        lambda d: _plain(d)[1].__setitem__(0, -1), "not defined before it"),
    "true as a value number": (
        lambda d: _plain(d)[1].__setitem__(0, True), "value number or \\[an encoded value\\]"),
    "an immediate not in a list": (
        lambda d: _plain(d)[1].__setitem__(0, {"float": "nan"}), "value number or"),
    "an immediate list of two": (
        lambda d: _plain(d)[1].__setitem__(0, [1.0, 2.0]), "value number or"),
    "a node of four items": (
        lambda d: _graph(d)["nodes"].__setitem__(0, _plain(d)[:4]), "a node is \\[op, inputs"),
    "a node as an object": (
        lambda d: _graph(d)["nodes"].__setitem__(0, {"op": "add"}), "a node is \\[op, inputs"),
    "empty extras": (
        lambda d: _plain(d).append({}), "empty extras are left out"),
    "unknown extras": (
        lambda d: _plain(d).append({"eval": 1}), "unexpected key 'eval'"),
    "subgraphs on a plain op": (
        lambda d: _plain(d).append({"subgraphs": {}}), "has no subgraphs"),
    "a cond without its subgraphs": (
        lambda d: _cond(d).pop(), "needs subgraphs"),
    "a weak mark other than true": (
        lambda d: _plain(d)[3][0].append(False), "with true after it when it is weak"),
    "an output of two items": (
        lambda d: _plain(d)[3].__setitem__(0, _plain(d)[3][0][:2]), "a value is \\[name"),
    "an origin out of the table": (
        lambda d: _plain(d).__setitem__(4, len(d["origins"])), "index into origins"),
    "an origin that is text": (
        lambda d: _plain(d).__setitem__(4, "model.py"), "index into origins"),
    "an origin of two items": (
        lambda d: d["origins"].__setitem__(0, d["origins"][0][:2]), "origin 0: expected"),
    "an origin line that is not a number": (
        lambda d: d["origins"][0].__setitem__(1, "7"), "origin 0: line"),
    "no origins table": (lambda d: d.pop("origins"), "missing 'origins'"),
    "a capture of a later value": (
        lambda d: _cond(d)[5]["subgraphs"]["then"]["captures"][0].__setitem__(0, 10**6),
        "capture 0 is malformed"),
    "a graph input as an object": (
        lambda d: _graph(d)["inputs"].__setitem__(0, {"name": "x", "dtype": "<f8",
                                                      "shape": [4]}), "a value is \\[name"),
    "a graph output that is a name": (
        lambda d: _graph(d).__setitem__("outputs", ["x"]), "value number or"),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_a_bent_layout_is_refused_with_what_is_wrong(saved, case):
    _, load, _ = saved
    edit, message = CASES[case]
    with pytest.raises(LoadError, match=message):
        load(edit)


@pytest.mark.parametrize("version", [3, 2])
def test_an_older_version_is_refused_with_a_message_to_save_again(saved, version):
    _, load, _ = saved
    with pytest.raises(LoadError, match=f"format version {version}, which this "
                       f"autograph-numpy no longer reads .*version {VERSION}.* save the "
                       "function again"):
        load(lambda d: d.__setitem__("version", version))

