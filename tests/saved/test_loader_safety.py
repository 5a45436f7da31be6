"""The loader refuses malformed, tampered, oversized and future-version files with LoadError
(a ValueError) and a clear message, never executes or unpickles file content, and keeps
memory bounded. Targeted tampering first, then the random fuzzer (fuzz_loader.py)."""
from __future__ import annotations

import io
import os
import zipfile

import numpy as np
import pytest

import autograph as ag
from runtime.saved import LoadError
from runtime.saved.format import VERSION
from tests.saved import fuzz_loader
from tests.saved.tamper import members_of, read_agz, write_agz


@pytest.fixture
def saved(tmp_path):
    """(description, npz bytes, writer) of a small saved function with a cond and a check."""
    @ag.function
    def f(x, n):
        y = x[1:] * 2.0
        if np.sum(y) > 0:
            y = y + n
        for _ in range(n):
            y = y - 1.0
        return y

    f(np.arange(4.0), np.int64(2))
    ag.save(f, tmp_path / "orig.agz")
    description, npz = read_agz(tmp_path / "orig.agz")

    def write(desc, arrays=npz, raw=None):  # an edited file with a matching manifest
        return write_agz(tmp_path / "case.agz", desc, arrays, raw)
    return description, npz, write


# a node is [op, inputs, attrs, outputs, origin] (+ {extras}); an output [name, dtype, shape]
OP, INPUTS, ATTRS, OUTPUTS, ORIGIN = range(5)


def _nodes(description):
    """Every node of every graph in the description."""
    def walk(g):
        for node in g["nodes"]:
            yield node
            extras = node[5] if len(node) > 5 else {}
            for sub in extras.get("subgraphs", {}).values():
                yield from walk(sub)
    for cf in description["concrete_functions"]:
        for key in ("graph", "optimized_graph"):
            yield from walk(cf[key])


def _first(description, op):
    return next(n for n in _nodes(description) if n[OP] == op)


def _refuses(path, match):
    with pytest.raises(LoadError, match=match):
        ag.load(path)


def test_the_unaltered_file_loads(saved):
    description, _, write = saved
    fn = ag.load(write(description))
    np.testing.assert_allclose(fn(np.arange(4.0), np.int64(2)), [2.0, 4.0, 6.0])


def test_load_error_is_a_value_error():
    assert issubclass(LoadError, ValueError) and ag.LoadError is LoadError


def test_unknown_ops_are_refused_by_name(saved):
    description, _, write = saved
    node = _first(description, "multiply")
    for name in ("no_such_op", "system", "__import__", "eval"):
        node[OP] = name
        _refuses(write(description), "unknown op")


def test_attributes_are_checked_against_the_op(saved):
    description, _, write = saved
    node = _first(description, "getitem")
    node[ATTRS]["x=1)\nimport os\n#"] = 1
    _refuses(write(description), "not an attribute name")
    del node[ATTRS]["x=1)\nimport os\n#"]
    index = node[ATTRS]["index"]
    node[ATTRS]["index"] = {"slot": 5}
    _refuses(write(description), "malformed index")
    node[ATTRS]["index"] = index
    node = _first(description, "sum")
    node[ATTRS]["evil"] = 1
    _refuses(write(description), "takes no keyword 'evil'")


def test_a_check_may_only_raise_its_own_exceptions(saved, tmp_path):
    @ag.function
    def g(n, step):
        total = 0
        for i in range(0, n, step):  # a symbolic step: a run-time check that it is not 0
            total += i
        return total

    g(np.int64(3), np.int64(1))
    ag.save(g, tmp_path / "g.agz")
    description, npz = read_agz(tmp_path / "g.agz")
    write = saved[2]
    node = _first(description, "check")
    for bad in ("__import__", "exit", "SystemExit", 3):
        node[ATTRS]["error"] = bad
        _refuses(write(description, npz), "bad attribute 'error'")


def test_strings_that_reach_generated_code_must_be_printable(saved):
    description, _, write = saved
    node = _first(description, "multiply")
    description["origins"][node[ORIGIN]][0] = "x.py\nimport os; os.system('echo pwned')\n"
    _refuses(write(description), "unprintable")
    description["origins"][node[ORIGIN]][0] = "x.py"
    node[OUTPUTS][0][0] = "v\n__import__('os')"
    _refuses(write(description), "unprintable")


def test_code_like_names_stay_names(saved):
    description, _, write = saved
    description["origins"] = [["__import__('os').system('x')", 1, "f()"]]
    for node in _nodes(description):
        node[ORIGIN] = 0
    fn = ag.load(write(description))
    fuzz_loader.check_loaded(fn)
    np.testing.assert_allclose(fn(np.arange(4.0), np.int64(2)), [2.0, 4.0, 6.0])


def test_references_only_to_earlier_values(saved):
    description, _, write = saved
    graph = description["concrete_functions"][0]["graph"]
    first, last = graph["nodes"][0], graph["nodes"][-1]
    defined = len(graph["inputs"]) + sum(len(n[OUTPUTS]) for n in graph["nodes"])
    first[INPUTS][0] = defined - len(last[OUTPUTS])  # last's output: a cycle through the graph
    _refuses(write(description), "not defined before it")


def test_shape_and_dtype_lies_are_caught(saved):
    description, _, write = saved
    node = _first(description, "getitem")
    node[OUTPUTS][0][2] = [7]
    _refuses(write(description), "declares outputs")
    node[OUTPUTS][0][2] = [3]
    node[OUTPUTS][0][1] = "<f4"
    _refuses(write(description), "declares outputs")


def test_bad_dtypes_are_refused(saved):
    description, _, write = saved
    for bad in ("|O", "<V8", "object", "[('a', '<i4')]", "<M8[ns]"):
        description["concrete_functions"][0]["graph"]["inputs"][0][1] = bad
        if bad == "|O":
            _refuses(write(description), "declares outputs|object|dtype")
        else:
            _refuses(write(description), "not an allowed dtype")


def test_future_versions_and_other_formats(saved):
    description, _, write = saved
    description["version"] = VERSION + 1
    _refuses(write(description), "newer than this autograph-numpy reads")
    description["version"] = VERSION
    description["format"] = "something else"
    _refuses(write(description), "not a saved autograph-numpy function")


def test_truncated_and_garbage_files(saved, tmp_path):
    description, _, write = saved
    data = open(write(description), "rb").read()
    for cut in (0, 10, len(data) // 2, len(data) - 1):
        (tmp_path / "cut.agz").write_bytes(data[:cut])
        _refuses(tmp_path / "cut.agz", "not a readable|not a saved|truncated")
    _refuses(write(None, raw=b'{"format": '), "not valid JSON")
    _refuses(write(None, raw=b"[" * 100_000 + b"]" * 100_000), "nested too deeply|top level")
    _refuses(write(None, raw=b'{"version": NaN}'), "not valid JSON")


def _npz(**members: bytes) -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as zf:
        for name, data in members.items():
            zf.writestr(name, data)
    return out.getvalue()


def _npy(array, allow_pickle=False) -> bytes:
    buffer = io.BytesIO()
    np.save(buffer, array, allow_pickle=allow_pickle)
    return buffer.getvalue()


def test_arrays_never_unpickle_and_headers_cannot_lie(saved):
    description, npz, write = saved
    pickled = _npy(np.array([print], dtype=object), allow_pickle=True)
    _refuses(write(description, _npz(**{"a0.npy": pickled})), "not an allowed dtype")
    huge = _npy(np.zeros(3)).replace(b"'shape': (3,), }" + b" " * 12,
                                     b"'shape': (4000000000000,), }")  # same header size
    _refuses(write(description, _npz(**{"a0.npy": huge})), "header says")
    _refuses(write(description, _npz(**{"../a0.npy": _npy(np.zeros(3))})), "unexpected member")
    _refuses(write(description, b"not a zip"), "not a readable NumPy archive")


def test_oversized_members_are_refused_before_reading(saved, monkeypatch):
    from runtime.saved import container

    description, npz, write = saved
    monkeypatch.setattr(container, "_MAX_MANIFEST_BYTES", 100)
    _refuses(write(description), "larger than")


def test_a_directory_needs_all_three_files(saved, tmp_path):
    description, npz, _ = saved
    agz = write_agz(tmp_path / "x.agz", description, npz)
    folder = tmp_path / "dir"
    folder.mkdir()
    members = members_of(agz)
    (folder / "graph.json").write_bytes(members["graph.json"])
    (folder / "manifest.json").write_bytes(members["manifest.json"])
    _refuses(folder, "missing")
    (folder / "arrays.npz").write_bytes(npz)
    assert ag.load(folder)(np.arange(4.0), np.int64(2)).shape == (3,)
    (folder / "manifest.json").unlink()
    _refuses(folder, "before manifests")


def test_random_corruptions_only_raise_load_error(tmp_path):
    counts = fuzz_loader.run(300, seed=12345, directory=str(tmp_path))
    total = sum(counts.values())
    refused = sum(k for (_, outcome), k in counts.items() if outcome == "LoadError")
    assert total == 300 and refused > 200, counts
    assert not os.path.exists(tmp_path / fuzz_loader.SENTINEL)
